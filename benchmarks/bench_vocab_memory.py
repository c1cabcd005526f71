"""Peak memory of converting a big BERT vocab.txt to tokenizer.json, ours against HF, in one run.

Generates a vocab.txt of --lines tokens (the [PAD]..[MASK] specials, then random lowercase words,
a third of them "##" continuations), then runs each side in a child process and reads the child's
peak resident memory (ru_maxrss), as /usr/bin/time -v reports it:

  ours  `tokenizer-workbench convert vocab.txt out.json --to hf`
  HF    `BertWordPieceTokenizer(vocab.txt)` then `.save(out.json)`

    python benchmarks/bench_vocab_memory.py                  # 10 million lines (about 150 MB, 2 minutes)
    python benchmarks/bench_vocab_memory.py --lines 1000000
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HF_CODE = "import sys; from tokenizers import BertWordPieceTokenizer as B; B(sys.argv[1]).save(sys.argv[2])"


def write_vocab(path: Path, lines: int) -> None:
    rng = random.Random(0)
    letters = "abcdefghijklmnopqrstuvwxyz"
    with path.open("w", encoding="utf-8") as out:
        out.write("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n")
        for i in range(lines - 5):
            word = "".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) + str(i)
            out.write(("##" if i % 3 == 0 else "") + word + "\n")


def peak_of(command: list[str]) -> tuple[float, float]:
    """(seconds, peak resident GB) of one child process. subtle: ru_maxrss of the children is
    the largest child's so far, so each side is timed from a parent of its own (see `main`)."""
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    seconds = time.perf_counter() - started
    return seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000_000)
    parser.add_argument("--side", choices=("ours", "hf"), help=argparse.SUPPRESS)
    parser.add_argument("--vocab", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side is not None:
        out = args.vocab.with_name(f"{args.side}.json")
        if args.side == "ours":
            command = [sys.executable, "-P", "-m", "workbench.cli", "convert", str(args.vocab), str(out), "--to", "hf", "--force"]
        else:
            command = [sys.executable, "-c", HF_CODE, str(args.vocab), str(out)]
        seconds, peak = peak_of(command)
        print(f"{args.side:4}  {seconds:6.1f} s   peak {peak:5.2f} GB", flush=True)
        return
    with tempfile.TemporaryDirectory() as name:
        vocab = Path(name) / "vocab.txt"
        write_vocab(vocab, args.lines)
        print(f"{vocab.stat().st_size / 1e6:.0f} MB vocab.txt, {args.lines:,} lines", flush=True)
        for side in ("ours", "hf"):
            subprocess.run([sys.executable, __file__, "--side", side, "--vocab", str(vocab)], check=True)


if __name__ == "__main__":
    main()
