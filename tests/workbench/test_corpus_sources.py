"""The window's corpus list with the new inputs: which files a folder contributes, the
background check's problems, and the training job's held-out split over a mix of kinds."""

from __future__ import annotations

import gzip
import json
import multiprocessing
from pathlib import Path

from pytestqt.qtbot import QtBot

from engine.corpus.checks import FileCheck
from engine.corpus.sources import CorpusSource, expand_inputs
from engine.corpus.units import FileSlice
from workbench.core import presets
from workbench.core.held_out import held_out_split
from workbench.jobs.children.training import TrainingJob, train
from workbench.jobs.runners.file_checks import FileChecker, files_in, is_corpus_name
from workbench.window.folder_dialog import FolderDialog
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts


def test_which_names_are_corpus_files() -> None:
    for name in ("a.txt", "b.jsonl.gz", "c.TXT.ZST", "d.parquet", "e.arrow", "f.tsv", "README", "g.md.bz2", "h.txt.xz"):
        assert is_corpus_name(name), name
    for name in ("x.png", "y.tar.gz", "z.parquet.gz", "w.zip"):
        assert not is_corpus_name(name), name


def test_a_folder_contributes_its_corpus_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    for name in ("a.txt", "b.jsonl.gz", "sub/c.parquet", "d.png", "e.tar.gz", ".hidden.txt"):
        (tmp_path / name).write_bytes(b"x")
    found = [Path(p).relative_to(tmp_path).as_posix() for p in files_in([str(tmp_path)])]
    assert found == ["a.txt", "b.jsonl.gz", "sub/c.parquet"]


def folder_tree(root: Path) -> Path:
    for name in ("a.txt", "b.md", "sub/c.txt", "build/d.txt", ".git/e.txt", "z.bin", "notes.png"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name + " words\n", encoding="utf-8")
    return root


def test_the_folder_dialog_chooses_with_the_command_lines_globs(qtbot: QtBot, tmp_path: Path) -> None:
    root = folder_tree(tmp_path / "data")
    dialog = FolderDialog(str(root))
    qtbot.addWidget(dialog)
    ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
    assert dialog.relative() == ["a.txt", "b.md", "build/d.txt", "sub/c.txt"] and ok.isEnabled()
    assert "4 of 6 files" in dialog.summary.text() and dialog.listing.toPlainText().splitlines()[0] == "a.txt"
    dialog.include.setText("**/*.txt")
    dialog.exclude.setText("build/*")
    cli = expand_inputs([str(root)], include=["**/*.txt"], exclude=["build/*"])
    assert dialog.files() == cli == [str(root / "a.txt"), str(root / "sub" / "c.txt")]
    # without the window's own filter: exactly the command line's choice
    dialog.include.setText("")
    dialog.exclude.setText("")
    dialog.corpus_only.setChecked(False)
    assert dialog.files() == expand_inputs([str(root)]) and len(dialog.files()) == 6
    dialog.include.setText("*.rst, *.tex")
    assert not ok.isEnabled() and dialog.listing.toPlainText() == ""
    assert "None of the folder's 6 files is chosen: change the globs" in dialog.summary.text()


def test_add_folder_adds_what_the_dialog_chose(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path
) -> None:
    root = folder_tree(tmp_path / "data")
    prompts.answers["corpus_folder"] = [str(root), str(root)]
    prompts.answers["folder_files"] = [None, {"include": ["**/*.txt"], "exclude": ["build/*"]}]
    window.project_panel.choose_folder()  # cancelled in the dialog: nothing is checked or added
    assert not window.file_checker.is_busy() and window.document.project.corpus == []
    with qtbot.waitSignal(window.file_checker.checked, timeout=20_000):
        window.project_panel.choose_folder()
    assert [item.name for item in window.document.project.corpus] == ["a.txt", "c.txt"]
    assert ("folder_files", str(root)) in prompts.asked


def test_the_checker_reports_problems_of_the_new_kinds(qtbot: QtBot, tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl.gz"
    good.write_bytes(gzip.compress(b'{"text": "a"}\n{"text": "b"}\n'))
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"text": "a"}\n{"body": "b"}\n')
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(gzip.compress(b"line\n" * 100_000)[:100])
    checker = FileChecker()
    with qtbot.waitSignal(checker.checked, timeout=20_000) as blocker:
        checker.check([str(tmp_path)])
    checks: list[FileCheck] = blocker.args[0]
    by_name = {Path(check.path).name: check for check in checks}
    assert by_name["good.jsonl.gz"].ok and by_name["good.jsonl.gz"].lines == 2
    assert by_name["bad.jsonl"].problem.startswith("line 2: no field 'text'")
    assert "is truncated" in by_name["cut.txt.gz"].problem


def test_held_out_text_comes_from_the_last_plain_file(tmp_path: Path) -> None:
    plain = tmp_path / "a.txt"
    plain.write_bytes(b"".join(b"line %d of plain text\n" % i for i in range(2000)))
    records = tmp_path / "b.jsonl.gz"
    records.write_bytes(gzip.compress(b"".join(json.dumps({"text": f"record {i}"}).encode() + b"\n" for i in range(500))))
    units, held = held_out_split([str(plain), str(records)], 0.05)
    assert held.endswith("line 1999 of plain text\n") and held.startswith("line ")
    assert units[0] == FileSlice(str(plain), 0, plain.stat().st_size - len(held.encode()))
    assert isinstance(units[1], CorpusSource) and units[1].path == str(records)
    only_records, none = held_out_split([str(records)], 0.05)
    assert none == "" and len(only_records) == 1


class Messages:
    """Stands in for the pipe to the window: keeps the kind of each message."""

    def __init__(self) -> None:
        self.kinds: list[str] = []

    def send(self, message: tuple[object, ...]) -> None:
        self.kinds.append(str(message[0]))


def test_the_training_child_trains_on_a_mix(tmp_path: Path) -> None:
    plain = tmp_path / "a.txt"
    plain.write_bytes(b"".join(b"plain words %d here\n" % (i % 50) for i in range(2000)))
    records = tmp_path / "b.jsonl.gz"
    records.write_bytes(gzip.compress(b"".join(json.dumps({"text": f"record words {i % 40}"}).encode() + b"\n" for i in range(500))))
    tokenizer, trainer = presets.build("bpe", 200)
    job = TrainingJob(tokenizer.to_str(), trainer.to_dict(), [str(plain), str(records)], 0.0, 1)
    sent = Messages()
    result = train(job, sent, multiprocessing.Event())  # (Messages stands in for the pipe)
    assert sent.kinds and set(sent.kinds) <= {"progress", "steps", "evaluation"}
    expected, expected_trainer = presets.build("bpe", 200)
    report = expected.train([str(plain), str(records)], expected_trainer, processes=1)
    assert result.report.history == report.history
    assert result.report.unique_words == report.unique_words
