"""Time an audit of two tokenizers over everything the app ships (every declaration, the code
samples), against the bar of 5 s, beside the reference libraries encoding the same articles.

Outputs are compared first: for each tokenizer and text, our token count against HF
`tokenizers` (tokenizer.json) or `sentencepiece` (.model) on the same articles, one by one,
without special tokens; mismatches are printed. Then: our whole audit (every figure, premiums
included), best of --repeat; the reference encoding the same articles with one thread
(RAYON_NUM_THREADS=1: our audit runs on one core); and ours/reference.

    python benchmarks/bench_audit.py                     # the shared BERT tokenizer.json and SentencePiece test model
    python benchmarks/bench_audit.py -t a.json -t b.json
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")  # (before tokenizers is imported)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_encode import best_of  # noqa: E402  (the timing is shared)

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "corpora"
DEFAULTS = (SHARED / "bert_uncased_tokenizer.json", SHARED / "sp_test_model.model")
BAR_S = 5.0
# languages whose encoding time is set against the reference's, one per script or so
SAMPLE_LANGUAGES = (
    "English", "German, Standard (1996)", "Vietnamese", "Russian", "Arabic, Standard", "Hindi", "Thai",
    "Korean", "Japanese", "Chinese, Mandarin (Simplified)",
)


def reference_counter(path: Path) -> Callable[[str], int]:
    """A function article -> token count from the reference library for `path`."""
    if path.suffix == ".model":
        import sentencepiece

        processor = sentencepiece.SentencePieceProcessor(model_file=str(path))
        return lambda text: len(processor.encode(text))
    import tokenizers

    tokenizer = tokenizers.Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-t", "--tokenizer", action="append", type=Path, help="a tokenizer file (default: two shared ones)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    paths = args.tokenizer or list(DEFAULTS)

    import engine
    from engine.analysis.audit import audit
    from engine.formats import convert
    from workbench.core.audit_texts import shipped_code, shipped_languages

    texts = shipped_languages() + shipped_code()
    articles = sum(len(text.articles) for text in texts)
    characters = sum(len(body) for text in texts for body in text.articles.values())
    print(f"engine {engine.__version__}, compiled={engine.COMPILED}; {len(texts)} texts, {articles:,} articles, {characters:,} characters")
    tokenizers = [(path.name, convert.load(str(path))) for path in paths]

    costs = audit(tokenizers, texts)
    counters = {path.name: reference_counter(path) for path in paths}
    mismatches = 0
    for cost in costs:
        count = counters[cost.tokenizer]
        expected = sum(count(body) for body in cost.text.articles.values())
        if expected != cost.tokens:
            mismatches += 1
            if mismatches <= 10:
                print(f"  mismatch: {cost.tokenizer} on {cost.text.name}: ours {cost.tokens:,}, reference {expected:,}")
    print(f"token counts against the reference: {len(costs) - mismatches} of {len(costs)} equal")

    best = best_of(args.repeat, lambda: audit(tokenizers, texts))
    bodies = [body for text in texts for body in text.articles.values()]
    reference = best_of(args.repeat, lambda: [count(body) for count in counters.values() for body in bodies])
    # where the time goes: encoding one language's articles, ours against the reference
    print("encoding one language's articles, ours/reference time (best of --repeat):")
    keys = {text.name: text for text in texts}
    for name in SAMPLE_LANGUAGES:
        text = keys[name]
        bodies_of = list(text.articles.values())
        cells = []
        for label, tokenizer in tokenizers:
            ours = best_of(args.repeat, lambda: [tokenizer.encode(b, add_special_tokens=False) for b in bodies_of])
            theirs = best_of(args.repeat, lambda: [counters[label](b) for b in bodies_of])
            cells.append(f"{label} {ours / theirs:5.2f}")
        print(f"  {name:36} " + "   ".join(cells))
    verdict = "ok" if best <= BAR_S else "OVER"
    print(f"our audit of {len(paths)} tokenizers: {best:.2f} s ({verdict}, bar {BAR_S:.0f} s)")
    print(f"the references encoding the same articles (one thread): {reference:.2f} s; ours/reference {best / reference:.2f}")
    return 0 if mismatches == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
