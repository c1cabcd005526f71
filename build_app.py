"""How the application is built. Two separate jobs share this file (the product card names it);
each is one part below, and they share only the build record (`write_build_record`).

Part 1, the wheel build hook: `pip install .` runs `CompileEngine` (pyproject.toml points
   hatchling at this file). It compiles the engine (all but the package `__init__`s and the
   cold modules of `INTERPRETED`) with mypyc into one shared library group (`engine__mypyc`),
   out of tree, each C file at its optimisation level (`c_file_level`), in a few batches on
   every core (`unity_batches`), and puts the extension modules in the wheel. `ENGINE_PURE=1 pip install .` skips it and installs the
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
import sysconfig
import tempfile
import threading
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


# The build record both parts write among the shipped resources (`workbench.core.build_info`
# reads it: Help ▸ About and --version say what was built, when and from which commit).
BUILD_FILE = "build.json"


def write_build_record(folder: Path, kind: str) -> Path:
    """Write `folder`/build.json: `kind` ("wheel", "desktop bundle"), the UTC time now and the
    git commit of this checkout (none outside a git checkout)."""
    import datetime
    import json
    import subprocess

    try:
        commit = subprocess.run(
            ["git", "-C", str(HERE), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = ""
    built = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    path = folder / BUILD_FILE
    path.write_text(json.dumps({"kind": kind, "built": built, "commit": commit}) + "\n", encoding="utf-8")
    return path


# =============================================================================================
# Part 1: the wheel build hook (pip install .)
# =============================================================================================

try:  # present only inside the build environment that pip prepares
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # running as the bundling script
    BuildHookInterface = object  # type: ignore[assignment,misc]


# Engine modules that stay interpreted, each with its reason. Compiling costs install time (every
# module is C that gcc compiles on the user's machine); these run once per file read or per
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
    "engine/analysis/estimate_sample.py": "the estimate's sample: a few slices and file starts per estimate, split by the compiled corpus code",
    "engine/formats/convert.py": "dispatch between the formats: one call per file",
    "engine/formats/export_notes.py": "what an export leaves out: a few checks per export",
    "engine/formats/gpt2.py": "vocab.json + merges.txt: json, then the compiled BPE model builds the tokenizer",
    "engine/formats/bert_vocab.py": "vocab.txt: one pass over the lines, once per file",
    "engine/formats/sentencepiece.py": "a .model to a pipeline and back: once per file",
    "engine/formats/sentencepiece_proto.py": "the .model's fields: once per file (the protobuf reader stays compiled)",
    "engine/analysis/certificate.py": "an export's certificate: once per export, the compiled tokenizer does the encoding",
    "engine/analysis/certificate_readers.py": "the other libraries' side of a certificate: their calls, once per export",
}


# The C optimisation of the compiled code, by level. gcc's time is most of the install's and grows
# with the level and with the amount of C, while the engine's speed hardly depends on it: most of
# its time goes to CPython's own functions. Counted with callgrind on one fixed workload (training
# a byte-level BPE and a Unigram, then encoding and decoding 2,000 lines with them and with BERT's
# WordPiece):
# - -O1 everywhere runs 2.0 to 3.4 % more instructions than -O3 everywhere, for half the compiler
#   time;
# - -Og everywhere (gcc's level that leaves out the costly passes: about 55 % of -O1's compiler
#   time on mypyc's C) runs another 3.9 % (training) and 4.5 % (encoding) more, mostly calls to
#   CPython's small helpers (Py_DECREF) that -Og does not inline;
# - -O1 for the modules of `HOT` and -Og for the others runs 1.1 % and 1.3 % more than -O1
#   everywhere, and takes 12 s less of the compiler's time (56 s of CPU instead of 68 s; 6 s
#   less to wait on 2 cores).
# So:
# - -O2: mypyc's runtime library (the C files not named __native_*, whose helpers every compiled
#   line calls; 2 s of compiler time);
# - -O1: `HOT`, the modules that take 5 % or more of the engine's own time in training, encoding,
#   corpus work or the window's views (benchmarks/engine_profile.py measures the shares and flags
#   a module past 5 % that is not listed);
# - -O0: `COLD`, the modules that run once per file, training or action (reading and writing files,
#   options, reports) and take under 0.1 % of the engine's own time in training, encoding and
#   corpus work (engine_profile flags one that does not); they stay compiled because their classes
#   are native, which the hot modules subclass, build or type;
# - -O3: `LOOPS`, the modules of one job whose own loops over native ints and floats are most of
#   it, where -O3 was measured to pay: gcc then also inlines the module's small functions into
#   its loops (mypyc's C calls them; a unity batch puts them in one translation unit). Unigram
#   training with the sentencepiece preset on the Japanese novel (bench_peers' Unigram part),
#   alternating builds, min of 10: 0.230 s with these at the levels above (-O1 and -Og), 0.212 s
#   at -O3 (0.232 s at -O2; every module at -O3: 0.215 s against 0.239 s). Same vocabularies:
#   no level changes a float here (no -ffast-math; no FMA on the default x86-64 target).
# - -Og: every other module.
# No file gets debug information. ENGINE_OPT_LEVEL=N compiles everything at -ON instead.
FAST_LEVEL, HOT_LEVEL, DEFAULT_LEVEL, COLD_LEVEL = "2", "1", "g", "0"
LOOPS_LEVEL = "3"
LOOPS: dict[str, str] = {
    "engine/models/unigram/lattice_passes.py": "Unigram training: the E-step and Viterbi, a chain of float products a node",
    "engine/models/unigram/training_lattices.py": "Unigram training: the lattices built and compacted, every edge",
    "engine/models/unigram/suffix_sort.py": "Unigram's seeds: every suffix radix-sorted",
    "engine/models/unigram/seeds.py": "Unigram's seeds: every char counted, every suffix's repeated prefixes read",
    "engine/models/unigram/pruning.py": "Unigram training: every piece's second-best split, the pieces ranked by loss",
    "engine/models/unigram/training_run.py": "Unigram training: the M-step over every piece",
    "engine/normalizers/precompiled.py": "sentencepiece's normalization: every char's flags read",
    "engine/trainers/piece_rules.py": "sentencepiece's rules: every seed substring checked, every training line cut",
}
HOT: dict[str, str] = {
    "engine/analysis/vocabulary.py": "the vocabulary table: every token of a 32k-256k vocabulary, for the window's views",
    "engine/models/bpe/model.py": "BPE's model: every word encoded, and its vocabulary built",
    "engine/models/bpe/encoder.py": "BPE's merge loop over each word's symbols",
    "engine/models/bpe/pair_index.py": "BPE training: the pair counts and where each pair occurs, updated at every merge",
    "engine/models/bpe/merge_queue.py": "BPE training: the queue of pairs by count, popped at every merge",
    "engine/models/wordpiece/score_queue.py": "WordPiece training: the pairs by score, popped at every merge",
    "engine/models/wordpiece/model.py": "WordPiece's greedy longest match on every word",
    "engine/models/base.py": "what every model's tokenize goes through, per word",
    "engine/fast_path.py": "encoding without offsets kept: every text of a batch or a corpus",
    "engine/pre_tokenizers/scanners.py": "the pre-tokenizers' character scanners: every character of every text",
    "engine/pre_tokenizers/base.py": "pre-tokenizing: every piece of every text",
    "engine/pre_tokenizers/pretokenized.py": "the pieces of a text and their offsets: every text encoded",
    "engine/normalizers/normalized.py": "a normalized text and its alignments: every text encoded",
    "engine/unicode_chars.py": "character classes looked up for every character",
    "engine/slot_heap.py": "the heap under BPE's and WordPiece's training queues",
    "engine/encoding.py": "the Encoding of every text: ids, tokens, offsets and their merging",
    "engine/tokenizer.py": "the encode path every text goes through",
    "engine/input_sequence.py": "one input sequence through the pipeline: every text encoded",
    "engine/models/bpe/pair_counting.py": "BPE training: the first count of every pair in every word",
    "engine/models/bpe/pair_table.py": "BPE and WordPiece training: a pair's count looked up at every change, every merge",
    "engine/models/bpe/merge_table.py": "BPE's merge of a short word over native ints: every word the cache misses",
    "engine/corpus/byte_words.py": "training words counted on bytes: every byte of a corpus",
    "engine/byte_splits.py": "GPT-2's and cl100k's splits on bytes and a word's key: every byte counted or encoded",
    "engine/models/bpe/byte_runs.py": "the byte-keyed word cache: every word of every line encoded",
}
# mypyc's name for the shared library that holds every compiled module (engine__mypyc)
GROUP = "engine"
COLD: dict[str, str] = {
    "engine/trainers/options.py": "the trainers' option codec: once per trainer saved, loaded or shown",
    "engine/trainers/base.py": "the trainer contract: a few calls per training",
    "engine/trainers/records.py": "a training's history and report: one record per merge or round",
    "engine/models/bpe/trainer.py": "BPE's trainer options and the start of its run: once per training",
    "engine/models/wordpiece/trainer.py": "WordPiece's trainer options and the start of its run: once per training",
    "engine/models/unigram/trainer.py": "Unigram's trainer options and the start of its run: once per training",
    "engine/models/wordlevel/trainer.py": "WordLevel training: one sort of the word counts per training",
    "engine/models/unigram/finalize.py": "the end of a Unigram training: once per training",
    "engine/tokenizer_training.py": "a tokenizer's training around its trainer (inputs, special tokens, report): once per training",
    "engine/corpus/forked.py": "the pool of counting and encoding children: a few messages per child",
    "engine/corpus/units.py": "a corpus cut into work units: a few per file",
    "engine/corpus/checks.py": "the checks of an input before it is read: once per file",
    "engine/corpus/streams.py": "files and compressed files read in blocks of a megabyte: zlib and the OS do the work",
    "engine/formats/vocab_files.py": "vocab.txt and vocab.json: once per file",
    "engine/formats/tokenizer_json.py": "tokenizer.json's parts: once per file, json and the schema readers do the work",
    "engine/formats/files.py": "JSON files read and written whole: once per file, json does the work",
    "engine/formats/safe_json.py": "JSON read with its numbers checked: once per file, json does the work",
    "engine/formats/tiktoken.py": "a .tiktoken rank file: once per file, base64 does the work",
    "engine/formats/openai_encodings.py": "OpenAI's four encodings as data: looked up once per .tiktoken file",
    "engine/formats/protobuf.py": "the protobuf wire format of a .model: once per file",
    "engine/formats/charsmap.py": "SentencePiece's normalization rules compiled into a blob: once per .model written",
    "engine/schema.py": "tokenizer.json's fields read and checked: once per component of a file",
    "engine/collector.py": "the garbage collector switched off around bulk work: twice per job",
    "engine/errors.py": "the engine's exceptions: made when something fails",
    "engine/metaspace.py": "the metaspace options' checks: once per component built",
    "engine/unicode_tables.py": "the character tables, parsed once at import",
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


def forced_level() -> str:
    """ENGINE_OPT_LEVEL, the one -O level every module gets when it is set ("" when not)."""
    return os.environ.get("ENGINE_OPT_LEVEL", "")


def c_file_level(name: str) -> str:
    """The -O level of one C file mypyc wrote, by its name: mypyc writes module `a.b` of group
    `engine` as `__native_a___b.c` (`exported_name`), and its runtime library under other names."""
    from mypyc.namegen import exported_name

    if name == f"__native_{GROUP}.c":  # the group's start-up: its constants and module table, once per import
        return COLD_LEVEL
    if not name.startswith("__native_"):
        return FAST_LEVEL
    for listed, level in ((COLD, COLD_LEVEL), (LOOPS, LOOPS_LEVEL), (HOT, HOT_LEVEL)):
        for relative in listed:
            if name == f"__native_{exported_name(relative.removesuffix('.py').replace('/', '.'))}.c":
                return level
    return DEFAULT_LEVEL


def pure_build_requested() -> bool:
    return os.environ.get("ENGINE_PURE", "").lower() in ("1", "true", "yes")


class CompileEngine(BuildHookInterface):  # type: ignore[misc]
    """Hatchling hook: compile engine/ with mypyc into the wheel, without touching the source tree."""

    PLUGIN_NAME = "compile-engine"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        record = Path(tempfile.mkdtemp(prefix="workbench-build-"))
        self._record = record
        build_data["force_include"][str(write_build_record(record, "wheel"))] = f"workbench/resources/{BUILD_FILE}"
        if pure_build_requested():
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
                    group_name=GROUP,
                    # (the level mypyc gives the extension's own arguments: each module's shim, and
                    # compilers that take no batches, get it)
                    opt_level=forced_level() or HOT_LEVEL,
                    debug_level="0",
                    target_dir=str(work / "c"),
                    # one C file per module, so that each can have its level (`unity_batches`
                    # then compiles them in a few batches, one per core and level)
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
        for name in ("_kept", "_record"):
            kept = getattr(self, name, None)
            if kept is not None:
                shutil.rmtree(kept, ignore_errors=True)


def unity_batches(sources: list[str], jobs: int) -> list[tuple[str, list[str]]]:
    """The C files of one extension as batches to compile together, `jobs` per -O level, each
    (level, files) with about the same amount of C, largest batch first.

    Every file mypyc writes starts by reading the same 400 kB of headers; a batch reads them once
    (`#include` of its files in one translation unit), which saves a fifth of the compiler's
    time. mypyc's names are unique across a group's files (it can write the group as one file).
    """
    by_level: dict[str, list[str]] = {}
    for source in sources:
        by_level.setdefault(c_file_level(os.path.basename(source)), []).append(source)
    batches: list[tuple[int, str, list[str]]] = []
    for level, files in by_level.items():
        sizes = [0] * max(1, jobs)
        members: list[list[str]] = [[] for _ in sizes]
        for source in sorted(files, key=lambda source: -os.path.getsize(source)):
            smallest = sizes.index(min(sizes))
            members[smallest].append(source)
            sizes[smallest] += os.path.getsize(source)
        batches.extend((size, level, batch) for size, batch in zip(sizes, members) if batch)
    return [(level, batch) for _, level, batch in sorted(batches, key=lambda item: -item[0])]


def parallel_build_ext() -> type:
    """setuptools' build_ext, compiling the C of mypyc's group on `build_jobs()` cores, each file
    at its level (`c_file_level`), in `unity_batches` where the compiler takes gcc's options.

    setuptools builds extensions in parallel but compiles one extension's files one by one, and
    mypyc's group is one extension of ~100 files: most of the install's time.
    """
    from concurrent.futures import ThreadPoolExecutor

    from setuptools.command.build_ext import build_ext
    from setuptools.errors import ExecError

    class ParallelBuildExt(build_ext):  # type: ignore[misc]
        def build_extensions(self) -> None:
            compile_one = self.compiler.compile
            jobs = build_jobs()
            # (other compilers, and ENGINE_OPT_LEVEL, keep the one level mypyc gave every file)
            in_batches = self.compiler.compiler_type == "unix" and not forced_level()
            making = threading.Lock()
            header: list[str] = []  # -I options that find a precompiled Python.h, once made

            def precompiled_python_h(later: list[str]) -> list[str]:
                """Every module also has a one-file shim extension (the module's entry point
                into the group) that reads nothing but Python.h: ~90 files, two thirds of whose
                compile time is reading Python.h. gcc reads Python.h.gch instead when it finds it
                first and it was made with the same options; if not, it reads Python.h."""
                with making:
                    if not header:
                        folder = os.path.join(self.build_temp, "python-h")
                        os.makedirs(folder, exist_ok=True)
                        python_h = os.path.join(sysconfig.get_path("include"), "Python.h")
                        target = os.path.join(folder, "Python.h.gch")
                        try:
                            self.compiler.spawn(
                                [*self.compiler.compiler_so, *later, "-x", "c-header", python_h, "-o", target]
                            )
                            header.append(f"-I{folder}")
                        except ExecError:  # (then each shim reads Python.h)
                            header.append("")
                    return [option for option in header if option]

            def compile_all(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
                later = list(kwargs.pop("extra_postargs", None) or [])
                if in_batches and len(sources) == 1:  # a module's shim
                    before = [*precompiled_python_h(later), *(kwargs.pop("extra_preargs", None) or [])]
                    return list(compile_one(sources, *args, extra_preargs=before, extra_postargs=later, **kwargs))
                if in_batches:
                    work = []
                    for number, (level, members) in enumerate(unity_batches(sources, jobs)):
                        batch = os.path.join(os.path.dirname(members[0]), f"__batch_O{level}_{number}.c")
                        with open(batch, "w", encoding="utf-8") as out:
                            out.writelines(f'#include "{os.path.abspath(member)}"\n' for member in members)
                        # A later -O overrides the one mypyc put in the extension's arguments. -w:
                        # mypyc asks for -Werror, and a newer gcc's new warning must not fail a
                        # user's install (the warnings' analysis also costs a sixth of the time).
                        work.append((batch, [*later, f"-O{level}", "-w"]))
                else:
                    largest_first = sorted(sources, key=lambda source: -os.path.getsize(source))
                    work = [(source, later) for source in largest_first]
                # subtle: older distutils' mkpath races when two threads make one folder
                output_dir = kwargs.get("output_dir") or ""
                for name in self.compiler.object_filenames([path for path, _ in work], output_dir=output_dir):
                    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)

                def compile_file(item: tuple[str, list[str]]) -> list[str]:
                    return list(compile_one([item[0]], *args, extra_postargs=item[1], **kwargs))

                # (each file is its own compiler process: threads only wait for them)
                with ThreadPoolExecutor(max(1, jobs)) as pool:
                    return [name for names in pool.map(compile_file, work) for name in names]

            self.compiler.compile = compile_all
            super().build_extensions()

    return ParallelBuildExt


# =============================================================================================
# Part 2: the desktop bundle (python build_app.py)
# =============================================================================================


APP = "tokenizer-workbench"
# The Python modules of PySide6 the window never imports (pyqtgraph tries QtSvg and QtTest and
# does without them; its plot curves need QtOpenGL and QtOpenGLWidgets), left out of the bundle
# with the Qt libraries only they load.
UNUSED_QT_MODULES = (
    "PySide6.QtNetwork", "PySide6.QtSvg",
    "PySide6.QtSvgWidgets", "PySide6.QtTest", "PySide6.QtDBus", "PySide6.QtXml",
)  # fmt: skip
# zstandard's second backend (cffi, 12 MB): the C backend it imports by default is kept.
UNUSED_MODULES = ("zstandard._cffi", "zstandard.backend_cffi", "cffi")
# Under _internal/PySide6/Qt/plugins: what a desktop window on X11 or Wayland never loads (frame
# buffers, VNC, EGL without a window system, touch-screen input for those, networking, TLS), and
# Qt's own translations (the window is in English). And GTK's platform theme: the window sets its
# own style and palettes, file dialogs go through the desktop's portal, and with it the bundle
# would carry the building machine's GTK (or not, as it has one), not the user's.
UNUSED_QT_PLUGINS = (
    "egldeviceintegrations", "generic", "networkinformation", "tls", "platformthemes/libqgtk3.so",
    "platforms/libqeglfs.so", "platforms/libqlinuxfb.so", "platforms/libqvnc.so",
    "platforms/libqvkkhrdisplay.so", "platforms/libqminimalegl.so",
)  # fmt: skip
UNUSED_QT_FILES = ("translations",)
# Binaries that carry their debugging information (23 MB of libpython's 23, 11 of zstandard's
# 12), stripped in the bundle. Not every binary: PyInstaller's --strip breaks numpy's OpenBLAS
# ("ELF load command address/offset not page-aligned").
STRIPPED = ("libpython3*.so*", "zstandard/backend_c*.so")
# Libraries only the plugins above load (GTK's when the building machine has it).
UNUSED_QT_LIBRARIES = (
    "libQt6EglFSDeviceIntegration.so.6", "libQt6EglFsKmsSupport.so.6",
    "libgtk-3.so.0", "libgdk-3.so.0", "libatk-bridge-2.0.so.0", "libatspi.so.0", "libepoxy.so.0",
)  # fmt: skip
# What the bundle's folder holds besides the application: the desktop entry and its icon.
DESKTOP_ENTRY = "tokenizer-workbench.desktop"


class BuildFailed(RuntimeError):
    """The bundle could not be built, or the built bundle does not work."""


def say(message: str) -> None:
    print(f"build_app.py: {message}", flush=True)


def installed_distribution_check() -> None:
    """The engine and workbench PyInstaller will bundle are the installed ones: compiled, and
    installed from this checkout as it is now (else the bundle would hold another version)."""
    import engine

    origin = Path(engine.__file__).resolve().parent
    if origin == HERE / "engine":
        raise BuildFailed(f"the engine found is the source tree's ({origin}), not an installed one; run: pip install .")
    if not engine.COMPILED:
        raise BuildFailed(f"the installed engine ({origin}) is the pure-Python build; run: pip install . (without ENGINE_PURE)")
    import workbench

    installed = Path(workbench.__file__).resolve().parent
    stale = []
    for source in sorted((HERE / "workbench").rglob("*.py")):
        copy = installed / source.relative_to(HERE / "workbench")
        if not copy.is_file() or copy.read_bytes() != source.read_bytes():
            stale.append(source.relative_to(HERE).as_posix())
    for relative in INTERPRETED:  # (the engine's modules kept as Python)
        copy = origin.parent / relative
        if not copy.is_file() or copy.read_bytes() != (HERE / relative).read_bytes():
            stale.append(relative)
    if stale:
        shown = ", ".join(stale[:3]) + (f" and {len(stale) - 3} more" if len(stale) > 3 else "")
        raise BuildFailed(f"the installed application is not this checkout's ({shown} differ); run: pip install .")


def optional_modules() -> list[str]:
    """The top-level modules installed here that the application does not depend on: those of
    the distributions outside the closure of its own requirements (the test and optional
    extras: tokenizers, sentencepiece, pytest, pyarrow, dask...). PyInstaller would bundle any
    that the code imports inside a try, so they are excluded by name."""
    import re
    from importlib.metadata import PackageNotFoundError, distribution, packages_distributions

    def key(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    needed: set[str] = set()
    todo = [APP]
    while todo:
        name = key(todo.pop())
        if name in needed:
            continue
        needed.add(name)
        try:
            requires = distribution(name).requires or []
        except PackageNotFoundError:
            continue
        for requirement in requires:
            if re.search(r"\bextra\s*==", requirement):
                continue
            match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
            if match:
                todo.append(match.group(0))
    return sorted(
        module
        for module, owners in packages_distributions().items()
        if module.isidentifier() and not {key(owner) for owner in owners} & needed
        and key(owners[0]) not in ("pyinstaller", "pyinstaller-hooks-contrib", "pip", "setuptools")
    )


def trim_qt(bundle: Path) -> int:
    """Remove what the window never loads from the bundle's Qt (`UNUSED_QT_*`); the bytes freed."""
    qt = bundle / "_internal" / "PySide6" / "Qt"
    targets = [qt / "plugins" / name for name in UNUSED_QT_PLUGINS] + [qt / name for name in UNUSED_QT_FILES]
    for library in UNUSED_QT_LIBRARIES:
        targets += [qt / "lib" / library, bundle / "_internal" / library]
    freed = 0
    for target in targets:
        if target.is_symlink() or target.is_file():
            freed += target.lstat().st_size
            target.unlink()
        elif target.is_dir():
            freed += folder_size(target)
            shutil.rmtree(target)
    return freed


def strip_debugging(bundle: Path) -> int:
    """Strip `STRIPPED`'s binaries (when binutils' strip is there); the bytes freed."""
    import subprocess

    if shutil.which("strip") is None:
        return 0
    freed = 0
    for pattern in STRIPPED:
        for binary in (bundle / "_internal").glob(pattern):
            if binary.is_symlink() or not binary.is_file():
                continue
            before = binary.stat().st_size
            subprocess.run(["strip", "--strip-unneeded", str(binary)], check=True)
            freed += before - binary.stat().st_size
    return freed


def missing_libraries(bundle: Path) -> list[str]:
    """Qt's own libraries the bundle's binaries need and cannot find (after `trim_qt`): each as
    "binary: library" (ldd's "not found"). The desktop's libraries (GTK, Wayland's client
    libraries) come from the user's system, as PyInstaller leaves them. Empty when ldd is not
    there to ask."""
    import subprocess

    if shutil.which("ldd") is None:
        return []
    internal = bundle / "_internal"
    found = []
    binaries = [path for path in internal.rglob("*.so*") if path.is_file() and not path.is_symlink()]
    environment = {**os.environ, "LD_LIBRARY_PATH": f"{internal}:{internal / 'PySide6' / 'Qt' / 'lib'}"}
    for binary in binaries:
        listed = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, env=environment, check=False)
        for line in listed.stdout.splitlines():
            library = line.split("=>")[0].strip()
            if "not found" in line and library.startswith(("libQt6", "libpyside6", "libshiboken6", "libicu")):
                found.append(f"{binary.relative_to(bundle)}: {library}")
    return found


def folder_size(folder: Path) -> int:
    return sum(path.lstat().st_size for path in folder.rglob("*") if path.is_file() or path.is_symlink())


def run_bundle(bundle: Path, *args: str, timeout: float) -> tuple[int, str]:
    """Run the bundle's executable headless with a throw-away settings folder: (exit code, output)."""
    import subprocess

    with tempfile.TemporaryDirectory(prefix="bundle-home-") as home:
        environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TOKENIZER_WORKBENCH_HOME": home}
        finished = subprocess.run(
            [str(bundle / APP), *args], capture_output=True, text=True, env=environment, timeout=timeout, check=False
        )
    return finished.returncode, finished.stdout + finished.stderr


def build(dist: Path, work: Path) -> Path:
    """Build the bundle in `dist`/tokenizer-workbench, check it, and archive it; returns the
    archive's path. Raises BuildFailed with what to do."""
    if importlib.util.find_spec("PyInstaller") is None:
        raise BuildFailed("PyInstaller is not installed; run: pip install '.[app]'")
    installed_distribution_check()
    from PyInstaller.__main__ import run

    excluded = [*UNUSED_QT_MODULES, *UNUSED_MODULES, *optional_modules()]
    previous = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="build-app-") as scratch:
        record = write_build_record(Path(scratch), "desktop bundle")
        launcher = Path(scratch) / f"{APP}.py"
        # (the installed command's entry point, not workbench/__main__.py: a script in the
        # source tree would put the source tree first on the analysis's path)
        launcher.write_text("import sys\nfrom workbench.cli.main import main\nsys.exit(main())\n", encoding="utf-8")
        say(f"PyInstaller: {dist / APP} (leaving out {len(excluded)} modules the application does not use)")
        # (in the project folder, "" on the path of PyInstaller's helper processes would be the
        # source tree)
        os.chdir(scratch)
        try:
            run(
                [
                    str(launcher),
                    f"--name={APP}",
                    "--onedir",
                    "--noconfirm",
                    "--log-level=WARN",
                    f"--distpath={dist}",
                    f"--workpath={work}",
                    f"--specpath={scratch}",
                    # mypyc puts every compiled engine module in one shared library that nothing imports by name
                    "--hidden-import=engine__mypyc",
                    # the compiled training passes import mypyc's native vecs from C, where PyInstaller cannot see it
                    "--hidden-import=librt.vecs",
                    # pyqtgraph's plot curves import these by names made at run time (OpenGLHelpers)
                    "--hidden-import=PySide6.QtOpenGL",
                    "--hidden-import=PySide6.QtOpenGLWidgets",
                    "--collect-submodules=engine",
                    "--collect-submodules=workbench",
                    # resources/ goes where workbench.core.shipped looks for it in an installed application
                    f"--add-data={HERE / 'resources'}{os.pathsep}workbench/resources",
                    f"--add-data={record}{os.pathsep}workbench/resources",
                    *(f"--exclude-module={module}" for module in excluded),
                ]
            )
        finally:
            os.chdir(previous)
    bundle = dist / APP
    freed = trim_qt(bundle)
    say(f"Qt trimmed: {freed / 1e6:.0f} MB of plugins, translations and libraries the window does not load")
    say(f"debugging information stripped: {strip_debugging(bundle) / 1e6:.0f} MB")
    missing = missing_libraries(bundle)
    if missing:
        raise BuildFailed("the bundle lacks libraries its binaries need: " + "; ".join(missing[:5]))
    # (for a look; `tokenizer-workbench --install-desktop-entry` installs them with this path)
    shutil.copyfile(HERE / "resources" / "icons" / f"{APP}-256.png", bundle / f"{APP}.png")
    shutil.copyfile(HERE / "resources" / "desktop" / DESKTOP_ENTRY, bundle / DESKTOP_ENTRY)

    code, output = run_bundle(bundle, "--version", timeout=120)
    if code != 0 or "engine compiled with mypyc" not in output:
        raise BuildFailed(f"the bundle's engine is not the compiled one: {APP} --version said: {output.strip()}")
    say(output.strip())
    say("self-test of the bundle (headless: trains, encodes, exports and reads back through its own processes)…")
    code, output = run_bundle(bundle, "--self-test", timeout=1800)
    print(output, end="", flush=True)
    if code != 0:
        raise BuildFailed(f"the bundle's self-test failed (exit code {code}); its lines are above")

    import tarfile

    import engine

    archive = dist / f"{APP}-{engine.__version__}-linux-{os.uname().machine}.tar.gz"
    with tarfile.open(archive, "w:gz", compresslevel=6) as tar:
        tar.add(bundle, arcname=APP)
    say(f"{bundle}: {folder_size(bundle) / 1e6:.0f} MB; {archive}: {archive.stat().st_size / 1e6:.0f} MB")
    return archive


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="build_app.py",
        description="Build the desktop application: a one-folder bundle of the installed (compiled) "
        "application with PyInstaller, checked (compiled engine, self-test) and archived as .tar.gz.",
    )
    parser.add_argument("--dist", type=Path, default=HERE / "dist", help="where the bundle and archive go (default: %(default)s)")
    parser.add_argument("--work", type=Path, default=HERE / "build" / "app", help="PyInstaller's work folder (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        build(args.dist.resolve(), args.work.resolve())
    except BuildFailed as error:
        print(f"build_app.py: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    # The installed application is what gets bundled: the folder of this script (the project
    # root, first on sys.path when it runs) would make `import engine` find the source tree.
    sys.path[:] = [entry for entry in sys.path if entry and Path(entry).resolve() != HERE]
    sys.exit(main())
