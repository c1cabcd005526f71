"""The application: `run_window`, what `tokenizer-workbench [FILE]` and `python -m workbench`
run (the QApplication, its style, theme and font are `workbench.window.appearance`'s).

What opens: FILE when given (a project, or a tokenizer file to inspect), else the project the
user had open last, else the sample project shipped in resources/ (so a newcomer can press Train
at once). An autosaved project left by a crash is offered back first.
"""

from __future__ import annotations

import gc
import os
import time
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QTimer

from engine.project.project_file import SUFFIX
from workbench.core.settings import Settings
from workbench.jobs.runners.saving import ReadAhead
from workbench.window.appearance import application, apply_appearance
from workbench.window.prompts import Prompts

if TYPE_CHECKING:
    from workbench.window.main_window import MainWindow


# Set (to anything) by benchmarks/bench_startup.py: once the window is shown and its first events
# handled, print the time (time.time()) and close, discarding nothing (nothing was changed yet).
STARTUP_PROBE: Final = "TOKENIZER_WORKBENCH_STARTUP_PROBE"


def run_window(path: str | None = None) -> int:
    """Open the main window (on `path` when given) and run until it closes."""
    window = start_window(path)
    settle_memory()
    if os.environ.get(STARTUP_PROBE):
        QTimer.singleShot(0, lambda: _report_started(window))
    return application().exec()


def _report_started(window: MainWindow) -> None:
    print(f"{time.time():.6f}", flush=True)
    window.shutdown()
    application().quit()


def start_window(path: str | None, prompts: Prompts | None = None) -> MainWindow:
    """The main window, shown, with what opens at start open (`path`, else the last project...).
    The project file that will probably open is read from the start, while Qt and the window are
    built (`ReadAhead`)."""
    settings = Settings.load()
    first = path if path is not None else next((p for p in settings.recent_projects if os.path.isfile(p)), None)
    ahead = ReadAhead(first) if first is not None and first.endswith(SUFFIX) else None
    application()
    apply_appearance(settings)
    from workbench.window.main_window import MainWindow

    window = MainWindow(settings, prompts, read_ahead=ahead)
    window.encoding_runner.start()  # (it imports the engine while the window is drawn)
    window.show()
    window.open_at_start(path)
    return window


def settle_memory() -> None:
    """Exclude everything made at start-up (Qt wrappers, modules, the window) from the cyclic
    garbage collector's scans: a full scan of them during a training would pause the window
    for tens of milliseconds, and they live as long as the window anyway."""
    gc.collect()
    gc.freeze()
