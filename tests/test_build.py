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
# Imported inside the functions that read .zst files and Parquet/Arrow training inputs only, and
# inside the readers of an export's certificate (the libraries that own the formats, when installed).
LAZY_THIRD_PARTY = {
    "streams.py": {"zstandard"},
    "records.py": {"pyarrow"},
    "certificate_readers.py": {"tokenizers", "sentencepiece", "tiktoken"},
}


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


def test_every_cold_and_hot_module_is_compiled_exists_and_says_why() -> None:
    build = _build_app()
    compiled = set(build.engine_sources(ROOT))
    for name, listed in (("COLD", build.COLD), ("HOT", build.HOT), ("LOOPS", build.LOOPS)):
        for relative, reason in listed.items():
            assert relative in compiled, f"{name} names {relative}, which is not a compiled engine module"
            assert len(reason.split()) >= 4, f"{name} gives {relative} no real reason: {reason!r}"
    assert not set(build.COLD) & set(build.HOT)
    assert not set(build.LOOPS) & (set(build.COLD) | set(build.HOT))


def test_each_c_file_gets_its_level() -> None:
    build = _build_app()
    assert build.c_file_level("__native_engine___tokenizer.c") == build.HOT_LEVEL
    assert build.c_file_level("__native_engine___models___bpe___pair_index.c") == build.HOT_LEVEL
    assert build.c_file_level("__native_engine___decoders.c") == build.DEFAULT_LEVEL
    # split off the tokenizer, the encoding and the pair index: what runs per text or per word
    # stays at the level of the module it came from, what runs once per training is cold
    assert build.c_file_level("__native_engine___input_sequence.c") == build.HOT_LEVEL
    assert build.c_file_level("__native_engine___models___bpe___pair_counting.c") == build.HOT_LEVEL
    assert build.c_file_level("__native_engine___truncation.c") == build.DEFAULT_LEVEL
    assert build.c_file_level("__native_engine___padding.c") == build.DEFAULT_LEVEL
    assert build.c_file_level("__native_engine___tokenizer_training.c") == build.COLD_LEVEL
    assert build.c_file_level("__native_engine___trainers___records.c") == build.COLD_LEVEL
    assert build.c_file_level("__native_engine___formats___tiktoken.c") == build.COLD_LEVEL
    assert build.c_file_level("__native_engine.c") == build.COLD_LEVEL  # the group's start-up
    assert build.c_file_level("str_ops.c") == build.FAST_LEVEL  # mypyc's runtime library
    assert build.c_file_level("__native_engine___models___unigram___lattice_passes.c") == build.LOOPS_LEVEL
    assert build.c_file_level("__native_engine___normalizers___precompiled.c") == build.LOOPS_LEVEL
    assert len({build.FAST_LEVEL, build.HOT_LEVEL, build.DEFAULT_LEVEL, build.COLD_LEVEL, build.LOOPS_LEVEL}) == 5


def test_unity_batches_hold_every_file_once_one_level_each_about_even(tmp_path: Path) -> None:
    build = _build_app()
    sizes = {
        "__native_engine___tokenizer.c": 900, "__native_engine___encoding.c": 800,
        "__native_engine___models___bpe___model.c": 500, "__native_engine___decoders.c": 400,
        "__native_engine___pattern.c": 300, "__native_engine___trainers___records.c": 700,
        "__native_engine___errors.c": 100, "str_ops.c": 200, "list_ops.c": 150,
    }
    for name, size in sizes.items():
        (tmp_path / name).write_bytes(b"x" * size)
    sources = [str(tmp_path / name) for name in sizes]
    batches = build.unity_batches(sources, 2)
    assert sorted(member for _, members in batches for member in members) == sorted(sources)
    for level, members in batches:
        assert {build.c_file_level(Path(member).name) for member in members} == {level}
    totals = [sum(sizes[Path(member).name] for member in members) for _, members in batches]
    assert totals == sorted(totals, reverse=True), "the largest batch must start first"
    hot = sorted(total for (level, _), total in zip(batches, totals) if level == build.HOT_LEVEL)
    assert hot == [900, 1300]  # 900 against 800 + 500: each file to the smaller batch
    default = sorted(total for (level, _), total in zip(batches, totals) if level == build.DEFAULT_LEVEL)
    assert default == [300, 400]
    assert [level for level, _ in batches].count(build.COLD_LEVEL) == 2
    assert len(build.unity_batches(sources, 1)) == 4  # one batch per level on one core


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
