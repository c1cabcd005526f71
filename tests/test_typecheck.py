"""`mypy --strict` on engine/ is part of the suite: mypyc compiles only what type-checks."""

from __future__ import annotations

import subprocess
import sys

from support import ROOT


def test_engine_passes_mypy_strict() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", str(ROOT / "pyproject.toml"), "engine"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
