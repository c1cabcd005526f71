"""Build hook: compile engine/ with mypyc unless ENGINE_PURE=1 asks for the pure-Python build.

Everything declarative lives in pyproject.toml; this file only decides the extension modules.
"""

import os
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent


def _engine_sources() -> list[str]:
    # Every module of the engine is compiled; package __init__ files stay Python so that
    # `engine.COMPILED` can look at a compiled module and report honestly.
    return sorted(
        str(path.relative_to(HERE))
        for path in (HERE / "engine").rglob("*.py")
        if path.name != "__init__.py"
    )


def _ext_modules() -> list[object]:
    if os.environ.get("ENGINE_PURE", "").lower() in ("1", "true", "yes"):
        return []
    from mypyc.build import mypycify

    return list(
        mypycify(
            ["--config-file", str(HERE / "pyproject.toml"), *_engine_sources()],
            group_name="engine",
            opt_level=os.environ.get("ENGINE_OPT_LEVEL", "3"),
        )
    )


setup(ext_modules=_ext_modules())
