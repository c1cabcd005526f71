"""Time Unigram training at vocabulary 8000, ours against sentencepiece and HF `tokenizers`, in
one run: shakespeare.txt and wagahaiwa_nekodearu.txt (shared corpora), `--repeat` runs each (the
median is printed), ratios printed.

Each library runs with its own defaults (sentencepiece: num_threads=16, character_coverage 0.9995,
script/number splitting, nmt_nfkc; HF and ours: Metaspace pre-tokenizer, UnigramTrainer()
defaults), fed the same lines (no newlines). sentencepiece is also timed with the settings of the
quality test (tests/parity/test_unigram_training_quality.py), which keep every character and line.

    python benchmarks/bench_unigram_train.py            # the compiled engine, as installed
    python benchmarks/bench_unigram_train.py --allow-pure
    python benchmarks/bench_unigram_train.py --repeat 5  # medians of 5 (a busy machine varies)
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"
NAMES = ("shakespeare.txt", "wagahaiwa_nekodearu.txt")
VOCAB_SIZE = 8000
SAME_AS_QUALITY_TEST = dict(
    character_coverage=1.0, split_by_unicode_script=False, split_by_number=False,
    max_sentence_length=1 << 20, normalization_rule_name="identity",
)


def time_ours(lines: list[str]) -> tuple[float, int]:
    from engine import Tokenizer, models, pre_tokenizers
    from engine.models.unigram.trainer import UnigramTrainer

    tokenizer = Tokenizer(models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    started = time.perf_counter()
    tokenizer.train_from_iterator(lines, UnigramTrainer(vocab_size=VOCAB_SIZE, show_progress=False))
    return time.perf_counter() - started, tokenizer.get_vocab_size()


def time_hf(lines: list[str]) -> tuple[float, int]:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    started = time.perf_counter()
    tokenizer.train_from_iterator(lines, trainers.UnigramTrainer(vocab_size=VOCAB_SIZE, show_progress=False))
    return time.perf_counter() - started, tokenizer.get_vocab_size()


def time_spm(lines: list[str], folder: Path, **options: object) -> tuple[float, int]:
    import sentencepiece as spm

    source = folder / "train.txt"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    started = time.perf_counter()
    spm.SentencePieceTrainer.train(
        input=str(source), model_prefix=str(folder / "spm"), vocab_size=VOCAB_SIZE, model_type="unigram",
        minloglevel=2, **options,
    )
    seconds = time.perf_counter() - started
    return seconds, spm.SentencePieceProcessor(model_file=str(folder / "spm.model")).get_piece_size()


def median(runs: list[tuple[float, int]]) -> tuple[float, int]:
    return statistics.median([seconds for seconds, _ in runs]), runs[-1][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--allow-pure", action="store_true", help="run on the pure-Python engine too")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each library; the median is printed")
    args = parser.parse_args()
    import engine

    if not engine.COMPILED and not args.allow_pure:
        sys.exit("the engine is the pure-Python build; install the compiled one or pass --allow-pure")
    print(f"engine {engine.__version__} compiled={engine.COMPILED}; each library with its defaults")
    for name in NAMES:
        path = CORPORA / name
        if not path.is_file():
            print(f"{name}: not found at {path}, skipped")
            continue
        lines = [line for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
        runs: dict[str, list[tuple[float, int]]] = {"default": [], "same": [], "hf": [], "ours": []}
        for _ in range(max(args.repeat, 1)):
            with tempfile.TemporaryDirectory() as folder:
                runs["default"].append(time_spm(lines, Path(folder)))
                runs["same"].append(time_spm(lines, Path(folder), **SAME_AS_QUALITY_TEST))
            gc.collect()
            runs["hf"].append(time_hf(lines))
            gc.collect()
            runs["ours"].append(time_ours(lines))
        spm_default, spm_same, hf, ours = (median(runs[key]) for key in ("default", "same", "hf", "ours"))
        print(f"\n{name} ({len(lines):,} lines), vocabulary {VOCAB_SIZE}:")
        print(f"  ours                          {ours[0]:7.2f} s  ({ours[1]} pieces)")
        print(f"  sentencepiece, defaults       {spm_default[0]:7.2f} s  ({spm_default[1]} pieces)  ours/spm {ours[0] / spm_default[0]:5.2f}x")
        print(f"  sentencepiece, quality-test   {spm_same[0]:7.2f} s  ({spm_same[1]} pieces)  ours/spm {ours[0] / spm_same[0]:5.2f}x")
        print(f"  HF tokenizers UnigramTrainer  {hf[0]:7.2f} s  ({hf[1]} pieces)  ours/hf  {ours[0] / hf[0]:5.2f}x")


if __name__ == "__main__":
    main()
