"""`python build_app.py`, run as the README says, builds the desktop application: a one-folder
bundle holding the compiled engine, which passes its own self-test (training, encoding and
exporting through the bundle's own child processes), archived as .tar.gz; and the README's
figure for its size is the size it has."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from support import ROOT

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("PyInstaller") is None,
        reason="PyInstaller is not installed (pip install '.[app]'; the test extras include it)",
    ),
    pytest.mark.skipif(os.environ.get("ENGINE_PURE") == "1", reason="the bundle holds the compiled engine"),
    pytest.mark.slow,
]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("app")
    finished = subprocess.run(
        [sys.executable, "build_app.py", "--dist", str(folder / "dist"), "--work", str(folder / "work")],
        cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=3600, check=False,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stdout[-4000:] + finished.stderr[-4000:]
    return folder / "dist", finished.stdout


def test_the_bundle_holds_the_compiled_engine_and_passes_its_self_test(built: tuple[Path, str]) -> None:
    dist, output = built
    assert "(engine compiled with mypyc; desktop bundle built " in output
    assert "self-test passed" in output and "FAILED" not in output
    bundle = dist / "tokenizer-workbench"
    assert os.access(bundle / "tokenizer-workbench", os.X_OK)
    assert list((bundle / "_internal").glob("engine__mypyc*.so"))
    # what the application does not use stayed out
    internal = bundle / "_internal"
    for absent in ("tokenizers", "sentencepiece", "pytest", "pyarrow", "dask", "PySide6/QtNetwork.abi3.so"):
        assert not (internal / absent).exists(), absent
    assert not (internal / "PySide6" / "Qt" / "translations").exists()
    assert (bundle / "tokenizer-workbench.desktop").read_text(encoding="utf-8").startswith("[Desktop Entry]")


def test_the_archive_unpacks_to_the_bundle(built: tuple[Path, str]) -> None:
    dist, _ = built
    (archive,) = dist.glob("tokenizer-workbench-*-linux-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = set(tar.getnames())
    assert "tokenizer-workbench/tokenizer-workbench" in names
    assert "tokenizer-workbench/_internal/workbench/resources/sample/sample.tokproj" in names
    assert "tokenizer-workbench/_internal/workbench/resources/build.json" in names


def test_the_readme_gives_the_bundles_size(built: tuple[Path, str]) -> None:
    dist, _ = built
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    folder = re.search(r"a folder of about (\d+) MB", readme)
    packed = re.search(r"a \.tar\.gz of about (\d+) MB", readme)
    assert folder and packed, "the README's section on building says how big the bundle is"
    size = sum(path.lstat().st_size for path in (dist / "tokenizer-workbench").rglob("*"))
    (archive,) = dist.glob("*.tar.gz")
    # (within a tenth: the bundle grows and shrinks with the versions pip installs)
    assert abs(size / 1e6 - int(folder.group(1))) <= 0.1 * size / 1e6
    assert abs(archive.stat().st_size / 1e6 - int(packed.group(1))) <= 0.1 * archive.stat().st_size / 1e6
