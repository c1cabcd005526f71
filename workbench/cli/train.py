"""`tokenizer-workbench train`: train a preset on files (or a word-count table) and write
tokenizer.json, with the estimate before and the time and memory after. The preset's trainer
options can be set one by one (`--trainer-option NAME=VALUE`, `with_trainer_options`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from engine import Tokenizer, models, trainers
from engine.analysis.estimate import TrainingEstimate, estimate_training, peak_rss_bytes
from engine.corpus.sources import FORMAT_COUNTS, CorpusSource
from engine.corpus.units import FileSlice, process_count, training_inputs
from engine.corpus.word_counts import MAX_COUNT, read_counts
from engine.collector import PausedCollector
from engine.errors import EngineError, VocabularyTooSmallError
from engine.progress import ProgressSink, SilentProgress
from engine.schema import JsonValue
from engine.trainers.base import Trainer
from workbench.cli.common import (
    TRAINABLE,
    WRITTEN,
    CliError,
    add_input_arguments,
    argument_text,
    check_output,
    note_skipped,
    preset_pipeline,
    progress_bars,
    special_tokens,
    stdout_for,
)
from workbench.core import presets
from workbench.core.trainer_counting import sample_lines_for, trainer_sample_lines
from workbench.core.vocab_size_check import start_checked
from workbench.core.formatting import human_size, sampled_text


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `train` command's arguments."""
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
        "its words must come from the same normalizer and pre-tokenizer as the preset's (for the sentencepiece "
        "presets, whole lines: `count --preset` counts them so)",
    )
    train.add_argument(
        "--input-sentence-size",
        type=int,
        default=0,
        metavar="N",
        help="train on a uniform random sample of N lines (and records) of all the inputs, as SentencePiece's "
        "input_sentence_size (default 0: every line; counted in one process); for the sentencepiece presets the "
        "same as --trainer-option input_sentence_size=N",
    )
    train.add_argument(
        "--trainer-option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set one of the preset trainer's options (repeatable), by its name in the trainer's settings: for "
        "the sentencepiece presets sentencepiece's own (character_coverage=0.9995, split_digits=true, "
        "split_by_unicode_script=false, max_sentencepiece_length=16, byte_fallback=true, "
        "input_sentence_size=N, ...), for the others HF's (limit_alphabet=N, initial_alphabet=[\"a\"], ...); "
        "VALUE is read as JSON when it is JSON (true, 0.98, 16, [\"a\"]), else as text. An unknown NAME "
        "or a bad VALUE is an error naming it; the vocabulary size is --vocab-size",
    )
    add_input_arguments(train, "train on", "*")
    train.set_defaults(func=cmd_train)


# Trainer settings `--trainer-option` does not set, and what sets them instead.
FIXED_OPTIONS: Final = {
    "type": "the preset chooses the trainer (--preset)",
    "vocab_size": "the vocabulary size is --vocab-size",
}


def _sample_lines(trainer: Trainer, asked: int) -> int:
    """The lines training samples: --input-sentence-size, which for sentencepiece's trainer is
    its input_sentence_size (the trainer's, set by --trainer-option, when only that is given);
    CliError when the two are given and differ."""
    settings = trainer.to_dict()
    own = trainer_sample_lines(settings)
    if own > 0 and asked > 0 and asked != own:
        raise CliError(
            f"--input-sentence-size {asked} and --trainer-option input_sentence_size={own} disagree: give one of them"
        )
    return sample_lines_for(settings, asked)


def _versus(estimate: TrainingEstimate | None) -> str:
    """What was estimated, after the actual time: " (estimated 3.1 s; peak memory 260.0 MB, estimated 253.0 MB)"."""
    if estimate is None:
        return ""
    peak = peak_rss_bytes()
    memory = f"; peak memory {human_size(peak)}, estimated {human_size(estimate.peak_bytes)}" if peak else ""
    return f" (estimated {estimate.seconds:.1f} s{memory})"


def with_trainer_options(trainer: Trainer, tokenizer: Tokenizer, given: Sequence[str]) -> Trainer:
    """`trainer` with each `--trainer-option NAME=VALUE` of `given` set in its settings
    (`to_dict()`) and read back (`trainers.from_dict`); VALUE is JSON when it parses, else text.

    CliError naming the option for a NAME the trainer does not have (or one set elsewhere:
    its type, its vocab_size), a VALUE it refuses, or settings that cannot train `tokenizer`'s
    model (a sentencepiece preset's model_type is its model's). ["split_digits=true"] on the
    sentencepiece-unigram preset -> its trainer with split_digits True."""
    if not given:
        return trainer
    settings = trainer.to_dict()
    kind = str(settings.get("type"))
    names = [name for name in settings if name not in FIXED_OPTIONS]
    made = trainer
    chosen: list[str] = []
    for item in given:
        name, equals, text = argument_text("--trainer-option", item).partition("=")
        name = name.strip()
        if not equals or not name:
            raise CliError(f"--trainer-option {item!r}: give NAME=VALUE, NAME one of {kind}'s options: {', '.join(names)}")
        if name in FIXED_OPTIONS:
            raise CliError(f"--trainer-option {name}: {FIXED_OPTIONS[name]}")
        if name not in names:
            raise CliError(f"--trainer-option {name}: {kind} has no option {name!r}; its options: {', '.join(names)}")
        settings[name] = _option_value(text)
        chosen.append(f"{name}={text}")
        try:
            made = trainers.from_dict(settings)
        except (EngineError, ValueError, TypeError) as error:
            raise CliError(f"--trainer-option {name}={text}: {error}") from None
    try:
        made.check_model(tokenizer.model)
    except EngineError as error:
        raise CliError(f"--trainer-option {' '.join(chosen)}: {error} (another --preset trains that model)") from None
    return made


def _option_value(text: str) -> JsonValue:
    """A `--trainer-option` VALUE: the JSON it is ("true" -> True, "0.98" -> 0.98), else the
    text itself ("<pad>" -> "<pad>")."""
    try:
        value: JsonValue = json.loads(text)
    except ValueError:
        return text
    return value


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
        check_output(output, [Path(unit.path) for unit in units] if table is None else [table], args.force)
    note_skipped(skipped)
    tokenizer, trainer = preset_pipeline(args.preset, args.vocab_size, args.min_frequency, special_tokens(args.special_tokens))
    trainer = with_trainer_options(trainer, tokenizer, args.trainer_option)
    sample_lines = _sample_lines(trainer, args.input_sentence_size)
    if table is not None and sample_lines > 0:
        raise CliError(
            "--trainer-option input_sentence_size samples the lines of FILEs, and a --counts table has none: "
            "train on the FILEs to sample them, or leave the option out to train on the whole table"
        )
    # (sentencepiece's trainer reads whole lines: they are what is counted for it)
    sentences = trainer.counts_sentences()

    estimate: TrainingEstimate | None = None
    if args.estimate_only or not args.quiet:
        # --counts: the table's words, exactly (whatever the file is called)
        inputs: list[FileSlice | CorpusSource] = [CorpusSource(str(table), FORMAT_COUNTS)] if table is not None else list(units)
        processes = 1 if table is not None else process_count(sum(unit.size for unit in units), 0)
        estimate = estimate_training(tokenizer, inputs, trainer, processes, sample_lines=sample_lines)
        print(f"estimate: {estimate.describe()}", file=stdout_for("the estimate") if args.estimate_only else sys.stderr)
    if args.estimate_only:
        return 0
    progress = progress_bars(args.quiet)
    # subtle: without a sink the engine shows the trainer's own bars (show_progress, as HF does)
    sink: ProgressSink = progress if progress is not None else SilentProgress()
    started = time.monotonic()
    sampled_lines = read_lines = 0
    try:
        if table is not None:
            counts = read_counts(str(table))
        elif sample_lines > 0:
            sampled = tokenizer.count_sampled_words(units, sample_lines, progress=sink, sentences=sentences)
            counts, sampled_lines, read_lines = sampled.counts, sampled.kept, sampled.seen
        else:
            counts = tokenizer.count_words(units, progress=sink, sentences=sentences)
        unique_words = len(counts)
        # as Tokenizer.train, but refused before the first merge when the vocabulary cannot hold
        # the alphabet (HF's BPE and WordPiece trainers would make it larger than asked)
        with PausedCollector():
            run = start_checked(trainer, counts, sink)
            run.consume_counts()  # (the counts are this training's alone)
            run.run_to_end(sink)
            tokenizer.apply_training(trainer, run)
            run.release()
    except VocabularyTooSmallError as error:
        # (the hint's option, character_coverage or limit_alphabet, is set with --trainer-option)
        hint = " (--trainer-option)" if error.hint else ""
        raise CliError(error.message("--vocab-size") + hint) from None
    finally:
        if progress is not None:
            progress.close()
    elapsed = time.monotonic() - started
    tokenizer.save(str(output), pretty=True)
    WRITTEN.append(str(output))

    total_bytes = sum(unit.size for unit in units) if table is None else table.stat().st_size
    read = len({unit.path for unit in units})
    model = tokenizer.model
    merges = len(model.merges) if isinstance(model, models.BPE) else 0
    merges_text = f", {merges:,} merges" if isinstance(model, models.BPE) else ""
    source = f"the counts table {table}" if table is not None else f"{read} file{'s' if read != 1 else ''}"
    source += sampled_text(sampled_lines, read_lines)
    print(
        f"Trained {args.preset} tokenizer: vocab {tokenizer.get_vocab_size():,}{merges_text}, "
        f"from {source} ({human_size(total_bytes)}, "
        f"{unique_words:,} unique {'lines' if sentences else 'words'}) in {elapsed:.1f} s{_versus(estimate)} -> {output}",
        file=sys.stderr,
    )
    return 0
