"""The shipped files are found the same way from a wheel, an editable install and the bundle."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT
from workbench.core import shipped


def test_the_installed_application_finds_its_sample_corpus() -> None:
    sample = shipped.resource("sample", "shakespeare.txt")
    assert sample.is_file() and sample.stat().st_size > 100_000
    assert sample.read_bytes() == (ROOT / "resources" / "sample" / "shakespeare.txt").read_bytes()


def test_the_installed_application_finds_its_user_guide() -> None:
    guide = shipped.resource("guide", "guide.html")
    assert guide.is_file()
    assert guide.read_bytes() == (ROOT / "resources" / "guide" / "guide.html").read_bytes()


@pytest.mark.skipif(os.environ.get("ENGINE_PURE") == "1", reason="ENGINE_PURE=1 may use an editable install")
def test_a_wheel_install_carries_the_resources_inside_the_package() -> None:
    package = Path(shipped.__file__).resolve().parent.parent  # workbench/core/shipped.py
    assert shipped.resources_dir() == package / "resources"
    assert shipped.resources_dir() != ROOT / "resources"


def test_an_editable_install_finds_the_source_trees_resources(tmp_path: Path) -> None:
    # An editable install puts the project folder on sys.path, so `workbench` is the source
    # tree's package and resources/ sits beside it, not inside it.
    result = subprocess.run(
        [sys.executable, "-P", "-c", "from workbench.core import shipped; print(shipped.__file__); print(shipped.resources_dir())"],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    module, found = result.stdout.splitlines()
    assert Path(module).resolve() == (ROOT / "workbench" / "core" / "shipped.py").resolve()
    assert Path(found).resolve() == (ROOT / "resources").resolve()


def test_the_bundle_layout_is_found(tmp_path: Path) -> None:
    # PyInstaller's one-folder bundle: _internal/workbench/ with resources/ added inside it.
    package = tmp_path / "_internal" / "workbench"
    (package / "resources" / "sample").mkdir(parents=True)
    assert shipped.find_resources(package) == package / "resources"


def test_a_missing_resources_folder_says_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(shipped.ResourcesMissing, match="resources") as error:
        shipped.find_resources(tmp_path / "workbench")
    assert str(tmp_path) in str(error.value)
