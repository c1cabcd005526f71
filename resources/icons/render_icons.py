"""Render tokenizer-workbench.svg to the PNG sizes the window and the desktop entry use
(`python resources/icons/render_icons.py`; the PNGs are committed, so the window needs no SVG
support at run time and the desktop bundle can leave Qt's SVG plugins out)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

HERE = Path(__file__).resolve().parent
SIZES = (16, 32, 48, 64, 128, 256)


def main() -> int:
    application = QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(HERE / "tokenizer-workbench.svg"))
    if not renderer.isValid():
        print(f"{HERE / 'tokenizer-workbench.svg'}: not a valid SVG", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        image.save(str(HERE / f"tokenizer-workbench-{size}.png"))
    del application
    return 0


if __name__ == "__main__":
    sys.exit(main())
