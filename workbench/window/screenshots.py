"""`tokenizer-workbench screenshots DIR`: the window on the sample project, offscreen, trained
through the real training process, every tab in a meaningful state, one PNG per tab.

It uses a throw-away settings folder, so the user's settings and recent projects stay as they
were. The README's screenshots (docs/screenshots/) are made with it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

# The window is drawn offscreen unless a display was asked for.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402

from workbench.window.appearance import application, apply_appearance  # noqa: E402
from workbench.window.prompts import ScriptedPrompts  # noqa: E402
from workbench.window.scripting import run_until, settle  # noqa: E402
from workbench.core.settings import Settings, throwaway_home  # noqa: E402

SIZE: Final = (1600, 1000)
TRAINING_TIMEOUT_S: Final = 600
# The languages the Audit tab's screenshots measure: 40, in 20 scripts.
AUDIT_LANGUAGES: Final = (
    "eng", "deu", "fra", "spa", "por", "pol", "ces", "fin", "hun", "tur", "vie", "ind", "swh", "yor", "hau", "rus",
    "ukr", "ell", "heb", "arb", "pes", "urd", "hin", "ben", "tam", "tel", "mar", "tha", "lao", "khm", "mya", "kat",
    "hye", "amh", "kor", "jpn", "cmn", "bod", "sin", "mal",
)  # fmt: skip


class ScreenshotError(RuntimeError):
    """The sample could not be trained or drawn."""


def write_screenshots(folder: Path, theme: str = "light") -> list[Path]:
    """Write train.png, train-step-by-step.png, train-step-tie.png, vocabulary.png, encode.png, encode-pipeline.png,
    compare.png, encode-round-trip.png, train-wordpiece.png, train-unigram.png, encode-step-wordpiece.png,
    encode-step-unigram.png, encode-step-bpe.png, audit.png,
    audit-premiums.png, audit-scripts.png, audit-table.png, audit-vocabulary-size.png, audit-health.png, audit-two-vocabularies.png,
    audit-unicode.png, train-failed.png, the dialogs that keep the user's work and an export's
    certificate (dialog-*.png), and the user guide's window (help-guide.png) into `folder`; return them."""
    folder.mkdir(parents=True, exist_ok=True)
    with throwaway_home("workbench-screenshots-"):
        return _write(folder, theme)


def _write(folder: Path, theme: str) -> list[Path]:
    from workbench.window.main_window import MainWindow

    application()
    settings = Settings(theme=theme)
    apply_appearance(settings)
    window = MainWindow(settings, ScriptedPrompts(save_changes="discard"))
    window.train_tab.apply_palette()
    window.resize(*SIZE)
    window.show()
    window.open_sample()
    paths: list[Path] = []
    try:
        _train(window)
        window.tabs.setCurrentWidget(window.train_tab)
        window.train_tab.modes.setCurrentIndex(0)
        paths.append(_grab(window, folder / "train.png"))

        window.train_tab.modes.setCurrentIndex(1)
        panel = window.train_tab.step_panel
        panel.start()
        panel.advance(12)
        _wait(lambda: panel.started is not None and not panel.is_stepping())
        paths.append(_grab(window, folder / "train-step-by-step.png"))
        # the textbook tie: ship x3, shipping x2, shop x2; after s+h, sh+i and i+p tie at 5
        panel.reset()
        panel.source.setCurrentIndex(0)  # (typed text)
        panel.text.setPlainText("ship ship ship shipping shipping shop shop")
        panel.advance(1)
        _wait(lambda: panel.started is not None and not panel.is_stepping())
        paths.append(_grab(window, folder / "train-step-tie.png"))
        panel.reset()
        panel.reset()
        window.train_tab.modes.setCurrentIndex(0)

        window.tabs.setCurrentWidget(window.vocab_tab)
        _wait(lambda: _view_built(window))
        _select_a_built_token(window)
        paths.append(_grab(window, folder / "vocabulary.png"))

        # a second tokenizer, byte-level, to encode with and to compare
        window.document.add_preset("gpt2", vocab_size=8000)
        _train(window)
        window.tabs.setCurrentWidget(window.encode_tab)
        tab = window.encode_tab
        _wait(tab.is_current)
        emoji = tab.editor.text().find("😀")
        for row, (_, _, _, start, end, _, _, _) in enumerate(tab.table_model.rows):
            if start <= emoji < end:
                tab.table.selectRow(row)
                break
        ids = [row[1] for row in tab.table_model.rows[:6]]
        tab.decode_input.setText(", ".join(str(i) for i in ids))
        _wait(lambda: bool(tab.decoded.text()))
        paths.append(_grab(window, folder / "encode.png"))
        tab.pages.setCurrentIndex(1)
        _wait(lambda: bool(tab.pipeline.toPlainText()))
        paths.append(_grab(window, folder / "encode-pipeline.png"))
        tab.pages.setCurrentIndex(0)

        window.tabs.setCurrentWidget(window.compare_tab)
        compare = window.compare_tab
        titles = [entry.name for entry in window.document.project.tokenizers] + ["words (baseline)"]
        compare.choose(titles)
        _wait(compare.is_current)
        paths.append(_grab(window, folder / "compare.png"))

        # the round trip of the whitespace BPE, which has no decoder: not exact, and why
        window.document.set_active(0)
        window.tabs.setCurrentWidget(tab)
        tab.pages.setCurrentIndex(2)
        _wait(lambda: tab.is_current() and "exact" in tab.verdict.text().lower())
        paths.append(_grab(window, folder / "encode-round-trip.png"))
        tab.pages.setCurrentIndex(0)

        # WordPiece (merges ranked by likelihood gain) and Unigram (EM and pruning rounds); the
        # form scrolled to sentencepiece's trainer options for Unigram
        for key, size, name in (("bert", 8000, "train-wordpiece.png"), ("sentencepiece-unigram", 2000, "train-unigram.png")):
            window.document.add_preset(key, vocab_size=size)
            window.tabs.setCurrentWidget(window.train_tab)
            _train(window)
            window.train_tab.merges.scrollToBottom()
            if key == "sentencepiece-unigram":
                _show_trainer_options(window)
            paths.append(_grab(window, folder / name))
            window.train_tab.form_area.verticalScrollBar().setValue(0)
        paths.extend(_steppers(window, folder))
        paths.extend(_audit(window, folder))
        paths.extend(_dialogs(window, folder))
        paths.append(_guide(window, folder))
    finally:
        window.shutdown()
        window.document.mark_saved(window.document.path or str(folder / "sample.tokproj"))
        window.close()
    return paths


def _steppers(window: object, folder: Path) -> list[Path]:
    """The Encode tab's Step Through page on one word of a line of the sample, for each model:
    BERT's WordPiece at its second piece found (encode-step-wordpiece.png), the SentencePiece
    Unigram's lattice with the best path followed back to the start (encode-step-unigram.png),
    and the GPT-2 byte-level BPE's merges to the end (encode-step-bpe.png)."""
    from engine.analysis.steps import BACK, LOOKUP
    from workbench.window.main_window import MainWindow
    from workbench.window.tabs.encode import STEP_PAGE

    assert isinstance(window, MainWindow)
    tab = window.encode_tab
    stepper = tab.stepper
    text = "Thou art the unkindest of all the kingdoms here."
    sizes = tab.splitter.sizes()
    paths: list[Path] = []
    for prefix, word, name in (("BERT", "unkindest", "encode-step-wordpiece.png"), ("SentencePiece Unigram", "kingdoms", "encode-step-unigram.png"), ("GPT-2", "unkindest", "encode-step-bpe.png")):
        index = next(i for i, entry in enumerate(window.document.project.tokenizers) if entry.name.startswith(prefix) and entry.is_trained)
        window.document.set_active(index)
        window.tabs.setCurrentWidget(tab)
        tab.pages.setCurrentIndex(STEP_PAGE)
        tab.splitter.setSizes([sum(sizes) // 5, sum(sizes) - sum(sizes) // 5])
        tab.editor.set_text(text)
        cursor = tab.editor.textCursor()
        cursor.setPosition(text.index(word) + 2)
        tab.editor.setTextCursor(cursor)
        _wait(lambda: stepper.is_current() and bool(stepper.steps))
        # where to stop: WordPiece at the lookup of its second piece; Unigram with the whole
        # path followed back; BPE at the end
        stop = len(stepper.steps) - 1
        if name == "encode-step-wordpiece.png":
            lookups = stepper.wire.get("lookups")
            assert isinstance(lookups, list)
            found = [k for k, lookup in enumerate(lookups) if lookup[3] >= 0]
            if len(found) >= 2:
                stop = next(k for k, step in enumerate(stepper.steps) if step["phase"] == LOOKUP and step["index"] == found[1])
        elif name == "encode-step-unigram.png":
            stop = max(k for k, step in enumerate(stepper.steps) if step["phase"] == BACK)
        while stepper.position < stop:
            stepper.step()
        paths.append(_grab(window, folder / name))
    tab.pages.setCurrentIndex(0)
    tab.splitter.setSizes(sizes)
    return paths


def _audit(window: object, folder: Path) -> list[Path]:
    """The Audit tab after measuring the sample's byte-level BPE and WordPiece (trained on
    English) over declarations in 40 languages across 20 scripts and the code samples
    (audit.png, audit-premiums.png, audit-scripts.png, audit-table.png); then every trained
    tokenizer's vocabulary-size curve on its held-out lines (audit-vocabulary-size.png), their
    vocabulary health (audit-health.png), two of them side by side (audit-two-vocabularies.png),
    and the Unicode page (audit-unicode.png)."""
    from workbench.window.main_window import MainWindow
    from workbench.window.tabs.audit import COMPARE_PAGE, HEALTH_PAGE, SIZE_PAGE, UNICODE_PAGE

    assert isinstance(window, MainWindow)
    tab = window.audit_tab
    window.tabs.setCurrentWidget(tab)
    names = [entry.name for entry in window.document.project.tokenizers if entry.trained_json is not None]
    tab.set_chosen([name for name in names if "GPT-2" in name or "BERT" in name][:2] or names[:2])
    tab.languages.setText(", ".join(AUDIT_LANGUAGES))
    tab.run()
    _wait(lambda: not tab.is_running(), TRAINING_TIMEOUT_S)
    if tab.result is None:
        raise ScreenshotError(f"the audit did not finish: {tab.status.text()}")
    paths: list[Path] = []
    for page, name in enumerate(("audit.png", "audit-premiums.png", "audit-scripts.png", "audit-table.png")):
        tab.pages.setCurrentIndex(page)
        tab.flush()
        if name == "audit-premiums.png":
            chart = tab.premium_chart
            chart.readout.setText(chart.describe(len(chart.languages) - 1))
        if name == "audit-table.png":
            column = tab.table_model.columns.index("premium_over_english")
            tab.table.sortByColumn(column, Qt.SortOrder.DescendingOrder)
        settle(0.3)
        paths.append(_grab(window, folder / name))
    # which vocabulary size? every trained tokenizer on its own held-out lines
    tab.set_chosen(names)
    tab.pages.setCurrentIndex(SIZE_PAGE)
    tab.size_page.draw()
    _wait(lambda: not tab.size_page.job.is_running(), TRAINING_TIMEOUT_S)
    if not tab.size_page.curves:
        raise ScreenshotError(f"the size curves were not drawn: {tab.size_page.status.text()}")
    tab.size_page.chart.readout.setText(tab.size_page.chart.describe(2000))
    paths.append(_grab(window, folder / "audit-vocabulary-size.png"))
    # vocabulary health on the texts chosen, and two vocabularies side by side
    tab.pages.setCurrentIndex(HEALTH_PAGE)
    health = tab.health_page
    health.check()
    _wait(lambda: not health.job.is_running(), TRAINING_TIMEOUT_S)
    if not health.results:
        raise ScreenshotError(f"the vocabulary check did not finish: {health.status.text()}")
    health.counts.setCurrentCell(min(2, len(health.results) - 1), 2)
    paths.append(_grab(window, folder / "audit-health.png"))
    tab.pages.setCurrentIndex(COMPARE_PAGE)
    compare = tab.compare_page
    pair = [name for name in names if "GPT-2" in name or "BERT" in name][:2]
    if len(pair) == 2:
        compare.a.setCurrentText(pair[0])
        compare.b.setCurrentText(pair[1])
    compare.compare()
    _wait(lambda: not compare.job.is_running(), TRAINING_TIMEOUT_S)
    if compare.result is None:
        raise ScreenshotError(f"the vocabularies were not compared: {compare.status.text()}")
    paths.append(_grab(window, folder / "audit-two-vocabularies.png"))
    # the sample Unicode text under each normal form, with the byte-level BPE's ids
    tab.pages.setCurrentIndex(UNICODE_PAGE)
    unicode_page = tab.unicode_page
    unicode_page.tokenizer.setCurrentText(next((name for name in names if "GPT-2" in name), names[0]))
    unicode_page.request()
    _wait(unicode_page.is_current)
    unicode_page.count_corpus()
    _wait(lambda: not unicode_page.job.is_running(), TRAINING_TIMEOUT_S)
    unicode_page.corpus_table.setCurrentCell(0, 6)
    paths.append(_grab(window, folder / "audit-unicode.png"))
    tab.pages.setCurrentIndex(0)
    return paths


def _dialogs(window: object, folder: Path) -> list[Path]:
    """The questions and messages that keep the user's work: drawn as the window shows them,
    with the texts it asks them with (train-failed.png, dialog-*.png)."""
    import signal

    from engine.formats import convert
    from engine.project.facts import CorpusFile
    from engine.project.project_file import Project
    from workbench.window.main_window import MainWindow
    from workbench.window.prompts import Prompts

    assert isinstance(window, MainWindow)
    paths: list[Path] = []
    asked: list[tuple[str, tuple[str, str, str, list[str]]]] = []

    def last(prompts: object, name: str) -> None:
        assert isinstance(prompts, ScriptedPrompts)
        if prompts.dialogs:
            asked.append((name, prompts.dialogs[-1]))

    # Keep as Result over a trained tokenizer asks first
    window.document.set_active(0)
    window.tabs.setCurrentWidget(window.train_tab)
    window.train_tab.modes.setCurrentIndex(1)
    panel = window.train_tab.step_panel
    panel.advance(5)
    panel.keep()
    _wait(lambda: panel.started is not None and not panel.is_stepping())
    last(window.prompts, "dialog-replace-result.png")
    panel.reset()
    window.train_tab.modes.setCurrentIndex(0)

    # a training whose process is killed says why, and offers Retry
    window.document.add_preset("bpe", vocab_size=30000)
    tab = window.train_tab
    tab.start_training()
    _wait(lambda: tab.runner.pid is not None and bool(tab.stages.stages()), 60.0)
    pid = tab.runner.pid
    if pid is not None:
        os.kill(pid, signal.SIGKILL)
        tab.runner.wait(30)
        settle(0.5)
        paths.append(_grab(window, folder / "train-failed.png"))

    work = Path(tempfile.mkdtemp(prefix="workbench-dialogs-"))
    # an export proves itself: the SentencePiece Unigram written as a .model, and its certificate
    for index, entry in enumerate(window.document.project.tokenizers):
        if entry.name.startswith("SentencePiece Unigram") and entry.is_trained:
            window.document.set_active(index)
            window.prompts.answers["export_file"] = str(work / "unigram.model")  # type: ignore[attr-defined]
            window.exporter.export_as(convert.SENTENCEPIECE)
            last(window.prompts, "dialog-export-certificate.png")
            break
    # a project open in another window
    window.prompts.answers["save_project"] = str(work / "shared.tokproj")  # type: ignore[attr-defined]
    window.document.add_preset("wordlevel", vocab_size=300)
    window.save_as()
    other = MainWindow(Settings(), ScriptedPrompts())
    other.open_file(str(work / "shared.tokproj"))
    last(other.prompts, "dialog-open-elsewhere.png")
    # a project someone sent, reading a file outside its folder
    outside = work / "elsewhere" / "notes.txt"
    outside.parent.mkdir()
    outside.write_text("private notes\n", encoding="utf-8")
    sent = Project("sent")
    (work / "sent").mkdir()
    (work / "sent" / "corpus.txt").write_text("words\n", encoding="utf-8")
    sent.corpus = [CorpusFile(str(work / "sent" / "corpus.txt")), CorpusFile(str(outside))]
    sent.save(str(work / "sent" / "sent.tokproj"))
    other.open_file(str(work / "sent" / "sent.tokproj"))
    last(other.prompts, "dialog-outside-files.png")
    # after a crash: the autosaved copy is offered back; a damaged one is set aside
    other.shutdown()
    window.document.add_preset("gpt2", vocab_size=300)  # (a change not saved yet)
    window.autosave()
    _wait(lambda: not window.worker.busy())
    window.recovery.release()  # (what a crash leaves)
    again = MainWindow(Settings(), ScriptedPrompts(choose="Later"))
    again.offer_recovery()
    last(again.prompts, "dialog-restore.png")
    again.shutdown()
    with open(window.recovery.path, "r+b") as copy:
        copy.truncate(200)
    damaged = MainWindow(Settings(), ScriptedPrompts())
    damaged.offer_recovery()
    last(damaged.prompts, "dialog-damaged-copy.png")
    damaged.shutdown()
    window.recovery.hold()

    shutil.rmtree(work, ignore_errors=True)
    for name, (kind, title, text, choices) in asked:
        box = Prompts(window).box(kind, title, text, choices)
        box.show()
        settle(0.3)
        if not box.grab().save(str(folder / name)):
            raise ScreenshotError(f"{folder / name}: could not write the PNG")
        box.close()
        paths.append(folder / name)
    return paths


def _guide(window: object, folder: Path) -> Path:
    """The user guide's window as F1 opens it on the Train tab (help-guide.png)."""
    from workbench.window.main_window import MainWindow

    assert isinstance(window, MainWindow)
    window.tabs.setCurrentWidget(window.train_tab)
    window.train_tab.modes.setCurrentIndex(0)
    window.show_guide()
    guide = window.guide
    if guide is None:
        raise ScreenshotError("the user guide did not open")
    settle(0.3)
    path = folder / "help-guide.png"
    if not guide.grab().save(str(path)):
        raise ScreenshotError(f"{path}: could not write the PNG")
    guide.close()
    return path


def _view_built(window: object) -> bool:
    """Whether the active tokenizer's view came from the encoding process (merge trees too)."""
    from workbench.window.main_window import MainWindow

    assert isinstance(window, MainWindow)
    view = window.document.view()
    return view is not None and view.ready and view.made is not None


def _train(window: object) -> None:
    from workbench.window.main_window import MainWindow

    assert isinstance(window, MainWindow)
    tab = window.train_tab
    tab.start_training()
    if not tab.runner.is_running():
        raise ScreenshotError(f"training did not start: {tab.message.text()}")
    outcome = tab.runner.wait(TRAINING_TIMEOUT_S)
    if outcome != "finished":
        raise ScreenshotError(f"the sample training did not finish: {outcome}")
    settle(0.6)


def _show_trainer_options(window: object) -> None:
    """Scroll the Train tab's form to the trainer's options (the Trainer box at the top)."""
    from workbench.window.main_window import MainWindow

    assert isinstance(window, MainWindow)
    settle(0.2)  # (laid out first: the box's place is known)
    box = window.train_tab.form.trainer.parentWidget()
    if box is None:
        raise ScreenshotError("the trainer's options are not in the form")
    window.train_tab.form_area.verticalScrollBar().setValue(box.y())


def _select_a_built_token(window: object) -> None:
    """Select a frequent token built by several merges, so its merge tree has depth."""
    from workbench.window.main_window import MainWindow

    assert isinstance(window, MainWindow)
    table = window.vocab_tab.model.table
    best = -1
    best_key = (-1, -1)
    for i in range(len(table)):
        if table.merge_ranks[i] >= 0 and table.char_lengths[i] >= 6:
            key = (min(table.frequencies[i], 10_000_000), table.char_lengths[i])
            if key > best_key:
                best, best_key = i, key
    if best >= 0:
        window.vocab_tab.mode.setCurrentText("contains")
        window.vocab_tab.filter.setText(table.tokens[best][:3])
        window.vocab_tab.select_token(table.ids[best])
    settle(0.3)


def _grab(window: object, path: Path) -> Path:
    from workbench.window.main_window import MainWindow

    assert isinstance(window, MainWindow)
    settle(0.4)
    if not window.grab().save(str(path)):
        raise ScreenshotError(f"{path}: could not write the PNG")
    return path


def _wait(ready: Callable[[], bool], timeout_s: float = 60.0) -> None:
    """Let the window run until `ready()` (an encoding arrived), or fail."""
    if not run_until(ready, timeout_s):
        raise ScreenshotError("the encoding process did not answer in time")
    settle(0.3)
