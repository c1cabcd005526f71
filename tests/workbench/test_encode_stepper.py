"""The Encode tab's Step Through page: it follows the cursor to the word under it, shows the steps
the engine works out for it (`engine.analysis.encode_steps`), one at a time with Step, Back and
Run, draws each model's state, and steps through a toy vocabulary typed in the page (its lines
checked, an error naming the line)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QTextCursor
from pytestqt.qtbot import QtBot

from engine import Tokenizer, models
from engine.analysis.encode_steps import bpe_trace, wordpiece_trace
from engine.analysis.lattice_steps import unigram_trace
from support import SAMPLE_FOLDER, train_byte_level
from window_support import cell_text
from workbench.core.toy_models import BPE, UNIGRAM, WORDPIECE, ToyError, bpe, toy_tokenizer, unigram, wordpiece
from workbench.window.main_window import MainWindow
from workbench.window.tabs.encode import STEP_PAGE
from workbench.window.views.encode_stepper import EncodeStepper

WAIT_MS = 30_000


def stepper_on(window: MainWindow) -> EncodeStepper:
    window.tabs.setCurrentWidget(window.encode_tab)
    window.encode_tab.pages.setCurrentIndex(STEP_PAGE)
    return window.encode_tab.stepper


def put_cursor(window: MainWindow, text: str, at: int) -> None:
    editor = window.encode_tab.editor
    if editor.text() != text:
        editor.set_text(text)
    cursor = editor.textCursor()
    cursor.setPosition(at)
    editor.setTextCursor(cursor)


def texts(stepper: EncodeStepper) -> list[str]:
    return [str(step["text"]) for step in stepper.steps]


def choose_toy(qtbot: QtBot, stepper: EncodeStepper, kind: str, vocabulary: str | None, word: str) -> None:
    stepper.toy.setChecked(True)
    stepper.toy_kind.setCurrentIndex(stepper.toy_kind.findData(kind))
    if vocabulary is not None:
        stepper.toy_text.setPlainText(vocabulary)
    stepper.toy_word.setText(word)
    qtbot.waitUntil(stepper.is_current, timeout=WAIT_MS)


def test_the_page_follows_the_cursor_and_steps_through_berts_lookups(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    path = corpora / "bert_uncased_tokenizer.json"
    assert window.open_file(str(path))
    stepper = stepper_on(window)
    text = "The players were playing unaffably today."
    put_cursor(window, text, text.index("unaffably") + 3)
    qtbot.waitUntil(lambda: stepper.is_current() and stepper.wire.get("word") == "unaffably", timeout=WAIT_MS)
    model = Tokenizer.from_file(str(path)).model
    assert isinstance(model, models.WordPiece)
    expected = wordpiece_trace(model, "unaffably")
    # the page shows the engine's steps, from the first, and says where the word is
    assert texts(stepper) == [step.text for step in expected.steps]
    assert stepper.position == 0 and stepper.counter.text() == f"Step 1 of {len(expected.steps)}"
    assert "'unaffably'" in stepper.heading.text() and "characters 25–34" in stepper.heading.text()
    assert not stepper.back_button.isEnabled() and stepper.step_button.isEnabled()
    # Step: each lookup in turn, the window outlined on the word, the table growing
    for number in range(1, 4):
        stepper.step_button.click()
        assert stepper.description.text() == expected.steps[number].text
        lookup = expected.lookups[number - 1]
        assert stepper.word_window.looked_up == (lookup.start, lookup.end, lookup.piece, lookup.id)
        assert stepper.lookups.rowCount() == number and cell_text(stepper.lookups, number - 1, 1) == lookup.piece
    stepper.back_button.click()
    assert stepper.position == 2 and stepper.lookups.rowCount() == 2
    # Run plays the steps to the end: the model's tokens, each found piece shaded
    stepper.run_button.click()
    qtbot.waitUntil(stepper.at_end, timeout=WAIT_MS)
    assert stepper.run_button.text() == "Run" and not stepper.step_button.isEnabled()
    assert stepper.description.text() == expected.steps[-1].text and expected.steps[-1].text.startswith("Done: 'unaffably' →")
    assert stepper.word_window.tokens == expected.tokens == [(t.id, t.value, t.start, t.end) for t in model.tokenize("unaffably")]
    assert stepper.lookups.rowCount() == len(expected.lookups)
    # the cursor moved to another word: its steps, from the first again
    put_cursor(window, text, text.index("players") + 1)
    qtbot.waitUntil(lambda: stepper.is_current() and stepper.wire.get("word") == "players", timeout=WAIT_MS)
    assert stepper.position == 0 and texts(stepper) == [step.text for step in wordpiece_trace(model, "players").steps]


def test_an_added_token_under_the_cursor_is_explained(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    assert window.open_file(str(corpora / "bert_uncased_tokenizer.json"))
    stepper = stepper_on(window)
    put_cursor(window, "hello [SEP] world", 8)
    qtbot.waitUntil(lambda: stepper.is_current() and "added token" in stepper.message.text(), timeout=WAIT_MS)
    assert "'[SEP]' is an added token (id 102)" in stepper.message.text()
    assert stepper.drawings.currentWidget() is stepper.message and stepper.counter.text() == ""


def test_a_byte_level_bpe_merges_as_its_model(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    lines = (SAMPLE_FOLDER / "shakespeare.txt").read_text(encoding="utf-8").splitlines()[:3000]
    tokenizer = train_byte_level(lines, 600)
    path = tmp_path / "byte-level.json"
    tokenizer.save(str(path))
    assert window.open_file(str(path))
    stepper = stepper_on(window)
    text = "my lord, the kingdom's lowest"
    put_cursor(window, text, text.index("kingdom") + 2)
    # (GPT-2's pattern cuts "'s" off; the space goes with the word, as Ġ)
    qtbot.waitUntil(lambda: stepper.is_current() and stepper.wire.get("word") == "Ġkingdom", timeout=WAIT_MS)
    model = tokenizer.model
    assert isinstance(model, models.BPE)
    expected = bpe_trace(model, "Ġkingdom")
    assert texts(stepper) == [step.text for step in expected.steps] and len(expected.merges) >= 2
    assert "Byte-level" in stepper.heading.text() and "characters 12–20" in stepper.heading.text()
    stepper.step()
    # one row per merge shown, the merged token lit, the table listing the merge with its rank
    assert len(stepper.symbol_rows.rows) == 2 and stepper.symbol_rows.merged == [(expected.merges[0].position, expected.merges[0].rank)]
    assert cell_text(stepper.merges, 0, 2) == f"{expected.merges[0].rank:,}"
    stepper.run()
    qtbot.waitUntil(stepper.at_end, timeout=WAIT_MS)
    assert stepper.symbol_rows.rows[-1] == expected.tokens
    run = model.tokenize_run("Ġkingdom")
    assert expected.tokens == [(run.ids[k], run.values[k], run.starts[k], run.ends[k]) for k in range(len(run.ids))]
    assert stepper.merges.rowCount() == len(expected.merges)


def test_a_toy_wordpiece_cuts_playing_into_play_ing(qtbot: QtBot, window: MainWindow) -> None:
    stepper = stepper_on(window)
    # no tokenizer in the project: the page says what to do
    qtbot.waitUntil(lambda: "No trained tokenizer" in stepper.message.text(), timeout=WAIT_MS)
    choose_toy(qtbot, stepper, WORDPIECE, "play\n##ing\n", "playing")
    assert [str(step["text"]).split(":")[0] for step in stepper.steps[1:6]] == [
        "Look up 'playing' (characters 0–7)", "Look up 'playin' (characters 0–6)", "Look up 'playi' (characters 0–5)",
        "Look up 'play' (characters 0–4)", "Look up '##ing' (characters 4–7)",
    ]  # fmt: skip
    assert texts(stepper)[-1] == "Done: 'playing' → play ##ing (2 tokens, ids 1, 2)."
    assert "toy vocabulary" in stepper.heading.text() and "typed in the toy's Word box" in stepper.heading.text()
    stepper.run()
    qtbot.waitUntil(stepper.at_end, timeout=WAIT_MS)
    assert stepper.word_window.tokens == [(1, "play", 0, 4), (2, "##ing", 4, 7)]
    # a missing continuation: the whole word is [UNK], painted as unknown
    stepper.toy_word.setText("plays")
    qtbot.waitUntil(lambda: stepper.is_current() and stepper.wire.get("word") == "plays", timeout=WAIT_MS)
    stepper.run()
    qtbot.waitUntil(stepper.at_end, timeout=WAIT_MS)
    assert stepper.word_window.unknown and stepper.word_window.tokens == [(0, "[UNK]", 0, 5)]
    # with the Word box empty, the word under the cursor, cut at spaces
    stepper.toy_word.setText("")
    put_cursor(window, "we were playing", 10)
    qtbot.waitUntil(lambda: stepper.is_current() and stepper.wire.get("word") == "playing", timeout=WAIT_MS)
    assert "characters 8–15" in stepper.heading.text()


def test_a_toy_unigram_draws_the_textbook_lattice(qtbot: QtBot, window: MainWindow) -> None:
    stepper = stepper_on(window)
    choose_toy(qtbot, stepper, UNIGRAM, None, "cats")  # (the example vocabulary: ▁cat -2.0, s -2.5...)
    model = toy_tokenizer(UNIGRAM, stepper.toy_text.toPlainText()).model
    assert isinstance(model, models.Unigram)
    expected = unigram_trace(model, "▁cats", seed=0)
    assert stepper.wire.get("word") == "▁cats" and texts(stepper) == [step.text for step in expected.steps]
    assert [float(b) for b in stepper.wire["best"]] == [0.0, -3.0, -5.0, -6.0, -2.0, -4.5]  # type: ignore[attr-defined]
    for _ in range(3):
        stepper.step()
    # position 3 filled: best scores up to it, its back-pointer outlined, the rest still to come
    drawing = stepper.lattice
    assert (drawing.filled, drawing.current, drawing.lit) == (3, 3, 0)
    assert drawing.nodes[drawing.back[3]][3] == "▁ca"
    stepper.run()
    qtbot.waitUntil(stepper.at_end, timeout=WAIT_MS)
    assert [drawing.nodes[node][3] for node in drawing.lit_nodes()] == ["▁cat", "s"]
    assert texts(stepper)[-1] == "Done: '▁cats' → ▁cat s (2 tokens, ids 4, 8)."
    # the n best paths and the samples, as the engine gives them
    assert stepper.nbest.rowCount() == 5 and cell_text(stepper.nbest, 0, 1) == "▁cat s" and cell_text(stepper.nbest, 0, 2) == "-4.50"
    sampled = [cell_text(stepper.samples, row, 1) for row in range(stepper.samples.rowCount())]
    assert sampled == [" ".join(expected.pieces(path)) for path, _ in expected.samples]
    # another seed draws others; the first seed again draws the same
    stepper.seed.setValue(12345)
    qtbot.waitUntil(lambda: stepper.is_current() and stepper.wire.get("seed") == 12345, timeout=WAIT_MS)
    assert stepper.at_end()  # (the same word: the step it was at stays)
    stepper.seed.setValue(0)
    qtbot.waitUntil(lambda: stepper.is_current() and stepper.wire.get("seed") == 0, timeout=WAIT_MS)
    assert [cell_text(stepper.samples, row, 1) for row in range(stepper.samples.rowCount())] == sampled


def test_a_toy_bpe_merges_lowest_into_low_est(qtbot: QtBot, window: MainWindow) -> None:
    stepper = stepper_on(window)
    choose_toy(qtbot, stepper, BPE, None, "lowest")  # (the example merges: e s, es t, l o, lo w, ...)
    stepper.run()
    qtbot.waitUntil(stepper.at_end, timeout=WAIT_MS)
    rows = stepper.symbol_rows.rows
    assert [[token for _, token, _, _ in row] for row in rows] == [
        list("lowest"), ["l", "o", "w", "es", "t"], ["l", "o", "w", "est"], ["lo", "w", "est"], ["low", "est"],
    ]  # fmt: skip
    assert [cell_text(stepper.merges, row, 2) for row in range(4)] == ["0", "1", "2", "3"]
    assert texts(stepper)[-1].endswith("'lowest' → low est (2 tokens, ids 13, 11).")


def test_a_malformed_toy_vocabulary_names_its_line(qtbot: QtBot, window: MainWindow) -> None:
    stepper = stepper_on(window)
    choose_toy(qtbot, stepper, UNIGRAM, "▁cat\t-2.0\ns\tmany\n", "cats")
    assert stepper.message.text() == "line 2: the score 'many' of 's' is not a number (a log probability, as -2.0)"
    stepper.toy_kind.setCurrentIndex(stepper.toy_kind.findData(BPE))
    stepper.toy_text.setPlainText("l o\nlow est\n")
    qtbot.waitUntil(lambda: stepper.is_current() and "line 2" in stepper.message.text(), timeout=WAIT_MS)
    assert stepper.message.text() == "line 2: 'low' is neither one character nor made by a merge above it"


# -- the toy vocabularies' syntax --------------------------------------------------------------


def test_toy_vocabularies_read_their_syntax() -> None:
    model = wordpiece(" play \n\n##ing\n")
    assert model.get_vocab() == {"[UNK]": 0, "play": 1, "##ing": 2}
    assert wordpiece("a\n[UNK]\n").get_vocab() == {"a": 0, "[UNK]": 1}
    pieces = unigram("▁cat\t-2.0\ns   -2.5\n")
    assert pieces.pieces == [("<unk>", 0.0), ("▁cat", -2.0), ("s", -2.5)] and pieces.unk_id == 0
    merges = bpe("#version: 0.2\nl o\nlo w\n")
    assert merges.get_vocab() == {"[UNK]": 0, "l": 1, "o": 2, "w": 3, "lo": 4, "low": 5}
    assert merges.merges == [("l", "o"), ("lo", "w")]
    # a Unigram whose pieces mark word starts reads each word with ▁ in front; others as typed
    assert toy_tokenizer(UNIGRAM, "▁a\t-1\n").encode("a a").tokens == ["▁a", "▁a"]
    assert toy_tokenizer(UNIGRAM, "a\t-1\n").encode("a a").tokens == ["a", "a"]


@pytest.mark.parametrize(
    ("kind", "text", "message"),
    [
        (WORDPIECE, "play\nplay ing\n", "line 2: 'play ing' holds a space; a WordPiece toy has one token per line"),
        (WORDPIECE, "a\n\nb\na\n", "line 4: the token 'a' is already on line 1"),
        (WORDPIECE, "\n \n", "no token yet: type one token per line (play, then ##ing)"),
        (UNIGRAM, "▁cat\n", "line 1: '▁cat' needs a score after the piece: piece<TAB>score, as ▁cat<TAB>-2.0"),
        (UNIGRAM, "a\t-1\nb\tinf\n", "line 2: the score of 'b' must be a finite number, not 'inf'"),
        (UNIGRAM, "a b\t-1\n", "line 1: the piece 'a b' holds a space; write piece<TAB>score, one a line"),
        (BPE, "l o w\n", "line 1: 'l o w' is not a merge: two tokens with a space between, as l o"),
        (BPE, "l o\nl o\n", "line 2: the merge 'l o' is already on line 1"),
        (BPE, "", "no merge yet: type one merge per line (l o, then lo w)"),
        ("wordlevel", "a\n", "no toy vocabulary of kind 'wordlevel': WordPiece, Unigram, BPE"),
    ],
)
def test_a_toy_line_that_does_not_fit_is_named(kind: str, text: str, message: str) -> None:
    with pytest.raises(ToyError) as raised:
        toy_tokenizer(kind, text)
    assert str(raised.value) == message


def test_the_editor_reports_the_cursor_in_characters(qtbot: QtBot, window: MainWindow) -> None:
    # (Qt counts an emoji as two: the page asks the encoding process in characters)
    text = "😀 playing"
    put_cursor(window, text, 4)
    editor = window.encode_tab.editor
    assert editor.textCursor().position() == 4 and editor.cursor_character() == 3
    cursor = editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    editor.setTextCursor(cursor)
    assert editor.cursor_character() == len(text)
