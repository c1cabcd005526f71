"""What every command of `tokenizer-workbench` shares: the error it raises (`CliError`), the
progress bars, the checks of its output paths, and reading a tokenizer or a preset.

Every check names the path or the option and what to do; nothing here trains or encodes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import NoReturn, TextIO

from tqdm import tqdm

import engine
from engine.formats import convert
from engine.progress import ProgressSink, TrainProgress
from engine.corpus.sources import DEFAULT_FIELD, special_file_kind
from engine.trainers.base import DEFAULT_VOCAB_SIZE, Trainer
from workbench.cli import encode_lines
from workbench.core import presets

PROG = "tokenizer-workbench"
EXIT_ERROR = 1
EXIT_USAGE = 2

# The presets `train` and `count` offer: those the engine can train.
TRAINABLE = [item.key for item in presets.PRESETS if item.available]

READABLE = "tokenizer.json, a SentencePiece .model, a .tiktoken file, a BERT vocab.txt or a GPT-2 vocab.json (merges.txt beside it)"

# The files the command has written (renamed into place), for a message if a signal comes after.
WRITTEN: list[str] = []


class CliError(Exception):
    """A problem with what the user asked for; its message is printed as is."""


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


def progress_bars(quiet: bool) -> TqdmProgress | StageLines | None:
    """The progress a command shows on stderr: bars on a terminal, a line per stage in a log
    or a pipe, none with --quiet."""
    if quiet:
        return None
    return TqdmProgress(sys.stderr) if sys.stderr.isatty() else StageLines(sys.stderr)


def special_tokens(given: str | None) -> list[str] | None:
    """`--special-tokens A,B` as a list (None: the preset's own)."""
    if given is None:
        return None
    given = argument_text("--special-tokens", given)
    return [t.strip() for t in given.split(",") if t.strip()]


def argument_text(option: str, given: str) -> str:
    """An option's value as text: bytes of the command line that are not UTF-8 reach Python as
    lone surrogates (surrogateescape), which no tokenizer file can hold: CliError naming them."""
    try:
        return encode_lines.text_argument(given, "strict", option) or ""
    except encode_lines.EncodeError as error:
        raise CliError(str(error)) from None


def check_output(
    output: Path, inputs: list[Path], force: bool, what: str = "tokenizer file", example: str = "tokenizer.json", role: str = "training file"
) -> None:
    """CliError unless `output` can be written without harm: not a folder, a special file or
    one of the inputs, in a folder that exists, and (unless `force`) not there yet."""
    check_output_place(output, what, example)
    resolved = output.resolve()
    for path in inputs:
        if path.exists() and path.resolve() == resolved:
            raise CliError(f"{output}: is also {'an' if role[0] in 'aeiou' else 'a'} {role}; writing there would destroy it")
    if output.exists() and not force:
        raise CliError(f"{output}: already exists; choose another name or pass --force to replace it")
    _check_writable(output)


def check_output_place(output: Path, what: str, example: str) -> None:
    """CliError when `output` is a folder or a special file, or its folder does not exist:
    what can be said before the inputs are looked at."""
    if output.is_dir():
        raise CliError(f"{output}: is a directory; give the {what} to write, e.g. {output / example}")
    check_not_special(output)
    if not output.parent.is_dir():
        raise CliError(f"{output}: folder {output.parent} does not exist")


def _check_writable(output: Path) -> None:
    """CliError when nothing can be written beside `output` (a read-only folder, /proc): found
    now, not after an hour of training. A probe file is made in its folder and removed at once."""
    probe = output.parent / f".{output.name}.{os.getpid()}.probe"
    try:
        descriptor = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as error:
        raise CliError(f"{output}: cannot be written in {output.parent} ({error.strerror or error})") from None
    os.close(descriptor)
    try:
        os.unlink(probe)
    except OSError:
        pass


def check_not_special(output: Path) -> None:
    """CliError for an output path that is a FIFO or a device: writing replaces the file by
    renaming a new one over it, which would put a regular file in place of, say, /dev/null."""
    kind = special_file_kind(str(output))
    if kind:
        raise CliError(f"{output}: is {kind}; give a regular file to write (it is replaced whole)")


def _missing_folders(folder: Path) -> list[Path]:
    """`folder` and its ancestors that do not exist yet, deepest first: a/b/c with only a -> [a/b/c, a/b]."""
    missing: list[Path] = []
    current = folder.absolute()
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    return missing


def load(path: str) -> engine.Tokenizer:
    """The tokenizer in a file of any format `convert` reads; a FIFO or device is refused
    unopened (reading one could block forever or never end)."""
    return load_noted(path).tokenizer


def load_noted(path: str) -> convert.Loaded:
    """`load`, with what the reader inferred from the file (a vocab.txt's case, the pattern and
    special tokens of a .tiktoken file without sidecar)."""
    kind = special_file_kind(path)
    if kind:
        raise CliError(f"{path}: is {kind}, not a tokenizer file")
    return convert.load_noted(path)


def note_skipped(skipped: list[str]) -> None:
    """One note per special file found in a FILE folder and left out."""
    for path in skipped:
        print(f"note: skipped {path}: {special_file_kind(path) or 'a special file'}, not a regular file", file=sys.stderr)


def preset_pipeline(
    key: str, vocab_size: int = DEFAULT_VOCAB_SIZE, min_frequency: int = 0, special: list[str] | None = None
) -> tuple[engine.Tokenizer, Trainer]:
    """`--preset`'s untrained tokenizer and trainer (train and count split words alike)."""
    try:
        return presets.build(key, vocab_size, min_frequency, special)
    except ValueError as error:
        # (the trainer's own words name its option: "vocab_size above 1,114,112 is not supported")
        raise CliError(f"--preset {key}: {str(error).replace('vocab_size', '--vocab-size')}") from None


def stdout_for(what: str) -> TextIO:
    """Standard output, or CliError when it is closed (`>&-`): nowhere to write `what`."""
    if sys.stdout is None:
        raise CliError(f"standard output is closed: nowhere to write {what}")
    return sys.stdout


def add_input_arguments(parser: argparse.ArgumentParser, purpose: str, nargs: str) -> None:
    """The inputs `train` and `count` read, alike in both: FILE..., --include, --exclude, --field."""
    parser.add_argument(
        "--include",
        action="append",
        metavar="GLOB",
        help="in a FILE that is a folder, read only the files whose path in it matches GLOB (repeatable; default: every file)",
    )
    parser.add_argument(
        "--exclude", action="append", metavar="GLOB", help="in a FILE that is a folder, skip the files whose path in it matches GLOB (repeatable)"
    )
    parser.add_argument(
        "--field", default=DEFAULT_FIELD, metavar="NAME",
        help=f"the text field of JSON Lines records and the text column of Parquet/Arrow files (default: {DEFAULT_FIELD})",
    )
    parser.add_argument(
        "files",
        nargs=nargs,
        metavar="FILE",
        help=f"what to {purpose}: UTF-8 text files (one line at a time, as HF reads them), also compressed (.gz, .bz2, "
        ".xz, .zst); folders (read recursively in name order, hidden files skipped; see --include/--exclude); "
        "JSON Lines (.jsonl, also compressed: the --field string of each record); Parquet/Arrow (.parquet, .arrow, "
        ".feather: the --field column; needs pyarrow); word<TAB>count tables (.tsv, added as they are)",
    )
