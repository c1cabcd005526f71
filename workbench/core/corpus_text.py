"""What the window says about a project's corpus files in words: each file's problem as the
window puts it (the engine's hint to the command line becomes where to click here), and the
lines under the Project panel's corpus table. No Qt here; the panel only shows them.
"""

from __future__ import annotations

from typing import Final

from engine.project.facts import CorpusFile

# What the engine's problems tell a command-line user, and what the window says instead.
CLI_FIELD_HINT: Final = "choose one with --field"
WINDOW_FIELD_HINT: Final = "double-click its Field cell to choose one"


def corpus_problems(corpus: list[CorpusFile], checking: set[str]) -> list[str]:
    """What is wrong with the project's corpus files now, one line each (files being checked
    again are left out until their check says): "big.bin is not UTF-8 …", then "Not found: a.txt"."""
    lines: list[str] = []
    missing: list[str] = []
    for item in corpus:
        if not item.exists():
            missing.append(item.name)
        elif item.problem and item.path not in checking:
            lines.append(f"{item.name} {window_problem(item.problem)}")
    if missing:
        lines.append(f"Not found: {', '.join(missing)}. Right-click a missing file to locate it; training needs every file.")
    return lines


def window_problem(problem: str) -> str:
    """A check's problem as the window says it: the engine's hint to the command line
    ("choose one with --field") becomes where to choose the field here."""
    return problem.replace(CLI_FIELD_HINT, WINDOW_FIELD_HINT)
