"""The Audit tab's charts (pyqtgraph): every language's premium over English, cheapest first, a
line per tokenizer; and the median premium per script, a bar per tokenizer. They draw what
`workbench.core.audit_report` works out (the HTML report draws the same figures); nothing is
measured here.
"""

from __future__ import annotations

import math
from typing import Final

import pyqtgraph
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget

from workbench.core.audit_report import DOTS_FROM, SERIES_COLOURS, UNCOVERED_RATE
from workbench.core.formatting import MB, human_size
from workbench.core.parallel_text import script_title
from workbench.core.vocab_reports import DrawnCurve, shown_up_to
from workbench.window.views.training_plots import style_plot

# A premium line has a dot per language up to this many languages (the HTML report's rule too).
MAX_DOTS: Final = DOTS_FROM
# How tall one script's row of bars is, in data units (a row is 1).
BAR_SHARE: Final = 0.8


def series_colour(index: int) -> QColor:
    """The colour of the `index`th tokenizer: the HTML report's."""
    return QColor(SERIES_COLOURS[index % len(SERIES_COLOURS)])


def _style(plot: pyqtgraph.PlotWidget, legend: pyqtgraph.LegendItem) -> None:
    """A plot and its legend in the application palette's colours (light or dark theme), with
    the training plots' grid (`style_plot`)."""
    palette = QApplication.palette()
    legend.setLabelTextColor(palette.color(QPalette.ColorRole.Text))
    legend.setBrush(pyqtgraph.mkBrush(palette.color(QPalette.ColorRole.Base)))
    legend.setPen(pyqtgraph.mkPen(palette.color(QPalette.ColorRole.Mid)))
    style_plot(plot, ("left", "bottom", "top"))


class _Chart(QWidget):
    """A plot in the palette's colours with its legend at `legend_offset`; with a `hint`, a line
    below it reads the chart out where the mouse points (`read_at`, given the x of the plot's
    data). Subclasses draw their data in `redraw`, again when the palette changes."""

    def __init__(self, legend_offset: tuple[int, int], hint: str = "") -> None:
        super().__init__()
        self.plot = pyqtgraph.PlotWidget()
        self.plot.setMenuEnabled(False)
        self.readout = QLabel(hint)
        self.readout.setTextFormat(Qt.TextFormat.RichText)
        self.readout.setWordWrap(True)  # (a long readout must not widen the window)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot, 1)
        if hint:
            layout.addWidget(self.readout)
            self.plot.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self._legend = self.plot.addLegend(offset=legend_offset)

    def apply_palette(self) -> None:
        _style(self.plot, self._legend)
        self.redraw()

    def redraw(self) -> None:
        raise NotImplementedError

    def read_at(self, x: float) -> str:
        """What the readout says with the mouse at `x` ("": leave it as it is)."""
        return ""

    def _on_mouse_moved(self, position: QPointF) -> None:
        box = self.plot.getPlotItem().getViewBox()
        if box.sceneBoundingRect().contains(position):
            text = self.read_at(box.mapSceneToView(position).x())
            if text:
                self.readout.setText(text)


class PremiumChart(_Chart):
    """Every language's premium over English, in the order of the first tokenizer's premium;
    one line (with dots) per tokenizer; a dashed line at 1 (English). The language under the
    mouse is named below, with each tokenizer's premium."""

    def __init__(self) -> None:
        super().__init__((10, 10), "Point at a language to name it.")
        self.languages: list[str] = []
        self.series: dict[str, list[float | None]] = {}
        self.uncovered: dict[str, list[bool]] = {}
        # the tokenizers still to draw, (position, name), after the first (`show_premiums`)
        self._queued: list[tuple[int, str]] = []
        self.apply_palette()

    def redraw(self) -> None:
        self.show_premiums(self.languages, self.series, self.uncovered)

    def show_premiums(self, languages: list[str], series: dict[str, list[float | None]], uncovered: dict[str, list[bool]]) -> None:
        """`languages` in order, each tokenizer's premium for each (None: it has none), and
        whether the tokenizer's unknown tokens make it understate the language's cost (drawn
        as a cross). The first tokenizer is drawn now, each other in a later turn of the event
        loop (`finish` draws them at once): hundreds of dots a series, all in one turn, kept
        the window from answering for up to 60 ms."""
        self.languages = languages
        self.series = series
        self.uncovered = uncovered
        plot = self.plot.getPlotItem()
        plot.clear()
        self._legend.clear()
        self._queued = []
        plot.setTitle(f"Premium over English per language ({len(languages)} languages, cheapest to dearest)")
        plot.setLabel("left", "tokens per English token, same articles")
        first = next(iter(series), "")
        plot.setLabel("bottom", f"languages, in the order of {first}'s premium" if first else "languages")
        if not languages:
            return
        plot.addItem(pyqtgraph.InfiniteLine(pos=1.0, angle=0, pen=pyqtgraph.mkPen("#888888", style=Qt.PenStyle.DashLine), label="English", labelOpts={"position": 0.02, "color": "#888888"}))
        top = 1.0
        for values in series.values():
            top = max([top, *(float(value) for value in values if value is not None)])
        plot.setXRange(0, max(len(languages) - 1, 1), padding=0.01)
        plot.setYRange(0, top * 1.05, padding=0)
        self._queued = list(enumerate(series))
        self._draw_series()
        if self._queued:
            QTimer.singleShot(0, self._draw_queued)

    def finish(self) -> None:
        """Draw the tokenizers still queued now (tests, screenshots)."""
        while self._queued:
            self._draw_series()

    def _draw_queued(self) -> None:
        if self._queued:
            self._draw_series()
        if self._queued:
            QTimer.singleShot(0, self._draw_queued)

    def _draw_series(self) -> None:
        index, name = self._queued.pop(0)
        values = self.series[name]
        xs = [float(i) for i, value in enumerate(values) if value is not None]
        ys = [float(value) for value in values if value is not None]
        colour = series_colour(index)
        plot = self.plot.getPlotItem()
        if len(xs) <= MAX_DOTS:
            self.plot.plot(xs, ys, pen=pyqtgraph.mkPen(colour, width=2), symbol="o", symbolSize=5, symbolBrush=colour, symbolPen=None, name=name)
        elif index == 0:  # (hundreds of dots on a line took tens of milliseconds to draw; the line says it)
            self.plot.plot(xs, ys, pen=pyqtgraph.mkPen(colour, width=2), name=name)
        else:
            # the others, in the first's order, zigzag: a line through hundreds of them is a
            # solid band; dots show each language's premium
            self.plot.plot(xs, ys, pen=None, symbol="o", symbolSize=4, symbolBrush=colour, symbolPen=None, name=name)
        # subtle: one scatter of crosses over the dots, not a symbol per point: per-point
        # symbol lists crashed pyqtgraph's painting here (a segmentation fault).
        marks = self.uncovered.get(name, [])
        crossed = [i for i, value in enumerate(values) if value is not None and i < len(marks) and marks[i]]
        if crossed:
            plot.addItem(pyqtgraph.ScatterPlotItem(
                [float(i) for i in crossed], [float(values[i] or 0.0) for i in crossed], symbol="x", size=12,
                brush=colour, pen=pyqtgraph.mkPen(colour),
            ))  # fmt: skip
        if not self._queued and any(any(flags) for flags in self.uncovered.values()):
            sample = pyqtgraph.ScatterPlotItem(symbol="x", size=11, brush=QColor("#888888"), pen=pyqtgraph.mkPen("#888888"))
            self._legend.addItem(sample, f"more than {UNCOVERED_RATE:.0%} unknown tokens: the premium understates the cost")

    def language_at(self, x: float) -> int | None:
        """The index of the language nearest `x` (in the plot's data), or None off the chart."""
        index = int(round(x))
        return index if 0 <= index < len(self.languages) else None

    def describe(self, index: int) -> str:
        """"Amharic: tokenizer-a 3.42 · tokenizer-b 2.10"."""
        parts = []
        for position, (name, values) in enumerate(self.series.items()):
            value = values[index]
            marks = self.uncovered.get(name, [])
            shown = "—" if value is None else f"{value:.2f}" + (" (understated: unknown tokens)" if index < len(marks) and marks[index] else "")
            parts.append(f"<span style='color:{series_colour(position).name()}'>■</span> {name} {shown}")
        return f"<b>{self.languages[index]}</b> (#{index + 1} of {len(self.languages)}): " + " · ".join(parts)

    def read_at(self, x: float) -> str:
        index = self.language_at(x)
        return "" if index is None else self.describe(index)


class ScriptChart(_Chart):
    """Per script, the median premium of its languages: a row per script (dearest at the top,
    by the first tokenizer), a bar per tokenizer, a dashed line at 1 (English)."""

    def __init__(self) -> None:
        super().__init__((-10, -10))
        self.plot.setMouseEnabled(x=False, y=False)
        self.scripts: list[str] = []
        self.names: list[str] = []
        self.medians: dict[str, dict[str, float]] = {}
        self.languages: dict[str, int] = {}
        self.apply_palette()

    def redraw(self) -> None:
        self.show_scripts(self.scripts, self.names, self.medians, self.languages)

    def rows(self) -> list[str]:
        """The scripts from the bottom row up: cheapest first under the first tokenizer."""
        first = self.names[0] if self.names else ""
        return sorted(self.scripts, key=lambda script: (self.medians[script].get(first, math.inf), script))

    def show_scripts(self, scripts: list[str], names: list[str], medians: dict[str, dict[str, float]], languages: dict[str, int]) -> None:
        self.scripts, self.names, self.medians, self.languages = scripts, names, medians, languages
        plot = self.plot.getPlotItem()
        plot.clear()
        self._legend.clear()
        plot.setTitle("Median premium over English per script")
        plot.setLabel("bottom", "median premium of the script's languages")
        plot.showAxis("top")  # (a long list scrolls: the scale stays in sight at the top too)
        plot.setLabel("left", "script (languages)")
        if not scripts:
            return
        rows = self.rows()
        bar = BAR_SHARE / max(len(names), 1)
        top = 1.0
        for index, name in enumerate(names):
            ys: list[float] = []
            widths: list[float] = []
            for row, script in enumerate(rows):
                value = medians[script].get(name)
                if value is not None:
                    ys.append(row - BAR_SHARE / 2 + bar * (len(names) - 1 - index) + bar / 2)
                    widths.append(value)
                    top = max(top, value)
            colour = series_colour(index)
            plot.addItem(pyqtgraph.BarGraphItem(x0=0.0, y=ys, height=bar * 0.9, width=widths, brush=colour, pen=pyqtgraph.mkPen(None), name=name))
        plot.addItem(pyqtgraph.InfiniteLine(pos=1.0, angle=90, pen=pyqtgraph.mkPen("#888888", style=Qt.PenStyle.DashLine)))
        plot.getAxis("left").setTicks([[(float(row), f"{script_title(script)} ({languages.get(script, 0)})") for row, script in enumerate(rows)]])
        plot.setYRange(-0.6, len(rows) - 0.4, padding=0)
        plot.setXRange(0, top * 1.05, padding=0)


class EmbeddingChart(_Chart):
    """What the embedding costs against the vocabulary's size: memory (MB of 1024 x 1024 bytes,
    as the table gives it) over the common sizes as a line, each audited tokenizer a labelled
    dot on it."""

    def __init__(self) -> None:
        super().__init__((10, 10))
        self.points: list[tuple[str, int, int, bool]] = []
        self.apply_palette()

    def redraw(self) -> None:
        self.show_points(self.points)

    def show_points(self, points: list[tuple[str, int, int, bool]]) -> None:
        """(label, vocabulary size, bytes, whether it is an audited tokenizer) for each size."""
        self.points = points
        plot = self.plot.getPlotItem()
        plot.clear()
        self._legend.clear()
        plot.setTitle("Embedding memory by vocabulary size")
        plot.setLabel("left", "memory (MB)")
        plot.setLabel("bottom", "vocabulary size (tokens)")
        sizes = sorted((size, size_bytes) for _, size, size_bytes, _ in points if size > 0)
        if not sizes:
            return
        foreground = QApplication.palette().color(QPalette.ColorRole.Text)
        self.plot.plot([float(size) for size, _ in sizes], [b / MB for _, b in sizes], pen=pyqtgraph.mkPen(foreground, width=1, style=Qt.PenStyle.DotLine))
        index = 0
        for label, size, size_bytes, tokenizer in points:
            if not tokenizer or size <= 0:
                continue
            colour = series_colour(index)
            index += 1
            name = f"{label}: {size:,} tokens, {human_size(size_bytes)}"
            self.plot.plot([float(size)], [size_bytes / MB], pen=None, symbol="o", symbolSize=10, symbolBrush=colour, symbolPen=None, name=name)


class SizeCurveChart(_Chart):
    """Which vocabulary size? Tokens per character on held-out text against the vocabulary's
    size, a line per tokenizer, its knee a ringed dot; approximate points (Unigram's top pieces)
    dashed, a Unigram run's rounds as dots on a solid line. The size under the mouse is read out
    with what each tokenizer spends there and what its embedding would cost."""

    def __init__(self) -> None:
        super().__init__((-10, 10), "Point at a size to read each curve there.")
        self.curves: list[DrawnCurve] = []
        # bytes of embedding per vocabulary entry (hidden size x dtype x tied or not)
        self.bytes_per_entry = 0
        self.apply_palette()

    def redraw(self) -> None:
        self.show_curves(self.curves, self.bytes_per_entry)

    def show_curves(self, curves: list[DrawnCurve], bytes_per_entry: int) -> None:
        self.curves = curves
        self.bytes_per_entry = bytes_per_entry
        plot = self.plot.getPlotItem()
        plot.clear()
        self._legend.clear()
        plot.setTitle("Which vocabulary size? Tokens per character on held-out text")
        plot.setLabel("left", "tokens per character (lower is cheaper)")
        plot.setLabel("bottom", "vocabulary size (entries); dashed: approximate")
        box = plot.getViewBox()
        box.enableAutoRange()
        if curves:
            limit, largest = shown_up_to(curves), max(curve.sizes[-1] for curve in curves)
            if limit < largest:
                # (the y axis fits what is shown: `shown_up_to` says why the rest waits)
                box.setAutoVisible(y=True)
                box.setXRange(0, limit, padding=0.02)
                plot.setLabel("bottom", f"vocabulary size (entries), the first {limit:,} of {largest:,}: zoom out for the rest; dashed: approximate")
        for index, curve in enumerate(curves):
            colour = series_colour(index)
            dashes = Qt.PenStyle.SolidLine if curve.exact else Qt.PenStyle.DashLine
            name = curve.name if curve.exact else f"{curve.name} (approximate)"
            dots: dict[str, object] = {}
            if curve.rounds:
                dots = {"symbol": "o", "symbolSize": 6, "symbolBrush": colour, "symbolPen": None}
            line = self.plot.plot(
                [float(s) for s in curve.sizes], curve.values, pen=pyqtgraph.mkPen(colour, width=2, style=dashes), name=name, **dots
            )
            line.setDownsampling(auto=True, method="peak")
            line.setClipToView(True)
            if curve.below_sizes:
                below = self.plot.plot(
                    [float(s) for s in curve.below_sizes], curve.below_values,
                    pen=pyqtgraph.mkPen(colour, width=2, style=Qt.PenStyle.DashLine),
                    name=f"{curve.name} below {curve.sizes[curve.trained]:,} (approximate)",
                )  # fmt: skip
                below.setDownsampling(auto=True, method="peak")
                below.setClipToView(True)
            if 0 <= curve.knee < len(curve.sizes):
                x, y = float(curve.sizes[curve.knee]), curve.values[curve.knee]
                plot.addItem(pyqtgraph.ScatterPlotItem([x], [y], symbol="o", size=14, brush=pyqtgraph.mkBrush(None), pen=pyqtgraph.mkPen(colour, width=3)))
                label = pyqtgraph.TextItem(f"knee: {curve.sizes[curve.knee]:,}", color=colour, anchor=(0, 1))
                label.setPos(x, y)
                plot.addItem(label)

    def describe(self, size: float) -> str:
        """Each curve at the largest of its sizes not above `size` (below a Unigram run's rounds,
        its approximate points): tokens per character, how much more than at its trained size,
        and the embedding's memory there."""
        parts: list[str] = []
        for index, curve in enumerate(self.curves):
            sizes, values, approximate = curve.sizes, curve.values, not curve.exact
            position = _at_or_below(sizes, size)
            if position is None and curve.below_sizes:
                sizes, values, approximate = curve.below_sizes, curve.below_values, True
                position = _at_or_below(sizes, size)
            if position is None:
                continue
            full = curve.trained_value
            more = f", {values[position] / full - 1:+.0%} tokens over its trained size" if full > 0 else ""
            memory = f", embedding {human_size(sizes[position] * self.bytes_per_entry)}" if self.bytes_per_entry else ""
            parts.append(
                f"<span style='color:{series_colour(index).name()}'>■</span> {curve.name} at {sizes[position]:,}"
                f"{' (approximate)' if approximate else ''}: {values[position]:.3f}{more}{memory}"
            )
        return " · ".join(parts) if parts else "Point at a size to read each curve there."

    def read_at(self, x: float) -> str:
        return self.describe(x) if self.curves else ""


def _at_or_below(sizes: list[int], size: float) -> int | None:
    """The index of the last of `sizes` (never falling) not above `size`; None below the first."""
    low, high = 0, len(sizes)
    while low < high:
        middle = (low + high) // 2
        if sizes[middle] <= size:
            low = middle + 1
        else:
            high = middle
    return low - 1 if low > 0 else None
