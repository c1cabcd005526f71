"""Time encoding, ours against HF `tokenizers` (and tiktoken for the ids-only path), in one run.

Tokenizers, each a tokenizer.json that both libraries load:

  ws    Whitespace BPE, vocab 30000, trained by HF on the first --train-mb MB of gcide.txt
  bl    ByteLevel BPE, vocab 32000, trained the same way
  cl    the same BPE behind cl100k's pre-tokenizer: Split(Regex(cl100k's pattern)) then ByteLevel without
        its regex, as GPT-4- and Llama-3-style tokenizer.json files are; the user regex runs under the
        engine's time bound (engine.pattern), so this is where its cost shows
  bert  the real BERT uncased file in ../shared/corpora

Measurements, each printed as MB/s on both sides and ours/HF throughput:

  line   one `encode` per line of --text (full Encodings: ids, tokens, offsets), both single-threaded
  batch  `encode_batch` over all lines: HF with its default threads, ours with its default processes
  long   one `encode` of a single line of >= --long-chars characters (the text's lines joined by spaces),
         at full and at half length so the ratio shows whether the time is linear in the length,
         and the time per character at 1/8 to 4 times --long-chars on both sides (a cost per
         character that levels off is linear; a step is the memory caches filling up)
  ids    (bl only) our ids-only path `encode_ids` per line against tiktoken's single-threaded
         `encode_ordinary` on an Encoding built from our tiktoken export of the same merges

Before timing, the encodings of the first lines are compared (ids, tokens, offsets), and the ids-only
path is compared with tiktoken's ids. HF's per-line and long passes run with RAYON_NUM_THREADS=1 in a
child process; its batch pass runs in another child with default threads.

    python benchmarks/bench_encode.py                  # everything (about two minutes)
    python benchmarks/bench_encode.py --only bl --profile line   # cProfile of our per-line pass
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
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"
CONFIGS = ("ws", "bl", "cl", "bert")
# cl100k's pre-tokenizer pattern (tiktoken), as a Split regex.
CL100K = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
# The long line's lengths for the cost per character, as multiples of --long-chars.
SCALES = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0)


# -- building the tokenizers (with HF, so both sides load HF's files) ----------------------


def train_head(corpus: Path, megabytes: float, folder: Path) -> Path:
    head = folder / "train.txt"
    with corpus.open("rb") as source:
        data = source.read(int(megabytes * 1e6))
    head.write_bytes(data[: data.rfind(b"\n") + 1])
    return head


def build(config: str, head: Path, folder: Path) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    path = folder / f"{config}.json"
    if config == "bert":
        path.write_bytes((CORPORA / "bert_uncased_tokenizer.json").read_bytes())
        return path
    if config == "ws":
        tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
        tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
        trainer = trainers.BpeTrainer(vocab_size=30000, special_tokens=["[UNK]", "[PAD]"], show_progress=False)
    else:
        tokenizer = Tokenizer(models.BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        if config == "cl":
            from tokenizers import Regex

            tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
                [pre_tokenizers.Split(Regex(CL100K), "isolated"), pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
            )
        tokenizer.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=32000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
        )
    tokenizer.train([str(head)], trainer)
    tokenizer.save(str(path))
    return path


# -- timing ----------------------------------------------------------------------------------


def best_of(repeat: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def per_line(encode: Callable[[str], object], lines: list[str]) -> Callable[[], object]:
    def work() -> None:
        for line in lines:
            encode(line)

    return work


def hf_child(path: str, text_path: str, long_chars: int, repeat: int, threads: bool, out: str) -> None:
    """HF's timings for one tokenizer, in a process whose thread setting was fixed before import."""
    import tokenizers

    tokenizer = tokenizers.Tokenizer.from_file(path)
    lines = Path(text_path).read_text(encoding="utf-8").split("\n")
    result: dict[str, float] = {}
    if threads:
        result["batch"] = best_of(repeat, lambda: tokenizer.encode_batch(lines))
    else:
        long_text = long_line(lines, long_chars)
        result["line"] = best_of(repeat, per_line(tokenizer.encode, lines))
        result["long"] = best_of(repeat, lambda: tokenizer.encode(long_text))
        result["long_half"] = best_of(repeat, lambda: tokenizer.encode(long_text[: len(long_text) // 2]))
        for chars, text in scaled_lines(lines, long_chars):
            result[f"scale{chars}"] = best_of(repeat, lambda: tokenizer.encode(text))
    Path(out).write_text(json.dumps(result))


def run_hf(path: Path, text: Path, long_chars: int, repeat: int, threads: bool, folder: Path) -> dict[str, float]:
    out = folder / f"hf-{path.stem}-{threads}.json"
    env = dict(os.environ)
    env["TOKENIZERS_PARALLELISM"] = "true" if threads else "false"
    if threads:
        env.pop("RAYON_NUM_THREADS", None)
    else:
        env["RAYON_NUM_THREADS"] = "1"
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import bench_encode as b; "
        "b.hf_child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == '1', sys.argv[7])"
    )
    args = [str(ROOT / "benchmarks"), str(path), str(text), str(long_chars), str(repeat), "1" if threads else "0", str(out)]
    subprocess.run([sys.executable, "-c", code, *args], check=True, cwd=folder, env=env)
    result: dict[str, float] = json.loads(out.read_text())
    return result


def scaled_lines(lines: list[str], long_chars: int) -> list[tuple[int, str]]:
    """(length, line) at each of SCALES times `long_chars`."""
    longest = long_line(lines, int(long_chars * SCALES[-1]))
    return [(int(long_chars * scale), longest[: int(long_chars * scale)]) for scale in SCALES]


def long_line(lines: list[str], chars: int) -> str:
    joined = " ".join(line for line in lines if line)
    while len(joined) < chars:
        joined = joined + " " + joined
    return joined[:chars]


def check_same(ours: object, theirs: object, lines: list[str], name: str) -> None:
    for line in lines[:3000]:
        a = ours.encode(line)  # type: ignore[attr-defined]
        b = theirs.encode(line)  # type: ignore[attr-defined]
        if (a.ids, a.tokens, a.offsets) != (b.ids, b.tokens, b.offsets):
            raise SystemExit(f"{name}: encodings differ from HF's on {line!r}")


def report(name: str, what: str, megabytes: float, theirs: float, ours: float, label: str = "HF") -> None:
    print(
        f"{name:5} {what:6} {label} {megabytes / theirs:7.2f} MB/s ({theirs:6.3f} s)   "
        f"ours {megabytes / ours:7.2f} MB/s ({ours:6.3f} s)   ours/{label} {theirs / ours:5.2f}x",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=CORPORA / "gcide.txt", help="training text for ws and bl")
    parser.add_argument("--train-mb", type=float, default=10.0)
    parser.add_argument("--text", type=Path, default=CORPORA / "shakespeare.txt", help="the text encoded")
    parser.add_argument("--long-chars", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=CONFIGS, action="append")
    parser.add_argument("--profile", choices=("line", "long", "ids"), help="cProfile one pass of ours and print the top")
    args = parser.parse_args()

    import engine
    from engine import Tokenizer

    print(f"engine compiled={engine.COMPILED} at {Path(engine.__file__).parent}; text {args.text.name}; best of {args.repeat}")
    if not engine.COMPILED:
        print("warning: the pure-Python engine is running; install the compiled one (pip install .)", file=sys.stderr)
    text = args.text.read_text(encoding="utf-8")
    lines = text.split("\n")
    megabytes = len(text.encode("utf-8")) / 1e6
    long_text = long_line(lines, args.long_chars)
    long_mb = len(long_text.encode("utf-8")) / 1e6
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        head = train_head(args.corpus, args.train_mb, folder)
        for config in args.only or CONFIGS:
            path = build(config, head, folder)
            import tokenizers

            check_same(Tokenizer.from_file(str(path)), tokenizers.Tokenizer.from_file(str(path)), lines, config)
            ours = Tokenizer.from_file(str(path))
            single = run_hf(path, args.text, args.long_chars, args.repeat, False, folder)
            threaded = run_hf(path, args.text, args.long_chars, args.repeat, True, folder)
            if args.profile is not None:
                profile(ours, args.profile, lines, long_text)
            report(config, "line", megabytes, single["line"], best_of(args.repeat, per_line(ours.encode, lines)))
            report(config, "batch", megabytes, threaded["batch"], best_of(args.repeat, lambda: ours.encode_batch(lines)))
            full = best_of(args.repeat, lambda: ours.encode(long_text))
            half = best_of(args.repeat, lambda: ours.encode(long_text[: len(long_text) // 2]))
            report(config, "long", long_mb, single["long"], full)
            print(f"{'':5} {'':6} full/half length time: HF {single['long'] / single['long_half']:.2f}, ours {full / half:.2f}")
            scaling(ours, single, lines, args.long_chars, args.repeat)
            if config == "bl":
                ids_pass(ours, path, lines, megabytes, args.repeat, folder)


def scaling(ours: object, single: dict[str, float], lines: list[str], long_chars: int, repeat: int) -> None:
    """Print the long line's cost per character at each length, HF's and ours."""
    theirs: list[str] = []
    mine: list[str] = []
    sizes: list[str] = []
    worst = float("inf")
    for chars, text in scaled_lines(lines, long_chars):
        seconds = best_of(repeat, lambda: ours.encode(text))  # type: ignore[attr-defined]
        sizes.append(f"{chars // 1000}k")
        theirs.append(f"{single[f'scale{chars}'] / chars * 1e9:.0f}")
        mine.append(f"{seconds / chars * 1e9:.0f}")
        worst = min(worst, single[f"scale{chars}"] / seconds)
    print(f"{'':5} {'':6} ns per char at {' '.join(sizes)} chars: HF {' '.join(theirs)}, ours {' '.join(mine)}")
    print(f"{'':5} {'':6} lowest ours/HF over those lengths {worst:.2f}x")


def ids_pass(ours: object, path: Path, lines: list[str], megabytes: float, repeat: int, folder: Path) -> None:
    """Our ids-only path against tiktoken's encode_ordinary on our export of the same merges."""
    import tiktoken
    import tiktoken.load

    from engine.formats import convert

    target = folder / "bl.tiktoken"
    convert.save(ours, "tiktoken", str(target))  # type: ignore[arg-type]
    sidecar = json.loads((folder / "bl.tiktoken.json").read_text(encoding="utf-8"))
    encoding = tiktoken.Encoding(**sidecar, mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(target)))
    encode_ids = ours.encode_ids  # type: ignore[attr-defined]
    for line in lines[:3000]:
        if encode_ids(line) != encoding.encode_ordinary(line):
            raise SystemExit(f"bl: encode_ids differs from tiktoken's ids on {line!r}")
    theirs = best_of(repeat, per_line(encoding.encode_ordinary, lines))
    report("bl", "ids", megabytes, theirs, best_of(repeat, per_line(encode_ids, lines)), "tiktoken")


def profile(ours: object, what: str, lines: list[str], long_text: str) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    if what == "line":
        for line in lines:
            ours.encode(line)  # type: ignore[attr-defined]
    elif what == "ids":
        for line in lines:
            ours.encode_ids(line)  # type: ignore[attr-defined]
    else:
        ours.encode(long_text)  # type: ignore[attr-defined]
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(18)


if __name__ == "__main__":
    main()
