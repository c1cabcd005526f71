"""Measure whether the window stays live through a project's life: the longest event-loop gap
through the end of a big training and the hand-over of its result, autosave, save and open,
and how big a project of five trained 32k tokenizers is and how fast it opens.

The gap is what a user feels: a 5 ms QTimer records every tick of the window's own event loop,
and the longest time between two ticks is the longest the window could not answer. Goals (issue
20): every gap under 50 ms; the five-tokenizer project a few MB, saved in under 1 s off the GUI
thread, opened to a painted, usable window in under 1 s.

0. Step by Step: on the largest file it offers (5 MB of the dictionary), Start, Step, ×10,
   Run to End for a while, Pause and Keep, for BPE, BERT WordPiece and both Unigram trainers
   (HF's and sentencepiece's): the counting and the steps run in the Step by Step process, and
   the gaps say whether the window waited for them.
1. Training: the real window trains BPE 32k on the 40 MB dictionary through its child process;
   gaps during the training, at the hand-over (the result arriving and being stored, the tabs
   drawing it), and on switching to the Vocabulary and Encode tabs afterwards. The reported
   training time is set against the time waited.
2. The project: five 32k tokenizers (BPE, GPT-2 byte-level BPE, BERT WordPiece,
   SentencePiece-style BPE and Unigram) trained through the window's own training code on the
   first 10 MB of the dictionary (kept in --work and reused), saved, autosaved, opened, and its
   tokenizers switched between.

    python benchmarks/bench_trust.py                      # both
    python benchmarks/bench_trust.py --skip-training      # only the project life cycle

Run it with the compiled engine installed (`pip install .`), from any folder.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "gcide.txt"
GAP_BAR_MS = 50.0
SAVE_BAR_S = 1.0
OPEN_BAR_S = 1.0
SIZE_BAR_MB = 8.0
FIVE = (("bpe", "BPE 32k"), ("gpt2", "GPT-2 32k"), ("bert", "BERT 32k"), ("sentencepiece-bpe", "SP BPE 32k"), ("sentencepiece-unigram", "SP Unigram 32k"))


class GapMonitor:
    """Ticks of a 5 ms timer on the window's event loop, split into named phases. With `why`, a
    watchdog thread samples the GUI thread's stack whenever a tick is more than 30 ms late, and
    `causes()` says where those samples were (what to fix)."""

    def __init__(self, why: bool = False) -> None:
        from PySide6.QtCore import QTimer

        self.ticks: list[float] = []
        self.marks: list[tuple[str, float]] = []
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.samples: dict[str, int] = {}
        self._stop = threading.Event()
        self._main = threading.main_thread().ident
        if why:
            threading.Thread(target=self._watch, daemon=True).start()

    def _tick(self) -> None:
        self.ticks.append(time.perf_counter())

    def _watch(self) -> None:
        while not self._stop.wait(0.01):
            if not self.ticks or time.perf_counter() - self.ticks[-1] < 0.03 or not self.timer.isActive():
                continue
            frames = sys._current_frames()
            where = _ours(frames.get(self._main or 0))
            if not where:
                # the GUI thread is in Qt: what the window's other threads run may hold the GIL
                others = [
                    " < ".join(_ours(frame, everything=True)[:2])
                    for ident, frame in frames.items()
                    if ident not in (self._main, threading.get_ident())
                ]
                where = ["(Qt, outside Python)" + "".join(f"; thread: {other}" for other in others if other)]
            phase = self.marks[-1][0] if self.marks else ""
            key = f"[{phase}] " + " < ".join(where)
            self.samples[key] = self.samples.get(key, 0) + 1

    def causes(self, top: int = 12) -> list[str]:
        ranked = sorted(self.samples.items(), key=lambda item: -item[1])[:top]
        return [f"{count * 10:>6} ms  {where}" for where, count in ranked]

    def start(self, phase: str) -> None:
        self.marks.append((phase, time.perf_counter()))
        if not self.timer.isActive():
            self.timer.start()

    def stop(self) -> None:
        self.marks.append(("", time.perf_counter()))
        self.timer.stop()
        self._stop.set()

    def longest(self) -> dict[str, float]:
        """The longest gap (ms) between two ticks, by the phase the gap ended in."""
        found: dict[str, float] = {}
        for before, after in zip(self.ticks, self.ticks[1:]):
            phase = ""
            for name, at in self.marks:
                if at <= after:
                    phase = name
            if phase:
                found[phase] = max(found.get(phase, 0.0), 1000 * (after - before))
        return found


def _ours(frame: FrameType | None, everything: bool = False) -> list[str]:
    """The innermost frames of a stack (ours and pyqtgraph's; `everything`: any)."""
    where: list[str] = []
    while frame is not None and len(where) < 4:
        name = frame.f_code.co_filename
        if everything or "/workbench/" in name or "/engine/" in name or "pyqtgraph" in name:
            where.append(f"{Path(name).name}:{frame.f_lineno} {frame.f_code.co_name}")
        frame = frame.f_back
    return where


def run_for(seconds: float) -> None:
    from PySide6.QtWidgets import QApplication

    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        QApplication.processEvents()
        time.sleep(0.002)


def run_until(ready: Callable[[], bool], limit: float) -> float:
    from PySide6.QtWidgets import QApplication

    began = time.perf_counter()
    while not ready():
        QApplication.processEvents()
        time.sleep(0.002)
        if time.perf_counter() - began > limit:
            raise SystemExit("timed out")
    return time.perf_counter() - began


def new_window() -> object:
    from workbench.core.settings import Settings
    from workbench.window.app import application, settle_memory
    from workbench.window.main_window import MainWindow
    from workbench.window.prompts import ScriptedPrompts

    application()
    window = MainWindow(Settings(), ScriptedPrompts(save_changes="discard", confirm=True, choose="Keep Them"))
    window.encoding_runner.start()  # (as `run_window` does)
    window.resize(1600, 1000)
    window.show()
    settle_memory()
    return window


def measure_training(corpus: Path, vocab_size: int, why: bool = False) -> dict[str, float]:
    from engine.corpus.checks import check_file
    from engine.project.project_file import Project
    from workbench.window.main_window import MainWindow

    window = new_window()
    assert isinstance(window, MainWindow)
    window.document.replace(Project("benchmark"), None)
    window.document.add_checked_files([check_file(str(corpus))])
    window.document.add_preset("bpe", vocab_size=vocab_size)
    run_for(1.0)
    tab = window.train_tab
    gaps = GapMonitor(why)
    stored: list[float] = []
    tab.runner.finished.connect(lambda result: stored.append(time.perf_counter()))
    gaps.start("training")
    began = time.perf_counter()
    tab.start_training()
    run_until(lambda: bool(stored), 3600)
    waited = time.perf_counter() - began
    gaps.start("hand-over")
    run_for(3.0)
    gaps.start("Vocabulary tab")
    window.tabs.setCurrentWidget(window.vocab_tab)
    run_for(2.0)
    gaps.start("Encode tab")
    window.tabs.setCurrentWidget(window.encode_tab)
    window.encode_tab.editor.set_text("The quick brown fox jumps over the lazy dog. " * 20)
    run_for(2.0)
    gaps.stop()
    entry = window.document.active
    reported = entry.report.seconds if entry is not None and entry.report is not None else 0.0
    window.document.mark_saved("/nonexistent.tokproj")
    window.shutdown()
    window.close()
    for line in gaps.causes():
        print(f"  stalled in {line}")
    return {"waited_s": waited, "reported_s": reported, **{f"gap {k}": v for k, v in gaps.longest().items()}}


STEP_PRESETS = ("bpe", "bert", "hf-sentencepiece-unigram", "sentencepiece-unigram")


def measure_stepping(corpus: Path, work: Path, vocab_size: int, run_seconds: float, presets: list[str], why: bool = False) -> dict[str, dict[str, float]]:
    """Step by Step on the first 5 MB of `corpus`: each phase's longest gap (ms) and time (s), by preset."""
    from engine.corpus.checks import check_file
    from engine.project.project_file import Project
    from workbench.window.main_window import MainWindow
    from workbench.window.tabs.step_by_step import MAX_STEP_BYTES

    work.mkdir(parents=True, exist_ok=True)
    small = work / "step-corpus.txt"
    if not small.exists():
        with open(corpus, "rb") as source:
            data = source.read(MAX_STEP_BYTES - 4096)
        small.write_bytes(data[: data.rfind(b"\n") + 1])
    window = new_window()
    assert isinstance(window, MainWindow)
    window.document.replace(Project("benchmark"), None)
    window.document.add_checked_files([check_file(str(small))])
    window.tabs.setCurrentWidget(window.train_tab)
    window.train_tab.modes.setCurrentIndex(1)
    panel = window.train_tab.step_panel
    figures: dict[str, dict[str, float]] = {}
    for preset in presets:
        window.document.add_preset(preset, vocab_size=vocab_size)
        run_until(lambda: panel.source.count() == 2, 30)
        panel.source.setCurrentIndex(1)
        run_for(1.0)
        gaps = GapMonitor(why)
        seconds: dict[str, float] = {}

        def phase(name: str, act: Callable[[], None]) -> None:
            gaps.start(name)
            act()
            seconds[name] = run_until(lambda: not panel.is_stepping(), 600)

        phase("Start", panel.start)
        phase("Step", lambda: panel.advance(1))
        phase("×10", lambda: panel.advance(10))
        gaps.start("Run to End")
        panel.run_to_end()
        run_for(run_seconds)
        if panel.is_stepping():
            phase("Pause", panel.run_to_end)  # (pressed again: Pause)
        made = len(panel.merges.merges.steps) or len(panel.merges.merges.rounds)
        phase("Keep", panel.keep)  # (and the result stored in the project and drawn)
        run_for(2.0)
        gaps.stop()
        longest = gaps.longest()
        figures[preset] = {**{f"gap {k}": v for k, v in longest.items()}, **{f"s {k}": v for k, v in seconds.items()}}
        figures[preset]["merges"] = float(made)
        for line in gaps.causes():
            print(f"  {preset} stalled in {line}")
        panel.reset()
    window.document.mark_saved("/nonexistent.tokproj")
    window.shutdown()
    window.close()
    return figures


def five_tokenizer_project(corpus: Path, work: Path, megabytes: int) -> Path:
    """The benchmark's project: five 32k tokenizers trained through the window's training code
    on the first `megabytes` MB of `corpus` (made once, then reused)."""
    from engine.corpus.checks import check_file
    from engine.project.entry import TokenizerEntry
    from engine.project.facts import CorpusFile, TrainedOn
    from engine.project.project_file import Project
    from engine.project.result import TrainedResult
    from workbench.core import presets
    from workbench.jobs.children.training import TrainingJob, train

    path = work / "five.tokproj"
    if path.is_file():
        return path
    work.mkdir(parents=True, exist_ok=True)
    text = work / "slice.txt"
    with open(corpus, "rb") as source:
        data = source.read(megabytes << 20)
    text.write_bytes(data[: data.rfind(b"\n") + 1])
    check = check_file(str(text))
    project = Project("five")
    project.corpus.append(CorpusFile(check.path, check.size, check.lines, check.sha256, check.problem))

    class Quiet:
        def send(self, message: object) -> None:
            pass

    class Never:
        def is_set(self) -> bool:
            return False

    for key, name in FIVE:
        tokenizer, trainer = presets.build(key, 32000)
        job = TrainingJob(tokenizer.to_str(), trainer.to_dict(), [str(text)], 0.01, 2)
        began = time.perf_counter()
        result = train(job, Quiet(), Never())  # type: ignore[arg-type]
        print(f"  trained {name} in {time.perf_counter() - began:.1f} s", flush=True)
        entry = TokenizerEntry(name, key, presets.pipeline_json(tokenizer), trainer.to_dict())
        entry.result = TrainedResult.made(
            result.tokenizer_part, result.report, result.history_part, result.vocabulary_part, result.evaluations,
            ("", "", 0.0), TrainedOn(project.corpus, 0, 0.01),
        )  # fmt: skip
        entry.result.vocab_size = len(result.table) if result.table is not None else 0
        project.tokenizers.append(entry)
    project.active = 0
    project.save(str(path))
    return path


STARTUP_SCRIPT = """
import os, sys, time
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6.QtCore import QTimer
from workbench.window.app import start_window
from workbench.window.appearance import application
from workbench.window.prompts import ScriptedPrompts
window = start_window(sys.argv[1], ScriptedPrompts(confirm=True, choose="Keep Them"))  # (as `run_window` does)
app = application()
def first():
    # the window drawn with the project open: its tokenizers listed, its tabs answering
    window.grab()
    print("painted", time.time(), flush=True)
def painted():
    ready = window.vocab_tab.model.rowCount() > 0
    if not ready:
        QTimer.singleShot(5, painted)
        return
    window.grab()
    print("vocabulary", time.time(), flush=True)
    window.document.mark_saved("/nonexistent.tokproj")
    window.shutdown()
    app.quit()
window.tabs.setCurrentWidget(window.vocab_tab)
QTimer.singleShot(0, first)
QTimer.singleShot(0, painted)
app.exec()
"""


def measure_project(path: Path, why: bool = False) -> dict[str, float]:
    from PySide6.QtCore import QTimer

    from workbench.window.main_window import MainWindow

    results: dict[str, float] = {"size_mb": path.stat().st_size / 1e6}
    # start-up, in a process of its own: to a painted window with the vocabulary table filled
    times: list[float] = []
    firsts: list[float] = []
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "TOKENIZER_WORKBENCH_HOME": home, "QT_QPA_PLATFORM": "offscreen"}
        for _ in range(3):
            began = time.time()
            done = subprocess.run([sys.executable, "-P", "-c", STARTUP_SCRIPT, str(path)], capture_output=True, text=True, env=env, cwd=home)
            if done.returncode != 0:
                raise SystemExit(done.stderr)
            said = dict(line.split() for line in done.stdout.splitlines() if line.startswith(("painted ", "vocabulary ")))
            firsts.append(float(said["painted"]) - began)
            times.append(float(said["vocabulary"]) - began)
    results["start_to_first_paint_s"] = min(firsts)
    results["start_to_painted_s"] = min(times)

    window = new_window()
    assert isinstance(window, MainWindow)
    run_for(0.5)
    gaps = GapMonitor(why)
    gaps.start("open")
    began = time.perf_counter()
    window.open_file(str(path))
    window.tabs.setCurrentWidget(window.vocab_tab)
    # drawn with the project open (its tokenizers listed, the tabs answering), on the next turn
    # of the event loop, as the window paints (a paint in the turn that opened would add the
    # two together in the gap)
    painted: list[float] = []
    QTimer.singleShot(0, lambda: (window.grab(), painted.append(time.perf_counter())))
    run_until(lambda: bool(painted), 60)
    results["open_to_paint_s"] = painted[0] - began
    run_until(lambda: window.vocab_tab.model.rowCount() > 0, 60)
    results["open_to_table_s"] = time.perf_counter() - began
    run_for(1.0)
    for index in range(1, len(window.document.project.tokenizers)):
        gaps.start(f"switch to {window.document.project.tokenizers[index].name}")
        window.document.set_active(index)
        run_for(1.5)
    gaps.start(f"switch to {window.document.project.tokenizers[0].name}")
    window.document.set_active(0)
    run_for(1.5)
    copy = path.with_name("five-saved.tokproj")
    window.prompts.answers["save_project"] = str(copy)  # type: ignore[attr-defined]
    gaps.start("rename")
    window.document.rename_tokenizer(0, "BPE 32k (renamed)")
    run_for(0.5)
    gaps.start("save")
    began = time.perf_counter()
    ok = window.save_as()
    results["save_s"] = time.perf_counter() - began
    if not ok:
        raise SystemExit("the save failed")
    run_for(0.5)
    gaps.start("rename")
    window.document.rename_tokenizer(0, "BPE 32k (again)")
    run_for(0.5)
    gaps.start("autosave")
    began = time.perf_counter()
    window.autosave()
    run_until(lambda: not window.worker.busy(), 60)
    results["autosave_s"] = time.perf_counter() - began
    run_for(0.5)
    gaps.stop()
    results.update({f"gap {k}": v for k, v in gaps.longest().items()})
    for line in gaps.causes():
        print(f"  stalled in {line}")
    window.document.mark_saved("/nonexistent.tokproj")
    window.shutdown()
    window.close()
    return results


def verdict(ok: bool) -> str:
    return "ok" if ok else "OVER THE BAR"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--megabytes", type=int, default=10, help="of the corpus, for the five-tokenizer project")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "bench-trust")
    parser.add_argument("--skip-training", action="store_true")
    parser.add_argument("--skip-project", action="store_true")
    parser.add_argument("--skip-stepping", action="store_true")
    parser.add_argument("--step-vocab", type=int, default=8000, help="vocabulary size of the Step by Step runs")
    parser.add_argument("--run-seconds", type=float, default=5.0, help="how long Run to End runs before Pause")
    parser.add_argument("--step-presets", nargs="+", default=list(STEP_PRESETS), choices=STEP_PRESETS, metavar="PRESET")
    parser.add_argument("--why", action="store_true", help="sample the GUI thread's stack during each gap and say where it was")
    args = parser.parse_args()
    import engine

    print(f"engine {engine.__version__}, compiled={engine.COMPILED}; corpus {args.corpus} ({args.corpus.stat().st_size / 1e6:.1f} MB)")
    os.environ.setdefault("TOKENIZER_WORKBENCH_HOME", tempfile.mkdtemp(prefix="bench-trust-home-"))
    if not args.skip_stepping:
        stepping = measure_stepping(args.corpus, args.work, args.step_vocab, args.run_seconds, args.step_presets, args.why)
        print(f"Step by Step on 5 MB of the corpus, vocabulary {args.step_vocab:,} (the steps run in their own process):")
        for preset, figures in stepping.items():
            phases = [key[4:] for key in figures if key.startswith("gap ")]
            worst = max(figures[f"gap {name}"] for name in phases)
            print(f"  {preset}: longest gap {worst:.1f} ms ({verdict(worst <= GAP_BAR_MS)}, bar {GAP_BAR_MS:.0f} ms); {int(figures['merges']):,} steps made")
            for name in phases:
                took = figures.get(f"s {name}")
                print(f"    {name}: longest gap {figures[f'gap {name}']:.1f} ms" + (f", {took:.2f} s until done" if took is not None else ""))
    if not args.skip_training:
        figures = measure_training(args.corpus, args.vocab, args.why)
        print(f"training BPE {args.vocab:,} in the window: waited {figures['waited_s']:.1f} s, reported {figures['reported_s']:.1f} s")
        for key, value in figures.items():
            if key.startswith("gap "):
                print(f"  longest gap, {key[4:]}: {value:.1f} ms ({verdict(value <= GAP_BAR_MS)}, bar {GAP_BAR_MS:.0f} ms)")
    if not args.skip_project:
        path = five_tokenizer_project(args.corpus, args.work, args.megabytes)
        figures = measure_project(path, args.why)
        print(f"project of five trained 32k tokenizers: {figures['size_mb']:.1f} MB ({verdict(figures['size_mb'] <= SIZE_BAR_MB)}, bar {SIZE_BAR_MB:.0f} MB)")
        print(f"  start to the first paint with the project open: {figures['start_to_first_paint_s']:.2f} s (best of 3)")
        print(f"  start to a painted window with the vocabulary shown: {figures['start_to_painted_s']:.2f} s (best of 3)")
        print(f"  open in a running window to its first paint: {figures['open_to_paint_s']:.2f} s ({verdict(figures['open_to_paint_s'] <= OPEN_BAR_S)}, bar {OPEN_BAR_S:.0f} s)")
        print(f"  open in a running window to the vocabulary shown: {figures['open_to_table_s']:.2f} s ({verdict(figures['open_to_table_s'] <= OPEN_BAR_S)}, bar {OPEN_BAR_S:.0f} s)")
        print(f"  save: {figures['save_s']:.2f} s ({verdict(figures['save_s'] <= SAVE_BAR_S)}, bar {SAVE_BAR_S:.0f} s); autosave: {figures['autosave_s']:.2f} s")
        for key, value in figures.items():
            if key.startswith("gap "):
                print(f"  longest gap, {key[4:]}: {value:.1f} ms ({verdict(value <= GAP_BAR_MS)}, bar {GAP_BAR_MS:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
