"""Words of a text found and keyed on its bytes, without an object per word: GPT-2's split
scanned on ASCII bytes (`gpt2_bounds`) and on any UTF-8 (`gpt2_utf8_bounds`, each char's class
from the tables HF's Oniguruma classes were measured into), cl100k's split (GPT-4's, Llama 3's,
Qwen2's: `cl100k_bounds`), and a word's key as a native int (`word_key`).

Two users, the same scans and keys (issue 25): training counts words on bytes
(`engine.corpus.byte_words`), and the encode fast path looks each word of a line up in the BPE
model's byte-keyed cache (`engine.models.bpe.byte_runs`). `scanners.gpt2_ascii_words`,
GPT-2's split of an ASCII str, is the ASCII scan too.

A key: a word of up to SHORT bytes is its own key (its bytes, the first lowest, its length in
the top byte), so looking it up needs no object; a longer word's key is LONG in the top byte and
a hash of its bytes, and a table keeps its bytes to compare (`same_word`).
"""

from __future__ import annotations

from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

from engine import unicode_tables as tables

# GPT-2's classes of an ASCII byte (the pattern's \p{L}, \p{N}, \s and the rest). A byte past
# ASCII is UNDECIDED: its line is not split here.
OTHER: Final = 0
LETTER: Final = 1
DIGIT: Final = 2
SPACE: Final = 3
UNDECIDED: Final = 255


def is_letter(b: int) -> bool:
    return 0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A


def is_digit(b: int) -> bool:
    return 0x30 <= b <= 0x39


def _gpt2_classes() -> bytes:
    out = bytearray(256)
    for b in range(256):
        if b >= 0x80:
            out[b] = UNDECIDED
        elif is_letter(b):
            out[b] = LETTER
        elif is_digit(b):
            out[b] = DIGIT
        elif b in (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20):
            out[b] = SPACE
    return bytes(out)


GPT2_CLASSES: Final = _gpt2_classes()
# A byte as it is read: as it is, or ASCII lowercased (a lowercasing normalizer, for counting).
SAME_CASE: Final = bytes(range(256))
LOWER_CASE: Final = bytes(b + 32 if 0x41 <= b <= 0x5A else b for b in range(256))


def bounds_room(out: vec[i64], n_bytes: i64) -> vec[i64]:
    """`out`, or a longer vec if it is too short to hold the bounds `gpt2_bounds` writes for
    `n_bytes` bytes: 2 * n_bytes + 2 ints (a word a byte, and the prefix space's word, which
    may hold no byte of the text: " " before a tab)."""
    if len(out) >= 2 * n_bytes + 2:
        return out
    return vec[i64]([0] * (4 * n_bytes + 4))


def contraction_end(data: bytes, i: i64, end: i64, fold: bytes) -> i64:
    """Where the contraction GPT-2's and cl100k's patterns start with ('s 't 're 've 'm 'll 'd,
    read through `fold`) ends if data[i] (a "'") starts one before `end`, else i."""
    if i + 1 >= end:
        return i
    d: i64 = fold[data[i + 1]]
    if d == 115 or d == 116 or d == 109 or d == 100:  # s t m d
        return i + 2
    if i + 2 < end:
        e: i64 = fold[data[i + 2]]
        if (d == 114 and e == 101) or (d == 118 and e == 101) or (d == 108 and e == 108):  # re ve ll
            return i + 3
    return i


def gpt2_bounds(data: bytes, start: i64, end: i64, add_prefix_space: bool, fold: bytes, out: vec[i64]) -> i64:
    """Write the (start, end) of each word of GPT-2's split of the ASCII data[start:end] into
    `out` (`bounds_room(out, end - start)` long), one pair after the other, and
    return how many ints that is. With `add_prefix_space` and a first byte other than " ", the
    first word is " " + data[its start:its end] (HF's ByteLevel inserts that space).

    The pattern's alternatives, in its order: 's 't 're 've 'm 'll 'd; an optional space then
    letters, digits or other chars; a run of spaces that leaves its last one to the word after
    it; a run of spaces. The contractions are matched after `fold` ("'S" lowercased is "'s").

    b"it's  ok" -> (0, 2) (2, 4) (4, 5) (5, 8): "it" "'s" " " " ok".
    """
    i = start
    n: i64 = 0
    if add_prefix_space and start < end and data[start] != 32:
        # The prefix " " starts the first word: " " + a run of the first byte's class, or a
        # run of spaces (the prefix with them) that leaves its last one to the next word.
        kind = GPT2_CLASSES[data[start]]
        j = start + 1
        while j < end and GPT2_CLASSES[data[j]] == kind:
            j += 1
        if kind == SPACE and j < end:
            j -= 1
        out[0] = start
        out[1] = j
        n = 2
        i = j
    while i < end:
        c = data[i]
        if c == 39:  # "'"
            j = contraction_end(data, i, end, fold)
            if j > i:
                out[n] = i
                out[n + 1] = j
                n += 2
                i = j
                continue
        kind = GPT2_CLASSES[c]
        j = i
        if c == 32 and i + 1 < end and GPT2_CLASSES[data[i + 1]] != SPACE:
            j = i + 1  # " ?X": the space starts the word
            kind = GPT2_CLASSES[data[j]]
        if kind != SPACE:
            j += 1
            while j < end and GPT2_CLASSES[data[j]] == kind:
                j += 1
        else:
            j = i + 1
            while j < end and GPT2_CLASSES[data[j]] == SPACE:
                j += 1
            if j < end and j - i > 1:
                j -= 1  # \s+(?!\S): the last space goes with the next word
        out[n] = i
        out[n + 1] = j
        n += 2
        i = j
    return n


EMPTY: Final[i64] = 0
SHORT: Final[i64] = 7
LONG: Final[i64] = 8 << 56
# subtle: masking keeps (h * 31 + b) and the slot's product far from i64 overflow in compiled
# code, and gives the same values in the pure build, where ints never wrap.
HASH_MASK: Final[i64] = (1 << 55) - 1
LOW_31: Final[i64] = (1 << 31) - 1
GOLDEN: Final[i64] = 0x9E3779B1


def word_key(data: bytes, start: i64, end: i64, prefixed: bool, fold: bytes) -> i64:
    """The key of the word data[start:end] as `fold` reads it, after a " " if `prefixed`:
    b"ab" -> 0x61 | 0x62 << 8 | 2 << 56; a word of more than SHORT bytes -> LONG | its hash."""
    length = end - start + 1 if prefixed else end - start
    i = start
    if length > SHORT:
        h: i64 = 32 if prefixed else 0
        while i < end:
            h = (h * 31 + fold[data[i]]) & HASH_MASK
            i += 1
        return LONG | h
    key: i64 = 32 if prefixed else 0
    shift: i64 = 8 if prefixed else 0
    while i < end:
        b: i64 = fold[data[i]]
        key |= b << shift
        shift += 8
        i += 1
    return key | (length << 56)


def is_long(key: i64) -> bool:
    """Whether `key` stands for a word of more than SHORT bytes (a table keeps its bytes)."""
    return key >= LONG


def short_length(key: i64) -> i64:
    """How many bytes the short word of `key` has."""
    return key >> 56


def slot_of(key: i64) -> i64:
    """Where a table of open addressing starts looking for `key` (mask it to the table's size)."""
    folded = key ^ (key >> 23) ^ (key >> 41)
    return ((folded & LOW_31) * GOLDEN) >> 16


def slot_for(
    cells: vec[i64], mask: i64, key: i64, words: list[bytes], data: bytes, start: i64, end: i64, prefixed: bool, fold: bytes
) -> i64:
    """The slot of a table of open addressing over (key, value) cells that holds the word
    data[start:end] (read through `fold`, after a " " if `prefixed`), whose key is `key`: where
    it is, or the EMPTY slot where it would go. A long word's value is its entry in `words`, whose
    bytes tell words of one hash apart."""
    long = is_long(key)
    s = slot_of(key) & mask
    while True:
        found = cells[2 * s]
        if found == EMPTY:
            return s
        if found == key and (not long or same_word(words[cells[2 * s + 1]], data, start, end, prefixed, fold)):
            return s
        s = (s + 1) & mask


def doubled(cells: vec[i64]) -> vec[i64]:
    """A table of open addressing over (key, value) cells, EMPTY keys free, with twice as many
    slots holding the same pairs (its mask: half its length, less one)."""
    cells_out = vec[i64]([EMPTY] * (2 * len(cells)))
    mask: i64 = len(cells) - 1
    for k in range(0, len(cells), 2):
        key = cells[k]
        if key != EMPTY:
            s = slot_of(key) & mask
            while cells_out[2 * s] != EMPTY:
                s = (s + 1) & mask
            cells_out[2 * s] = key
            cells_out[2 * s + 1] = cells[k + 1]
    return cells_out


def same_word(word: bytes, data: bytes, start: i64, end: i64, prefixed: bool, fold: bytes) -> bool:
    """Whether `word` is data[start:end] folded (after a " " if `prefixed`)."""
    k: i64 = 0
    if prefixed:
        if len(word) != end - start + 1 or word[0] != 32:
            return False
        k = 1
    elif len(word) != end - start:
        return False
    i = start
    while i < end:
        if word[k] != fold[data[i]]:
            return False
        i += 1
        k += 1
    return True


def folded_word(data: bytes, start: i64, end: i64, prefixed: bool, fold: bytes) -> bytes:
    """The bytes `same_word` compares with: data[start:end] folded, after a " " if `prefixed`."""
    word = data[start:end].translate(fold)
    return b" " + word if prefixed else word


class _UnicodeClasses:
    """GPT-2's class of every code point, a byte each (OTHER, LETTER, DIGIT for the pattern's
    \\p{N}, SPACE), from the tables the pattern's Oniguruma classes were measured into
    (`scanners.GPT2_RE`'s): made at the first line past ASCII, 1.1 MB."""

    table: bytes

    def __init__(self) -> None:
        self.table = b""

    def get(self) -> bytes:
        if not self.table:
            out = bytearray(0x110000)
            # (the tables do not overlap: tests/engine/test_fast_path.py)
            for spec, kind in ((tables.ONIG_NUMBER, DIGIT), (tables.ONIG_LETTER, LETTER), (tables.WHITESPACE, SPACE)):
                for low, high in tables.parse_ranges(spec):
                    out[low : high + 1] = bytes([kind]) * (high - low + 1)
            self.table = bytes(out)
        return self.table


UNICODE_CLASSES: Final = _UnicodeClasses()


def char_width(lead: i64) -> i64:
    """How many bytes the UTF-8 char whose first byte is `lead` has."""
    return 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


def _class_at(data: bytes, i: i64, classes: bytes) -> i64:
    """GPT-2's class of the UTF-8 char starting at data[i] (`classes`: `UNICODE_CLASSES`)."""
    c: i64 = data[i]
    if c < 0x80:
        return GPT2_CLASSES[c]
    if c < 0xE0:
        code = ((c & 0x1F) << 6) | (data[i + 1] & 0x3F)
    elif c < 0xF0:
        code = ((c & 0x0F) << 12) | ((data[i + 1] & 0x3F) << 6) | (data[i + 2] & 0x3F)
    else:
        code = ((c & 0x07) << 18) | ((data[i + 1] & 0x3F) << 12) | ((data[i + 2] & 0x3F) << 6) | (data[i + 3] & 0x3F)
    return classes[code]


def gpt2_utf8_bounds(data: bytes, start: i64, end: i64, add_prefix_space: bool, out: vec[i64]) -> i64:
    """`gpt2_bounds` of the valid UTF-8 data[start:end], any text (no fold): the bounds fall at
    char starts, counted in bytes. A char past ASCII is a letter, a number, a space or other by
    `UNICODE_CLASSES`; a run of spaces that leaves its last one to the next word leaves it a
    whole char.

    "née  là".encode() -> (0, 4) (4, 5) (5, 9): "née" " " " là".
    """
    classes = UNICODE_CLASSES.get()
    i = start
    n: i64 = 0
    if add_prefix_space and start < end and data[start] != 32:
        # The prefix " " starts the first word: " " + a run of the first char's class, or a
        # run of spaces (the prefix with them) that leaves its last one to the next word.
        kind = _class_at(data, start, classes)
        last = start
        j = start + char_width(data[start])
        while j < end and _class_at(data, j, classes) == kind:
            last = j
            j += char_width(data[j])
        if kind == SPACE and j < end:
            j = last
        out[0] = start
        out[1] = j
        n = 2
        i = j
    while i < end:
        c: i64 = data[i]
        if c == 39:  # "'"
            j = contraction_end(data, i, end, SAME_CASE)
            if j > i:
                out[n] = i
                out[n + 1] = j
                n += 2
                i = j
                continue
        kind = _class_at(data, i, classes)
        j = i
        if c == 32 and i + 1 < end:
            after = _class_at(data, i + 1, classes)
            if after != SPACE:
                j = i + 1  # " ?X": the space starts the word
                kind = after
        if kind != SPACE:
            j += char_width(data[j])
            while j < end and _class_at(data, j, classes) == kind:
                j += char_width(data[j])
        else:
            last = i
            j = i + char_width(c)
            while j < end and _class_at(data, j, classes) == SPACE:
                last = j
                j += char_width(data[j])
            if j < end and last > i:
                j = last  # \s+(?!\S): the last space goes with the next word
        out[n] = i
        out[n + 1] = j
        n += 2
        i = j
    return n


# The split of GPT-4's cl100k pattern (Llama 3's and Qwen2's pre-tokenizer, before a ByteLevel
# without its regex), `CL100K_PATTERN`, and Qwen2's, whose numbers go one char at a time.
CL100K_PATTERN: Final = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
QWEN2_PATTERN: Final = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def _line_break(b: i64) -> bool:
    return b == 10 or b == 13


def cl100k_bounds(data: bytes, start: i64, end: i64, numbers: i64, out: vec[i64]) -> i64:
    """Write the (start, end) of each piece of `CL100K_PATTERN`'s split of the valid UTF-8
    data[start:end] into `out` (`bounds_room` long), as `gpt2_bounds` does, and return how
    many ints that is; `numbers` is how many number chars a piece holds at most (3; Qwen2's
    pattern: 1). Each alternative of the pattern, in its order, with the regex's
    backtracking written out:

    - 's 't 're 've 'm 'll 'd, in any case ("'ſ" too);
    - a char that is no line break, letter or number if a letter follows it, then letters;
    - 1 to `numbers` numbers;
    - an optional " " then chars that are no space, letter or number, then line breaks;
    - spaces up to the last line break among them, if there is one;
    - spaces but the last one (a whole char) when something other than a space follows;
    - spaces.

    b"I'M  fine.\\n\\n 12345" -> "I" "'M" " " " fine" ".\\n\\n" " " "123" "45".
    """
    classes = UNICODE_CLASSES.get()
    i = start
    n: i64 = 0
    while i < end:
        c: i64 = data[i]
        if c == 39:  # "'"
            j = contraction_end(data, i, end, LOWER_CASE)
            if j == i and i + 2 < end and data[i + 1] == 0xC5 and data[i + 2] == 0xBF:
                # "'ſ": (?i) folds the long s to "s", the one char past ASCII that folds into a
                # contraction (every code point checked against HF's Oniguruma)
                j = i + 3
            if j > i:
                out[n] = i
                out[n + 1] = j
                n += 2
                i = j
                continue
        kind = _class_at(data, i, classes)
        width = char_width(c)
        j = i
        if kind == LETTER or (
            not _line_break(c) and kind != DIGIT and i + width < end and _class_at(data, i + width, classes) == LETTER
        ):
            # [^\r\n\p{L}\p{N}]?\p{L}+
            j = i + width
            while j < end and _class_at(data, j, classes) == LETTER:
                j += char_width(data[j])
        elif kind == DIGIT:
            j = i + width
            count: i64 = 1
            while count < numbers and j < end and _class_at(data, j, classes) == DIGIT:
                j += char_width(data[j])
                count += 1
        elif kind == OTHER or (c == 32 and i + 1 < end and _class_at(data, i + 1, classes) == OTHER):
            # " ?[^\s\p{L}\p{N}]+[\r\n]*"
            j = i + 1 if kind != OTHER else i
            while j < end and _class_at(data, j, classes) == OTHER:
                j += char_width(data[j])
            while j < end and _line_break(data[j]):
                j += 1
        else:
            # spaces: up to their last line break; else all of them, or all but the last one
            # when something follows
            last = i
            last_break: i64 = -1
            j = i
            while j < end and _class_at(data, j, classes) == SPACE:
                if _line_break(data[j]):
                    last_break = j
                last = j
                j += char_width(data[j])
            if last_break >= 0:
                j = last_break + 1
            elif j < end and last > i:
                j = last
        out[n] = i
        out[n + 1] = j
        n += 2
        i = j
    return n
