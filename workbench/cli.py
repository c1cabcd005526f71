"""The `tokenizer-workbench` command: train, encode and inspect tokenizers from a terminal.

Argument parsing, progress bars and messages only; all tokenizer work is `engine`'s. Every
engine error becomes one line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from tqdm import tqdm

import engine
from engine import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from engine.errors import EngineError
from engine.progress import ProgressSink, TrainProgress

PROG = "tokenizer-workbench"
EXIT_ERROR = 1
EXIT_USAGE = 2

PRESETS = {
    "bpe": "Whitespace pre-tokenizer + BPE with [UNK]",
    "gpt2": "GPT-2 style byte-level BPE: ByteLevel pre-tokenizer, decoder and post-processor, 256-byte alphabet",
    "wordlevel": "Whitespace pre-tokenizer + WordLevel with [UNK]",
}
DEFAULT_SPECIAL_TOKENS = {"bpe": ["[UNK]"], "gpt2": ["<|endoftext|>"], "wordlevel": ["[UNK]"]}
UNK = "[UNK]"


class CliError(Exception):
    """A problem with what the user asked for; its message is printed as is."""


# ---------------------------------------------------------------------------------------------
# train


class TqdmProgress(ProgressSink):
    """One tqdm bar per training stage on stderr: stage, done/total, rate and time left."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._bar: tqdm[NoReturn] | None = None
        self._stage = ""

    def report(self, event: TrainProgress) -> bool:
        if event.stage != self._stage:
            self.close()
            self._stage = event.stage
            is_bytes = event.unit in ("B", "bytes")
            self._bar = tqdm(
                total=event.total,
                desc=f"{event.stage}:",
                unit="B" if is_bytes else (event.unit or "it"),
                unit_scale=is_bytes,
                unit_divisor=1024 if is_bytes else 1000,
                bar_format="{desc:<22}{percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]",
                file=self._stream,
                dynamic_ncols=True,
                leave=True,
                mininterval=0.2,
            )
        bar = self._bar
        assert bar is not None
        if event.total != bar.total:
            bar.total = event.total
        bar.update(event.current - bar.n)
        if event.detail:
            bar.set_postfix_str(event.detail, refresh=False)
        return True

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        self._bar = None


class StageLines(ProgressSink):
    """Progress for logs and pipes (stderr not a terminal): one line as each stage completes."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._started: dict[str, float] = {}
        self._done: set[str] = set()

    def report(self, event: TrainProgress) -> bool:
        started = self._started.setdefault(event.stage, time.monotonic())
        if event.total > 0 and event.current >= event.total and event.stage not in self._done:
            self._done.add(event.stage)
            unit = f" {event.unit}" if event.unit else ""
            self._stream.write(
                f"{event.stage}: {event.current:,}/{event.total:,}{unit} in {time.monotonic() - started:.1f} s\n"
            )
            self._stream.flush()
        return True

    def close(self) -> None:
        pass


def build_preset(preset: str, vocab_size: int, min_frequency: int, special: list[str]) -> tuple[Tokenizer, trainers.Trainer]:
    """The tokenizer and trainer a preset stands for (the same objects a script would build)."""
    if preset == "bpe":
        tokenizer = Tokenizer(models.BPE(unk_token=UNK))
        tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
        trainer: trainers.Trainer = trainers.BpeTrainer(
            vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=special, show_progress=True
        )
    elif preset == "gpt2":
        tokenizer = Tokenizer(models.BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tokenizer.decoder = decoders.ByteLevel()
        tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            min_frequency=min_frequency,
            special_tokens=special,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=True,
        )
    elif preset == "wordlevel":
        tokenizer = Tokenizer(models.WordLevel(unk_token=UNK))
        tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
        trainer = trainers.WordLevelTrainer(
            vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=special, show_progress=True
        )
    else:  # argparse restricts the choices; this guards programmatic callers
        raise CliError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    return tokenizer, trainer


def _special_tokens(preset: str, given: str | None) -> list[str]:
    if given is None:
        return list(DEFAULT_SPECIAL_TOKENS[preset])
    tokens = [t.strip() for t in given.split(",") if t.strip()]
    if preset in ("bpe", "wordlevel") and UNK not in tokens:
        # subtle: the model's unk_token must be in the vocabulary, or unknown characters vanish.
        tokens.insert(0, UNK)
    return tokens


def _check_output(output: Path, inputs: list[Path]) -> None:
    if output.is_dir():
        raise CliError(f"{output}: is a directory; give the tokenizer file to write, e.g. {output / 'tokenizer.json'}")
    if not output.parent.is_dir():
        raise CliError(f"{output}: folder {output.parent} does not exist")
    resolved = output.resolve()
    for path in inputs:
        if path.exists() and path.resolve() == resolved:
            raise CliError(f"{output}: is also a training file; writing there would destroy it")


def cmd_train(args: argparse.Namespace) -> int:
    if args.vocab_size <= 0:
        raise CliError(f"--vocab-size must be positive, got {args.vocab_size}")
    if args.min_frequency < 0:
        raise CliError(f"--min-frequency must be 0 or more, got {args.min_frequency}")
    files = [Path(f) for f in args.files]
    output = Path(args.output)
    _check_output(output, files)
    special = _special_tokens(args.preset, args.special_tokens)
    tokenizer, trainer = build_preset(args.preset, args.vocab_size, args.min_frequency, special)

    progress: TqdmProgress | StageLines | None = None
    if not args.quiet:
        progress = TqdmProgress(sys.stderr) if sys.stderr.isatty() else StageLines(sys.stderr)
    started = time.monotonic()
    try:
        report = tokenizer.train([str(f) for f in files], trainer, progress=progress)
    finally:
        if progress is not None:
            progress.close()
    elapsed = time.monotonic() - started
    tokenizer.save(str(output), pretty=True)

    total_bytes = sum(f.stat().st_size for f in files)
    model = tokenizer.model
    merges = len(model.merges) if isinstance(model, models.BPE) else 0
    merges_text = f", {merges:,} merges" if isinstance(model, models.BPE) else ""
    print(
        f"Trained {args.preset} tokenizer: vocab {tokenizer.get_vocab_size():,}{merges_text}, "
        f"from {len(files)} file{'s' if len(files) != 1 else ''} ({_human_bytes(total_bytes)}, "
        f"{report.unique_words:,} unique words) in {elapsed:.1f} s -> {output}",
        file=sys.stderr,
    )
    return 0


def _human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


# ---------------------------------------------------------------------------------------------
# encode and inspect


def cmd_encode(args: argparse.Namespace) -> int:
    tokenizer = Tokenizer.from_file(args.tokenizer)
    lines: Sequence[str]
    if args.text is not None:
        lines = [args.text]
    else:
        lines = [line.rstrip("\r\n") for line in sys.stdin]
    out = sys.stdout
    for line in lines:
        encoding = tokenizer.encode(line)
        if args.json:
            out.write(
                json.dumps(
                    {"ids": encoding.ids, "tokens": encoding.tokens, "offsets": encoding.offsets},
                    ensure_ascii=False,
                )
                + "\n"
            )
        else:
            out.write(" ".join(_visible(t) for t in encoding.tokens) + "\n")
    return 0


def _visible(token: str) -> str:
    """A token as one space-free word: spaces and controls shown as escapes."""
    if token and not any(c.isspace() or not c.isprintable() for c in token):
        return token
    return json.dumps(token, ensure_ascii=False)


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
    tokenizer = Tokenizer.from_file(args.tokenizer)
    model = tokenizer.model
    out = sys.stdout
    model_data = model.to_dict()
    out.write(f"file:            {args.tokenizer}\n")
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
    special = [f"{t.content}={i}" for i, t in sorted(added.items()) if t.special]
    plain = [f"{t.content}={i}" for i, t in sorted(added.items()) if not t.special]
    out.write(f"special tokens:  {', '.join(special) if special else 'none'}\n")
    if plain:
        out.write(f"added tokens:    {', '.join(plain)}\n")
    if isinstance(model, models.BPE):
        merges = model.merges
        n = args.merges
        out.write(f"merges:          {len(merges):,}\n")
        if merges:
            out.write(f"first merges:    {_merge_list(merges[:n])}\n")
            out.write(f"last merges:     {_merge_list(merges[-n:])}\n")
    return 0


def _merge_list(merges: Sequence[tuple[str, str]]) -> str:
    return "  ".join(f"{_visible(a)} + {_visible(b)}" for a, b in merges)


# ---------------------------------------------------------------------------------------------
# entry point


def _version() -> str:
    build = "engine compiled with mypyc" if engine.COMPILED else "engine: pure Python build"
    return f"{PROG} {engine.__version__} ({build})"


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Train, inspect and compare subword tokenizers. "
        "With no command, opens the workbench window.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    train = sub.add_parser(
        "train",
        help="train a tokenizer on text files and save it as tokenizer.json",
        description="Train a tokenizer on UTF-8 text files and write it as a HuggingFace tokenizer.json. "
        + "; ".join(f"--preset {k}: {v}" for k, v in PRESETS.items()),
    )
    train.add_argument("--preset", choices=sorted(PRESETS), required=True, help="what kind of tokenizer to train")
    train.add_argument("--vocab-size", type=int, required=True, metavar="N", help="target vocabulary size, special tokens included")
    train.add_argument("--min-frequency", type=int, default=0, metavar="K", help="ignore pairs (words, for wordlevel) seen fewer than K times")
    train.add_argument("--special-tokens", metavar="A,B", help="comma-separated special tokens, placed first in the vocabulary")
    train.add_argument("-o", "--output", required=True, metavar="tokenizer.json", help="where to write the tokenizer")
    train.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    train.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files to train on")
    train.set_defaults(func=cmd_train)

    encode = sub.add_parser(
        "encode",
        help="encode text with a tokenizer.json",
        description="Encode each line of standard input (or --text) and print its tokens.",
    )
    encode.add_argument("-t", "--tokenizer", required=True, metavar="tokenizer.json")
    encode.add_argument("--text", help="encode this text instead of reading standard input")
    encode.add_argument("--json", action="store_true", help="one JSON object per line with ids, tokens and offsets")
    encode.set_defaults(func=cmd_encode)

    inspect = sub.add_parser(
        "inspect",
        help="summarize a tokenizer.json",
        description="Print the pipeline, vocabulary size, special tokens and first/last merges of a tokenizer.",
    )
    inspect.add_argument("tokenizer", metavar="tokenizer.json")
    inspect.add_argument("--merges", type=int, default=10, metavar="N", help="how many first/last merges to show")
    inspect.set_defaults(func=cmd_inspect)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        print(
            f"{PROG}: the workbench window is not built yet; use a command: train, encode, inspect "
            f"(see '{PROG} --help').",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        return int(args.func(args))
    except (EngineError, CliError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as error:
        name = error.filename if error.filename is not None else ""
        print(f"{PROG}: error: {name}: {error.strerror or error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; nothing was written", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

