"""`mypy --strict` on engine/, workbench/ and tests/ is part of the suite: mypyc compiles only what
type-checks, the window is the larger half of the code, and tests that type-check call the API as
it is typed. One mypy run over all three (the files and settings of pyproject's [tool.mypy]): the
tests import both packages, so separate runs would check them again."""

from __future__ import annotations

import subprocess
import sys

from support import ROOT


def test_engine_workbench_and_tests_pass_mypy_strict() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", str(ROOT / "pyproject.toml"), "engine", "workbench", "tests"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
