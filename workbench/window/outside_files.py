"""A project someone sent may name corpus files anywhere (`../../../etc/passwd`): before it opens,
the files outside its folder that the user never added or approved are listed and asked about
(keep them, remove them from the corpus, or cancel the opening).

What the user keeps is remembered in the settings (`Settings.known_files`), so the next opening
does not ask again; the window saves the settings with the opening.
"""

from __future__ import annotations

import os

from engine.project.project_file import Project
from workbench.core.settings import Settings
from workbench.window.prompts import Prompts

# The files listed by name in the question (the others are counted).
LISTED_FILES = 20


def approve_outside_files(prompts: Prompts, settings: Settings, project: Project, path: str) -> bool | None:
    """Ask about the corpus files of `project` (read from `path`) that lie outside its folder and
    are not known. True: nothing to remove; False: they were removed from `project`; None: the
    user cancels the opening."""
    folder = os.path.dirname(os.path.abspath(path))
    # (another window may have added or approved files since this one read the settings)
    known = set(settings.known_files) | set(Settings.load().known_files)
    outside = [item for item in project.corpus if not inside(item.path, folder) and item.path not in known and item.exists()]
    if not outside:
        return True
    listed = "\n".join(f"• {item.path}" for item in outside[:LISTED_FILES])
    more = f"\n… and {len(outside) - LISTED_FILES:,} more" if len(outside) > LISTED_FILES else ""
    choice = prompts.choose(
        "Files outside the project's folder",
        f"{os.path.basename(path)} trains on files outside its folder ({folder}):\n{listed}{more}\n\n"
        "Keep them in the corpus only if you expect this project to read them.",
        ["Keep Them", "Remove Them", "Cancel"],
    )
    if choice == "Keep Them":
        settings.add_known_files([item.path for item in outside])
        return True
    if choice == "Remove Them":
        dropped = {item.path for item in outside}
        project.corpus = [item for item in project.corpus if item.path not in dropped]
        return False
    return None


def inside(path: str, folder: str) -> bool:
    """Whether `path` is in `folder` or below it."""
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(folder)]) == os.path.abspath(folder)
    except ValueError:
        return False
