"""`SentencePieceFields`: the options of sentencepiece's trainer (`SentencePieceTrainer`) in the
Train tab's form, labelled with sentencepiece's own names (character_coverage,
split_by_unicode_script...) and each saying in its tooltip what it does and sentencepiece's default.

The fields only: `TrainerFields` puts them in its form, beside the options every trainer has
(vocab_size, special tokens); the defaults are the engine's (`TRAINER_DEFAULTS`).
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QLineEdit, QSpinBox, QWidget

from engine.schema import JsonValue
from workbench.core.components import SENTENCEPIECE_TRAINER, TRAINER_DEFAULTS

# The largest count a spin box holds (a C int).
MAX_COUNT: Final = 2**31 - 1
# The options every model_type has, in the form's order; then those of "unigram" only.
SHARED_OPTIONS: Final = (
    "unk_piece", "character_coverage", "split_by_unicode_script", "split_by_number", "split_by_whitespace",
    "split_digits", "max_sentencepiece_length", "byte_fallback", "input_sentence_size", "max_sentence_length",
)  # fmt: skip
UNIGRAM_OPTIONS: Final = ("seed_sentencepiece_size", "shrinking_factor", "num_sub_iterations")
# What each option does, in plain words (its tooltip adds sentencepiece's default).
NOTES: Final = {
    "unk_piece": "The piece unknown text becomes; first in the vocabulary unless it is one of the special tokens.",
    "character_coverage": "The share of the text's characters the alphabet covers: the most frequent characters "
    "are kept until they make up this share of all, the rarer ones become the unknown piece (or bytes, with "
    "byte_fallback). sentencepiece suggests 0.9995 for languages with many characters (Chinese, Japanese) "
    "and 1.0 for the others.",
    "split_by_unicode_script": "A piece holds one script only (Latin, Cyrillic, Han…; punctuation and symbols "
    'count as one more), so "fair." is never a piece.',
    "split_by_number": 'With split_by_unicode_script: no piece mixes digits and letters (no "a1"). Off: digits '
    "join the pieces around them.",
    "split_by_whitespace": "The space mark ▁ only begins a piece, so no piece crosses a space. Off: pieces may "
    "span words (▁ anywhere but at a piece's end).",
    "split_digits": "Every digit is a piece of its own: numbers are spelt digit by digit.",
    "max_sentencepiece_length": "The longest piece, in characters.",
    "byte_fallback": "Adds the 256 byte pieces <0x00>…<0xFF> after the special tokens: a character the "
    "vocabulary lacks is spelt as its UTF-8 bytes instead of becoming the unknown piece.",
    "input_sentence_size": "How many lines of the corpus training samples (0: all lines).",
    "max_sentence_length": "The longest line trained on, in UTF-8 bytes: longer lines are left out.",
    "seed_sentencepiece_size": "How many pieces the seed vocabulary (the text's most frequent substrings) "
    "holds before the pruning rounds begin.",
    "shrinking_factor": "The share of pieces each pruning round keeps.",
    "num_sub_iterations": "The EM rounds between two pruning rounds.",
}


def default_text(name: str) -> str:
    """sentencepiece's default of option `name`, as the tooltips say it: "on", "4,192", "0.9995"."""
    value = TRAINER_DEFAULTS[SENTENCEPIECE_TRAINER][name]
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int):
        return "0 (all lines)" if name == "input_sentence_size" and value == 0 else f"{value:,}"
    return str(value)


class SentencePieceFields(QObject):
    """A field for each of sentencepiece's options (`fields`, by option name), filled from a
    SentencePieceTrainer's JSON (`set_options`) and read back (`options`). `edited()` after the
    user changes one."""

    edited = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.unk_piece = QLineEdit()
        self.character_coverage = QDoubleSpinBox()
        self.character_coverage.setRange(0.0, 1.0)
        self.character_coverage.setDecimals(4)
        self.character_coverage.setSingleStep(0.0005)
        self.split_by_unicode_script = QCheckBox()
        self.split_by_number = QCheckBox()
        self.split_by_whitespace = QCheckBox()
        self.split_digits = QCheckBox()
        self.max_sentencepiece_length = _count(1)
        self.byte_fallback = QCheckBox()
        self.input_sentence_size = _count(0)
        self.input_sentence_size.setSpecialValueText("all lines")
        self.max_sentence_length = _count(0)
        self.max_sentence_length.setSuffix(" bytes")
        self.seed_sentencepiece_size = _count(0)
        self.shrinking_factor = QDoubleSpinBox()
        self.shrinking_factor.setRange(0.01, 1.0)
        self.shrinking_factor.setSingleStep(0.05)
        self.shrinking_factor.setDecimals(2)
        self.num_sub_iterations = _count(0)
        self.fields: dict[str, QWidget] = {
            "unk_piece": self.unk_piece,
            "character_coverage": self.character_coverage,
            "split_by_unicode_script": self.split_by_unicode_script,
            "split_by_number": self.split_by_number,
            "split_by_whitespace": self.split_by_whitespace,
            "split_digits": self.split_digits,
            "max_sentencepiece_length": self.max_sentencepiece_length,
            "byte_fallback": self.byte_fallback,
            "input_sentence_size": self.input_sentence_size,
            "max_sentence_length": self.max_sentence_length,
            "seed_sentencepiece_size": self.seed_sentencepiece_size,
            "shrinking_factor": self.shrinking_factor,
            "num_sub_iterations": self.num_sub_iterations,
        }
        for name, widget in self.fields.items():
            widget.setToolTip(f"{NOTES[name]} sentencepiece's default: {default_text(name)}.")
            if isinstance(widget, QCheckBox):
                widget.toggled.connect(self._on_box_toggled)
            elif isinstance(widget, (QSpinBox, QDoubleSpinBox, QLineEdit)):
                widget.editingFinished.connect(self.edited.emit)
        # each option as the JSON gave it, and as its field showed it then
        self._given: dict[str, JsonValue] = {}
        self._shown: dict[str, JsonValue] = {}

    @staticmethod
    def shown_options(model_type: str) -> tuple[str, ...]:
        """The options a trainer of this model_type has a use for (Unigram's seed and EM only
        with "unigram")."""
        return SHARED_OPTIONS + UNIGRAM_OPTIONS if model_type == "unigram" else SHARED_OPTIONS

    def set_options(self, data: dict[str, JsonValue]) -> None:
        """Fill every field from a SentencePieceTrainer's JSON (a missing option: its default)."""
        defaults = TRAINER_DEFAULTS[SENTENCEPIECE_TRAINER]
        for name, widget in self.fields.items():
            value = data.get(name, defaults[name])
            if isinstance(widget, QLineEdit):
                widget.setText(value if isinstance(value, str) else str(defaults[name]))
            elif isinstance(widget, QCheckBox):
                widget.setChecked(value if isinstance(value, bool) else bool(defaults[name]))
            elif isinstance(widget, QDoubleSpinBox):
                number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else defaults[name]
                widget.setValue(float(number) if isinstance(number, (int, float)) else 0.0)
            elif isinstance(widget, QSpinBox):
                count = value if isinstance(value, int) and not isinstance(value, bool) else defaults[name]
                # (held to the box's range: a C int, which a Python int may overflow)
                widget.setValue(min(max(count, widget.minimum()), widget.maximum()) if isinstance(count, int) else 0)
            self._given[name] = value
            self._shown[name] = self._value(name)

    def options(self) -> dict[str, JsonValue]:
        """Every option as its field holds it."""
        options: dict[str, JsonValue] = {}
        for name in self.fields:
            value = self._value(name)
            # subtle: a value its field cannot show as it is (more decimals than the box, beyond
            # its range) stays as given until the user changes the field.
            options[name] = self._given[name] if name in self._given and value == self._shown[name] else value
        return options

    def _on_box_toggled(self, checked: bool) -> None:
        self.edited.emit()

    def _value(self, name: str) -> JsonValue:
        widget = self.fields[name]
        if isinstance(widget, QLineEdit):
            return widget.text()
        if isinstance(widget, QCheckBox):
            return widget.isChecked()
        if isinstance(widget, QDoubleSpinBox):
            return round(widget.value(), widget.decimals())
        if isinstance(widget, QSpinBox):
            return widget.value()
        raise TypeError(f"no value for the field of {name!r}")


def _count(minimum: int) -> QSpinBox:
    """A spin box for a count from `minimum` up, its thousands grouped."""
    spin = QSpinBox()
    spin.setRange(minimum, MAX_COUNT)
    spin.setGroupSeparatorShown(True)
    return spin
