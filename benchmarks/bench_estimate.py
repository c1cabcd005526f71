"""The training estimate against the training it estimates, and the numbers that calibrate it.

For each (corpus, preset, vocab size) row, a fresh process estimates the training
(`engine.analysis.estimate.estimate_training`, one counting process), then counts the words and trains
from the counts, and prints what `engine/analysis/estimate.py`'s calibration table holds:

  D        distinct words counted        C   their characters together
  M        merges made (BPE, WordPiece)  count s / train s   counting, then the run from counts
  peak     the process's peak RSS (ru_maxrss)
  est      the estimate's seconds and peak memory, and actual / estimated

    python benchmarks/bench_estimate.py                    # every row (about two minutes)
    python benchmarks/bench_estimate.py --rows gcide:bpe   # rows whose name contains this
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"

# (name, corpus file in ../shared/corpora, preset, vocab size)
ROWS = (
    ("gcide:bpe", "gcide.txt", "bpe", 30000),
    ("gcide:bpe5k", "gcide.txt", "bpe", 5000),
    ("gcide:gpt2", "gcide.txt", "gpt2", 30000),
    ("gcide:bert", "gcide.txt", "bert", 30000),
    ("shakespeare:bpe", "shakespeare.txt", "bpe", 30000),
    ("shakespeare:bpe8k", "shakespeare.txt", "bpe", 8000),
    ("shakespeare:gpt2", "shakespeare.txt", "gpt2", 30000),
    ("shakespeare:unigram", "shakespeare.txt", "sentencepiece-unigram", 8000),
    ("wagahaiwa:bpe", "wagahaiwa_nekodearu.txt", "bpe", 30000),
    ("wagahaiwa:unigram", "wagahaiwa_nekodearu.txt", "sentencepiece-unigram", 8000),
    ("botchan:unigram", "botchan.txt", "sentencepiece-unigram", 4000),
    ("gcide:unigram", "gcide.txt", "sentencepiece-unigram", 32000),
)

# Run in the child: everything from one fresh process, so its peak RSS is the row's alone.
CHILD = r"""
import json, resource, sys, time
from engine.analysis.estimate import estimate_training
from workbench.core import presets
path, key, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
tokenizer, trainer = presets.build(key, vocab_size=size)
estimate = estimate_training(tokenizer, [path], trainer, processes=1)
tokenizer, trainer = presets.build(key, vocab_size=size)
began = time.perf_counter()
counts = tokenizer.count_words([path], None, 1)
counted = time.perf_counter() - began
distinct = len(counts)
chars = sum(len(word) for word in counts)
began = time.perf_counter()
report = tokenizer.train_from_counts(counts, trainer)
trained = time.perf_counter() - began
merges = len(report.history.merges)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({
    "distinct": distinct, "chars": chars, "merges": merges, "count": counted, "train": trained,
    "peak": peak, "est_count": estimate.count_seconds, "est_train": estimate.train_seconds,
    "est_peak": estimate.peak_bytes,
}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", default="", help="only the rows whose name contains this")
    args = parser.parse_args()
    import engine

    print(f"engine at {Path(engine.__file__).parent}, compiled={engine.COMPILED}")
    print(
        f"{'row':22} {'D':>9} {'C':>10} {'M':>7} {'count s':>8} {'train s':>8} {'peak':>8}"
        f"   {'est count':>9} {'est train':>9} {'est peak':>8}   train a/e  peak a/e"
    )
    for name, corpus, key, size in ROWS:
        if args.rows not in name:
            continue
        path = CORPORA / corpus
        if not path.exists():
            print(f"{name:22} skipped: {path} is missing")
            continue
        done = subprocess.run(
            # subtle: -P, or `-c` puts the current folder first on sys.path, and run from the checkout
            # the child would import the source tree (the pure build) instead of the installed one
            [sys.executable, "-P", "-c", CHILD, str(path), key, str(size)], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            print(f"{name:22} failed: {done.stderr.strip().splitlines()[-1:]}")
            continue
        row = json.loads(done.stdout.strip().splitlines()[-1])
        mb = 1 << 20
        print(
            f"{name:22} {row['distinct']:>9,} {row['chars']:>10,} {row['merges']:>7,} {row['count']:>8.2f}"
            f" {row['train']:>8.2f} {row['peak'] / mb:>6.0f}MB   {row['est_count']:>9.2f} {row['est_train']:>9.2f}"
            f" {row['est_peak'] / mb:>6.0f}MB   {row['train'] / max(row['est_train'], 1e-9):>9.2f}"
            f" {row['peak'] / max(row['est_peak'], 1):>9.2f}"
        )


if __name__ == "__main__":
    main()
