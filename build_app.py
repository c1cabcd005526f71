"""How the application is built. Two separate jobs share this file (the product card names it);
each is one part below, and neither uses the other's code.

Part 1, the wheel build hook: `pip install .` runs `CompileEngine` (pyproject.toml points
   hatchling at this file). It compiles the engine's hot modules (all but the package
   `__init__`s and the cold modules of `INTERPRETED`) with mypyc into one shared library group
   (`engine__mypyc`), out of tree, one C file per module compiled on every core, and puts the
   extension modules in the wheel. `ENGINE_PURE=1 pip install .` skips it and installs the
   pure-Python engine; an editable install (`pip install -e .`) is always pure, so edits take
   effect at once.
Part 2, the desktop bundle: `python build_app.py` makes the PyInstaller one-folder bundle
   (dist/tokenizer-workbench/) with the compiled engine and the shipped resources inside; it
   needs PyInstaller and a compiled install of the engine in the same environment.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


# =============================================================================================
# Part 1: the wheel build hook (pip install .)
# =============================================================================================

try:  # present only inside the build environment that pip prepares
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # running as the bundling script
    BuildHookInterface = object  # type: ignore[assignment,misc]


# Engine modules that stay interpreted, each with its reason. Compiling costs install time (every
# module is C that gcc compiles at -O3 on the user's machine); these run once per file read or per
# user action, spend their time in the json module, in zlib or in compiled modules they call, or
# were measured no slower interpreted where it matters (`tests/test_build.py` pins the list).
INTERPRETED: dict[str, str] = {
    "engine/project/project_file.py": "project files: read and written once per open/save, off the window's thread, parsed by json",
    "engine/project/archive.py": "the project file's container: zlib and json do the work",
    "engine/project/entry.py": "a project's tokenizers: read and written with the project file, a few per project",
    "engine/project/result.py": "a trained result's stored parts: packed once per training, parsed once per view",
    "engine/project/facts.py": "corpus references and result summaries: a few per project, read with its index",
    "engine/project/fields.py": "the project file's member names and field readers: once per field of the index",
    "engine/corpus/sources.py": "what kind of input a path is and which files a folder holds: once per input",
    "engine/analysis/estimate.py": "the estimate before a training: it times a sample count run by the compiled corpus code",
    "engine/analysis/inspection.py": "the Encode tab's trace and round trip: a few calls per keystroke on the user's text",
    "engine/analysis/baselines.py": "reference encodings of a few sentences for the window",
    "engine/formats/convert.py": "dispatch between the formats: one call per file",
    "engine/formats/export_notes.py": "what an export leaves out: a few checks per export",
    "engine/formats/gpt2.py": "vocab.json + merges.txt: json, then the compiled BPE model builds the tokenizer",
    "engine/formats/bert_vocab.py": "vocab.txt: one pass over the lines, once per file",
    "engine/formats/sentencepiece.py": "a .model to a pipeline and back: once per file",
    "engine/formats/sentencepiece_proto.py": "the .model's fields: once per file (the protobuf reader stays compiled)",
}


def engine_sources(root: Path) -> list[str]:
    """The engine modules mypyc compiles, relative to `root`: all but the package __init__s and
    the cold modules of `INTERPRETED`.

    The __init__s stay Python so that `engine.COMPILED` can look at a compiled module.
    """
    return sorted(
        relative
        for relative in (path.relative_to(root).as_posix() for path in (root / "engine").rglob("*.py"))
        if not relative.endswith("/__init__.py") and relative not in INTERPRETED
    )


def build_jobs() -> int:
    """How many C files to compile at once: one per core this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def pure_build_requested() -> bool:
    return os.environ.get("ENGINE_PURE", "").lower() in ("1", "true", "yes")


class CompileEngine(BuildHookInterface):  # type: ignore[misc]
    """Hatchling hook: compile engine/ with mypyc into the wheel, without touching the source tree."""

    PLUGIN_NAME = "compile-engine"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable" or pure_build_requested():
            return
        from mypyc.build import mypycify
        from setuptools import Distribution

        root = Path(self.root)
        with tempfile.TemporaryDirectory(prefix="engine-mypyc-") as scratch:
            work = Path(scratch)
            previous = os.getcwd()
            # subtle: mypy resolves the module names of the sources relative to the working directory.
            os.chdir(root)
            try:
                extensions = mypycify(
                    ["--config-file", str(root / "pyproject.toml"), *engine_sources(root)],
                    group_name="engine",
                    opt_level=os.environ.get("ENGINE_OPT_LEVEL", "3"),
                    target_dir=str(work / "c"),
                    # one C file per module, so that the files compile on every core
                    multi_file=True,
                )
                distribution = Distribution({"name": "engine", "ext_modules": extensions})
                distribution.cmdclass["build_ext"] = parallel_build_ext()
                build_ext = distribution.get_command_obj("build_ext")
                build_ext.parallel = build_jobs()  # type: ignore[attr-defined]
                build_ext.build_lib = str(work / "lib")  # type: ignore[attr-defined]
                build_ext.build_temp = str(work / "tmp")  # type: ignore[attr-defined]
                build_ext.inplace = False  # type: ignore[attr-defined]
                distribution.run_command("build_ext")
            finally:
                os.chdir(previous)
            built = work / "lib"
            outputs = sorted(p for p in built.rglob("*") if p.suffix in (".so", ".pyd"))
            if not outputs:
                raise RuntimeError(f"mypyc produced no extension modules in {built}")
            # hatchling copies force-included files when it writes the wheel, after this hook,
            # so they must outlive the scratch folder; `finalize` removes them.
            keep = Path(tempfile.mkdtemp(prefix="engine-ext-"))
            self._kept = keep
            for output in outputs:
                target = keep / output.relative_to(built)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(output.read_bytes())
                build_data["force_include"][str(target)] = output.relative_to(built).as_posix()
        build_data["infer_tag"] = True
        build_data["pure_python"] = False

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        kept = getattr(self, "_kept", None)
        if kept is not None:
            shutil.rmtree(kept, ignore_errors=True)


def parallel_build_ext() -> type:
    """setuptools' build_ext, compiling the C files of one extension on `build_jobs()` cores
    (setuptools builds extensions in parallel but compiles one extension's files one by one,
    and mypyc's group is one extension of ~60 files: most of the install's time)."""
    from concurrent.futures import ThreadPoolExecutor

    from setuptools.command.build_ext import build_ext

    class ParallelBuildExt(build_ext):  # type: ignore[misc]
        def build_extensions(self) -> None:
            compile_one_by_one = self.compiler.compile
            jobs = build_jobs()

            def compile_all(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
                if jobs < 2 or len(sources) < 2:
                    return list(compile_one_by_one(sources, *args, **kwargs))
                # subtle: older distutils' mkpath races when two threads make one folder
                output_dir = kwargs.get("output_dir")
                for name in self.compiler.object_filenames(sources, output_dir=output_dir or ""):
                    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
                # (each file is its own gcc process: threads only wait for them)
                with ThreadPoolExecutor(jobs) as pool:
                    objects = pool.map(lambda source: compile_one_by_one([source], *args, **kwargs), sources)
                    return [name for names in objects for name in names]

            self.compiler.compile = compile_all
            super().build_extensions()

    return ParallelBuildExt


# =============================================================================================
# Part 2: the desktop bundle (python build_app.py)
# =============================================================================================


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
            str(HERE / "workbench" / "__main__.py"),
            "--name=tokenizer-workbench",
            "--onedir",
            "--noconfirm",
            # mypyc puts every compiled engine module in one shared library that nothing imports by name
            "--hidden-import=engine__mypyc",
            # the compiled training passes import mypyc's native vecs from C, where PyInstaller cannot see it
            "--hidden-import=librt.vecs",
            "--collect-submodules=engine",
            # resources/ goes where workbench.core.shipped looks for it in an installed application
            f"--add-data={HERE / 'resources'}{os.pathsep}workbench/resources",
        ]
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
