"""Training words counted on their bytes: no object is made per occurrence, and
none per distinct word of up to 7 bytes until the end (issue 25: counting was three quarters of
a 40 MB BPE training, and mypyc makes str-keyed counting only twice as fast).

`count_lines` scans each line of a block as a `ByteScan` says: GPT-2's pattern on ASCII classes
(the scan of `scanners.gpt2_ascii_words`, on bytes), or runs of byte classes (BERT's,
Whitespace's and WhitespaceSplit's splits), ASCII lowercased or not, and counts each word in a
`WordTable` of native ints. A line holding a byte the scan cannot decide (past ASCII; a control
a normalizer may delete) is not scanned: its bounds are handed back, to be counted as text.
But GPT-2's pattern with no normalizer (`ByteScan.utf8`) scans lines past ASCII too, on their
UTF-8 bytes (`byte_splits.gpt2_utf8_bounds`); only a line that is not valid UTF-8 is handed
back (the text path names its bad byte). `WordTable.add_to` gives the words: b" the" ->
"Ġthe", b"\xc3\xa9" -> "Ã©" for GPT-2's, b"the" -> "the" else.
Which pipelines qualify is `engine.corpus.chunking.byte_scan`'s. Exactness against the
pipelines' own `split_words` is tested in tests/engine/test_byte_words.py.
"""

from __future__ import annotations

from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

from engine import byte_level
from engine.byte_splits import (
    EMPTY,
    GPT2_CLASSES,
    LOWER_CASE,
    SAME_CASE,
    SHORT,
    UNDECIDED,
    bounds_room,
    doubled,
    folded_word,
    gpt2_bounds,
    gpt2_utf8_bounds,
    is_digit,
    is_letter,
    short_length,
    slot_for,
    slot_of,
    word_key,
)

__all__ = ["GPT2_CLASSES", "LOWER_CASE", "SAME_CASE", "ByteScan", "WordTable", "count_lines"]

# The classes of a byte for the scans of runs (BERT's, Whitespace's, WhitespaceSplit's):
# dropped, alone, or in a run of its class. UNDECIDED bytes (past ASCII, and the controls a
# normalizer may delete) send their line to be counted as text.
DROP: Final = 0
ALONE: Final = 1
WORD: Final = 2
NOT_WORD: Final = 3


def _run_classes(kind: str) -> bytes:
    out = bytearray(256)
    for b in range(256):
        space = b == 0x20 or b == 0x09 or b == 0x0A or b == 0x0D
        control = b < 0x20 and not space or b == 0x7F
        if b >= 0x80 or control:
            out[b] = UNDECIDED
        elif space:
            out[b] = DROP
        elif kind == "bert":
            out[b] = WORD if is_letter(b) or is_digit(b) else ALONE
        elif kind == "whitespace":
            out[b] = WORD if is_letter(b) or is_digit(b) or b == 0x5F else NOT_WORD
        else:
            out[b] = WORD
    return bytes(out)


BERT_CLASSES: Final = _run_classes("bert")
WHITESPACE_CLASSES: Final = _run_classes("whitespace")
WHITESPACE_SPLIT_CLASSES: Final = _run_classes("whitespace_split")


class ByteScan:
    """How a pipeline's ASCII lines (and with `utf8`, its other lines) are split on bytes:
    GPT-2's pattern (`gpt2`, with `add_prefix_space`) or runs of `classes`; `lower`: ASCII
    lowercased first; `byte_level`: the words are written as byte-level chars."""

    gpt2: bool
    add_prefix_space: bool
    classes: bytes
    lower: bool
    byte_level: bool
    # GPT-2's split of lines past ASCII on their bytes too (no normalizer: their chars are as
    # they are read)
    utf8: bool

    def __init__(self, gpt2: bool, add_prefix_space: bool, classes: bytes, lower: bool, utf8: bool = False) -> None:
        self.gpt2 = gpt2
        self.add_prefix_space = add_prefix_space
        self.classes = classes
        self.lower = lower
        self.byte_level = gpt2
        self.utf8 = utf8 and gpt2 and not lower


# Between the words of a packed table: no word holds it (nor does any UTF-8 text).
SEPARATOR: Final = 0xFF
SEPARATOR_CHAR: Final = "\xff"


class WordTable:
    """word bytes -> count, by open addressing over native ints, in the order words are first
    seen. `cells` holds two ints a slot: (key, count) for a short word, which needs no object
    at all; (key, entry) for a long one, whose bytes and count are its entry's in `words` and
    `long_counts`. One probe usually touches one cache line."""

    # every byte as it is counted (SAME_CASE, or LOWER_CASE); whether `add_to` writes the words
    # as byte-level chars
    fold: bytes
    byte_level: bool
    cells: vec[i64]
    mask: i64
    used: i64
    # each word in the order first seen: a short word's key, or -1 - entry for a long one
    order: vec[i64]
    words: list[bytes]
    long_counts: vec[i64]

    def __init__(self, fold: bytes = SAME_CASE, byte_level: bool = True) -> None:
        self.fold = fold
        self.byte_level = byte_level
        self.clear()

    def __len__(self) -> int:
        return self.used

    def clear(self) -> None:
        self.cells = vec[i64]([EMPTY] * 2048)
        self.mask = 1023
        self.used = 0
        self.order = vec[i64]()
        self.words = []
        self.long_counts = vec[i64]()

    def add(self, data: bytes, start: i64, end: i64, prefixed: bool, times: i64 = 1) -> None:
        """Count the word data[start:end], after a " " if `prefixed` (GPT-2's prefix space),
        `times` times."""
        length = end - start + 1 if prefixed else end - start
        if length > SHORT:
            self._add_long(data, start, end, prefixed, times)
            return
        # subtle: `byte_splits.word_key` and `slot_for` written out for the short word, every
        # word of a corpus: as calls they made counting a third slower (40 MB of gcide, one
        # process, alternating builds: the C compiler does not inline them).
        fold = self.fold
        key: i64 = 32 if prefixed else 0
        shift: i64 = 8 if prefixed else 0
        i = start
        while i < end:
            b: i64 = fold[data[i]]
            key |= b << shift
            shift += 8
            i += 1
        key |= length << 56
        cells = self.cells
        mask = self.mask
        s = slot_of(key) & mask
        while True:
            found = cells[2 * s]
            if found == key:
                cells[2 * s + 1] += times
                return
            if found == EMPTY:
                self._insert(s, key, times)
                self.order = append(self.order, key)
                return
            s = (s + 1) & mask

    def _add_long(self, data: bytes, start: i64, end: i64, prefixed: bool, times: i64) -> None:
        fold = self.fold
        key = word_key(data, start, end, prefixed, fold)
        cells = self.cells
        s = slot_for(cells, self.mask, key, self.words, data, start, end, prefixed, fold)
        if cells[2 * s] != EMPTY:
            self.long_counts[cells[2 * s + 1]] += times
            return
        entry = len(self.words)
        self.words.append(folded_word(data, start, end, prefixed, fold))
        self.long_counts = append(self.long_counts, times)
        self._insert(s, key, entry)
        self.order = append(self.order, -1 - entry)

    def _insert(self, s: i64, key: i64, value: i64) -> None:
        self.cells[2 * s] = key
        self.cells[2 * s + 1] = value
        self.used += 1
        if 2 * self.used > self.mask:
            self._grow()

    def _grow(self) -> None:
        self.cells = doubled(self.cells)
        self.mask = len(self.cells) // 2 - 1

    def _short_count(self, key: i64) -> i64:
        s = slot_of(key) & self.mask
        while self.cells[2 * s] != key:
            s = (s + 1) & self.mask
        return self.cells[2 * s + 1]

    def pack(self) -> tuple[bytes, list[int]]:
        """The words in the order first seen, joined by SEPARATOR, and their counts; then start
        over empty. `absorb` adds them to another table (a counting process's share to the
        parent's): b"a\xff b" and [2, 1] for "a" twice and " b" once."""
        joined = bytearray()
        counts: list[int] = []
        for known in self.order:
            if known >= 0:
                length = short_length(known)
                shift: i64 = 0
                while shift < 8 * length:
                    joined.append((known >> shift) & 0xFF)
                    shift += 8
                counts.append(self._short_count(known))
            else:
                joined += self.words[-1 - known]
                counts.append(self.long_counts[-1 - known])
            joined.append(SEPARATOR)
        self.clear()
        return bytes(joined), counts

    def absorb(self, joined: bytes, counts: list[int]) -> None:
        """Count the words of another table's `pack` here."""
        start: i64 = 0
        k = 0
        n: i64 = len(joined)
        while start < n:
            end = start
            while joined[end] != SEPARATOR:
                end += 1
            self.add(joined, start, end, False, counts[k])
            k += 1
            start = end + 1

    def add_to(self, counts: dict[str, int]) -> None:
        """Add every word, as its byte-level chars, to `counts` (in the order first seen); then
        start over empty."""
        joined, times = self.pack()
        # subtle: the words' chars all at once, by C loops: printable ASCII and most of Latin-1
        # (the separator "ÿ" too) are their own byte-level chars, so only the spaces, controls
        # and the 34 others present are replaced (4x faster than `translate`, which looks each
        # char up in a dict).
        text = joined.decode("latin-1")
        for b in range(0x100 if self.byte_level else 0):
            char = chr(b)
            if byte_level.BYTES_TO_UNICODE[b] != char and char in text:
                text = text.replace(char, byte_level.BYTES_TO_UNICODE[b])
        words = text.split(SEPARATOR_CHAR)
        for k in range(len(times)):
            word = words[k]
            counts[word] = counts.get(word, 0) + times[k]


def count_lines(data: bytes, table: WordTable, scan: ByteScan) -> vec[i64]:
    """Count the words of every line of `data` (each ends with "\n" but maybe the last) into
    `table`, as the pipeline `scan` stands for gives them for each line; the lines holding an
    UNDECIDED byte are left out (with `scan.utf8`, only those that are not valid UTF-8), their
    (start, end) returned in order, flat.

    GPT-2's, ASCII only: b"a b\n\xc3\xa9\n" -> counts b"a", b" b\n"; returns [4, 7].
    """
    skipped = vec[i64]()
    bounds = vec[i64]()
    n: i64 = len(data)
    classes = scan.classes
    # subtle: GPT-2's classes decide every ASCII byte, so an ASCII block needs no look per byte
    checked = not (scan.gpt2 and data.isascii())
    start: i64 = 0
    while start < n:
        end = start
        plain = True
        if checked:
            while end < n and data[end] != 10:
                if classes[data[end]] == UNDECIDED:
                    plain = False
                end += 1
        else:
            while end < n and data[end] != 10:
                end += 1
        if end < n:
            end += 1  # the line's "\n"
        if not plain and scan.utf8 and _valid_utf8(data, start, end):
            bounds = _count_gpt2_line(data, start, end, table, scan.add_prefix_space, bounds, True)
        elif not plain:
            skipped = append(skipped, start)
            skipped = append(skipped, end)
        elif scan.gpt2:
            bounds = _count_gpt2_line(data, start, end, table, scan.add_prefix_space, bounds)
        else:
            _count_runs(data, start, end, table, classes)
        start = end
    return skipped


def _count_runs(data: bytes, start: i64, end: i64, table: WordTable, classes: bytes) -> None:
    """The words of data[start:end]: runs of bytes of one class, DROP bytes dropped, ALONE ones
    a word each (BERT's punctuation)."""
    i = start
    while i < end:
        kind = classes[data[i]]
        if kind == DROP:
            i += 1
            continue
        j = i + 1
        if kind != ALONE:
            while j < end and classes[data[j]] == kind:
                j += 1
        table.add(data, i, j, False)
        i = j


def _valid_utf8(data: bytes, start: i64, end: i64) -> bool:
    """Whether data[start:end] decodes as UTF-8 (strictly, as the text path decodes it)."""
    try:
        data[start:end].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _count_gpt2_line(
    data: bytes, start: i64, end: i64, table: WordTable, add_prefix_space: bool, bounds: vec[i64], utf8: bool = False
) -> vec[i64]:
    """Count the words of GPT-2's split of the ASCII line data[start:end] (`gpt2_bounds`), or
    with `utf8` of the valid UTF-8 one (`gpt2_utf8_bounds`, no fold); `bounds` is room for the
    scan, given back (grown if need be) to be used again."""
    bounds = bounds_room(bounds, end - start)
    if utf8:
        n = gpt2_utf8_bounds(data, start, end, add_prefix_space, bounds)
    else:
        n = gpt2_bounds(data, start, end, add_prefix_space, table.fold, bounds)
    prefixed = add_prefix_space and start < end and data[start] != 32
    for k in range(0, n, 2):
        table.add(data, bounds[k], bounds[k + 1], prefixed and k == 0)
    return bounds
