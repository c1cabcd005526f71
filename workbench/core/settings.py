"""The window's settings and the recent-projects list: a small typed, versioned record saved as
JSON in the per-user config folder (`platformdirs`), and where autosaved recovery files go.

`TOKENIZER_WORKBENCH_HOME` points both folders somewhere else (the tests use a temporary
folder and never touch the real ones). A damaged settings file is set aside, never fatal.
No Qt here.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Final

import platformdirs

from engine.formats.files import write_text_atomically

APP_NAME: Final = "tokenizer-workbench"
HOME_VARIABLE: Final = "TOKENIZER_WORKBENCH_HOME"
SETTINGS_VERSION: Final = 1
MAX_RECENT: Final = 10
# Corpus files outside a project's folder that the user added or approved (most recent first).
MAX_KNOWN_FILES: Final = 2000
THEMES: Final = ("system", "light", "dark")


def config_dir() -> Path:
    """Where settings.json lives."""
    return _user_dir("config", platformdirs.user_config_dir)


def state_dir() -> Path:
    """Where autosaved recovery files live."""
    return _user_dir("state", platformdirs.user_state_dir)


def cache_dir() -> Path:
    """Where what can be made again is kept (an unsaved project's word counts)."""
    return _user_dir("cache", platformdirs.user_cache_dir)


def _user_dir(kind: str, platform_dir: Callable[..., str]) -> Path:
    """The per-user folder of `kind`: `$TOKENIZER_WORKBENCH_HOME/<kind>` when that is set (the
    tests' private home), else the platform's (platformdirs)."""
    home = os.environ.get(HOME_VARIABLE)
    if home:
        return Path(home) / kind
    return Path(platform_dir(APP_NAME, appauthor=False))


@contextmanager
def throwaway_home(prefix: str) -> Iterator[Path]:
    """Settings, recovery copies and caches in a temporary folder while the block runs (the
    screenshots and the self-test open the window without touching the user's)."""
    previous = os.environ.get(HOME_VARIABLE)
    with tempfile.TemporaryDirectory(prefix=prefix) as home:
        os.environ[HOME_VARIABLE] = home
        try:
            yield Path(home)
        finally:
            if previous is None:
                os.environ.pop(HOME_VARIABLE, None)
            else:
                os.environ[HOME_VARIABLE] = previous


@dataclass
class Settings:
    """What the window remembers between runs."""

    version: int = SETTINGS_VERSION
    recent_projects: list[str] = field(default_factory=list)
    theme: str = "system"
    font_size: int = 0  # 0: the platform's size
    show_whitespace: bool = True
    # The number of processes the window counts words with (0: as many as the machine's cores, up to 4).
    counting_processes: int = 0
    # Corpus files the user added to a project or approved when a project named them from
    # outside its folder: opening a project that reads other files outside its folder asks.
    known_files: list[str] = field(default_factory=list)

    def processes(self) -> int:
        """The processes the window counts words with: `counting_processes`, else (0) the
        cores this process may use, at most 4."""
        if self.counting_processes > 0:
            return self.counting_processes
        try:
            cores = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cores = os.cpu_count() or 1
        return max(1, min(cores, 4))

    def add_recent(self, path: str) -> None:
        path = os.path.abspath(path)
        self.recent_projects = [path] + [p for p in self.recent_projects if p != path]
        del self.recent_projects[MAX_RECENT:]

    def add_known_files(self, paths: list[str]) -> None:
        fresh = [os.path.abspath(path) for path in paths]
        kept = set(fresh)
        self.known_files = fresh + [p for p in self.known_files if p not in kept]
        del self.known_files[MAX_KNOWN_FILES:]

    def remove_recent(self, path: str) -> None:
        self.recent_projects = [p for p in self.recent_projects if p != os.path.abspath(path)]

    def save(self) -> None:
        self.saver()()

    def saver(self) -> Callable[[], None]:
        """The write `save` makes, of the settings as they are now, to run later or on another
        thread (the window's writing thread: a file written and synced on the GUI thread holds up
        its event loop)."""
        text = json.dumps(asdict(self), indent=1)

        def write() -> None:
            folder = config_dir()
            folder.mkdir(parents=True, exist_ok=True)
            write_text_atomically(str(folder / "settings.json"), text)

        return write

    @staticmethod
    def load() -> Settings:
        """The saved settings; defaults when there are none. A file that cannot be read is
        renamed to settings.json.bad (so the user can look at it) and defaults are used."""
        path = config_dir() / "settings.json"
        if not path.is_file():
            return Settings()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return Settings._from_dict(data)
        except (OSError, ValueError, TypeError):
            try:
                path.replace(path.with_suffix(".json.bad"))
            except OSError:
                pass
            return Settings()

    @staticmethod
    def _from_dict(data: object) -> Settings:
        if not isinstance(data, dict):
            raise ValueError("settings: expected an object")
        settings = Settings()
        known = {f.name for f in fields(Settings)}
        for key, value in data.items():
            if key not in known:
                continue
            default = getattr(settings, key)
            if isinstance(default, bool) != isinstance(value, bool) or not isinstance(value, type(default)):
                raise ValueError(f"settings: {key} has the wrong type")
            setattr(settings, key, value)
        if settings.theme not in THEMES:
            settings.theme = "system"
        settings.recent_projects = [p for p in settings.recent_projects if isinstance(p, str)][:MAX_RECENT]
        settings.known_files = [p for p in settings.known_files if isinstance(p, str)][:MAX_KNOWN_FILES]
        settings.version = SETTINGS_VERSION
        return settings
