"""Where the files shipped with the application are: `resources/` of the source tree, installed
as `workbench/resources/` by the wheel and by the desktop bundle.

One lookup serves the three ways the application runs: a wheel install, an editable install
(the source tree), and the PyInstaller bundle. No file contents are read here.
"""

from __future__ import annotations

from pathlib import Path

RESOURCES = "resources"
# A folder every resources/ holds, which tells it from an unrelated folder of the same name.
MARKER = "sample"


class ResourcesMissing(FileNotFoundError):
    """The application's resources folder is not where any install puts it."""


def find_resources(package_dir: Path) -> Path:
    """The resources folder for the `workbench` package in `package_dir`: beside the package's
    modules (wheel, bundle), or beside the package in the source tree (editable install)."""
    for candidate in (package_dir / RESOURCES, package_dir.parent / RESOURCES):
        if (candidate / MARKER).is_dir():
            return candidate
    raise ResourcesMissing(
        f"the application's {RESOURCES}/ folder is missing: looked in {package_dir / RESOURCES} "
        f"and {package_dir.parent / RESOURCES}; reinstall the application"
    )


def resources_dir() -> Path:
    """The resources folder of this installation."""
    # this module is workbench/core/shipped.py: the package is one folder up
    return find_resources(Path(__file__).resolve().parent.parent)


def resource(*parts: str) -> Path:
    """A shipped file: `resource("sample", "shakespeare.txt")`."""
    return resources_dir().joinpath(*parts)
