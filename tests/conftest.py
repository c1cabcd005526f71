"""Shared fixtures: where the shared corpora are, and a guard that tests run the built engine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"

# Qt tests never need a display.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def corpus_path(name: str) -> Path:
    """The path of a shared corpus file, or skip the test with the reason."""
    path = CORPORA / name
    if not path.is_file():
        pytest.skip(f"shared corpus {name} not found at {CORPORA}")
    return path


@pytest.fixture
def corpora() -> Path:
    if not CORPORA.is_dir():
        pytest.skip(f"shared corpora folder not found at {CORPORA}")
    return CORPORA
