"""The text field of JSON Lines and Parquet/Arrow files in the window's corpus list: the fields a
file offers, choosing one in the Field cell (checked again in the background), the project
keeping it, and training (and its word-counts key) reading it."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import lzma
import multiprocessing
import random
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox
from pytestqt.qtbot import QtBot
from window_support import step_and_wait, train_and_wait

from engine import Tokenizer
from engine.corpus.checks import check_file
from engine.corpus.records import opening_text
from engine.corpus.sources import CorpusSource, source_of
from engine.errors import CorpusError
from workbench.core import presets
from workbench.jobs.children.stepping import count_source, step_payload
from workbench.jobs.children.training import TrainingJob, train
from workbench.jobs.runners.file_checks import FileChecker, text_fields
from workbench.jobs.runners.training_plans import plan_training
from workbench.window.corpus_table import CHECK_COLUMN, FIELD_COLUMN, FILE_COLUMN, LINES_COLUMN
from workbench.window.main_window import MainWindow

CODE = [f"def f{i}(x):\n    return x * {i % 7}  # lines of code {i % 13}" for i in range(300)]


def write_records(path: Path, texts: list[str], key: str = "content") -> Path:
    """A JSON Lines file of The Stack's shape: the text under `key`, with other fields around it."""
    lines = [json.dumps({"id": i, key: text, "lang": "python", "stars": i % 5}) for i, text in enumerate(texts)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- text_fields ---------------------------------------------------------------------------


def test_the_fields_of_a_json_lines_file_are_its_first_records_strings(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text('\n  \n{"id": 1, "content": "x", "meta": {"a": "b"}, "lang": "py", "n": null}\n{"other": "y"}\n', encoding="utf-8")
    assert text_fields(str(path)) == ["content", "lang"]


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zst"])
def test_a_compressed_file_is_decompressed_only_up_to_its_first_record(tmp_path: Path, suffix: str) -> None:
    rng = random.Random(7)
    first = json.dumps({"raw_content": "a page", "url": "http://x", "len": 6}) + "\n"
    rest = "".join(json.dumps({"raw_content": "%032x" % rng.getrandbits(128)}) + "\n" for _ in range(60_000))
    data = (first + rest).encode()
    if suffix == ".gz":
        packed = gzip.compress(data)
    elif suffix == ".bz2":
        packed = bz2.compress(data)
    elif suffix == ".xz":
        packed = lzma.compress(data)
    else:
        import zstandard  # (a dependency of the engine)

        packed = zstandard.ZstdCompressor().compress(data)
    path = tmp_path / f"web.jsonl{suffix}"
    path.write_bytes(packed[: len(packed) * 3 // 4])  # cut: reading it whole fails
    assert text_fields(str(path)) == ["raw_content", "url"]
    assert "truncated" in check_file(str(path), "raw_content").problem


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("[1, 2]\n", "line 1: not a JSON object"),
        ("\n{oops\n", "line 2: not JSON"),
        ("\n\n", "has no records"),
        (b"\xff\xfe{}\n", "line 1: not valid UTF-8"),
    ],
)
def test_a_first_record_without_fields_is_a_corpus_error_naming_the_file(tmp_path: Path, content: str | bytes, fragment: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(CorpusError) as error:
        text_fields(str(path))
    assert str(path) in str(error.value) and fragment in str(error.value)


def test_missing_files_and_files_without_fields(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="file not found"):
        text_fields(str(tmp_path / "gone.jsonl"))
    plain = tmp_path / "a.txt"
    plain.write_text("words\n", encoding="utf-8")
    assert text_fields(str(plain)) == []


def test_the_fields_of_parquet_and_arrow_files_are_their_string_columns(tmp_path: Path) -> None:
    import pyarrow  # (a test dependency)
    import pyarrow.ipc
    import pyarrow.parquet

    table = pyarrow.table(
        {
            "id": pyarrow.array([1, 2], pyarrow.int64()),
            "text": pyarrow.array(["a", "b"], pyarrow.string()),
            "tokens": pyarrow.array([[1], [2]]),
            "body": pyarrow.array(["c", "d"], pyarrow.large_string()),
        }
    )
    parquet = tmp_path / "t.parquet"
    pyarrow.parquet.write_table(table, str(parquet))
    assert text_fields(str(parquet)) == ["text", "body"]
    arrow_file = tmp_path / "t.arrow"
    with pyarrow.ipc.new_file(str(arrow_file), table.schema) as writer:
        writer.write_table(table)
    assert text_fields(str(arrow_file)) == ["text", "body"]
    stream = tmp_path / "s.arrow"  # HF datasets' cache format
    with pyarrow.ipc.new_stream(str(stream), table.schema) as writer:
        writer.write_table(table)
    assert text_fields(str(stream)) == ["text", "body"]
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet at all")
    with pytest.raises(CorpusError, match="cannot be read as Parquet/Arrow"):
        text_fields(str(broken))


def test_without_pyarrow_a_parquet_files_fields_cannot_be_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.parquet"
    path.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # `import pyarrow` raises ImportError
    with pytest.raises(CorpusError, match="needs pyarrow"):
        text_fields(str(path))


# -- the checker ---------------------------------------------------------------------------


def test_the_checker_checks_a_file_with_its_field(qtbot: QtBot, tmp_path: Path) -> None:
    path = write_records(tmp_path / "code.jsonl", CODE[:10])
    checker = FileChecker()
    with qtbot.waitSignal(checker.field_checked, timeout=20_000) as blocker:
        checker.check_field(str(path), "content")
    assert blocker.args[:2] == [str(path), "content"] and blocker.args[2].ok and blocker.args[2].lines == 10
    with qtbot.waitSignal(checker.checked, timeout=20_000) as blocker:
        checker.check([str(tmp_path)], {str(path): "lang"})
    assert blocker.args[0][0].ok
    with qtbot.waitSignal(checker.field_checked, timeout=20_000) as blocker:
        checker.check_field(str(tmp_path / "gone.jsonl"), "content")
    assert blocker.args[2] is None and blocker.args[3] == "file not found"
    assert not checker.is_busy()


# -- the corpus list ---------------------------------------------------------------------


def add_and_wait(qtbot: QtBot, window: MainWindow, *paths: Path) -> None:
    with qtbot.waitSignal(window.file_checker.checked, timeout=20_000):
        window.project_panel.add_paths([str(path) for path in paths])


def new_code_project(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> Path:
    """A new project whose corpus is one JSON Lines file of CODE records (checked); its path."""
    window.new_project()
    code = write_records(tmp_path / "code.jsonl", CODE)
    add_and_wait(qtbot, window, code)
    return code


def test_the_field_is_chosen_in_the_corpus_list_and_the_file_checked_again(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, small_corpus: Path
) -> None:
    window.new_project()
    panel = window.project_panel
    model, view = panel.corpus_model, panel.corpus_view
    add_and_wait(qtbot, window, small_corpus)
    assert view.isColumnHidden(FIELD_COLUMN), "no file has fields: no Field column"
    code = write_records(tmp_path / "code.jsonl", CODE)
    add_and_wait(qtbot, window, code)
    assert not view.isColumnHidden(FIELD_COLUMN)
    item = window.document.project.corpus[1]
    # the engine's hint to the command line becomes one to the window
    assert "no field 'text'" in item.problem and "double-click its Field cell" in panel.corpus_status.text()
    assert model.index(0, FIELD_COLUMN).data() is None and model.index(1, FIELD_COLUMN).data() == "text"
    assert model.index(1, CHECK_COLUMN).data() == "problem"
    assert not model.flags(model.index(0, FIELD_COLUMN)) & Qt.ItemFlag.ItemIsEditable
    assert model.flags(model.index(1, FIELD_COLUMN)) & Qt.ItemFlag.ItemIsEditable

    # the Field cell's editor lists the first record's strings; the file has no "text"
    panel.choose_field(1)
    editor = view.indexWidget(model.index(1, FIELD_COLUMN))
    assert isinstance(editor, QComboBox) and not editor.isEditable()
    assert [editor.itemText(i) for i in range(editor.count())] == ["content", "lang"]
    assert editor.currentIndex() == -1 and editor.placeholderText() == "text"
    # the table keeps room for the names beside the Field column
    assert view.minimumWidth() > view.horizontalHeader().sectionSize(FIELD_COLUMN) + view.fontMetrics().averageCharWidth() * 16
    window.document.mark_saved(str(tmp_path / "p.tokproj"))
    editor.setCurrentIndex(0)
    editor.activated.emit(0)
    qtbot.waitUntil(lambda: item.field == "content", timeout=5_000)
    assert window.document.dirty
    qtbot.waitUntil(lambda: not model.checking, timeout=20_000)
    assert item.problem == "" and item.lines == len(CODE)
    assert model.index(1, FIELD_COLUMN).data() == "content" and model.index(1, CHECK_COLUMN).data() == "UTF-8 ✓"
    assert model.index(1, LINES_COLUMN).data() == f"{len(CODE):,}"
    assert "read from the field “content”" in panel.corpus_status.text()

    # the editor opens on the current field; adding the file again keeps its field
    panel.choose_field(1)
    editor = view.indexWidget(model.index(1, FIELD_COLUMN))
    assert isinstance(editor, QComboBox) and editor.currentText() == "content"
    view.closeEditor(editor, view.itemDelegate().EndEditHint.RevertModelCache)
    add_and_wait(qtbot, window, code)
    assert item.field == "content" and item.problem == ""
    assert model.index(1, FILE_COLUMN).data() == "code.jsonl"


def test_a_field_changed_again_before_its_check_returns_keeps_the_last_one(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    code = new_code_project(qtbot, window, tmp_path)
    panel = window.project_panel
    panel.set_field(0, "content")
    # (the answer comes through the event loop, so the cell says so until then)
    assert panel.corpus_model.index(0, CHECK_COLUMN).data() == "checking…"
    panel.set_field(0, "missing")
    qtbot.waitUntil(lambda: not window.file_checker.is_busy(), timeout=20_000)
    item = window.document.project.corpus[0]
    assert item.field == "missing" and "no field 'missing'" in item.problem
    # a stale answer is dropped
    assert not window.document.apply_field_check(str(code), "content", check_file(str(code), "content"))
    assert "no field 'missing'" in item.problem


def test_a_file_whose_fields_cannot_be_listed_gets_a_typed_field(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    window.new_project()
    path = tmp_path / "odd.jsonl"
    path.write_text('["not", "an", "object"]\n', encoding="utf-8")
    add_and_wait(qtbot, window, path)
    panel = window.project_panel
    panel.choose_field(0)
    editor = panel.corpus_view.indexWidget(panel.corpus_model.index(0, FIELD_COLUMN))
    assert isinstance(editor, QComboBox) and editor.isEditable() and editor.count() == 0
    assert editor.currentText() == "text" and "not a JSON object" in panel.corpus_status.text()
    editor.setEditText("body")
    panel.corpus_view.commitData(editor)
    qtbot.waitUntil(lambda: window.document.project.corpus[0].field == "body", timeout=5_000)
    qtbot.waitUntil(lambda: not window.file_checker.is_busy(), timeout=20_000)


def test_the_field_is_saved_with_the_project(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    code = new_code_project(qtbot, window, tmp_path)
    window.project_panel.set_field(0, "content")
    qtbot.waitUntil(lambda: not window.file_checker.is_busy(), timeout=20_000)
    data = json.loads(window.document.project.to_json(str(tmp_path)))
    assert data["corpus"][0]["field"] == "content" and data["corpus"][0]["problem"] == ""
    assert window.document.corpus_fields() == {str(code): "content"}


# -- training ------------------------------------------------------------------------------


class Messages:
    """Stands in for the pipe to the window."""

    def send(self, message: tuple[object, ...]) -> None:
        pass


def test_the_training_job_reads_each_files_field(tmp_path: Path) -> None:
    code = write_records(tmp_path / "code.jsonl", CODE)
    plain = tmp_path / "notes.txt"
    plain.write_text("".join(f"plain words {i % 30}\n" for i in range(400)), encoding="utf-8")
    tokenizer, trainer = presets.build("bpe", 300)
    job = TrainingJob(tokenizer.to_str(), trainer.to_dict(), [str(plain), str(code)], 0.0, 1, fields={str(code): "content"})
    assert job.inputs() == [str(plain), CorpusSource(str(code), "jsonl", "", "content")]
    again = TrainingJob.from_dict(json.loads(json.dumps(job.to_dict())))
    assert again == job
    old = job.to_dict()
    del old["fields"]  # a job written before fields were kept
    assert TrainingJob.from_dict(old).fields == {}
    result = train(job, Messages(), multiprocessing.Event())  # (Messages stands in for the pipe)
    expected, expected_trainer = presets.build("bpe", 300)
    report = expected.train([str(plain), source_of(str(code), "content")], expected_trainer, processes=1)
    assert Tokenizer.from_str(result.tokenizer_json).get_vocab() == expected.get_vocab()
    assert result.report.history == report.history
    assert "f299" not in expected.get_vocab() and any("return" == token for token in expected.get_vocab())


def test_the_window_trains_on_the_chosen_field_and_a_new_field_needs_new_counts(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    code = new_code_project(qtbot, window, tmp_path)
    window.document.add_preset("bpe", vocab_size=300)
    tab = window.train_tab
    added = window.document.active
    assert added is not None
    pipeline = json.loads(json.dumps(added.pipeline))
    item = window.document.project.corpus[0]

    def counts_key_now() -> str:  # (what a training now would keep its counts under)
        return plan_training(window.document.project, window.document.corpus_fields(), None, added, (pipeline, {}), 0.01, 1, 0).counts_key

    # a file read as "text" keeps the key it had before fields were kept
    old_key = hashlib.sha256(json.dumps([[[item.size, item.sha256]], pipeline, 0.01], sort_keys=True).encode()).hexdigest()
    assert counts_key_now() == old_key
    window.project_panel.set_field(0, "content")
    qtbot.waitUntil(lambda: not window.file_checker.is_busy() and item.problem == "", timeout=20_000)
    content_key = counts_key_now()
    assert content_key != old_key

    train_and_wait(qtbot, window)
    entry = window.document.active
    assert entry is not None and entry.is_trained, tab.message.text()
    expected, trainer = presets.build("bpe", 300)
    expected.train([source_of(str(code), "content")], trainer, processes=1)
    assert Tokenizer.from_str(entry.trained_json or "").get_vocab() == expected.get_vocab()
    assert entry.counts_key == content_key and tab.continue_reason() == ""
    # the same file read from another field: the kept counts are not those
    window.project_panel.set_field(0, "lang")
    qtbot.waitUntil(lambda: not window.file_checker.is_busy(), timeout=20_000)
    assert counts_key_now() not in (content_key, old_key)
    assert "corpus has changed" in tab.continue_reason()


def test_step_by_step_counts_a_files_chosen_field_and_evaluates_on_its_records(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    code = new_code_project(qtbot, window, tmp_path)
    window.document.add_preset("bpe", vocab_size=300)
    window.document.set_field(0, "content")
    panel = window.train_tab.step_panel
    # the Train tab hands the step panel the files with their fields (as the corpus changes)
    qtbot.waitUntil(lambda: panel.source.count() == 2, timeout=5_000)
    panel.source.setCurrentIndex(1)
    panel.start()
    # (a file's words are counted in a child process: the window draws meanwhile)
    assert panel.is_counting() and "Counting the words of code.jsonl" in panel.status.text()
    step_and_wait(qtbot, panel)
    entry = window.document.active
    assert entry is not None and entry.trainer is not None
    tokenizer = Tokenizer.from_str(json.dumps(entry.pipeline))
    expected = tokenizer.count_words([source_of(str(code), "content")], processes=1)
    started = panel.started
    assert started is not None and started.from_file
    assert (started.distinct, started.total) == (len(expected), sum(expected.values()))
    # what the process counted and measures compression on: the field's records
    configuration = (entry.pipeline, entry.trainer)
    counts, sample, _ = count_source(step_payload(configuration, source_of(str(code), "content"), ""))
    assert counts == expected and sample.split("\n")[:2] == CODE[0].split("\n")
    assert started.evaluation_lines == len([line for line in sample.split("\n") if line.strip()])


def test_the_opening_text_of_a_source_is_its_first_lines_or_records(tmp_path: Path) -> None:
    code = write_records(tmp_path / "code.jsonl", CODE)
    assert opening_text(source_of(str(code), "content"), 60) == "\n".join(CODE[:2])
    packed = tmp_path / "a.txt.gz"
    packed.write_bytes(gzip.compress("one\ntwo\n".encode()))
    assert opening_text(source_of(str(packed)), 5) == "one\nt"
    table = tmp_path / "counts.tsv"
    table.write_text("a\t3\n", encoding="utf-8")
    assert opening_text(source_of(str(table)), 100) == ""
