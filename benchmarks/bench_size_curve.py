"""Time the BPE size curve (tokens at every merge count, one pass) against encoding the same
held-out text once with the full tokenizer: the curve should cost about one encoding, not one
per merge.

Trains a BPE (engine trainer, --vocab-size, byte-level unless --whitespace) on the first 90 % of
the lines of the corpus, holds out the last 10 %, checks the curve's last point against the
encoding's token count, then prints, best of --repeat: counting the held-out words, the curve on
those counts, and encoding the held-out lines with the full tokenizer.

    python benchmarks/bench_size_curve.py                  # ../shared/corpora/shakespeare.txt, 8k
    python benchmarks/bench_size_curve.py --whitespace --vocab-size 16000
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_encode import best_of  # noqa: E402  (the timing is shared)

import engine  # noqa: E402
from engine import Tokenizer, decoders, pre_tokenizers  # noqa: E402
from engine.analysis.size_curve import bpe_curve, held_out_words  # noqa: E402
from engine.models.bpe.model import BPE  # noqa: E402
from engine.models.bpe.trainer import BpeTrainer  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpora" / "shakespeare.txt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("corpus", nargs="?", type=Path, default=CORPUS)
    parser.add_argument("--vocab-size", type=int, default=8000)
    parser.add_argument("--whitespace", action="store_true", help="Whitespace pre-tokenizer instead of byte-level")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    lines = args.corpus.read_text(encoding="utf-8").split("\n")
    cut = len(lines) * 9 // 10
    training, held_out = lines[:cut], lines[cut:]
    if args.whitespace:
        tokenizer = Tokenizer(BPE(unk_token="[UNK]"))
        tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
        trainer = BpeTrainer(vocab_size=args.vocab_size, show_progress=False, special_tokens=["[UNK]"])
    else:
        tokenizer = Tokenizer(BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tokenizer.decoder = decoders.ByteLevel()
        trainer = BpeTrainer(
            vocab_size=args.vocab_size, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
        )
    started = time.perf_counter()
    tokenizer.train_from_iterator(training, trainer)
    model = tokenizer.model
    assert isinstance(model, BPE)
    print(
        f"engine compiled: {engine.COMPILED}; trained {len(model.merges):,} merges on {cut:,} lines "
        f"in {time.perf_counter() - started:.1f} s; held out {len(held_out):,} lines, "
        f"{sum(len(line) for line in held_out):,} characters"
    )

    counts, characters = held_out_words(tokenizer, held_out)
    curve = bpe_curve(tokenizer, counts, characters)
    encoded = sum(len(tokenizer.encode(line, add_special_tokens=False).ids) for line in held_out)
    assert curve.tokens[-1] == encoded, (curve.tokens[-1], encoded)
    print(
        f"{len(counts):,} distinct held-out words; curve of {len(curve.sizes):,} sizes, "
        f"{curve.tokens_per_character[0]:.3f} -> {curve.tokens_per_character[-1]:.3f} tokens/char, "
        f"knee at {curve.knee_size:,} ({curve.tokens_per_character[curve.knee_index]:.3f})"
    )

    def count() -> object:
        return held_out_words(tokenizer, held_out)

    def curve_only() -> object:
        return bpe_curve(tokenizer, counts, characters)

    saved = tokenizer.to_str()

    def encode(fresh: Tokenizer) -> object:
        return [fresh.encode(line, add_special_tokens=False) for line in held_out]

    def encode_batch(fresh: Tokenizer) -> object:
        return fresh.encode_batch_fast(held_out, add_special_tokens=False)

    t_count = best_of(args.repeat, count)
    t_curve = best_of(args.repeat, curve_only)
    t_encode = best_fresh(args.repeat, saved, encode)
    t_batch = best_fresh(args.repeat, saved, encode_batch)
    print(f"count held-out words      {t_count:8.3f} s")
    print(f"curve on the counts       {t_curve:8.3f} s")
    print(f"count + curve             {t_count + t_curve:8.3f} s")
    both = t_count + t_curve
    print(f"encode held-out (encode)  {t_encode:8.3f} s   (count + curve) / encode = {both / t_encode:.2f}")
    print(f"encode_batch_fast         {t_batch:8.3f} s   (count + curve) / encode_batch_fast = {both / t_batch:.2f}")


def best_fresh(repeat: int, saved: str, work: Callable[[Tokenizer], object]) -> float:
    """best_of for encoding: each run gets a tokenizer loaded anew (untimed), so the model's word
    cache starts empty, as the curve's does."""
    best = float("inf")
    for _ in range(repeat):
        fresh = Tokenizer.from_str(saved)
        started = time.perf_counter()
        work(fresh)
        best = min(best, time.perf_counter() - started)
    return best


if __name__ == "__main__":
    main()
