"""`tokenizer-workbench --self-test`: the installed application checks itself, headless, the way
a user would use it, and exits 0 when every step passed.

It opens the window offscreen on the sample project, with a throw-away settings folder, and then,
for the sample's BPE and for a small tokenizer of three other presets (GPT-2 byte-level BPE,
BERT WordPiece, SentencePiece Unigram): trains it through the real training process (a spawned
child, which forks its counting processes), waits for the encoding process's view of the result,
encodes and decodes the sample texts, and exports the tokenizer in every format that can hold it
through the window's export process, then reads each file back and encodes the texts again: the
ids must be the same, unless the format said what it drops. `build_app.py` runs it in the built
desktop bundle, where each of those children is the bundle's own executable started again.

Each step prints one line ("ok", or "FAILED" and why); nothing stops at the first failure that
the later steps do not depend on.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

# Headless unless a display was asked for.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import engine  # noqa: E402
from engine import Tokenizer  # noqa: E402
from engine.errors import EngineError  # noqa: E402
from engine.formats import convert  # noqa: E402
from workbench.core import shipped  # noqa: E402
from workbench.core.settings import Settings, throwaway_home  # noqa: E402
from workbench.window.appearance import application, apply_appearance  # noqa: E402
from workbench.window.prompts import ScriptedPrompts  # noqa: E402
from workbench.window.scripting import run_until  # noqa: E402

if TYPE_CHECKING:
    from workbench.window.main_window import MainWindow

# The presets trained besides the sample's own tokenizer, and their vocabulary size: between
# them, every export format has a tokenizer it can hold.
PRESETS: Final = (("gpt2", 1000), ("bert", 1000), ("sentencepiece-unigram", 1000))
# Tokenizers whose decoding gives every text back exactly.
EXACT_ROUND_TRIP: Final = ("gpt2",)
TRAINING_TIMEOUT_S: Final = 600.0
ANSWER_TIMEOUT_S: Final = 120.0
# The texts encoded: this many non-empty lines of each sample file.
LINES_PER_FILE: Final = 200


class SelfTestFailed(RuntimeError):
    """A step the later steps need did not pass."""


class Report:
    """The self-test's lines on `out`, and whether any step failed."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.failures = 0

    def ok(self, what: str, started: float) -> None:
        self.out.write(f"ok      {what} ({time.monotonic() - started:.1f} s)\n")
        self.out.flush()

    def failed(self, what: str, why: str) -> None:
        self.failures += 1
        self.out.write(f"FAILED  {what}: {why}\n")
        self.out.flush()


def run_self_test(out: TextIO | None = None) -> int:
    """Run every step; 0 when all passed, 1 otherwise."""
    report = Report(out if out is not None else sys.stdout)
    build = "compiled with mypyc" if engine.COMPILED else "pure Python"
    frozen = "desktop bundle" if getattr(sys, "frozen", False) else "Python install"
    report.out.write(f"tokenizer-workbench {engine.__version__} self-test: engine {build}, {frozen}\n")
    try:
        with throwaway_home("workbench-self-test-"), tempfile.TemporaryDirectory(prefix="self-test-exports-") as folder:
            _run(report, Path(folder))
    except SelfTestFailed as error:
        report.failed("self-test stopped", str(error))
    except Exception as error:  # (whatever broke, the report says what and where)
        report.failed("self-test stopped", f"{type(error).__name__}: {error}")
        traceback.print_exc(file=report.out)
    verdict = "passed" if report.failures == 0 else f"{report.failures} step(s) failed"
    report.out.write(f"self-test {verdict}\n")
    return 0 if report.failures == 0 else 1


def _run(report: Report, folder: Path) -> None:
    from workbench.window.main_window import MainWindow

    started = time.monotonic()
    texts = _sample_texts()
    report.ok(f"resources: {len(texts)} sample lines in {shipped.resources_dir()}", started)

    started = time.monotonic()
    application()
    settings = Settings()
    apply_appearance(settings)
    prompts = ScriptedPrompts(save_changes="discard")
    window = MainWindow(settings, prompts)
    window.show()
    window.open_sample()
    entry = window.document.active
    if entry is None:
        raise SelfTestFailed(f"the sample project did not open: {prompts.asked}")
    report.ok(f"window: the sample project open, “{entry.name}” active", started)
    try:
        for key, vocab_size in ((entry.preset, 0), *PRESETS):
            if vocab_size:
                window.document.add_preset(key, vocab_size)
            _check_tokenizer(report, window, prompts, key, texts, folder)
    finally:
        window.shutdown()
        window.close()


def _check_tokenizer(
    report: Report, window: MainWindow, prompts: ScriptedPrompts, key: str, texts: list[str], folder: Path
) -> None:
    entry = window.document.active
    assert entry is not None
    name = entry.name
    started = time.monotonic()
    window.train_tab.start_training()
    if not window.train_tab.runner.is_running():
        raise SelfTestFailed(f"training “{name}” did not start: {window.train_tab.message.text()}")
    outcome = window.train_tab.runner.wait(TRAINING_TIMEOUT_S)
    trained = window.document.active
    if outcome != "finished" or trained is None or trained.trained_json is None:
        raise SelfTestFailed(f"training “{name}” in the training process: {outcome}")
    tokenizer = Tokenizer.from_str(trained.trained_json)
    report.ok(f"train “{name}”: {tokenizer.get_vocab_size():,} tokens, in the training process", started)

    started = time.monotonic()

    def answered() -> bool:
        view = window.document.view()
        return view is not None and view.entry is trained and view.export_reasons is not None

    if not run_until(answered, ANSWER_TIMEOUT_S):
        raise SelfTestFailed(f"the encoding process did not answer for “{name}” in {ANSWER_TIMEOUT_S:.0f} s")
    view = window.document.view()
    assert view is not None and view.export_reasons is not None
    reasons = view.export_reasons
    report.ok(f"encoding process: “{name}” viewed, export formats checked", started)

    started = time.monotonic()
    ids = [tokenizer.encode(text).ids for text in texts]
    problem = _round_trip_problem(tokenizer, texts, ids, exact=key in EXACT_ROUND_TRIP)
    if problem:
        report.failed(f"encode and decode with “{name}”", problem)
    else:
        total = sum(len(line) for line in ids)
        report.ok(f"encode and decode with “{name}”: {len(texts)} lines, {total:,} tokens", started)

    for kind in convert.FORMATS:
        reason = "" if kind == convert.HF else reasons.get(kind, "")
        if reason:
            report.out.write(f"skipped {convert.DESCRIPTIONS[kind]} for “{name}”: {reason}\n")
            continue
        _check_export(report, window, prompts, tokenizer, name, kind, texts, ids, folder)


def _check_export(
    report: Report,
    window: MainWindow,
    prompts: ScriptedPrompts,
    tokenizer: Tokenizer,
    name: str,
    kind: str,
    texts: list[str],
    ids: list[list[int]],
    folder: Path,
) -> None:
    what = f"export “{name}” as {convert.DESCRIPTIONS[kind]}"
    started = time.monotonic()
    target = folder / f"{name.replace(' ', '-')}-{kind}"
    target.mkdir()
    path = str(target / ("vocab.json" if kind == convert.GPT2 else "tokenizer" + convert.SUFFIXES[kind]))
    prompts.answers["export_file"] = path
    warned = len([dialog for dialog in prompts.dialogs if dialog[0] == "warn"])
    if not window.exporter.export_as(kind):
        warnings = [text for kind_, _, text, _ in prompts.dialogs if kind_ == "warn"][warned:]
        report.failed(what, "; ".join(warnings) or "nothing was written")
        return
    try:
        dropped = convert.check(tokenizer, kind)
        again = convert.load(path)
    except (EngineError, OSError) as error:
        report.failed(what, f"{path} could not be read back: {error}")
        return
    differ = sum(1 for text, expected in zip(texts, ids) if again.encode(text).ids != expected)
    if differ and not dropped:
        report.failed(what, f"read back from {path}, it encodes {differ} of {len(texts)} lines differently")
        return
    kept = f"{len(texts) - differ} of {len(texts)} lines encoded alike" if dropped else "read back, same ids"
    note = f"; the format leaves out {len(dropped)} thing(s) the export lists" if dropped else ""
    report.ok(f"{what}: {kept}{note}", started)


def _round_trip_problem(tokenizer: Tokenizer, texts: list[str], ids: list[list[int]], exact: bool) -> str:
    """Why encoding and decoding `texts` failed ("" when it did not)."""
    size = tokenizer.get_vocab_size(with_added_tokens=True)
    for text, line in zip(texts, ids):
        if not line:
            return f"no tokens for {text[:40]!r}"
        if any(not 0 <= token < size for token in line):
            return f"an id outside the vocabulary for {text[:40]!r}"
        # (a line of unknown characters decodes to nothing once its special tokens are skipped)
        if not tokenizer.decode(line, skip_special_tokens=False).strip():
            return f"decoding {text[:40]!r} gave nothing"
        decoded = tokenizer.decode(line)
        if exact and decoded != text:
            return f"decoding does not give the text back: {text[:40]!r} -> {decoded[:40]!r}"
    return ""


def _sample_texts() -> list[str]:
    """The first `LINES_PER_FILE` non-empty lines of each sample text (English, Japanese)."""
    texts: list[str] = []
    for name in ("shakespeare.txt", "wagahaiwa_nekodearu.txt"):
        path = shipped.resource("sample", name)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as error:
            raise SelfTestFailed(f"{path}: {error.strerror or error}") from None
        texts.extend([line for line in lines if line.strip()][:LINES_PER_FILE])
    return texts
