"""The walls between the parts, as the installed package imports them: the engine as a library
never loads the workbench's analyses of it, and the parts of the workbench that run without a
window (the command line, the child processes and what they share) never load Qt, so that
`tokenizer-workbench encode` on a server needs no Qt libraries. (`test_build.py` checks the
engine's own imports: stdlib, mypyc's runtime and regex only.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

GUI_PACKAGES = ("PySide6", "shiboken6", "pyqtgraph")
# What the engine holds for the workbench's own analyses and files; the library does not need them.
ANALYSES = ("engine.estimate", "engine.inspection", "engine.baselines", "engine.vocabulary", "engine.project")
# The workbench modules that run without a window.
WINDOWLESS = (
    "workbench.cli",
    "workbench.cli_encode",
    "workbench.cluster",
    "workbench.children",
    "workbench.training",
    "workbench.encoding_worker",
    "workbench.train_jobs",
    "workbench.file_jobs",
    "workbench.packed",
    "workbench.history",
    "workbench.formatting",
    "workbench.presets",
    "workbench.settings",
    "workbench.shipped",
)


def _loaded_after(code: str) -> list[str]:
    """The modules loaded in a fresh interpreter after it runs `code`."""
    script = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert finished.returncode == 0, finished.stderr
    loaded: list[str] = json.loads(finished.stdout.splitlines()[-1])
    return loaded


def _top(names: list[str], packages: tuple[str, ...]) -> list[str]:
    return sorted({name for name in names if name.split(".")[0] in packages})


def test_the_engine_used_as_a_library_loads_no_analysis_and_no_gui(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer newest wider\n" * 50, encoding="utf-8")
    code = f"""
from engine import Tokenizer, models, pre_tokenizers, trainers
tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
tokenizer.train([{str(corpus)!r}], trainers.BpeTrainer(vocab_size=40, special_tokens=["[UNK]"], show_progress=False))
again = Tokenizer.from_str(tokenizer.to_str())
assert again.encode("lowest newer").ids == tokenizer.encode("lowest newer").ids
"""
    loaded = _loaded_after(code)
    assert not [name for name in loaded if name in ANALYSES], "the library loaded an analysis module"
    assert not _top(loaded, (*GUI_PACKAGES, "workbench"))


@pytest.mark.parametrize("module", WINDOWLESS)
def test_a_part_that_runs_without_a_window_loads_no_qt(module: str) -> None:
    assert _top(_loaded_after(f"import {module}"), GUI_PACKAGES) == []


def test_the_command_line_encodes_without_loading_qt(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer newest wider\n" * 50, encoding="utf-8")
    saved = tmp_path / "tokenizer.json"
    code = f"""
from workbench.cli import main
assert main(["train", "--preset", "bpe", "--vocab-size", "40", "-q", "-o", {str(saved)!r}, {str(corpus)!r}]) == 0
assert main(["encode", "-t", {str(saved)!r}, "--text", "lowest newer"]) == 0
"""
    loaded = _loaded_after(code)
    assert saved.is_file()
    assert _top(loaded, GUI_PACKAGES) == []
