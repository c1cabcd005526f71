"""`tokenizer-workbench encode`: lines of files, standard input or --text printed as tokens
(`workbench.cli.encode_lines`), or whole corpora written as ids with --out (`engine.corpus.ids`).
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import TextIO, cast

from engine.corpus import ids as corpus_ids
from engine.corpus.streams import DecompressedStream, OpenStream
from engine.corpus.units import as_slices
from workbench.cli import baseline_lines, encode_lines
from workbench.cli.common import (
    READABLE,
    WRITTEN,
    CliError,
    argument_text,
    check_not_special,
    load,
    progress_bars,
    stdout_for,
)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `encode` command's arguments."""
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
    chosen = encode.add_mutually_exclusive_group(required=True)
    chosen.add_argument("-t", "--tokenizer", metavar="TOKENIZER", help=READABLE)
    chosen.add_argument(
        "--baseline",
        choices=tuple(baseline_lines.CHOICES),
        help="instead of a tokenizer, cut each line by a rule, as the Compare tab's baselines do: characters, "
        "bytes (UTF-8; a non-ASCII byte printed <0xNN>), words (runs of letters, marks and digits; any other "
        "character but white space alone) or sentences (at . ! ?, not after a known abbreviation or an initial)",
    )
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


def cmd_encode(args: argparse.Namespace) -> int:
    if args.out is not None:
        if args.baseline is not None:
            raise CliError("--baseline prints the pieces of lines; --out writes a tokenizer's ids: give -t TOKENIZER with --out")
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
    out = stdout_for("the tokens")
    ascii_only = not _writes_utf8(out)
    if args.baseline is not None:
        return _print_baseline(args, out, ascii_only)
    tokenizer = load(args.tokenizer)
    skipped = 0
    try:
        if args.text is not None:
            text = encode_lines.text_argument(args.text, args.errors)
            if text is None:
                skipped = 1
            else:
                printer = encode_lines.LinePrinter(out, args.json, ascii_only)
                encoding = tokenizer.encode(text)
                printer.add(encoding.ids, encoding, 0)
                printer.end()
        elif args.files:
            for name in args.files:
                stream = DecompressedStream(name, "")
                skipped += encode_lines.encode_stream(out, tokenizer, stream, name, args.errors, args.json, ascii_only)
        else:
            stdin = OpenStream(cast(io.BufferedIOBase, sys.stdin.buffer))
            skipped = encode_lines.encode_stream(out, tokenizer, stdin, "standard input", args.errors, args.json, ascii_only)
    except encode_lines.EncodeError as error:
        raise CliError(str(error)) from None
    _note_skipped(out, skipped)
    return 0


def _print_baseline(args: argparse.Namespace, out: TextIO, ascii_only: bool) -> int:
    """`encode --baseline NAME`: the lines cut by a rule (`workbench.cli.baseline_lines`)."""
    skipped = 0
    try:
        if args.text is not None:
            skipped = baseline_lines.print_lines(out, args.baseline, baseline_lines.text_lines(args.text, args.errors), args.json, ascii_only)
        elif args.files:
            for name in args.files:
                skipped += baseline_lines.print_lines(out, args.baseline, baseline_lines.file_lines(name, args.errors), args.json, ascii_only)
        else:
            lines = baseline_lines.stream_lines(sys.stdin.buffer, "standard input", args.errors)
            skipped = baseline_lines.print_lines(out, args.baseline, lines, args.json, ascii_only)
    except encode_lines.EncodeError as error:
        raise CliError(str(error)) from None
    _note_skipped(out, skipped)
    return 0


def _note_skipped(out: TextIO, skipped: int) -> None:
    if skipped:
        out.flush()
        print(f"note: skipped {skipped:,} line{'s' if skipped != 1 else ''} that {'are' if skipped != 1 else 'is'} not UTF-8", file=sys.stderr)


def _writes_utf8(stream: TextIO) -> bool:
    """Whether `stream` encodes text as UTF-8 (else what it cannot encode is escaped)."""
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    return encoding in ("utf8", "utf8sig")


def _encode_to_file(args: argparse.Namespace) -> int:
    """`encode --out ids.bin FILE...`: every line of the files as ids, written by engine.corpus.ids."""
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
        check_not_special(target)
        if target.is_file() and not args.force:
            raise CliError(f"{target}: already exists; choose another name or pass --force to replace it")
    separator: str | None = argument_text("--separator", args.separator) if args.separator is not None else None
    tokenizer = load(args.tokenizer)
    try:
        corpus_ids.separator_id(tokenizer, separator)
    except ValueError as error:
        raise CliError(f"--separator: {error}") from None
    if tokenizer.padding is not None:
        print(f"note: {args.tokenizer} turns padding on: every document is padded, as encode pads it", file=sys.stderr)
    if tokenizer.truncation is not None:
        print(f"note: {args.tokenizer} turns truncation on: long documents are cut, as encode cuts them", file=sys.stderr)

    progress = progress_bars(args.quiet)
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
    WRITTEN.extend(summary.paths)
    if summary.separator_id is not None:
        separated = f"separator {encode_lines.visible(separator or '')}={summary.separator_id} after every document"
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
