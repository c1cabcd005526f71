"""The Vocabulary tab: the model's rows are the engine's vocabulary; sorting and filtering in the
model; the selected token's merge tree, bytes and words; CSV copy and export."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot
from window_support import train_and_wait, wait_for_view

from engine import Tokenizer, models
from engine.analysis.vocabulary import TokenStyle, VocabularyTable, token_bytes
from engine.corpus.checks import check_file
from workbench.core.packed import VocabularyColumns
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts
from workbench.window.views.vocab_model import CHARS, FREQUENCY, ID, KIND, RANK, TOKEN, VocabularyModel


@pytest.fixture
def trained(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> MainWindow:
    window.new_project()
    window.document.add_checked_files([check_file(str(small_corpus))])
    window.document.add_preset("gpt2", vocab_size=600)
    window.train_tab.held_out.setValue(0.0)
    train_and_wait(qtbot, window)
    window.tabs.setCurrentWidget(window.vocab_tab)
    return window


def column(model: VocabularyModel, index: int) -> list[str]:
    return [str(model.data(model.index(row, index))) for row in range(model.rowCount())]


def test_rows_are_the_engines_vocabulary(trained: MainWindow) -> None:
    model = trained.vocab_tab.model
    view = trained.document.view()
    assert view is not None
    vocab = view.tokenizer.get_vocab()
    assert model.rowCount() == len(vocab) == view.tokenizer.get_vocab_size()
    assert [int(v) for v in column(model, ID)] == sorted(vocab.values())
    by_id = {id: token for token, id in vocab.items()}
    assert [model.table.tokens[model.row_of(model.index(row, 0))] for row in range(model.rowCount())] == [by_id[i] for i in sorted(by_id)]
    kinds = column(model, KIND)
    assert kinds.count("byte") == 256 and kinds.count("special") == 1
    # a byte-level token reads as text: "Ġthe" is shown as "·the"
    the = vocab["Ġthe"]
    assert model.data(model.index(the, TOKEN)) == "·the"
    assert "Ġthe" in str(model.data(model.index(the, TOKEN), Qt.ItemDataRole.ToolTipRole))


def test_sorting_happens_in_the_model(trained: MainWindow) -> None:
    table = trained.vocab_tab.table
    model = trained.vocab_tab.model
    table.sortByColumn(FREQUENCY, Qt.SortOrder.DescendingOrder)
    frequencies = [int(v.replace(",", "")) for v in column(model, FREQUENCY)]
    assert frequencies == sorted(frequencies, reverse=True)
    table.sortByColumn(CHARS, Qt.SortOrder.AscendingOrder)
    chars = [int(v) for v in column(model, CHARS)]
    assert chars == sorted(chars)
    # ties keep id order, in both directions
    ids = [int(v) for v in column(model, ID)]
    assert all(ids[i] < ids[i + 1] for i in range(len(ids) - 1) if chars[i] == chars[i + 1])
    table.sortByColumn(CHARS, Qt.SortOrder.DescendingOrder)
    chars = [int(v) for v in column(model, CHARS)]
    ids = [int(v) for v in column(model, ID)]
    assert chars == sorted(chars, reverse=True)
    assert all(ids[i] < ids[i + 1] for i in range(len(ids) - 1) if chars[i] == chars[i + 1])
    table.sortByColumn(RANK, Qt.SortOrder.AscendingOrder)
    assert column(model, RANK)[-1] != ""


@pytest.mark.parametrize(
    ("mode", "text", "match_case", "check"),
    [
        ("contains", "the", False, lambda shown, raw: "the" in shown.lower() or "the" in raw.lower()),
        ("contains", "The", True, lambda shown, raw: "The" in shown or "The" in raw),
        ("starts with", "·th", False, lambda shown, raw: shown.lower().startswith("·th") or raw.lower().startswith("·th")),
        ("regex", r"ing$", False, lambda shown, raw: shown.endswith("ing") or raw.endswith("ing")),
    ],
)
def test_filtering_keeps_exactly_the_matching_rows(trained: MainWindow, mode: str, text: str, match_case: bool, check: object) -> None:
    tab = trained.vocab_tab
    tab.mode.setCurrentText(mode)
    tab.match_case.setChecked(match_case)
    tab.filter.setText(text)
    model = tab.model
    table = model.table
    kept = {model.row_of(model.index(row, 0)) for row in range(model.rowCount())}
    assert callable(check)
    expected = {i for i in range(len(table)) if check(table.shown[i], table.tokens[i])}
    assert kept == expected and kept
    assert f"{len(kept):,} of {len(table):,}" in tab.count.text()


def test_a_bad_regex_is_explained_and_keeps_every_row(trained: MainWindow) -> None:
    tab = trained.vocab_tab
    tab.mode.setCurrentText("regex")
    tab.filter.setText("(unclosed")
    assert "not a valid regex" in tab.filter_error.text() and not tab.filter_error.isHidden()
    assert tab.model.rowCount() == len(tab.model.table)


def test_selecting_a_token_shows_how_it_was_built(trained: MainWindow) -> None:
    tab = trained.vocab_tab
    view = trained.document.view()
    entry = trained.document.active
    assert view is not None and entry is not None and entry.report is not None
    last = entry.report.history.merges[-1]
    assert tab.select_token(last.new_id)
    assert tab.title.text() == tab.model.table.shown[tab.model.table.ids.index(last.new_id)]
    root = tab.tree.topLevelItem(0)
    assert root is not None and root.childCount() == 2
    assert root.text(1) == f"{last.index:,}" and root.text(2) == f"{last.count:,}"
    expected = token_bytes(last.new_token, TokenStyle.of(view.tokenizer))
    assert tab.hex.text() == " ".join(f"{b:02X}" for b in expected)
    assert tab.examples.count() >= 1


def test_copy_and_export_give_the_visible_rows_as_csv(trained: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    tab = trained.vocab_tab
    tab.filter.setText("ing")
    tab.copy_rows()
    rows = list(csv.reader(io.StringIO(QGuiApplication.clipboard().text())))
    assert rows[0][:3] == ["id", "token", "raw"] and len(rows) == tab.model.rowCount() + 1
    target = tmp_path / "vocab.csv"
    prompts.answers["export_file"] = str(target)
    tab.export_csv()
    assert list(csv.reader(io.StringIO(target.read_text(encoding="utf-8")))) == rows


def test_an_untrained_tokenizer_says_what_to_do(window: MainWindow) -> None:
    window.new_project()
    window.document.add_preset("bpe")
    assert "not trained yet" in window.vocab_tab.empty.text()
    assert window.vocab_tab.stack.currentWidget() is window.vocab_tab.empty


def test_whitespace_glyphs_can_be_turned_off(qtbot: QtBot, trained: MainWindow) -> None:
    model = trained.vocab_tab.model
    view = trained.document.view()
    assert view is not None
    the = view.tokenizer.get_vocab()["Ġthe"]
    trained.whitespace_action.trigger()
    wait_for_view(qtbot, trained)  # (the table is made again, with spaces shown as spaces)
    assert trained.vocab_tab.model.data(model.index(the, TOKEN)) == " the"
    trained.whitespace_action.trigger()
    wait_for_view(qtbot, trained)
    assert trained.vocab_tab.model.data(model.index(the, TOKEN)) == "·the"


def test_a_large_vocabulary_sorts_and_filters_in_the_model() -> None:
    # 250,000 rows: the model never builds a widget per row, and sorts with NumPy.
    vocab = {f"tok{i:06d}": i for i in range(250_000)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="tok000000"))
    model = VocabularyModel()
    model.set_table(VocabularyColumns.of(VocabularyTable.of(tokenizer)))
    assert model.rowCount() == 250_000
    model.sort(TOKEN, Qt.SortOrder.DescendingOrder)
    assert model.data(model.index(0, TOKEN)) == "tok249999"
    model.set_filter("99999", "contains")
    assert [model.data(model.index(row, TOKEN)) for row in range(model.rowCount())] == ["tok199999", "tok099999"]


def test_invisible_characters_are_named_and_a_cluster_is_one_cell(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    family = "👩\u200d👩\u200d👧"
    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "\u200d": 1, "👩\u200d": 2, family: 3, "\u00a0": 4}, unk_token="[UNK]"))
    path = tmp_path / "invisible.json"
    tokenizer.save(str(path))
    assert window.open_file(str(path))
    wait_for_view(qtbot, window)
    tab = window.vocab_tab
    # (the ZWJs inside the family join it: they stay, and it is drawn whole)
    assert column(tab.model, TOKEN) == ["[UNK]", "⟨ZWJ⟩", "👩⟨ZWJ⟩", family, "⟨NBSP⟩"]
    # the filter finds them by name, and the details name them too
    tab.filter.setText("zwj")
    assert column(tab.model, ID) == ["1", "2"]
    tab.filter.clear()
    assert tab.select_token(1)
    assert tab.title.text() == "⟨ZWJ⟩" and tab.hex.text() == "E2 80 8D"
    assert "raw '\\u200d'" in tab.facts.text()
