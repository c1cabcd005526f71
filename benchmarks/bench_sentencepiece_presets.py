"""The SentencePiece presets against `sentencepiece` itself, trained on the same lines with the
same vocabulary size: the share of sentencepiece's pieces ours also has, held-out tokens per
character under each, and the training time (issue 23: "aim for the same pieces").

Each corpus is cut into lines; every tenth line is held out. sentencepiece trains with its
defaults (nmt_nfkc, character_coverage 0.9995, split_by_unicode_script, split_by_number,
max_sentence_length 4192, ...), and so does the preset (`SentencePieceTrainer`, whose defaults
are sentencepiece's). Outputs are compared first: the preset's own model, written as `.model`,
must encode the held-out lines as sentencepiece encodes them with that file.

    python benchmarks/bench_sentencepiece_presets.py                 # both presets, vocabulary 4000
    python benchmarks/bench_sentencepiece_presets.py --vocab-size 8000 --model unigram
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"
NAMES = ("botchan.txt", "shakespeare.txt", "wagahaiwa_nekodearu.txt")


def split(path: Path) -> tuple[list[str], list[str]]:
    """(training lines, held-out lines: every tenth), blank lines left out."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [line for k, line in enumerate(lines) if k % 10 != 9], [line for k, line in enumerate(lines) if k % 10 == 9]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab-size", type=int, default=4000)
    parser.add_argument("--model", choices=("unigram", "bpe", "both"), default="both")
    args = parser.parse_args()

    import sentencepiece as spm

    import engine
    from engine.formats import sentencepiece as spf
    from workbench.core.presets import build

    print(f"engine {engine.__version__}, compiled={engine.COMPILED}; sentencepiece {spm.__version__}; vocabulary {args.vocab_size:,}")
    models = ("unigram", "bpe") if args.model == "both" else (args.model,)
    failed = False
    for name in NAMES:
        path = CORPORA / name
        if not path.is_file():
            print(f"{name}: not found at {path}, skipped")
            continue
        training, held = split(path)
        characters = sum(len(line) for line in held)
        print(f"\n{name}: {len(training):,} lines to train on, {len(held):,} held out ({characters:,} characters)")
        for model in models:
            with tempfile.TemporaryDirectory() as folder:
                source = Path(folder) / "train.txt"
                source.write_text("\n".join(training) + "\n", encoding="utf-8")
                started = time.perf_counter()
                spm.SentencePieceTrainer.train(
                    input=str(source), model_prefix=str(Path(folder) / "spm"), vocab_size=args.vocab_size,
                    model_type=model, minloglevel=2, num_threads=1,
                )  # fmt: skip
                spm_seconds = time.perf_counter() - started
                theirs = spm.SentencePieceProcessor(model_file=str(Path(folder) / "spm.model"))
                tokenizer, trainer = build(f"sentencepiece-{model}", vocab_size=args.vocab_size)
                trainer.show_progress = False
                started = time.perf_counter()
                tokenizer.train([str(source)], trainer)
                our_seconds = time.perf_counter() - started
                out = Path(folder) / "ours.model"
                spf.write(tokenizer, str(out))
                written = spm.SentencePieceProcessor(model_file=str(out))
                differ = sum(1 for line in held if written.encode(line) != tokenizer.encode(line, add_special_tokens=False).ids)
                failed = failed or differ > 0
                their_pieces = {theirs.id_to_piece(i) for i in range(theirs.get_piece_size())}
                our_pieces = set(tokenizer.get_vocab())
                common = len(their_pieces & our_pieces)
                their_tokens = sum(len(theirs.encode(line)) for line in held)
                our_tokens = sum(len(tokenizer.encode(line, add_special_tokens=False).ids) for line in held)
                print(
                    f"  {model:8} ours as .model in sentencepiece: {len(held) - differ:,} of {len(held):,} held-out lines identical\n"
                    f"           pieces: ours {len(our_pieces):,}, sentencepiece's {len(their_pieces):,}, in common {common:,} "
                    f"({common / len(their_pieces):.1%} of sentencepiece's)\n"
                    f"           held-out tokens per character: ours {our_tokens / characters:.4f}, sentencepiece {their_tokens / characters:.4f} "
                    f"(ours/theirs {our_tokens / max(their_tokens, 1):.3f})\n"
                    f"           training: ours {our_seconds:.2f} s, sentencepiece {spm_seconds:.2f} s (one thread)"
                )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
