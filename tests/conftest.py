"""Shared fixtures: where the shared corpora (or their stand-ins) are, a private settings folder
for every test, and a guard that fails any test leaving a child process or a thread running."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import corpora_folder

# Qt tests never need a display.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# How long a test's leftovers get to finish on their own before the test fails.
LEFTOVER_GRACE_S = 10.0


@pytest.fixture
def corpora() -> Path:
    """../shared/corpora, or without it the folder of stand-ins made from the shipped sample
    (a failure instead when WORKBENCH_REQUIRE_SHARED_CORPORA is set: see support.corpus_path)."""
    return corpora_folder()


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Settings, recent projects and recovery files go to a temporary folder, never the real one."""
    home = tmp_path_factory.mktemp("workbench-home")
    monkeypatch.setenv("TOKENIZER_WORKBENCH_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def no_leftovers() -> Iterator[None]:
    """Fail a test that leaves a child process, a Python thread or a Qt pool thread running."""
    threads_before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + LEFTOVER_GRACE_S
    while True:
        children = multiprocessing.active_children()
        threads = [t for t in threading.enumerate() if t not in threads_before and t.is_alive()]
        pool_busy = _qt_pool_busy()
        if not children and not threads and not pool_busy:
            return
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    for child in children:
        child.kill()
        child.join()
    pytest.fail(f"the test left running: processes {children}, threads {threads}, Qt pool busy {pool_busy}")


def _qt_pool_busy() -> bool:
    import sys

    if "PySide6.QtCore" not in sys.modules:
        return False
    from PySide6.QtCore import QThreadPool

    return QThreadPool.globalInstance().activeThreadCount() > 0
