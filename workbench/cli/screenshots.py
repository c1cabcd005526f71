"""`tokenizer-workbench screenshots DIR`: a PNG of every tab of the window on the sample project
(`workbench.window.screenshots`; Qt is loaded only when this command runs).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli.common import CliError, stdout_for


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `screenshots` command's arguments."""
    screenshots = sub.add_parser(
        "screenshots",
        help="write a PNG of every tab of the window, trained on the sample project",
        description="Open the sample project offscreen, train its tokenizer through the real training "
        "process, fill every tab and write one PNG per tab to DIR.",
    )
    screenshots.add_argument("folder", metavar="DIR", help="where to write the PNG files")
    screenshots.set_defaults(func=cmd_screenshots)


def cmd_screenshots(args: argparse.Namespace) -> int:
    from workbench.window.screenshots import ScreenshotError, write_screenshots

    try:
        paths = write_screenshots(Path(args.folder))
    except ScreenshotError as error:
        raise CliError(str(error)) from None
    out = stdout_for("the written paths")
    for path in paths:
        out.write(f"{path}\n")
    return 0
