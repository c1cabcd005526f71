"""`tokenizer-workbench --install-desktop-entry`: the application in the desktop's menus, with
its icon, for the current user (freedesktop.org's desktop entry and icon theme folders under
`$XDG_DATA_HOME`, ~/.local/share by default). The entry starts this installation: the bundle's
executable, or the `tokenizer-workbench` command of the Python environment. No Qt here."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Final

from engine.formats.files import write_text_atomically
from workbench.core import shipped

NAME: Final = "tokenizer-workbench"
ICON_SIZES: Final = (16, 32, 48, 64, 128, 256)


def data_home() -> Path:
    """$XDG_DATA_HOME, else ~/.local/share."""
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def command() -> list[str]:
    """The command line that starts this installation, its program as an absolute path."""
    if getattr(sys, "frozen", False):
        return [str(Path(sys.executable).resolve())]
    beside = Path(sys.executable).parent / NAME
    found = str(beside) if beside.is_file() else shutil.which(NAME)
    if found is None:
        return [sys.executable, "-m", "workbench"]
    return [str(Path(found).resolve())]


def entry_text(argv: list[str]) -> str:
    """The shipped desktop entry (resources/desktop/), starting `argv` (an argument with a space
    double-quoted, as the Desktop Entry specification asks)."""
    template = shipped.resource("desktop", f"{NAME}.desktop").read_text(encoding="utf-8")
    line = " ".join(f'"{part}"' if " " in part else part for part in argv)
    return "".join(f"Exec={line} %f\n" if row.startswith("Exec=") else row for row in template.splitlines(keepends=True))


def install(home: Path | None = None) -> list[Path]:
    """Write the desktop entry and the icon in every size under `home` (default `data_home()`);
    returns the files written. A file there before is replaced (it is this application's)."""
    root = home if home is not None else data_home()
    written = []
    entry = root / "applications" / f"{NAME}.desktop"
    entry.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(str(entry), entry_text(command()))
    written.append(entry)
    for size in ICON_SIZES:
        icon = root / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{NAME}.png"
        icon.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shipped.resource("icons", f"{NAME}-{size}.png"), icon)
        written.append(icon)
    return written
