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

Run it with the compiled engine installed (`pip install .`); it refuses the pure-Python build
unless --allow-pure. Children run from a temporary directory so the source tree never shadows
the installed engine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "gcide.txt"
CONFIGS = ("ws", "bl", "wp")


# -- children ----------------------------------------------------------------------------


def _child(side: str, config: str, corpus: str, vocab_size: int, out: str) -> None:
    """Train one side on `corpus` and write {"seconds", "merges", "vocab", ...} to `out`."""
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
    started = time.perf_counter()
    tokenizer.train([corpus], trainer)
    info["seconds"] = time.perf_counter() - started
    model = json.loads(tokenizer.to_str())["model"]
    merges = model.get("merges", [])
    info["merges"] = [list(pair) if not isinstance(pair, str) else pair.split(" ", 1) for pair in merges]
    info["vocab"] = model["vocab"]
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    info["maxrss_kb"] = max(usage, children)
    Path(out).write_text(json.dumps(info), encoding="utf-8")


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
    """Polls a child's process-tree RSS every few milliseconds; `peak_kb` is the largest seen."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_kb = 0
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            self.peak_kb = max(self.peak_kb, _tree_rss_kb(self.pid))
            self.stopping.wait(0.02)


def _run_side(side: str, config: str, corpus: Path, vocab_size: int, workdir: Path) -> dict[str, object]:
    out = workdir / f"{side}-{config}.json"
    command = [sys.executable, str(Path(__file__).resolve()), "--child", side, "--config", config,
               "--corpus", str(corpus), "--vocab", str(vocab_size), "--out", str(out)]
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    process = subprocess.Popen(command, cwd=workdir, env=env)
    sampler = _Sampler(process.pid)
    sampler.start()
    code = process.wait()
    sampler.stopping.set()
    sampler.join()
    if code != 0:
        raise SystemExit(f"{side} {config}: child exited with {code}")
    info: dict[str, object] = json.loads(out.read_text(encoding="utf-8"))
    info["peak_tree_kb"] = sampler.peak_kb
    return info


# -- the parent ----------------------------------------------------------------------------


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
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="training text (default: %(default)s)")
    parser.add_argument("--mb", type=float, default=0.0, help="use only the first MB of the corpus (0: all)")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated: ws, bl (default: both)")
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
    args = parser.parse_args()

    if args.child:
        _child(args.child, args.config, str(args.corpus), args.vocab, args.out)
        return

    corpus: Path = args.corpus.resolve()
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
