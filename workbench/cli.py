"""The `tokenizer-workbench` command: train, encode, inspect and convert tokenizers from a terminal.

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
from workbench import presets
from workbench.formatting import human_size
from engine import models
from engine.errors import EngineError
from engine.formats import convert
from engine.progress import ProgressSink, TrainProgress

PROG = "tokenizer-workbench"
EXIT_ERROR = 1
EXIT_USAGE = 2

# The presets `train` offers: those the engine can train.
TRAINABLE = [item.key for item in presets.PRESETS if item.available]
COMMANDS = ("train", "encode", "inspect", "convert", "screenshots")


_READABLE = "tokenizer.json, a SentencePiece .model, a .tiktoken file, a BERT vocab.txt or a GPT-2 vocab.json (merges.txt beside it)"


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


def _special_tokens(given: str | None) -> list[str] | None:
    """`--special-tokens A,B` as a list (None: the preset's own)."""
    if given is None:
        return None
    return [t.strip() for t in given.split(",") if t.strip()]


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
    try:
        tokenizer, trainer = presets.build(
            args.preset, args.vocab_size, args.min_frequency, _special_tokens(args.special_tokens)
        )
    except ValueError as error:
        raise CliError(f"--preset {args.preset}: {error}") from None

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
        f"from {len(files)} file{'s' if len(files) != 1 else ''} ({human_size(total_bytes)}, "
        f"{report.unique_words:,} unique words) in {elapsed:.1f} s -> {output}",
        file=sys.stderr,
    )
    return 0


# ---------------------------------------------------------------------------------------------
# encode and inspect


def cmd_encode(args: argparse.Namespace) -> int:
    tokenizer = convert.load(args.tokenizer)
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
    kind = convert.detect(args.tokenizer)
    tokenizer = convert.load(args.tokenizer)
    model = tokenizer.model
    out = sys.stdout
    model_data = model.to_dict()
    out.write(f"file:            {args.tokenizer}\n")
    out.write(f"format:          {convert.DESCRIPTIONS[kind]}\n")
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
    if isinstance(model, models.Unigram):
        # the pieces most and least likely under the model (special pieces score 0 and are left out)
        scored = sorted(
            [(score, piece) for piece, score in model.pieces if piece not in specials and score != 0.0],
            reverse=True,
        )
        if scored:
            n = args.merges
            out.write(f"piece scores:    {scored[-1][0]:.3f} .. {scored[0][0]:.3f} (log-probabilities)\n")
            out.write(f"likeliest:       {'  '.join(_visible(p) for _, p in scored[:n])}\n")
            out.write(f"least likely:    {'  '.join(_visible(p) for _, p in scored[-n:])}\n")
    if isinstance(model, models.WordPiece):
        prefix = model.continuing_subword_prefix
        vocab = model.get_vocab()
        continuing = sum(1 for token in vocab if token.startswith(prefix))
        out.write(f"continuations:   {continuing:,} of {len(vocab):,} tokens start with {prefix!r}\n")
    return 0


def cmd_convert(args: argparse.Namespace) -> int:
    source = Path(args.input)
    targets = [Path(p) for p in convert.written_paths(args.to, args.output)]
    for target in targets:
        if target.exists() and source.exists() and target.resolve() == source.resolve():
            raise CliError(f"{target}: is the input; writing there would destroy it")
        if target.is_file() and not args.force:
            raise CliError(f"{target}: already exists; choose another name or pass --force to replace it")
    tokenizer = convert.load(args.input)
    notes = convert.save(tokenizer, args.to, args.output)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"Wrote {' and '.join(str(t) for t in targets)} ({convert.DESCRIPTIONS[args.to]})", file=sys.stderr)
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
        usage=f"{PROG} [FILE] | {PROG} COMMAND ...",
        description="Train, inspect and compare subword tokenizers. With no command, opens the "
        "workbench window: on FILE when given (a .tokproj project, or a tokenizer file to inspect: "
        "tokenizer.json, SentencePiece .model, .tiktoken, BERT vocab.txt, GPT-2 vocab.json), "
        "else on the last project (the sample project the first time).",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    train = sub.add_parser(
        "train",
        help="train a tokenizer on text files and save it as tokenizer.json",
        description="Train a tokenizer on UTF-8 text files and write it as a HuggingFace tokenizer.json. "
        + "; ".join(f"--preset {item.key}: {item.description}" for item in presets.PRESETS if item.available),
    )
    train.add_argument("--preset", choices=TRAINABLE, required=True, help="what kind of tokenizer to train")
    train.add_argument("--vocab-size", type=int, required=True, metavar="N", help="target vocabulary size, special tokens included")
    train.add_argument("--min-frequency", type=int, default=0, metavar="K", help="ignore pairs (words, for wordlevel) seen fewer than K times")
    train.add_argument("--special-tokens", metavar="A,B", help="comma-separated special tokens, placed first in the vocabulary")
    train.add_argument("-o", "--output", required=True, metavar="tokenizer.json", help="where to write the tokenizer")
    train.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    train.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files to train on")
    train.set_defaults(func=cmd_train)

    encode = sub.add_parser(
        "encode",
        help="encode text with a tokenizer file (any format convert reads)",
        description="Encode each line of standard input (or --text) and print its tokens.",
    )
    encode.add_argument("-t", "--tokenizer", required=True, metavar="TOKENIZER", help=_READABLE)
    encode.add_argument("--text", help="encode this text instead of reading standard input")
    encode.add_argument("--json", action="store_true", help="one JSON object per line with ids, tokens and offsets")
    encode.set_defaults(func=cmd_encode)

    inspect = sub.add_parser(
        "inspect",
        help="summarize a tokenizer file (any format convert reads)",
        description="Print the format, pipeline, vocabulary size, special tokens and first/last merges of a tokenizer.",
    )
    inspect.add_argument("tokenizer", metavar="TOKENIZER", help=_READABLE)
    inspect.add_argument("--merges", type=int, default=10, metavar="N", help="how many first/last merges to show")
    inspect.set_defaults(func=cmd_inspect)

    formats = "; ".join(f"{kind}: {text}" for kind, text in convert.DESCRIPTIONS.items())
    conversion = sub.add_parser(
        "convert",
        help="convert a tokenizer between file formats",
        description=f"Read a tokenizer file in any format and write it in another. Formats: {formats}. "
        "A format that cannot hold part of the pipeline says what is lost; one that cannot hold the "
        "tokenizer at all writes nothing.",
    )
    conversion.add_argument("input", metavar="IN", help=_READABLE)
    conversion.add_argument("output", metavar="OUT", help="the file to write (gpt2: a folder or the vocab.json path)")
    conversion.add_argument("--to", choices=convert.FORMATS, required=True, help="the format to write")
    conversion.add_argument("--force", action="store_true", help="replace files that already exist")
    conversion.set_defaults(func=cmd_convert)

    screenshots = sub.add_parser(
        "screenshots",
        help="write a PNG of every tab of the window, trained on the sample project",
        description="Open the sample project offscreen, train its tokenizer through the real training "
        "process, fill every tab and write one PNG per tab to DIR.",
    )
    screenshots.add_argument("folder", metavar="DIR", help="where to write the PNG files")
    screenshots.set_defaults(func=cmd_screenshots)
    return parser


def cmd_screenshots(args: argparse.Namespace) -> int:
    from workbench.screenshots import ScreenshotError, write_screenshots

    try:
        paths = write_screenshots(Path(args.folder))
    except ScreenshotError as error:
        raise CliError(str(error)) from None
    for path in paths:
        print(path)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or (words[0] not in COMMANDS and not words[0].startswith("-")):
        # No command: the window, on FILE (a project or a tokenizer file) when one is given.
        if len(words) > 1:
            print(f"{PROG}: error: give one file to open, or a command ({', '.join(COMMANDS)})", file=sys.stderr)
            return EXIT_USAGE
        from workbench.app import run_window

        return run_window(words[0] if words else None)
    parser = make_parser()
    args = parser.parse_args(words)
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

