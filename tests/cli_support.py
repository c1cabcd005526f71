"""Running the `tokenizer-workbench` command in the tests: the installed build, and its one-line
errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run_cli(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    # -P: do not put the working directory on sys.path, so the installed build runs, not the source tree
    return subprocess.run(
        [sys.executable, "-P", "-m", "workbench.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """The command failed with exit 1 and one line "tokenizer-workbench: error: ..." holding
    every fragment, and no traceback."""
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("tokenizer-workbench: error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
