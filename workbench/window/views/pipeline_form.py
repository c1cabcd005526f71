"""`PipelineForm`: the Train tab's form for a whole pipeline, built from the engine's components.

Each stage is a choice of component plus its options as the JSON fields tokenizer.json gives it
(the form shows the engine's defaults, so nothing is invented here); the trainer gets proper
fields, only those that apply. The engine itself checks every edit (`Tokenizer.from_str`,
`trainers.from_dict`): its message appears next to the stage it is about.

The form holds the stages and checks them together; one stage's editor is in `stage_editor`,
the trainer's fields are in `trainer_fields`, the choices they offer in `workbench.core.components`.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGroupBox, QVBoxLayout, QWidget

from engine import Tokenizer, trainers
from engine.errors import EngineError
from engine.schema import JsonValue
from workbench.core.components import (
    DECODERS,
    MODELS,
    POST_PROCESSORS,
    PRE_TOKENIZERS,
    TRAINER_OF,
    trainer_algorithm,
    trainer_for,
    trainer_library,
)
from workbench.window.views.stage_editor import NormalizerList, StageEditor, error_label
from workbench.window.views.trainer_fields import TrainerFields
from workbench.core.presets import Configuration


class PipelineForm(QWidget):
    """The whole pipeline and the trainer. `edited()` after every change; `configuration()`
    gives (pipeline, trainer) as JSON objects, or None with the errors shown in place."""

    edited = Signal()

    def __init__(self) -> None:
        super().__init__()
        self._checked_pipeline = ""  # (the last pipeline JSON the engine read without an error)
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

    def configuration(self) -> Configuration | None:
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
        text = json.dumps(pipeline)
        try:
            # subtle: the form is asked for its configuration several times per change; a
            # SentencePiece normalizer's character map takes 50 ms to read, so a pipeline read
            # once is not read again.
            if text != self._checked_pipeline:
                Tokenizer.from_str(text)
                self._checked_pipeline = text
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
        """A new model gets a trainer for it, keeping the settings both trainers have: of the
        same library for BPE and Unigram (a SentencePieceTrainer changes its model_type), HF's
        own for WordPiece and WordLevel."""
        kind = self.model.combo.currentText()
        current = self.trainer.trainer()
        if kind in TRAINER_OF and trainer_algorithm(current) != kind:
            self.trainer.set_trainer(trainer_for(current, kind, trainer_library(current)))
        self._show_model_note()
        self.edited.emit()

    def _show_model_note(self) -> None:
        reason = self.trainable_reason()
        self.model_note.setText(f"This model cannot be trained here: {reason}." if reason else "")
        self.model_note.setVisible(bool(reason))
        self.trainer.setEnabled(not reason)
