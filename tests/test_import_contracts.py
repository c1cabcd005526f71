"""The walls between the parts, as the installed package imports them: the engine as a library
never loads the workbench's analyses of it, and the parts of the workbench that run without a
window (the command line, the child processes and what they share) never load Qt, so that
`tokenizer-workbench encode` on a server needs no Qt libraries. (`test_build.py` checks the
engine's own imports: stdlib, mypyc's runtime and regex only.)"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT

GUI_PACKAGES = ("PySide6", "shiboken6", "pyqtgraph")
# What the engine holds for the workbench's own analyses and files; the library does not need them.
ANALYSES = ("engine.analysis", "engine.project")
# The rooms of the workbench that run without a window: the command line, what the command
# line, the children and the window share, and the child processes.
WINDOWLESS_ROOMS = ("workbench/cli", "workbench/core", "workbench/jobs/children")


def _modules_in(room: str, root: Path = ROOT) -> list[str]:
    """The dotted names of the modules under `room` (a folder of the source tree)."""
    names = []
    for path in sorted((root / room).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] in ("__init__", "__main__") else parts))
    return sorted(set(names))


WINDOWLESS = tuple(name for room in WINDOWLESS_ROOMS for name in _modules_in(room))


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
    assert not [name for name in loaded if name.startswith(ANALYSES)], "the library loaded an analysis module"
    assert "engine.corpus.counting" in loaded  # (the check looked where the library's modules are)
    assert not _top(loaded, (*GUI_PACKAGES, "workbench"))


def test_every_windowless_room_is_listed() -> None:
    # (a room moved or renamed would otherwise leave nothing to check)
    for room in WINDOWLESS_ROOMS:
        assert _modules_in(room), f"{room} holds no module"
    assert "workbench.cli.main" in WINDOWLESS and "workbench.jobs.children.training" in WINDOWLESS


@pytest.mark.parametrize("module", WINDOWLESS)
def test_a_part_that_runs_without_a_window_loads_no_qt(module: str) -> None:
    assert _top(_loaded_after(f"import {module}"), GUI_PACKAGES) == []


def test_the_command_line_encodes_without_loading_qt(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer newest wider\n" * 50, encoding="utf-8")
    saved = tmp_path / "tokenizer.json"
    code = f"""
from workbench.cli.main import main
assert main(["train", "--preset", "bpe", "--vocab-size", "40", "-q", "-o", {str(saved)!r}, {str(corpus)!r}]) == 0
assert main(["encode", "-t", {str(saved)!r}, "--text", "lowest newer"]) == 0
"""
    loaded = _loaded_after(code)
    assert saved.is_file()
    assert _top(loaded, GUI_PACKAGES) == []


def _imports(path: Path, package: str, modules: set[str]) -> set[str]:
    """The modules of `package` that the file at `path` imports, at load or later inside a
    function (a dependency either way), but not under `if TYPE_CHECKING:`, which never runs.
    `from P import M` of a module M (one of `modules`) is an import of P.M, not of P's __init__."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for branch in node.orelse:
                visit(branch)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == package)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == package:
            named = {f"{node.module}.{alias.name}" for alias in node.names}
            found.update(named & modules)
            if not named <= modules:
                found.add(node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _cycles(package: str, root: Path = ROOT) -> list[list[str]]:
    """The import cycles among the modules of `package` (under `root`), each as a list of names."""
    modules: dict[str, Path] = {}
    for file in sorted((root / package).rglob("*.py")):
        parts = file.relative_to(root).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = file
    graph = {name: sorted(imported for imported in _imports(file, package, set(modules)) if imported in modules and imported != name) for name, file in modules.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(name: str) -> None:
        state[name] = 1
        path.append(name)
        for imported in graph[name]:
            if state.get(imported) == 1:
                cycles.append(path[path.index(imported):] + [imported])
            elif imported not in state:
                walk(imported)
        path.pop()
        state[name] = 2

    for name in graph:
        if name not in state:
            walk(name)
    return cycles


@pytest.mark.parametrize("package", ["engine", "workbench"])
def test_no_import_cycle(package: str) -> None:
    assert _cycles(package) == []


def test_the_cycle_finder_finds_a_cycle_and_ignores_type_checking_imports(tmp_path: Path) -> None:
    package = tmp_path / "workbench"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "first.py").write_text("from workbench import second\nif TYPE_CHECKING:\n    import workbench.third\n", encoding="utf-8")
    (package / "second.py").write_text("import json\n\ndef later() -> None:\n    import workbench.third\n", encoding="utf-8")
    (package / "third.py").write_text("try:\n    from workbench.first import x\nexcept ImportError:\n    pass\n", encoding="utf-8")
    assert _cycles("workbench", tmp_path) == [["workbench.first", "workbench.second", "workbench.third", "workbench.first"]]
    (package / "third.py").write_text("import json\n", encoding="utf-8")
    assert _cycles("workbench", tmp_path) == []


# Which rooms of the workbench each room may import (itself included), read from the source.
# The window is at the top; `cli.main`, `cli.screenshots` and `cli.self_test` open it, but only when asked
# (imports inside a function, allowed below by name).
MAY_IMPORT = {
    "workbench.core": ("workbench.core",),
    "workbench.jobs.children": ("workbench.core", "workbench.jobs.children"),
    "workbench.jobs.runners": ("workbench.core", "workbench.jobs"),
    "workbench.cli": ("workbench.core", "workbench.cli", "workbench.jobs.children"),
}
OPENS_THE_WINDOW = {
    "workbench.cli.main": "workbench.window.app",
    "workbench.cli.screenshots": "workbench.window.screenshots",
    "workbench.cli.self_test": "workbench.window.self_test",
}


def _room_arrows(root: Path = ROOT) -> list[str]:
    """Every import from one room of the workbench into a room it may not import."""
    modules = set(_modules_in("workbench", root))
    wrong = []
    for name in sorted(modules):
        room = next((r for r in MAY_IMPORT if name == r or name.startswith(r + ".")), None)
        if room is None:
            continue
        path = root / (name.replace(".", "/") + ".py")
        if not path.exists():
            path = root / name.replace(".", "/") / "__init__.py"
        for imported in sorted(_imports(path, "workbench", modules)):
            if imported == "workbench" or OPENS_THE_WINDOW.get(name) == imported:
                continue
            if not any(imported == allowed or imported.startswith(allowed + ".") for allowed in MAY_IMPORT[room]):
                wrong.append(f"{name} -> {imported}")
    return wrong


def test_each_room_imports_only_the_rooms_below_it() -> None:
    assert _room_arrows() == []


def test_the_room_check_finds_an_arrow_upward(tmp_path: Path) -> None:
    core = tmp_path / "workbench" / "core"
    core.mkdir(parents=True)
    (tmp_path / "workbench" / "window").mkdir()
    for init in (tmp_path / "workbench" / "__init__.py", core / "__init__.py", tmp_path / "workbench" / "window" / "__init__.py"):
        init.write_text("", encoding="utf-8")
    (tmp_path / "workbench" / "window" / "app.py").write_text("import json\n", encoding="utf-8")
    (core / "settings.py").write_text("def later() -> None:\n    from workbench.window import app\n", encoding="utf-8")
    assert _room_arrows(tmp_path) == ["workbench.core.settings -> workbench.window.app"]
