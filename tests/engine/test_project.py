"""The project file: everything round-trips, paths stay relative, bad files name themselves."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine import Tokenizer, models, pre_tokenizers, trainers
from engine.corpus import check_file
from engine.errors import ProjectFileError
from engine.project import FORMAT_VERSION, CorpusFile, Project, TokenizerEntry
from engine.vocabulary import token_examples, token_frequencies


def trained_project(folder: Path) -> Project:
    corpus = folder / "data" / "text.txt"
    corpus.parent.mkdir()
    corpus.write_text("low lower lowest\nnew newer newest\n", encoding="utf-8")
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    pipeline = json.loads(tokenizer.to_str())
    trainer = trainers.BpeTrainer(vocab_size=30, special_tokens=["[UNK]"], show_progress=False)
    counts = tokenizer.count_words([str(corpus)])
    report = tokenizer.train_from_counts(counts, trainer)
    project = Project("demo")
    check = check_file(str(corpus))
    project.corpus.append(CorpusFile(check.path, check.size, check.lines, check.sha256, check.problem))
    entry = TokenizerEntry("BPE", "bpe", pipeline, trainer.to_dict())
    entry.trained_json = tokenizer.to_str()
    entry.report = report
    entry.frequencies = token_frequencies(tokenizer, counts)
    entry.examples = token_examples(tokenizer, counts)
    entry.evaluations = [(0, 1.0), (10, 2.5)]
    project.tokenizers.append(entry)
    project.tokenizers.append(TokenizerEntry("Untrained", "wordlevel", pipeline, None))
    project.active = 0
    return project


def test_a_project_round_trips(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    path = tmp_path / "demo.tokproj"
    project.save(str(path))
    again = Project.load(str(path))
    assert again.to_json(str(tmp_path)) == project.to_json(str(tmp_path))
    entry = again.tokenizers[0]
    assert entry.report == project.tokenizers[0].report and entry.tokenizer().encode("lowest").tokens
    assert again.tokenizers[1].trainer is None and not again.tokenizers[1].is_trained
    assert json.loads(path.read_text(encoding="utf-8"))["format_version"] == FORMAT_VERSION


def test_a_moved_project_folder_finds_its_corpus_by_the_relative_path(tmp_path: Path) -> None:
    first = tmp_path / "first"
    first.mkdir()
    project = trained_project(first)
    project.save(str(first / "demo.tokproj"))
    moved = tmp_path / "moved"
    os.rename(first, moved)
    again = Project.load(str(moved / "demo.tokproj"))
    assert again.corpus[0].path == str(moved / "data" / "text.txt") and again.corpus[0].exists()
    assert again.missing_files() == []


def test_a_missing_corpus_file_is_listed(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    project.save(str(tmp_path / "demo.tokproj"))
    (tmp_path / "data" / "text.txt").unlink()
    again = Project.load(str(tmp_path / "demo.tokproj"))
    assert [item.name for item in again.missing_files()] == ["text.txt"]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "not valid JSON"),
        ('{"format": "tokenizer-workbench project", "format_version": 1, "corpus": [', "truncated"),
        ("[1, 2]", "is not a Tokenizer Workbench project"),
        ('{"format": "tokenizer-workbench project"}', "format_version"),
        ('{"format": "tokenizer-workbench project", "format_version": 7}', "newer Tokenizer Workbench"),
        ('{"format": "tokenizer-workbench project", "format_version": 1, "corpus": [{"size": 1}], "tokenizers": []}', "corpus file"),
        ('{"format": "tokenizer-workbench project", "format_version": 1, "corpus": [], "tokenizers": [{"name": "x", "pipeline": 3}]}', "pipeline"),
    ],
)
def test_bad_project_files_name_the_file_and_the_problem(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "bad.tokproj"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProjectFileError) as error:
        Project.load(str(path))
    assert str(path) in str(error.value) and fragment in str(error.value)


def test_saving_over_a_project_is_atomic(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    path = tmp_path / "demo.tokproj"
    project.save(str(path))
    before = path.read_bytes()
    with pytest.raises(Exception):
        project.save(str(tmp_path / "no-such-folder" / "demo.tokproj"))
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_unique_names(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    assert project.unique_name("BPE") == "BPE (2)"
    assert project.unique_name("New") == "New"


def test_a_corpus_files_text_field_round_trips_and_old_projects_read_text(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    records = tmp_path / "data" / "code.jsonl.gz"
    records.write_bytes(b"")
    project.corpus.append(CorpusFile(str(records), field="content"))
    path = tmp_path / "demo.tokproj"
    project.save(str(path))
    again = Project.load(str(path))
    assert [item.field for item in again.corpus] == ["text", "content"]
    assert again.to_json(str(tmp_path)) == project.to_json(str(tmp_path))
    assert [item.takes_field for item in again.corpus] == [False, True]
    assert CorpusFile("t.parquet").takes_field and not CorpusFile("t.parquet.gz").takes_field
    # a project written before fields were kept
    data = json.loads(path.read_text(encoding="utf-8"))
    for item in data["corpus"]:
        del item["field"]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert [item.field for item in Project.load(str(path)).corpus] == ["text", "text"]
    data["corpus"][1]["field"] = ""
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ProjectFileError, match="'field' must name a field"):
        Project.load(str(path))
