"""Where our side of bench_peers spends its time: byte-level BPE training (the stages, and the
counting stage in its parts) and encoding per line (the word cache, a merge, the rest), measured
on whichever build runs it, so that the same script run on both builds shows what mypyc makes
fast and what it cannot.

cProfile cannot see inside compiled code, so the compiled build is timed from outside, part by
part: each part is a call into the compiled engine from a Python loop (its ~50 ns a call is
negligible next to the parts). `--cprofile` adds cProfile's top functions (meaningful on the
pure build only).

    python benchmarks/profile_peers.py                                    # compiled, as installed
    ENGINE_PURE=1 PYTHONPATH=. python benchmarks/profile_peers.py --mb 4 --text-mb 1 --cprofile

Parts:
  stages    BPE 32k training, ByteLevel(add_prefix_space=False), no initial alphabet, on the
            first --mb MB of gcide.txt in ONE process: the engine's stages (bench_train's sink)
  counting  the "reading+counting" stage taken apart, one process: counting on bytes, as the
            compiled build counts ASCII lines (`byte_words.count_lines`: GPT-2's scan and the
            native table; `WordTable.add_to`: the table made word counts); then the text path
            (the pure build's, and lines past ASCII): reading and decoding the
            file; `chunking.count_segments` (cutting lines at spaces, a str-keyed dict update a
            segment); the splitter's flush (each distinct segment through ByteLevel's
            `split_words`, a dict update a word); and, for scale, CPython's own C loop
            `collections.Counter(text.split())` over the same text, the floor of any str-keyed count
  encode    per line on the first --text-mb MB of gcide.txt with the trained tokenizer: `encode`
            and `encode_ids` with the default word cache and with one holding every distinct word;
            one BPE merge of a word (cache off) against a cache hit; and, with every word cached,
            the parts of the ASCII lines' byte path: `fast_path.byte_level_ids` (GPT-2's split on
            the bytes, the byte-keyed cache, the ids), `fast_path.byte_level_encoding` (offsets and
            word ids too, and the `Encoding`; its tokens are made when read), and the rest of
            `encode`
"""

from __future__ import annotations

import argparse
import cProfile
import collections
import gc
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_train  # noqa: E402  (the stage sink and the corpus slicer)
from bench_encode import best_of, per_line  # noqa: E402  (a pass timed best of n; a call per line)

import engine  # noqa: E402
from engine import models, pre_tokenizers, trainers  # noqa: E402
from engine.corpus import byte_words, chunking  # noqa: E402
from engine.corpus.counting import PipelineWords  # noqa: E402
from engine import fast_path, input_sequence  # noqa: E402
from engine.tokenizer import Tokenizer  # noqa: E402

CORPUS = bench_train.ROOT.parent / "shared" / "corpora" / "gcide.txt"
BIG_CACHE = 10_000_000


def profiled(work: Callable[[], object], top: int) -> None:
    profile = cProfile.Profile()
    profile.enable()
    work()
    profile.disable()
    pstats.Stats(profile).sort_stats("tottime").print_stats(top)


def train(corpus: Path, cprofile: bool) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=32000, show_progress=False)
    sink = bench_train._stage_sink(-1)
    started = time.perf_counter()
    if cprofile:
        profiled(lambda: tokenizer.train([str(corpus)], trainer, progress=sink, processes=1), 25)
    else:
        tokenizer.train([str(corpus)], trainer, progress=sink, processes=1)
    ended = time.perf_counter()
    stages = bench_train._stage_seconds(sink.starts, started, sink.last, ended)
    parts = " | ".join(f"{bench_train.STAGE_LABELS.get(stage, stage.lower())} {seconds:.2f} s" for stage, seconds in stages)
    print(f"stages, one process ({ended - started:.2f} s): {parts}")
    return tokenizer


def counting(corpus: Path) -> None:
    data = corpus.read_bytes()
    scan = byte_words.ByteScan(True, False, byte_words.GPT2_CLASSES, False)
    table = byte_words.WordTable()
    scanned = best_of(1, lambda: byte_words.count_lines(data, table, scan))
    table_words = len(table)
    on_bytes: dict[str, int] = {}
    added = best_of(1, lambda: table.add_to(on_bytes))
    print(
        f"counting on bytes, one process, {len(data) / 1e6:.1f} MB: count_lines {scanned:.2f} s"
        f" ({table_words:,} distinct words) | add_to {added:.2f} s"
    )
    started = time.perf_counter()
    text = corpus.read_bytes().decode("utf-8")
    read = time.perf_counter() - started
    splitter = PipelineWords(None, pre_tokenizers.ByteLevel(add_prefix_space=False), on_bytes=False)
    leading: dict[str, int] = {}
    spaced: dict[str, int] = {}
    segments = best_of(1, lambda: chunking.count_segments(text, True, leading, spaced))
    splitter.pending_leading = leading
    splitter.pending = spaced
    counts: dict[str, int] = {}
    distinct = len(leading) + len(spaced)
    flush = best_of(1, lambda: splitter.flush(counts))
    floor = best_of(1, lambda: collections.Counter(text.split()))
    megabytes = len(text) / 1e6
    print(
        f"counting as text, one process, {megabytes:.1f} MB: read+decode {read:.2f} s | count_segments {segments:.2f} s"
        f" ({distinct:,} distinct segments) | flush: split_words of each, count words {flush:.2f} s"
        f" ({len(counts):,} distinct words)\n"
        f"  for scale: Counter(text.split()) (CPython's C loop, no pre-tokenizer) {floor:.2f} s"
    )


def encoding(tokenizer: Tokenizer, text_path: Path, cprofile: bool) -> None:
    lines = text_path.read_text(encoding="utf-8").split("\n")
    megabytes = text_path.stat().st_size / 1e6
    saved = tokenizer.to_str()
    words: list[str] = []
    seen: set[str] = set()
    for line in lines:
        for word in pre_tokenizers.ByteLevel(add_prefix_space=False).split_words(line):
            if word not in seen:
                seen.add(word)
                words.append(word)
    total = sum(len(pre_tokenizers.ByteLevel(add_prefix_space=False).split_words(line)) for line in lines)
    print(f"encode per line, {megabytes:.1f} MB, {len(lines):,} lines, {total:,} words, {len(words):,} distinct")

    def over_lines(call: Callable[[str], object]) -> Callable[[], object]:
        return per_line(call, lines)

    for capacity in (0, BIG_CACHE):
        fresh = Tokenizer.from_str(saved)
        label = "default cache" if capacity == 0 else "cache of every word"
        if capacity:
            fresh.model._resize_cache(capacity)
            over_lines(fresh.encode_ids)()  # fill it
        seconds_encode = best_of(3, over_lines(fresh.encode))
        seconds_ids = best_of(3, over_lines(fresh.encode_ids))
        print(f"  {label:20} encode {seconds_encode:.2f} s ({megabytes / seconds_encode:.2f} MB/s)"
              f" | encode_ids {seconds_ids:.2f} s ({megabytes / seconds_ids:.2f} MB/s)")
    model = Tokenizer.from_str(saved).model
    model._resize_cache(0)
    # (word_run: the cached form the fast path reads; tokenize_run copies it into a TokenRun)
    miss = best_of(2, per_line(model.word_run, words))
    model._resize_cache(BIG_CACHE)
    per_line(model.word_run, words)()
    hit = best_of(3, per_line(model.word_run, words))
    print(f"  one word: BPE merge (cache off) {miss / len(words) * 1e6:.2f} us | cache hit {hit / len(words) * 1e6:.3f} us")
    cached = Tokenizer.from_str(saved)
    cached.model._resize_cache(BIG_CACHE)
    for _ in range(2):  # (a word goes into the byte-keyed cache when missed a second time)
        over_lines(cached.encode_ids)()
    added, normalizer, pre_tokenizer, bpe = cached._added, cached._normalizer, cached._pre_tokenizer, cached.model
    if not all(fast_path.byte_level_split(line, added, normalizer, pre_tokenizer, bpe) != fast_path.NO_SPLIT for line in lines if line.isascii()):
        print("  (the ASCII byte path does not apply to this tokenizer: no parts)")
        return

    def ascii_lines(call: Callable[[str], object]) -> Callable[[], object]:
        return per_line(call, [line for line in lines if line.isascii()])

    # subtle: each part is timed with the collector off, as is the whole it is set against
    # (the parts build what the whole frees line by line, but a part's loop may keep more).
    gc.disable()
    try:
        ids_s = best_of(3, ascii_lines(lambda line: fast_path.byte_level_ids(line, bpe)))
        lists_s = best_of(3, ascii_lines(lambda line: fast_path.byte_level_encoding(line, bpe, -1, 0)))
        piece_s = best_of(
            3, ascii_lines(lambda line: input_sequence.encode_piece(line, 0, -1, False, added, normalizer, pre_tokenizer, bpe))
        )
        whole = best_of(3, ascii_lines(cached.encode))
        read_s = best_of(3, ascii_lines(lambda line: cached.encode(line).tokens))
    finally:
        gc.enable()
    print(f"  parts of encode per ASCII line with every word cached (collector off): scan, cache and ids"
          f" (`byte_level_ids`) {ids_s:.2f} s | + offsets, word ids and the Encoding (`byte_level_encoding`) {lists_s - ids_s:.2f} s"
          f" | + the checks of `encode_piece` {piece_s - lists_s:.2f} s | + the rest (checks, post-processing, calls)"
          f" {whole - piece_s:.2f} s | whole {whole:.2f} s | its tokens read {read_s - whole:.2f} s more")
    if cprofile:
        fresh = Tokenizer.from_str(saved)
        print("cProfile of encode per line, default cache:")
        profiled(over_lines(fresh.encode), 20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=40.0, help="train on the first MB of gcide.txt")
    parser.add_argument("--text-mb", type=float, default=11.0, help="encode the first MB of gcide.txt")
    parser.add_argument("--parts", default="stages,counting,encode")
    parser.add_argument("--cprofile", action="store_true", help="also print cProfile's top functions (pure build)")
    args = parser.parse_args()
    parts = args.parts.split(",")
    print(f"engine compiled={engine.COMPILED} at {Path(engine.__file__).parent}")
    with tempfile.TemporaryDirectory(prefix="profile-peers-") as tmp:
        corpus = bench_train._slice_corpus(CORPUS, args.mb, Path(tmp))
        text = bench_train._slice_corpus(CORPUS, args.text_mb, Path(tmp))
        if "counting" in parts:
            counting(corpus)
        if "stages" in parts or "encode" in parts:
            tokenizer = train(corpus, args.cprofile)
            if "encode" in parts:
                encoding(tokenizer, text, args.cprofile)


if __name__ == "__main__":
    main()
