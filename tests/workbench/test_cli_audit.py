"""`tokenizer-workbench audit`: its CSV holds the engine's own counts (and HF's, on the same
file), one row per tokenizer and text; the summary names the premium; bad input gets one line."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import tokenizers

from engine import Tokenizer
from engine.analysis.audit import CSV_COLUMNS
from engine.analysis.size_curve import held_out_words, size_curve
from engine.analysis.vocab_compare import compare_vocabularies
from engine.analysis.vocab_health import vocabulary_health
from engine.formats import convert
from cli_support import assert_one_line_error, run_cli
from support import corpus_path, train_byte_level
from workbench.core.audit_texts import shipped_languages
from workbench.core.parallel_text import load_udhr

LANGUAGES = ("eng", "hin", "rus", "kor", "arb")


@pytest.fixture(scope="module")
def byte_level(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("audit") / "byte-level.json"
    english = next(text for text in load_udhr() if text.key == "eng")
    train_byte_level(english.articles.values(), 400).save(str(path))
    return path


def read_rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_csv_holds_hf_s_counts_for_every_tokenizer_and_text(byte_level: Path, tmp_path: Path) -> None:
    bert = corpus_path("bert_uncased_tokenizer.json")
    out = tmp_path / "audit.csv"
    result = run_cli("audit", "-t", str(bert), "-t", str(byte_level), "--languages", ",".join(LANGUAGES), "--csv", str(out))
    assert result.returncode == 0, result.stderr
    rows = read_rows(out)
    texts = [text for code in LANGUAGES for text in load_udhr() if text.iso639_3 == code]
    assert list(rows[0]) == list(CSV_COLUMNS)
    assert len(rows) == 2 * (len(texts) + 4)  # every language asked for, and the four code samples
    for path in (bert, byte_level):
        reference = tokenizers.Tokenizer.from_file(str(path))
        reference.no_truncation()
        reference.no_padding()
        own = {row["text"]: row for row in rows if row["tokenizer"] == path.name}
        for text in texts:
            expected = sum(len(reference.encode(body, add_special_tokens=False).ids) for body in text.articles.values())
            row = own[text.name]
            assert int(row["tokens"]) == expected, (path.name, text.key)
            assert (row["iso639_3"], row["script"], row["language"], row["kind"]) == (text.iso639_3, text.script, text.name, "language")
        assert own["English"]["premium_over_english"] == "1.0000"
        assert own["Python"]["kind"] == "code" and own["Python"]["premium_over_english"] == ""
    # byte-level BPE gives every text back; BERT lowercases
    assert {row["round_trip"] for row in rows if row["tokenizer"] == byte_level.name} == {"yes"}
    assert "lowercased by the normalizer" in result.stdout
    assert "premium over English" in result.stdout and "Fewer tokens is not by itself a better model" in result.stdout
    vocabulary = tokenizers.Tokenizer.from_file(str(bert)).get_vocab_size()
    assert f"embedding {vocabulary:,} x 768 = {vocabulary * 768 / 1e6:.1f} M parameters, the output projection tied to it" in result.stdout


def test_the_embedding_s_cost_follows_the_model_s_shape(byte_level: Path) -> None:
    result = run_cli("audit", "-t", str(byte_level), "--languages", "eng", "--no-code", "--hidden-size", "1024", "--dtype", "fp32", "--untied")
    assert result.returncode == 0, result.stderr
    vocabulary = tokenizers.Tokenizer.from_file(str(byte_level)).get_vocab_size()
    assert f"embedding {vocabulary:,} x 1,024 = {vocabulary * 1024 / 1e6:.1f} M parameters, and {vocabulary * 1024 / 1e6:.1f} M more for the untied output projection" in result.stdout
    assert "in fp32" in result.stdout
    assert_one_line_error(run_cli("audit", "-t", str(byte_level), "--languages", "eng", "--hidden-size", "0"), "--hidden-size")


def test_the_premium_and_summary_are_the_csv_s(byte_level: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit.csv"
    result = run_cli("audit", "-t", str(byte_level), "--languages", "eng,rus", "--no-code", "--csv", str(out))
    assert result.returncode == 0, result.stderr
    rows = {row["iso639_3"]: row for row in read_rows(out)}
    english, russian = rows["eng"], rows["rus"]
    tokenizer = convert.load(str(byte_level))
    eng = next(t for t in load_udhr() if t.key == "eng")
    rus = next(t for t in load_udhr() if t.iso639_3 == "rus")
    shared = [n for n in rus.articles if n in eng.articles]
    cost = sum(len(tokenizer.encode(rus.articles[n], add_special_tokens=False).ids) for n in shared)
    base = sum(len(tokenizer.encode(eng.articles[n], add_special_tokens=False).ids) for n in shared)
    assert float(russian["premium_over_english"]) == pytest.approx(cost / base, abs=1e-4)
    assert float(russian["premium_over_english"]) > 1.5  # a vocabulary trained on English only
    assert f"worst Russian {cost / base:.2f}" in result.stdout
    assert english["word_unit"] == "word" and 0 < float(english["renyi_efficiency"]) < 1


def test_your_own_files_and_folders_are_measured(byte_level: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("the cat sat on the mat\n", encoding="utf-8")
    (folder / "sub" / "b.txt").write_text("吾輩は猫である。名前はまだ無い。\n", encoding="utf-8")
    (folder / ".hidden").write_text("left out\n", encoding="utf-8")
    out = tmp_path / "audit.csv"
    result = run_cli("audit", "-t", str(byte_level), "--no-languages", "--no-code", "--texts", str(folder), "--csv", str(out))
    assert result.returncode == 0, result.stderr
    rows = read_rows(out)
    assert [(Path(r["text"]).name, r["kind"], r["script"], r["word_unit"]) for r in rows] == [
        ("a.txt", "file", "Latn", "word"),
        ("b.txt", "file", "Jpan", "character"),
    ]
    assert rows[1]["words"] == "16"  # 14 letters, each a word in Japanese, and the two 。 (as punctuation is everywhere)


def test_html_writes_a_report_beside_the_csv(byte_level: Path, tmp_path: Path) -> None:
    csv_path, html_path = tmp_path / "audit.csv", tmp_path / "audit.html"
    result = run_cli("audit", "-t", str(byte_level), "--languages", "eng,ell,jpn", "--csv", str(csv_path), "--html", str(html_path))
    assert result.returncode == 0, result.stderr
    page = html_path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 2
    for row in read_rows(csv_path):
        assert f"<td>{row['script']}</td>" in page and row["tokens"] in page
    assert "tarball_sha256" in page  # where the shipped declarations come from
    assert_one_line_error(
        run_cli("audit", "-t", str(byte_level), "--languages", "eng", "--html", str(html_path)), "already exists"
    )
    assert_one_line_error(
        run_cli("audit", "-t", str(byte_level), "--languages", "eng", "--csv", str(tmp_path / "x"), "--html", str(tmp_path / "x")),
        "both --csv and --html",
    )


def test_list_languages_names_every_shipped_declaration() -> None:
    result = run_cli("audit", "--list-languages")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(load_udhr())
    assert "eng\teng\tLatn\tEnglish" in lines


def test_bad_audits_get_one_clear_line(byte_level: Path, tmp_path: Path) -> None:
    assert_one_line_error(run_cli("audit", "--languages", "eng"), "give at least one tokenizer")
    assert_one_line_error(run_cli("audit", "-t", str(byte_level), "--languages", "eng,xyz"), "no shipped declaration in xyz")
    missing = tmp_path / "missing.txt"
    assert_one_line_error(run_cli("audit", "-t", str(byte_level), "--no-languages", "--texts", str(missing)), str(missing), "no such file")
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    assert_one_line_error(run_cli("audit", "-t", str(byte_level), "--no-languages", "--texts", str(empty)), str(empty), "empty")
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00 not text")
    assert_one_line_error(run_cli("audit", "-t", str(byte_level), "--no-languages", "--texts", str(binary)), str(binary))
    assert_one_line_error(run_cli("audit", "-t", str(byte_level), "--no-languages", "--no-code"), "nothing to measure")
    taken = tmp_path / "taken.csv"
    taken.write_text("keep me\n", encoding="utf-8")
    assert_one_line_error(run_cli("audit", "-t", str(byte_level), "--languages", "eng", "--csv", str(taken)), "already exists", "--force")
    assert taken.read_text(encoding="utf-8") == "keep me\n"  # nothing the user had is overwritten
    assert_one_line_error(run_cli("audit", "-t", str(tmp_path / "nope.json"), "--languages", "eng"), "nope.json")


def test_health_compare_and_size_curve_print_the_engine_s_figures_and_join_the_report(byte_level: Path, tmp_path: Path) -> None:
    bert = corpus_path("bert_uncased_tokenizer.json")
    report = tmp_path / "audit.html"
    result = run_cli(
        "audit", "-t", str(byte_level), "-t", str(bert), "--languages", "eng", "--no-code",
        "--health", "5", "--compare", "--size-curve", "--html", str(report),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    english = list(shipped_languages(["eng"])[0].articles.values())
    ours, theirs = Tokenizer.from_file(str(byte_level)), Tokenizer.from_file(str(bert))
    curve = size_curve(ours, *held_out_words(ours, english))
    assert f"{byte_level.name}: which vocabulary size? the knee is at {curve.knee_size:,} of {curve.sizes[-1]:,} entries" in result.stdout
    assert f"{bert.name}: which vocabulary size? " in result.stdout  # (BERT's own file: no smaller sizes; a stand-in has them)
    health = vocabulary_health(theirs, english, 5)
    assert f"{bert.name}: vocabulary health on the 1 text measured ({health.tokens:,} tokens): {len(health.dead):,} dead, {len(health.rare):,} rare, {len(health.unreachable):,} unreachable" in result.stdout
    comparison = compare_vocabularies(ours, theirs, english)
    assert f"they agree on {comparison.boundary_agreement:.1%} of the token boundaries" in result.stdout
    html = report.read_text(encoding="utf-8")
    for heading in ("<h2>Which vocabulary size?</h2>", "<h2>Vocabulary health</h2>", "<h2>Two vocabularies</h2>"):
        assert heading in html
    assert html.index("<h2>Vocabulary health</h2>") < html.index("<h2>Every tokenizer and text</h2>")
    assert 'id="health"' in html and 'id="size-curves"' in html
    assert_one_line_error(run_cli("audit", "-t", str(byte_level), "--languages", "eng", "--compare"), "--compare compares two tokenizers")
    assert_one_line_error(run_cli("audit", "-t", str(byte_level), "--languages", "eng", "--health", "1"), "--health N")
