"""Training corpora -> word counts: files read as HF does (line by line, strict UTF-8), streamed.

Bad files raise `CorpusError` naming the file (and the byte offset of a bad UTF-8 sequence).
No training here: the counts go to a trainer. Big inputs are counted by several processes.
"""

from __future__ import annotations

import functools
import gc
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final

from mypy_extensions import mypyc_attr

from engine.added_vocabulary import AddedVocabulary
from engine import errors
from engine.corpus import byte_words, chunking
from engine.corpus.checks import no_words_reason
from engine.corpus.forked import ByteProgress, Children
from engine.corpus.records import LineSample, decode_text, in_decompressed, open_texts
from engine.corpus.sources import DEFAULT_FIELD, FORMAT_COUNTS, FORMAT_LINES, CorpusSource
from engine.corpus.streams import DecompressedStream, FileRange, LineBlocks, LineCutter
from engine.corpus.units import FileSlice, process_count, split_units, training_inputs, units_size
from engine.corpus.word_counts import MAX_COUNT, read_counts
from engine.errors import CorpusError, EngineError
from engine.input_sequence import pre_tokenized
from engine.normalizers import Normalizer
from engine.pre_tokenizers import PreTokenizer, words_of
from engine.progress import STAGE_COUNT_WORDS, STAGE_READ, ProgressSink, report, report_every

ITERATOR_PATH: Final = "<iterator>"
# A splitter flushes its held-back chunks into the word counts when it holds more than this many:
# enough to split each frequent chunk once per flush, few enough that the held chunks never
# weigh much next to the word counts (at 1 << 20, code text's many distinct chunks, such as
# "self.x(y,", raised the peak memory of counting the Python sources by half).
PENDING_MAX: Final = 1 << 16


@mypyc_attr(allow_interpreted_subclasses=True)
class WordSplitter(ABC):
    """Turns one line (with its '\\n') into the words HF's trainer would count for it.

    Must be a pure function of the line: equal lines are split once and counted together.
    """

    @abstractmethod
    def words(self, line: str) -> list[str]: ...

    def count_text(self, text: str, ends_with_newline: bool, counts: dict[str, int]) -> None:
        """Count the words of the lines of `text` into `counts`: all of them, or some only at
        the next `flush` (which every counting path calls before it uses `counts`).

        Lines end with "\n"; the last one only if `ends_with_newline`. Equal lines are split
        once: `{"a b\\n": 2}` -> words("a b\\n") counted twice.
        """
        lines = text.split("\n")
        # subtle: only '\n' ends a line (a '\r' before it stays in the line, a lone '\r' is no break).
        whole = len(lines) - 1
        seen: dict[str, int] = {}
        for i in range(whole):
            line = lines[i]
            seen[line] = seen.get(line, 0) + 1
        for line, times in seen.items():
            for word in self.words(line + "\n"):
                counts[word] = counts.get(word, 0) + times
        if not ends_with_newline and lines[whole]:
            for word in self.words(lines[whole]):
                counts[word] = counts.get(word, 0) + 1

    def count_bytes(self, path: str, data: bytes, offset: int, ends_with_newline: bool, counts: dict[str, int]) -> None:
        """`count_text` of `data`, the lines from byte `offset` of `path` (decoded strictly: a
        bad UTF-8 sequence raises CorpusError naming the file and its byte)."""
        self.count_text(decode_text(path, data, offset), ends_with_newline, counts)

    def flush(self, counts: dict[str, int]) -> None:
        """Count into `counts` whatever `count_text` and `count_bytes` held back."""
        self.flush_text(counts)

    def flush_text(self, counts: dict[str, int]) -> None:
        """`flush`, but the words `count_bytes` counted on bytes stay held: a counting process
        hands them over packed (`pack_bytes`), and the parent takes them in (`absorb_bytes`)."""

    def pack_bytes(self) -> tuple[bytes, list[int]]:
        """The words held on bytes (`byte_words.WordTable.pack`), no longer held."""
        return b"", []

    def absorb_bytes(self, packed: tuple[bytes, list[int]]) -> None:
        """Hold another splitter's `pack_bytes` as if counted here."""

    def line_cutter(self) -> LineCutter | None:
        """Where a line may be cut into parts that `count_text` counts apart to the same words
        (None: never; a line is then read whole, however long)."""
        return None


class PipelineWords(WordSplitter):
    """HF's pipeline for training words: normalize the line, then pre-tokenize it.

    No pre-tokenizer: the normalized line is one word. Empty words are never counted. Where the
    pipeline allows (`engine.corpus.chunking`), `count_text` counts whitespace chunks and `flush` splits
    each distinct chunk once. In the compiled build, where the pipeline allows
    (`chunking.byte_scan`), ASCII lines are counted on their bytes (`engine.corpus.byte_words`;
    for GPT-2's split with no normalizer, the others too) and the others as text; `scan` says
    how, None when not.
    """

    normalizer: Normalizer | None
    pre_tokenizer: PreTokenizer | None
    mode: int
    scan: byte_words.ByteScan | None
    # the words of the lines counted on bytes, held until `flush`
    table: byte_words.WordTable
    # held back: chunks (CHUNKS_DROPPED); segments that follow a space, and segments that start
    # a line (CHUNKS_SEGMENTS)
    chunks: Counter[str]
    pending: dict[str, int]
    pending_leading: dict[str, int]

    def __init__(
        self, normalizer: Normalizer | None, pre_tokenizer: PreTokenizer | None, on_bytes: bool | None = None
    ) -> None:
        """`on_bytes`: count ASCII lines on bytes where the pipeline allows it (None: in the
        compiled build only, where it is the faster way; the pure build counts text faster)."""
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.mode = chunking.chunk_mode(normalizer, pre_tokenizer)
        self.chunks = Counter()
        self.pending = {}
        self.pending_leading = {}
        scan = chunking.byte_scan(normalizer, pre_tokenizer)
        self.scan = scan if (_compiled() if on_bytes is None else on_bytes) else None
        lower = scan is not None and scan.lower
        self.table = byte_words.WordTable(
            byte_words.LOWER_CASE if lower else byte_words.SAME_CASE, scan is not None and scan.byte_level
        )

    def words(self, line: str) -> list[str]:
        text = line if self.normalizer is None else self.normalizer.normalize_str(line)
        return words_of(self.pre_tokenizer, text)

    def line_cutter(self) -> LineCutter | None:
        return chunking.line_cutter(self.mode)

    def count_bytes(self, path: str, data: bytes, offset: int, ends_with_newline: bool, counts: dict[str, int]) -> None:
        scan = self.scan
        if scan is None:
            WordSplitter.count_bytes(self, path, data, offset, ends_with_newline, counts)
            return
        skipped = byte_words.count_lines(data, self.table, scan)
        if len(skipped) == 0:
            return
        # The lines past ASCII, counted as text (decoded one by one: an error names its byte).
        lines: list[str] = []
        for k in range(0, len(skipped), 2):
            start = skipped[k]
            lines.append(decode_text(path, data[start : skipped[k + 1]], offset + start))
        last_whole = ends_with_newline or skipped[len(skipped) - 1] < len(data)
        self.count_text("".join(lines), last_whole, counts)

    def count_text(self, text: str, ends_with_newline: bool, counts: dict[str, int]) -> None:
        mode = self.mode
        if mode == chunking.CHUNKS_NONE or chunking.needs_lines(text):
            WordSplitter.count_text(self, text, ends_with_newline, counts)
            return
        if mode == chunking.CHUNKS_DROPPED:
            chunking.count_chunks(text, self.chunks)
        else:
            chunking.count_segments(text, ends_with_newline, self.pending_leading, self.pending)
        if len(self.chunks) + len(self.pending) + len(self.pending_leading) > PENDING_MAX:
            self.flush_text(counts)  # (the words counted on bytes stay held: see `flush_text`)

    def flush(self, counts: dict[str, int]) -> None:
        self.table.add_to(counts)
        self.flush_text(counts)

    def pack_bytes(self) -> tuple[bytes, list[int]]:
        return self.table.pack()

    def absorb_bytes(self, packed: tuple[bytes, list[int]]) -> None:
        self.table.absorb(packed[0], packed[1])

    def flush_text(self, counts: dict[str, int]) -> None:
        for chunk, times in self.chunks.items():
            for word in self.words(chunk):
                counts[word] = counts.get(word, 0) + times
        self.chunks.clear()
        for chunk, times in self.pending_leading.items():
            for word in self.words(chunk):
                counts[word] = counts.get(word, 0) + times
        self.pending_leading.clear()
        for chunk, times in self.pending.items():
            for word in self.words(" " + chunk):
                counts[word] = counts.get(word, 0) + times
        self.pending.clear()


def _compiled() -> bool:
    """`engine.COMPILED`, read as `engine` reads it (importing `engine` here would be a cycle)."""
    return not errors.__file__.endswith(".py")


class AddedTokenWords(WordSplitter):
    """Training words through the full pipeline, used only when added tokens must be cut out
    (`input_sequence.pre_tokenized`): the line's splits, as HF's trainer counts them."""

    added: AddedVocabulary
    normalizer: Normalizer | None
    pre_tokenizer: PreTokenizer | None

    def __init__(
        self, added: AddedVocabulary, normalizer: Normalizer | None, pre_tokenizer: PreTokenizer | None
    ) -> None:
        self.added = added
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer

    def words(self, line: str) -> list[str]:
        pretokenized = pre_tokenized(line, self.added, self.normalizer, self.pre_tokenizer)
        return [split.normalized.get() for split in pretokenized.splits]


class SentenceWords(WordSplitter):
    """Whole lines as `sentencepiece` trains on them: one "word" per line, the line normalized
    and its pre-tokenizer's splits joined again ("a b" under Metaspace -> "▁a▁b"), cut only at
    added tokens (which sentencepiece cuts out of its sentences) and dropped when empty.
    `SentencePieceTrainer` reads these (`Trainer.counts_sentences`) and cuts the words itself."""

    added: AddedVocabulary | None
    normalizer: Normalizer | None
    pre_tokenizer: PreTokenizer | None

    def __init__(
        self, added: AddedVocabulary | None, normalizer: Normalizer | None, pre_tokenizer: PreTokenizer | None
    ) -> None:
        self.added = added
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer

    def words(self, line: str) -> list[str]:
        if self.added is None:
            text = line if self.normalizer is None else self.normalizer.normalize_str(line)
            sentence = "".join(words_of(self.pre_tokenizer, text))
            return [sentence] if sentence else []
        sentences: list[str] = []
        parts: list[str] = []
        for split in pre_tokenized(line, self.added, self.normalizer, self.pre_tokenizer).splits:
            if split.tokens is not None:
                if parts:
                    sentences.append("".join(parts))
                    parts = []
            else:
                parts.append(split.normalized.get())
        if parts:
            sentences.append("".join(parts))
        return [sentence for sentence in sentences if sentence]


def count_words(
    files: Sequence[str | FileSlice | CorpusSource],
    splitter: WordSplitter,
    sink: ProgressSink,
    processes: int = 0,
    field: str = DEFAULT_FIELD,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    sample_lines: int = 0,
    seed: int = 0,
) -> dict[str, int]:
    """word -> count over every line of every file (or slice of one), as HF's `train(files)`
    feeds its trainer; and over every record of the other inputs `training_inputs` reads:
    folders (files matching `include`, not `exclude`), .gz/.bz2/.xz/.zst text (lines as in the
    plain file), JSON Lines and Parquet/Arrow (the `field` text of each record, split whole as
    `train_from_iterator` splits a text), .tsv word-count tables (added as they are).

    Raises CorpusError for a missing, unreadable, corrupt or non-UTF-8 input, for a folder with
    no file, and when all the inputs together hold no word; TrainingCancelled when `sink` asks
    to stop. `processes`: 1 counts in this process only; more asks for that many forked
    processes (on Linux; the caller knows whether forking is safe: a process running native
    threads, such as a Qt application, must not fork); 0 chooses: several for big inputs, one
    when this process runs other Python threads. Each non-plain input is read whole by one
    process. `sample_lines` > 0: see `count_sampled_words` (one process).
    """
    if sample_lines > 0:
        return count_sampled_words(files, splitter, sink, sample_lines, seed, field, include, exclude).counts
    if not files:
        raise CorpusError("<no files>", "no training files given")
    units = training_inputs(files, field, include, exclude)
    total = units_size(units)
    enabled = gc.isenabled()
    gc.disable()
    try:
        processes = process_count(total, processes)
        if processes > 1:
            counts = _count_in_processes(units, processes, splitter, sink)
        else:
            progress = _SinkProgress(sink, total)
            progress.start()
            counts = _count_share(units, splitter, progress)
            splitter.flush(counts)
            progress.finish()
    finally:
        if enabled:
            gc.enable()
    if not counts:
        raise CorpusError(", ".join(unit.path for unit in units), no_words_reason(total))
    return counts


class SampledCounts:
    """What `count_sampled_words` found: the word counts of the sample, and how many lines (or
    records) it kept of how many it saw."""

    counts: dict[str, int]
    kept: int
    seen: int

    def __init__(self, counts: dict[str, int], kept: int, seen: int) -> None:
        self.counts = counts
        self.kept = kept
        self.seen = seen


def count_sampled_words(
    files: Sequence[str | FileSlice | CorpusSource],
    splitter: WordSplitter,
    sink: ProgressSink,
    sample_lines: int,
    seed: int = 0,
    field: str = DEFAULT_FIELD,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> SampledCounts:
    """`count_words` over a uniform random sample of `sample_lines` lines and records of all the
    inputs together (SentencePiece's `input_sentence_size`): reservoir sampling, the same
    sample for the same `seed`, memory bounded by the sample. Word-count tables are added
    whole. Counts in this one process: the reservoir sees every line in input order.
    """
    if not files:
        raise CorpusError("<no files>", "no training files given")
    units = training_inputs(files, field, include, exclude)
    total = units_size(units)
    sample = LineSample(sample_lines, seed)
    counts: dict[str, int] = {}
    progress = _SinkProgress(sink, total)
    progress.start()
    enabled = gc.isenabled()
    gc.disable()
    try:
        sampling = _Sampling(sample, counts)
        for unit in units:
            _read_unit(unit, sampling, progress)
        progress.finish()
        for line in sample.kept:
            for word in splitter.words(line):
                counts[word] = counts.get(word, 0) + 1
    finally:
        if enabled:
            gc.enable()
    if not counts:
        raise CorpusError(", ".join(unit.path for unit in units), no_words_reason(total))
    return SampledCounts(counts, len(sample.kept), sample.seen)


def _offer_lines(path: str, data: bytes, offset: int, ends_with_newline: bool, sample: LineSample) -> None:
    """Offer each line of `data` (with its "\\n", as `WordSplitter.count_text` splits it) to the sample."""
    text = decode_text(path, data, offset)
    lines = text.split("\n")
    whole = len(lines) - 1
    for i in range(whole):
        sample.offer(lines[i] + "\n")
    if not ends_with_newline and lines[whole]:
        sample.offer(lines[whole])


def flatten(iterator: Iterable[str] | Iterable[list[str]]) -> Iterable[str]:
    """The texts of an iterable of texts or of batches of texts, one by one."""
    for item in iterator:
        if isinstance(item, str):
            yield item
        else:
            yield from item


def count_words_from_iterator(
    texts: Iterable[str], splitter: WordSplitter, sink: ProgressSink, length: int | None = None
) -> dict[str, int]:
    """word -> count over texts, each split whole (HF's `train_from_iterator`: no line splitting).

    `length` (the number of texts, when known) only feeds progress.
    """
    total = length if length is not None and length > 0 else 0
    every = report_every(total) if total > 0 else 1000
    counts: dict[str, int] = {}
    done = 0
    report(sink, STAGE_COUNT_WORDS, 0, total, "sequences")
    enabled = gc.isenabled()
    gc.disable()
    try:
        for text in texts:
            for word in splitter.words(text):
                counts[word] = counts.get(word, 0) + 1
            done += 1
            if done % every == 0:
                report(sink, STAGE_COUNT_WORDS, done, max(total, done), "sequences")
    finally:
        if enabled:
            gc.enable()
    report(sink, STAGE_COUNT_WORDS, done, done, "sequences")
    if not counts:
        raise CorpusError(ITERATOR_PATH, "no words to train on: every text is empty or has no words")
    return counts


def _count_slice(
    path: str, start: int, end: int, splitter: WordSplitter, counts: dict[str, int], progress: ByteProgress
) -> None:
    """Count the words of the lines in bytes [start, end) of `path` (start is a line start):
    all of them, the splitter's held-back chunks included."""
    _read_unit(FileSlice(path, start, end), _Counting(splitter, counts), progress)


def _count_unit(
    unit: FileSlice | CorpusSource, splitter: WordSplitter, counts: dict[str, int], progress: ByteProgress
) -> None:
    """Count one unit of work: a slice of a plain file, or a whole other source."""
    _read_unit(unit, _Counting(splitter, counts), progress)


class _TextSink(ABC):
    """What `_read_unit` hands a unit's text to: blocks of whole lines, or batches of texts that
    are each whole (records, column values). Word-count tables go straight to `counts`."""

    counts: dict[str, int]

    @abstractmethod
    def lines(self, path: str, data: bytes, offset: int, ends_with_newline: bool) -> None: ...

    @abstractmethod
    def texts(self, texts: list[str]) -> None: ...

    def cutter(self) -> LineCutter | None:
        """Where lines too long for a block may be cut (None: lines are handed over whole)."""
        return None

    def unit_done(self) -> None:
        """The unit's last text was handed over."""


class _Counting(_TextSink):
    """Counts the words of what it is handed into `counts` (`hold_bytes`: all but those the
    splitter counted on bytes, which it keeps for `flush`, `pack_bytes`)."""

    splitter: WordSplitter
    hold_bytes: bool

    def __init__(self, splitter: WordSplitter, counts: dict[str, int], hold_bytes: bool = False) -> None:
        self.splitter = splitter
        self.counts = counts
        self.hold_bytes = hold_bytes

    def lines(self, path: str, data: bytes, offset: int, ends_with_newline: bool) -> None:
        self.splitter.count_bytes(path, data, offset, ends_with_newline, self.counts)

    def texts(self, texts: list[str]) -> None:
        # equal texts of a batch are split once (as `WordSplitter.count_text` does for equal lines)
        seen: dict[str, int] = {}
        for text in texts:
            seen[text] = seen.get(text, 0) + 1
        counts = self.counts
        for text, times in seen.items():
            for word in self.splitter.words(text):
                counts[word] = counts.get(word, 0) + times

    def cutter(self) -> LineCutter | None:
        return self.splitter.line_cutter()

    def unit_done(self) -> None:
        if self.hold_bytes:
            self.splitter.flush_text(self.counts)
        else:
            self.splitter.flush(self.counts)


class _Sampling(_TextSink):
    """Offers every line and text it is handed to the sample (tables still count whole)."""

    sample: LineSample

    def __init__(self, sample: LineSample, counts: dict[str, int]) -> None:
        self.sample = sample
        self.counts = counts

    def lines(self, path: str, data: bytes, offset: int, ends_with_newline: bool) -> None:
        _offer_lines(path, data, offset, ends_with_newline, self.sample)

    def texts(self, texts: list[str]) -> None:
        for text in texts:
            self.sample.offer(text)


def _read_unit(unit: FileSlice | CorpusSource, sink: _TextSink, progress: ByteProgress) -> None:
    """Read one unit of work (a slice of a plain file, or a whole other source) into `sink`,
    reporting raw bytes read to `progress`."""
    if isinstance(unit, CorpusSource) and unit.format == FORMAT_COUNTS:
        _count_table(unit, sink.counts, progress)
        return
    reported = 0
    if isinstance(unit, FileSlice) or unit.format == FORMAT_LINES:
        if isinstance(unit, FileSlice):
            size = unit.end - unit.start
            blocks = LineBlocks(unit.path, FileRange(unit.path, unit.start, unit.end), unit.start, sink.cutter())
        else:
            size = unit.size
            blocks = LineBlocks(unit.path, DecompressedStream(unit.path, unit.compression), 0, sink.cutter())
        compressed = isinstance(unit, CorpusSource) and unit.compression != ""
        try:
            while blocks.next_block():
                try:
                    sink.lines(unit.path, blocks.data, blocks.offset, blocks.complete)
                except CorpusError as error:
                    raise (in_decompressed(error) if compressed else error) from None
                reported = _advance(progress, reported, blocks.raw_done, size)
        finally:
            blocks.close()
    else:
        texts = open_texts(unit)
        try:
            while True:
                batch = texts.next_texts()
                if batch is None:
                    break
                sink.texts(batch)
                reported = _advance(progress, reported, texts.raw_done(), unit.size)
        finally:
            texts.close()
        size = unit.size
    sink.unit_done()
    _advance(progress, reported, size, size)


def _advance(progress: ByteProgress, reported: int, done: int, size: int) -> int:
    """Tell `progress` of raw bytes read up to `done` (at most `size`); the new `reported`."""
    done = min(done, size)
    if done > reported:
        progress.advance(done - reported)
        return done
    return reported


def _count_table(source: CorpusSource, counts: dict[str, int], progress: ByteProgress) -> None:
    """Add a word-count table's words (already normalized and pre-tokenized) as they are."""
    table = read_counts(source.path)
    for word, count in table.items():
        total = counts.get(word, 0) + count
        if total > MAX_COUNT:
            raise CorpusError(source.path, f"the word {word!r} is counted more than {MAX_COUNT:,} times with the other inputs, the most the trainers can count")
        counts[word] = total
    _advance(progress, 0, source.size, source.size)


# -- progress ------------------------------------------------------------------------------


class _SinkProgress(ByteProgress):
    """Reports the bytes read to the sink: this process's, and its counting children's."""

    sink: ProgressSink
    total: int
    done: int
    children: Children | None

    def __init__(self, sink: ProgressSink, total: int) -> None:
        self.sink = sink
        self.total = total
        self.done = 0
        self.children = None

    def start(self) -> None:
        report(self.sink, STAGE_READ, 0, self.total, "bytes")

    def advance(self, count: int) -> None:
        self.done += count
        if self.children is not None:
            self.children.poll(0.0)
        self.send()

    def send(self) -> None:
        done = self.done + (self.children.read if self.children is not None else 0)
        report(self.sink, STAGE_READ, min(done, self.total), self.total, "bytes")

    def finish(self) -> None:
        self.done = self.total
        self.children = None
        self.send()


def _count_share(units: list[FileSlice | CorpusSource], splitter: WordSplitter, progress: ByteProgress) -> dict[str, int]:
    """The word counts of one process's share of the units, but those the splitter counted on
    bytes: it holds them (for one `flush` at the end, or `pack_bytes`)."""
    counts: dict[str, int] = {}
    for unit in units:
        _read_unit(unit, _Counting(splitter, counts, hold_bytes=True), progress)
    return counts


def _child_share(
    units: list[FileSlice | CorpusSource], splitter: WordSplitter, progress: ByteProgress
) -> tuple[dict[str, int], tuple[bytes, list[int]]]:
    """A counting process's result: its share's word counts, and the words it counted on bytes
    packed (one bytes object and a list: far cheaper to send than a dict of them)."""
    counts = _count_share(units, splitter, progress)
    return counts, splitter.pack_bytes()


def _count_in_processes(
    units: list[FileSlice | CorpusSource], processes: int, splitter: WordSplitter, sink: ProgressSink
) -> dict[str, int]:
    """This process counts the first run of units while forked children count the others."""
    work = split_units(units, processes)
    progress = _SinkProgress(sink, units_size(units))
    progress.start()
    children = Children("word-counting")
    try:
        for share in work[1:]:
            children.start(functools.partial(_child_share, share, splitter))
        progress.children = children
        counts = _count_share(work[0], splitter, progress)
        children.wait(progress.send)
        # (the error of the first share that failed, in the order of the shares)
        error = children.first_error()
        if error is not None:
            raise error
        for result in children.results:
            if not isinstance(result, tuple):
                raise EngineError("a word-counting process sent an unexpected result")
            child_counts, packed = result
            splitter.absorb_bytes(packed)
            if len(child_counts) > len(counts):
                child_counts, counts = counts, child_counts
            for word, count in child_counts.items():
                counts[word] = counts.get(word, 0) + count
        splitter.flush(counts)
        progress.finish()
        return counts
    finally:
        children.stop()
