"""`RowsModel`: rows of figures under named columns, sortable by any column (numbers as numbers)
and filtered by a text any of their words contain; tens of thousands of rows at most, sorted and
filtered in Python. The Audit's every tokenizer and text (`CostTableModel`: the CSV's columns,
`engine.analysis.audit.CSV_COLUMNS`) and its lists of tokens use it.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

Index = QModelIndex | QPersistentModelIndex
# How each column is headed in the table (the CSV keeps the machine names).
TITLES: Final = {
    "tokenizer": "Tokenizer", "text": "Text", "language": "Language", "iso639_3": "ISO 639-3", "script": "Script",
    "kind": "Kind", "articles": "Articles", "tokens": "Tokens", "words": "Words", "word_unit": "Word is a",
    "characters": "Characters", "bytes": "Bytes", "tokens_per_word": "Tokens per word",
    "characters_per_token": "Characters per token", "bytes_per_token": "Bytes per token",
    "split_word_share": "Words split", "unknown_rate": "Unknown", "byte_fallback_rate": "Byte fallback",
    "round_trip": "Decodes back", "premium_over_english": "Premium over English", "renyi_efficiency": "Rényi efficiency",
}  # fmt: skip
# Shares shown as percentages.
PERCENT_COLUMNS: Final = frozenset(("split_word_share", "unknown_rate", "byte_fallback_rate"))
# What a column's header says when pointed at.
EXPLAINED: Final = {
    "tokens_per_word": "Tokens per word (fertility); in scripts written without spaces (Han, Japanese, Thai, Lao, Khmer, Myanmar) a word is a character.",
    "split_word_share": "The share of words cut into more than one token.",
    "premium_over_english": "Tokens over English's with the same tokenizer, on the articles both texts have (Petrov et al. 2023). Empty for code and files.",
    "renyi_efficiency": "Rényi efficiency of the token distribution, alpha 2.5 (Zouhar et al. 2023): 1 when every token of the vocabulary is used equally.",
    "round_trip": "Whether decoding the ids gives the text back; point at a \"no\" for why not.",
    "unknown_rate": "The share of tokens that are the unknown token.",
    "byte_fallback_rate": "The share of tokens that spell a character byte by byte (<0xNN>).",
}  # fmt: skip
Value = str | int | float | None


class RowsModel(QAbstractTableModel):
    """Rows of values under `columns` (headed by `titles`, explained on hover by `explained`);
    `causes[i]`: why row i's text does not decode back (the tooltip of its "round_trip")."""

    def __init__(self, titles: dict[str, str] | None = None, explained: dict[str, str] | None = None) -> None:
        super().__init__()
        self.titles = titles if titles is not None else {}
        self.explained = explained if explained is not None else {}
        self.columns: list[str] = []
        self.rows: list[list[Value]] = []
        self.causes: list[list[str]] = []
        self._order: list[int] = []
        self._filter = ""
        self._sort: tuple[int, Qt.SortOrder] | None = None

    def set_rows(self, columns: list[str], rows: list[list[Value]], causes: list[list[str]] | None = None) -> None:
        self.beginResetModel()
        self.columns, self.rows, self.causes = columns, rows, causes if causes is not None else []
        self._order = self._compute_order()
        self.endResetModel()

    def set_filter(self, text: str) -> None:
        self.beginResetModel()
        self._filter = text.strip().casefold()
        self._order = self._compute_order()
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.layoutAboutToBeChanged.emit()
        self._sort = (column, order)
        self._order = self._compute_order()
        self.layoutChanged.emit()

    def _compute_order(self) -> list[int]:
        order = [i for i in range(len(self.rows)) if self._matches(self.rows[i])]
        if self._sort is not None and 0 <= self._sort[0] < len(self.columns):
            column, direction = self._sort
            # (rows without the figure, such as code's premium, stay last either way)
            valued = [i for i in order if self.rows[i][column] is not None]
            valued.sort(key=lambda i: _sort_key(self.rows[i][column]), reverse=direction == Qt.SortOrder.DescendingOrder)
            order = valued + [i for i in order if self.rows[i][column] is None]
        return order

    def _matches(self, row: list[Value]) -> bool:
        if not self._filter:
            return True
        return any(isinstance(value, str) and self._filter in value.casefold() for value in row)

    def row_of(self, index: Index) -> int:
        """The row of `rows` the table's row `index` shows."""
        return self._order[index.row()]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 - Qt's name
        return 0 if parent.isValid() else len(self._order)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802 - Qt's name
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> object:  # noqa: N802
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.columns):
            return None
        name = self.columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.titles.get(name, name)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.explained.get(name)
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        row = self.row_of(index)
        name = self.columns[index.column()]
        value = self.rows[row][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return cell(name, value)
        if role == Qt.ItemDataRole.TextAlignmentRole and isinstance(value, (int, float)):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and name == "round_trip" and value == "no" and row < len(self.causes):
            causes = self.causes[row]
            return "Not given back: " + "; ".join(causes) if causes else "Not given back."
        return None

    def value(self, row: int, column: str) -> Value:
        """The value in `column` of the table's `row` (as sorted and filtered)."""
        return self.rows[self._order[row]][self.columns.index(column)]


class CostTableModel(RowsModel):
    """The Audit's every tokenizer and text: rows of `TextCost.values()` under the CSV's columns,
    each headed and explained."""

    def __init__(self) -> None:
        super().__init__(TITLES, {name: EXPLAINED.get(name, f"{TITLES[name]} (the CSV's {name})") for name in TITLES})

    def text_of(self, row: int) -> str:
        """The text of the table's `row`, as the chart names it."""
        return str(self.value(row, "text"))


def fill_table(table: QTableWidget, rows: list[list[str]], tips: dict[int, str] | None = None) -> None:
    """Put `rows` of text in a small `table` (a few dozen rows: a model is not worth it), figures
    (cells after the first that start with a digit or a sign) aligned right, columns fitted;
    `tips[c]` is the tooltip of column c's cells."""
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            item = QTableWidgetItem(value)
            if c and value[:1] in "0123456789+-":
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if tips and c in tips:
                item.setToolTip(tips[c])
            table.setItem(r, c, item)
    table.resizeColumnsToContents()


def cell(name: str, value: Value) -> str:
    """A value as the table shows it: counts with thousands separators, shares as percentages,
    other figures to 2 decimals (Rényi's to 3), "—" for none."""
    if value is None:
        return "—"
    if isinstance(value, bool) or isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if name in PERCENT_COLUMNS:
        return f"{value:.2%}"
    if name == "renyi_efficiency":
        return f"{value:.3f}"
    return f"{value:.2f}"


def _sort_key(value: Value) -> tuple[float, str]:
    """Numbers by value, text by its folded form."""
    if isinstance(value, (int, float)):
        return (float(value), "")
    return (0.0, "" if value is None else value.casefold())
