"""Time BPE training, ours against HF `tokenizers`, in one run: the whole job on both sides.

Each side runs in its own child process that builds a tokenizer, calls `train([file], trainer)`
(read the file, pre-tokenize, count words, merge) and saves the model's merges and vocab; the
parent times `train`, samples the child's memory (its whole process tree, from /proc) and
compares the results. Configurations:

  ws  Whitespace pre-tokenizer, BPE(unk "[UNK]"), special tokens [UNK] [PAD], vocab 30000
  bl  ByteLevel(add_prefix_space=False), BPE, initial_alphabet = the 256 byte chars, vocab 32000
  wp  BERT's pipeline (BertNormalizer lowercase, BertPreTokenizer), WordPiece, special tokens
      [UNK] [CLS] [SEP] [PAD] [MASK], vocab 30000: our WordPieceTrainer scoring by likelihood
      (the algorithm people learn) against HF's WordPieceTrainer, which trains BPE by pair count
      and does less work; the vocabularies differ by design, so only the times compare

    python benchmarks/bench_train.py                       # full gcide (40 MB), all configs
    python benchmarks/bench_train.py --mb 5 --ws-vocab 8000 --bl-vocab 8000   # a quick run
    python benchmarks/bench_train.py --corpus stdlib --configs ws,bl          # code-heavy text

Corpora: --corpus PATH trains on any text file; --corpus stdlib on code: every `*.py` file of
the running interpreter's standard library (sysconfig's `stdlib` folder, `site-packages`
skipped, tests included) that decodes as UTF-8, sorted by path and concatenated, each ending
in a newline. It is generated into the system temp folder, named with the Python version and a
fingerprint of the files' names, sizes and times, and reused while it is there with the size
its `.json` note records; the run prints its path, size and how it was made.

Where the time goes (our side only; HF reports no stages): our child passes a ProgressSink to
`train` that notes the time of each stage's first report and tells the parent through a pipe,
so that the parent's memory sampler files each sample under the stage running. After the wall
time and memory lines:

  stages (ours)  setup 0.00 s | reading+counting 0.91 s (2 processes) | words 0.09 s | pair counts 0.08 s | merges 2.02 s | finishing 0.05 s
  peak PSS by stage  counting 92 MB | words 60 MB | pair counts 65 MB | merges 113 MB | saving 120 MB

A stage lasts from its first report to the next stage's first report (the last one to its
last report), so the stages add up to the wall time. setup: `train` before the first report;
reading+counting: the "Pre-processing files" stage, reading the file and counting its words in
as many processes as `engine.corpus.counting.process_count` chooses, and merging their counts; words:
turning the distinct words into symbol lists; pair counts: the first count of adjacent pairs;
merges: the merge loop; finishing: after the last report until `train` returns (the model is
built from the merges, the training state freed). Peak PSS by stage is the largest sample
(every 20 ms, and at each stage start) of the child's process tree while that stage ran;
"saving" is after `train` (to_str and JSON of the result, not timed). The sink notes a stage
change and otherwise does nothing per report (about 170 ns a call, a few hundred calls).

Run it with the compiled engine installed (`pip install .`); it refuses the pure-Python build
unless --allow-pure. Children run from a temporary directory so the source tree never shadows
the installed engine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "gcide.txt"
CONFIGS = ("ws", "bl", "wp")

# How the profile lines name the engine's stages (engine.progress.STAGE_*); others print as they come.
STAGE_LABELS = {
    "Pre-processing files": "reading+counting",
    "Tokenize words": "words",
    "Count pairs": "pair counts",
    "Compute merges": "merges",
    "Count words": "counting words",
    "Sort words": "sorting words",
}
# Marks the child sends besides stage names: before `train` and after it returned.
BEFORE_TRAIN = "before train"
AFTER_TRAIN = "after train"
PEAK_LABELS = {"Pre-processing files": "counting", AFTER_TRAIN: "saving"}
SAMPLE_SECONDS = 0.02


# -- children ----------------------------------------------------------------------------


def _stage_sink(marks_fd: int) -> Any:
    """A ProgressSink (of the installed engine) noting each stage's first and last report time;
    it writes each new stage's name as a line to `marks_fd` (when >= 0) for the parent.

    subtle: defined here, not at module level, so that importing bench_train (the parent,
    bench_scale) does not import the engine; the engine's ProgressSink allows interpreted
    subclasses.
    """
    from engine.progress import ProgressSink, TrainProgress

    class StageSink(ProgressSink):
        def __init__(self) -> None:
            self.stage = ""
            self.starts: list[tuple[str, float]] = []
            self.last = 0.0
            self.reports = 0

        def report(self, event: TrainProgress) -> bool:
            self.last = time.perf_counter()
            self.reports += 1
            if event.stage != self.stage:
                self.stage = event.stage
                self.starts.append((event.stage, self.last))
                _send_mark(marks_fd, event.stage)
            return True

    return StageSink()


def _send_mark(marks_fd: int, name: str) -> None:
    if marks_fd >= 0:
        os.write(marks_fd, name.encode("utf-8") + b"\n")


def _stage_seconds(starts: list[tuple[str, float]], started: float, last: float, ended: float) -> list[list[object]]:
    """[[stage, seconds], ...] in first-seen order, a stage lasting from its first report to the
    next stage's first (the last stage: to its last report), between ["setup", before the first
    report] and ["finishing", after the last report until `train` returned]."""
    if not starts:
        return [["setup", ended - started]]
    seconds: dict[str, float] = {}
    for index, (stage, start) in enumerate(starts):
        end = starts[index + 1][1] if index + 1 < len(starts) else last
        seconds[stage] = seconds.get(stage, 0.0) + end - start
    stages: list[list[object]] = [["setup", starts[0][1] - started]]
    stages += [[stage, value] for stage, value in seconds.items()]
    return stages + [["finishing", ended - last]]


def _child(side: str, config: str, corpus: str, vocab_size: int, out: str, marks_fd: int = -1) -> None:
    """Train one side on `corpus` and write {"seconds", "merges", "vocab", ...} to `out`; our
    side also {"stages", "processes", "reports"}, sending stage marks to `marks_fd`."""
    info: dict[str, object] = {}
    if side == "hf":
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers

        info["library"] = "tokenizers " + __import__("tokenizers").__version__
    else:
        import engine
        from engine import models, pre_tokenizers, trainers
        from engine.tokenizer import Tokenizer  # type: ignore[assignment]

        info["library"] = f"engine {engine.__version__} compiled={engine.COMPILED} at {Path(engine.__file__).parent}"
        info["compiled"] = engine.COMPILED
    if config == "ws":
        tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
        tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["[UNK]", "[PAD]"], show_progress=False)
    elif config == "wp":
        from_side = __import__("tokenizers" if side == "hf" else "engine")
        tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tokenizer.normalizer = from_side.normalizers.BertNormalizer(lowercase=True)
        tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        specials = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
        trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials, show_progress=False)
    else:
        tokenizer = Tokenizer(models.BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
    info.update(train_timed(side, tokenizer, trainer, corpus, marks_fd))
    model = json.loads(tokenizer.to_str())["model"]
    merges = model.get("merges", [])
    info["merges"] = [list(pair) if not isinstance(pair, str) else pair.split(" ", 1) for pair in merges]
    info["vocab"] = model["vocab"]
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    info["maxrss_kb"] = max(usage, children)
    Path(out).write_text(json.dumps(info), encoding="utf-8")


def train_timed(
    side: str, tokenizer: Any, trainer: Any, corpus: str, marks_fd: int, processes: bool = True, marked: bool = True
) -> dict[str, Any]:
    """Train `tokenizer` on `corpus` and time it: {"seconds"}, and for our side (`side` not
    "hf") the stages' seconds, the progress reports and (`processes`) the counting processes;
    with `marked`, the marks BEFORE_TRAIN and AFTER_TRAIN around it, for the memory sampler."""
    info: dict[str, Any] = {}
    if side == "hf":
        started = time.perf_counter()
        tokenizer.train([corpus], trainer)
        info["seconds"] = time.perf_counter() - started
        return info
    if processes:
        from engine.corpus.units import process_count

        info["processes"] = process_count(os.path.getsize(corpus), 0)
    sink = _stage_sink(marks_fd)
    if marked:
        _send_mark(marks_fd, BEFORE_TRAIN)
    started = time.perf_counter()
    tokenizer.train([corpus], trainer, progress=sink)
    ended = time.perf_counter()
    if marked:
        _send_mark(marks_fd, AFTER_TRAIN)
    info["seconds"] = ended - started
    info["stages"] = _stage_seconds(sink.starts, started, sink.last, ended)
    info["reports"] = sink.reports
    return info


# -- memory sampling ---------------------------------------------------------------------


def _tree_rss_kb(pid: int) -> int:
    """Memory of a process and all its descendants, in KiB (Linux /proc).

    PSS (proportional set size): pages a forked child still shares with its parent count once.
    """
    total = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            for line in Path(f"/proc/{current}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
                    break
            for task in Path(f"/proc/{current}/task").iterdir():
                children = (task / "children").read_text().split()
                stack.extend(int(child) for child in children)
        except (OSError, ValueError):
            continue
    return total


class _Sampler(threading.Thread):
    """Polls a child's process-tree PSS every few milliseconds; `peak_kb` is the largest seen,
    `stage_peaks_kb` the largest per stage (`enter` names the stage running and samples at once)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_kb = 0
        self.stage = "startup"
        self.stage_peaks_kb: dict[str, int] = {}
        self.stopping = threading.Event()
        self.woken = threading.Event()

    def enter(self, stage: str) -> None:
        self.stage = stage
        self.woken.set()

    def run(self) -> None:
        while not self.stopping.is_set():
            stage = self.stage
            kb = _tree_rss_kb(self.pid)
            self.peak_kb = max(self.peak_kb, kb)
            self.stage_peaks_kb[stage] = max(self.stage_peaks_kb.get(stage, 0), kb)
            self.woken.wait(SAMPLE_SECONDS)
            self.woken.clear()


class _MarkReader(threading.Thread):
    """Reads the child's stage marks (one name a line) from a pipe and tells the sampler."""

    def __init__(self, fd: int, sampler: _Sampler) -> None:
        super().__init__(daemon=True)
        self.fd = fd
        self.sampler = sampler

    def run(self) -> None:
        with os.fdopen(self.fd, "rb") as stream:
            for line in stream:
                self.sampler.enter(line.decode("utf-8").rstrip("\n"))


def run_sampled(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, _Sampler]:
    """Run `command` (a child that takes "--marks-fd FD" for its stage marks) while sampling
    the PSS of its process tree: its exit code, and the sampler with its peaks by stage."""
    read_fd, write_fd = os.pipe()
    try:
        process = subprocess.Popen([*command, "--marks-fd", str(write_fd)], cwd=cwd, env=env, pass_fds=(write_fd,))
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    sampler = _Sampler(process.pid)
    reader = _MarkReader(read_fd, sampler)
    sampler.start()
    reader.start()
    code = process.wait()
    sampler.stopping.set()
    sampler.woken.set()
    sampler.join()
    reader.join(1.0)
    return code, sampler


def _run_side(side: str, config: str, corpus: Path, vocab_size: int, workdir: Path) -> dict[str, object]:
    """Run one side in a child process: its JSON result plus "peak_tree_kb" and (ours)
    "stage_peaks_kb", {stage mark: peak PSS KiB while it ran}."""
    out = workdir / f"{side}-{config}.json"
    command = [sys.executable, str(Path(__file__).resolve()), "--child", side, "--config", config,
               "--corpus", str(corpus), "--vocab", str(vocab_size), "--out", str(out)]
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    code, sampler = run_sampled(command, workdir, env)
    if code != 0:
        raise SystemExit(f"{side} {config}: child exited with {code}")
    info: dict[str, object] = json.loads(out.read_text(encoding="utf-8"))
    info["peak_tree_kb"] = sampler.peak_kb
    info["stage_peaks_kb"] = dict(sampler.stage_peaks_kb)
    return info


def _profile_lines(info: dict[str, object]) -> list[str]:
    """Our side's stage profile as printed lines (none for a side without stage reports)."""
    stages = info.get("stages")
    if not isinstance(stages, list) or not stages:
        return []
    parts = []
    for stage, seconds in stages:
        part = f"{STAGE_LABELS.get(stage, stage.lower())} {seconds:.2f} s"
        if stage == "Pre-processing files":
            processes = info.get("processes")
            part += f" ({processes} process{'es' if processes != 1 else ''})"
        parts.append(part)
    lines = ["  stages (ours)  " + " | ".join(parts)]
    peaks = info.get("stage_peaks_kb")
    if isinstance(peaks, dict):
        shown = [
            f"{PEAK_LABELS.get(stage, STAGE_LABELS.get(stage, stage.lower()))} {kb / 1024:.0f} MB"
            for stage, kb in peaks.items()
            if stage not in ("startup", BEFORE_TRAIN)
        ]
        if shown:
            lines.append("  peak PSS by stage  " + " | ".join(shown))
    return lines


# -- the parent ----------------------------------------------------------------------------


def _stdlib_files() -> tuple[Path, list[Path]]:
    """The interpreter's standard library folder and its `*.py` files outside site-packages,
    sorted by path."""
    root = Path(sysconfig.get_paths()["stdlib"]).resolve()
    files = sorted(path for path in root.rglob("*.py") if "site-packages" not in path.relative_to(root).parts)
    return root, files


def stdlib_corpus(folder: Path | None = None) -> tuple[Path, str]:
    """The stdlib code corpus (generated, or reused when its note says it is complete) and a
    sentence saying how it was made: `(path, "the 1,873 *.py files of ... (made in 1.1 s)")`."""
    root, files = _stdlib_files()
    fingerprint = hashlib.sha1(str(root).encode("utf-8"))
    for path in files:
        stat = path.stat()
        fingerprint.update(f"{path.relative_to(root)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    version = ".".join(str(part) for part in sys.version_info[:3])
    folder = folder if folder is not None else Path(tempfile.gettempdir())
    target = folder / f"bench-stdlib-py{version}-{fingerprint.hexdigest()[:10]}.txt"
    note_path = target.with_suffix(".json")
    note: dict[str, Any] = {}
    try:
        note = json.loads(note_path.read_text(encoding="utf-8"))
        made = "reused" if target.stat().st_size == note["bytes"] else ""
    except (OSError, ValueError, KeyError, TypeError):
        made = ""
    if not made:
        started = time.perf_counter()
        written = used = skipped = 0
        partial = target.with_name(target.name + f".{os.getpid()}.partial")
        with partial.open("wb") as out:
            for path in files:
                data = path.read_bytes()
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    skipped += 1
                    continue
                if not data.endswith(b"\n"):
                    data += b"\n"
                out.write(data)
                written += len(data)
                used += 1
        partial.replace(target)
        note = {"bytes": written, "files": used, "skipped": skipped, "root": str(root), "python": sys.version.split()[0]}
        note_path.write_text(json.dumps(note), encoding="utf-8")
        made = f"made in {time.perf_counter() - started:.1f} s"
    how = (
        f"the {note['files']:,} *.py files of {note['root']} (Python {note['python']}) that decode as UTF-8"
        f" ({note['skipped']} skipped; site-packages left out), sorted by path, concatenated ({made})"
    )
    return target, how


def _slice_corpus(source: Path, megabytes: float, workdir: Path) -> Path:
    """The first `megabytes` of `source`, cut at a line end, as a file in `workdir`."""
    limit = int(megabytes * 1_000_000)
    data = source.read_bytes()
    if limit >= len(data):
        return source
    cut = data.rfind(b"\n", 0, limit) + 1 or limit
    target = workdir / f"{source.stem}-{megabytes:g}MB.txt"
    target.write_bytes(data[:cut])
    return target


def _compare(ours: dict[str, object], hf: dict[str, object]) -> tuple[bool, bool, str]:
    our_merges = ours["merges"]
    hf_merges = hf["merges"]
    assert isinstance(our_merges, list) and isinstance(hf_merges, list)
    same_merges = our_merges == hf_merges
    same_vocab = ours["vocab"] == hf["vocab"]
    note = ""
    if not same_merges:
        first = next((i for i, (a, b) in enumerate(zip(our_merges, hf_merges)) if a != b), min(len(our_merges), len(hf_merges)))
        note = f"first difference at merge {first} (ours {len(our_merges)}, HF {len(hf_merges)} merges)"
    return same_merges, same_vocab, note


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--corpus", default=str(DEFAULT_CORPUS),
        help="training text, or 'stdlib' for the generated code corpus (default: %(default)s)",
    )
    parser.add_argument("--mb", type=float, default=0.0, help="use only the first MB of the corpus (0: all)")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated: ws, bl, wp (default: %(default)s)")
    parser.add_argument("--ws-vocab", type=int, default=30000)
    parser.add_argument("--bl-vocab", type=int, default=32000)
    parser.add_argument("--wp-vocab", type=int, default=30000)
    parser.add_argument("--repeat", type=int, default=1, help="runs per side; the fastest counts")
    parser.add_argument("--allow-pure", action="store_true", help="measure even a pure-Python engine")
    # child mode (internal)
    parser.add_argument("--child", choices=("hf", "ours"), help=argparse.SUPPRESS)
    parser.add_argument("--config", choices=CONFIGS, help=argparse.SUPPRESS)
    parser.add_argument("--vocab", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--marks-fd", type=int, default=-1, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        _child(args.child, args.config, args.corpus, args.vocab, args.out, args.marks_fd)
        return

    if args.corpus == "stdlib":
        corpus, how = stdlib_corpus()
        print(f"stdlib corpus: {corpus} ({corpus.stat().st_size / 1e6:.1f} MB): {how}")
    else:
        corpus = Path(args.corpus).resolve()
    if not corpus.is_file():
        raise SystemExit(f"corpus not found: {corpus}")
    configs = [name.strip() for name in args.configs.split(",") if name.strip()]
    for name in configs:
        if name not in CONFIGS:
            raise SystemExit(f"unknown config {name!r}; choose from {', '.join(CONFIGS)}")
    with tempfile.TemporaryDirectory(prefix="bench-train-") as tmp:
        workdir = Path(tmp)
        source = _slice_corpus(corpus, args.mb, workdir) if args.mb > 0 else corpus
        print(f"corpus: {source} ({source.stat().st_size / 1e6:.1f} MB), cpus: {os.cpu_count()}")
        print("stage profile: ours only (HF: no stage reports)")
        failures = 0
        for config in configs:
            vocab_size = {"ws": args.ws_vocab, "bl": args.bl_vocab, "wp": args.wp_vocab}[config]
            best: dict[str, dict[str, object]] = {}
            for _ in range(args.repeat):
                for side in ("hf", "ours"):
                    info = _run_side(side, config, source, vocab_size, workdir)
                    if side == "ours" and not info.get("compiled") and not args.allow_pure:
                        raise SystemExit(f"the engine is not compiled ({info['library']}); use --allow-pure to measure anyway")
                    seconds = info["seconds"]
                    assert isinstance(seconds, float)
                    previous = best.get(side)
                    if previous is None or seconds < float(str(previous["seconds"])):
                        best[side] = info
            ours, hf = best["ours"], best["hf"]
            same_merges, same_vocab, note = _compare(ours, hf)
            our_s = float(str(ours["seconds"]))
            hf_s = float(str(hf["seconds"]))
            ratio = our_s / hf_s
            label = {"ws": "Whitespace BPE", "bl": "ByteLevel BPE", "wp": "WordPiece (ours: likelihood; HF: its BPE-by-count)"}[config]
            print(f"\n{label}, vocab {vocab_size}:")
            print(f"  HF    {hf['library']}")
            print(f"  ours  {ours['library']}")
            print(f"  wall time   ours {our_s:7.2f} s   HF {hf_s:7.2f} s   ratio ours/HF {ratio:5.2f}")
            print(
                f"  peak RSS    ours {int(str(ours['peak_tree_kb'])) / 1024:7.0f} MB  HF {int(str(hf['peak_tree_kb'])) / 1024:7.0f} MB"
                f"   (PSS of the process tree, sampled; ru_maxrss ours {int(str(ours['maxrss_kb'])) / 1024:.0f} MB, HF {int(str(hf['maxrss_kb'])) / 1024:.0f} MB)"
            )
            for line in _profile_lines(ours):
                print(line)
            merges = ours["merges"]
            assert isinstance(merges, list)
            if config == "wp":
                vocab = ours["vocab"]
                assert isinstance(vocab, dict)
                shared = len(set(vocab) & set(hf["vocab"]))  # type: ignore[arg-type]
                print(f"  vocabulary: ours {len(vocab)} tokens, {shared} of them also in HF's (different algorithms)")
                continue
            print(f"  merges identical: {'yes' if same_merges else 'NO'} ({len(merges)} merges)   vocab ids identical: {'yes' if same_vocab else 'NO'}")
            if note:
                print(f"  {note}")
            if not (same_merges and same_vocab):
                failures += 1
        if failures:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
