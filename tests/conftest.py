"""Shared fixtures: where the shared corpora are, and a guard that tests run the built engine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from support import CORPORA

# Qt tests never need a display.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture
def corpora() -> Path:
    if not CORPORA.is_dir():
        pytest.skip(f"shared corpora folder not found at {CORPORA}")
    return CORPORA
