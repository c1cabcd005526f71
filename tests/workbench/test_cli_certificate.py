"""`tokenizer-workbench convert` proves what it wrote: the certificate's verdict and first
mismatches printed, the JSON saved beside the file, exit 0 when identical and 3 when the file
was written but the owning library encodes some texts differently; a format that cannot hold
the tokenizer still writes nothing (no certificate either)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import assert_one_line_error, run_cli

from engine.analysis import certificate
from support import corpus_path, sentencepiece_style


def test_an_identical_conversion_prints_its_certificate_and_saves_it(tmp_path: Path) -> None:
    out = tmp_path / "t5-style.json"
    result = run_cli("convert", str(corpus_path("sp_test_model.model")), str(out), "--to", "hf")
    assert result.returncode == 0, result.stderr
    saved = tmp_path / "t5-style.json.certificate.json"
    assert result.stdout.splitlines() == [
        f"certificate: {certificate.load(str(saved)).verdict()}",
        "  loaded with tokenizers.Tokenizer.from_file('t5-style.json')",
        f"certificate saved as {saved}",
    ]
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert data["identical"] is True and data["format"] == "hf" and data["texts"] == 556
    assert data["files"] == [{"path": str(out), "sha256": certificate.sha256_of(str(out))}]
    assert data["verdict"].startswith("identical on 556 texts (") and "read by tokenizers 0.23.3" in data["verdict"]


def test_a_mismatching_conversion_keeps_the_file_and_exits_3(tmp_path: Path) -> None:
    tokenizer = sentencepiece_style()
    source = tmp_path / "unigram.json"
    tokenizer.save(str(source))
    out = tmp_path / "unigram.model"
    result = run_cli("convert", str(source), str(out), "--to", "sentencepiece")
    assert result.returncode == 3, result.stderr
    assert out.is_file() and "note: a text that starts with a space" in result.stderr
    printed = result.stdout.splitlines()
    assert printed[0].startswith("certificate: differs on ") and "(whitespace at the start or end: " in printed[0]
    assert printed[2].startswith("  first mismatches")
    assert printed[3].startswith("  1. a space (\" \"), from token ")
    assert any(line.startswith("      theirs ") for line in printed)
    assert printed[-1] == f"certificate saved as {out}.certificate.json"
    assert json.loads((tmp_path / "unigram.model.certificate.json").read_text(encoding="utf-8"))["identical"] is False


def test_a_refused_conversion_writes_no_certificate(tmp_path: Path) -> None:
    out = tmp_path / "bert.model"
    result = run_cli("convert", str(corpus_path("bert_uncased_tokenizer.json")), str(out), "--to", "sentencepiece")
    assert_one_line_error(result, "bert.model", "WordPiece")
    assert list(tmp_path.iterdir()) == []


def test_a_certificate_path_that_is_a_folder_is_refused_before_writing(tmp_path: Path) -> None:
    (tmp_path / "t.json.certificate.json").mkdir()
    result = run_cli("convert", str(corpus_path("sp_test_model.model")), str(tmp_path / "t.json"), "--to", "hf")
    assert_one_line_error(result, "t.json.certificate.json", "is a directory")
    assert not (tmp_path / "t.json").exists()
