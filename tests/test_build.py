"""The suite tests what ships: the compiled engine, installed, and an engine without GUI imports."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

import engine
from support import ROOT

# mypyc's runtime (mypy_extensions, librt: native vecs), and regex
ALLOWED_THIRD_PARTY = {"engine", "mypy_extensions", "librt", "regex"}
# Imported inside the functions that read .zst files and Parquet/Arrow training inputs only.
LAZY_THIRD_PARTY = {"streams.py": {"zstandard"}, "records.py": {"pyarrow"}}


@pytest.mark.skipif(os.environ.get("ENGINE_PURE") == "1", reason="ENGINE_PURE=1: testing the pure-Python build")
def test_engine_is_the_compiled_build() -> None:
    assert engine.COMPILED, f"engine imported from {engine.__file__} is not compiled; run `pip install .`"


@pytest.mark.skipif(os.environ.get("ENGINE_PURE") != "1", reason="the compiled build is checked above")
def test_the_pure_leg_runs_the_pure_python_engine() -> None:
    # (the README's second leg: were the compiled engine imported, it would test nothing new)
    assert not engine.COMPILED, f"ENGINE_PURE=1, but engine imported from {engine.__file__} is compiled"


@pytest.mark.skipif(os.environ.get("ENGINE_PURE") == "1", reason="ENGINE_PURE=1 may use an editable install")
def test_engine_is_imported_from_the_installed_package_not_the_source_tree() -> None:
    assert Path(engine.__file__).resolve().parent != (ROOT / "engine").resolve()


def _build_app() -> ModuleType:
    """build_app.py (the build hook's lists), read from the source tree."""
    spec = importlib.util.spec_from_file_location("build_app_under_test", ROOT / "build_app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _module_name(relative: str) -> str:
    return relative.removesuffix(".py").replace("/", ".")


def test_every_interpreted_module_exists_says_why_and_is_not_compiled() -> None:
    build = _build_app()
    for relative, reason in build.INTERPRETED.items():
        assert (ROOT / relative).is_file(), f"INTERPRETED names {relative}, which does not exist"
        assert len(reason.split()) >= 4, f"INTERPRETED gives {relative} no real reason: {reason!r}"
    compiled = build.engine_sources(ROOT)
    assert not set(build.INTERPRETED) & set(compiled)
    assert "engine/tokenizer.py" in compiled and "engine/models/bpe/model.py" in compiled


@pytest.mark.skipif(os.environ.get("ENGINE_PURE") == "1", reason="ENGINE_PURE=1: testing the pure-Python build")
def test_the_installed_engine_is_compiled_but_for_the_interpreted_modules() -> None:
    build = _build_app()
    for relative in build.engine_sources(ROOT):
        module = importlib.import_module(_module_name(relative))
        assert not str(module.__file__).endswith(".py"), f"{relative} should be compiled, but {module.__file__} is Python"
    for relative in build.INTERPRETED:
        module = importlib.import_module(_module_name(relative))
        assert str(module.__file__).endswith(".py"), f"{relative} should stay interpreted, but {module.__file__} is compiled"


def _imported_top_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "engine").rglob("*.py")),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_engine_imports_only_stdlib_mypyc_runtime_and_regex(path: Path) -> None:
    lazy = LAZY_THIRD_PARTY.get(path.name, set())
    foreign = _imported_top_modules(path) - set(sys.stdlib_module_names) - ALLOWED_THIRD_PARTY - {"__future__"} - lazy
    assert not foreign, f"{path.name} imports {sorted(foreign)}: engine/ must not depend on them"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    at_module_level = {
        alias.name.split(".")[0] for node in tree.body if isinstance(node, ast.Import) for alias in node.names
    } | {node.module.split(".")[0] for node in tree.body if isinstance(node, ast.ImportFrom) and node.module}
    assert not (at_module_level & lazy), f"{path.name} must import {sorted(lazy)} inside the functions that need them"


TOP_LEVEL = {
    "engine", "workbench", "resources", "tests", "pyproject.toml", "build_app.py",
    "benchmarks", "docs", "README.md", ".ci", ".gitignore",
}


def test_top_level_layout_is_the_product_cards() -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    import subprocess

    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    top = {line.split("/", 1)[0] for line in tracked.splitlines() if line}
    assert top <= TOP_LEVEL, f"unexpected top-level entries: {sorted(top - TOP_LEVEL)}"
