"""Our engine against the fastest peers, in one run: BPE, WordPiece and Unigram training, and
encoding per line, in batch and whole files to ids (issue 25).

Peers (benchmark dependencies: benchmarks/requirements-peers.txt, not the test extras):
  HF tokenizers 0.23.3 (the reference), gigabpe (BPE training only), tokie (encoding, byte
  offsets), tiktoken (ids only), sentencepiece (Unigram training), and HF tokenizers 1.0
  (pre-release: ids only, no offsets, no trainers) from a venv of its own, since it conflicts
  with 0.23 (--hf1-python; default ../venv-hf1/bin/python beside the checkout).

Every side runs in a child process of its own; the parent samples the child's PSS (its whole
process tree, bench_train's sampler) and the child times its own work (loading and the output
check not included). All outputs are compared before any time is printed; a side whose output
differs, or that does a different job (no offsets, another pre-tokenizer), is said so in its
table row instead of getting a ratio.

Tasks:
  bpe       byte-level BPE 32k training: ByteLevel(add_prefix_space=False), no initial alphabet
            (gigabpe's "bytelevel" mode has none), ours / HF 0.23 / gigabpe, merges and vocab ids
            compared merge for merge, on the first --mb MB of gcide.txt and, with --gb G, on
            bench_scale's generated corpus of G GB (ours and gigabpe; HF too with --gb-hf).
            With --bpe-configs bl,wss also WhitespaceSplit BPE 30k (gigabpe's "whitespace").
  encode    with the tokenizer the 40 MB training produced (the 162 bytes gcide never has are
            appended as single-byte tokens, ids 32000.., because HF 1.0 and tiktoken refuse a
            byte-level vocabulary without every byte; no merge uses them and the text has none,
            so the ids are those of the trained tokenizer), on the first --text-mb MB of
            --text (default gcide.txt, cut at a line end), split at "\\n":
              line     one call per line, ids + offsets: ours `encode`, HF 0.23 `encode`, tokie
                       `encode_with_offsets` (byte offsets, turned into character offsets for
                       the comparison); single-threaded (RAYON_NUM_THREADS=1)
              line-read  the same calls, each result's `ids` and `offsets` then read: all three
                       return an Encoding that makes those Python lists when they are read
                       (ours since issue 25's fifth round), so `line` alone leaves that work out
              batch    all lines in one call, ids + offsets: ours `encode_batch` (one process),
                       HF 0.23 `encode_batch` (its threads)
              ids      one call per line, ids only: ours `encode_ids`, HF 1.0 `encode`, tiktoken
                       `encode_ordinary`, tokie `encode`; HF 0.23 `encode` (it builds offsets
                       anyway) for reference
              ids-batch  all lines, ids only: ours `encode_batch_fast`, HF 0.23
                       `encode_batch_fast`, HF 1.0 `encode_batch`, tiktoken
                       `encode_ordinary_batch`, tokie `encode_batch` (each with its threads)
              file     the file to one stream of ids, a line a document: ours
                       `engine.corpus.ids.encode_files` (.bin on disk, its processes), tokie
                       `encode_files(separator=b"\\n")` (numpy, in memory), the rest read the
                       file, split it and encode the lines as a batch
  unigram   ours (the sentencepiece-unigram preset: sentencepiece's options and defaults) against
            `sentencepiece` with its defaults (num_threads 16) and with num_threads=1, vocabulary
            --unigram-vocab, on wagahaiwa_nekodearu.txt. The pieces differ by design (another
            implementation of the same EM); the table says how many are shared. A row more times
            our UnigramTrainer with HF's defaults behind Metaspace (bench_unigram_train's setup).
  wordpiece ours (likelihood scoring) against HF 0.23's WordPieceTrainer (BPE by pair count),
            BERT's pipeline, vocabulary 30000, on the same --mb MB as bpe: different algorithms,
            so the times are reported, not compared for output.

    python benchmarks/bench_peers.py                              # everything at 40 MB (~9 min)
    python benchmarks/bench_peers.py --gb 1                       # plus BPE training at 1 GB (~14 min)
    python benchmarks/bench_peers.py --skip-training --repeats 5  # encoding only
    python benchmarks/bench_peers.py --mb 5 --text-mb 2 --skip-unigram  # a quick look

Run it with the compiled engine and the peers installed in one venv (pip install . and
-r benchmarks/requirements-peers.txt); the tables print as markdown. Each child loads only
what its side needs, so a peer that is not installed is reported and skipped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from array import array
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_scale  # noqa: E402  (the generated 1 GB corpus)
import bench_train  # noqa: E402  (the memory sampler, the stage marks and the corpus slicer)

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"
DEFAULT_HF1 = ROOT.parent / "venv-hf1" / "bin" / "python"
# GPT-2's pre-tokenizer regex, as HF's ByteLevel runs it (tiktoken's pat_str for our vocabulary).
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# Lines whose raw output a child returns, to show the first difference (the rest: digests).
SHOWN_LINES = 2000
# Lines per chunk digest: a difference past SHOWN_LINES is placed to within this many lines.
CHUNK_LINES = 10000
WORK = "work"  # the stage mark a child sends when its timed work starts
# How the stage lines name the engine's stages (engine.progress.STAGE_* and Unigram's own).
STAGE_LABELS = dict(bench_train.STAGE_LABELS, **{"Suffix array seeds": "seed pieces", "EM training": "EM and pruning"})

SIDE_NAMES = {
    "ours": "ours",
    "hf": "HF tokenizers 0.23",
    "hf1": "HF tokenizers 1.0",
    "gigabpe": "gigabpe",
    "tokie": "tokie",
    "tiktoken": "tiktoken",
    "spm": "sentencepiece",
    "spm1": "sentencepiece",
    "ours-hf": "ours",
}


# -- children: one side's work, in its own process -------------------------------------------


def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level alphabet, char -> byte (the inverse of bytes_to_unicode), written out
    here: the peers' sides and the parent never import our engine (its `byte_level` has the same)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars = list(printable)
    extra = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(printable, chars)}


def _library(side: str) -> str:
    """The library a side runs, with its version, as a child sees it."""
    if side in ("ours", "ours-hf"):
        import engine

        return f"engine {engine.__version__} compiled={engine.COMPILED}"
    module = {"hf": "tokenizers", "hf1": "tokenizers", "spm": "sentencepiece", "spm1": "sentencepiece"}.get(side, side)
    imported = __import__(module)
    version = getattr(imported, "__version__", "")
    if not version:
        from importlib.metadata import version as installed_version

        version = installed_version(module)
    return f"{module} {version}"


def _merges_of(model: dict[str, Any]) -> list[list[str]]:
    return [list(pair) if not isinstance(pair, str) else pair.split(" ", 1) for pair in model.get("merges", [])]


def _train_bpe(side: str, config: str, corpus: str, vocab_size: int, marks_fd: int) -> dict[str, Any]:
    """Train BPE on one side: {"seconds", "merges", "vocab", ...}; ours also {"stages"}."""
    info: dict[str, Any] = {}
    if side == "gigabpe":
        import gigabpe

        mode = "bytelevel" if config == "bl" else "whitespace"
        bench_train._send_mark(marks_fd, WORK)
        started = time.perf_counter()
        vocab, merges = gigabpe.train_bpe([corpus], vocab_size, pretokenizer=mode)
        info["seconds"] = time.perf_counter() - started
        info["merges"] = [list(pair) for pair in merges]
        info["vocab"] = vocab
        info["threads"] = os.cpu_count()
        return info
    if side == "hf":
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    else:
        from engine import models, pre_tokenizers, trainers
        from engine.tokenizer import Tokenizer  # type: ignore[assignment]
    tokenizer = Tokenizer(models.BPE())
    if config == "bl":
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    else:
        tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False)
    bench_train._send_mark(marks_fd, WORK)
    info.update(bench_train.train_timed(side, tokenizer, trainer, corpus, marks_fd, marked=False))
    if side != "hf":
        info["tokenizer_json"] = tokenizer.to_str()
    model = json.loads(tokenizer.to_str())["model"]
    info["merges"] = _merges_of(model)
    info["vocab"] = model["vocab"]
    return info


def _train_wordpiece(side: str, corpus: str, vocab_size: int, marks_fd: int) -> dict[str, Any]:
    """bench_train's "wp" configuration: BERT's pipeline and WordPieceTrainer."""
    library = __import__("tokenizers" if side == "hf" else "engine")
    if side == "hf":
        from tokenizers import Tokenizer
    else:
        from engine.tokenizer import Tokenizer  # type: ignore[assignment]
    tokenizer = Tokenizer(library.models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = library.normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = library.pre_tokenizers.BertPreTokenizer()
    specials = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
    trainer = library.trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials, show_progress=False)
    info: dict[str, Any] = {}
    bench_train._send_mark(marks_fd, WORK)
    info.update(bench_train.train_timed(side, tokenizer, trainer, corpus, marks_fd, processes=False, marked=False))
    info["pieces"] = sorted(tokenizer.get_vocab())
    return info


def _train_unigram(side: str, corpus: str, vocab_size: int, workdir: str, marks_fd: int) -> dict[str, Any]:
    """Unigram training with sentencepiece's options: {"seconds", "pieces", "tokens"} (tokens:
    the corpus's non-empty lines encoded with the result, untimed)."""
    lines = [line for line in Path(corpus).read_text(encoding="utf-8").split("\n") if line.strip()]
    info: dict[str, Any] = {}
    if side in ("spm", "spm1"):
        import sentencepiece as spm

        options: dict[str, Any] = {} if side == "spm" else {"num_threads": 1}
        prefix = str(Path(workdir) / f"{side}-unigram")
        bench_train._send_mark(marks_fd, WORK)
        started = time.perf_counter()
        spm.SentencePieceTrainer.train(
            input=corpus, model_prefix=prefix, vocab_size=vocab_size, model_type="unigram", minloglevel=2, **options
        )
        info["seconds"] = time.perf_counter() - started
        processor = spm.SentencePieceProcessor(model_file=prefix + ".model")
        info["pieces"] = [processor.id_to_piece(i) for i in range(processor.get_piece_size())]
        info["tokens"] = sum(len(processor.encode(line)) for line in lines)
        info["threads"] = 16 if side == "spm" else 1
    else:
        if side == "ours":
            from workbench.core.presets import build

            tokenizer, trainer = build("sentencepiece-unigram", vocab_size=vocab_size)
            trainer.show_progress = False
        else:  # "ours-hf": HF's UnigramTrainer and its defaults behind Metaspace (bench_unigram_train's)
            from engine import models, pre_tokenizers
            from engine.models.unigram.trainer import UnigramTrainer
            from engine.tokenizer import Tokenizer

            tokenizer = Tokenizer(models.Unigram())
            tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
            trainer = UnigramTrainer(vocab_size=vocab_size, show_progress=False)
        sink = bench_train._stage_sink(marks_fd)
        bench_train._send_mark(marks_fd, WORK)
        started = time.perf_counter()
        tokenizer.train([corpus], trainer, progress=sink)  # type: ignore[call-arg]
        ended = time.perf_counter()
        info["seconds"] = ended - started
        info["stages"] = bench_train._stage_seconds(sink.starts, started, sink.last, ended)
        info["pieces"] = list(tokenizer.get_vocab())
        info["tokens"] = sum(len(tokenizer.encode(line, add_special_tokens=False).ids) for line in lines)
    info["characters"] = sum(len(line) for line in lines)
    return info


class _Digest:
    """Outputs of many lines, kept small: the first SHOWN_LINES whole, then one SHA-256 per
    CHUNK_LINES lines and one of everything. Ids (and offsets, as character offsets) of a line
    are hashed as uint32 arrays."""

    def __init__(self) -> None:
        self.shown: list[list[list[int]]] = []
        self.whole = hashlib.sha256()
        self.chunk = hashlib.sha256()
        self.chunks: list[str] = []
        self.lines = 0
        self.ids = 0

    def add(self, ids: list[int], offsets: list[int] | None) -> None:
        if self.lines < SHOWN_LINES:
            self.shown.append([list(ids), list(offsets) if offsets is not None else []])
        data = array("I", ids).tobytes() + b"|" + (array("I", offsets).tobytes() if offsets is not None else b"") + b"\n"
        self.whole.update(data)
        self.chunk.update(data)
        self.lines += 1
        self.ids += len(ids)
        if self.lines % CHUNK_LINES == 0:
            self.chunks.append(self.chunk.hexdigest())
            self.chunk = hashlib.sha256()

    def result(self) -> dict[str, Any]:
        chunks = self.chunks + ([self.chunk.hexdigest()] if self.lines % CHUNK_LINES else [])
        return {"lines": self.lines, "ids": self.ids, "sha256": self.whole.hexdigest(), "chunks": chunks, "shown": self.shown}


def _flat_offsets(offsets: list[tuple[int, int]]) -> list[int]:
    flat: list[int] = []
    for start, end in offsets:
        flat.append(start)
        flat.append(end)
    return flat


def _char_offsets(line: str, byte_offsets: list[tuple[int, int]]) -> list[int]:
    """tokie's byte offsets as character offsets (what HF and ours give), flattened: a token
    starts at the char its first byte is in and ends after the char its last byte is in (a
    token inside a char, as a byte-level BPE makes, spans the whole char, as in HF)."""
    if line.isascii():
        return _flat_offsets(byte_offsets)
    char_of_byte: list[int] = []
    for index, char in enumerate(line):
        char_of_byte.extend([index] * len(char.encode("utf-8")))
    char_of_byte.append(len(line))
    flat: list[int] = []
    for start, end in byte_offsets:
        first = char_of_byte[start]
        flat.append(first)
        flat.append(char_of_byte[end - 1] + 1 if end > start else first)
    return flat


def _tiktoken_encoding(path: str) -> Any:
    """A tiktoken Encoding with our vocabulary: rank = id (the trained ids are in merge order),
    token bytes through the byte-level alphabet, GPT-2's pattern, no special tokens."""
    import tiktoken

    decoder = _byte_decoder()
    vocab = json.loads(Path(path).read_text(encoding="utf-8"))["model"]["vocab"]
    ranks = {bytes(decoder[char] for char in token): rank for token, rank in vocab.items()}
    return tiktoken.Encoding(name="peers", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})


def _encoder(side: str, path: str) -> Any:
    if side == "ours":
        from engine.tokenizer import Tokenizer

        return Tokenizer.from_file(path)
    if side in ("hf", "hf1"):
        import tokenizers

        return tokenizers.Tokenizer.from_file(path)
    if side == "tokie":
        import tokie

        return tokie.Tokenizer.from_json(path)
    return _tiktoken_encoding(path)


def _per_line_call(side: str, task: str, tokenizer: Any) -> Any:
    """The call a per-line task makes for each line (ids: it returns the ids list)."""
    if task in ("line", "line-read"):
        encode = tokenizer.encode_with_offsets if side == "tokie" else tokenizer.encode
        if task == "line":
            return encode

        def encode_and_read(line: str) -> Any:
            encoding = encode(line)
            encoding.ids
            encoding.offsets
            return encoding

        return encode_and_read
    if side == "ours":
        return tokenizer.encode_ids
    if side == "tiktoken":
        return tokenizer.encode_ordinary
    return tokenizer.encode


def _stream_lines(side: str, task: str, tokenizer: Any, lines: list[str]) -> None:
    """The timed per-line pass: one call a line, each result dropped as the next line comes (as
    a caller streaming a corpus does).

    subtle: keeping all of them (a list of 333,000 Encodings) measures the garbage collector as
    much as the encoder: the collector walks the ever longer list of live objects again and
    again. (11 MB of gcide kept: ours 14.9 s, HF 0.23 11.7 s, tokie 1.6 s.)"""
    call = _per_line_call(side, task, tokenizer)
    for line in lines:
        call(line)


def _encode_pass(side: str, task: str, tokenizer: Any, lines: list[str], text_path: str, workdir: str) -> Any:
    """(side, task)'s work, its outputs returned in a form `_digest_of` reads (per-line tasks:
    the untimed check pass; `_stream_lines` is their timed one)."""
    if task in ("line", "line-read", "ids"):
        call = _per_line_call(side, task, tokenizer)
        if task == "ids" and side not in ("ours", "tiktoken"):
            return [call(line).ids for line in lines]
        return [call(line) for line in lines]
    if task == "batch":
        return tokenizer.encode_batch(lines)
    if task == "ids-batch":
        if side in ("ours", "hf"):
            return [encoding.ids for encoding in tokenizer.encode_batch_fast(lines)]
        if side == "tiktoken":
            return tokenizer.encode_ordinary_batch(lines)
        return [encoding.ids for encoding in tokenizer.encode_batch(lines)]
    # task == "file": the file in, one stream of ids out
    if side == "ours":
        from engine.corpus import ids as corpus_ids

        out = str(Path(workdir) / "ours-file.bin")
        summary = corpus_ids.encode_files(tokenizer, [text_path], out)
        return (out, summary.dtype, summary.processes)
    if side == "tokie":
        ids, _ = tokenizer.encode_files([text_path], separator=b"\n")
        return ids
    import numpy

    file_lines = Path(text_path).read_text(encoding="utf-8").split("\n")
    if file_lines and file_lines[-1] == "":
        file_lines.pop()
    if side == "tiktoken":
        batch = tokenizer.encode_ordinary_batch(file_lines)
        return numpy.fromiter((i for ids in batch for i in ids), dtype=numpy.uint32)
    if side == "hf1":
        return numpy.concatenate([encoding.ids_array for encoding in tokenizer.encode_batch(file_lines)])
    return numpy.fromiter((i for e in tokenizer.encode_batch_fast(file_lines) for i in e.ids), dtype=numpy.uint32)


def _digest_of(side: str, task: str, outputs: Any, lines: list[str]) -> dict[str, Any]:
    if task == "file":
        import numpy

        if side == "ours":
            out, dtype, processes = outputs
            stream = numpy.fromfile(out, dtype="<u2" if dtype == "uint16" else "<u4").astype(numpy.uint32)
        else:
            stream, processes = numpy.asarray(outputs, dtype=numpy.uint32), 0
        result = {"ids": int(stream.size), "sha256": hashlib.sha256(stream.tobytes()).hexdigest()}
        result["shown_stream"] = [int(i) for i in stream[:50000]]
        if processes:
            result["processes"] = processes
        return result
    digest = _Digest()
    if task in ("line", "line-read", "batch"):
        for line, encoding in zip(lines, outputs):
            if side == "tokie":
                offsets = _char_offsets(line, encoding.offsets)
            else:
                offsets = _flat_offsets(encoding.offsets)
            digest.add(encoding.ids, offsets)
    else:
        for ids in outputs:
            digest.add(ids, None)
    return digest.result()


def _streamed_digest(side: str, task: str, tokenizer: Any, lines: list[str]) -> dict[str, Any]:
    """A per-line task's outputs digested line by line, none of them kept."""
    call = _per_line_call(side, task, tokenizer)
    digest = _Digest()
    for line in lines:
        found = call(line)
        if task == "ids":
            digest.add(found if side in ("ours", "tiktoken") else found.ids, None)
        elif side == "tokie":
            digest.add(found.ids, _char_offsets(line, found.offsets))
        else:
            digest.add(found.ids, _flat_offsets(found.offsets))
    return digest.result()


def _encode_child(spec: dict[str, Any], marks_fd: int) -> dict[str, Any]:
    side, task = spec["side"], spec["task"]
    tokenizer = _encoder(side, spec["tokenizer"])
    lines = Path(spec["text"]).read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    # The first pass gives the outputs compared (and warms up); the timed passes follow.
    if task in ("line", "line-read", "ids"):
        # (streamed into the digest, nothing kept: the peak memory is the timed pass's)
        info = _streamed_digest(side, task, tokenizer, lines)
    else:
        outputs = _encode_pass(side, task, tokenizer, lines, spec["text"], spec["workdir"])
        info = _digest_of(side, task, outputs, lines)
        del outputs
    bench_train._send_mark(marks_fd, WORK)
    best = float("inf")
    for _ in range(spec["repeats"]):
        if task in ("line", "line-read", "ids"):
            started = time.perf_counter()
            _stream_lines(side, task, tokenizer, lines)
            best = min(best, time.perf_counter() - started)
            continue
        started = time.perf_counter()
        outputs = _encode_pass(side, task, tokenizer, lines, spec["text"], spec["workdir"])
        best = min(best, time.perf_counter() - started)
        del outputs
    info["seconds"] = best
    return info


def child_main(spec_path: str, marks_fd: int) -> None:
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    side, task = spec["side"], spec["task"]
    try:
        library = _library(side)
    except ImportError as error:
        Path(spec["out"]).write_text(json.dumps({"missing": f"{type(error).__name__}: {error}"}), encoding="utf-8")
        return
    if task == "bpe":
        info = _train_bpe(side, spec["config"], spec["corpus"], spec["vocab"], marks_fd)
    elif task == "wordpiece":
        info = _train_wordpiece(side, spec["corpus"], spec["vocab"], marks_fd)
    elif task == "unigram":
        info = _train_unigram(side, spec["corpus"], spec["vocab"], spec["workdir"], marks_fd)
    else:
        info = _encode_child(spec, marks_fd)
    info["library"] = library
    Path(spec["out"]).write_text(json.dumps(info), encoding="utf-8")


# -- the parent: run the children, compare, print ------------------------------------------


class Runner:
    """Starts each side's child (with its interpreter and thread settings), samples its memory."""

    def __init__(self, workdir: Path, hf1_python: Path | None) -> None:
        self.workdir = workdir
        self.hf1_python = hf1_python
        self.count = 0

    def best_of(self, spec: dict[str, Any], repeats: int) -> dict[str, Any]:
        """The fastest of `repeats` children running `spec` (a training: one timing a child)."""
        best = self.run(spec)
        for _ in range(repeats - 1):
            if "missing" in best:
                break
            info = self.run(spec)
            if "missing" in info or info["seconds"] < best["seconds"]:
                best = info
        return best

    def run(self, spec: dict[str, Any], single_thread: bool = False) -> dict[str, Any]:
        """Run one child: its JSON result plus "peak_kb" (PSS of its process tree, whole life)
        and "work_peak_kb" (while its timed work ran), or {"missing": reason}."""
        side = spec["side"]
        python = sys.executable
        if side == "hf1":
            if self.hf1_python is None or not self.hf1_python.is_file():
                return {"missing": f"no interpreter for HF 1.0 at {self.hf1_python} (--hf1-python)"}
            python = str(self.hf1_python)
        self.count += 1
        spec = dict(spec, workdir=str(self.workdir), out=str(self.workdir / f"out-{self.count}.json"))
        spec_path = self.workdir / f"spec-{self.count}.json"
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        if single_thread:
            env["RAYON_NUM_THREADS"] = "1"
            env["TOKENIZERS_PARALLELISM"] = "false"
        else:
            env.pop("RAYON_NUM_THREADS", None)
            env["TOKENIZERS_PARALLELISM"] = "true"
        command = [python, str(Path(__file__).resolve()), "--child", str(spec_path)]
        code, sampler = bench_train.run_sampled(command, self.workdir, env)
        if code != 0:
            return {"missing": f"child exited with {code} (its error is printed above)"}
        info: dict[str, Any] = json.loads(Path(spec["out"]).read_text(encoding="utf-8"))
        info["peak_kb"] = sampler.peak_kb
        work_peaks = [kb for stage, kb in sampler.stage_peaks_kb.items() if stage not in ("startup",)]
        info["work_peak_kb"] = max(work_peaks, default=sampler.peak_kb)
        info["load_kb"] = sampler.stage_peaks_kb.get("startup", 0)
        return info


def _processes(count: int) -> str:
    return f"{count} process" + ("es" if count != 1 else "")


def _mb(kb: object) -> str:
    return f"{int(str(kb)) / 1024:,.0f}"


def _first_difference(a: list[Any], b: list[Any]) -> int:
    for index, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return index
    return min(len(a), len(b))


def _merge_at(merges: list[list[str]], index: int) -> str:
    return " ".join(merges[index]) if index < len(merges) else "(none)"


def _same_training(ours: dict[str, Any], other: dict[str, Any]) -> tuple[bool, str]:
    """(identical, what the comparison found): merges merge for merge, then vocab ids."""
    if ours["merges"] == other["merges"] and ours["vocab"] == other["vocab"]:
        return True, f"merges identical ({len(ours['merges']):,}), vocab ids identical"
    if ours["merges"] != other["merges"]:
        first = _first_difference(ours["merges"], other["merges"])
        return False, (
            f"merges differ from merge {first} (ours {_merge_at(ours['merges'], first)!r},"
            f" theirs {_merge_at(other['merges'], first)!r};"
            f" ours {len(ours['merges']):,}, theirs {len(other['merges']):,} merges)"
        )
    return False, "merges identical, vocab ids differ"


def _same_encoding(reference: dict[str, Any], other: dict[str, Any]) -> tuple[bool, str]:
    """(identical, where they first differ) for two encode digests."""
    if "sha256" in reference and reference["sha256"] == other["sha256"] and reference["ids"] == other["ids"]:
        return True, ""
    if "shown_stream" in reference:
        first = _first_difference(reference["shown_stream"], other["shown_stream"])
        return False, f"id streams differ at id {first:,} ({reference['ids']:,} vs {other['ids']:,} ids)"
    shown_a, shown_b = reference["shown"], other["shown"]
    first = _first_difference(shown_a, shown_b)
    if first < min(len(shown_a), len(shown_b)):
        return False, f"line {first}: ids {shown_a[first][0][:8]}... offsets {shown_a[first][1][:8]}... vs {shown_b[first][0][:8]}... {shown_b[first][1][:8]}..."
    chunk = _first_difference(reference["chunks"], other["chunks"])
    return False, f"first difference in lines {chunk * CHUNK_LINES:,}-{(chunk + 1) * CHUNK_LINES - 1:,}"


def _table(rows: list[list[str]], header: list[str]) -> None:
    print()
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def _training_rows(
    task: str, results: dict[str, dict[str, Any]], megabytes: float, labels: dict[str, str], notes: dict[str, str]
) -> list[list[str]]:
    """Rows side | time | MB/s | peak | ours/side time, `notes` replacing the ratio of a side
    that is not compared."""
    ours = results.get("ours", {})
    rows = []
    for side, info in results.items():
        if "missing" in info:
            rows.append([labels.get(side, side), "-", "-", "-", f"not measured: {info['missing']}"])
            continue
        seconds = float(info["seconds"])
        if side == "ours":
            ratio = "-"
        elif side in notes:
            ratio = notes[side]
        elif "seconds" in ours:
            ratio = _with_goal(task, side, float(ours["seconds"]) / seconds)
        else:
            ratio = "-"
        rows.append([labels.get(side, side), f"{seconds:.2f} s", f"{megabytes / seconds:.2f}", _mb(info["peak_kb"]), ratio])
    return rows


def run_bpe(runner: Runner, corpus: Path, config: str, vocab: int, sides: list[str], repeats: int) -> bool:
    """Train on every side (`repeats` children each, the fastest counts), compare, print."""
    spec = {"task": "bpe", "config": config, "corpus": str(corpus), "vocab": vocab}
    results = {side: runner.best_of(dict(spec, side=side), repeats) for side in sides}
    megabytes = corpus.stat().st_size / 1e6
    what = "ByteLevel(add_prefix_space=False), no initial alphabet" if config == "bl" else "WhitespaceSplit"
    print(f"\n### BPE training: {what}, vocab {vocab:,}, {corpus.name} ({megabytes:,.1f} MB)\n")
    ok = True
    notes: dict[str, str] = {}
    ours = results.get("ours", {})
    for side, info in results.items():
        if side == "ours" or "missing" in info or "missing" in ours:
            continue
        same, said = _same_training(ours, info)
        print(f"- outputs, ours against {info['library']}: {said}")
        if not same:
            notes[side] = "outputs differ: not compared"
            ok = False
    labels = {side: info.get("library", SIDE_NAMES[side]) for side, info in results.items()}
    if "processes" in ours:
        labels["ours"] = f"ours ({ours['library']}, {_processes(ours['processes'])})"
    if "gigabpe" in results and "threads" in results["gigabpe"]:
        labels["gigabpe"] += f" ({results['gigabpe']['threads']} threads)"
    if "hf" in labels:
        labels["hf"] += " (its threads)"
    _table(_training_rows("bpe", results, megabytes, labels, notes), ["side", "time", "MB/s", "peak PSS MB", "ours/side time"])
    _print_stages(ours)
    return ok


def _print_stages(ours: dict[str, Any]) -> None:
    if "stages" in ours:
        parts = [f"{STAGE_LABELS.get(stage, stage.lower())} {seconds:.2f} s" for stage, seconds in ours["stages"]]
        print(f"\nstages (ours): {' | '.join(parts)}")


def make_encode_tokenizer(tokenizer_json: str, target: Path) -> int:
    """Our trained tokenizer.json with every byte the vocabulary lacks appended as a token after
    the last id (HF 1.0 and tiktoken refuse a byte-level vocabulary without every byte); returns
    how many were added. No merge makes or uses them, so text without those bytes encodes as
    before."""
    data = json.loads(tokenizer_json)
    vocab: dict[str, int] = data["model"]["vocab"]
    next_id = max(vocab.values()) + 1
    added = 0
    decoder = _byte_decoder()
    for char in sorted(decoder, key=decoder.__getitem__):
        if char not in vocab:
            vocab[char] = next_id
            next_id += 1
            added += 1
    target.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return added


ENCODE_TASKS = {
    "line": ("per line, ids + offsets (one call a line, one thread)", ["ours", "hf", "tokie"], True),
    "line-read": ("per line, ids + offsets, both read (one call a line, one thread)", ["ours", "hf", "tokie"], True),
    "batch": ("batch, ids + offsets (all lines in one call)", ["ours", "hf"], False),
    "ids": ("per line, ids only (one call a line, one thread)", ["ours", "hf1", "tiktoken", "tokie", "hf"], True),
    "ids-batch": ("batch, ids only (all lines in one call)", ["ours", "hf1", "tiktoken", "tokie", "hf"], False),
    "file": ("whole file to one stream of ids (a line a document)", ["ours", "tokie", "hf1", "tiktoken", "hf"], False),
}
ENCODE_CALLS = {
    ("line", "ours"): "`encode`", ("line", "hf"): "`encode`", ("line", "tokie"): "`encode_with_offsets`",
    ("line-read", "ours"): "`encode`, `.ids`, `.offsets`", ("line-read", "hf"): "`encode`, `.ids`, `.offsets`",
    ("line-read", "tokie"): "`encode_with_offsets`, `.ids`, `.offsets`",
    ("batch", "ours"): "`encode_batch` (1 process)", ("batch", "hf"): "`encode_batch` (its threads)",
    ("ids", "ours"): "`encode_ids`", ("ids", "hf1"): "`encode`", ("ids", "tiktoken"): "`encode_ordinary`",
    ("ids", "tokie"): "`encode`", ("ids", "hf"): "`encode(...).ids` (builds offsets too)",
    ("ids-batch", "ours"): "`encode_batch_fast` (1 process)", ("ids-batch", "hf1"): "`encode_batch`",
    ("ids-batch", "tiktoken"): "`encode_ordinary_batch`", ("ids-batch", "tokie"): "`encode_batch`",
    ("ids-batch", "hf"): "`encode_batch_fast`",
    ("file", "ours"): "`corpus.ids.encode_files` (to .bin)", ("file", "tokie"): "`encode_files` (to numpy)",
    ("file", "hf1"): "read, split, `encode_batch`", ("file", "tiktoken"): "read, split, `encode_ordinary_batch`",
    ("file", "hf"): "read, split, `encode_batch_fast`",
}
# Issue 25's goals, shown beside the ratio they are about: (task, side) -> (at most?, bound).
GOALS: dict[tuple[str, str], tuple[bool, float]] = {
    ("bpe", "gigabpe"): (True, 2.0), ("line", "tokie"): (False, 0.6), ("ids", "hf1"): (False, 0.5),
    ("unigram", "spm"): (True, 1.0),
}


def _with_goal(task: str, side: str, ratio: float) -> str:
    """'3.36 (goal <= 2.0: not met)' where issue 25 sets a goal for this ratio, else '3.36'."""
    goal = GOALS.get((task, side))
    if goal is None:
        return f"{ratio:.2f}"
    at_most, bound = goal
    met = ratio <= bound if at_most else ratio >= bound
    return f"{ratio:.2f} (goal {'<=' if at_most else '>='} {bound}: {'met' if met else 'not met'})"


# What the ratio means against a side doing less or more than ours (no ratio then).
NOT_COMPARABLE = {
    ("ids", "hf"): "builds offsets too: not compared",
}


def run_encode(runner: Runner, tokenizer: Path, text: Path, tasks: list[str], repeats: int) -> bool:
    megabytes = text.stat().st_size / 1e6
    ok = True
    for task in tasks:
        title, sides, single = ENCODE_TASKS[task]
        results: dict[str, dict[str, Any]] = {}
        for side in sides:
            spec = {"task": task, "side": side, "tokenizer": str(tokenizer), "text": str(text), "repeats": repeats}
            results[side] = runner.run(spec, single_thread=single)
        lines = f", {results['ours']['lines']:,} lines" if "lines" in results["ours"] else ""
        print(f"\n### Encoding {title}: {text.name} ({megabytes:,.1f} MB{lines})\n")
        notes: dict[str, str] = {}
        ours = results["ours"]
        for side, info in results.items():
            if side == "ours" or "missing" in info or "missing" in ours:
                continue
            same, where = _same_encoding(ours, info)
            what = "ids and offsets" if task in ("line", "line-read", "batch") else "ids"
            print(f"- outputs, ours against {info['library']} {ENCODE_CALLS[(task, side)]}: "
                  + (f"{what} identical ({info['ids']:,} ids)" if same else f"DIFFER: {where}"))
            if not same:
                notes[side] = "outputs differ: not compared"
                ok = False
        rows = []
        for side, info in results.items():
            label = f"{info.get('library', SIDE_NAMES[side])} {ENCODE_CALLS[(task, side)]}"
            if side == "ours" and "processes" in info:
                label = label.replace("(to .bin)", f"(to .bin, {_processes(info['processes'])})")
            if "missing" in info:
                rows.append([label, "-", "-", "-", f"not measured: {info['missing']}"])
                continue
            seconds = float(info["seconds"])
            if side == "ours" or "missing" in ours:
                ratio = "-"
            else:
                ratio = notes.get(side) or NOT_COMPARABLE.get((task, side)) or _with_goal(task, side, seconds / float(ours["seconds"]))
            rows.append([label, f"{seconds:.3f} s", f"{megabytes / seconds:.2f}", _mb(info["peak_kb"]), ratio])
        _table(rows, ["side", f"time (best of {repeats})", "MB/s", "peak PSS MB", "ours/side speed"])
        if task in ("line", "line-read"):
            print("\n(per-line ids+offsets peers with no offsets: tiktoken and HF 1.0 give ids only; see the ids-only tables)")
    return ok


def run_unigram(runner: Runner, corpus: Path, vocab: int, repeats: int) -> None:
    sides = ("ours", "spm", "spm1", "ours-hf")
    spec = {"task": "unigram", "corpus": str(corpus), "vocab": vocab}
    results = {side: runner.best_of(dict(spec, side=side), repeats) for side in sides}
    megabytes = corpus.stat().st_size / 1e6
    print(f"\n### Unigram training, sentencepiece's options and defaults, vocab {vocab:,}, {corpus.name} ({megabytes:.1f} MB), best of {repeats}\n")
    ours = results["ours"]
    labels = {
        "ours": "ours (preset sentencepiece-unigram)", "spm": "sentencepiece, defaults (num_threads 16)",
        "spm1": "sentencepiece, num_threads=1", "ours-hf": "ours, HF's UnigramTrainer defaults behind Metaspace",
    }
    for side in ("spm", "spm1"):
        info = results[side]
        if "missing" in info or "missing" in ours:
            continue
        common = len(set(ours["pieces"]) & set(info["pieces"]))
        print(
            f"- outputs, ours against {info['library']} ({labels[side]}): {common:,} of its {len(info['pieces']):,} pieces"
            f" also ours ({common / len(info['pieces']):.1%}); tokens per character on the corpus's lines"
            f" ours {ours['tokens'] / ours['characters']:.4f}, theirs {info['tokens'] / info['characters']:.4f}"
            " (not identical by design: another implementation of the same EM, so times compare the job, not the output)"
        )
    notes = {"ours-hf": "another trainer of ours: not compared"}
    _table(_training_rows("unigram", results, megabytes, labels, notes), ["side", "time", "MB/s", "peak PSS MB", "ours/side time"])
    _print_stages(ours)


def run_wordpiece(runner: Runner, corpus: Path, vocab: int, repeats: int) -> None:
    spec = {"task": "wordpiece", "corpus": str(corpus), "vocab": vocab}
    results = {side: runner.best_of(dict(spec, side=side), repeats) for side in ("ours", "hf")}
    megabytes = corpus.stat().st_size / 1e6
    print(f"\n### WordPiece training, BERT's pipeline, vocab {vocab:,}, {corpus.name} ({megabytes:.1f} MB)\n")
    ours, hf = results["ours"], results["hf"]
    if "missing" not in ours and "missing" not in hf:
        common = len(set(ours["pieces"]) & set(hf["pieces"]))
        print(f"- outputs: ours {len(ours['pieces']):,} tokens, {common:,} of them also in HF's: different algorithms"
              " (ours scores by likelihood, HF trains BPE by pair count), so no ratio")
    labels = {"ours": "ours (likelihood scoring)", "hf": f"{hf.get('library', 'HF')} (BPE by count, its threads)"}
    notes = {"hf": "different algorithm: not compared"}
    _table(_training_rows("wordpiece", results, megabytes, labels, notes), ["side", "time", "MB/s", "peak PSS MB", "ours/side time"])
    _print_stages(ours)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=CORPORA / "gcide.txt", help="training text (default: %(default)s)")
    parser.add_argument("--mb", type=float, default=40.0, help="train on the first MB of --corpus (default: %(default)s)")
    parser.add_argument("--gb", type=float, default=0.0, help="also train BPE on bench_scale's generated corpus of this many GB")
    parser.add_argument("--gb-hf", action="store_true", help="at --gb, train HF 0.23 too (slow)")
    parser.add_argument("--keep", type=Path, help="write the --gb corpus here and keep it (reused when big enough)")
    parser.add_argument("--bpe-configs", default="bl", help="bl (byte-level), wss (WhitespaceSplit), comma-separated (default: %(default)s)")
    parser.add_argument("--text", type=Path, default=CORPORA / "gcide.txt", help="the text encoded (default: %(default)s)")
    parser.add_argument("--text-mb", type=float, default=11.0, help="encode the first MB of --text (default: %(default)s)")
    parser.add_argument("--encode-tasks", default=",".join(ENCODE_TASKS), help="comma-separated (default: %(default)s)")
    parser.add_argument("--unigram-corpus", type=Path, default=CORPORA / "wagahaiwa_nekodearu.txt")
    parser.add_argument("--unigram-vocab", type=int, default=8000)
    parser.add_argument("--skip-training", action="store_true", help="encode with a tokenizer trained once (ours), untimed")
    parser.add_argument("--skip-encoding", action="store_true")
    parser.add_argument("--skip-unigram", action="store_true")
    parser.add_argument("--skip-wordpiece", action="store_true")
    parser.add_argument("--repeats", type=int, default=3, help="encoding: the best of N timed passes in each child (default: %(default)s)")
    parser.add_argument("--train-repeats", type=int, default=1, help="BPE and WordPiece training at --mb: the best of N children a side (default: %(default)s)")
    parser.add_argument("--unigram-repeats", type=int, default=3, help="Unigram training: the best of N children a side (default: %(default)s)")
    parser.add_argument("--hf1-python", type=Path, default=DEFAULT_HF1, help="the interpreter of HF 1.0's venv (default: %(default)s)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--marks-fd", type=int, default=-1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child_main(args.child, args.marks_fd)
        return

    started = time.monotonic()
    print(f"# bench_peers: {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cpus, load average {os.getloadavg()[0]:.1f} at the start")
    ok = True
    with tempfile.TemporaryDirectory(prefix="bench-peers-") as tmp:
        workdir = Path(tmp)
        runner = Runner(workdir, args.hf1_python)
        corpus = bench_train._slice_corpus(args.corpus.resolve(), args.mb, workdir) if args.mb > 0 else args.corpus.resolve()
        if not args.skip_training:
            for config in [name.strip() for name in args.bpe_configs.split(",") if name.strip()]:
                vocab = 32000 if config == "bl" else 30000
                ok = run_bpe(runner, corpus, config, vocab, ["ours", "hf", "gigabpe"], args.train_repeats) and ok
            if args.gb > 0:
                scale = args.keep.resolve() if args.keep else workdir / "scale.txt"
                size = int(args.gb * 1e9)
                if not scale.is_file() or scale.stat().st_size < size:
                    began = time.monotonic()
                    bench_scale.generate(scale, size)
                    print(f"\n(generated {scale} of {scale.stat().st_size / 1e9:.2f} GB in {time.monotonic() - began:.0f} s)")
                sides = ["ours", "gigabpe"] + (["hf"] if args.gb_hf else [])
                ok = run_bpe(runner, scale, "bl", 32000, sides, 1) and ok
        if not args.skip_encoding:
            print(f"\n## Encoding (load average {os.getloadavg()[0]:.1f})")
            trained = runner.run({"task": "bpe", "side": "ours", "config": "bl", "corpus": str(corpus), "vocab": 32000})
            if "missing" in trained:
                raise SystemExit(f"training the tokenizer to encode with failed: {trained['missing']}")
            tokenizer = workdir / "encode-tokenizer.json"
            added = make_encode_tokenizer(trained["tokenizer_json"], tokenizer)
            text = bench_train._slice_corpus(args.text.resolve(), args.text_mb, workdir) if args.text_mb > 0 else args.text.resolve()
            print(f"\ntokenizer: ours, byte-level BPE 32k trained on {corpus.name}, plus {added} single-byte tokens it never saw"
                  f" (ids 32000-{32000 + added - 1}) so that HF 1.0 and tiktoken load it; text: {text.name}")
            tasks = [name.strip() for name in args.encode_tasks.split(",") if name.strip()]
            ok = run_encode(runner, tokenizer, text, tasks, args.repeats) and ok
        if not args.skip_training and not args.skip_unigram:
            run_unigram(runner, args.unigram_corpus.resolve(), args.unigram_vocab, args.unigram_repeats)
        if not args.skip_training and not args.skip_wordpiece:
            run_wordpiece(runner, corpus, 30000, args.train_repeats)
    print(f"\n(whole run {time.monotonic() - started:.0f} s; load average {os.getloadavg()[0]:.1f} at the end)")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
