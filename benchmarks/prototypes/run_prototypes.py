"""Compile the prototypes with mypyc and set them against the installed engine: same output
first, then times (issue 25's profile, benchmarks/peers.md).

    python benchmarks/prototypes/run_prototypes.py                      # mypyc from PATH
    python benchmarks/prototypes/run_prototypes.py --mypyc ../venv-pure/bin/mypyc

segment_counter: the segments of the first --mb MB of gcide.txt, against the engine's
`chunking.count_segments` (and, for scale, CPython's `Counter(text.split())`), best of 3 each.
native_merge: every distinct word of the first --text-mb MB, against the engine's BPE model with
its cache off; the tokenizer is trained here (ours, byte-level BPE 32k, on the first --mb MB).
"""

from __future__ import annotations

import argparse
import collections
import gc
import importlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent.parent / "shared" / "corpora" / "gcide.txt"


def head(megabytes: float) -> bytes:
    data = CORPUS.read_bytes()[: int(megabytes * 1e6)]
    return data[: data.rfind(b"\n") + 1]


def compile_prototypes(mypyc: str, folder: Path) -> None:
    for name in ("segment_counter.py", "native_merge.py"):
        shutil.copy(HERE / name, folder / name)
    subprocess.run([mypyc, "segment_counter.py", "native_merge.py"], cwd=folder, check=True, capture_output=True)
    sys.path.insert(0, str(folder))


def segments(megabytes: float) -> None:
    from engine.corpus import chunking

    counter = importlib.import_module("segment_counter")
    data = head(megabytes)
    text = data.decode("utf-8")
    found: dict[bytes, int] = {}
    leading: dict[str, int] = {}
    spaced: dict[str, int] = {}
    native = engine_s = floor = float("inf")
    # (best of 3, the collector off, as the engine's counting runs)
    gc.disable()
    try:
        for _ in range(3):
            started = time.perf_counter()
            found = counter.count_segments_bytes(data)
            native = min(native, time.perf_counter() - started)
            leading, spaced = {}, {}
            started = time.perf_counter()
            chunking.count_segments(text, True, leading, spaced)
            engine_s = min(engine_s, time.perf_counter() - started)
            started = time.perf_counter()
            collections.Counter(text.split())
            floor = min(floor, time.perf_counter() - started)
    finally:
        gc.enable()
    expected = {key.encode(): count for key, count in leading.items()}
    for key, count in spaced.items():
        spaced_key = (" " + key).encode()
        expected[spaced_key] = expected.get(spaced_key, 0) + count
    same = "identical" if expected == found else "DIFFERENT"
    print(f"segments of {len(data) / 1e6:.1f} MB: {same} ({len(found):,} distinct)\n"
          f"  native bytes loop {native:.2f} s | engine count_segments {engine_s:.2f} s | Counter(text.split()) {floor:.2f} s")


def merges(megabytes: float, text_megabytes: float, folder: Path) -> None:
    from engine import models, pre_tokenizers, trainers
    from engine.tokenizer import Tokenizer

    merge = importlib.import_module("native_merge")
    corpus = folder / "train.txt"
    corpus.write_bytes(head(megabytes))
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.train([str(corpus)], trainers.BpeTrainer(vocab_size=32000, show_progress=False))
    model_json = json.loads(tokenizer.to_str())["model"]
    vocab = model_json["vocab"]
    pairs, new_ids = [], []
    for pair in model_json["merges"]:
        left, right = pair if isinstance(pair, list) else pair.split(" ", 1)
        pairs.append((vocab[left], vocab[right]))
        new_ids.append(vocab[left + right])
    merger = merge.Merger(pairs, new_ids, {ord(token): i for token, i in vocab.items() if len(token) == 1}, 1 << 20)
    split = pre_tokenizers.ByteLevel(add_prefix_space=False)
    words = list(dict.fromkeys(w for line in head(text_megabytes).decode().split("\n") for w in split.split_words(line)))
    model = tokenizer.model
    model._resize_cache(0)
    differ = sum(1 for word in words if merger.merge(word) != model.tokenize_run(word).ids)
    best_native = best_engine = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for word in words:
            merger.merge(word)
        best_native = min(best_native, time.perf_counter() - started)
        started = time.perf_counter()
        for word in words:
            model.tokenize_run(word)
        best_engine = min(best_engine, time.perf_counter() - started)
    print(f"merges of {len(words):,} distinct words: {'identical ids' if differ == 0 else f'{differ} words DIFFER'}\n"
          f"  native merge {best_native / len(words) * 1e6:.2f} us a word | engine tokenize_run, cache off"
          f" {best_engine / len(words) * 1e6:.2f} us (it also builds the tokens and offsets)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mypyc", default=shutil.which("mypyc") or "mypyc")
    parser.add_argument("--mb", type=float, default=40.0)
    parser.add_argument("--text-mb", type=float, default=11.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="prototypes-") as tmp:
        folder = Path(tmp)
        compile_prototypes(args.mypyc, folder)
        segments(args.mb)
        merges(args.mb, args.text_mb, folder)


if __name__ == "__main__":
    main()
