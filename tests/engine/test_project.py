"""The project file: everything round-trips, paths stay relative, bad files name themselves."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from engine import Tokenizer, models, pre_tokenizers, trainers
from engine.analysis.vocabulary import token_examples, token_frequencies
from engine.corpus.checks import check_file
from engine.errors import ProjectFileError, SchemaError
from engine.project.entry import TokenizerEntry
from engine.project.facts import MAX_EXAMPLE_CHARS, CorpusFile, TrainedOn
from engine.project.fields import INDEX_MEMBER
from engine.project.project_file import BACKUP_SUFFIX, FORMAT_VERSION, Project, remove_stale_temporaries
from engine.project.result import TrainedResult, part_frequencies, vocabulary_frequencies, vocabulary_from_dict
from support import edit_saved_index, without_round_points


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
    entry.result = TrainedResult(
        tokenizer.to_str(),
        report,
        token_frequencies(tokenizer, counts),
        token_examples(tokenizer, counts),
        [(0, 1.0), (10, 2.5)],
        trained_on=TrainedOn(project.corpus, 0, 0.01),
        round_points=[(0, 90, 40, 120), (3, 30, 52, 120)],  # (a Unigram's; a test needs no Unigram to keep them)
    )
    project.tokenizers.append(entry)
    project.tokenizers.append(TokenizerEntry("Untrained", "wordlevel", pipeline, None))
    project.active = 0
    return project


def rounded(project: Project) -> Project:
    """`project` with its steps' times to the millisecond, as a project file keeps them."""
    data = json.loads(project.to_json("/"))
    for entry in data["tokenizers"]:
        if entry["report"] is not None:
            for kind in ("merges", "rounds"):
                columns = entry["report"]["history"][kind]
                columns["seconds"] = [round(value, 3) for value in columns["seconds"]]
    return Project.parse(json.dumps(data), "/rounded.tokproj")


def test_a_project_round_trips(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    path = tmp_path / "demo.tokproj"
    project.save(str(path))
    again = Project.load(str(path))
    # (the steps' times are kept to the millisecond; everything else as it was)
    assert again.to_json(str(tmp_path)) == rounded(project).to_json(str(tmp_path))
    entry = again.tokenizers[0]
    assert entry.report == project.tokenizers[0].report and entry.tokenizer().encode("lowest").tokens
    assert again.tokenizers[1].trainer is None and not again.tokenizers[1].is_trained
    with zipfile.ZipFile(path) as archive:
        assert archive.namelist() == [
            INDEX_MEMBER,
            "tokenizers/0/tokenizer.json",
            "tokenizers/0/history.json",
            "tokenizers/0/vocabulary.json",
        ]
        assert json.loads(archive.read(INDEX_MEMBER))["format_version"] == FORMAT_VERSION == 2
    assert again.tokenizers[0].trained_on is not None
    assert again.tokenizers[0].trained_on.differences(again.corpus) == []


def test_a_project_saved_before_rounds_were_measured_opens_without_them(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    path = tmp_path / "demo.tokproj"
    project.save(str(path))
    again = Project.load(str(path))
    assert again.tokenizers[0].result is not None and again.tokenizers[0].result.round_points == [(0, 90, 40, 120), (3, 30, 52, 120)]
    edit_saved_index(path, without_round_points)
    old = Project.load(str(path)).tokenizers[0].result
    assert old is not None and old.round_points == [] and old.evaluations == [(0, 1.0), (10, 2.5)]
    one_file = json.loads(project.to_json(str(tmp_path)))
    del one_file["tokenizers"][0]["round_points"]
    path.write_text(json.dumps(one_file), encoding="utf-8")
    old = Project.load(str(path)).tokenizers[0].result
    assert old is not None and old.round_points == []


@pytest.mark.parametrize(
    ("points", "fragment"),
    [([[0, 90, 40]], "a round's point must be"), ([[0, 90, -1, 120]], "a round's point"), ("no", "round_points")],
)
def test_bad_round_points_are_named(tmp_path: Path, points: object, fragment: str) -> None:
    one_file = json.loads(trained_project(tmp_path).to_json(str(tmp_path)))
    one_file["tokenizers"][0]["round_points"] = points
    path = tmp_path / "bad.tokproj"
    path.write_text(json.dumps(one_file), encoding="utf-8")
    with pytest.raises(ProjectFileError, match=fragment):
        Project.load(str(path))


def test_an_imported_tokenizers_notes_are_kept_and_bad_ones_named(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    # (a project without notes has no "notes" field: written as before there were any)
    assert all("notes" not in entry for entry in json.loads(project.to_json(str(tmp_path)))["tokenizers"])
    project.tokenizers[0].notes = ["not one of OpenAI's rank files: split with GPT-2's pattern"]
    path = tmp_path / "noted.tokproj"
    project.save(str(path))
    assert Project.load(str(path)).tokenizers[0].notes == ["not one of OpenAI's rank files: split with GPT-2's pattern"]
    assert Project.load(str(path)).tokenizers[1].notes == []
    one_file = json.loads(project.to_json(str(tmp_path)))
    one_file["tokenizers"][0]["notes"] = ["fine", 3]
    path.write_text(json.dumps(one_file), encoding="utf-8")
    with pytest.raises(ProjectFileError, match="tokenizer 'BPE': field 'notes' must be a list of strings"):
        Project.load(str(path))


def test_a_format_1_project_still_opens(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    path = tmp_path / "old.tokproj"
    path.write_text(project.to_json(str(tmp_path)), encoding="utf-8")
    again = Project.load(str(path))
    assert again.to_json(str(tmp_path)) == project.to_json(str(tmp_path))
    assert again.tokenizers[0].report == project.tokenizers[0].report


def test_a_reopened_result_reads_its_parts_only_when_asked_and_writes_the_same_bytes(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    path = tmp_path / "demo.tokproj"
    project.save(str(path))
    result = Project.load(str(path)).tokenizers[0].result
    assert result is not None and result._report is None and result._frequencies is None
    first = result.history_data(), result.vocabulary_data()
    assert result._report is None  # (written back as read)
    assert result.report == project.tokenizers[0].report
    assert (result.history_data(), result.vocabulary_data()) == first


def test_example_words_are_cut_and_stored_once(tmp_path: Path) -> None:
    line = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所で"
    result = TrainedResult("{}", None, [3, 1], {0: [(line, 3)], 1: [(line, 3), ("短い", 1)]})
    assert result.examples[0] == [(line[: MAX_EXAMPLE_CHARS - 1] + "…", 3)]
    data = json.loads(result.vocabulary_data())
    assert data == {"frequencies": [3, 1], "words": [[line[: MAX_EXAMPLE_CHARS - 1] + "…", 3], ["短い", 1]], "examples": {"0": [0], "1": [0, 1]}}


def test_saving_keeps_one_backup_and_clears_what_a_killed_save_left(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    path = tmp_path / "demo.tokproj"
    project.save(str(path))
    first = path.read_bytes()
    left = tmp_path / ".demo.tokproj.999999999.abcd1234.part"  # a writer that was killed
    left.write_bytes(b"half")
    project.name = "renamed"
    project.save(str(path))
    assert (tmp_path / ("demo.tokproj" + BACKUP_SUFFIX)).read_bytes() == first
    assert Project.load(str(path)).name == "renamed"
    assert not left.exists()
    alive = tmp_path / f".demo.tokproj.{os.getpid()}.abcd1234.part"  # (a write under way)
    alive.write_bytes(b"")
    assert remove_stale_temporaries(str(path)) == [] and alive.exists()


def test_what_a_result_was_trained_on_tells_how_the_corpus_changed(tmp_path: Path) -> None:
    a, b = CorpusFile("/d/a.txt", 3, 1, "aa"), CorpusFile("/d/b.txt", 3, 1, "bb")
    trained_on = TrainedOn([a, b], 1000, 0.01)
    assert trained_on.differences([a, b]) == []
    changed = CorpusFile("/d/a.txt", 4, 1, "a2")
    c = CorpusFile("/d/c.txt", 3, 1, "cc")
    assert trained_on.differences([changed, c]) == ["a.txt changed since the training", "c.txt added", "b.txt removed"]


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
    assert again.to_json(str(tmp_path)) == rounded(project).to_json(str(tmp_path))
    assert [item.takes_field for item in again.corpus] == [False, True]
    assert CorpusFile("t.parquet").takes_field and not CorpusFile("t.parquet.gz").takes_field
    # a project written before fields were kept
    data = json.loads(project.to_json(str(tmp_path)))
    for item in data["corpus"]:
        del item["field"]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert [item.field for item in Project.load(str(path)).corpus] == ["text", "text"]
    data["corpus"][1]["field"] = ""
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ProjectFileError, match="'field' must name a field"):
        Project.load(str(path))


def test_a_saved_projects_parts_are_written_again_as_they_were_packed(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    path = tmp_path / "demo.tokproj"
    project.save(str(path))
    again = Project.load(str(path))
    result = again.tokenizers[0].result
    assert result is not None
    parts = [result.tokenizer_part(), result.history_part(), result.vocabulary_part()]
    # (read with their bytes as stored: the next save deflates nothing again)
    assert all(part is not None and part.packed is not None for part in parts)
    again.save(str(tmp_path / "copy.tokproj"))
    with zipfile.ZipFile(path) as first, zipfile.ZipFile(tmp_path / "copy.tokproj") as second:
        for name in first.namelist()[1:]:
            assert first.read(name) == second.read(name)
            assert first.getinfo(name).compress_size == second.getinfo(name).compress_size


def test_histories_are_kept_compact_and_read_back_whole(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    result = project.tokenizers[0].result
    assert result is not None and result.report is not None
    data = json.loads(result.history_data())
    assert "index" not in data["merges"] and data["merges"]["index~"][:3] == [0, 1, 1]
    path = tmp_path / "demo.tokproj"
    project.save(str(path))
    again = Project.load(str(path)).tokenizers[0].result
    assert again is not None and again.report == result.report
    assert again.size() == result.report.history.merges[-1].vocab_size


def test_a_vocabulary_s_frequencies_are_read_without_its_examples(tmp_path: Path) -> None:
    project = trained_project(tmp_path)
    result = project.tokenizers[0].result
    assert result is not None
    data = json.loads(result.vocabulary_part().content)
    assert vocabulary_frequencies(data, "vocabulary") == vocabulary_from_dict(data, "vocabulary")[0] == result.frequencies
    # (examples that would not read do not stop a table from showing the frequencies)
    damaged = {**data, "examples": {"7": [10**9]}}
    assert vocabulary_frequencies(damaged, "vocabulary") == result.frequencies
    with pytest.raises(SchemaError, match="example word number"):
        vocabulary_from_dict(damaged, "vocabulary")
    with pytest.raises(SchemaError, match="vocabulary"):
        vocabulary_frequencies({"frequencies": [1, "two"]}, "vocabulary")
    # from the part's bytes: only the list it opens with is parsed; any other part whole
    content = result.vocabulary_part().content
    assert content.startswith(b'{"frequencies":[') and part_frequencies(content, "v") == result.frequencies
    reordered = json.dumps({"words": data["words"], "frequencies": data["frequencies"]}).encode()
    assert part_frequencies(reordered, "v") == result.frequencies
    for bad in (b'{"frequencies":[[1]],"words":[]}', b'{"frequencies":[1,-2]}', b'{"frequencies":[1', b"[]"):
        with pytest.raises(SchemaError, match="^v"):
            part_frequencies(bad, "v")
