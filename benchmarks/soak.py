"""Soak: train and encode over and over for a while, in one process and through the window's own
training runner and encoding process, and check that memory stays flat and nothing fails.

Each round trains the same small tokenizer (the first 4,000 lines of the sample text) and
encodes and decodes the same lines; its outputs must equal the first round's. Memory is the
process's resident size after each round, once the first rounds have warmed the caches up:
the soak fails when it grows by more than --growth-mb from the warm-up to the end, when any
round differs or fails, or when a child process is left running.

    python benchmarks/soak.py                    # 10 minutes: half in process, half in the window's runner
    python benchmarks/soak.py --minutes 2

Run it with the compiled engine installed (`pip install .`), from any folder.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "resources" / "sample" / "shakespeare.txt"
WARM_ROUNDS = 3


def resident_mb() -> float:
    """This process's resident memory (Linux's /proc), in MB."""
    with open("/proc/self/statm", encoding="ascii") as stream:
        return int(stream.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


class Tally:
    """Rounds, failures and memory after each round."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.rounds = 0
        self.failures: list[str] = []
        self.memory: list[float] = []

    def round_done(self) -> None:
        self.rounds += 1
        gc.collect()
        self.memory.append(resident_mb())

    def growth(self) -> float:
        if len(self.memory) <= WARM_ROUNDS:
            return 0.0
        return self.memory[-1] - self.memory[WARM_ROUNDS - 1]

    def report(self, limit_mb: float) -> bool:
        ok = not self.failures and self.growth() <= limit_mb
        warm = self.memory[WARM_ROUNDS - 1] if len(self.memory) >= WARM_ROUNDS else float("nan")
        print(
            f"{self.name}: {self.rounds} rounds, {len(self.failures)} failures; resident memory after warm-up "
            f"{warm:.1f} MB, at the end {self.memory[-1] if self.memory else float('nan'):.1f} MB, highest "
            f"{max(self.memory) if self.memory else float('nan'):.1f} MB: grew {self.growth():+.1f} MB "
            f"({'ok' if ok else 'FAILED'}, limit {limit_mb:.0f} MB)"
        )
        for failure in self.failures[:5]:
            print(f"  {failure}")
        return ok


def soak_in_process(corpus: Path, lines: list[str], seconds: float) -> Tally:
    """Train, encode and decode with the engine API in this process."""
    from workbench.core import presets

    tally = Tally("in process")
    first: tuple[str, list[list[int]]] | None = None
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        try:
            tokenizer, trainer = presets.build("gpt2", 2000)
            trainer.show_progress = False
            tokenizer.train([str(corpus)], trainer, processes=2)
            ids = [encoding.ids for encoding in tokenizer.encode_batch(lines)]
            for line, row in zip(lines[:200], ids):
                if tokenizer.decode(row) != line:
                    raise AssertionError(f"decode(encode({line!r})) differs")
            outcome = (tokenizer.to_str(), ids)
            if first is None:
                first = outcome
            elif outcome != first:
                tally.failures.append(f"round {tally.rounds + 1}: another tokenizer or other ids than the first round")
        except Exception as error:  # noqa: BLE001 - counted and reported
            tally.failures.append(f"round {tally.rounds + 1}: {type(error).__name__}: {error}")
        tally.round_done()
    return tally


def soak_in_window(corpus: Path, lines: list[str], seconds: float) -> Tally:
    """Train through the window's TrainingRunner (a child process each time) and encode through
    its EncodingRunner (one long-lived child)."""
    from PySide6.QtCore import QEventLoop, QTimer

    from workbench.core import presets
    from workbench.window.app import application
    from workbench.jobs.runners.encoding import EncodingRunner
    from workbench.jobs.runners.training import TrainingRunner
    from workbench.jobs.children.training import TrainingJob

    application()
    runner = TrainingRunner()
    service = EncodingRunner()
    tally = Tally("through the window's runner and encoding process")
    tokenizer, trainer = presets.build("gpt2", 2000)
    job = TrainingJob(tokenizer.to_str(), trainer.to_dict(), [str(corpus)], 0.01, 2)
    first: tuple[str, list[object]] | None = None
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        try:
            runner.start(job)
            results: list[object] = []
            runner.finished.connect(results.append)
            outcome = runner.wait(600)
            runner.finished.disconnect(results.append)
            if outcome != "finished" or not results:
                raise RuntimeError(f"the training {outcome}")
            trained = getattr(results[0], "tokenizer_json")
            key = service.add_tokenizer(trained)
            encoded: dict[int, object] = {}
            loop = QEventLoop()
            wanted = [0]

            def take(number: int, body: object) -> None:
                encoded[number] = body
                if number == wanted[0]:
                    loop.quit()

            service.encoded.connect(take)
            outcome_ids: list[object] = []
            # (one at a time: of several waiting encodings only the newest is answered)
            for line in lines[:50]:
                wanted[0] = service.encode(key, line, None, True)
                QTimer.singleShot(60_000, loop.quit)
                loop.exec()
                body = encoded.get(wanted[0])
                if not isinstance(body, dict):
                    raise RuntimeError(f"the encoding of {line!r} never came back")
                outcome_ids.append(body.get("ids"))
            service.encoded.disconnect(take)
            result = (trained, outcome_ids)
            if first is None:
                first = result
            elif result != first:
                tally.failures.append(f"round {tally.rounds + 1}: another tokenizer or other encodings than the first round")
            deadline = time.monotonic() + 20
            while not runner.is_idle() and time.monotonic() < deadline:
                QEventLoop().processEvents()
                time.sleep(0.01)
            if not runner.is_idle():
                tally.failures.append(f"round {tally.rounds + 1}: the training process did not exit")
        except Exception as error:  # noqa: BLE001 - counted and reported
            tally.failures.append(f"round {tally.rounds + 1}: {type(error).__name__}: {error}")
        tally.round_done()
    runner.shutdown()
    service.shutdown()
    left = multiprocessing.active_children()
    if left:
        tally.failures.append(f"processes left running at the end: {left}")
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--growth-mb", type=float, default=30.0)
    args = parser.parse_args()
    import engine

    os.environ.setdefault("TOKENIZER_WORKBENCH_HOME", tempfile.mkdtemp(prefix="soak-home-"))
    folder = Path(tempfile.mkdtemp(prefix="soak-"))
    corpus = folder / "corpus.txt"
    all_lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    corpus.write_text("".join(all_lines[:4000]), encoding="utf-8")
    lines = [line.rstrip("\n") for line in all_lines[4000:5000] if line.strip()]
    print(f"engine {engine.__version__}, compiled={engine.COMPILED}; {args.minutes:g} minutes, half in each way")
    half = args.minutes * 30.0
    ok = soak_in_process(corpus, lines, half).report(args.growth_mb)
    ok = soak_in_window(corpus, lines, half).report(args.growth_mb) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
