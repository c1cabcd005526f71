"""`TrainerFields`: the trainer's options in the Train tab's form, proper fields for only those
the chosen trainer has (HF's BpeTrainer, WordLevelTrainer, WordPieceTrainer, UnigramTrainer, or
sentencepiece's SentencePieceTrainer for a BPE or Unigram model), each filled from the trainer's
JSON and written back to it.

The trainer only: the pipeline's stages are `StageEditor`s and `PipelineForm` holds them all;
sentencepiece's options are `SentencePieceFields`; the engine (`trainers.from_dict`) says
whether the trainer's settings hold.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QLabel, QLineEdit, QSpinBox, QWidget

from engine import pre_tokenizers
from engine.schema import JsonValue
from engine.trainers.base import DEFAULT_VOCAB_SIZE
from workbench.core.components import (
    SENTENCEPIECE_MODEL_TYPE,
    SENTENCEPIECE_TRAINER,
    TRAINER_DEFAULTS,
    TRAINER_LIBRARIES,
    trainer_algorithm,
    trainer_for,
    trainer_library,
)
from workbench.window.views.sentencepiece_fields import SentencePieceFields
from workbench.window.views.stage_editor import error_label

MAX_VOCAB: Final = 1_114_111
# The optional rows of the trainer's form each trainer shows.
TRAINER_ROWS: Final[dict[str, tuple[str, ...]]] = {
    "BpeTrainer": (
        "limit_alphabet", "initial_alphabet", "max_token_length", "continuing_subword_prefix", "end_of_word_suffix",
        "end_of_word_symbol",
    ),
    "WordLevelTrainer": (),
    "WordPieceTrainer": ("limit_alphabet", "continuing_subword_prefix", "scoring", "scoring_note"),
    "UnigramTrainer": ("unk_token", "shrinking_factor", "max_piece_length", "n_sub_iterations", "seed_size"),
}
# WordPiece's scorings: what the trainer's JSON says (`WordPieceTrainer.scoring`), what the
# form's Scoring field shows, and the note beneath it.
# subtle: the course's ratio is "likelihood" in the JSON (every project written so far says so);
# only the field calls it the ratio.
SCORINGS: Final = {
    "likelihood": (
        "ratio (the HF course)",
        "Merge the pair with the highest count(ab) / (count(a) × count(b)), the score the HF course teaches. "
        "Pairs of rare symbols score highest (a pair seen once, of symbols seen once, scores 1), so rare "
        "words are merged whole before common pieces. Saved as scoring \"likelihood\", its earlier name.",
    ),
    "likelihood_gain": (
        "likelihood gain (the WordPiece paper)",
        "Merge the pair whose merge raises the corpus log-likelihood most under a unigram model of the "
        "symbols, as the WordPiece paper does: about count(ab) × log(count(ab) × N / (count(a) × count(b))) "
        "− count(ab), N all symbols (computed exactly): the course's ratio times N, logged and weighted by how "
        "often the pair occurs, so frequent pieces come before rare words.",
    ),
    "frequency": (
        "frequency (HF's WordPieceTrainer)",
        "Merge the most frequent pair (BPE with ## continuations), as HF's WordPieceTrainer does: "
        "the same vocabulary as HF.",
    ),
}
SCORING_NOTES: Final = {scoring: note for scoring, (_, note) in SCORINGS.items()}
# Why a trainer has no minimum frequency: what the field says, and its tooltip.
NO_MIN_FREQUENCY: Final = {
    "UnigramTrainer": (
        "not used by Unigram",
        "Unigram has no minimum frequency: it starts from the frequent substrings and prunes the pieces "
        "whose removal costs the corpus likelihood least.",
    ),
    SENTENCEPIECE_TRAINER: (
        "not in sentencepiece",
        "sentencepiece has no minimum frequency: vocab_size alone says how many pieces it keeps, and "
        "character_coverage which characters.",
    ),
}
# (short, so the form stays narrow; the tooltip says the rest)
END_OF_WORD_SYMBOL: Final = "as a symbol of its own: l o w </w>"
END_OF_WORD_SYMBOL_TIP: Final = (
    "As subword-nmt and the textbooks write words: each word starts as its characters followed by the "
    "end-of-word suffix as a symbol of its own, so "
    "merges such as est + </w> are learned as the guides show them. HF's BpeTrainer glues the suffix to "
    "the last character instead (l o w</w>). HF tokenizers has no such option: a tokenizer.json with it "
    "encodes differently there."
)
NO_END_OF_WORD_SYMBOL: Final = "Needs an end-of-word suffix (such as </w>): the separate symbol is that suffix."
LIBRARY_TIP: Final = (
    "Whose trainer trains the model: HF tokenizers' (BpeTrainer, UnigramTrainer, with HF's options) or "
    "sentencepiece's (its spm_train options and defaults). Switching keeps the vocabulary size and the "
    "special tokens."
)
NO_LIBRARY_CHOICE: Final = "sentencepiece trains BPE and Unigram models only."


class TrainerFields(QWidget):
    """The trainer's options, only those the chosen trainer has (a field the form does not
    show keeps the value it came with). For a BPE or Unigram model, `library` chooses whose
    trainer trains it: HF tokenizers' or sentencepiece's."""

    edited = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.kind = "BpeTrainer"
        self._data: dict[str, JsonValue] = dict(TRAINER_DEFAULTS[self.kind])
        self.library = QComboBox()
        self.library.addItems(list(TRAINER_LIBRARIES))
        self.library.setToolTip(LIBRARY_TIP)
        self.library_note = QLabel(NO_LIBRARY_CHOICE)
        self.library_note.setWordWrap(True)
        self.library_note.setEnabled(False)
        self.vocab_size = QSpinBox()
        self.vocab_size.setRange(1, MAX_VOCAB)
        self.vocab_size.setGroupSeparatorShown(True)
        self.min_frequency = QSpinBox()
        self.min_frequency.setRange(0, 1_000_000_000)
        self.special_tokens = QLineEdit()
        self.special_tokens.setPlaceholderText("comma-separated, e.g. [UNK], [PAD]")
        self.limit_alphabet = QSpinBox()
        self.limit_alphabet.setRange(0, MAX_VOCAB)
        self.limit_alphabet.setSpecialValueText("no limit")
        self.byte_alphabet = QCheckBox("start from all 256 byte-level characters")
        self.max_token_length = QSpinBox()
        self.max_token_length.setRange(0, 10_000)
        self.max_token_length.setSpecialValueText("no limit")
        self.prefix = QLineEdit()
        self.suffix = QLineEdit()
        self.suffix.setPlaceholderText("none (e.g. </w>)")
        self.end_of_word_symbol = QCheckBox(END_OF_WORD_SYMBOL)
        self.scoring = QComboBox()
        for scoring, (label, note) in SCORINGS.items():
            self.scoring.addItem(label, scoring)
            self.scoring.setItemData(self.scoring.count() - 1, note, Qt.ItemDataRole.ToolTipRole)
        self.scoring_note = QLabel()
        self.scoring_note.setWordWrap(True)
        self.scoring_note.setEnabled(False)
        self.unk_token = QLineEdit()
        self.unk_token.setPlaceholderText("none (e.g. <unk>)")
        self.shrinking_factor = QDoubleSpinBox()
        self.shrinking_factor.setRange(0.01, 1.0)
        self.shrinking_factor.setSingleStep(0.05)
        self.shrinking_factor.setDecimals(2)
        self.shrinking_factor.setToolTip("The share of pieces each pruning round keeps")
        self.max_piece_length = QSpinBox()
        self.max_piece_length.setRange(1, 10_000)
        self.max_piece_length.setToolTip("The longest piece, in characters")
        self.n_sub_iterations = QSpinBox()
        self.n_sub_iterations.setRange(0, 100)
        self.n_sub_iterations.setToolTip("EM rounds between two pruning rounds")
        self.seed_size = QSpinBox()
        self.seed_size.setRange(1, 100_000_000)
        self.seed_size.setGroupSeparatorShown(True)
        self.seed_size.setToolTip("The most pieces the seed vocabulary (frequent substrings) holds")
        self.sentencepiece = SentencePieceFields(self)
        self.error = error_label()
        # why the last training refused the vocabulary size (beneath the field, until a training
        # succeeds: `show_refusal`)
        self.vocab_size_error = error_label()
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.addRow("Trainer", self.library)
        self.form.addRow(self.library_note)
        self.form.addRow("Vocabulary size", self.vocab_size)
        self.form.addRow("", self.vocab_size_error)
        self.form.setRowVisible(self.vocab_size_error, False)
        self.form.addRow("Min frequency", self.min_frequency)
        self.form.addRow("Special tokens", self.special_tokens)
        self.form.addRow("Unknown token", self.unk_token)
        # (sentencepiece's options under its own names, as spm_train takes them)
        for name, widget in self.sentencepiece.fields.items():
            self.form.addRow(name, widget)
        self.form.addRow("Limit alphabet", self.limit_alphabet)
        self.form.addRow("Initial alphabet", self.byte_alphabet)
        self.form.addRow("Max token length", self.max_token_length)
        self.form.addRow("Continuing prefix", self.prefix)
        self.form.addRow("End-of-word suffix", self.suffix)
        self.form.addRow("", self.end_of_word_symbol)  # (beneath the suffix it is about)
        self.form.addRow("Scoring", self.scoring)
        self.form.addRow(self.scoring_note)
        self.form.addRow("Shrinking factor", self.shrinking_factor)
        self.form.addRow("Max piece length", self.max_piece_length)
        self.form.addRow("EM sub-iterations", self.n_sub_iterations)
        self.form.addRow("Seed size", self.seed_size)
        self.form.addRow(self.error)
        for spin in (
            self.vocab_size, self.min_frequency, self.limit_alphabet, self.max_token_length,
            self.shrinking_factor, self.max_piece_length, self.n_sub_iterations, self.seed_size,
        ):
            spin.editingFinished.connect(self.edited.emit)
        for edit in (self.special_tokens, self.prefix, self.suffix, self.unk_token):
            edit.editingFinished.connect(self.edited.emit)
        self.byte_alphabet.toggled.connect(self._on_byte_alphabet_toggled)
        self.scoring.currentIndexChanged.connect(self._on_scoring_changed)
        self.suffix.textChanged.connect(self._on_suffix_changed)
        self.end_of_word_symbol.toggled.connect(self._on_end_of_word_symbol_toggled)
        self.library.currentTextChanged.connect(self._on_library_changed)
        self.sentencepiece.edited.connect(self.edited.emit)
        self._initial_alphabet: list[str] = []
        # the special tokens as the JSON gave them, and as the field showed them then
        self._given_specials: JsonValue = []
        self._shown_specials = ""
        self._uses_min_frequency = True

    def set_trainer(self, data: dict[str, JsonValue] | None) -> None:
        data = data if data is not None else {"type": "BpeTrainer"}
        for widget in self.findChildren(QWidget):
            widget.blockSignals(True)
        self.kind = str(data.get("type", "BpeTrainer"))
        defaults = TRAINER_DEFAULTS.get(self.kind, {})
        # subtle: only the fields this trainer has; a BPE field would linger in a Unigram trainer.
        self._data = {key: data.get(key, value) for key, value in defaults.items()} if defaults else dict(data)
        self._data["type"] = self.kind
        get = self._data.get
        self.vocab_size.setValue(_int(get("vocab_size"), DEFAULT_VOCAB_SIZE))
        specials = get("special_tokens")
        names: list[str] = []
        if isinstance(specials, list):
            for item in specials:
                names.append(item if isinstance(item, str) else str(item.get("content")) if isinstance(item, dict) else "")
        self.special_tokens.setText(", ".join(name for name in names if name))
        self._given_specials = specials if isinstance(specials, list) else []
        self._shown_specials = self.special_tokens.text()
        self.limit_alphabet.setValue(_int(get("limit_alphabet"), 0))
        alphabet = get("initial_alphabet")
        self._initial_alphabet = [c for c in alphabet if isinstance(c, str)] if isinstance(alphabet, list) else []
        self.byte_alphabet.setChecked(set(pre_tokenizers.ByteLevel.alphabet()) <= set(self._initial_alphabet))
        self.max_token_length.setValue(_int(get("max_token_length"), 0))
        self.prefix.setText(str(get("continuing_subword_prefix") or ""))
        self.prefix.setPlaceholderText("##" if self.kind == "WordPieceTrainer" else "none (WordPiece-style: ##)")
        self.suffix.setText(str(get("end_of_word_suffix") or ""))
        self.end_of_word_symbol.setChecked(get("end_of_word_symbol") is True)
        self._on_suffix_changed(self.suffix.text())
        scoring = str(get("scoring") or "likelihood")
        self.scoring.setCurrentIndex(max(self.scoring.findData(scoring), 0))
        self.scoring_note.setText(SCORING_NOTES[self.scoring_value()])
        self.unk_token.setText(str(get("unk_token") or ""))
        shrinking = get("shrinking_factor")
        self.shrinking_factor.setValue(float(shrinking) if isinstance(shrinking, (int, float)) else 0.75)
        self.max_piece_length.setValue(_int(get("max_piece_length"), 16))
        self.n_sub_iterations.setValue(_int(get("n_sub_iterations"), 2))
        self.seed_size.setValue(_int(get("seed_size"), 1_000_000))
        unused = NO_MIN_FREQUENCY.get(self.kind)
        self._uses_min_frequency = unused is None
        self.min_frequency.setEnabled(unused is None)
        if unused is not None:
            self.min_frequency.setValue(0)
            self.min_frequency.setSpecialValueText(f"— ({unused[0]})")
            self.min_frequency.setToolTip(unused[1])
            self.min_frequency.setStatusTip(unused[1])
        else:
            self.min_frequency.setValue(_int(get("min_frequency"), 0))
            self.min_frequency.setSpecialValueText("")
            self.min_frequency.setToolTip("Pairs (words, for WordLevel) seen fewer times are never merged (kept)")
            self.min_frequency.setStatusTip("")
        sentencepiece = self.kind == SENTENCEPIECE_TRAINER
        if sentencepiece:
            self.sentencepiece.set_options(self._data)
        shown = () if sentencepiece else TRAINER_ROWS.get(self.kind, TRAINER_ROWS["BpeTrainer"])
        for name, widget in self._optional_rows().items():
            self.form.setRowVisible(widget, name in shown)
        model_type = str(get("model_type"))
        shown = self.sentencepiece.shown_options(model_type) if sentencepiece else ()
        for name, widget in self.sentencepiece.fields.items():
            self.form.setRowVisible(widget, name in shown)
        # (sentencepiece trains BPE and Unigram models; WordPiece and WordLevel are HF's own)
        choosable = trainer_algorithm(self._data) in SENTENCEPIECE_MODEL_TYPE
        self.library.setCurrentText(trainer_library(self._data))
        self.library.setEnabled(choosable)
        self.library.setToolTip(LIBRARY_TIP if choosable else NO_LIBRARY_CHOICE)
        self.form.setRowVisible(self.library_note, not choosable)
        for widget in self.findChildren(QWidget):
            widget.blockSignals(False)

    def _optional_rows(self) -> dict[str, QWidget]:
        return {
            "unk_token": self.unk_token,
            "limit_alphabet": self.limit_alphabet,
            "initial_alphabet": self.byte_alphabet,
            "max_token_length": self.max_token_length,
            "continuing_subword_prefix": self.prefix,
            "end_of_word_suffix": self.suffix,
            "end_of_word_symbol": self.end_of_word_symbol,
            "scoring": self.scoring,
            "scoring_note": self.scoring_note,
            "shrinking_factor": self.shrinking_factor,
            "max_piece_length": self.max_piece_length,
            "n_sub_iterations": self.n_sub_iterations,
            "seed_size": self.seed_size,
        }

    def trainer(self) -> dict[str, JsonValue]:
        """The trainer's JSON: the fields' values over what the form was given (a field it
        does not show keeps its value)."""
        specials: JsonValue = [name.strip() for name in self.special_tokens.text().split(",") if name.strip()]
        if self.special_tokens.text() == self._shown_specials:
            # subtle: special tokens given as objects (AddedToken's flags) stay so until edited.
            specials = self._given_specials
        data: dict[str, JsonValue] = dict(self._data)
        data.update({"type": self.kind, "vocab_size": self.vocab_size.value(), "special_tokens": specials})
        if self._uses_min_frequency:
            data["min_frequency"] = self.min_frequency.value()
        if self.kind in ("BpeTrainer", "WordPieceTrainer"):
            data["limit_alphabet"] = self.limit_alphabet.value() or None
        if self.kind == "BpeTrainer":
            data["initial_alphabet"] = list[JsonValue](self._initial_alphabet)
            data["continuing_subword_prefix"] = self.prefix.text() or None
            data["end_of_word_suffix"] = self.suffix.text() or None
            # (without a suffix the box is disabled and the option off: it needs one)
            data["end_of_word_symbol"] = self.end_of_word_symbol.isChecked() and bool(self.suffix.text())
            data["max_token_length"] = self.max_token_length.value() or None
        elif self.kind == "WordPieceTrainer":
            data["continuing_subword_prefix"] = self.prefix.text() or "##"
            data["scoring"] = self.scoring_value()
        elif self.kind == "UnigramTrainer":
            data["unk_token"] = self.unk_token.text().strip() or None
            data["shrinking_factor"] = round(self.shrinking_factor.value(), 4)
            data["max_piece_length"] = self.max_piece_length.value()
            data["n_sub_iterations"] = self.n_sub_iterations.value()
            data["seed_size"] = self.seed_size.value()
        elif self.kind == SENTENCEPIECE_TRAINER:
            data.update(self.sentencepiece.options())
        return data

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))

    def show_refusal(self, option: str, message: str) -> None:
        """Beneath the field of the trainer's `option`, why a training refused its value ("":
        none). Only "vocab_size" has a place; the settings' own errors are `show_error`'s."""
        shown = option == "vocab_size" and bool(message)
        self.vocab_size_error.setText(message if shown else "")
        self.form.setRowVisible(self.vocab_size_error, shown)

    def _on_byte_alphabet_toggled(self, checked: bool) -> None:
        byte_chars = pre_tokenizers.ByteLevel.alphabet()
        if checked:
            self._initial_alphabet = sorted(set(self._initial_alphabet) | set(byte_chars))
        else:
            self._initial_alphabet = [c for c in self._initial_alphabet if c not in set(byte_chars)]
        self.edited.emit()

    def _on_end_of_word_symbol_toggled(self, checked: bool) -> None:
        self.edited.emit()

    def _on_suffix_changed(self, suffix: str) -> None:
        """The separate end-of-word symbol is the suffix: without one, the box says so."""
        self.end_of_word_symbol.setEnabled(bool(suffix))
        tip = END_OF_WORD_SYMBOL_TIP if suffix else NO_END_OF_WORD_SYMBOL
        self.end_of_word_symbol.setToolTip(tip)
        self.end_of_word_symbol.setStatusTip(tip)

    def _on_library_changed(self, library: str) -> None:
        """The same model trained by the other library's trainer, keeping the settings both have."""
        self.set_trainer(trainer_for(self.trainer(), trainer_algorithm(self._data), library))
        self.edited.emit()

    def scoring_value(self) -> str:
        """The chosen WordPiece scoring as the trainer's JSON says it ("likelihood_gain")."""
        return str(self.scoring.currentData())

    def _on_scoring_changed(self, index: int) -> None:
        self.scoring_note.setText(SCORING_NOTES.get(self.scoring_value(), ""))
        self.edited.emit()


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default
