"""The Train form's BPE trainer fields: the end-of-word marker as a separate symbol, a checkbox
enabled only with an end-of-word suffix, and the trainer's JSON written back as it was given."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine import trainers
from engine.schema import JsonValue
from workbench.window.views.trainer_fields import END_OF_WORD_SYMBOL, NO_END_OF_WORD_SYMBOL, TrainerFields


def fields_of(qtbot: QtBot, trainer: dict[str, JsonValue]) -> TrainerFields:
    fields = TrainerFields()
    qtbot.addWidget(fields)
    fields.set_trainer(trainer)
    return fields


def test_the_box_is_the_option_and_the_json_comes_back_as_given(qtbot: QtBot) -> None:
    given = trainers.BpeTrainer(vocab_size=300, end_of_word_suffix="</w>", end_of_word_symbol=True).to_dict()
    fields = fields_of(qtbot, given)
    box = fields.end_of_word_symbol
    assert box.text() == END_OF_WORD_SYMBOL
    assert fields.form.isRowVisible(box) and box.isEnabled() and box.isChecked()
    assert "glues the suffix to the last character" in box.toolTip()
    assert fields.trainer() == given
    # user action -> the trainer's JSON (and the edited signal)
    with qtbot.waitSignal(fields.edited, timeout=1000):
        box.setChecked(False)
    assert fields.trainer() == {**given, "end_of_word_symbol": False}
    assert trainers.from_dict(fields.trainer()).to_dict() == fields.trainer()


def test_without_a_suffix_the_box_is_disabled_and_says_why(qtbot: QtBot) -> None:
    given = trainers.BpeTrainer(vocab_size=300).to_dict()
    fields = fields_of(qtbot, given)
    box = fields.end_of_word_symbol
    assert not box.isEnabled() and not box.isChecked() and box.toolTip() == NO_END_OF_WORD_SYMBOL
    assert fields.trainer() == given
    fields.suffix.setText("</w>")  # typing a suffix enables it
    assert box.isEnabled() and box.toolTip() != NO_END_OF_WORD_SYMBOL
    box.setChecked(True)
    assert fields.trainer()["end_of_word_symbol"] is True
    fields.suffix.setText("")  # and clearing it turns the option off: it needs a suffix
    assert not box.isEnabled()
    assert fields.trainer()["end_of_word_symbol"] is False and fields.trainer()["end_of_word_suffix"] is None


def test_only_the_bpe_trainer_shows_the_box(qtbot: QtBot) -> None:
    fields = fields_of(qtbot, {"type": "WordPieceTrainer"})
    assert not fields.form.isRowVisible(fields.end_of_word_symbol)
    assert "end_of_word_symbol" not in fields.trainer()
