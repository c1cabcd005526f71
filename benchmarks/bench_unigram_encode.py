"""Time Unigram encoding, ours against HF `tokenizers`, in one run: one `encode` per line, offsets on.

Two tokenizers, each saved as tokenizer.json and loaded by both libraries:

  t5   the pipeline HF's SentencePiece conversion builds for T5/XLM-R (Precompiled charsmap +
       Replace(" {2,}", " "), Metaspace, a Unigram of sp_test_model.model's 1000 pieces)
  hf8k an 8000-piece Unigram trained by HF's UnigramTrainer on the corpus (Metaspace)

HF runs single-threaded (RAYON_NUM_THREADS=1, TOKENIZERS_PARALLELISM=false). Each side encodes
every line of the corpus (shakespeare.txt by default) `--repeat` times; the best pass counts.
Before timing, the encodings of the first lines are compared (ids, tokens, offsets).

    python benchmarks/bench_unigram_encode.py
    python benchmarks/bench_unigram_encode.py --repeat 1 --profile   # cProfile of our t5 pass
"""

from __future__ import annotations

import os

os.environ["RAYON_NUM_THREADS"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"

import argparse  # noqa: E402
import cProfile  # noqa: E402
import pstats  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"


def read_sp_model(path: Path) -> tuple[list[tuple[str, float]], int, bytes]:
    """(pieces with scores, unk id, precompiled charsmap) of a SentencePiece .model."""
    from engine.formats import sentencepiece_proto

    model = sentencepiece_proto.read(str(path))
    pieces = [(piece.piece, piece.score) for piece in model.pieces]
    unk_id = next((i for i, piece in enumerate(model.pieces) if piece.type == sentencepiece_proto.UNKNOWN), 0)
    return pieces, unk_id, model.normalizer_spec.precompiled_charsmap


def t5_style_json(model_path: Path) -> str:
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers

    pieces, unk_id, charsmap = read_sp_model(model_path)
    tokenizer = Tokenizer(models.Unigram(pieces, unk_id, False))
    tokenizer.normalizer = normalizers.Sequence([normalizers.Precompiled(charsmap), normalizers.Replace(Regex(" {2,}"), " ")])
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tokenizer.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    return tokenizer.to_str()


def trained_json(corpus: Path, vocab_size: int) -> str:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=["<unk>"], unk_token="<unk>", show_progress=False)
    tokenizer.train([str(corpus)], trainer)
    return tokenizer.to_str()


def time_pass(encode: object, lines: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for line in lines:
            encode(line)  # type: ignore[operator]
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=CORPORA / "shakespeare.txt")
    parser.add_argument("--sp-model", type=Path, default=CORPORA / "sp_test_model.model")
    parser.add_argument("--vocab", type=int, default=8000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile one pass of ours (t5) and print the top")
    args = parser.parse_args()

    import tokenizers

    import engine
    from engine import Tokenizer

    print(f"tokenizers {tokenizers.__version__}; engine compiled={engine.COMPILED} at {Path(engine.__file__).parent}")
    text = args.corpus.read_text(encoding="utf-8")
    lines = text.split("\n")
    megabytes = len(text.encode("utf-8")) / 1e6
    print(f"corpus {args.corpus.name}: {len(lines)} lines, {megabytes:.2f} MB; best of {args.repeat}")

    configs = [("t5", t5_style_json(args.sp_model)), (f"hf{args.vocab // 1000}k", trained_json(args.corpus, args.vocab))]
    with tempfile.TemporaryDirectory() as folder:
        for name, data in configs:
            path = Path(folder) / f"{name}.json"
            path.write_text(data, encoding="utf-8")
            theirs = tokenizers.Tokenizer.from_file(str(path))
            ours = Tokenizer.from_file(str(path))
            for line in lines[:2000]:
                a = ours.encode(line, add_special_tokens=False)
                b = theirs.encode(line, add_special_tokens=False)
                if (a.ids, a.tokens, a.offsets) != (b.ids, b.tokens, b.offsets):
                    print(f"{name}: encodings differ on {line!r}", file=sys.stderr)
                    break
            hf_seconds = time_pass(theirs.encode, lines, args.repeat)
            our_seconds = time_pass(ours.encode, lines, args.repeat)
            print(
                f"{name:5} HF {megabytes / hf_seconds:6.2f} MB/s ({hf_seconds:.2f} s)   "
                f"ours {megabytes / our_seconds:6.2f} MB/s ({our_seconds:.2f} s)   "
                f"ours/HF throughput {hf_seconds / our_seconds:.2f}x"
            )
            if args.profile and name == "t5":
                profiler = cProfile.Profile()
                profiler.enable()
                for line in lines:
                    ours.encode(line)
                profiler.disable()
                pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
