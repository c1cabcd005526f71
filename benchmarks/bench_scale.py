"""Train BPE 32k on a generated corpus of at least 1 GB, ours against HF `tokenizers`: time and
peak memory (PSS of each side's process tree, sampled), in one run.

The corpus repeats the shared corpora (gcide, shakespeare, botchan, wagahaiwa) and perturbs each
repetition so that the vocabulary keeps growing, as it does in real web or log text: in every
repetition r, one line in four has its ASCII letters rotated by r places (rot-r), which makes new
words of the same shape. Both sides train ByteLevel BPE (add_prefix_space=False, the 256 byte chars
as initial alphabet) to 32,000 tokens, each in its own child process (`bench_train`'s runner), and
the merges must be identical.

    python benchmarks/bench_scale.py                  # 1 GB, generated into a temporary folder
    python benchmarks/bench_scale.py --gb 0.2         # a quicker run
    python benchmarks/bench_scale.py --keep /data/scale.txt   # keep (or reuse) the corpus there

Bar (issue 10): we finish, with peak memory no higher than HF's.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_train  # noqa: E402  (the runner, the sampler and the comparison are shared)

CORPORA = bench_train.ROOT.parent / "shared" / "corpora"
SOURCES = ("gcide.txt", "shakespeare.txt", "botchan.txt", "wagahaiwa_nekodearu.txt")
LOWER = b"abcdefghijklmnopqrstuvwxyz"
UPPER = LOWER.upper()


def _rotation(places: int) -> bytes:
    """A bytes.translate table rotating ASCII letters by `places`."""
    table = bytearray(range(256))
    for i in range(26):
        table[LOWER[i]] = LOWER[(i + places) % 26]
        table[UPPER[i]] = UPPER[(i + places) % 26]
    return bytes(table)


def generate(target: Path, size: int) -> None:
    """Write at least `size` bytes of perturbed repetitions of the shared corpora to `target`."""
    texts = [(CORPORA / name).read_bytes() for name in SOURCES if (CORPORA / name).is_file()]
    if not texts:
        raise SystemExit(f"no shared corpora in {CORPORA}")
    lines = b"".join(text if text.endswith(b"\n") else text + b"\n" for text in texts).split(b"\n")[:-1]
    written = 0
    repetition = 0
    partial = target.with_suffix(target.suffix + ".partial")
    with partial.open("wb") as out:
        while written < size:
            table = _rotation(repetition % 25 + 1)
            chosen = repetition % 4
            block: list[bytes] = []
            for index, line in enumerate(lines):
                block.append(line.translate(table) if index % 4 == chosen and repetition > 0 else line)
                if len(block) == 65536:
                    data = b"\n".join(block) + b"\n"
                    out.write(data)
                    written += len(data)
                    block = []
            if block:
                data = b"\n".join(block) + b"\n"
                out.write(data)
                written += len(data)
            repetition += 1
    partial.replace(target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gb", type=float, default=1.0, help="corpus size in GB (default: %(default)s)")
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--keep", type=Path, help="write the corpus here and keep it (reused when it is big enough)")
    parser.add_argument("--allow-pure", action="store_true", help="measure even a pure-Python engine")
    args = parser.parse_args()
    size = int(args.gb * 1e9)
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        workdir = Path(tmp)
        corpus = args.keep.resolve() if args.keep else workdir / "scale.txt"
        if not corpus.is_file() or corpus.stat().st_size < size:
            started = time.perf_counter()
            generate(corpus, size)
            print(f"generated {corpus} ({corpus.stat().st_size / 1e9:.2f} GB) in {time.perf_counter() - started:.0f} s")
        print(f"corpus: {corpus} ({corpus.stat().st_size / 1e9:.2f} GB), cpus: {os.cpu_count()}")
        results = {}
        for side in ("hf", "ours"):
            info = bench_train._run_side(side, "bl", corpus, args.vocab, workdir)
            if side == "ours" and not info.get("compiled") and not args.allow_pure:
                raise SystemExit(f"the engine is not compiled ({info['library']}); use --allow-pure to measure anyway")
            results[side] = info
        ours, hf = results["ours"], results["hf"]
        same_merges, same_vocab, note = bench_train._compare(ours, hf)
        our_s, hf_s = float(str(ours["seconds"])), float(str(hf["seconds"]))
        our_mb, hf_mb = int(str(ours["peak_tree_kb"])) / 1024, int(str(hf["peak_tree_kb"])) / 1024
        print(f"\nByteLevel BPE, vocab {args.vocab}, {corpus.stat().st_size / 1e9:.2f} GB:")
        print(f"  HF    {hf['library']}")
        print(f"  ours  {ours['library']}")
        print(f"  wall time   ours {our_s:7.1f} s   HF {hf_s:7.1f} s   ratio ours/HF {our_s / hf_s:5.2f}")
        print(f"  peak RSS    ours {our_mb:7.0f} MB  HF {hf_mb:7.0f} MB   ratio ours/HF {our_mb / hf_mb:5.2f}")
        for line in bench_train._profile_lines(ours):
            print(line)
        print(f"  merges identical: {'yes' if same_merges else 'NO'}   vocab ids identical: {'yes' if same_vocab else 'NO'}")
        if note:
            print(f"  {note}")
        if not (same_merges and same_vocab):
            raise SystemExit(1)


if __name__ == "__main__":
    main()
