"""Where the engine spends its own time, module by module, in each kind of work: the figures behind
`build_app.HOT` (the modules compiled at -O1; `build_app.LOOPS`, at -O3, count as hot here),
`build_app.COLD` (compiled without optimisation)
and `build_app.INTERPRETED`; the others are compiled at -Og.

Runs the pure-Python engine of the source tree under cProfile (compiled code is invisible to it)
through five kinds of work, on the shared corpora:

  train   the six presets, each on 3 MB of gcide.txt or on shakespeare.txt, in this process
  files   each trained tokenizer saved and loaded as tokenizer.json, vocab.txt, vocab.json +
          merges.txt, a SentencePiece .model and a .tiktoken file (where the format holds it)
  encode  `encode`, `encode_batch`, `encode_ids` and `decode` on Shakespeare and a Japanese novel,
          with every trained tokenizer, BERT's tokenizer.json, a .model, a cl100k-style regex
          Split and a pipeline of NFKC, Punctuation, Digits, UnicodeScripts and Metaspace
  corpus  training on JSON Lines, .gz and one long line; a 200,000-word count table written and
          read; a corpus encoded to .bin and .jsonl ids
  views   the vocabulary table of every tokenizer

For each module: its self time as a share of the engine's self time in each kind of work, and the
largest share. A module in `build_app.COLD` that reaches 0.1 % in training, encoding or corpus
work is flagged: it belongs at the default level. (The formats are most of the `files` work, but
that work is once per file.) A module not in `build_app.HOT` that reaches 5 % in training,
encoding, corpus work or the views is flagged too: it belongs in HOT.

    ENGINE_PURE=1 PYTHONPATH=. python benchmarks/engine_profile.py
"""

from __future__ import annotations

import cProfile
import gzip
import importlib.util
import json
import pstats
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import engine
from engine import Regex, Tokenizer, normalizers, pre_tokenizers
from engine.analysis.vocabulary import VocabularyTable
from engine.corpus import ids as corpus_ids
from engine.corpus import word_counts
from engine.formats import convert
from workbench.core import presets

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"
# cl100k's pre-tokenizer pattern (tiktoken), as a Split regex
CL100K = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
COLD_SHARE = 0.1  # per cent
BULK_WORK = ("train", "encode", "corpus")  # where a cold module must stay under COLD_SHARE
HOT_SHARE = 5.0  # per cent, in BULK_WORK or the views: a module past it belongs in build_app.HOT


def build_lists() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    spec = importlib.util.spec_from_file_location("build_app", ROOT / "build_app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.COLD, module.INTERPRETED, {**module.HOT, **module.LOOPS}


class Workloads:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        raw = (CORPORA / "gcide.txt").read_bytes()[:3_000_000]
        self.head = folder / "gcide3.txt"
        self.head.write_bytes(raw)
        text = raw.decode("utf-8", "replace").splitlines()
        (folder / "g.jsonl").write_text("".join(json.dumps({"text": line}) + "\n" for line in text[:30000]))
        (folder / "g.txt.gz").write_bytes(gzip.compress(raw[:1_000_000]))
        (folder / "long.txt").write_text(" ".join(text[:20000]) + "\n")
        shakespeare = (CORPORA / "shakespeare.txt").read_text(encoding="utf-8").splitlines()
        self.lines = [line for line in shakespeare if line.strip()][:20000]
        novel = (CORPORA / "wagahaiwa_nekodearu.txt").read_text(encoding="utf-8").splitlines()
        self.japanese = [line for line in novel if line.strip()][:300]
        self.trained: dict[str, Tokenizer] = {}
        self.loaded: dict[str, Tokenizer] = {}

    def train(self) -> None:
        shakespeare = CORPORA / "shakespeare.txt"
        for key, corpus in [
            ("bpe", self.head), ("gpt2", self.head), ("bert", self.head), ("wordlevel", self.head),
            ("sentencepiece-unigram", shakespeare), ("sentencepiece-bpe", shakespeare),
        ]:
            tokenizer, trainer = presets.build(key, 8000)
            tokenizer.train([str(corpus)], trainer, processes=1)
            self.trained[key] = tokenizer

    def files(self) -> None:
        for key, tokenizer in self.trained.items():
            for kind in convert.FORMATS:
                path = str(self.folder / f"{key}-{kind}") + ("" if kind == convert.GPT2 else convert.SUFFIXES[kind])
                try:
                    convert.save(tokenizer, kind, path)
                    convert.load(convert.written_paths(kind, path)[0])
                except engine.TokenizerFileError as error:  # (this format cannot hold this tokenizer)
                    print(f"note: {key} as {kind}: {error}", file=sys.stderr)
        self.loaded = self.encode_tokenizers()

    def encode_tokenizers(self) -> dict[str, Tokenizer]:
        tokenizers = dict(self.trained)
        tokenizers["bert file"] = Tokenizer.from_file(str(CORPORA / "bert_uncased_tokenizer.json"))
        tokenizers["sp .model"] = convert.load(str(CORPORA / "sp_test_model.model"))
        split = Tokenizer.from_str(self.trained["gpt2"].to_str())
        split.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.Split(Regex(CL100K), "isolated"), pre_tokenizers.ByteLevel(False, True, False)]
        )
        tokenizers["cl100k split"] = split
        mixed = Tokenizer.from_str(self.trained["sentencepiece-unigram"].to_str())
        mixed.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase(), normalizers.Strip()])
        mixed.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Punctuation(), pre_tokenizers.Digits(True),
                pre_tokenizers.UnicodeScripts(), pre_tokenizers.Metaspace(),
            ]
        )
        tokenizers["mixed"] = mixed
        return tokenizers

    def encode(self) -> None:
        for tokenizer in self.loaded.values():
            for line in self.lines[:3000]:
                tokenizer.encode(line)
            tokenizer.encode_batch(self.lines[:10000])
            for ids in [tokenizer.encode_ids(line) for line in self.lines[:3000]]:
                tokenizer.decode(ids)
            for line in self.japanese:
                tokenizer.encode(line)
            tokenizer.encode(" ".join(self.lines[:3000]))

    def corpus(self) -> None:
        tokenizer, trainer = presets.build("gpt2", 4000)
        inputs = [str(self.folder / name) for name in ("g.jsonl", "g.txt.gz", "long.txt")]
        tokenizer.train(inputs, trainer, processes=1)
        counts = {f"w{i}": i + 1 for i in range(200_000)}
        word_counts.write_counts(str(self.folder / "counts.tsv"), counts)
        word_counts.read_counts(str(self.folder / "counts.tsv"))
        inputs = [str(self.head), str(self.folder / "long.txt")]
        corpus_ids.encode_files(self.trained["gpt2"], inputs, str(self.folder / "ids.bin"), processes=1)
        corpus_ids.encode_files(self.trained["bert"], [str(self.head)], str(self.folder / "ids.jsonl"), processes=1)

    def views(self) -> None:
        for tokenizer in self.trained.values():
            VocabularyTable.of(tokenizer)
        VocabularyTable.of(Tokenizer.from_file(str(CORPORA / "bert_uncased_tokenizer.json")))


def self_time_by_module(work: Callable[[], None]) -> tuple[dict[str, float], float]:
    profile = cProfile.Profile()
    started = time.monotonic()
    profile.enable()
    work()
    profile.disable()
    wall = time.monotonic() - started
    by_module: dict[str, float] = defaultdict(float)
    engine_folder = str(ROOT / "engine") + "/"
    for (filename, _, _), (_, _, self_time, _, _) in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        if filename.startswith(engine_folder):
            by_module["engine/" + filename[len(engine_folder) :]] += self_time
    return by_module, wall


def main() -> int:
    if engine.COMPILED:
        print("engine_profile: the engine is compiled; run with ENGINE_PURE=1 PYTHONPATH=.", file=sys.stderr)
        return 2
    if not CORPORA.is_dir():
        print(f"engine_profile: needs the shared corpora in {CORPORA}", file=sys.stderr)
        return 2
    cold, interpreted, hot = build_lists()
    shares: dict[str, dict[str, float]] = defaultdict(dict)
    with tempfile.TemporaryDirectory(prefix="engine-profile-") as scratch:
        workloads = Workloads(Path(scratch))
        for name in ("train", "files", "encode", "corpus", "views"):
            by_module, wall = self_time_by_module(getattr(workloads, name))
            total = sum(by_module.values())
            print(f"{name:7} {wall:6.1f} s, engine self time {total:6.1f} s", file=sys.stderr)
            for module, seconds in by_module.items():
                shares[module][name] = 100 * seconds / total
    for path in sorted((ROOT / "engine").rglob("*.py")):
        shares.setdefault(path.relative_to(ROOT).as_posix(), {})
    flagged = 0
    print(f"{'largest':>8}  {'in':7} module")
    for module, by_work in sorted(shares.items(), key=lambda item: -max(item[1].values(), default=0.0)):
        work, largest = max(by_work.items(), key=lambda item: item[1], default=("-", 0.0))
        note = "interpreted" if module in interpreted else "cold (-O0)" if module in cold else "hot (-O1/-O3)" if module in hot else ""
        bulk = max((by_work.get(name, 0.0) for name in BULK_WORK), default=0.0)
        if module in cold and bulk >= COLD_SHARE:
            note += f"  <- over {COLD_SHARE} %: belongs at the default level"
            flagged += 1
        elif module not in hot and module not in interpreted and max(bulk, by_work.get("views", 0.0)) >= HOT_SHARE:
            note += f"  <- over {HOT_SHARE} %: belongs in HOT"
            flagged += 1
        detail = " ".join(f"{name}={share:.2f}" for name, share in sorted(by_work.items()))
        print(f"{largest:7.2f}%  {work:7} {module}  {note}  {detail}".rstrip())
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
