"""tiktoken's `.tiktoken` rank files: read them, load a byte-level BPE tokenizer, write one, and the
arguments of a `tiktoken.Encoding` equal to a tokenizer.

A rank file has one `base64(token bytes) rank` line per token, sorted by rank, and nothing else:
no merges (tiktoken merges the adjacent pair whose concatenation has the lowest rank), no
pre-tokenizer pattern, no special tokens. What it cannot hold goes in a sidecar beside it,
`NAME.tiktoken.json` (the rank file's path plus ".json"), written by `write` and read by `load`:

    {"name": "NAME", "pat_str": "<regex>", "special_tokens": {"<|endoftext|>": 50256},
     "explicit_n_vocab": 50257}

`pat_str` is the pre-tokenizer's regex (GPT-2's for a ByteLevel pre-tokenizer, a Split's own
pattern otherwise), `special_tokens` the special added tokens and their ids, `explicit_n_vocab` the
vocabulary size when the ids have no holes (else null). These are `tiktoken.Encoding`'s arguments,
so `Encoding(**sidecar, mergeable_ranks=load_tiktoken_bpe(path))` rebuilds the encoding.

Without a sidecar, OpenAI's own rank files (r50k_base, p50k_base, cl100k_base, o200k_base) are
recognized by their SHA-256 and get tiktoken's pattern and special tokens for them
(`openai_encodings`); any other file gets GPT-2's pattern and no specials, and `load_noted` says
which. No tiktoken import here: the engine uses only the standard library.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from typing import Final, TypedDict

from engine import byte_level, decoders, pre_tokenizers, processors
from engine.added_vocabulary import AddedToken
from engine.models.bpe.model import BPE
from engine.errors import EngineError, TokenizerFileError
from engine.formats.export_notes import lost_parts, separate_end_of_word
from engine.formats.files import decode_text, read_bytes, read_text, write_texts_atomically
from engine.formats.openai_encodings import KNOWN_RANK_FILES, OpenAIEncoding
from engine.formats.safe_json import parse_json
from engine.pattern import ISOLATED, Regex
from engine.schema import MAX_ID
from engine.pre_tokenizers import PreTokenizer
from engine.tokenizer import Tokenizer

# GPT-2's pre-tokenizer regex as HF's ByteLevel spells it; tiktoken's fancy-regex runs it as is.
GPT2_PATTERN: Final = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# ByteLevel(use_regex=False): the whole text is one piece.
WHOLE_TEXT_PATTERN: Final = r"[\s\S]+"
SIDECAR_SUFFIX: Final = ".json"


class RankFile:
    """The ranks of a rank file, the line each came from (for messages) and the file's SHA-256 (hex)."""

    ranks: dict[bytes, int]
    lines: dict[int, int]
    sha256: str

    def __init__(self, ranks: dict[bytes, int], lines: dict[int, int], sha256: str = "") -> None:
        self.ranks = ranks
        self.lines = lines
        self.sha256 = sha256


class Sidecar:
    """What the rank file cannot hold: the pattern and the special tokens (see the module docstring)."""

    name: str
    pat_str: str
    special_tokens: dict[str, int]
    explicit_n_vocab: int | None

    def __init__(self, name: str, pat_str: str, special_tokens: dict[str, int], explicit_n_vocab: int | None) -> None:
        self.name = name
        self.pat_str = pat_str
        self.special_tokens = special_tokens
        self.explicit_n_vocab = explicit_n_vocab


def sidecar_path(path: str) -> str:
    """Where the sidecar of a rank file lives: `cl100k.tiktoken` -> `cl100k.tiktoken.json`."""
    return path + SIDECAR_SUFFIX


# -- reading --------------------------------------------------------------------------------


def read(path: str) -> dict[bytes, int]:
    """The mergeable ranks of a `.tiktoken` file: {token bytes: rank} (`"IQ== 0"` -> `{b"!": 0}`)."""
    return read_rank_file(path).ranks


def read_rank_file(path: str) -> RankFile:
    """Like tiktoken's `load_tiktoken_bpe`, blank lines skipped; any other line must be
    `<base64> <rank>`, with no token or rank twice, or a TokenizerFileError names the line."""
    data = read_bytes(path, ".tiktoken")
    text = decode_text(path, data, ".tiktoken")
    ranks: dict[bytes, int] = {}
    lines: dict[int, int] = {}
    token_lines: dict[bytes, int] = {}
    number = 0
    for line in text.split("\n"):
        number += 1
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 2:
            raise TokenizerFileError(path, f"line {number}: expected `<base64 token> <rank>`, got {line[:60]!r}")
        try:
            token = base64.b64decode(fields[0], validate=True)
        except (binascii.Error, ValueError):
            raise TokenizerFileError(path, f"line {number}: {fields[0][:60]!r} is not base64") from None
        if not token:
            raise TokenizerFileError(path, f"line {number}: the token is empty")
        if not (fields[1].isascii() and fields[1].isdigit()):
            raise TokenizerFileError(path, f"line {number}: the rank {fields[1][:30]!r} is not a non-negative integer")
        # (a rank is an id: HF's are 32-bit; a longer number is refused before int() reads it)
        rank = int(fields[1]) if len(fields[1]) <= 10 else MAX_ID + 1
        if rank > MAX_ID:
            raise TokenizerFileError(path, f"line {number}: the rank {fields[1][:30]!r} is larger than {MAX_ID} (ids are 32-bit)")
        previous = token_lines.get(token)
        if previous is not None:
            raise TokenizerFileError(path, f"line {number}: the token {token!r} is already on line {previous}")
        previous = lines.get(rank)
        if previous is not None:
            raise TokenizerFileError(path, f"line {number}: the rank {rank} is already on line {previous}")
        ranks[token] = rank
        lines[rank] = number
        token_lines[token] = number
    return RankFile(ranks, lines, hashlib.sha256(data).hexdigest())


def read_sidecar(path: str) -> Sidecar:
    """A sidecar JSON (see the module docstring); errors name the file and the field."""
    data = parse_json(read_text(path, "tiktoken sidecar"), path)
    if not isinstance(data, dict):
        raise TokenizerFileError(path, "is not a tiktoken sidecar: expected a JSON object")
    pat_str = data.get("pat_str")
    if not isinstance(pat_str, str):
        raise TokenizerFileError(path, "field 'pat_str': expected a string (the pre-tokenizer regex)")
    name = data.get("name", "")
    if not isinstance(name, str):
        raise TokenizerFileError(path, "field 'name': expected a string")
    raw_specials = data.get("special_tokens", {})
    if not isinstance(raw_specials, dict):
        raise TokenizerFileError(path, "field 'special_tokens': expected an object {token: id}")
    specials: dict[str, int] = {}
    for token, id in raw_specials.items():
        if isinstance(id, bool) or not isinstance(id, int) or id < 0:
            raise TokenizerFileError(path, f"field 'special_tokens': the id of {token!r} is not a non-negative integer")
        if id > MAX_ID:
            raise TokenizerFileError(path, f"field 'special_tokens': the id of {token!r} is larger than {MAX_ID} (ids are 32-bit)")
        specials[str(token)] = id
    n_vocab = data.get("explicit_n_vocab")
    if n_vocab is not None and (isinstance(n_vocab, bool) or not isinstance(n_vocab, int)):
        raise TokenizerFileError(path, "field 'explicit_n_vocab': expected an integer or null")
    return Sidecar(name, pat_str, specials, n_vocab)


# -- merges from ranks ----------------------------------------------------------------------


def bpe_pieces(token: bytes, ranks: dict[bytes, int], max_rank: int) -> list[bytes]:
    """tiktoken's merging of `token`'s bytes with the ranks below `max_rank` only.

    With ranks {a: 0, b: 1, c: 2, ab: 3, abc: 4}: `bpe_pieces(b"abc", ranks, 4)` -> [b"ab", b"c"].
    """
    pieces: list[bytes] = []
    for i in range(len(token)):
        pieces.append(token[i : i + 1])
    # subtle: at two pieces the only pair is `token` itself, of rank max_rank: nothing left to merge.
    while len(pieces) > 2:
        best = -1
        best_rank = max_rank
        for i in range(len(pieces) - 1):
            rank = ranks.get(pieces[i] + pieces[i + 1])
            # strict <: on a tie the leftmost pair wins, as in tiktoken
            if rank is not None and rank < best_rank:
                best_rank = rank
                best = i
        if best < 0:
            break
        pieces[best] = pieces[best] + pieces[best + 1]
        del pieces[best + 1]
    return pieces


def merges_from_ranks(ranks: dict[bytes, int]) -> tuple[list[tuple[bytes, bytes]], list[bytes]]:
    """The merges a BPE needs to encode like tiktoken, in rank order, and the tokens that no single
    merge of two tokens builds (tiktoken's merging of their bytes stops earlier, or a byte is missing)."""
    by_rank: list[tuple[int, bytes]] = []
    for token, rank in ranks.items():
        if len(token) > 1:
            by_rank.append((rank, token))
    by_rank.sort()
    merges: list[tuple[bytes, bytes]] = []
    orphans: list[bytes] = []
    for rank, token in by_rank:
        pieces = bpe_pieces(token, ranks, rank)
        # subtle: a piece may be a single byte that is no token at all.
        if len(pieces) == 2 and pieces[0] in ranks and pieces[1] in ranks:
            merges.append((pieces[0], pieces[1]))
        else:
            orphans.append(token)
    return merges, orphans


def chars(token: bytes) -> str:
    """GPT-2's byte chars for `token` (`b"\\xc3\\xa9 "` -> `"Ã©Ġ"`)."""
    return token.decode("latin-1").translate(byte_level.LATIN1_TO_CHARS)


# -- loading --------------------------------------------------------------------------------


def pre_tokenizer_for(pattern: str | None) -> PreTokenizer:
    """The engine pre-tokenizer that splits like tiktoken with `pattern` (GPT-2's when None)."""
    if pattern is None or pattern == GPT2_PATTERN:
        return pre_tokenizers.ByteLevel(add_prefix_space=False)
    if pattern == WHOLE_TEXT_PATTERN:
        return pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    return pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(pattern), ISOLATED),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )


def tiktoken_tokenizer(
    ranks: dict[bytes, int], merges: list[tuple[bytes, bytes]], pattern: str | None, special_tokens: dict[str, int]
) -> Tokenizer:
    """A byte-level BPE encoding like tiktoken: vocabulary = ranks, whole pieces looked up first
    (`ignore_merges`, as tiktoken does), specials as special added tokens at their own ids.

    Raises EngineError when a special token's id or text collides with a mergeable token.
    """
    vocab: dict[str, int] = {}
    owners: dict[int, str] = {}
    for token, rank in ranks.items():
        text = chars(token)
        vocab[text] = rank
        owners[rank] = text
    for special, id in special_tokens.items():
        if special in vocab:
            raise EngineError(f"special token {special!r}: its text is already the mergeable token of rank {vocab[special]}")
        if id in owners:
            raise EngineError(f"special token {special!r}: id {id} is already the rank of {owners[id]!r}")
        vocab[special] = id
        owners[id] = special
    pairs: list[tuple[str, str]] = []
    for a, b in merges:
        pairs.append((chars(a), chars(b)))
    tokenizer = Tokenizer(BPE(vocab, pairs, ignore_merges=True))
    tokenizer.pre_tokenizer = pre_tokenizer_for(pattern)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    by_id: list[tuple[int, str]] = []
    for special, id in special_tokens.items():
        by_id.append((id, special))
    by_id.sort()
    added: list[str | AddedToken] = []
    for _, special in by_id:
        added.append(AddedToken(special, special=True))
    if added:
        tokenizer.add_special_tokens(added)
    return tokenizer


def load(path: str, pattern: str | None = None, special_tokens: dict[str, int] | None = None) -> Tokenizer:
    """An engine tokenizer from a `.tiktoken` file, its merges rebuilt from the ranks (see `load_noted`)."""
    return load_noted(path, pattern, special_tokens)[0]


def load_noted(
    path: str,
    pattern: str | None = None,
    special_tokens: dict[str, int] | None = None,
    known: dict[str, OpenAIEncoding] = KNOWN_RANK_FILES,
) -> tuple[Tokenizer, list[str]]:
    """`load`, and what it assumed that neither the file nor the arguments say.

    `pattern` and `special_tokens` default to the sidecar's when one is beside the file; else a
    file whose SHA-256 is one of `known` (OpenAI's rank files) gets that encoding's, with a note
    ("recognized as OpenAI's cl100k_base by its SHA-256: ..."); else GPT-2's pattern and no
    specials, with a note saying so. A token that no merge can build is an error naming its line;
    a file without every single byte as a token is an error naming the missing bytes (tiktoken
    could not encode a text holding one, and the engine would drop it).
    """
    rank_file = read_rank_file(path)
    if not rank_file.ranks:
        raise TokenizerFileError(path, "holds no tokens (a .tiktoken file has one `<base64 token> <rank>` line per token)")
    side = sidecar_path(path)
    source = "the arguments"
    notes: list[str] = []
    if pattern is None or special_tokens is None:
        if os.path.isfile(side):
            sidecar = read_sidecar(side)
            source = side
            if pattern is None:
                pattern = sidecar.pat_str
            if special_tokens is None:
                special_tokens = sidecar.special_tokens
        else:
            encoding = known.get(rank_file.sha256)
            if encoding is not None:
                source = f"OpenAI's {encoding.name} pattern and special tokens"
                notes.append(_recognized_note(encoding, pattern is None, special_tokens is None))
                if pattern is None:
                    pattern = encoding.pat_str
                if special_tokens is None:
                    special_tokens = dict(encoding.special_tokens)
            else:
                notes.append(_unknown_note(side, pattern is None, special_tokens is None))
    merges, orphans = merges_from_ranks(rank_file.ranks)
    if orphans:
        token = orphans[0]
        rank = rank_file.ranks[token]
        pieces = bpe_pieces(token, rank_file.ranks, rank)
        raise TokenizerFileError(
            path,
            f"line {rank_file.lines[rank]}: the token {token!r} (rank {rank}) is not two tokens of lower rank"
            f" merged (merging its bytes by rank stops at {len(pieces)} pieces"
            + (")" if len(pieces) != 2 else ", not all of them tokens)")
            + ", so no merge builds it"
            + (f"; {len(orphans) - 1} more like it" if len(orphans) > 1 else ""),
        )
    missing: list[int] = []
    for b in range(256):
        if bytes([b]) not in rank_file.ranks:
            missing.append(b)
    if missing:
        raise TokenizerFileError(path, f"has no rank for {_byte_list(missing)}: every single byte must be a token")
    try:
        tokenizer = tiktoken_tokenizer(rank_file.ranks, merges, pattern, special_tokens if special_tokens is not None else {})
    except EngineError as error:
        raise TokenizerFileError(path, f"cannot be loaded with {source}: {error}") from None
    return tokenizer, notes


def _recognized_note(encoding: OpenAIEncoding, pattern: bool, specials: bool) -> str:
    """`"recognized as OpenAI's cl100k_base by its SHA-256: tiktoken's split pattern and its 5
    special tokens"` (`pattern`, `specials`: which of the two were taken from the encoding)."""
    taken: list[str] = []
    if pattern:
        taken.append("tiktoken's split pattern")
    if specials:
        n = len(encoding.special_tokens)
        taken.append(f"its {n} special token{'s' if n != 1 else ''}")
    return f"recognized as OpenAI's {encoding.name} by its SHA-256: {' and '.join(taken)}"


def _unknown_note(side: str, pattern: bool, specials: bool) -> str:
    """`"not one of OpenAI's rank files, and no sidecar (x.tiktoken.json) beside it: split with
    GPT-2's pattern, no special tokens; write a sidecar to choose another"`."""
    assumed: list[str] = []
    if pattern:
        assumed.append("split with GPT-2's pattern")
    if specials:
        assumed.append("no special tokens")
    return (
        f"not one of OpenAI's rank files, and no sidecar ({os.path.basename(side)}) beside it:"
        f" {', '.join(assumed)}; write a sidecar to choose another"
    )


def _byte_list(missing: list[int]) -> str:
    """`[0, 1, 2, 3, 65, 200]` -> "the 6 bytes 0x00-0x03, 0x41, 0xC8" (runs shortened, at most 8 listed)."""
    parts: list[str] = []
    start = 0
    while start < len(missing) and len(parts) < 8:
        end = start
        while end + 1 < len(missing) and missing[end + 1] == missing[end] + 1:
            end += 1
        if end > start:
            parts.append(f"0x{missing[start]:02X}-0x{missing[end]:02X}")
        else:
            parts.append(f"0x{missing[start]:02X}")
        start = end + 1
    more = ", ..." if start < len(missing) else ""
    what = "the byte" if len(missing) == 1 else f"the {len(missing)} bytes"
    return f"{what} {', '.join(parts)}{more}"


# -- writing --------------------------------------------------------------------------------


class Export:
    """A tokenizer as tiktoken sees it, and what that loses."""

    sidecar: Sidecar
    ranks: dict[bytes, int]
    notes: list[str]

    def __init__(self, sidecar: Sidecar, ranks: dict[bytes, int], notes: list[str]) -> None:
        self.sidecar = sidecar
        self.ranks = ranks
        self.notes = notes


def pattern_of(pre_tokenizer: PreTokenizer | None, notes: list[str]) -> str:
    """The tiktoken pattern that splits like `pre_tokenizer` (GPT-2's for ByteLevel, a Split's
    own regex before a regex-free ByteLevel), or an EngineError when there is none."""
    if isinstance(pre_tokenizer, pre_tokenizers.ByteLevel):
        if pre_tokenizer.add_prefix_space:
            notes.append(
                "the pre-tokenizer's add_prefix_space=True is lost: tiktoken adds no space, so a text"
                " that does not start with one encodes differently"
            )
        return GPT2_PATTERN if pre_tokenizer.use_regex else WHOLE_TEXT_PATTERN
    if isinstance(pre_tokenizer, pre_tokenizers.Sequence) and len(pre_tokenizer) == 2:
        split = pre_tokenizer[0]
        last = pre_tokenizer[1]
        if (
            isinstance(split, pre_tokenizers.Split)
            and isinstance(split.pattern, Regex)
            and split.behavior == ISOLATED
            and not split.invert
            and isinstance(last, pre_tokenizers.ByteLevel)
            and not last.use_regex
            and not last.add_prefix_space
        ):
            return split.pattern.pattern
    what = type(pre_tokenizer).__name__ if pre_tokenizer is not None else "no pre-tokenizer"
    raise EngineError(
        f"the pre-tokenizer ({what}) has no tiktoken pattern: tiktoken needs ByteLevel, or"
        " Sequence[Split(Regex, 'isolated'), ByteLevel(use_regex=False, add_prefix_space=False)]"
    )


def export(tokenizer: Tokenizer, name: str) -> Export:
    """The ranks, pattern and specials of `tokenizer`, checked to encode alike in tiktoken.

    Ranks are the ids. They must agree with the merge order: tiktoken's merging by rank must
    rebuild exactly the model's merges, otherwise an EngineError says where they part.
    """
    model = tokenizer.model
    if not isinstance(model, BPE):
        raise EngineError(f"tiktoken holds a byte-level BPE, and this tokenizer's model is {type(model).__name__}")
    refused = separate_end_of_word(tokenizer, "tiktoken")
    if refused:
        raise EngineError(refused)
    if model.continuing_subword_prefix or model.end_of_word_suffix:
        raise EngineError("tiktoken has no continuing-subword prefix or end-of-word suffix, and this BPE uses one")
    notes: list[str] = []
    pat_str = pattern_of(tokenizer.pre_tokenizer, notes)
    if model.dropout:
        notes.append(f"the BPE dropout={model.dropout} is not applied by tiktoken")
    specials: dict[str, int] = {}
    for id, added in sorted(tokenizer.get_added_tokens_decoder().items()):
        if added.special:
            specials[added.content] = id
    ranks: dict[bytes, int] = {}
    for token, id in sorted(model.get_vocab().items()):
        if specials.get(token) == id:
            continue
        raw = byte_level.to_bytes(token)
        if raw is None:
            raise EngineError(f"the token {token!r} (id {id}) is not made of GPT-2 byte chars: the model is not byte-level")
        ranks[raw] = id
    missing: list[int] = []
    for b in range(256):
        if bytes([b]) not in ranks:
            missing.append(b)
    if missing:
        shown = ", ".join(f"0x{b:02X}" for b in missing[:8])
        raise EngineError(f"tiktoken needs every single byte as a token; {len(missing)} are missing ({shown}...)")
    merges = check_merge_order(model.merges, ranks)
    n = len(ranks) + len(specials)
    largest = max(max(ranks.values()), max(specials.values()) if specials else -1)
    sidecar = Sidecar(name, pat_str, specials, n if largest == n - 1 else None)
    rebuilt = tiktoken_tokenizer(ranks, merges, pat_str, specials)
    notes += lost_parts(tokenizer, rebuilt, "a .tiktoken file and its sidecar", "tiktoken.load", report_rebuilt=False)
    return Export(sidecar, ranks, notes)


def check_merge_order(model_merges: list[tuple[str, str]], ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """The merges tiktoken's merging by rank implies, which must be exactly `model_merges`, in
    order (else an EngineError says where they part)."""
    rebuilt, orphans = merges_from_ranks(ranks)
    if orphans:
        token = orphans[0]
        raise EngineError(
            f"the ids are not consistent with the merge order: the token {chars(token)!r} (id {ranks[token]})"
            " is not built by merging two tokens of smaller id in tiktoken's order"
        )
    for index in range(min(len(rebuilt), len(model_merges))):
        a, b = model_merges[index]
        x, y = rebuilt[index]
        if chars(x) != a or chars(y) != b:
            raise EngineError(
                f"the ids are not consistent with the merge order: merge {index + 1} of the model is {a!r} + {b!r},"
                f" where tiktoken's merging by id gives {chars(x)!r} + {chars(y)!r}"
            )
    if len(rebuilt) != len(model_merges):
        raise EngineError(
            f"the ids are not consistent with the merge order: the model has {len(model_merges)} merges,"
            f" tiktoken's merging by id gives {len(rebuilt)}"
        )
    return rebuilt


class EncodingArguments(TypedDict):
    """The keyword arguments of a `tiktoken.Encoding`, with the types tiktoken declares."""

    name: str
    pat_str: str
    mergeable_ranks: dict[bytes, int]
    special_tokens: dict[str, int]
    explicit_n_vocab: int | None


def encoding_arguments(tokenizer: Tokenizer, name: str = "engine") -> EncodingArguments:
    """The keyword arguments of a `tiktoken.Encoding` that encodes like `tokenizer`
    (`tiktoken.Encoding(**encoding_arguments(tokenizer))`). EngineError when there is none."""
    found = export(tokenizer, name)
    return {
        "name": name,
        "pat_str": found.sidecar.pat_str,
        "mergeable_ranks": found.ranks,
        "special_tokens": found.sidecar.special_tokens,
        "explicit_n_vocab": found.sidecar.explicit_n_vocab,
    }


def dump_ranks(ranks: dict[bytes, int]) -> str:
    """The rank file text: `base64 rank` lines sorted by rank (`{b"!": 0}` -> `"IQ== 0\\n"`)."""
    by_rank: list[tuple[int, bytes]] = []
    for token, rank in ranks.items():
        by_rank.append((rank, token))
    by_rank.sort()
    lines: list[str] = []
    for rank, token in by_rank:
        lines.append(base64.b64encode(token).decode("ascii") + " " + str(rank) + "\n")
    return "".join(lines)


def dump_sidecar(sidecar: Sidecar) -> str:
    return json.dumps(
        {
            "name": sidecar.name,
            "pat_str": sidecar.pat_str,
            "special_tokens": sidecar.special_tokens,
            "explicit_n_vocab": sidecar.explicit_n_vocab,
        },
        ensure_ascii=False,
        indent=2,
    )


def write(tokenizer: Tokenizer, path: str) -> list[str]:
    """Write `path` (the ranks) and its sidecar `path + ".json"`, both or neither; returns what is lost.

    A tokenizer tiktoken cannot reproduce is a TokenizerFileError, and nothing is written.
    """
    name = os.path.basename(path)
    if name.endswith(".tiktoken"):
        name = name[: -len(".tiktoken")]
    try:
        found = export(tokenizer, name)
    except EngineError as error:
        raise TokenizerFileError(path, f"cannot be written as a tiktoken file: {error}") from None
    write_texts_atomically([(path, dump_ranks(found.ranks)), (sidecar_path(path), dump_sidecar(found.sidecar))])
    return found.notes
