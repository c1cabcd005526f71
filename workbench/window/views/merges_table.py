"""The table of a training's steps: merges (rank, pair, new token, count), or for Unigram its
rounds (phase, vocabulary, removed pieces, log-likelihood). Their one-line summaries are
`workbench.core.training_text`'s.

A `QAbstractTableModel` over engine records, appended to as a training streams its steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from engine.trainers.records import SCORE_LIKELIHOOD, SCORE_LIKELIHOOD_GAIN, MergeStep, RoundStep
from engine.analysis.vocabulary import TokenStyle, readable
from workbench.core.formatting import score
from workbench.core.history import ColumnSteps

Index = QModelIndex | QPersistentModelIndex


MERGE_COLUMNS: Final = ("Rank", "Left", "Right", "New token", "Count", "Words touched")
# A scored merge (WordPiece) shows its score where BPE shows the count, and the counts behind it.
SCORED_COLUMNS: Final = ("Rank", "Left", "Right", "New token", "Score", "Pair · left · right counts")
ROUND_COLUMNS: Final = ("Round", "Phase", "Vocabulary", "Removed", "Log-likelihood", "Seconds")
# What the score column of a scored training holds, by its history's score name.
SCORE_TIPS: Final = {
    SCORE_LIKELIHOOD: "count(pair) / (count(left) × count(right)), the HF course's score: the highest was merged",
    SCORE_LIKELIHOOD_GAIN: "how much the merge raised the corpus log-likelihood under a unigram model of the "
    "symbols (in nats): the highest was merged",
}


class MergesModel(QAbstractTableModel):
    """The merges made so far, one row each, tokens shown readable (raw form on hover); for a
    round-based training (Unigram), its rounds."""

    def __init__(self) -> None:
        super().__init__()
        self.steps: list[MergeStep] | ColumnSteps = []
        self.rounds: list[RoundStep] = []
        self.style = TokenStyle()
        self.glyphs = True
        self.score_name = "count"

    def reset(
        self, steps: Sequence[MergeStep], style: TokenStyle, score_name: str = "count", rounds: list[RoundStep] | None = None
    ) -> None:
        self.beginResetModel()
        # (a stored history's merges are read on demand: kept as the sequence they are)
        self.steps = steps if isinstance(steps, ColumnSteps) else list(steps)
        self.rounds = list(rounds) if rounds is not None else []
        self.style = style
        self.score_name = score_name
        self.endResetModel()

    def set_style(self, style: TokenStyle) -> None:
        """Show the tokens in another style (the tokenizer's, once it is known)."""
        if style != self.style:
            self.style = style
            if self.steps or self.rounds:
                self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1))

    def append(self, steps: Sequence[MergeStep | RoundStep]) -> None:
        merges = [step for step in steps if isinstance(step, MergeStep)]
        rounds = [step for step in steps if isinstance(step, RoundStep)]
        if rounds and not self.rounds:
            # the first round turns the table into the rounds' table (other columns)
            self.beginResetModel()
            self.rounds.extend(rounds)
            self.endResetModel()
        elif rounds:
            first = len(self.rounds)
            self.beginInsertRows(QModelIndex(), first, first + len(rounds) - 1)
            self.rounds.extend(rounds)
            self.endInsertRows()
        if merges:
            if isinstance(self.steps, ColumnSteps):
                self.steps = list(self.steps)
            first = len(self.steps)
            self.beginInsertRows(QModelIndex(), first, first + len(merges) - 1)
            self.steps.extend(merges)
            self.endInsertRows()

    @property
    def shows_rounds(self) -> bool:
        return bool(self.rounds) and not self.steps

    def columns(self) -> tuple[str, ...]:
        if self.shows_rounds:
            return ROUND_COLUMNS
        return MERGE_COLUMNS if self.score_name == "count" else SCORED_COLUMNS

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.rounds if self.shows_rounds else self.steps)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(MERGE_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> object:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            columns = self.columns()
            if section == 4 and columns is SCORED_COLUMNS:
                return self.score_name.capitalize()
            return columns[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole and section == 4:
            if not self.shows_rounds:
                return SCORE_TIPS.get(self.score_name)
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        column = index.column()
        if self.shows_rounds:
            row = index.row()
            return self._round_data(self.rounds[row], self.rounds[row - 1] if row > 0 else None, column, role)
        step = self.steps[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return step.index
            if column in (1, 2, 3):
                token = (step.left, step.right, step.new_token)[column - 1]
                return readable(token, self.style) if self.glyphs else token
            if column == 4:
                return score(step.score) if step.score is not None else f"{step.count:,}"
            if step.score is not None:
                return f"{step.count:,} · {_count(step.left_count)} · {_count(step.right_count)}"
            return f"{step.words_touched:,}"
        if role == Qt.ItemDataRole.ToolTipRole and column in (1, 2, 3):
            token = (step.left, step.right, step.new_token)[column - 1]
            return f"raw: {token!r}"
        if role == Qt.ItemDataRole.ToolTipRole and step.score is not None and column in (4, 5):
            return f"pair seen {step.count:,} times; words touched {step.words_touched:,}"
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (0, 4, 5):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _round_data(self, step: RoundStep, before: RoundStep | None, column: int, role: int) -> object:
        # subtle: finalizing puts the required characters and the special tokens back in, so
        # the size is not the previous one less the removed pieces: say how many came back
        back = step.vocab_size - (before.vocab_size - step.removed) if before is not None else 0
        if role == Qt.ItemDataRole.DisplayRole:
            likelihood = f"{step.log_likelihood:,.1f}" if step.log_likelihood is not None else "—"
            removed = f"{step.removed:,}" + (f" ({back:,} back in)" if back > 0 else "")
            return (str(step.index), step.phase, f"{step.vocab_size:,}", removed, likelihood, f"{step.seconds:.2f}")[column]
        if role == Qt.ItemDataRole.ToolTipRole and column == 3 and back > 0:
            return (
                f"{step.removed:,} pieces removed, {back:,} put back: the characters the corpus needs and the "
                f"special tokens ({before.vocab_size if before is not None else 0:,} − {step.removed:,} + {back:,} "
                f"= {step.vocab_size:,})"
            )
        if role == Qt.ItemDataRole.TextAlignmentRole and column != 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


def _count(value: int | None) -> str:
    return f"{value:,}" if value is not None else "?"


class MergesTable(QTableView):
    """The merges table; it follows new rows while it is scrolled to the bottom."""

    def __init__(self) -> None:
        super().__init__()
        self.merges = MergesModel()
        self.setModel(self.merges)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for column, width in enumerate((60, 110, 110, 140, 90)):
            self.setColumnWidth(column, width)

    def append(self, steps: Sequence[MergeStep | RoundStep]) -> None:
        bar = self.verticalScrollBar()
        following = bar.value() >= bar.maximum() - 2
        self.merges.append(steps)
        if following:
            self.scrollToBottom()
