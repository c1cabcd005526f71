"""When and how this installation was built, for Help ▸ About and `--version`: `build.json`,
which the wheel build (`pip install .`) and the desktop bundle (`python build_app.py`) write
among the shipped resources. A source tree run as it is has none. No Qt here."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

from workbench.core import shipped

BUILD_FILE: Final = "build.json"


@dataclass(frozen=True)
class BuildInfo:
    """`kind`: "wheel", "desktop bundle" or "source tree"; `built`: the UTC date and time of the
    build (ISO 8601, "" for a source tree); `commit`: the git commit built from ("" unknown)."""

    kind: str
    built: str = ""
    commit: str = ""

    def describe(self) -> str:
        """One line: "desktop bundle built 2026-11-29 04:31 UTC from commit 0f34007c1d"."""
        if not self.built:
            return f"{self.kind} (not built)"
        when = self.built.replace("T", " ").removesuffix("+00:00").removesuffix("Z")[:16]
        commit = f" from commit {self.commit[:10]}" if self.commit else ""
        return f"{self.kind} built {when} UTC{commit}"


def build_info() -> BuildInfo:
    """This installation's build record (a damaged or missing one reads as a source tree)."""
    try:
        path = shipped.resource(BUILD_FILE)
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return BuildInfo("source tree")
    if not isinstance(data, dict):
        return BuildInfo("source tree")
    return BuildInfo(str(data.get("kind", "wheel")), str(data.get("built", "")), str(data.get("commit", "")))
