"""`VocabularyModel`: a `QAbstractTableModel` over a vocabulary table (`VocabularyColumns`), with
sorting and filtering done in the model on NumPy arrays, so 250,000 rows sort and filter at once.

Rows are a permutation of the table (`order`); the view never holds a widget per row.
"""

from __future__ import annotations

import csv
import io
import re
from array import array
from typing import Any, Final

import numpy
from numpy.typing import NDArray
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from workbench.core.packed import VocabularyColumns

COLUMNS: Final = ("ID", "Token", "Chars", "Bytes", "Kind", "Merge rank", "Frequency")
ID, TOKEN, CHARS, BYTES, KIND, RANK, FREQUENCY = range(len(COLUMNS))
# The key arrays of the token as shown (the TOKEN column's) and as the vocabulary writes it.
SHOWN_KEY: Final = TOKEN
RAW_KEY: Final = len(COLUMNS)
FILTER_MODES: Final = ("contains", "starts with", "regex")
KIND_COLORS: Final = {"special": "#8e44ad", "added": "#2471a3", "byte": "#7f8c8d"}
# subtle: a screenful of the table asks `data` about 2,000 times (seven roles a cell); plain ints
# and ready colours keep each answer cheap (Qt's enum lookups were a third of a paint's time).
DISPLAY: Final = int(Qt.ItemDataRole.DisplayRole)
TOOLTIP: Final = int(Qt.ItemDataRole.ToolTipRole)
FOREGROUND: Final = int(Qt.ItemDataRole.ForegroundRole)
ALIGNMENT: Final = int(Qt.ItemDataRole.TextAlignmentRole)
RIGHT: Final = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
# NumPy's variable-width strings: fast to build, sort and search, whatever the longest token.
STRINGS: Final = numpy.dtypes.StringDType()
Index = QModelIndex | QPersistentModelIndex


class VocabularyModel(QAbstractTableModel):
    """The active tokenizer's vocabulary, sorted and filtered in the model.

    Strings live in NumPy's variable-width string arrays, so sorting and substring tests run in
    C; each column's ascending order is computed once and reused (a descending sort reverses it
    group by group, so equal keys stay in id order both ways).
    """

    def __init__(self) -> None:
        super().__init__()
        self.table = VocabularyColumns()
        self.order: NDArray[numpy.int64] = numpy.zeros(0, dtype=numpy.int64)
        self._rows: list[int] = []  # (`order` as a list: read for every cell painted)
        self._colors = {kind: QColor(color) for kind, color in KIND_COLORS.items()}
        self._keys: list[NDArray[Any]] = []
        self._lower: tuple[NDArray[Any], NDArray[Any]] | None = None
        self._ascending: dict[int, NDArray[numpy.int64]] = {}
        self._sort_column = ID
        self._sort_order = Qt.SortOrder.AscendingOrder
        self._filter = ""
        self._filter_mode = FILTER_MODES[0]
        self._match_case = False
        self.filter_error = ""

    def set_table(self, table: VocabularyColumns) -> None:
        self.beginResetModel()
        self.table = table
        # (the arrays sorting and filtering need are made when first needed: showing a new
        # table must not stall the window at the end of a training)
        self._keys = []
        self._lower = None
        self._ascending = {}
        self._set_order(self._compute_order())
        self.endResetModel()

    def set_table_empty(self) -> None:
        self.set_table(VocabularyColumns())

    # -- sorting and filtering -----------------------------------------------------------------

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._sort_column = column
        self._sort_order = order
        self.layoutAboutToBeChanged.emit()
        self._set_order(self._compute_order())
        self.layoutChanged.emit()

    def set_filter(self, text: str, mode: str = "contains", match_case: bool = False) -> None:
        """Keep the rows whose token (as shown or raw) contains / starts with / matches `text`.
        A regex that does not compile keeps every row and sets `filter_error`."""
        if (text, mode, match_case) == (self._filter, self._filter_mode, self._match_case):
            return  # (the rows are filtered so already: `set_table` filters a new table)
        self._filter = text
        self._filter_mode = mode
        self._match_case = match_case
        self.beginResetModel()
        self._set_order(self._compute_order())
        self.endResetModel()

    def _set_order(self, order: NDArray[numpy.int64]) -> None:
        self.order = order
        self._rows = order.tolist()

    def _key(self, column: int) -> NDArray[Any]:
        """The values of `column` as an array (made once per table)."""
        if not self._keys:
            table = self.table
            self._keys = [
                _numbers(table.ids),
                numpy.array(table.shown.tolist(), dtype=STRINGS),
                _numbers(table.char_lengths),
                _numbers(table.byte_lengths),
                numpy.array(table.kinds.tolist(), dtype=STRINGS),
                _numbers(table.merge_ranks),
                _numbers(table.frequencies),
                numpy.array(table.tokens.tolist(), dtype=STRINGS),
            ]
        return self._keys[column]

    def _sorted(self, column: int) -> NDArray[numpy.int64]:
        """The rows in ascending order of `column`, ties in id order (computed once)."""
        found = self._ascending.get(column)
        if found is None:
            if column == ID and _increasing(self.table.ids):
                found = numpy.arange(len(self.table), dtype=numpy.int64)  # (the usual order: no sort)
            else:
                found = numpy.argsort(self._key(column), kind="stable").astype(numpy.int64)
            self._ascending[column] = found
        return found

    def _compute_order(self) -> NDArray[numpy.int64]:
        if len(self.table) == 0:
            return numpy.zeros(0, dtype=numpy.int64)
        order = self._sorted(self._sort_column)
        if self._sort_order == Qt.SortOrder.DescendingOrder:
            order = _reverse_groups(order, self._key(self._sort_column)[order])
        mask = self._mask()
        if mask is not None:
            order = order[mask[order]]
        return order

    def _mask(self) -> NDArray[numpy.bool_] | None:
        self.filter_error = ""
        text = self._filter
        if not text:
            return None
        if self._filter_mode == "regex":
            return self._regex_mask(text)
        shown, raw = self._key(SHOWN_KEY), self._key(RAW_KEY)
        if not self._match_case:
            if self._lower is None:
                self._lower = (numpy.strings.lower(shown), numpy.strings.lower(raw))
            shown, raw = self._lower
        needle = text if self._match_case else text.lower()
        if self._filter_mode == "starts with":
            found: NDArray[numpy.bool_] = numpy.strings.startswith(shown, needle) | numpy.strings.startswith(raw, needle)
            return found
        found = (numpy.strings.find(shown, needle) >= 0) | (numpy.strings.find(raw, needle) >= 0)
        return found

    def _regex_mask(self, text: str) -> NDArray[numpy.bool_] | None:
        try:
            pattern = re.compile(text, 0 if self._match_case else re.IGNORECASE)
        except re.error as error:
            self.filter_error = f"not a valid regex: {error}"
            return None
        shown = self.table.shown.tolist()
        tokens = self.table.tokens.tolist()
        search = pattern.search
        hits = numpy.zeros(len(shown), dtype=numpy.bool_)
        for i in range(len(shown)):
            # the raw token is searched too, where it differs from what is shown
            if search(shown[i]) is not None or (tokens[i] != shown[i] and search(tokens[i]) is not None):
                hits[i] = True
        return hits

    # -- the Qt model --------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else int(self.order.shape[0])

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> object:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def row_of(self, index: Index) -> int:
        """The vocabulary table row behind a view row."""
        return self._rows[index.row()]

    def data(self, index: Index, role: int = DISPLAY) -> object:
        if role == DISPLAY:
            if not index.isValid():
                return None
            return self.cell(self._rows[index.row()], index.column())
        if role == ALIGNMENT:
            return RIGHT if index.column() not in (TOKEN, KIND) else None
        if role == FOREGROUND:
            if index.column() not in (TOKEN, KIND) or not index.isValid():
                return None
            return self._colors.get(self.table.kinds[self._rows[index.row()]])
        if role == TOOLTIP and index.column() == TOKEN and index.isValid():
            return f"raw: {self.table.tokens[self._rows[index.row()]]!r}"
        return None

    def cell(self, i: int, column: int) -> str:
        table = self.table
        if column == ID:
            return str(table.ids[i])
        if column == TOKEN:
            return table.shown[i]
        if column == CHARS:
            return str(table.char_lengths[i])
        if column == BYTES:
            return str(table.byte_lengths[i])
        if column == KIND:
            return table.kinds[i]
        if column == RANK:
            rank = table.merge_ranks[i]
            return f"{rank:,}" if rank >= 0 else ""
        frequency = table.frequencies[i]
        return f"{frequency:,}" if frequency >= 0 else ""

    def visible_csv(self) -> str:
        """The rows as they are shown (filtered, sorted), with the raw token, as CSV."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["id", "token", "raw", "chars", "bytes", "kind", "merge_rank", "frequency"])
        table = self.table
        for i in self._rows:
            writer.writerow([
                table.ids[i], table.shown[i], table.tokens[i], table.char_lengths[i], table.byte_lengths[i],
                table.kinds[i], table.merge_ranks[i] if table.merge_ranks[i] >= 0 else "",
                table.frequencies[i] if table.frequencies[i] >= 0 else "",
            ])
        return out.getvalue()


def _reverse_groups(order: NDArray[numpy.int64], keys: NDArray[Any]) -> NDArray[numpy.int64]:
    """`order` (ascending by `keys`, ties in id order) turned descending, ties still in id order:
    the groups of equal keys are reversed, not the rows inside them."""
    n = order.shape[0]
    starts = numpy.ones(n, dtype=numpy.bool_)
    starts[1:] = keys[1:] != keys[:-1]
    group = numpy.cumsum(starts, dtype=numpy.int64)
    result: NDArray[numpy.int64] = order[numpy.argsort(-group, kind="stable")]
    return result


def _increasing(ids: array[int]) -> bool:
    """Whether `ids` are in increasing order (a table's usual order, id by id)."""
    values = _numbers(ids)
    return bool(numpy.all(values[1:] > values[:-1]))


def _numbers(column: array[int]) -> NDArray[numpy.int64]:
    """A column of numbers as an array (its memory, not a copy)."""
    return numpy.frombuffer(column, dtype=numpy.int64) if len(column) else numpy.zeros(0, dtype=numpy.int64)
