"""`Exporter`: File ▸ Export. The active tokenizer written in another format where the user says,
in a child process (`workbench.jobs.children.files`), which then certifies the file (the library
that owns the format encodes a suite of texts as the workbench does, or the first mismatches are
named) and saves the certificate beside it; a result dialog says what was written, the
certificate and what the format cannot hold. The Export menu's entries are enabled for the
formats that can hold the tokenizer, the others saying why.

Whether a format can hold a tokenizer is the engine's answer (`convert.check`), found out in the
encoding process with the rest of the tokenizer's view: nothing here parses a tokenizer.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

from engine.analysis.certificate import Certificate
from engine.formats import convert
from workbench.jobs.children.files import export_main, export_payload
from workbench.jobs.runners.child_job import ChildJob
from workbench.window.document import ProjectDocument
from workbench.window.menus import EXPORT_TITLES
from workbench.window.prompts import EXPORT_FILTERS, TOKENIZER_FILTER, Prompts

# How many mismatches the result dialog shows (the certificate's JSON holds more).
REPORTED: Final = 3

# The name each format suggests (tokenizer.json, a SentencePiece model and a tiktoken file are
# named after the tokenizer instead).
EXPORT_NAMES: Final = {
    convert.HF: "tokenizer.json",
    convert.BERT_VOCAB: "vocab.txt",
    convert.GPT2: "vocab.json",
    convert.SENTENCEPIECE: "tokenizer.model",
    convert.TIKTOKEN: "tokenizer.tiktoken",
}


class Exporter(QObject):
    """Exports the active tokenizer of `document`. `folder()` is where the file dialog starts,
    `busy(text)` says in the status bar what is being written ("" when done), and
    `status(text, ms)` says for a while what was written."""

    def __init__(
        self,
        document: ProjectDocument,
        prompts: Prompts,
        folder: Callable[[], str],
        busy: Callable[[str], None],
        status: Callable[[str, int], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.prompts = prompts
        self._folder = folder
        self._busy = busy
        self._status = status
        # writes the exports, in a child process
        self._job = ChildJob("file", self)

    def reasons(self) -> dict[str, str] | None:
        """Why each format of `EXPORT_TITLES` cannot hold the active tokenizer ("" when it can;
        None until the encoding process has answered)."""
        view = self.document.view()
        if view is None or not view.entry.is_trained:
            return {kind: "Train the tokenizer (or import one) first" for kind in EXPORT_TITLES}
        return view.export_reasons

    def update_actions(self, actions: dict[str, QAction]) -> None:
        """Enable the menu's `actions` (by format) that can hold the active tokenizer; the
        others say why."""
        reasons = self.reasons()
        for kind, action in actions.items():
            reason = reasons.get(kind, "") if reasons is not None else "checking whether the format can hold it…"
            action.setEnabled(not reason)
            tip = f"Cannot export as {EXPORT_TITLES[kind].rstrip('…')}: {reason}" if reason else convert.DESCRIPTIONS[kind]
            action.setToolTip(tip)
            action.setStatusTip(tip)

    def export_as(self, kind: str) -> bool:
        """Write the active tokenizer in format `kind` (of `convert.FORMATS`) where the user
        says; what the format drops is listed. False when nothing was written."""
        entry = self.document.active
        if entry is None or entry.trained_json is None:
            self.prompts.warn("Nothing to export", "Train the tokenizer (or import one) before exporting it.")
            return False
        name = EXPORT_NAMES[kind]
        if kind in (convert.SENTENCEPIECE, convert.TIKTOKEN):
            name = f"{entry.name}{convert.SUFFIXES[kind]}"
        elif kind == convert.HF:
            name = f"{entry.name}.json"
        suggested = os.path.join(self._folder(), name.replace(os.sep, "-"))
        path = self.prompts.export_file(suggested, TOKENIZER_FILTER if kind == convert.HF else EXPORT_FILTERS[kind])
        if not path:
            return False
        if kind != convert.HF and not path.lower().endswith(convert.SUFFIXES[kind]):
            path += convert.SUFFIXES[kind]
        title = EXPORT_TITLES.get(kind, "tokenizer.json").rstrip("…")
        self._busy(f"Exporting {path}…")

        def on_progressed(record: object) -> None:
            if record == "certifying":
                self._busy(f"Checking {path}: encoding the certificate's texts with the library that reads it…")

        self._job.progressed.connect(on_progressed)
        try:
            ok, answer = self._job.run(export_main, export_payload(entry.trained_json, kind, path))
        finally:
            self._job.progressed.disconnect(on_progressed)
            self._busy("")
        if not ok or not isinstance(answer, tuple):
            self.prompts.warn(f"The tokenizer was not exported as {title}", f"{answer}\n\nNothing was written at {path}.")
            return False
        paths, notes, data, where = answer
        found = Certificate.from_dict(data) if isinstance(data, dict) else None
        written = " and ".join(paths)
        checked = f"; certificate: {found.verdict()}" if found is not None else "; not certified"
        if kind == convert.HF:
            self._status(f"Exported {written} (tokenizer.json keeps the whole pipeline){checked}", 10000)
        else:
            lost = f"; it does not keep {len(notes)} thing{'s' if len(notes) != 1 else ''} (listed)" if notes else ""
            self._status(f"Exported {written}{lost}{checked}", 10000)
        self.prompts.report(f"Exported as {title}", export_report(written, notes, found, str(where)))
        return True


def export_report(written: str, notes: list[str], found: Certificate | None, where: str) -> str:
    """What the export's result dialog says: what was written, its certificate (the verdict, how
    the file was read, the first mismatches, where the JSON was saved) and what the format
    cannot hold."""
    parts = [f"Wrote {written}."]
    if found is None:
        parts.append(f"Certificate: none; {where}")
    else:
        lines = found.lines(REPORTED)
        lines[0] = "Certificate: " + lines[0].removeprefix("certificate: ")
        parts.append("\n".join(line.removeprefix("  ") for line in lines))
        parts.append(f"The certificate is saved as {where}")
    if notes:
        parts.append("The format cannot hold:\n" + "\n".join(f"• {note}" for note in notes))
    return "\n\n".join(parts)
