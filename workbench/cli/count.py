"""`tokenizer-workbench count`: the words `train` would count, written as a word<TAB>count
table, on this machine or on a Dask cluster (`workbench.cli.cluster`). For a preset whose
trainer reads whole lines (the sentencepiece presets), the lines it would count.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from engine.corpus.units import training_inputs
from engine.corpus.word_counts import write_counts
from workbench.cli.common import (
    READABLE,
    TRAINABLE,
    WRITTEN,
    CliError,
    add_input_arguments,
    check_output,
    check_output_place,
    load,
    note_skipped,
    preset_pipeline,
    progress_bars,
)
from workbench.core.formatting import human_size


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `count` command's arguments."""
    count = sub.add_parser(
        "count",
        help="count the words a tokenizer trains on and write them as a word<TAB>count table",
        description="Count the words of every input `train` reads (text files, also compressed; folders; "
        "JSON Lines; Parquet/Arrow; word<TAB>count tables, added as they are) exactly as `train` counts "
        "them (the tokenizer's added tokens, normalizer and pre-tokenizer; for the sentencepiece presets, whose "
        "trainer reads whole lines, the normalized lines) and write them as a word<TAB>count table (SentencePiece's input_format=tsv; biggest counts first), for "
        "`train --counts`. With --dask, the counting runs on a Dask cluster (pip install "
        "'tokenizer-workbench[cluster]'): folders are expanded here, and every file must be readable "
        "at the same path here and on every worker. The table is written to a temporary file and "
        "renamed when complete; an existing file is replaced only with --force.",
    )
    counted_by = count.add_mutually_exclusive_group(required=True)
    counted_by.add_argument("--preset", choices=TRAINABLE, help="count as `train --preset` would")
    counted_by.add_argument("-t", "--tokenizer", metavar="TOKENIZER", help=f"count with this tokenizer's pipeline: {READABLE}")
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
    add_input_arguments(count, "count", "+")
    count.set_defaults(func=cmd_count)


def cmd_count(args: argparse.Namespace) -> int:
    """`count`: the words `train` would count, written as a word<TAB>count table."""
    output = Path(args.output)
    check_output_place(output, "table file", "counts.tsv")  # (before the inputs are expanded)
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
    check_output(output, [Path(unit.path) for unit in units], args.force, "table file", "counts.tsv", "input file")
    sentences = False
    if args.preset is not None:
        tokenizer, trainer = preset_pipeline(args.preset)
        # (what the preset's trainer reads: sentencepiece's reads whole lines)
        sentences = trainer.counts_sentences()
    else:
        tokenizer = load(args.tokenizer)
    note_skipped(skipped)

    progress = progress_bars(args.quiet)
    started = time.monotonic()
    try:
        if args.dask is not None:
            from workbench.cli.cluster import cluster_client, count_words_on_cluster

            with cluster_client(args.dask, args.processes) as client:
                counts = count_words_on_cluster(
                    client, tokenizer, names, progress, field=args.field, include=include, exclude=exclude, sentences=sentences
                )
        else:
            counts = tokenizer.count_words(names, progress, args.processes, args.field, include, exclude, sentences=sentences)
    finally:
        if progress is not None:
            progress.close()
    write_counts(str(output), counts)
    WRITTEN.append(str(output))
    elapsed = time.monotonic() - started
    total_bytes = sum(unit.size for unit in units)
    read = len({unit.path for unit in units})
    what = "lines" if sentences else "words"
    print(
        f"Counted {sum(counts.values()):,} {what} ({len(counts):,} distinct) in {read} "
        f"file{'s' if read != 1 else ''} ({human_size(total_bytes)}) in {elapsed:.1f} s -> {output}",
        file=sys.stderr,
    )
    return 0
