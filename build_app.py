"""Build the standalone desktop bundle (PyInstaller, one folder) with the compiled engine inside.

Until the packaging issue this bundles the command line only (the window does not exist yet):
`python build_app.py` -> dist/tokenizer-workbench/. It needs PyInstaller (`pip install pyinstaller`)
in the environment where `pip install .` built the compiled engine.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    if importlib.util.find_spec("PyInstaller") is None:
        print("build_app.py: PyInstaller is not installed; run: pip install pyinstaller", file=sys.stderr)
        return 2
    import engine

    if not engine.COMPILED:
        print("build_app.py: the installed engine is the pure-Python build; run: pip install .", file=sys.stderr)
        return 2
    from PyInstaller.__main__ import run

    run(
        [
            str(HERE / "workbench" / "cli.py"),
            "--name=tokenizer-workbench",
            "--onedir",
            "--noconfirm",
            # mypyc puts every compiled engine module in one shared library that nothing imports by name
            "--hidden-import=engine__mypyc",
            "--collect-submodules=engine",
            "--collect-data=workbench.resources",
        ]
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
