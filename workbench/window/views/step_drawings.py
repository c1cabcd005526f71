"""The drawings of the Encode tab's Step Through page, one per model: `WordWindow` (WordPiece: the
word's characters, the window looked up and the tokens found), `SymbolRows` (BPE: the symbol row
after each merge, the merged pair joined to its token) and `LatticeDrawing` (Unigram: every
piece over the positions it covers, the best score per position filling in, the back-pointers as
arcs and the chosen path lit). They draw the state they are given, in the palette's colours
(light or dark); the steps come from `engine.analysis.encode_steps` through the encoding process.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPalette, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from engine.analysis.vocabulary import visible_text
from workbench.window.views.token_view import UNKNOWN_COLOR, is_dark, token_color

# (light theme, dark theme) fills: a lookup that found its piece, one that did not, the best path
FOUND: Final = ("#a9dfbf", "#1d6b40")
MISSED: Final = ("#f5b7b1", "#7b241c")
LIT: Final = ("#f9e79f", "#8a7209")
# the outlines of the same, drawn over any fill
FOUND_EDGE: Final = ("#1e8449", "#58d68d")
MISSED_EDGE: Final = ("#c0392b", "#f1948a")
# How much larger than the window's text the drawings write characters and pieces.
DRAWING_SCALE: Final = 1.2
MARGIN: Final = 12
PAD: Final = 6


def monospace(base: QFont, scale: float = 1.0) -> QFont:
    """The editor's font for characters and pieces: fixed width, at least 10 points (`scale`
    times as large: the drawings are read from further than a table)."""
    font = QFont("Monospace")
    font.setStyleHint(QFont.StyleHint.TypeWriter)
    font.setPointSizeF(max(base.pointSizeF(), 10.0) * scale)
    return font


def shown(text: str) -> str:
    """A piece as drawn: spaces and invisible characters visible ("a b" -> "a·b")."""
    return visible_text(text, True, True)


def theme(colors: tuple[str, str], dark: bool) -> QColor:
    return QColor(colors[1] if dark else colors[0])


class _Drawing(QWidget):
    """A drawing that sizes itself to what it draws (the page scrolls it)."""

    def __init__(self) -> None:
        super().__init__()
        self.mono = monospace(self.font(), DRAWING_SCALE)
        self._size = QSize(200, 80)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self._size

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self._size

    def _resize_to(self, width: float, height: float) -> None:
        self._size = QSize(int(width) + 1, int(height) + 1)
        self.setMinimumSize(self._size)
        self.updateGeometry()
        self.update()

    def _text_color(self) -> QColor:
        return self.palette().color(QPalette.ColorRole.Text)

    def _line_color(self) -> QColor:
        return self.palette().color(QPalette.ColorRole.Mid)

    def _base_color(self) -> QColor:
        return self.palette().color(QPalette.ColorRole.Base)


class WordWindow(_Drawing):
    """WordPiece: the word's characters in cells, the window being looked up outlined (green:
    in the vocabulary; red: not) with the piece looked up above it, and the tokens found so far
    shaded in their colours under their cells (the whole word red when it became unknown)."""

    def __init__(self) -> None:
        super().__init__()
        self.word = ""
        # (start, end, piece, id or -1) of the lookup shown, or None
        self.looked_up: tuple[int, int, str, int] | None = None
        # (id, token, start, end) of the tokens found so far
        self.tokens: list[tuple[int, str, int, int]] = []
        self.unknown = False

    def show_state(self, word: str, window: tuple[int, int, str, int] | None, tokens: list[tuple[int, str, int, int]], unknown: bool) -> None:
        self.word = word
        self.looked_up = window
        self.tokens = tokens
        self.unknown = unknown
        metrics = QFontMetrics(self.mono)
        cell = self._cell(metrics)
        labels = max([metrics.horizontalAdvance(shown(t[1])) + PAD for t in tokens] + [0])
        self._resize_to(2 * MARGIN + max(len(word) * cell, labels, 300), 5 * metrics.height() + 5 * PAD)

    def _cell(self, metrics: QFontMetrics) -> int:
        widest = max([metrics.horizontalAdvance(shown(char)) for char in self.word] + [metrics.horizontalAdvance("M")])
        return widest + 2 * PAD

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(self.mono)
        metrics = QFontMetrics(self.mono)
        dark = is_dark()
        cell = self._cell(metrics)
        line = metrics.height()
        top = MARGIN + line + PAD  # (the piece looked up is written above the cells)
        height = line + 2 * PAD
        word = self.word
        # the tokens found so far, shaded under their cells
        for k, (id, token, start, end) in enumerate(self.tokens):
            color = QColor(UNKNOWN_COLOR) if self.unknown else token_color(id, k, dark)
            painter.fillRect(QRectF(MARGIN + start * cell, top, (end - start) * cell, height), color)
        painter.setPen(QPen(self._line_color(), 1))
        for index in range(len(word)):
            painter.drawRect(QRectF(MARGIN + index * cell, top, cell, height))
        painter.setPen(self._text_color())
        for index, char in enumerate(word):
            painter.drawText(QRectF(MARGIN + index * cell, top, cell, height), Qt.AlignmentFlag.AlignCenter, shown(char))
        # the positions between the characters
        small = QFont(self.font())
        painter.setFont(small)
        small_metrics = QFontMetrics(small)
        for position in range(len(word) + 1):
            label = str(position)
            x = MARGIN + position * cell - small_metrics.horizontalAdvance(label) / 2
            painter.drawText(QPointF(x, top + height + small_metrics.ascent() + 2), label)
        painter.setFont(self.mono)
        # each token's name under its cells
        below = top + height + small_metrics.height() + PAD
        for id, token, start, end in self.tokens:
            rect = QRectF(MARGIN + start * cell - cell, below, (end - start + 2) * cell, line + 2)
            painter.drawText(rect, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, shown(token))
        # the window looked up, outlined, and the piece above it
        if self.looked_up is not None:
            start, end, piece, id = self.looked_up
            found = id >= 0
            pen = QPen(theme(FOUND_EDGE if found else MISSED_EDGE, dark), 3)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(MARGIN + start * cell + 1.5, top + 1.5, (end - start) * cell - 3, height - 3))
            mark = f"{shown(piece)}  {'✓ id ' + str(id) if found else '✗ not in the vocabulary'}"
            painter.drawText(QPointF(MARGIN + start * cell, MARGIN + metrics.ascent()), mark)
        painter.end()


class SymbolRows(_Drawing):
    """BPE: the word's symbols as boxes, a row for the start and one after each merge shown; in
    each row after a merge the token it made is lit and joined by lines to the pair it came from;
    the last row, when the word is done, in the tokens' colours."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[int, str, int, int]]] = []
        # per row after the first: (position of the merged symbol, rank)
        self.merged: list[tuple[int, int]] = []
        self.done = False

    def show_state(self, rows: list[list[tuple[int, str, int, int]]], merged: list[tuple[int, int]], done: bool) -> None:
        self.rows = rows
        self.merged = merged
        self.done = done
        metrics = QFontMetrics(self.mono)
        width = 0.0
        for row in rows:
            width = max(width, self._row_width(row, metrics))
        self._resize_to(2 * MARGIN + self._label_width() + width, 2 * MARGIN + len(rows) * self._row_step(metrics))

    def _label_width(self) -> int:
        return QFontMetrics(self.font()).horizontalAdvance("after rank 000,000: tokens") + 2 * PAD

    def _row_step(self, metrics: QFontMetrics) -> int:
        return metrics.height() + 2 * PAD + 3 * PAD

    def _box_width(self, token: str, metrics: QFontMetrics) -> int:
        return metrics.horizontalAdvance(shown(token)) + 2 * PAD

    def _row_width(self, row: list[tuple[int, str, int, int]], metrics: QFontMetrics) -> float:
        return sum(self._box_width(token[1], metrics) + PAD for token in row)

    def row_top(self, index: int) -> int:
        """Where row `index` starts (to scroll to it)."""
        return MARGIN + index * self._row_step(QFontMetrics(self.mono))

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = QFontMetrics(self.mono)
        dark = is_dark()
        height = metrics.height() + 2 * PAD
        step = self._row_step(metrics)
        left = MARGIN + self._label_width()
        # the boxes' (left, right) per row, to join a merged token to its pair
        edges: list[list[tuple[float, float]]] = []
        for index, row in enumerate(self.rows):
            top = MARGIN + index * step
            painter.setFont(self.font())
            painter.setPen(self._text_color())
            label = "start" if index == 0 else f"after rank {self.merged[index - 1][1]:,}"
            if self.done and index == len(self.rows) - 1:
                label = "tokens" if index == 0 else label + ": tokens"
            painter.drawText(QRectF(MARGIN, top, self._label_width() - PAD, height), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, label)
            painter.setFont(self.mono)
            x = float(left)
            row_edges: list[tuple[float, float]] = []
            lit = self.merged[index - 1][0] if index > 0 else -1
            for k, (id, token, start, end) in enumerate(row):
                width = self._box_width(token, metrics)
                rect = QRectF(x, top, width, height)
                if self.done and index == len(self.rows) - 1:
                    fill = token_color(id, k, dark)
                elif k == lit:
                    fill = theme(LIT, dark)
                else:
                    fill = self._base_color()
                painter.setBrush(fill)
                painter.setPen(QPen(self._text_color() if k == lit else self._line_color(), 2 if k == lit else 1))
                painter.drawRoundedRect(rect, 4, 4)
                painter.setPen(self._text_color())
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, shown(token))
                row_edges.append((x, x + width))
                x += width + PAD
            edges.append(row_edges)
            above = edges[index - 1] if index > 0 else []
            if 0 <= lit < len(row_edges) and lit + 1 < len(above):
                # the merged token joined to the pair it was made of
                painter.setPen(QPen(theme(FOUND_EDGE, dark), 2))
                middle = (row_edges[lit][0] + row_edges[lit][1]) / 2
                for parent in (above[lit], above[lit + 1]):
                    painter.drawLine(QPointF((parent[0] + parent[1]) / 2, top - 3 * PAD), QPointF(middle, top))
        painter.end()


class LatticeDrawing(_Drawing):
    """Unigram: the word's characters as columns, each lattice node a box over the characters it
    covers with its piece and score, stacked in lanes; under them the best score of each position
    (filled in up to `filled`, the current one outlined), each filled position's back-pointer an
    arc back to where its piece starts, and the best path's nodes lit (the last `lit` of them)."""

    def __init__(self) -> None:
        super().__init__()
        self.word = ""
        # (start, end, id, piece, score, unknown)
        self.nodes: list[tuple[int, int, int, str, float, bool]] = []
        self.best: list[float] = []
        self.back: list[int] = []
        self.path: list[int] = []
        self.filled = 0
        self.current = -1
        self.lit = 0
        self._lanes: list[int] = []
        self._cell = 40

    def show_state(
        self, word: str, nodes: list[tuple[int, int, int, str, float, bool]], best: list[float], back: list[int],
        path: list[int], filled: int, current: int, lit: int,
    ) -> None:  # fmt: skip
        self.word = word
        self.nodes = nodes
        self.best = best
        self.back = back
        self.path = path
        self.filled = filled
        self.current = current
        self.lit = lit
        self._lanes = lanes(nodes)
        metrics = QFontMetrics(self.mono)
        small = QFontMetrics(self.font())
        cell = max([metrics.horizontalAdvance("M") + 2 * PAD, small.horizontalAdvance("-00.00") + 2 * PAD])
        for start, end, id, piece, score, unknown in nodes:
            if end - start == 1:  # (a longer piece's label may be shortened; a character's is not)
                cell = max(cell, metrics.horizontalAdvance(shown(piece)) + 2 * PAD, small.horizontalAdvance(f"{score:.2f}") + 2 * PAD)
        self._cell = cell
        count = max(self._lanes, default=-1) + 1
        self._resize_to(self._left() + len(word) * cell + 2 * MARGIN, self._best_top(count) + 6 * metrics.height())

    def _left(self) -> int:
        # (the "best score" label, then half a score's box: the boxes sit on the boundaries)
        small = QFontMetrics(self.font())
        return MARGIN + small.horizontalAdvance("best score") + 2 * PAD + self._box_width() // 2

    def _box_width(self) -> int:
        return QFontMetrics(self.font()).horizontalAdvance("-000.00") + PAD

    def _node_height(self) -> int:
        """A node's box: its piece, and its score under it in the window's font."""
        return QFontMetrics(self.mono).height() + QFontMetrics(self.font()).height() + 4

    def _lane_top(self, lane: int) -> int:
        metrics = QFontMetrics(self.mono)
        return MARGIN + 2 * metrics.height() + 2 * PAD + lane * (self._node_height() + PAD)

    def _best_top(self, count: int) -> int:
        return self._lane_top(count) + PAD

    def x_of(self, position: int) -> float:
        """The x of the boundary before character `position`."""
        return float(self._left() + position * self._cell)

    def lit_nodes(self) -> list[int]:
        return self.path[len(self.path) - self.lit :] if self.lit > 0 else []

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = QFontMetrics(self.mono)
        small = QFont(self.font())
        small_metrics = QFontMetrics(small)
        dark = is_dark()
        cell = self._cell
        line = metrics.height()
        # the characters, and the positions between them
        painter.setFont(small)
        painter.setPen(self._text_color())
        for position in range(len(self.word) + 1):
            label = str(position)
            painter.drawText(QPointF(self.x_of(position) - small_metrics.horizontalAdvance(label) / 2, MARGIN + small_metrics.ascent()), label)
        painter.setFont(self.mono)
        for index, char in enumerate(self.word):
            painter.drawText(QRectF(self.x_of(index), MARGIN + small_metrics.height(), cell, line + PAD), Qt.AlignmentFlag.AlignCenter, shown(char))
        count = max(self._lanes, default=-1) + 1
        best_top = self._best_top(count)
        painter.setPen(QPen(self._line_color(), 1, Qt.PenStyle.DotLine))
        for position in range(len(self.word) + 1):
            painter.drawLine(QPointF(self.x_of(position), MARGIN + small_metrics.height()), QPointF(self.x_of(position), best_top))
        # the nodes
        lit = set(self.lit_nodes())
        considered = set()
        chosen = -1
        if 0 < self.current < len(self.back):
            chosen = self.back[self.current]
            considered = {k for k, node in enumerate(self.nodes) if node[1] == self.current}
        for k, (start, end, id, piece, score, unknown) in enumerate(self.nodes):
            rect = QRectF(self.x_of(start) + 2, self._lane_top(self._lanes[k]), (end - start) * cell - 4, self._node_height())
            if k in lit:
                fill = theme(LIT, dark)
            elif unknown:
                fill = theme(MISSED, dark)
            else:
                fill = self.palette().color(QPalette.ColorRole.AlternateBase)
            painter.setBrush(fill)
            if k == chosen:
                pen = QPen(theme(FOUND_EDGE, dark), 3)
            elif k in considered:
                pen = QPen(self._text_color(), 1.5, Qt.PenStyle.DashLine)
            elif k in lit:
                pen = QPen(self._text_color(), 2)
            else:
                pen = QPen(self._line_color(), 1)
            painter.setPen(pen)
            painter.drawRoundedRect(rect, 3, 3)
            painter.setPen(self._text_color())
            painter.setFont(self.mono)
            text = metrics.elidedText(shown(piece), Qt.TextElideMode.ElideMiddle, int(rect.width()) - 4)
            painter.drawText(QRectF(rect.left(), rect.top() + 1, rect.width(), line), Qt.AlignmentFlag.AlignCenter, text)
            painter.setFont(small)
            painter.drawText(QRectF(rect.left(), rect.top() + line, rect.width(), small_metrics.height()), Qt.AlignmentFlag.AlignCenter, f"{score:.2f}")
        # the best score of each position
        painter.setFont(small)
        painter.setPen(self._text_color())
        box_height = small_metrics.height() + PAD
        painter.drawText(QRectF(MARGIN, best_top, self._left() - MARGIN, box_height), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, "best score")
        width = min(cell - 4, self._box_width())
        for position in range(len(self.word) + 1):
            rect = QRectF(self.x_of(position) - width / 2, best_top, width, box_height)
            filled = position <= self.filled and position < len(self.best)
            painter.setBrush(self._base_color())
            current = position == self.current
            painter.setPen(QPen(theme(FOUND_EDGE, dark) if current else self._line_color(), 3 if current else 1))
            painter.drawRect(rect)
            painter.setPen(self._text_color())
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, f"{self.best[position]:.2f}" if filled else "?")
        # the back-pointers: an arc from each filled position back to where its piece starts
        lit_ends = {self.nodes[node][1] for node in lit}
        arc_top = best_top + box_height
        for position in range(1, min(self.filled, len(self.back) - 1) + 1):
            node = self.back[position]
            if node < 0:
                continue
            start = self.nodes[node][0]
            if position in lit_ends:
                pen = QPen(theme(FOUND_EDGE, dark), 2.5)
            elif position == self.current:
                pen = QPen(theme(FOUND_EDGE, dark), 2)
            else:
                pen = QPen(self._line_color(), 1.2)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            x1, x0 = self.x_of(position), self.x_of(start)
            depth = min(3 * line, 10 + (x1 - x0) / 5)
            arc = QPainterPath(QPointF(x1, arc_top))
            arc.cubicTo(QPointF(x1, arc_top + depth), QPointF(x0, arc_top + depth), QPointF(x0 + 3, arc_top + 4))
            painter.drawPath(arc)
            # the arrow's head, at the start it points back to
            painter.drawLine(QPointF(x0 + 3, arc_top + 4), QPointF(x0 + 3, arc_top + 10))
            painter.drawLine(QPointF(x0 + 3, arc_top + 4), QPointF(x0 + 9, arc_top + 8))
        painter.end()


def lanes(nodes: list[tuple[int, int, int, str, float, bool]]) -> list[int]:
    """Each node's lane: the first whose last node ends at or before it starts (nodes come by
    start, then by length): [(0, 1), (0, 2), (1, 2)] -> [0, 1, 0]."""
    ends: list[int] = []
    found: list[int] = []
    for start, end, _, _, _, _ in nodes:
        for lane in range(len(ends) + 1):
            if lane == len(ends):
                ends.append(end)
                found.append(lane)
                break
            if ends[lane] <= start:
                ends[lane] = end
                found.append(lane)
                break
    return found
