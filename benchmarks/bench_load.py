"""Time loading tokenizer.json files with many added tokens, ours against HF `tokenizers`, in one run.

Each file is a WordLevel tokenizer with N added tokens ("<tok0>" ...; every second one normalized,
every third one special), written once to a temporary folder and loaded by both libraries. HF
loads in a child process with RAYON_NUM_THREADS=1, so both sides use one core. Printed per N:
seconds (best of --repeat) on both sides and ours/HF time, then our encode of a line that holds
added tokens, as a check that the found tokens agree with HF's.

    python benchmarks/bench_load.py                      # 2,000, 20,000 and 200,000 added tokens
    python benchmarks/bench_load.py --sizes 200000 --profile   # cProfile of our 200,000 load
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LINE = "a <tok5> b <tok19999><tok7>c <tok1999x"


def write_file(folder: Path, n: int) -> Path:
    added = [
        {"id": i + 2, "content": f"<tok{i}>", "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": i % 2 == 0, "special": i % 3 == 0}
        for i in range(n)
    ]
    data = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
        "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None, "decoder": None,
        "model": {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"},
    }
    path = folder / f"added-{n}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def best_of(repeat: int, path: str, load: object) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        load(path)  # type: ignore[operator]
        best = min(best, time.perf_counter() - started)
    return best


def hf_seconds(path: Path, repeat: int) -> tuple[float, list[str]]:
    code = (
        "import json, sys, time; import tokenizers\n"
        "best = float('inf')\n"
        "for _ in range(int(sys.argv[2])):\n"
        "    t = time.perf_counter(); tok = tokenizers.Tokenizer.from_file(sys.argv[1]); best = min(best, time.perf_counter() - t)\n"
        "print(json.dumps([best, tok.encode(sys.argv[3]).tokens]))\n"
    )
    env = dict(os.environ, RAYON_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    out = subprocess.run([sys.executable, "-c", code, str(path), str(repeat), LINE], capture_output=True, text=True, check=True, env=env)
    seconds, tokens = json.loads(out.stdout)
    return float(seconds), list(tokens)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000, 20_000, 200_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile our load of the largest size")
    args = parser.parse_args()

    import engine
    from engine import Tokenizer

    print(f"engine compiled={engine.COMPILED}; best of {args.repeat}")
    with tempfile.TemporaryDirectory() as name:
        for n in args.sizes:
            path = write_file(Path(name), n)
            theirs, hf_tokens = hf_seconds(path, args.repeat)
            ours = best_of(args.repeat, str(path), Tokenizer.from_file)
            tokens = Tokenizer.from_file(str(path)).encode(LINE).tokens
            same = "same tokens as HF" if tokens == hf_tokens else f"DIFFERENT tokens: ours {tokens}, HF {hf_tokens}"
            print(f"{n:>8,} added tokens: HF {theirs:6.2f} s   ours {ours:6.2f} s   ours/HF {ours / theirs:5.2f}x   {same}", flush=True)
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            Tokenizer.from_file(str(write_file(Path(name), max(args.sizes))))
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
