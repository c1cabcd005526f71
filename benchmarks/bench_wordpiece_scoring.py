"""The three WordPiece scorings and HF's WordPieceTrainer on the same lines, side by side: held-out
characters per token and training time (issue 24: "the BERT preset's default gives held-out
compression within 5 % of HF's WordPieceTrainer at the same size").

Each trains the BERT preset's pipeline (BertNormalizer with lowercasing, BertPreTokenizer) at the
same vocabulary size on the first lines of the file, and is measured on its last lines:
characters of those lines per token, special tokens left out. Outputs are compared first: each of
our tokenizers, read by HF `tokenizers`, must encode every held-out line as ours does; and our
"frequency" vocabulary is HF's but for the ties HF breaks in hash order (HF issue #1794).

    python benchmarks/bench_wordpiece_scoring.py                       # shakespeare, 36,000 + 4,000 lines, 8k
    python benchmarks/bench_wordpiece_scoring.py corpus.txt --vocab-size 30000 --train-lines 0 --held-out-lines 2000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "shakespeare.txt"
SCORINGS = ("likelihood", "likelihood_gain", "frequency")
NAMES = {
    "likelihood": "ratio (\"likelihood\")",
    "likelihood_gain": "likelihood gain",
    "frequency": "frequency",
    "hf": "HF WordPieceTrainer",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS), help="a text file (default: the shared shakespeare.txt)")
    parser.add_argument("--vocab-size", type=int, default=8000)
    parser.add_argument("--min-frequency", type=int, default=0, help="the BERT preset's is 0")
    parser.add_argument("--train-lines", type=int, default=36000, help="train on the first N lines (0: all but the held-out ones)")
    parser.add_argument("--held-out-lines", type=int, default=4000, help="measure on the last N lines")
    args = parser.parse_args()

    import tokenizers

    import engine
    from engine.trainers import WordPieceTrainer
    from workbench.core import presets

    path = Path(args.corpus)
    if not path.is_file():
        print(f"{path}: not found")
        return 2
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and not lines[-1]:
        lines.pop()  # (the newline that ends the last line)
    held = lines[len(lines) - args.held_out_lines :] if args.held_out_lines > 0 else []
    train = lines[: len(lines) - len(held)]
    if args.train_lines > 0:
        train = train[: args.train_lines]
    characters = sum(len(line) for line in held)
    if not train or not characters:
        print(f"{path}: too few lines to train on {args.train_lines:,} and measure on {args.held_out_lines:,}")
        return 2
    print(
        f"engine {engine.__version__}, compiled={engine.COMPILED}; tokenizers {tokenizers.__version__}\n"
        f"{path.name}: trained on {len(train):,} lines, measured on the last {len(held):,} "
        f"({characters:,} characters); vocabulary {args.vocab_size:,}, min_frequency {args.min_frequency}"
    )

    rows: dict[str, tuple[int, float, float]] = {}  # name -> (vocabulary, characters per token, seconds)
    vocabularies: dict[str, dict[str, int]] = {}
    failed = False
    special: list[str] = []
    for scoring in SCORINGS:
        tokenizer, trainer = presets.build("bert", vocab_size=args.vocab_size, min_frequency=args.min_frequency)
        assert isinstance(trainer, WordPieceTrainer)
        trainer.scoring = scoring
        trainer.show_progress = False
        special = [token.content for token in trainer.special_tokens]
        began = time.perf_counter()
        tokenizer.train_from_iterator(train, trainer)
        seconds = time.perf_counter() - began
        ours = [tokenizer.encode(line, add_special_tokens=False).ids for line in held]
        read = tokenizers.Tokenizer.from_str(tokenizer.to_str())
        theirs = [read.encode(line, add_special_tokens=False).ids for line in held]
        differ = sum(1 for mine, hf in zip(ours, theirs) if mine != hf)
        if differ:
            failed = True
            print(f"  {NAMES[scoring]}: read by HF, {differ:,} of {len(held):,} held-out lines encode differently")
        rows[scoring] = (tokenizer.get_vocab_size(), characters / max(sum(len(ids) for ids in ours), 1), seconds)
        vocabularies[scoring] = tokenizer.get_vocab()

    untrained, _ = presets.build("bert", vocab_size=args.vocab_size)
    hf = tokenizers.Tokenizer.from_str(untrained.to_str())
    hf_trainer = tokenizers.trainers.WordPieceTrainer(
        vocab_size=args.vocab_size, min_frequency=args.min_frequency, special_tokens=special, show_progress=False
    )
    began = time.perf_counter()
    hf.train_from_iterator(train, hf_trainer)
    seconds = time.perf_counter() - began
    hf_tokens = sum(len(hf.encode(line, add_special_tokens=False).ids) for line in held)
    rows["hf"] = (hf.get_vocab_size(), characters / max(hf_tokens, 1), seconds)
    common = len(set(vocabularies["frequency"]) & set(hf.get_vocab()))
    print(
        f"  frequency against HF's WordPieceTrainer: {common:,} of {hf.get_vocab_size():,} tokens in common "
        "(the rest: pairs tied in count, which HF orders by hash)"
    )

    hf_cpt, hf_seconds = rows["hf"][1], rows["hf"][2]
    print(f"\n  {'scoring':24} {'vocab':>7} {'chars/token':>12} {'/ HF':>7} {'train s':>9} {'/ HF':>7}")
    for name in (*SCORINGS, "hf"):
        size, cpt, took = rows[name]
        print(f"  {NAMES[name]:24} {size:>7,} {cpt:>12.3f} {cpt / hf_cpt:>7.3f} {took:>9.2f} {took / hf_seconds:>7.2f}")
    _, preset_trainer = presets.build("bert", vocab_size=args.vocab_size)
    chosen = str(preset_trainer.to_dict()["scoring"])
    share = rows[chosen][1] / hf_cpt
    verdict = "within" if share >= 0.95 else "NOT within"
    print(f"\n  the BERT preset trains by {NAMES[chosen]}: {share:.1%} of HF's characters per token, {verdict} 5 %")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
