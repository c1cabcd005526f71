"""`PipelineForm`: the Train tab's form for a whole pipeline, built from the engine's components.

Each stage is a choice of component plus its options as the JSON fields tokenizer.json gives it
(the form shows the engine's defaults, so nothing is invented here); the trainer gets proper
fields, only those that apply. The engine itself checks every edit (`Tokenizer.from_str`,
`trainers.from_dict`): its message appears next to the stage it is about. The choices each
stage offers are `workbench.core.components`.
"""

from __future__ import annotations

import json
from typing import Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine import Tokenizer, pre_tokenizers, trainers
from engine.errors import EngineError
from engine.schema import JsonValue
from engine.trainers.base import DEFAULT_VOCAB_SIZE
from workbench.core.components import (
    DECODERS,
    MODELS,
    NORMALIZERS,
    POST_PROCESSORS,
    PRE_TOKENIZERS,
    TRAINER_DEFAULTS,
    TRAINER_OF,
)
from workbench.core.formatting import ERROR_STYLE

NONE: Final = "(none)"
MAX_VOCAB: Final = 1_114_111


# The optional rows of the trainer's form each trainer shows.
TRAINER_ROWS: Final[dict[str, tuple[str, ...]]] = {
    "BpeTrainer": (
        "limit_alphabet", "initial_alphabet", "max_token_length", "continuing_subword_prefix", "end_of_word_suffix",
    ),
    "WordLevelTrainer": (),
    "WordPieceTrainer": ("limit_alphabet", "continuing_subword_prefix", "scoring", "scoring_note"),
    "UnigramTrainer": ("unk_token", "shrinking_factor", "max_piece_length", "n_sub_iterations", "seed_size"),
}
SCORING_NOTES: Final = {
    "likelihood": "Merge the pair with the highest count(ab) / (count(a) × count(b)): the pair that raises "
    "the corpus likelihood most, as the WordPiece paper does.",
    "frequency": "Merge the most frequent pair (BPE with ## continuations), as HF's WordPieceTrainer does: "
    "the same vocabulary as HF.",
}
NO_MIN_FREQUENCY: Final = "not used by Unigram"
NO_MIN_FREQUENCY_REASON: Final = (
    "Unigram has no minimum frequency: it starts from the frequent substrings and prunes the pieces "
    "whose removal costs the corpus likelihood least."
)


class OptionsEdit(QPlainTextEdit):
    """A component's options as JSON: wraps over up to three lines; `editingFinished` when it
    loses the focus after a change (a QLineEdit would hide most of a model's options)."""

    editingFinished = Signal()

    def __init__(self, placeholder: str) -> None:
        super().__init__()
        self.setPlaceholderText(placeholder)
        self.setTabChangesFocus(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        lines = 3
        height = self.fontMetrics().lineSpacing() * lines + 2 * (self.frameWidth() + int(self.document().documentMargin()))
        self.setFixedHeight(height)
        self._changed = False
        self.textChanged.connect(self._on_text_changed)

    def text(self) -> str:
        return self.toPlainText()

    def setText(self, text: str) -> None:  # noqa: N802 - QLineEdit's name, so both read alike
        self.blockSignals(True)
        self.setPlainText(text)
        self.blockSignals(False)
        self._changed = False

    def _on_text_changed(self) -> None:
        self._changed = True

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802
        super().focusOutEvent(event)
        if self._changed:
            self._changed = False
            self.editingFinished.emit()


def error_label() -> QLabel:
    """Where the engine's objection to a stage's settings is shown (hidden while there is none)."""
    label = QLabel()
    label.setWordWrap(True)
    label.setStyleSheet(ERROR_STYLE)
    label.hide()
    return label


def options_text(data: dict[str, JsonValue]) -> str:
    """A component's fields other than "type", as one line of JSON."""
    return json.dumps({k: v for k, v in data.items() if k != "type"}, ensure_ascii=False)


class StageEditor(QWidget):
    """One stage: which component, and its options as JSON; an error line under them."""

    edited = Signal()

    def __init__(self, catalogue: dict[str, dict[str, JsonValue]], allow_none: bool = True) -> None:
        super().__init__()
        self.catalogue = dict(catalogue)
        self.combo = QComboBox()
        self.allow_none = allow_none
        if allow_none:
            self.combo.addItem(NONE)
        for name in self.catalogue:
            self.combo.addItem(name)
        self.options = OptionsEdit("options (JSON)")
        self.error = error_label()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.combo)
        layout.addWidget(self.options)
        layout.addWidget(self.error)
        self.combo.currentTextChanged.connect(self._on_combo_changed)
        self.options.editingFinished.connect(self.edited.emit)

    def set_component(self, data: object) -> None:
        """Show `data` (a tokenizer.json object or None); an unknown type joins the choices."""
        self.combo.blockSignals(True)
        if not isinstance(data, dict):
            self.combo.setCurrentText(NONE if self.allow_none else self.combo.itemText(0))
            self.options.setText("")
        else:
            kind = str(data.get("type", "?"))
            if kind not in self.catalogue:
                self.catalogue[kind] = data
                self.combo.addItem(kind)
            self.combo.setCurrentText(kind)
            self.options.setText(options_text(data))
        self._enable_options()
        self.combo.blockSignals(False)

    def component(self) -> dict[str, JsonValue] | None:
        """The chosen component's object; ValueError when the options are not a JSON object."""
        kind = self.combo.currentText()
        if kind == NONE:
            return None
        text = self.options.text().strip() or "{}"
        try:
            fields = json.loads(text)
        except ValueError as error:
            raise ValueError(f"the options are not valid JSON: {error}") from None
        if not isinstance(fields, dict):
            raise ValueError('the options must be a JSON object, like {"lowercase": true}')
        data: dict[str, JsonValue] = {"type": kind}
        data.update(fields)
        return data

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))

    def _on_combo_changed(self, kind: str) -> None:
        data = self.catalogue.get(kind)
        self.options.setText(options_text(data) if data is not None else "")
        self._enable_options()
        self.edited.emit()

    def _enable_options(self) -> None:
        """Options to edit only for a component that has some."""
        data = self.catalogue.get(self.combo.currentText())
        has_options = data is not None and len(data) > 1
        self.options.setEnabled(has_options)
        self.options.setPlaceholderText("options (JSON)" if has_options else "no options")
        if not has_options:
            self.options.setText("")


class NormalizerList(QWidget):
    """The normalizers, in order: tick the ones to use, drag to reorder; the selected one's
    options below."""

    edited = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.list = QListWidget()
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.list.setFixedHeight(self.list.fontMetrics().height() * 8)
        self.options = OptionsEdit("options of the selected normalizer (JSON)")
        self.error = error_label()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        hint = QLabel("Tick to use; drag to reorder.")
        hint.setEnabled(False)
        layout.addWidget(hint)
        layout.addWidget(self.list)
        layout.addWidget(self.options)
        layout.addWidget(self.error)
        self.list.itemChanged.connect(self._on_list_item_changed)
        self.list.currentItemChanged.connect(self._on_list_current_changed)
        self.list.model().rowsMoved.connect(self._on_list_rows_moved)
        self.options.editingFinished.connect(self._on_options_edited)

    def set_normalizer(self, data: object) -> None:
        used: list[dict[str, JsonValue]] = []
        if isinstance(data, dict):
            if data.get("type") == "Sequence" and isinstance(data.get("normalizers"), list):
                listed = data["normalizers"]
                used = [item for item in listed if isinstance(item, dict)] if isinstance(listed, list) else []
            else:
                used = [data]
        self.list.blockSignals(True)
        self.list.clear()
        seen: set[str] = set()
        for item in used:
            self._add(item, True)
            seen.add(str(item.get("type")))
        for kind, default in NORMALIZERS.items():
            if kind not in seen:
                self._add(default, False)
        self.list.blockSignals(False)
        self.list.setCurrentRow(-1)
        self.options.setText("")
        self.options.setEnabled(False)

    def _add(self, data: dict[str, JsonValue], checked: bool) -> None:
        item = QListWidgetItem(str(data.get("type")))
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsDragEnabled)
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsDropEnabled)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        item.setData(Qt.ItemDataRole.UserRole, json.dumps(data, ensure_ascii=False))
        self.list.addItem(item)

    def normalizer(self) -> dict[str, JsonValue] | None:
        used: list[JsonValue] = []
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.checkState() == Qt.CheckState.Checked:
                used.append(json.loads(item.data(Qt.ItemDataRole.UserRole)))
        if not used:
            return None
        if len(used) == 1 and isinstance(used[0], dict):
            return used[0]
        return {"type": "Sequence", "normalizers": used}

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))

    def _on_list_current_changed(self, current: QListWidgetItem | None, previous: QListWidgetItem | None) -> None:
        if current is None:
            self.options.setText("")
            return
        data = json.loads(current.data(Qt.ItemDataRole.UserRole))
        self.options.setText(options_text(data))
        self.options.setEnabled(len(data) > 1)

    def _on_options_edited(self) -> None:
        item: QListWidgetItem | None = self.list.currentItem()
        if item is None:
            return
        try:
            fields = json.loads(self.options.text().strip() or "{}")
            if not isinstance(fields, dict):
                raise ValueError("the options must be a JSON object")
        except ValueError as error:
            self.show_error(f"{item.text()}: {error}")
            return
        data: dict[str, JsonValue] = {"type": item.text()}
        data.update(fields)
        item.setData(Qt.ItemDataRole.UserRole, json.dumps(data, ensure_ascii=False))
        self.edited.emit()

    def _on_list_item_changed(self, item: QListWidgetItem) -> None:
        self.edited.emit()

    def _on_list_rows_moved(self) -> None:
        self.edited.emit()


class TrainerFields(QWidget):
    """The trainer's options, only those the chosen algorithm has (a field the form does not
    show keeps the value it came with)."""

    edited = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.kind = "BpeTrainer"
        self._data: dict[str, JsonValue] = dict(TRAINER_DEFAULTS[self.kind])
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
        self.scoring = QComboBox()
        self.scoring.addItems(list(SCORING_NOTES))
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
        self.error = error_label()
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.addRow("Vocabulary size", self.vocab_size)
        self.form.addRow("Min frequency", self.min_frequency)
        self.form.addRow("Special tokens", self.special_tokens)
        self.form.addRow("Unknown token", self.unk_token)
        self.form.addRow("Limit alphabet", self.limit_alphabet)
        self.form.addRow("Initial alphabet", self.byte_alphabet)
        self.form.addRow("Max token length", self.max_token_length)
        self.form.addRow("Continuing prefix", self.prefix)
        self.form.addRow("End-of-word suffix", self.suffix)
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
        self.scoring.currentTextChanged.connect(self._on_scoring_changed)
        self._initial_alphabet: list[str] = []

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
        self.limit_alphabet.setValue(_int(get("limit_alphabet"), 0))
        alphabet = get("initial_alphabet")
        self._initial_alphabet = [c for c in alphabet if isinstance(c, str)] if isinstance(alphabet, list) else []
        self.byte_alphabet.setChecked(set(pre_tokenizers.ByteLevel.alphabet()) <= set(self._initial_alphabet))
        self.max_token_length.setValue(_int(get("max_token_length"), 0))
        self.prefix.setText(str(get("continuing_subword_prefix") or ""))
        self.prefix.setPlaceholderText("##" if self.kind == "WordPieceTrainer" else "none (WordPiece-style: ##)")
        self.suffix.setText(str(get("end_of_word_suffix") or ""))
        scoring = str(get("scoring") or "likelihood")
        self.scoring.setCurrentText(scoring if scoring in SCORING_NOTES else "likelihood")
        self.scoring_note.setText(SCORING_NOTES[self.scoring.currentText()])
        self.unk_token.setText(str(get("unk_token") or ""))
        shrinking = get("shrinking_factor")
        self.shrinking_factor.setValue(float(shrinking) if isinstance(shrinking, (int, float)) else 0.75)
        self.max_piece_length.setValue(_int(get("max_piece_length"), 16))
        self.n_sub_iterations.setValue(_int(get("n_sub_iterations"), 2))
        self.seed_size.setValue(_int(get("seed_size"), 1_000_000))
        unigram = self.kind == "UnigramTrainer"
        self.min_frequency.setEnabled(not unigram)
        if unigram:
            self.min_frequency.setValue(0)
            self.min_frequency.setSpecialValueText(f"— ({NO_MIN_FREQUENCY})")
            self.min_frequency.setToolTip(NO_MIN_FREQUENCY_REASON)
            self.min_frequency.setStatusTip(NO_MIN_FREQUENCY_REASON)
        else:
            self.min_frequency.setValue(_int(get("min_frequency"), 0))
            self.min_frequency.setSpecialValueText("")
            self.min_frequency.setToolTip("Pairs (words, for WordLevel) seen fewer times are never merged (kept)")
            self.min_frequency.setStatusTip("")
        shown = TRAINER_ROWS.get(self.kind, TRAINER_ROWS["BpeTrainer"])
        for name, widget in self._optional_rows().items():
            self.form.setRowVisible(widget, name in shown)
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
            "scoring": self.scoring,
            "scoring_note": self.scoring_note,
            "shrinking_factor": self.shrinking_factor,
            "max_piece_length": self.max_piece_length,
            "n_sub_iterations": self.n_sub_iterations,
            "seed_size": self.seed_size,
        }

    def trainer(self) -> dict[str, JsonValue]:
        specials: list[JsonValue] = [name.strip() for name in self.special_tokens.text().split(",") if name.strip()]
        data: dict[str, JsonValue] = dict(self._data)
        data.update({"type": self.kind, "vocab_size": self.vocab_size.value(), "show_progress": True, "special_tokens": specials})
        if self.kind != "UnigramTrainer":
            data["min_frequency"] = self.min_frequency.value()
        if self.kind in ("BpeTrainer", "WordPieceTrainer"):
            data["limit_alphabet"] = self.limit_alphabet.value() or None
        if self.kind == "BpeTrainer":
            data["initial_alphabet"] = list[JsonValue](self._initial_alphabet)
            data["continuing_subword_prefix"] = self.prefix.text() or None
            data["end_of_word_suffix"] = self.suffix.text() or None
            data["max_token_length"] = self.max_token_length.value() or None
        elif self.kind == "WordPieceTrainer":
            data["continuing_subword_prefix"] = self.prefix.text() or "##"
            data["scoring"] = self.scoring.currentText()
        elif self.kind == "UnigramTrainer":
            data["unk_token"] = self.unk_token.text().strip() or None
            data["shrinking_factor"] = round(self.shrinking_factor.value(), 4)
            data["max_piece_length"] = self.max_piece_length.value()
            data["n_sub_iterations"] = self.n_sub_iterations.value()
            data["seed_size"] = self.seed_size.value()
        return data

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))

    def _on_byte_alphabet_toggled(self, checked: bool) -> None:
        byte_chars = pre_tokenizers.ByteLevel.alphabet()
        if checked:
            self._initial_alphabet = sorted(set(self._initial_alphabet) | set(byte_chars))
        else:
            self._initial_alphabet = [c for c in self._initial_alphabet if c not in set(byte_chars)]
        self.edited.emit()

    def _on_scoring_changed(self, scoring: str) -> None:
        self.scoring_note.setText(SCORING_NOTES.get(scoring, ""))
        self.edited.emit()


class PipelineForm(QWidget):
    """The whole pipeline and the trainer. `edited()` after every change; `configuration()`
    gives (pipeline, trainer) as JSON objects, or None with the errors shown in place."""

    edited = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.normalizers = NormalizerList()
        self.pre_tokenizer = StageEditor(PRE_TOKENIZERS)
        self.model = StageEditor(MODELS, allow_none=False)
        self.trainer = TrainerFields()
        self.post_processor = StageEditor(POST_PROCESSORS)
        self.decoder = StageEditor(DECODERS)
        self.model_note = error_label()
        layout = QVBoxLayout(self)
        for title, editor in (
            ("Normalizers", self.normalizers),
            ("Pre-tokenizer", self.pre_tokenizer),
            ("Model", self.model),
            ("Trainer", self.trainer),
            ("Post-processor", self.post_processor),
            ("Decoder", self.decoder),
        ):
            box = QGroupBox(title)
            inner = QVBoxLayout(box)
            inner.addWidget(editor)
            if editor is self.model:
                inner.addWidget(self.model_note)
            layout.addWidget(box)
        layout.addStretch(1)
        self._added_tokens: JsonValue = []
        for editor in (self.normalizers, self.pre_tokenizer, self.trainer, self.post_processor, self.decoder):
            editor.edited.connect(self.edited.emit)
        self.model.edited.connect(self._on_model_edited)

    def set_configuration(self, pipeline: dict[str, JsonValue], trainer: dict[str, JsonValue] | None) -> None:
        """Show a tokenizer entry's settings (no `edited` signal)."""
        self.blockSignals(True)
        self.normalizers.set_normalizer(pipeline.get("normalizer"))
        self.pre_tokenizer.set_component(pipeline.get("pre_tokenizer"))
        model = pipeline.get("model")
        self.model.set_component({k: v for k, v in model.items() if k not in ("vocab", "merges")} if isinstance(model, dict) else None)
        self.trainer.set_trainer(trainer)
        self.post_processor.set_component(pipeline.get("post_processor"))
        self.decoder.set_component(pipeline.get("decoder"))
        self._added_tokens = pipeline.get("added_tokens", [])
        self._show_model_note()
        for editor in (self.normalizers, self.pre_tokenizer, self.model, self.trainer, self.post_processor, self.decoder):
            editor.show_error("")
        self.blockSignals(False)

    def trainable_reason(self) -> str:
        """Why the chosen model cannot be trained ("" when it can): every model of the form
        has a trainer; an unknown one, read from a file, has none."""
        kind = self.model.combo.currentText()
        return "" if kind in TRAINER_OF else f"the engine has no trainer for a {kind} model"

    def configuration(self) -> tuple[dict[str, JsonValue], dict[str, JsonValue]] | None:
        """(pipeline, trainer) when every stage is valid; otherwise None, errors shown."""
        editors: dict[str, NormalizerList | StageEditor | TrainerFields] = {
            "normalizer": self.normalizers,
            "pre_tokenizer": self.pre_tokenizer,
            "model": self.model,
            "post_processor": self.post_processor,
            "decoder": self.decoder,
        }
        for editor in (*editors.values(), self.trainer):
            editor.show_error("")
        pipeline: dict[str, JsonValue] = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": self._added_tokens}
        failed = False
        for key, editor in editors.items():
            try:
                if isinstance(editor, NormalizerList):
                    pipeline[key] = editor.normalizer()
                elif isinstance(editor, StageEditor):
                    pipeline[key] = editor.component()
            except ValueError as error:
                editor.show_error(str(error))
                failed = True
        model = pipeline.get("model")
        if isinstance(model, dict):
            kind = model.get("type")
            if kind in ("BPE", "WordLevel", "WordPiece"):
                model["vocab"] = {}
            if kind == "BPE":
                model["merges"] = []
            if kind == "Unigram":
                # subtle: a Unigram model with an unk_id needs that piece; training replaces it.
                model["vocab"] = [["<unk>", 0.0]] if model.get("unk_id") is not None else []
        if failed:
            return None
        try:
            Tokenizer.from_str(json.dumps(pipeline))
        except EngineError as error:
            message = str(error).removeprefix("<string>: ")
            section = message.split(":", 1)[0]
            target = editors.get(section, self.model)
            target.show_error(message.split(":", 1)[1].strip() if section in editors else message)
            return None
        trainer = self.trainer.trainer()
        try:
            trainers.from_dict(trainer)
        except (EngineError, ValueError, TypeError) as error:
            self.trainer.show_error(str(error))
            return None
        return pipeline, trainer

    def _on_model_edited(self) -> None:
        kind = self.model.combo.currentText()
        trainer_kind = TRAINER_OF.get(kind)
        if trainer_kind is not None and trainer_kind != self.trainer.kind:
            current = self.trainer.trainer()
            current["type"] = trainer_kind
            self.trainer.set_trainer(current)
        self._show_model_note()
        self.edited.emit()

    def _show_model_note(self) -> None:
        reason = self.trainable_reason()
        self.model_note.setText(f"This model cannot be trained here: {reason}." if reason else "")
        self.model_note.setVisible(bool(reason))
        self.trainer.setEnabled(not reason)


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default
