"""The application: `run_window`, what `tokenizer-workbench [FILE]` and `python -m workbench`
run (the QApplication, its style, theme and font are `workbench.window.appearance`'s).

What opens: FILE when given (a project, or a tokenizer file to inspect), else the project the
user had open last, else the sample project shipped in resources/ (so a newcomer can press Train
at once). An autosaved project left by a crash is offered back first.
"""

from __future__ import annotations

import gc
import multiprocessing

from workbench.window.appearance import application, apply_appearance
from workbench.core.settings import Settings


def run_window(path: str | None = None) -> int:
    """Open the main window (on `path` when given) and run until it closes."""
    multiprocessing.freeze_support()
    app = application()
    settings = Settings.load()
    apply_appearance(settings)
    from workbench.window.main_window import MainWindow

    window = MainWindow(settings)
    window.encoding_runner.start()  # (it imports the engine while the window is drawn)
    window.show()
    window.open_at_start(path)
    settle_memory()
    return app.exec()


def settle_memory() -> None:
    """Exclude everything made at start-up (Qt wrappers, modules, the window) from the cyclic
    garbage collector's scans: a full scan of them during a training would pause the window
    for tens of milliseconds, and they live as long as the window anyway."""
    gc.collect()
    gc.freeze()
