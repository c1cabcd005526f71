"""The application on the desktop: its icon (window and desktop entry), the desktop entry that
`--install-desktop-entry` writes, and the build record Help ▸ About and --version show."""

from __future__ import annotations

import configparser
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.core import build_info, desktop_entry, shipped


def test_the_shipped_icon_has_every_size_and_the_entry_names_it() -> None:
    from PySide6.QtGui import QImage

    for size in desktop_entry.ICON_SIZES:
        image = QImage(str(shipped.resource("icons", f"tokenizer-workbench-{size}.png")))
        assert (image.width(), image.height()) == (size, size)
    entry = configparser.ConfigParser(interpolation=None)
    entry.read_string(shipped.resource("desktop", "tokenizer-workbench.desktop").read_text(encoding="utf-8"))
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application" and section["Icon"] == desktop_entry.NAME
    assert section["Exec"] == "tokenizer-workbench %f"


def test_installing_the_desktop_entry_points_it_at_this_installation(tmp_path: Path) -> None:
    environment = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    finished = subprocess.run(
        [sys.executable, "-P", "-m", "workbench", "--install-desktop-entry"],
        capture_output=True, text=True, env=environment, check=False,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    written = tmp_path / "applications" / "tokenizer-workbench.desktop"
    assert str(written) in finished.stdout
    entry = configparser.ConfigParser(interpolation=None)
    entry.read_string(written.read_text(encoding="utf-8"))
    argv = shlex.split(entry["Desktop Entry"]["Exec"].removesuffix(" %f"))
    # the command it starts is this environment's (its script, when pip installed one), and it runs
    script = Path(sys.executable).parent / "tokenizer-workbench"
    assert argv == ([str(script.resolve())] if script.is_file() else [sys.executable, "-m", "workbench"])
    assert subprocess.run([*argv, "--version"], capture_output=True, check=False, env=environment).returncode == 0
    for size in desktop_entry.ICON_SIZES:
        assert (tmp_path / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "tokenizer-workbench.png").is_file()


def test_a_program_path_with_a_space_is_quoted() -> None:
    text = desktop_entry.entry_text(["/opt/My Apps/tokenizer-workbench"])
    assert 'Exec="/opt/My Apps/tokenizer-workbench" %f\n' in text


def test_installing_where_nothing_can_be_written_says_where(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    finished = subprocess.run(
        [sys.executable, "-P", "-m", "workbench", "--install-desktop-entry"],
        capture_output=True, text=True, env={**os.environ, "XDG_DATA_HOME": str(blocked)}, check=False,
    )  # fmt: skip
    assert finished.returncode != 0
    assert finished.stderr.startswith("tokenizer-workbench: error: ") and str(blocked) in finished.stderr
    assert len(finished.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("record", "described"),
    [
        ({"kind": "desktop bundle", "built": "2026-11-29T04:31:07+00:00", "commit": "0f34007d3c1e"},
         "desktop bundle built 2026-11-29 04:31 UTC from commit 0f34007d3c"),
        ({"kind": "wheel", "built": "2026-11-29T04:31:07+00:00", "commit": ""}, "wheel built 2026-11-29 04:31 UTC"),
        ("not a record", "source tree (not built)"),
    ],
)  # fmt: skip
def test_the_build_record_is_described_in_one_line(
    record: object, described: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "build.json").write_text(json.dumps(record), encoding="utf-8")
    monkeypatch.setattr(shipped, "resource", lambda *parts: tmp_path.joinpath(*parts))
    assert build_info.build_info().describe() == described


def test_the_installed_application_says_when_it_was_built() -> None:
    # (the suite runs the wheel pip installed; the pure leg runs the source tree, which has none)
    info = build_info.build_info()
    if (shipped.resources_dir().parent / "__init__.py").is_file() and "site-packages" in str(shipped.resources_dir()):
        assert info.kind == "wheel" and info.built.startswith("20")
    else:
        assert info == build_info.BuildInfo("source tree")
