"""`tokenizer-workbench convert`: read a tokenizer file in any format and write it in
another, with a note for each part of the pipeline the target format cannot hold, then prove the
written file: its certificate (`workbench.core.export_certificate`) is printed and saved beside it.

Exit codes: 0 when the file was written and its certificate says identical; `EXIT_MISMATCH` (3)
when it was written (and kept) but the owning library encodes some texts differently, or cannot
read it; 1 when nothing was written (a format that cannot hold the tokenizer, a bad input).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.formats import convert
from engine.analysis.certificate import certificate_path
from workbench.cli.common import READABLE, WRITTEN, CliError, check_not_special, load
from workbench.core.export_certificate import certify_export

# The exit code of a written file whose certificate is not "identical" (the file is kept).
EXIT_MISMATCH = 3


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `convert` command's arguments."""
    formats = "; ".join(f"{kind}: {text}" for kind, text in convert.DESCRIPTIONS.items())
    conversion = sub.add_parser(
        "convert",
        help="convert a tokenizer between file formats",
        description=f"Read a tokenizer file in any format and write it in another. Formats: {formats}. "
        "A format that cannot hold part of the pipeline says what is lost; one that cannot hold the "
        "tokenizer at all writes nothing. The written file is then read by the library that owns the "
        "format (tokenizers, sentencepiece, tiktoken; the workbench's own reader when it is not "
        "installed) and a suite of texts is encoded both ways: the certificate (identical, or the first "
        "mismatches and their causes) is printed and saved beside the file as <file>.certificate.json. "
        f"Exit code 0: written and identical; {EXIT_MISMATCH}: written, but not identical; 1: nothing written.",
    )
    conversion.add_argument("input", metavar="IN", help=READABLE)
    conversion.add_argument("output", metavar="OUT", help="the file to write (gpt2: a folder or the vocab.json path)")
    conversion.add_argument("--to", choices=convert.FORMATS, required=True, help="the format to write")
    conversion.add_argument("--force", action="store_true", help="replace files that already exist")
    conversion.set_defaults(func=cmd_convert)


def cmd_convert(args: argparse.Namespace) -> int:
    source = Path(args.input)
    targets = [Path(p) for p in convert.written_paths(args.to, args.output)]
    proof = Path(certificate_path(args.to, args.output))
    if proof.is_dir():
        raise CliError(f"{proof}: is a directory; the certificate of the export is written there")
    check_not_special(proof)  # (replaced with the file it proves: an old one would describe another file)
    for target in targets:
        if target.exists() and source.exists() and target.resolve() == source.resolve():
            raise CliError(f"{target}: is the input; writing there would destroy it")
        if target.is_dir():
            raise CliError(f"{target}: is a directory; give the file to write")
        check_not_special(target)
        if target.exists() and not args.force:
            raise CliError(f"{target}: already exists; choose another name or pass --force to replace it")
    tokenizer = load(args.input)
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
    WRITTEN.extend(str(target) for target in targets)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"Wrote {' and '.join(str(t) for t in targets)} ({convert.DESCRIPTIONS[args.to]})", file=sys.stderr)
    found, saved = certify_export(tokenizer, args.to, args.output)
    WRITTEN.append(saved)
    print("\n".join(found.lines()))
    print(f"certificate saved as {saved}")
    return 0 if found.identical else EXIT_MISMATCH


def _missing_folders(folder: Path) -> list[Path]:
    """`folder` and its ancestors that do not exist yet, deepest first: a/b/c with only a -> [a/b/c, a/b]."""
    missing: list[Path] = []
    current = folder.absolute()
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    return missing
