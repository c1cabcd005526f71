"""Paths shared by the tests (importable as `support`: pytest puts tests/ on sys.path)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"


def corpus_path(name: str) -> Path:
    """The path of a shared corpus file, or skip the test with the reason."""
    path = CORPORA / name
    if not path.is_file():
        pytest.skip(f"shared corpus {name} not found at {CORPORA}")
    return path
