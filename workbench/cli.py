"""The `tokenizer-workbench` command: train, encode, inspect and convert tokenizers from a terminal.

Argument parsing, progress bars and messages only; all tokenizer work is `engine`'s. Every
engine error becomes one line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO, cast

from tqdm import tqdm

import engine
from workbench import cli_encode, presets
from workbench.formatting import human_size, sampled_text
from engine import corpus_ids, models
from engine.corpus import FileSlice, as_slices, process_count, training_inputs
from engine.errors import EngineError
from engine.estimate import TrainingEstimate, estimate_training, peak_rss_bytes
from engine.formats import convert
from engine.progress import ProgressSink, SilentProgress, TrainProgress
from engine.sources import DEFAULT_FIELD, FORMAT_COUNTS, CorpusSource, DecompressedStream, OpenStream, special_file_kind
from engine.trainers.base import DEFAULT_VOCAB_SIZE, Trainer
from engine.unigram.training_run import VOCABULARY_TOO_SMALL
from engine.word_counts import MAX_COUNT, read_counts, write_counts

PROG = "tokenizer-workbench"
EXIT_ERROR = 1
EXIT_USAGE = 2

# The presets `train` offers: those the engine can train.
TRAINABLE = [item.key for item in presets.PRESETS if item.available]
COMMANDS = ("train", "count", "encode", "inspect", "convert", "screenshots")


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
    given = _argument_text("--special-tokens", given)
    return [t.strip() for t in given.split(",") if t.strip()]


def _argument_text(option: str, given: str) -> str:
    """An option's value as text: bytes of the command line that are not UTF-8 reach Python as
    lone surrogates (surrogateescape), which no tokenizer file can hold: CliError naming them."""
    try:
        return cli_encode.text_argument(given, "strict", option) or ""
    except cli_encode.EncodeError as error:
        raise CliError(str(error)) from None


def _check_output(
    output: Path, inputs: list[Path], force: bool, what: str = "tokenizer file", example: str = "tokenizer.json", role: str = "training file"
) -> None:
    """CliError unless `output` can be written without harm: not a folder, a special file or
    one of the inputs, in a folder that exists, and (unless `force`) not there yet."""
    _check_output_place(output, what, example)
    resolved = output.resolve()
    for path in inputs:
        if path.exists() and path.resolve() == resolved:
            raise CliError(f"{output}: is also {'an' if role[0] in 'aeiou' else 'a'} {role}; writing there would destroy it")
    if output.exists() and not force:
        raise CliError(f"{output}: already exists; choose another name or pass --force to replace it")
    _check_writable(output)


def _check_output_place(output: Path, what: str, example: str) -> None:
    """CliError when `output` is a folder or a special file, or its folder does not exist:
    what can be said before the inputs are looked at."""
    if output.is_dir():
        raise CliError(f"{output}: is a directory; give the {what} to write, e.g. {output / example}")
    _check_not_special(output)
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


def _check_not_special(output: Path) -> None:
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


def _load(path: str) -> engine.Tokenizer:
    """The tokenizer in a file of any format `convert` reads; a FIFO or device is refused
    unopened (reading one could block forever or never end)."""
    return _load_noted(path).tokenizer


def _load_noted(path: str) -> convert.Loaded:
    """`_load`, with what the reader inferred from the file (a vocab.txt's case)."""
    kind = special_file_kind(path)
    if kind:
        raise CliError(f"{path}: is {kind}, not a tokenizer file")
    return convert.load_noted(path)


def _note_skipped(skipped: list[str]) -> None:
    """One note per special file found in a FILE folder and left out."""
    for path in skipped:
        print(f"note: skipped {path}: {special_file_kind(path) or 'a special file'}, not a regular file", file=sys.stderr)


def _preset_pipeline(
    key: str, vocab_size: int = DEFAULT_VOCAB_SIZE, min_frequency: int = 0, special: list[str] | None = None
) -> tuple[engine.Tokenizer, Trainer]:
    """`--preset`'s untrained tokenizer and trainer (train and count split words alike)."""
    try:
        return presets.build(key, vocab_size, min_frequency, special)
    except ValueError as error:
        # (the trainer's own words name its option: "vocab_size above 1,114,112 is not supported")
        raise CliError(f"--preset {key}: {str(error).replace('vocab_size', '--vocab-size')}") from None


def _versus(estimate: TrainingEstimate | None) -> str:
    """What was estimated, after the actual time: " (estimated 3.1 s; peak memory 260.0 MB, estimated 253.0 MB)"."""
    if estimate is None:
        return ""
    peak = peak_rss_bytes()
    memory = f"; peak memory {human_size(peak)}, estimated {human_size(estimate.peak_bytes)}" if peak else ""
    return f" (estimated {estimate.seconds:.1f} s{memory})"


def cmd_train(args: argparse.Namespace) -> int:
    if args.vocab_size <= 0:
        raise CliError(f"--vocab-size must be positive, got {args.vocab_size}")
    if args.min_frequency < 0:
        raise CliError(f"--min-frequency must be 0 or more, got {args.min_frequency}")
    if args.min_frequency > MAX_COUNT:
        # (no count is larger: the trainers count in 64-bit integers)
        raise CliError(f"--min-frequency must be at most {MAX_COUNT:,}, got {args.min_frequency:,}")
    files = [Path(f) for f in args.files]
    if args.output is None and not args.estimate_only:
        raise CliError("the following argument is required: -o/--output")
    output = Path(args.output or "")
    table = Path(args.counts) if args.counts is not None else None
    if table is not None and files:
        raise CliError("--counts: give either FILEs to train on or --counts TABLE (a word<TAB>count table), not both")
    if table is None and not files:
        raise CliError("nothing to train on: give FILEs, or --counts TABLE (a word<TAB>count table from `count`)")
    if args.input_sentence_size < 0:
        raise CliError(f"--input-sentence-size must be 0 (every line) or more, got {args.input_sentence_size}")
    if table is not None and args.input_sentence_size > 0:
        raise CliError(
            "--input-sentence-size samples the lines of FILEs, and a --counts table has none: "
            "train on the FILEs to sample them, or leave the option out to train on the whole table"
        )
    # folders expanded, every input's kind known and every file readable before anything is trained
    skipped: list[str] = []
    units = training_inputs(args.files, args.field, args.include or (), args.exclude or (), skipped) if table is None else []
    if not args.estimate_only:
        _check_output(output, [Path(unit.path) for unit in units] if table is None else [table], args.force)
    _note_skipped(skipped)
    tokenizer, trainer = _preset_pipeline(args.preset, args.vocab_size, args.min_frequency, _special_tokens(args.special_tokens))

    estimate: TrainingEstimate | None = None
    if args.estimate_only or not args.quiet:
        # --counts: the table's words, exactly (whatever the file is called)
        inputs: list[FileSlice | CorpusSource] = [CorpusSource(str(table), FORMAT_COUNTS)] if table is not None else list(units)
        processes = 1 if table is not None else process_count(sum(unit.size for unit in units), 0)
        estimate = estimate_training(tokenizer, inputs, trainer, processes, sample_lines=args.input_sentence_size)
        print(f"estimate: {estimate.describe()}", file=_stdout("the estimate") if args.estimate_only else sys.stderr)
    if args.estimate_only:
        return 0
    progress: TqdmProgress | StageLines | None = None
    if not args.quiet:
        progress = TqdmProgress(sys.stderr) if sys.stderr.isatty() else StageLines(sys.stderr)
    # subtle: without a sink the engine shows the trainer's own bars (show_progress, as HF does)
    sink: ProgressSink = progress if progress is not None else SilentProgress()
    started = time.monotonic()
    try:
        if table is not None:
            report = tokenizer.train_from_counts(read_counts(str(table)), trainer, progress=sink)
        else:
            report = tokenizer.train(units, trainer, progress=sink, sample_lines=args.input_sentence_size)
    except ValueError as error:
        if VOCABULARY_TOO_SMALL not in str(error):
            raise
        # a Unigram vocabulary smaller than the alphabet of the words (the message says how small)
        raise CliError(f"--vocab-size {args.vocab_size:,}: {error}") from None
    finally:
        if progress is not None:
            progress.close()
    elapsed = time.monotonic() - started
    tokenizer.save(str(output), pretty=True)
    _WRITTEN.append(str(output))

    total_bytes = sum(unit.size for unit in units) if table is None else table.stat().st_size
    read = len({unit.path for unit in units})
    model = tokenizer.model
    merges = len(model.merges) if isinstance(model, models.BPE) else 0
    merges_text = f", {merges:,} merges" if isinstance(model, models.BPE) else ""
    source = f"the counts table {table}" if table is not None else f"{read} file{'s' if read != 1 else ''}"
    source += sampled_text(report.sampled_lines, report.read_lines)
    print(
        f"Trained {args.preset} tokenizer: vocab {tokenizer.get_vocab_size():,}{merges_text}, "
        f"from {source} ({human_size(total_bytes)}, "
        f"{report.unique_words:,} unique words) in {elapsed:.1f} s{_versus(estimate)} -> {output}",
        file=sys.stderr,
    )
    return 0


def cmd_count(args: argparse.Namespace) -> int:
    """`count`: the words `train` would count, written as a word<TAB>count table."""
    output = Path(args.output)
    _check_output_place(output, "table file", "counts.tsv")  # (before the inputs are expanded)
    if args.processes < 0:
        raise CliError(f"--processes must be 0 or more, got {args.processes}")
    if args.dask is not None and args.dask != "local" and args.processes:
        raise CliError("--processes applies to --dask local (the workers to start); a scheduler has its own workers")
    names = [str(f) for f in args.files]
    include: list[str] = args.include or []
    exclude: list[str] = args.exclude or []
    # folders expanded, every input's kind known and every file readable before anything is counted
    skipped: list[str] = []
    units = training_inputs(names, args.field, include, exclude, skipped)
    _check_output(output, [Path(unit.path) for unit in units], args.force, "table file", "counts.tsv", "input file")
    if args.preset is not None:
        tokenizer, _ = _preset_pipeline(args.preset)
    else:
        tokenizer = _load(args.tokenizer)
    _note_skipped(skipped)

    progress: TqdmProgress | StageLines | None = None
    if not args.quiet:
        progress = TqdmProgress(sys.stderr) if sys.stderr.isatty() else StageLines(sys.stderr)
    started = time.monotonic()
    try:
        if args.dask is not None:
            from workbench.cluster import cluster_client, count_words_on_cluster

            with cluster_client(args.dask, args.processes) as client:
                counts = count_words_on_cluster(
                    client, tokenizer, names, progress, field=args.field, include=include, exclude=exclude
                )
        else:
            counts = tokenizer.count_words(names, progress, args.processes, args.field, include, exclude)
    finally:
        if progress is not None:
            progress.close()
    write_counts(str(output), counts)
    _WRITTEN.append(str(output))
    elapsed = time.monotonic() - started
    total_bytes = sum(unit.size for unit in units)
    read = len({unit.path for unit in units})
    print(
        f"Counted {sum(counts.values()):,} words ({len(counts):,} distinct) in {read} "
        f"file{'s' if read != 1 else ''} ({human_size(total_bytes)}) in {elapsed:.1f} s -> {output}",
        file=sys.stderr,
    )
    return 0


# ---------------------------------------------------------------------------------------------
# encode and inspect


def cmd_encode(args: argparse.Namespace) -> int:
    if args.out is not None:
        return _encode_to_file(args)
    for option, given in (("--separator", args.separator), ("--processes", args.processes), ("--force", args.force or None)):
        if given is not None:
            raise CliError(f"{option} applies only with --out")
    if args.text is not None and args.files:
        raise CliError("give --text or FILE arguments, not both")
    if args.files:
        as_slices(args.files)  # every file readable before the first line is printed
    elif args.text is None and sys.stdin is None:
        raise CliError("standard input is closed: give FILE arguments or --text to encode")
    out = _stdout("the tokens")
    tokenizer = _load(args.tokenizer)
    ascii_only = not _writes_utf8(out)
    skipped = 0
    try:
        if args.text is not None:
            text = cli_encode.text_argument(args.text, args.errors)
            if text is None:
                skipped = 1
            else:
                printer = cli_encode.LinePrinter(out, args.json, ascii_only)
                encoding = tokenizer.encode(text)
                printer.add(encoding.ids, encoding, 0)
                printer.end()
        elif args.files:
            for name in args.files:
                stream = DecompressedStream(name, "")
                skipped += cli_encode.encode_stream(out, tokenizer, stream, name, args.errors, args.json, ascii_only)
        else:
            stdin = OpenStream(cast(io.BufferedIOBase, sys.stdin.buffer))
            skipped = cli_encode.encode_stream(out, tokenizer, stdin, "standard input", args.errors, args.json, ascii_only)
    except cli_encode.EncodeError as error:
        raise CliError(str(error)) from None
    if skipped:
        out.flush()
        print(f"note: skipped {skipped:,} line{'s' if skipped != 1 else ''} that {'are' if skipped != 1 else 'is'} not UTF-8", file=sys.stderr)
    return 0


def _stdout(what: str) -> TextIO:
    """Standard output, or CliError when it is closed (`>&-`): nowhere to write `what`."""
    if sys.stdout is None:
        raise CliError(f"standard output is closed: nowhere to write {what}")
    return sys.stdout


def _writes_utf8(stream: TextIO) -> bool:
    """Whether `stream` encodes text as UTF-8 (else what it cannot encode is escaped)."""
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    return encoding in ("utf8", "utf8sig")


def _encode_to_file(args: argparse.Namespace) -> int:
    """`encode --out ids.bin FILE...`: every line of the files as ids, written by engine.corpus_ids."""
    if not args.files:
        raise CliError("--out needs the FILE arguments to encode (standard input is not read with --out)")
    for option, given in (("--text", args.text), ("--json", args.json or None)):
        if given is not None:
            raise CliError(f"{option} does not apply with --out")
    if args.errors != "strict":
        raise CliError("--errors applies only without --out: --out needs every line to be UTF-8")
    if args.processes is not None and args.processes < 0:
        raise CliError(f"--processes must be 0 (choose) or more, got {args.processes}")
    try:
        targets = [Path(p) for p in corpus_ids.written_paths(args.out)]
    except ValueError as error:
        raise CliError(f"--out {error}") from None
    for target in targets:
        _check_not_special(target)
        if target.is_file() and not args.force:
            raise CliError(f"{target}: already exists; choose another name or pass --force to replace it")
    separator: str | None = _argument_text("--separator", args.separator) if args.separator is not None else None
    tokenizer = _load(args.tokenizer)
    try:
        corpus_ids.separator_id(tokenizer, separator)
    except ValueError as error:
        raise CliError(f"--separator: {error}") from None
    if tokenizer.padding is not None:
        print(f"note: {args.tokenizer} turns padding on: every document is padded, as encode pads it", file=sys.stderr)
    if tokenizer.truncation is not None:
        print(f"note: {args.tokenizer} turns truncation on: long documents are cut, as encode cuts them", file=sys.stderr)

    progress: TqdmProgress | StageLines | None = None
    if not args.quiet:
        progress = TqdmProgress(sys.stderr) if sys.stderr.isatty() else StageLines(sys.stderr)
    # (`kill` as well as Ctrl-C stops the job cleanly, temporary files removed: see `main`)
    try:
        summary = corpus_ids.encode_files(
            tokenizer,
            list(args.files),
            args.out,
            separator=separator,
            processes=args.processes or 0,
            progress=progress,
            tokenizer_path=args.tokenizer,
        )
    finally:
        if progress is not None:
            progress.close()
    _WRITTEN.extend(summary.paths)
    if summary.separator_id is not None:
        separated = f"separator {_visible(separator or '')}={summary.separator_id} after every document"
    elif summary.dtype == "json":
        separated = "one document per line"
    else:
        separated = "documents not separated"
    print(
        f"Encoded {summary.documents:,} documents into {summary.tokens:,} tokens "
        f"({summary.tokens_per_second:,.0f} tokens/s, {summary.processes} process{'es' if summary.processes != 1 else ''}, "
        f"{summary.dtype}, {separated}) -> {' and '.join(summary.paths)}",
        file=sys.stderr,
    )
    return 0


_visible = cli_encode.visible


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
    out = _stdout("the summary")
    loaded = _load_noted(args.tokenizer)
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
        if target.is_dir():
            raise CliError(f"{target}: is a directory; give the file to write")
        _check_not_special(target)
        if target.exists() and not args.force:
            raise CliError(f"{target}: already exists; choose another name or pass --force to replace it")
    tokenizer = _load(args.input)
    # gpt2 writes into a folder, made when missing: a failed conversion takes it away again
    made = _missing_folders(Path(args.output)) if args.to == "gpt2" and not args.output.lower().endswith(".json") else []
    try:
        notes = convert.save(tokenizer, args.to, args.output)
    except BaseException:
        for folder in made:
            try:
                folder.rmdir()  # only if still empty: never what someone else put there
            except OSError:
                break
        raise
    _WRITTEN.extend(str(target) for target in targets)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"Wrote {' and '.join(str(t) for t in targets)} ({convert.DESCRIPTIONS[args.to]})", file=sys.stderr)
    return 0


# `inspect` lists at most this many added (or special) tokens, then says how many more there are.
TOKEN_LIST_LIMIT = 20


def _token_list(tokens: Sequence[tuple[int, str]], limit: int = TOKEN_LIST_LIMIT) -> str:
    """Tokens by id as `content=id`, quoted when blank or with controls; past `limit`, a count:
    `a=5, b=6, ... and 1,998 more (ids 7..2004)`."""
    shown = ", ".join(f"{_visible(content)}={i}" for i, content in tokens[:limit])
    rest = tokens[limit:]
    if not rest:
        return shown
    return f"{shown}, ... and {len(rest):,} more (ids {rest[0][0]}..{rest[-1][0]})"


def _merge_list(merges: Sequence[tuple[str, str]]) -> str:
    return "  ".join(f"{_visible(a)} + {_visible(b)}" for a, b in merges)


# ---------------------------------------------------------------------------------------------
# entry point


def _version() -> str:
    build = "engine compiled with mypyc" if engine.COMPILED else "engine: pure Python build"
    return f"{PROG} {engine.__version__} ({build})"


def _add_input_arguments(parser: argparse.ArgumentParser, purpose: str, nargs: str) -> None:
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


class OneLineParser(argparse.ArgumentParser):
    """argparse with usage errors as one line on stderr (`tokenizer-workbench train: error:
    argument --vocab-size: invalid int value: 'ten'; see --help`), exit status 2."""

    def error(self, message: str) -> NoReturn:
        name = self.prog.split(" ... ")[-1] if " ... " in self.prog else self.prog
        command = name if name.startswith(PROG) else f"{PROG} {name}"
        self.exit(EXIT_USAGE, f"{command}: error: {message}; see {command} --help\n")


def make_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
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
        description="Train a tokenizer on UTF-8 text files and write it as a HuggingFace tokenizer.json "
        "(an existing file is replaced only with --force). "
        + "; ".join(f"--preset {item.key}: {item.description}" for item in presets.PRESETS if item.available),
    )
    train.add_argument("--preset", choices=TRAINABLE, required=True, help="what kind of tokenizer to train")
    train.add_argument("--vocab-size", type=int, required=True, metavar="N", help="target vocabulary size, special tokens included")
    train.add_argument("--min-frequency", type=int, default=0, metavar="K", help="ignore pairs (words, for wordlevel) seen fewer than K times")
    train.add_argument("--special-tokens", metavar="A,B", help="comma-separated special tokens, placed first in the vocabulary")
    train.add_argument("-o", "--output", metavar="tokenizer.json", help="where to write the tokenizer (required unless --estimate-only)")
    train.add_argument(
        "--estimate-only", action="store_true", help="print the estimated time and peak memory of the training, then exit"
    )
    train.add_argument("--force", action="store_true", help="replace the output file if it exists")
    train.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    train.add_argument(
        "--counts",
        metavar="TABLE",
        help="train on a word<TAB>count table (from `count`, or SentencePiece's input_format=tsv) instead of FILEs; "
        "its words must come from the same normalizer and pre-tokenizer as the preset's",
    )
    train.add_argument(
        "--input-sentence-size",
        type=int,
        default=0,
        metavar="N",
        help="train on a uniform random sample of N lines (and records) of all the inputs, as SentencePiece's "
        "input_sentence_size (default 0: every line; counted in one process)",
    )
    _add_input_arguments(train, "train on", "*")
    train.set_defaults(func=cmd_train)

    count = sub.add_parser(
        "count",
        help="count the words a tokenizer trains on and write them as a word<TAB>count table",
        description="Count the words of every input `train` reads (text files, also compressed; folders; "
        "JSON Lines; Parquet/Arrow; word<TAB>count tables, added as they are) exactly as `train` counts "
        "them (the tokenizer's added tokens, normalizer and pre-tokenizer) and write them as a "
        "word<TAB>count table (SentencePiece's input_format=tsv; biggest counts first), for "
        "`train --counts`. With --dask, the counting runs on a Dask cluster (pip install "
        "'tokenizer-workbench[cluster]'): folders are expanded here, and every file must be readable "
        "at the same path here and on every worker. The table is written to a temporary file and "
        "renamed when complete; an existing file is replaced only with --force.",
    )
    counted_by = count.add_mutually_exclusive_group(required=True)
    counted_by.add_argument("--preset", choices=TRAINABLE, help="count as `train --preset` would")
    counted_by.add_argument("-t", "--tokenizer", metavar="TOKENIZER", help=f"count with this tokenizer's pipeline: {_READABLE}")
    count.add_argument("-o", "--output", required=True, metavar="counts.tsv", help="where to write the table")
    count.add_argument(
        "--dask",
        metavar="SCHEDULER",
        help="count on a Dask cluster: 'local' starts one on this machine (one worker process per core, "
        "or --processes), tcp://host:8786 connects to a running scheduler",
    )
    count.add_argument(
        "--processes", type=int, default=0, metavar="N",
        help="count with N processes (default 0: chosen by input size); with --dask local, N workers",
    )
    count.add_argument("--force", action="store_true", help="replace the table if it exists")
    count.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _add_input_arguments(count, "count", "+")
    count.set_defaults(func=cmd_count)

    encode = sub.add_parser(
        "encode",
        help="encode text with a tokenizer file (any format convert reads); whole corpora to ids with --out",
        description="Encode each line of standard input, of FILE arguments, or --text, and print its tokens "
        "(or, with --json, ids, tokens and offsets). Input must be UTF-8; --errors says what to do with a "
        "line that is not. "
        "With --out, every line of the FILEs is one document (its line ending stripped; encoded as "
        "encode does, special tokens included) and its ids are written to the output file, "
        "with a progress bar and several processes, ready for training a model. The output suffix picks "
        "the format: .bin = the ids as raw little-endian unsigned integers (uint16 when every id of the "
        "tokenizer is below 65,536, else uint32; no header; documents run together unless --separator "
        "puts a token's id after each one), described by a JSON sidecar OUT.json (dtype, byte_order, "
        "tokens, documents, separator_id, tokenizer, files): read it with "
        "numpy.fromfile(OUT, dtype='<u2' or '<u4'), or as nanoGPT reads train.bin; "
        ".npy = the same ids as a 1-D NumPy array (numpy.load); "
        ".jsonl = one JSON array of ids per document. The output is written to a temporary file and "
        "renamed when complete; an existing file is replaced only with --force.",
    )
    encode.add_argument("-t", "--tokenizer", required=True, metavar="TOKENIZER", help=_READABLE)
    encode.add_argument("files", nargs="*", metavar="FILE", help="UTF-8 text files, one document per line (default: standard input)")
    encode.add_argument("--text", help="encode this text instead of reading standard input")
    encode.add_argument("--json", action="store_true", help="one JSON object per line with ids, tokens and offsets")
    encode.add_argument(
        "--errors",
        choices=("strict", "replace", "skip"),
        default="strict",
        help="a line that is not UTF-8: strict = stop with an error naming the line and byte (default), "
        "replace = encode it with U+FFFD for each bad sequence, skip = drop the line (counted on stderr); "
        "without --out only",
    )
    encode.add_argument("--out", metavar="OUT", help="write the ids of every line of the FILEs to OUT (.bin, .npy or .jsonl)")
    encode.add_argument("--separator", metavar="TOKEN", help="with --out: put this token's id after every document (e.g. <|endoftext|>)")
    encode.add_argument("--processes", type=int, metavar="N", help="with --out: encode with N processes (default 0: chosen by input size)")
    encode.add_argument("--force", action="store_true", help="with --out: replace files that already exist")
    encode.add_argument("-q", "--quiet", action="store_true", help="with --out: no progress bar")
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
    out = _stdout("the written paths")
    for path in paths:
        out.write(f"{path}\n")
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
    _standard_streams()
    parser = make_parser()
    args = parser.parse_args(words)
    previous = _on_termination(_terminate)
    try:
        code = int(args.func(args))
        if sys.stdout is not None:
            sys.stdout.flush()  # (a closed pipe shows here, not in the interpreter's last flush)
        return code
    except BrokenPipeError:
        # the reader went away (`| head`): stop quietly, as a tool killed by SIGPIPE does
        _silence_output()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt as interrupt:
        signum = interrupt.signum if isinstance(interrupt, Terminated) else signal.SIGINT
        return _stopped_by(signum, _writes_files(args))
    except (EngineError, CliError) as error:
        if _SIGNALLED:
            # (a child stopped by the same signal may be noticed first)
            return _stopped_by(_SIGNALLED[0], _writes_files(args))
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as error:
        name = f"{error.filename}: " if error.filename is not None else ""
        print(f"{PROG}: error: {name}{error.strerror or error}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        _on_termination(previous)
        _SIGNALLED.clear()
        _WRITTEN.clear()


# -- standard streams and signals -------------------------------------------------------------

# Exit status after a closed pipe, as a command killed by SIGPIPE reports it (128 + 13).
EXIT_BROKEN_PIPE = 141
# The signals that stop a command cleanly (temporary files removed, children stopped).
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
# The stop signals received, first first.
_SIGNALLED: list[int] = []
# The files the command has written (renamed into place), for a message if a signal comes after.
_WRITTEN: list[str] = []


class Terminated(KeyboardInterrupt):
    """A stop signal (SIGTERM, SIGHUP) raised in the main thread, like Ctrl-C: the cleanups
    on the way out (`finally`, `except BaseException`) run, and main reports it in one line."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: object) -> None:
    _SIGNALLED.append(signum)
    raise Terminated(signum)


def _on_termination(handler: object) -> object:
    """Install `handler` for the stop signals; returns the one it replaced (None off the main thread)."""
    previous: object = None
    for signum in _STOP_SIGNALS:
        try:
            replaced = signal.signal(signum, handler)  # type: ignore[arg-type]
        except (ValueError, TypeError):
            return None  # not the main thread, or no handler to restore
        if signum == signal.SIGTERM:
            previous = replaced
    return previous


def _writes_files(args: argparse.Namespace) -> bool:
    """Whether the command writes files (not only standard output)."""
    if args.command in ("train", "count"):
        return not getattr(args, "estimate_only", False)
    return args.command == "convert" or (args.command == "encode" and args.out is not None)


def _stopped_by(signum: int, writes_files: bool) -> int:
    """The one line for a command stopped by a signal, and its exit status (128 + the signal):
    what it wrote, when it writes files ("nothing was written" before its output is complete)."""
    name = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
    if writes_files:
        name += f"; already written: {' and '.join(_WRITTEN)}" if _WRITTEN else "; nothing was written"
    try:
        print(f"{PROG}: {name}", file=sys.stderr)
    except OSError:
        pass
    return 128 + signum


def _standard_streams() -> None:
    """Make the standard streams safe to use. A descriptor 0-2 that was closed (`<&-`, `>&-`)
    is opened on /dev/null, so that no file opened later takes its number (sys.stdin/stdout
    stay None: the commands that need them say so); stdout and stderr escape what their
    encoding cannot write (the C locale without UTF-8 mode) instead of raising."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, os.O_RDWR)
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


def _silence_output() -> None:
    """After a broken pipe: stdout and stderr go to /dev/null, so that nothing more is tried
    on the pipe (Python's own last flush would print 'Exception ignored ... BrokenPipeError')."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is None:
                continue
            try:
                os.dup2(devnull, stream.fileno())
            except (OSError, ValueError, io.UnsupportedOperation):
                pass
    finally:
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())

