"""The Audit tab's **Vocabulary Size** page: which vocabulary size? For each checked tokenizer,
tokens per character on held-out text at every size its run passed through, side by side, each
knee marked, with a table of what the knee saves and costs (`engine.analysis.size_curve`, worked
out in a child process: `workbench.jobs.children.size_curves`). A Unigram trained here brings its
rounds' points, measured as it trained, for the exact curve on its own held-out lines.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QHBoxLayout, QLabel, QPushButton, QTableWidget, QVBoxLayout, QWidget

from engine.analysis.size_curve import RoundPoint
from engine.project.entry import TokenizerEntry
from engine.trainers.records import RoundStep
from workbench.core.vocab_reports import CURVE_HEADERS, CURVE_NOTE, curve_notes, curve_table, drawn_curve
from workbench.jobs.children.size_curves import ENGLISH, OWN_HELD_OUT, USER_FILES, curves_main, curves_payload
from workbench.jobs.runners.child_job import ChildJob
from workbench.window.document import ProjectDocument
from workbench.window.views.audit_charts import SizeCurveChart
from workbench.window.views.heading import say
from workbench.window.views.audit_table import fill_table



class SizePage(QWidget):
    """Vocabulary Size. `chosen()` gives the checked tokenizers (name, tokenizer.json), `paths()`
    the user's files, `entry_bytes()` what one vocabulary entry's embedding costs. `drawn()` when
    curves are shown or fail."""

    drawn = Signal()

    def __init__(
        self, document: ProjectDocument, chosen: Callable[[], list[tuple[str, str]]], paths: Callable[[], list[str]], entry_bytes: Callable[[], int]
    ) -> None:
        super().__init__()
        self.document = document
        self._chosen, self._paths, self._entry_bytes = chosen, paths, entry_bytes
        # the curves shown (`curve_wire`'s)
        self.curves: list[dict[str, object]] = []
        self.source = QComboBox()
        self.source.addItem("each tokenizer's held-out lines of the corpus", OWN_HELD_OUT)
        self.source.addItem("your files (above)", USER_FILES)
        self.source.addItem("the English declaration", ENGLISH)
        self.source.setToolTip(
            "The text the curves are measured on. A tokenizer trained in this project held out the last lines of its "
            "corpus (the Train tab's held-out share): those lines, never trained on, are the fairest test."
        )
        self.button = QPushButton("Draw Curves")
        self.status = QLabel(CURVE_NOTE)
        self.status.setWordWrap(True)
        self.chart = SizeCurveChart()
        self.table = QTableWidget(0, len(CURVE_HEADERS))
        self.table.setHorizontalHeaderLabels(list(CURVE_HEADERS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setMinimumHeight(124)  # (four tokenizers without scrolling)
        self.table.setMaximumHeight(160)
        self.job = ChildJob("size curve", self)
        self._started = 0.0
        row = QHBoxLayout()
        row.addWidget(QLabel("Held-out text"))
        row.addWidget(self.source)
        row.addWidget(self.button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(self.chart, 1)
        layout.addWidget(self.table)
        self.button.clicked.connect(self.draw)
        self.job.progressed.connect(self._on_progressed)
        self.job.finished.connect(self._on_finished)
        self.job.failed.connect(self._on_failed)

    def follow(self) -> None:
        """Draw Curves is available with a checked tokenizer and no drawing under way."""
        drawing = self.job.is_running()
        chosen = bool(self._chosen())
        self.button.setEnabled(not drawing and chosen)
        self.button.setToolTip("Measuring…" if drawing else "" if chosen else "Check at least one tokenizer above.")

    def draw(self) -> None:
        """Measure every checked tokenizer's size curve on the chosen held-out text."""
        chosen = dict(self._chosen())
        if not chosen:
            self._say("Check at least one tokenizer above.", error=True)
            return
        tokenizers: list[tuple[str, str, list[str], float]] = []
        rounds: dict[str, tuple[list[RoundStep], list[RoundPoint]]] = {}
        for entry in self.document.project.tokenizers:
            if entry.name in chosen and entry.result is not None:
                trained_on = entry.result.trained_on
                files = [item.path for item in trained_on.files] if trained_on is not None else []
                share = trained_on.held_out if trained_on is not None else 0.0
                tokenizers.append((entry.name, chosen[entry.name], files, share))
                measured = measured_rounds(entry)
                if measured is not None:
                    rounds[entry.name] = measured
        payload = curves_payload(tokenizers, str(self.source.currentData()), self._paths(), rounds)
        self._started = time.monotonic()
        self._say("Measuring…")
        self.job.start(curves_main, payload)
        self.follow()

    def _on_progressed(self, record: object) -> None:
        if isinstance(record, tuple) and len(record) == 3:
            self._say(f"Measuring {record[2]} ({int(record[0]) + 1} of {int(record[1])})…")

    def _on_finished(self, answer: object) -> None:
        assert isinstance(answer, list)
        self.show_curves(answer)
        problems = [f"{item['name']}: {item['problem']}" for item in answer if isinstance(item, dict) and "problem" in item]
        single = [
            f"{curve['name']} has no smaller sizes to measure (its vocabulary is not in the order it was made in)"
            for curve in self.curves
            if isinstance(curve["sizes"], list) and len(curve["sizes"]) == 1
        ]
        seconds = time.monotonic() - self._started
        drawn = len(self.curves)
        text = f"{drawn} curve{'s' if drawn != 1 else ''} in {seconds:.1f} s. {CURVE_NOTE}"
        text += "".join(f" {line}." for line in curve_notes(self.curves) + single)
        self._say(text + ("" if not problems else " Not drawn: " + "; ".join(problems) + "."), error=bool(problems or single))
        self.follow()
        self.drawn.emit()

    def _on_failed(self, message: str) -> None:
        self._say(f"The curves stopped: {message}", error=True)
        self.follow()
        self.drawn.emit()

    def show_curves(self, answer: list[object]) -> None:
        """Draw size curves (`workbench.jobs.children.size_curves.curve_wire`'s) and their table."""
        self.curves = [item for item in answer if isinstance(item, dict) and "problem" not in item]
        per_entry = self._entry_bytes()
        self.chart.show_curves([drawn_curve(curve) for curve in self.curves], per_entry)
        fill_table(self.table, curve_table(self.curves, per_entry))

    def _say(self, text: str, error: bool = False) -> None:
        say(self.status, text, error)


def measured_rounds(entry: TokenizerEntry) -> tuple[list[RoundStep], list[RoundPoint]] | None:
    """A Unigram training's rounds and their points on its held-out lines (none in a project
    saved before they were measured), for its exact curve; None for any other result (its
    history is read only for a Unigram's few rounds)."""
    result = entry.result
    facts = result.facts() if result is not None else None
    if result is None or facts is None or facts.algorithm != "Unigram" or facts.rounds == 0:
        return None
    report = result.report
    if report is None:
        return None
    return list(report.history.rounds), list(result.round_points)
