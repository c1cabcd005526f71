"""`TokenTextEdit`: a text edit that shows token spans over the original characters.

Each token's span gets a background colour stable for its id (its hue from the id, the
lightness alternating so that neighbours always part); the unknown token is red (two reds
alternating), special tokens are bold purple, characters that several tokens share (the
byte-level pieces of one emoji) get a wavy underline, and a boundary other columns do not share
(Compare) is underlined in red. Hovering shows the tokens on the character (every one of them
where several share it), with id, offsets and bytes; clicking reports the token.

subtle: Qt shapes text in runs of one format, so a format that changes inside a grapheme
cluster (the family emoji 👩‍👩‍👧 is five characters; "é" may be two) breaks the cluster's
shaping: the family is drawn as three emoji. A cluster whose characters belong to several tokens
therefore gets one format, marked as shared, and formats change only between clusters.

The spans are data from the engine (offsets); this module only paints them. While the user
types, spans after the edit move with the text until the next encoding arrives.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Final

from PySide6.QtCore import QEvent, QMimeData, QPoint, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QMouseEvent,
    QPalette,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextOption,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QToolTip, QWidget

from engine.analysis.vocabulary import GRAPHEME, visible_text
from workbench.jobs.children.encoding import NORMAL, SPECIAL, UNKNOWN
from workbench.core.formatting import ERROR_COLOR

GOLDEN: Final = 0.6180339887498949
UNKNOWN_COLOR: Final = "#e74c3c"
SPECIAL_COLOR: Final = "#8e44ad"
SHARED_COLOR: Final = "#e67e22"
MARK_COLOR: Final = ERROR_COLOR
# subtle: a text document keeps no "\r" (it turns "\r\n" into a line break), so a carriage
# return is held as this one character, its picture: offsets stay the same.
CARRIAGE_RETURN: Final = "\u240d"
# Tokens listed one by one when the pointer rests on a character several tokens share.
HOVER_LIMIT: Final = 40


@dataclass
class Spans:
    """What to paint: `spans[i]` (start, end) in characters of the text, with its kind, its
    colour key (the token id when `ids`, else the piece's index), its label, and for hovering the
    token as the vocabulary holds it (`raw`) and its bytes in hex (`hexes`), both optional; the
    starts of spans several tokens share, and the starts to mark as unshared boundaries."""

    spans: list[tuple[int, int]] = field(default_factory=list)
    kinds: list[int] = field(default_factory=list)
    keys: list[int] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    hexes: list[str] = field(default_factory=list)
    shared: set[int] = field(default_factory=set)
    marked: set[int] = field(default_factory=set)
    ids: bool = True

    def __len__(self) -> int:
        return len(self.spans)

    def describe(self, index: int, one_line: bool = False) -> str:
        """What hovering span `index` shows: '·world'  (raw 'Ġworld') / id 995 · characters 5–11 · bytes 20 77 …
        (quoted as written: a byte that is no character reads \\xc3, invisible characters by name)."""
        label = self.labels[index] if index < len(self.labels) else ""
        raw = self.raw[index] if index < len(self.raw) else ""
        start, end = self.spans[index]
        facts = [f"id {self.keys[index]}"] if self.ids and index < len(self.keys) else []
        facts.append(f"characters {start}–{end}")
        if index < len(self.hexes):
            facts.append(f"bytes {self.hexes[index]}")
        return quoted(label) + (f"  (raw {quoted(raw)})" if raw and raw != label else "") + ("  " if one_line else "\n") + " · ".join(facts)

    def select(self, keep: list[int], shift: int, start: int, end: int) -> Spans:
        """The spans `keep` (indexes), each moved by `shift` when it starts at or after `end`;
        shared and marked starts in start..end are dropped (an edit replaced them)."""

        def moved(position: int) -> int:
            return position + shift if position >= end else position

        def pick(values: list[str]) -> list[str]:
            return [values[i] for i in keep] if values else []

        return Spans(
            [(moved(self.spans[i][0]), moved(self.spans[i][1])) for i in keep],
            [self.kinds[i] for i in keep],
            [self.keys[i] for i in keep],
            pick(self.labels),
            pick(self.raw),
            pick(self.hexes),
            {moved(s) for s in self.shared if s < start or s >= end},
            {moved(s) for s in self.marked if s < start or s >= end},
            self.ids,
        )


def quoted(text: str) -> str:
    """`text` in quotes as people read it: unlike `repr`, a backslash stays one ('\\xc3'
    is shown as typed), and characters that draw nothing are named ('👩⟨ZWJ⟩')."""
    return "'" + visible_text(text, names=True) + "'"


def grapheme_boundaries(text: str) -> list[int]:
    """The grapheme cluster boundaries of `text`, in Qt positions (UTF-16 units), both ends
    included: "e\u0301a" -> [0, 2, 3]; the family emoji "👩\u200d👩\u200d👧" -> [0, 8].

    subtle: not QTextBoundaryFinder: given a Python string, it answered boundaries inside
    surrogate pairs past the first few clusters here, as if reading a copy that is gone."""
    found = [0]
    position = 0
    for cluster in GRAPHEME.findall(text):
        position += len(cluster) + sum(1 for char in cluster if char > "\uffff")
        found.append(position)
    return found


def cluster_at(boundaries: list[int], position: int) -> tuple[int, int]:
    """The cluster (start, end) holding Qt position `position`: [0, 8, 9] and 3 -> (0, 8)."""
    i = bisect_right(boundaries, position) - 1
    if i < 0 or i + 1 >= len(boundaries):
        return (position, position + 1)
    return (boundaries[i], boundaries[i + 1])


def token_color(key: int, position: int, dark: bool) -> QColor:
    """A light (or, on a dark theme, deep) colour: hue from `key`, lightness from `position`'s
    parity, so equal tokens look alike and neighbours still part."""
    hue = (key * GOLDEN) % 1.0
    if dark:
        return QColor.fromHslF(hue, 0.45, 0.30 if position % 2 == 0 else 0.24)
    return QColor.fromHslF(hue, 0.75, 0.86 if position % 2 == 0 else 0.78)


def is_dark() -> bool:
    """Whether the application's palette is dark (text views are painted to match)."""
    return QGuiApplication.palette().color(QPalette.ColorRole.Base).lightness() < 128


def qt_positions(text: str) -> list[int]:
    """Where each character of `text` (and its end) is in Qt's positions, which count UTF-16
    units: a character past U+FFFF (an emoji) takes two. "a😀b" -> [0, 1, 3, 4]."""
    if not text or max(text) <= "\uffff":
        return list(range(len(text) + 1))
    positions = [0]
    position = 0
    for char in text:
        position += 2 if ord(char) > 0xFFFF else 1
        positions.append(position)
    return positions


def changed_range(old: list[tuple[int, int, int, int, bool, bool]], new: list[tuple[int, int, int, int, bool, bool]]) -> tuple[int, int] | None:
    """The positions where two lists of (start, end, ...) spans differ, from the first span that
    differs to the end of the last one; None when they are the same."""
    if old == new:
        return None
    size = min(len(old), len(new))
    head = 0
    while head < size and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < size - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    differing = old[head : len(old) - tail] + new[head : len(new) - tail]
    return min(span[0] for span in differing), max(span[1] for span in differing)


class SpanHighlighter(QSyntaxHighlighter):
    """Paints `Spans` over a document, block by block, finding each block's spans by bisection.

    New spans repaint only the blocks where they differ from the spans shown (and the blocks
    edited since), so a new encoding after one keystroke in a long text repaints a line or two;
    the lightness alternates within each block, so a token added in one line leaves the colours
    of the others as they are.

    subtle: the spans count characters (Python, the engine); the document counts UTF-16 units,
    so every span is also kept in Qt positions, and a span never cuts an emoji in half.
    """

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self.data = Spans()
        self.dark = False
        self.shift_on_edit = True
        self._formats: dict[tuple[int, int, bool, bool], QTextCharFormat] = {}
        self._text = document.toPlainText()
        self._positions = qt_positions(self._text)
        # the spans, shared starts and marks in Qt positions
        self._q: list[tuple[int, int]] = []
        self._q_starts: list[int] = []
        self._q_shared: set[int] = set()
        self._q_marked: set[int] = set()
        # the Qt positions edited since the spans were last painted: (first, end), or None
        self._edited: tuple[int, int] | None = None
        self._painting = False
        document.contentsChange.connect(self._on_document_contents_change)

    def set_spans(self, data: Spans) -> None:
        shown = self._signature()
        self.data = data
        self._text = self.document().toPlainText()
        self._positions = qt_positions(self._text)
        self._convert()
        dark = is_dark()
        if dark != self.dark:
            self.dark = dark
            self._formats = {}
            self._edited = None
            self._repaint()
            return
        changed = changed_range(shown, self._signature())
        edited, self._edited = self._edited, None
        if edited is not None:
            changed = edited if changed is None else (min(changed[0], edited[0]), max(changed[1], edited[1]))
        if changed is not None:
            self._repaint(*changed)

    def restyle(self) -> None:
        """Paint again in the application's palette (after a theme change)."""
        self.dark = is_dark()
        self._formats = {}
        self._repaint()

    def _signature(self) -> list[tuple[int, int, int, int, bool, bool]]:
        # what decides how each span looks, in Qt positions
        kinds, keys, shared, marked = self.data.kinds, self.data.keys, self._q_shared, self._q_marked
        return [
            (start, end, kinds[i] if i < len(kinds) else NORMAL, keys[i] if i < len(keys) else i, start in shared, start in marked)
            for i, (start, end) in enumerate(self._q)
        ]

    def _repaint(self, first: int = 0, end: int = -1) -> None:
        """Highlight the blocks that hold Qt positions first..end (all of them by default)."""
        document = self.document()
        self._painting = True
        try:
            if first <= 0 and (end < 0 or end >= document.characterCount() - 1):
                self.rehighlight()
                return
            block = document.findBlock(first)
            stop = document.findBlock(end).next()
            while block.isValid() and block != stop:
                self.rehighlightBlock(block)
                block = block.next()
        finally:
            self._painting = False

    def _convert(self) -> None:
        positions = self._positions
        last = len(positions) - 1
        if positions[last] == last and max((end for _, end in self.data.spans), default=0) <= last:
            # no character takes two UTF-16 units: characters are Qt positions
            self._q = list(self.data.spans)
            self._q_shared = set(self.data.shared)
            self._q_marked = set(self.data.marked)
        else:

            def q(index: int) -> int:
                return positions[min(max(index, 0), last)]

            self._q = [(q(start), q(end)) for start, end in self.data.spans]
            self._q_shared = {q(start) for start in self.data.shared}
            self._q_marked = {q(start) for start in self.data.marked}
        self._q_starts = [start for start, _ in self._q]

    def qt_span(self, index: int) -> tuple[int, int]:
        """Span `index` in Qt positions."""
        return self._q[index]

    def index_at(self, position: int) -> int:
        """The index of the (first) span covering Qt position `position`, or -1."""
        found = self.indexes_at(position)
        return found[0] if found else -1

    def indexes_at(self, position: int) -> list[int]:
        """Every span covering Qt position `position` (the byte pieces of one character, or the
        tokens that share its grapheme cluster), in order."""
        spans = self._q
        if not spans:
            return []
        first, end = position, position + 1
        document = self.document()
        block = document.findBlock(position)
        text = block.text()
        if block.isValid() and text and max(text) >= "\u0300":
            # the whole grapheme cluster under the pointer
            start, stop = cluster_at(grapheme_boundaries(text), position - block.position())
            first, end = block.position() + start, block.position() + stop
        i = bisect_right(self._q_starts, end - 1)
        found: list[int] = []
        # spans start in order; look back past the ones that start before the cluster
        j = i - 1
        while j >= 0 and (spans[j][1] > first or spans[j][0] >= first):
            j -= 1
        for index in range(j + 1, i):
            start, stop = spans[index]
            if start < end and max(stop, start + 1) > first:
                found.append(index)
        return found

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt's name
        spans = self._q
        if not spans:
            return
        block = self.currentBlock()
        block_start = block.position()
        block_end = block_start + max(block.length() - 1, 0)
        i = max(bisect_right(self._q_starts, block_start) - 1, 0)
        # a span starting before the block may reach into it
        while i > 0 and spans[i - 1][1] > block_start:
            i -= 1
        n = len(spans)
        shared = self._q_shared
        marked = self._q_marked
        # what is painted, block-relative: (start, end, span index, parity, marked)
        ranges: list[tuple[int, int, int, int, bool]] = []
        # the lightness alternates within the block; pieces of one span share theirs
        parity = 0
        previous = (-1, -1)
        while i < n and spans[i][0] < block_end:
            start, end = spans[i]
            if end > block_start and end > start:
                if (start, end) != previous and previous != (-1, -1):
                    parity ^= 1
                previous = (start, end)
                begin = max(start, block_start)
                stop = min(end, block_end)
                if start in marked and start >= block_start:
                    width = 2 if end - start >= 2 and self._is_pair(start) else 1
                    ranges.append((begin - block_start, begin - block_start + width, i, parity, True))
                    begin += width
                if stop > begin:
                    ranges.append((begin - block_start, stop - block_start, i, parity, False))
            i += 1
        clusters = self._split_clusters(text, ranges)
        for start, end, index, parity, mark in ranges:
            self.setFormat(start, end - start, self._format(index, parity, spans[index][0] in shared, mark))
        # subtle: painted last, so that each of these clusters has one format (see the module)
        for start, end, index, parity, mark in clusters:
            self.setFormat(start, end - start, self._format(index, parity, True, mark))

    def _split_clusters(self, text: str, ranges: list[tuple[int, int, int, int, bool]]) -> list[tuple[int, int, int, int, bool]]:
        """The grapheme clusters of a block that painted ranges would cut (their characters belong
        to several tokens, or to a token and none): (start, end, the first range's span index and
        parity, whether a mark falls in it)."""
        if not ranges or max(text) < "\u0300":
            return []  # (no character here joins a cluster with its neighbour)
        boundaries = grapheme_boundaries(text)
        at_boundary = set(boundaries)
        starts = [r[0] for r in ranges]
        found: list[tuple[int, int, int, int, bool]] = []
        for start, end, _, _, _ in ranges:
            for cut in (start, end):
                if cut in at_boundary or (found and found[-1][0] < cut < found[-1][1]):
                    continue
                first, last = cluster_at(boundaries, cut)
                # the ranges in the cluster: they start in order and do not overlap (pieces of
                # one span aside, which have the same start and end)
                j = bisect_left(starts, last) - 1
                mark = False
                while j >= 0 and ranges[j][1] > first:
                    mark = mark or ranges[j][4]
                    j -= 1
                if j + 1 < len(ranges) and ranges[j + 1][0] < last:
                    found.append((first, last, ranges[j + 1][2], ranges[j + 1][3], mark))
        return found

    def _is_pair(self, position: int) -> bool:
        # whether the character at Qt position `position` takes two UTF-16 units
        index = bisect_right(self._positions, position) - 1
        return 0 <= index < len(self._positions) - 1 and self._positions[index + 1] - self._positions[index] == 2

    def _format(self, index: int, parity: int, shared: bool, marked: bool) -> QTextCharFormat:
        kind = self.data.kinds[index] if index < len(self.data.kinds) else NORMAL
        key = self.data.keys[index] if index < len(self.data.keys) else index
        cache_key = (key if kind == NORMAL else -kind, parity, shared, marked)
        found = self._formats.get(cache_key)
        if found is not None:
            return found
        form = QTextCharFormat()
        if kind == UNKNOWN:
            # two reds, so that neighbouring unknown tokens still part
            form.setBackground(QColor(UNKNOWN_COLOR if parity == 0 else ERROR_COLOR))
            form.setForeground(QColor("#ffffff"))
        elif kind == SPECIAL:
            form.setForeground(QColor(SPECIAL_COLOR))
            form.setFontWeight(QFont.Weight.Bold)
            form.setBackground(token_color(key, parity, self.dark))
        else:
            form.setBackground(token_color(key, parity, self.dark))
        if shared:
            form.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            form.setUnderlineColor(QColor(SHARED_COLOR))
        if marked:
            form.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
            form.setUnderlineColor(QColor(MARK_COLOR))
            form.setFontUnderline(True)
        self._formats[cache_key] = form
        return form

    def _on_document_contents_change(self, position: int, removed: int, added: int) -> None:
        """Spans after the edit move with the text; spans the edit touches are dropped."""
        # subtle: painting formats reports a change too, with the text as it was.
        if self._painting:
            return
        text = self.document().toPlainText()
        if text == self._text:
            return
        old_positions = self._positions
        self._text = text
        self._positions = qt_positions(text)
        # the edited blocks were painted with the spans as they were: paint them again next time
        edited_first, edited_end = position, position + added
        if self._edited is not None:
            first, last = self._edited
            moved = last + added - removed if last >= position + removed else last
            edited_first, edited_end = min(first, position), max(moved, edited_end)
        self._edited = (edited_first, edited_end)
        if not self.shift_on_edit or not self.data.spans:
            return
        # the edit in characters: where it starts and ends in the old text, and the length change
        start = bisect_right(old_positions, position) - 1
        end = bisect_right(old_positions, position + removed) - 1
        delta = (len(self._positions) - 1) - (len(old_positions) - 1)
        keep = [index for index, (first, last) in enumerate(self.data.spans) if last <= start or first >= end]
        self.data = self.data.select(keep, delta, start, end)
        self._convert()


class TokenTextEdit(QPlainTextEdit):
    """A plain-text edit with token spans painted over it (see the module). `edited()` when the
    text changes (not when spans are painted); `token_clicked(i)` when a click (not a
    selection) lands on span i; `select_token(i)` outlines span i."""

    token_clicked = Signal(int)
    edited = Signal()

    def __init__(self, read_only: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(read_only)
        self.setMouseTracking(True)
        self.highlighter = SpanHighlighter(self.document())
        self.highlighter.shift_on_edit = not read_only
        font = QFont("Monospace")
        font.setStyleHint(QFont.StyleHint.TypeWriter)
        font.setPointSizeF(max(self.font().pointSizeF(), 10.0))
        self.setFont(font)
        self._selected = -1
        self._text = self.toPlainText()
        self.document().contentsChanged.connect(self._on_document_contents_changed)

    def _on_document_contents_changed(self) -> None:
        # subtle: painting spans reports a change too; only a change of the text is an edit.
        text = self.toPlainText()
        if text != self._text:
            self._text = text
            self.edited.emit()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        # subtle: Qt delivers the application's palette change as a posted event, and changes
        # arrive during __init__ too, before the highlighter exists
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "highlighter"):
            self.highlighter.restyle()

    def set_text(self, text: str) -> None:
        """Show `text` exactly: a carriage return stays one character (drawn as ␍)."""
        self.setPlainText(text.replace("\r", CARRIAGE_RETURN))

    def text(self) -> str:
        """The text as it is, carriage returns included."""
        return self.toPlainText().replace(CARRIAGE_RETURN, "\r")

    def insertFromMimeData(self, source: QMimeData) -> None:  # noqa: N802 - Qt's name
        # pasted "\r\n" keeps its "\r" (see `set_text`)
        if source.hasText():
            self.textCursor().insertText(source.text().replace("\r", CARRIAGE_RETURN))
        else:
            super().insertFromMimeData(source)

    def cursor_character(self) -> int:
        """The cursor's place as a character index of `text()` (Qt counts an emoji as two)."""
        return bisect_left(qt_positions(self.toPlainText()), self.textCursor().position())

    def set_spans(self, data: Spans) -> None:
        self._selected = -1
        self.setExtraSelections([])
        self.highlighter.set_spans(data)

    def set_whitespace_glyphs(self, on: bool) -> None:
        option = self.document().defaultTextOption()
        flags = option.flags()
        glyphs = QTextOption.Flag.ShowTabsAndSpaces | QTextOption.Flag.ShowLineAndParagraphSeparators
        option.setFlags(flags | glyphs if on else flags & ~glyphs)
        self.document().setDefaultTextOption(option)

    def select_token(self, index: int, scroll: bool = True) -> None:
        """Outline span `index` (-1: none)."""
        self._selected = index
        spans = self.highlighter.data.spans
        if not 0 <= index < len(spans):
            self.setExtraSelections([])
            return
        start, end = self.highlighter.qt_span(index)
        cursor = QTextCursor(self.document())
        cursor.setPosition(start)
        cursor.setPosition(max(end, start + 1), QTextCursor.MoveMode.KeepAnchor)
        selection = QTextEdit.ExtraSelection()
        selection.cursor = cursor
        form = QTextCharFormat()
        form.setBackground(self.palette().color(QPalette.ColorRole.Highlight))
        form.setForeground(self.palette().color(QPalette.ColorRole.HighlightedText))
        form.setProperty(QTextFormat.Property.FullWidthSelection, False)
        selection.format = form
        self.setExtraSelections([selection])
        if scroll:
            view_cursor = QTextCursor(self.document())
            view_cursor.setPosition(start)
            rect = self.cursorRect(view_cursor)
            if not self.viewport().rect().contains(rect):
                self._scroll_to(view_cursor)

    def _scroll_to(self, cursor: QTextCursor) -> None:
        keep = self.textCursor()
        self.setTextCursor(cursor)
        self.ensureCursorVisible()
        if self.isReadOnly():
            self.setTextCursor(keep)

    def selected_token(self) -> int:
        return self._selected

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        super().mouseMoveEvent(event)
        hover = self.hover_text(self._position_at(event.position().toPoint()))
        if hover:
            QToolTip.showText(event.globalPosition().toPoint(), hover, self.viewport())
        else:
            QToolTip.hideText()

    def hover_text(self, position: int) -> str:
        """What hovering Qt position `position` shows: every token on its character (or its
        grapheme cluster), one paragraph each; "" where no token is."""
        data = self.highlighter.data
        found = [index for index in self.highlighter.indexes_at(position) if index < len(data)] if position >= 0 else []
        if len(found) > 1:
            lines = [data.describe(index, one_line=True) for index in found[:HOVER_LIMIT]]
            if len(found) > HOVER_LIMIT:
                lines.append(f"… and {len(found) - HOVER_LIMIT} more")
            return f"{len(found)} tokens on this character:\n" + "\n".join(lines)
        return data.describe(found[0]) if found else ""

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and not self.textCursor().hasSelection():
            index = self._index_at(event.position().toPoint())
            if index >= 0:
                self.token_clicked.emit(index)

    def _index_at(self, point: QPoint) -> int:
        position = self._position_at(point)
        return self.highlighter.index_at(position) if position >= 0 else -1

    def _position_at(self, point: QPoint) -> int:
        cursor = self.cursorForPosition(point)
        position = cursor.position()
        # the cursor lands between characters: the character under the pointer is the one before
        # when the pointer is past its middle
        rect = self.cursorRect(cursor)
        if point.x() < rect.x() and position > 0:
            position -= 1
        return position
