"""How the application is built. Two separate jobs share this file (the product card names it);
each is one part below, and neither uses the other's code.

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
# - -Og: every other module.
# No file gets debug information. ENGINE_OPT_LEVEL=N compiles everything at -ON instead.
FAST_LEVEL, HOT_LEVEL, DEFAULT_LEVEL, COLD_LEVEL = "2", "1", "g", "0"
HOT: dict[str, str] = {
    "engine/analysis/vocabulary.py": "the vocabulary table: every token of a 32k-256k vocabulary, for the window's views",
    "engine/models/bpe/model.py": "BPE's model: every word encoded, and its vocabulary built",
    "engine/models/bpe/encoder.py": "BPE's merge loop over each word's symbols",
    "engine/models/bpe/pair_index.py": "BPE training: the pair counts and where each pair occurs, updated at every merge",
    "engine/models/bpe/merge_queue.py": "BPE training: the queue of pairs by count, popped at every merge",
    "engine/models/unigram/lattice_passes.py": "Unigram training: the E-step and Viterbi over every sentence's lattice",
    "engine/models/unigram/training_lattices.py": "Unigram training: the lattices' native state, read by every pass",
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
    "engine/corpus/byte_words.py": "training words counted on bytes: every byte of an ASCII corpus",
    "engine/ascii_words.py": "GPT-2's split on bytes and a word's key: every byte counted or encoded",
    "engine/models/bpe/ascii_runs.py": "the byte-keyed word cache: every word of an ASCII line encoded",
    "engine/models/unigram/suffix_sort.py": "Unigram's seeds: every suffix of every word sorted, char by char",
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
    for listed, level in ((COLD, COLD_LEVEL), (HOT, HOT_LEVEL)):
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
        kept = getattr(self, "_kept", None)
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
