"""The live plots of a training (pyqtgraph): what each merge or round scores, the vocabulary
as it grows, and the compression on held-out text; from engine records or a stored history.

Plots redraw on a timer a few times a second, never once per step; past a few thousand points a
merge plot draws the envelope of its dots, not every dot.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Final

import numpy
import pyqtgraph
from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QColor, QPalette, QShowEvent
from PySide6.QtWidgets import QApplication, QGridLayout, QLabel, QVBoxLayout, QWidget

from engine.trainers.records import MergeStep, RoundStep, TrainHistory
from engine.models.wordlevel.trainer import PHASE_SELECT
from workbench.core.history import HistoryColumns
from workbench.window.views.when_shown import WhenShown

# How each kind of round is drawn (RoundStep.phase -> pyqtgraph symbol), and in what order the
# legend names them.
PHASE_SYMBOLS: Final = {"seed": "star", "EM": "o", "prune": "t", "finalize": "s"}
ROUND_SYMBOL_SIZE: Final = 10
# The plots take turns: one redraws per tick, so a repaint never draws all three at once.
REDRAW_INTERVAL_MS: Final = 100
SELECTION_NOTE: Final = (
    "WordLevel keeps the most frequent words whole, in one step: there are no merges or rounds "
    "to plot. The Vocabulary tab lists the words with their counts."
)


class TrainingPlots(QWidget):
    """Three plots: what each merge scored (count, or score) against its rank, on a log scale;
    the vocabulary size against time (or, `by_time=False`, the words each merge changed: time
    means nothing when a person steps); characters per token on the held-out text as the merges
    accumulate. Round-based training plots the log-likelihood and size per round instead."""

    def __init__(self, by_time: bool = True) -> None:
        super().__init__()
        self.by_time = by_time
        # subtle: antialiased lines over tens of thousands of points cost more than a frame.
        pyqtgraph.setConfigOptions(antialias=False)
        self.score = pyqtgraph.PlotWidget()
        self.growth = pyqtgraph.PlotWidget()
        self.compression = pyqtgraph.PlotWidget()
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.score, 0, 0)
        layout.addWidget(self.growth, 0, 1)
        layout.addWidget(self.compression, 0, 2)
        # shown instead of the plots where a training has nothing to plot (WordLevel)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.hide()
        layout.addWidget(self.note, 0, 0, 1, 3)
        self.score_name = "count"
        self.compression_title = "Compression of held-out text"
        self._ranks: list[float] = []
        self._values: list[float] = []
        self._touched: list[float] = []
        self._seconds: list[float] = []
        self._sizes: list[float] = []
        self._evaluated_at: list[float] = []
        self._evaluations: list[float] = []
        self._phases: list[str] = []
        self._rounds = False
        self._dirty = False
        self._stale = [False, False, False]
        self._turn = 0
        # what waits until the plots are shown again (`_put_off`): new axis labels, new ranges
        self._when_shown = WhenShown(self, self._on_shown)
        self._relabel = False
        self._new_ranges = False
        # A live training's ranges grow in steps (`_grow`) rather than follow every new point:
        # each change of range re-lays the axes and paints the plot twice (measured: 40-90 ms
        # turns). They stay so when it ends (fitting them then added 100 ms to the hand-over;
        # pyqtgraph's "A" button fits them). `_held[i]`: the user moved plot i's view.
        self._growing = False
        self._ranges: list[tuple[float, float, float, float] | None] = [None, None, None]
        self._held = [False, False, False]
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_INTERVAL_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._timer.start()
        self._curves: list[pyqtgraph.PlotDataItem] = []
        self.apply_palette()
        self._score_curve = self.score.plot([], [], pen=self._pen, symbolSize=5, symbolBrush=self._dots)
        self._growth_curve = self.growth.plot([], [], pen=self._pen)
        # subtle: tens of thousands of points per curve; draw only what the pixels can show.
        for curve in (self._score_curve, self._growth_curve):
            curve.setDownsampling(auto=True, method="peak")
            curve.setClipToView(True)
        self._compression_curve = self.compression.plot(
            [], [], pen=self._pen, symbol="o", symbolSize=5, symbolBrush=self._dots
        )
        self._curves = [self._score_curve, self._growth_curve, self._compression_curve]
        self._plots = [self.score, self.growth, self.compression]
        for index, plot in enumerate(self._plots):
            plot.getPlotItem().getViewBox().sigRangeChangedManually.connect(partial(self._hold, index))
        # the names of the round phases, shown while a round-based training is drawn
        self._legends: list[pyqtgraph.LegendItem] = []
        # one legend, where the curves leave room: the top right of a shrinking vocabulary (a
        # whole training), or the bottom right of rising compression (step by step, where the
        # middle plot counts removed pieces, which spike anywhere)
        for plot in (self.growth if self.by_time else self.compression,):
            legend = pyqtgraph.LegendItem(offset=(-10, 10) if self.by_time else (-10, -10))
            legend.setParentItem(plot.getPlotItem().getViewBox())
            legend.hide()
            self._legends.append(legend)
        self._fill_legends()
        self._label_axes()

    def apply_palette(self) -> None:
        """The plots in the application palette's colours (light or dark theme)."""
        palette = QApplication.palette()
        self._pen = pyqtgraph.mkPen(palette.color(QPalette.ColorRole.Highlight), width=2)
        self._dots = pyqtgraph.mkBrush(palette.color(QPalette.ColorRole.Highlight))
        for plot in (self.score, self.growth, self.compression):
            style_plot(plot)
        for curve in self._curves:
            curve.setPen(self._pen)
            curve.setSymbolBrush(self._dots)
        if self._curves:
            self._label_axes()
            self._fill_legends()
            self._stale = [True, True, True]
            self.redraw()

    def _fill_legends(self) -> None:
        palette = QApplication.palette()
        foreground = palette.color(QPalette.ColorRole.Text)
        for legend in self._legends:
            legend.clear()
            legend.setLabelTextColor(foreground)
            legend.setBrush(pyqtgraph.mkBrush(palette.color(QPalette.ColorRole.Base)))
            legend.setPen(pyqtgraph.mkPen(palette.color(QPalette.ColorRole.Mid)))
            for phase, symbol in PHASE_SYMBOLS.items():
                sample = pyqtgraph.ScatterPlotItem(symbol=symbol, size=ROUND_SYMBOL_SIZE, brush=self._dots, pen=None)
                legend.addItem(sample, f"{phase} round")

    def _label_axes(self) -> None:
        if self._rounds:
            self.score.setTitle("Log-likelihood per round")
            self.score.setLabel("left", "corpus log-likelihood")
            self.score.setLabel("bottom", "round")
            self.score.setLogMode(x=False, y=False)
        else:
            self.score.setTitle(f"Merge {self.score_name} by rank")
            self.score.setLabel("left", f"{self.score_name} (log scale)")
            self.score.setLabel("bottom", "merge rank")
            self.score.setLogMode(x=False, y=True)
        if self.by_time:
            self.growth.setTitle("Vocabulary size")
            self.growth.setLabel("left", "tokens")
            self.growth.setLabel("bottom", "seconds since the run began")
        elif self._rounds:
            self.growth.setTitle("Pieces removed per round")
            self.growth.setLabel("left", "pieces")
            self.growth.setLabel("bottom", "round")
        else:
            self.growth.setTitle("Words changed per merge")
            self.growth.setLabel("left", "distinct words")
            self.growth.setLabel("bottom", "merge rank")
        self.compression.setTitle(self.compression_title)
        self.compression.setLabel("left", "characters per token")
        self.compression.setLabel("bottom", "rounds" if self._rounds else "steps")
        for legend in self._legends:
            legend.setVisible(self._rounds)
        for curve in (self._score_curve, self._growth_curve):
            # subtle: a handful of rounds, each its own marker: downsampling would drop some,
            # and clipping to a view that has not grown yet would leave markers without points.
            curve.setDownsampling(auto=not self._rounds, method="peak")
            curve.setClipToView(not self._rounds)
        # A likelihood score jumps from one merge to the next (unlike a count, it does not
        # fall steadily): points show it; a line through them would be a solid band.
        scattered = self.score_name != "count" and not self._rounds
        self._score_curve.setPen(None if scattered else self._pen)
        self._score_curve.setDownsampling(auto=not (scattered or self._rounds), method="peak")

    def set_compression_title(self, title: str) -> None:
        self.compression_title = title
        self.compression.setTitle(title)

    def clear(
        self, score_name: str = "count", at_once: bool = True, rounds: bool = False, growing: bool = False, note: str = ""
    ) -> None:
        """Forget the data; the plots empty at once, or (`at_once=False`, as a training starts)
        in turn on the next ticks, so that starting never repaints all three together.
        `rounds`: the steps to come are rounds (Unigram), drawn as such from the start.
        `growing`: the steps will stream in (a training): the ranges grow in steps, not with
        every point. `note`: a sentence shown instead (nothing to plot, or not yet); the plots
        are emptied when they are next cleared to be shown."""
        self._relabel = self._relabel or score_name != self.score_name or rounds != self._rounds
        self._growing = growing
        self._ranges = [None, None, None]
        self._held = [False, False, False]
        self.score_name = score_name
        self._ranks, self._values, self._seconds, self._sizes, self._touched = [], [], [], [], []
        self._evaluated_at, self._evaluations = [], []
        self._phases = []
        self._rounds = rounds
        self._new_ranges = True
        self._dirty = True
        if note:
            # (relabelling, re-ranging and drawing plots about to be hidden took 10 ms of the
            # turn that opens a project)
            self.show_note(note)
            return
        self._show_plots(True)
        if not self._put_off():
            self._settle()
            if at_once:
                self.redraw()

    def _put_off(self) -> bool:
        """Whether drawing waits until the plots are shown: they are hidden (another tab is
        shown) in a window that is. Switching tokenizers on the Vocabulary tab then does not
        relabel, re-range and redraw plots nobody sees (40-80 ms a switch)."""
        return self._when_shown.put_off()

    def _on_shown(self) -> None:
        self._settle()
        self.redraw()

    def _settle(self) -> None:
        """New axis labels and ranges after a `clear`."""
        if self._relabel:
            self._relabel = False
            # subtle: the old points must go before the log scale changes: negative
            # log-likelihoods on a log axis are all NaN, which pyqtgraph cannot bound.
            self._score_curve.setData([], [])
            self._growth_curve.setData([], [])
            self._label_axes()
        if self._new_ranges:
            self._new_ranges = False
            for plot in (self.score, self.growth, self.compression):
                # (an earlier training's range must not outlive its data, such as a
                # likelihood's 1e-120; an empty plot shows a plain range, not pyqtgraph's
                # ±10^300 for no data)
                box = plot.getPlotItem().getViewBox()
                box.setRange(xRange=(0, 10), yRange=(0, 1), padding=0)
                if self._growing:
                    box.disableAutoRange()
                else:
                    box.enableAutoRange()

    def show_note(self, text: str) -> None:
        """A sentence instead of the plots (nothing to plot, or not yet)."""
        self.note.setText(text)
        self._show_plots(False)

    def _show_plots(self, shown: bool) -> None:
        for plot in (self.score, self.growth, self.compression):
            plot.setVisible(shown)
        self.note.setVisible(not shown)

    def add_steps(self, steps: list[MergeStep | RoundStep]) -> None:
        for step in steps:
            if isinstance(step, MergeStep):
                self._ranks.append(float(step.index))
                self._values.append(max(step.rank_value, 1e-12))
                self._seconds.append(step.seconds)
                self._sizes.append(float(step.vocab_size))
                self._touched.append(float(step.words_touched))
            elif step.phase == PHASE_SELECT:
                self.show_note(SELECTION_NOTE)  # (WordLevel: one step, nothing to plot)
            else:
                if not self._rounds:
                    self._rounds = True
                    self._label_axes()
                self._ranks.append(float(step.index))
                self._values.append(step.log_likelihood if step.log_likelihood is not None else math.nan)
                self._seconds.append(step.seconds)
                self._sizes.append(float(step.vocab_size))
                self._touched.append(float(step.removed))
                self._phases.append(step.phase)
        self._dirty = True

    def add_evaluation(self, done: int, chars_per_token: float) -> None:
        self._evaluated_at.append(float(done))
        self._evaluations.append(chars_per_token)
        self._dirty = True

    def show_columns(self, history: HistoryColumns, evaluations: list[tuple[int, float]]) -> None:
        """Redraw from a stored history's arrays (`HistoryColumns`) at once: no step is made."""
        rounds = bool(history.rounds) and not history.merges
        if history.algorithm == "WordLevel":
            self.clear(history.score_name, rounds=rounds, note=SELECTION_NOTE)
            return
        self.clear(history.score_name, rounds=rounds)
        arrays = history.arrays
        if history.merges:
            scores = arrays["score"]
            values = scores if history.score_name != "count" else arrays["count"].astype(float)
            self._ranks = arrays["index"].astype(float).tolist()
            self._values = numpy.maximum(values, 1e-12).tolist()
            self._seconds = arrays["seconds"].tolist()
            self._sizes = arrays["vocab_size"].astype(float).tolist()
            self._touched = arrays["words_touched"].astype(float).tolist()
            self._dirty = True
        else:
            self.add_steps(list(history.rounds))
        for done, value in evaluations:
            self.add_evaluation(done, value)
        self.redraw()

    def show_history(self, history: TrainHistory | None, evaluations: list[tuple[int, float]]) -> None:
        """Redraw from a stored history (a reopened project) at once."""
        rounds = history is not None and bool(history.rounds) and not history.merges
        score_name = history.score_name if history is not None else "count"
        if history is not None and history.algorithm == "WordLevel":
            self.clear(score_name, rounds=rounds, note=SELECTION_NOTE)
            return
        self.clear(score_name, rounds=rounds)
        if history is not None:
            self.add_steps(history.steps())
        for done, value in evaluations:
            self.add_evaluation(done, value)
        self.redraw()

    def point_counts(self) -> tuple[int, int]:
        """(steps, evaluations) drawn, for tests."""
        return len(self._ranks), len(self._evaluations)

    def redraw(self) -> None:
        """Give every curve the data gathered since the last redraw (curves are made once)."""
        if self._put_off():
            return
        if self._dirty:
            self._dirty = False
            self._stale = [True, True, True]
        for index in range(3):
            self._redraw_one(index)

    def _redraw_one(self, index: int) -> None:
        if not self._stale[index]:
            return
        self._stale[index] = False
        symbols: dict[str, object] = {"symbol": None}
        if index == 0 and self.score_name != "count" and not self._rounds:
            # scores jump from merge to merge: dots, small when there are thousands
            size = 2 if len(self._ranks) > 1000 else 5
            symbols = {"symbol": "o", "symbolSize": size, "symbolBrush": self._dots, "symbolPen": None}
        if self._rounds:
            symbols = {
                "symbol": [PHASE_SYMBOLS.get(phase, "o") for phase in self._phases],
                "symbolSize": ROUND_SYMBOL_SIZE,
                "symbolBrush": self._dots,
                "symbolPen": None,
            }
        if index == 0:
            xs, ys = self._ranks, self._values
            if symbols.get("symbol") == "o" and len(xs) > MAX_DOTS:
                xs, ys = _envelope(xs, ys, MAX_DOTS)
        elif index == 1:
            xs, ys = (self._seconds, self._sizes) if self.by_time else (self._ranks, self._touched)
        else:
            xs, ys = self._evaluated_at, self._evaluations
            symbols = {}
        x = numpy.asarray(xs, dtype=float)
        y = numpy.asarray(ys, dtype=float)
        self._curves[index].setData(x, y, **symbols)
        if self._growing:
            self._grow(index, x, y)

    def _hold(self, index: int, *_: object) -> None:
        self._held[index] = True

    def _grow(self, index: int, x: numpy.ndarray, y: numpy.ndarray) -> None:
        """Widen plot `index`'s range when its data leave it: x to a round number about a
        quarter past the last point, a log axis to whole decades, a linear one by a quarter of
        its span (so a training of 30,000 merges changes each range a few dozen times, not at
        every redraw)."""
        box = self._plots[index].getPlotItem().getViewBox()
        if self._held[index] or any(box.autoRangeEnabled()):
            return  # (the user moved the view, or asked for automatic ranges with its "A")
        finite = numpy.isfinite(y)
        if not len(x) or not finite.any():
            return
        logarithmic = index == 0 and not self._rounds
        if logarithmic:
            y = numpy.log10(numpy.maximum(y[finite], 1e-300))
        else:
            y = y[finite]
        x_high, y_low, y_high = float(x.max()), float(y.min()), float(y.max())
        old = self._ranges[index]
        if old is not None and x_high <= old[1] and old[2] <= y_low and y_high <= old[3]:
            return
        right = old[1] if old is not None and x_high <= old[1] else _round_up(max(x_high * 1.25, 1e-3))
        if logarithmic:
            bottom, top = float(math.floor(y_low)), float(max(math.ceil(y_high), math.floor(y_low) + 1))
            if old is not None:
                bottom, top = min(bottom, old[2]), max(top, old[3])
        else:
            span = max(y_high - y_low, abs(y_high) * 0.1, 1e-9)
            bottom = y_low - span / 4 if old is None or y_low < old[2] else old[2]
            top = y_high + span / 4 if old is None or y_high > old[3] else old[3]
            if y_low >= 0:
                bottom = max(bottom, 0.0)  # (sizes, counts, characters per token: never below 0)
        self._ranges[index] = (0.0, right, bottom, top)
        box.setRange(xRange=(0.0, right), yRange=(bottom, top), padding=0)

    def _on_timer_timeout(self) -> None:
        # One plot per tick, in turn.
        if self._put_off():
            return
        if self._dirty:
            self._dirty = False
            self._stale = [True, True, True]
        for _ in range(3):
            index = self._turn
            self._turn = (self._turn + 1) % 3
            if self._stale[index]:
                self._redraw_one(index)
                return


def style_plot(plot: pyqtgraph.PlotWidget, axes: tuple[str, ...] = ("left", "bottom")) -> None:
    """A plot in the application palette's colours (light or dark theme), with a grid."""
    palette = QApplication.palette()
    background = palette.color(QPalette.ColorRole.Base)
    foreground = palette.color(QPalette.ColorRole.Text)
    plot.setBackground(background)
    item = plot.getPlotItem()
    item.titleLabel.setAttr("color", foreground.name())
    item.showGrid(x=True, y=True)
    for name in axes:
        axis = item.getAxis(name)
        axis.setPen(foreground)
        axis.setTextPen(foreground)
        axis.enableAutoSIPrefix(False)
        # subtle: opaque grid lines, the text colour a sixth of the way over the background,
        # at the labelled ticks and the level below: pyqtgraph's translucent ones cost 3-4 ms
        # an axis at every paint.
        axis.setTickPen(pyqtgraph.mkPen(_over(foreground, background, 0.16)))
        axis.setStyle(tickAlpha=255, maxTickLevel=1)


def _round_up(value: float) -> float:
    """The least round number (1, 1.5, 2, 3, 4, 5, 6 or 8 times a power of ten) at or above
    `value` (> 0)."""
    power = 10.0 ** math.floor(math.log10(value))
    for step in (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0):
        if step * power >= value:
            return step * power
    return 10.0 * power


def _over(color: QColor, background: QColor, share: float) -> QColor:
    """`color` drawn with opacity `share` over `background`, as one opaque colour."""
    return QColor(
        round(background.red() + (color.red() - background.red()) * share),
        round(background.green() + (color.green() - background.green()) * share),
        round(background.blue() + (color.blue() - background.blue()) * share),
    )


# A scored history draws at most this many dots: each stands for a run of merges, at its
# highest and lowest score (pyqtgraph takes about a second to draw 30,000 dots).
MAX_DOTS: Final = 3000


def _envelope(ranks: list[float], values: list[float], limit: int) -> tuple[list[float], list[float]]:
    """At most `limit` points that keep each run's highest and lowest value, at their ranks
    (whole arrays at once: a loop over 1,500 runs took 100 ms on the GUI thread)."""
    size = len(ranks)
    x, y = numpy.asarray(ranks, dtype=float), numpy.asarray(values, dtype=float)
    if size == 0:
        return [], []
    starts = _distinct(numpy.linspace(0, size, max(1, limit // 2) + 1).astype(numpy.int64)[:-1])
    run_of = numpy.repeat(numpy.arange(len(starts)), numpy.diff(numpy.append(starts, size)))
    kept: list[numpy.ndarray] = []
    for fill, reduce in ((-numpy.inf, numpy.maximum), (numpy.inf, numpy.minimum)):
        filled = numpy.where(numpy.isnan(y), fill, y)
        best = reduce.reduceat(filled, starts)
        hits = numpy.flatnonzero((filled == best[run_of]) & (best[run_of] != fill))
        runs = run_of[hits]
        kept.append(hits[numpy.flatnonzero(_group_starts(runs))])  # (the first hit of each run)
    order = _distinct(numpy.sort(numpy.concatenate(kept)))
    return x[order].tolist(), y[order].tolist()


# subtle: not numpy.unique, whose first call imports numpy.ma (60 ms on the GUI thread); these
# arrays are sorted already, so the first of each group of equal values is where a value changes.
def _group_starts(values: numpy.ndarray) -> numpy.ndarray:
    """Whether each value of the sorted `values` is the first of its group of equal ones."""
    starts = numpy.ones(len(values), dtype=numpy.bool_)
    starts[1:] = values[1:] != values[:-1]
    return starts


def _distinct(values: numpy.ndarray) -> numpy.ndarray:
    """The sorted `values` without repeats."""
    result: numpy.ndarray = values[_group_starts(values)]
    return result


class PlotsWhenShown(QWidget):
    """The place of a `TrainingPlots` in a panel that starts hidden (Step by Step): the plots are
    built the first time the place is shown or `plots` is asked for, not with the window
    (pyqtgraph's three plots took 40-50 ms of the window's start-up). Until then `clear` only
    says how they start, and `apply_palette` has nothing to redraw."""

    def __init__(self, by_time: bool, compression_title: str) -> None:
        super().__init__()
        self._by_time = by_time
        self._compression_title = compression_title
        self._cleared: tuple[str, bool] = ("count", False)
        self._built: TrainingPlots | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    def built(self) -> bool:
        return self._built is not None

    @property
    def plots(self) -> TrainingPlots:
        if self._built is None:
            plots = TrainingPlots(by_time=self._by_time)
            plots.set_compression_title(self._compression_title)
            plots.clear(self._cleared[0], rounds=self._cleared[1])
            self._layout.addWidget(plots)
            plots.setVisible(self.isVisible())
            self._built = plots
        return self._built

    def clear(self, score_name: str, rounds: bool) -> None:
        if self._built is None:
            self._cleared = (score_name, rounds)
        else:
            self._built.clear(score_name, rounds=rounds)

    def apply_palette(self) -> None:
        if self._built is not None:
            self._built.apply_palette()

    def sizeHint(self) -> QSize:
        # (what the plots will ask for, so that the panel's splitter leaves them their room
        # before they are built: three of pyqtgraph's views, each 600 x 480)
        return self._built.sizeHint() if self._built is not None else QSize(3 * 600, 480)

    def showEvent(self, event: QShowEvent) -> None:
        self.plots.show()
        super().showEvent(event)
