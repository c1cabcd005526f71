"""The sample an estimate of a training is made from: where it is taken in the inputs, and the
words it holds, counted as training counts them, with the points of the Heaps fit.

`spread` places the pieces (slices of plain text files, the first part of the other inputs);
`Sample` counts them and says how much text each input read by its first part holds. No fit and
no costs here: `engine.analysis.estimate` turns the sample into the estimate.
"""

from __future__ import annotations

import time
from typing import Final

from engine.corpus.counting import WordSplitter
from engine.corpus.records import in_decompressed, open_texts
from engine.corpus.sources import FORMAT_LINES, CorpusSource
from engine.corpus.streams import DecompressedStream, FileRange, LineBlocks
from engine.corpus.units import FileSlice
from engine.errors import CorpusError
from engine.tokenizer import Tokenizer

# The pieces a sample is taken in, spread evenly over the inputs (`spread`).
SAMPLE_PIECES: Final = 8
# The first part of an input read whole by training (compressed, JSON Lines, Parquet/Arrow)
# gives a point of the Heaps fit every (its part of the sample) / SAMPLE_PIECES bytes of text,
# at least this many. Counting 4 MB of gcide with the held-back chunks flushed every 64 KB
# rather than every 512 KB took 0.13 s vs 0.16 s compiled, 0.32 s vs 0.29 s pure ("bpe"), and
# 0.24 vs 0.25 s, 0.56 vs 0.52 s ("gpt2"): the finer points do not slow the counting measured.
POINT_MIN_BYTES: Final = 64 << 10


class Prefix:
    """The first `budget` bytes of text of an input read whole by training (`index`: its place
    in the inputs)."""

    index: int
    source: CorpusSource
    budget: int

    def __init__(self, index: int, source: CorpusSource, budget: int) -> None:
        self.index = index
        self.source = source
        self.budget = budget


class Sample:
    """The words of the sample counted so far, the points of the Heaps fit (`sizes`: bytes of
    text counted, `distinct`: distinct words then), and what the first part of each input read
    whole by training showed of its size.

    Text is what the words are split from: a plain file's bytes, the decompressed bytes of a
    compressed one, the UTF-8 bytes of the text fields of records.
    """

    splitter: WordSplitter
    with_lines: bool
    sentences: bool
    counts: dict[str, int]
    sizes: list[int]
    distinct: list[int]
    text: int
    raw: int
    lines: int
    slices: int
    prefixes: int
    prefix_text: int
    prefix_seen: int
    read_seconds: float
    texts: dict[int, float]
    kind_text: dict[str, int]
    kind_raw: dict[str, int]

    def __init__(self, splitter: WordSplitter, with_lines: bool, sentences: bool = False) -> None:
        self.splitter = splitter
        self.with_lines = with_lines
        self.sentences = sentences  # (the splitter counts whole lines: slices are counted so too)
        self.counts = {}
        self.sizes = []
        self.distinct = []
        self.text = 0  # bytes of text counted
        self.raw = 0  # bytes of the input files read for it
        self.lines = 0  # lines and records counted (when `with_lines`)
        self.slices = 0
        self.prefixes = 0
        self.prefix_text = 0
        self.prefix_seen = 0  # bytes of text the inputs read by their first part handed over
        self.read_seconds = 0.0  # the time spent reading them (decompressing, parsing records)
        self.texts = {}  # input index -> its text's bytes, estimated from its first part
        self.kind_text = {}  # "jsonl/gz" -> text bytes handed over by inputs of that kind
        self.kind_raw = {}  # ... and the file bytes they were read from

    def add_slice(self, tokenizer: Tokenizer, piece: FileSlice) -> None:
        counts = self.counts
        for word, count in _count_piece(tokenizer, piece, self.sentences).items():
            counts[word] = counts.get(word, 0) + count
        if self.with_lines and piece.size > 0:
            stream = FileRange(piece.path, piece.start, piece.end)
            try:
                self.lines += stream.read(piece.size).count(b"\n")
            finally:
                stream.close()
        self.text += piece.size
        self.raw += piece.size
        self.slices += 1
        self._point()

    def add_prefix(self, prefix: Prefix) -> None:
        """Count the first `prefix.budget` bytes of text of its input (all of it when shorter)."""
        source = prefix.source
        step = max(POINT_MIN_BYTES, prefix.budget // SAMPLE_PIECES)
        before = self.text
        if source.format == FORMAT_LINES:
            seen, raw, ended = self._read_lines(source, prefix.budget, step)
        else:
            seen, raw, ended = self._read_texts(source, prefix.budget, step)
        self.splitter.flush(self.counts)
        if self.text > before and (not self.sizes or self.sizes[-1] != self.text):
            self._point()
        if ended:
            self.texts[prefix.index] = float(seen)
            raw = source.size
        elif raw > 0:
            self.texts[prefix.index] = seen * source.size / raw
        else:
            self.texts[prefix.index] = float(source.size)  # no progress known: a byte of text per byte
        kind = _kind(source)
        self.kind_text[kind] = self.kind_text.get(kind, 0) + seen
        self.kind_raw[kind] = self.kind_raw.get(kind, 0) + raw
        self.raw += raw
        self.prefix_seen += seen
        self.prefixes += 1
        self.prefix_text += self.text - before

    def _read_lines(self, source: CorpusSource, budget: int, step: int) -> tuple[int, int, bool]:
        """Count compressed text line by line (as training does) up to `budget` bytes, a point
        every `step` bytes: (decompressed bytes, file bytes read, whether it was read to the end)."""
        stream = DecompressedStream(source.path, source.compression)
        blocks = LineBlocks(source.path, stream, 0, self.splitter.line_cutter())
        counted = 0
        since = 0
        ended = False
        try:
            while counted < budget:
                began = time.perf_counter()
                more = blocks.next_block()
                self.read_seconds += time.perf_counter() - began
                if not more:
                    ended = True
                    break
                data = blocks.data
                size = len(data)
                start = 0
                while start < size and counted < budget:
                    want = min(step - since, budget - counted)
                    cut = data.find(b"\n", start + want - 1) + 1 if start + want < size else size
                    if cut <= 0:
                        cut = size
                    part = data[start:cut]
                    try:
                        # (as training counts it: on bytes where the pipeline allows)
                        self.splitter.count_bytes(source.path, part, blocks.offset + start, cut < size or blocks.complete, self.counts)
                    except CorpusError as error:
                        raise in_decompressed(error) from None
                    if self.with_lines:
                        self.lines += part.count(b"\n")
                    counted += cut - start
                    since += cut - start
                    self.text += cut - start
                    start = cut
                    if since >= step:
                        self._point()
                        since = 0
            return stream.produced, stream.raw_done, ended
        finally:
            blocks.close()

    def _read_texts(self, source: CorpusSource, budget: int, step: int) -> tuple[int, int, bool]:
        """Count the texts of JSON Lines records or Parquet/Arrow values (each split whole) up
        to `budget` bytes, a point every `step` bytes: (text bytes handed over, file bytes read,
        whether it was read to the end)."""
        reader = open_texts(source)
        counts = self.counts
        splitter = self.splitter
        seen = 0
        counted = 0
        since = 0
        ended = False
        try:
            while counted < budget:
                began = time.perf_counter()
                batch = reader.next_texts()
                self.read_seconds += time.perf_counter() - began
                if batch is None:
                    ended = True
                    break
                for text in batch:
                    size = len(text.encode("utf-8"))
                    seen += size
                    if counted >= budget:
                        continue
                    for word in splitter.words(text):
                        counts[word] = counts.get(word, 0) + 1
                    counted += size
                    since += size
                    self.text += size
                    self.lines += 1
                    if since >= step:
                        self._point()
                        since = 0
            return seen, reader.raw_done(), ended
        finally:
            reader.close()

    def _point(self) -> None:
        self.splitter.flush(self.counts)
        self.sizes.append(self.text)
        self.distinct.append(len(self.counts))

    def text_of(self, index: int, source: CorpusSource) -> float:
        """The bytes of text of input `index`: as its first part showed, or (not sampled) as
        much per file byte as the sampled inputs of its kind had (1 when none was sampled)."""
        if index in self.texts:
            return self.texts[index]
        kind = _kind(source)
        text = self.kind_text.get(kind, 0)
        raw = self.kind_raw.get(kind, 0)
        return source.size * text / raw if raw > 0 and text > 0 else float(source.size)


def _kind(source: CorpusSource) -> str:
    """`source_of("a.jsonl.gz")` -> "jsonl/gz"."""
    return source.format + "/" + source.compression


def _count_piece(tokenizer: Tokenizer, piece: FileSlice, sentences: bool) -> dict[str, int]:
    """The words (whole lines: `sentences`) of one slice; an empty (or wordless) slice has none
    instead of an error."""
    if piece.size == 0:
        return {}
    try:
        return tokenizer.count_words([piece], None, 1, sentences=sentences)
    except CorpusError as error:
        if error.reason.startswith("no words to train on"):
            return {}
        raise


def spread(units: list[FileSlice | CorpusSource], total: int, sample_bytes: int, parts: int) -> list[FileSlice | Prefix]:
    """`parts` pieces of about sample_bytes / parts each, at evenly spaced places of the inputs
    read one after another: in a plain file, a slice centred there (both ends cut by
    `_sample_cut`); in any other input, its first part (the pieces falling in one input together)."""
    each = max(1, sample_bytes // parts)
    found: list[FileSlice | Prefix] = []
    last = len(units) - 1
    for i in range(parts):
        centre = (2 * i + 1) * total // (2 * parts)
        offset = 0
        for index in range(len(units)):
            piece = units[index]
            if centre < offset + piece.size or index == last:
                if isinstance(piece, CorpusSource):
                    before = found[-1] if found else None
                    if isinstance(before, Prefix) and before.index == index:
                        before.budget += each
                    else:
                        found.append(Prefix(index, piece, each))
                    break
                inside = min(max(centre - offset, 0), piece.size)
                start_at = piece.start + max(0, inside - each // 2)
                end_at = min(piece.end, start_at + each)
                start = _sample_cut(piece.path, start_at, piece.end, each) if start_at > piece.start else piece.start
                end = _sample_cut(piece.path, end_at, piece.end, each) if end_at < piece.end else piece.end
                if end > start:
                    found.append(FileSlice(piece.path, start, end))
                break
            offset += piece.size
    return found


def _sample_cut(path: str, offset: int, end: int, reach: int) -> int:
    """Where a sample slice starts or ends near `offset` (below `end`): the first line start at
    or after it within `reach` bytes; in a longer line, just after the first space or tab
    there, else the first UTF-8 character start. So a file of one huge line is sampled where
    asked, as training reads it (in bounded chunks), instead of not at all.

    b"ab\ncd" at 1 -> 3; b"ab cd" at 1 (no line start near) -> 3; b"a\xc3\xa9b" at 2 -> 3."""
    if offset <= 0:
        return 0
    try:
        with open(path, "rb") as stream:
            stream.seek(offset - 1)
            data = stream.read(min(reach, end - offset) + 1)
    except OSError as error:
        raise CorpusError(path, f"cannot be read ({error.strerror or error})") from None
    found = data.find(b"\n")
    if found < 0:
        space = data.find(b" ")
        tab = data.find(b"\t")
        found = min(space, tab) if space >= 0 and tab >= 0 else max(space, tab)
    if found >= 0:
        return min(offset + found, end)
    for i in range(1, len(data)):
        if data[i] & 0xC0 != 0x80:
            return offset - 1 + i
    return end
