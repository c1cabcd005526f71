"""The texts an audit measures: the shipped declarations (all languages, or those asked for by
ISO 639-3 code), the shipped code samples, and the user's own files or folders, each as an
`engine.analysis.audit.AuditText`. Qt-free: the command line's `audit` and the Audit tab use it
alike. Nothing is measured here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from engine.analysis.audit import AuditText, dominant_script
from engine.corpus.sources import folder_files
from engine.errors import TokenizerFileError
from engine.formats.files import read_text
from workbench.core.parallel_text import ParallelText, code_samples, load_udhr


class AuditTextError(ValueError):
    """A text the audit cannot use; the message names it and the problem."""


def shipped_languages(codes: Sequence[str] | None = None) -> list[AuditText]:
    """The shipped declarations, in the shipped order; with `codes`, those only, in the order
    given (a name two versions share gets the version's key: "Venda (ven2)"): an ISO 639-3
    code gives every version in that language ("deu": 1901 and 1996
    spelling), a package key one version ("srp_cyrl"). AuditTextError names a code that is not
    shipped."""
    texts = load_udhr()
    counts = Counter(text.name for text in texts)
    shared = {name for name, count in counts.items() if count > 1}
    if codes is None:
        return [_language(text, shared) for text in texts]
    chosen: list[AuditText] = []
    unknown: list[str] = []
    for code in codes:
        found = [text for text in texts if code in (text.iso639_3, text.key)]
        if not found:
            unknown.append(code)
        chosen += [_language(text, shared) for text in found]
    if unknown:
        raise AuditTextError(
            f"no shipped declaration in {', '.join(unknown)}: give ISO 639-3 codes (eng, hin, jpn...) or "
            "the keys `tokenizer-workbench audit --list-languages` lists"
        )
    return chosen


def shipped_code() -> list[AuditText]:
    """The shipped code samples (Python, TypeScript, Rust, JSON), one text each."""
    return [AuditText(sample.name, "", "Zyyy", "code", {0: sample.text}) for sample in code_samples()]


def user_texts(paths: Sequence[str]) -> list[AuditText]:
    """The user's files, each one text named by its path; a folder gives its regular files,
    sorted, its subfolders included (hidden ones left out). AuditTextError names a path that is
    missing, special, empty or not UTF-8 text."""
    texts: list[AuditText] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = [path / relative for relative in folder_files(given)]
            if not files:
                raise AuditTextError(f"{given}: the folder holds no files to measure")
        else:
            files = [path]
        for file in files:
            texts.append(_file_text(file))
    return texts


def _file_text(path: Path) -> AuditText:
    try:
        body = read_text(str(path), "text")
    except TokenizerFileError as error:
        raise AuditTextError(str(error)) from None
    if not body.strip():
        raise AuditTextError(f"{path}: the file is empty")
    return AuditText(str(path), "", dominant_script(body), "file", {0: body})


def _language(text: ParallelText, shared: set[str]) -> AuditText:
    """A declaration as a text to measure: named by its language, and by its package key too
    where two versions share a name ("Malayalam (mal_chillus)"): names tell rows apart."""
    name = f"{text.name} ({text.key})" if text.name in shared else text.name
    return AuditText(name, text.iso639_3, text.script, "language", text.articles)
