"""`mypy --strict` on engine/ and workbench/ is part of the suite: mypyc compiles only what
type-checks, and the window is about to be the larger half of the code."""

from __future__ import annotations

import subprocess
import sys

import pytest

from support import ROOT


@pytest.mark.parametrize("package", ["engine", "workbench"])
def test_package_passes_mypy_strict(package: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", str(ROOT / "pyproject.toml"), package],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
