"""`tokenizer-workbench inspect`: a tokenizer file of any format summarized: its format,
pipeline, vocabulary size, special tokens, and its first and last merges (or likeliest pieces).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from engine import models
from engine.formats import convert
from workbench.cli.common import READABLE, CliError, load_noted, stdout_for
from workbench.cli.encode_lines import visible


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `inspect` command's arguments."""
    inspect = sub.add_parser(
        "inspect",
        help="summarize a tokenizer file (any format convert reads)",
        description="Print the format, pipeline, vocabulary size, special tokens and first/last merges of a tokenizer.",
    )
    inspect.add_argument("tokenizer", metavar="TOKENIZER", help=READABLE)
    inspect.add_argument("--merges", type=int, default=10, metavar="N", help="how many first/last merges to show")
    inspect.set_defaults(func=cmd_inspect)


def _describe(component: object) -> str:
    if component is None:
        return "none"
    data = component.to_dict()  # type: ignore[attr-defined]
    return _summarize(data)


def _summarize(data: object) -> str:
    if not isinstance(data, dict):
        return json.dumps(data, ensure_ascii=False)
    kind = str(data.get("type", "?"))
    children = data.get("normalizers") or data.get("pretokenizers") or data.get("processors") or data.get("decoders")
    if isinstance(children, list):
        return f"{kind}[{', '.join(_summarize(c) for c in children)}]"
    options = []
    for key, value in data.items():
        if key in ("type", "vocab", "merges", "special_tokens", "precompiled_charsmap"):
            continue
        options.append(f"{key}={json.dumps(value, ensure_ascii=False)}")
    return f"{kind}({', '.join(options)})" if options else kind


def cmd_inspect(args: argparse.Namespace) -> int:
    if args.merges < 0:
        raise CliError(f"--merges must be 0 or more, got {args.merges}")
    out = stdout_for("the summary")
    loaded = load_noted(args.tokenizer)
    tokenizer = loaded.tokenizer
    kind = convert.detect(args.tokenizer)
    model = tokenizer.model
    model_data = model.to_dict()
    out.write(f"file:            {args.tokenizer}\n")
    out.write(f"format:          {convert.DESCRIPTIONS[kind]}\n")
    for note in loaded.notes:
        out.write(f"detected:        {note}\n")
    out.write(f"normalizer:      {_describe(tokenizer.normalizer)}\n")
    out.write(f"pre-tokenizer:   {_describe(tokenizer.pre_tokenizer)}\n")
    out.write(f"model:           {_summarize(model_data)}\n")
    out.write(f"post-processor:  {_describe(tokenizer.post_processor)}\n")
    out.write(f"decoder:         {_describe(tokenizer.decoder)}\n")
    out.write(
        f"vocab size:      {tokenizer.get_vocab_size(with_added_tokens=True):,} "
        f"(model {tokenizer.get_vocab_size(with_added_tokens=False):,})\n"
    )
    added = tokenizer.get_added_tokens_decoder()
    specials = {t.content for t in added.values() if t.special}
    special = [(i, t.content) for i, t in sorted(added.items()) if t.special]
    plain = [(i, t.content) for i, t in sorted(added.items()) if not t.special]
    out.write(f"special tokens:  {_token_list(special) if special else 'none'}\n")
    if plain:
        out.write(f"added tokens:    {_token_list(plain)}\n")
    if isinstance(model, models.BPE):
        merges = model.merges
        n = args.merges
        out.write(f"merges:          {len(merges):,}\n")
        if merges:
            out.write(f"first merges:    {_merge_list(merges[:n])}\n")
            out.write(f"last merges:     {_merge_list(merges[-n:])}\n")
    if isinstance(model, models.Unigram):
        # the pieces most and least likely under the model (special pieces score 0 and are left out)
        scored = sorted(
            [(score, piece) for piece, score in model.pieces if piece not in specials and score != 0.0],
            reverse=True,
        )
        if scored:
            n = args.merges
            out.write(f"piece scores:    {scored[-1][0]:.3f} .. {scored[0][0]:.3f} (log-probabilities)\n")
            out.write(f"likeliest:       {'  '.join(visible(p) for _, p in scored[:n])}\n")
            out.write(f"least likely:    {'  '.join(visible(p) for _, p in scored[-n:])}\n")
    if isinstance(model, models.WordPiece):
        prefix = model.continuing_subword_prefix
        vocab = model.get_vocab()
        continuing = sum(1 for token in vocab if token.startswith(prefix))
        out.write(f"continuations:   {continuing:,} of {len(vocab):,} tokens start with {prefix!r}\n")
    return 0


# `inspect` lists at most this many added (or special) tokens, then says how many more there are.
TOKEN_LIST_LIMIT = 20


def _token_list(tokens: Sequence[tuple[int, str]], limit: int = TOKEN_LIST_LIMIT) -> str:
    """Tokens by id as `content=id`, quoted when blank or with controls; past `limit`, a count:
    `a=5, b=6, ... and 1,998 more (ids 7..2004)`."""
    shown = ", ".join(f"{visible(content)}={i}" for i, content in tokens[:limit])
    rest = tokens[limit:]
    if not rest:
        return shown
    return f"{shown}, ... and {len(rest):,} more (ids {rest[0][0]}..{rest[-1][0]})"


def _merge_list(merges: Sequence[tuple[str, str]]) -> str:
    return "  ".join(f"{visible(a)} + {visible(b)}" for a, b in merges)
