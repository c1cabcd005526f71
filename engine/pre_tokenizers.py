"""The pre-tokenize stage: HF's pre-tokenizers (Whitespace ... ByteLevel, Metaspace, Sequence), JSON in and out.

Each cuts a `PreTokenizedString` into pieces with offsets, and has `split_words`, a string-only fast path
giving the same pieces (the hot path of counting training words). No model or normalizer logic here.
"""

from __future__ import annotations

import collections.abc
from abc import abstractmethod
from bisect import bisect_right
from typing import Final

import regex
from librt.vecs import append, vec
from mypy_extensions import i64, mypyc_attr

from engine import byte_level, metaspace
from engine import unicode_tables as tables
from engine.errors import EngineError, SchemaError
from engine.schema import JsonValue, as_count, check_nesting, expect_object, get_bool, get_char, get_list, require, type_tag
from engine.normalizers.normalized import NormalizedString
from engine.pattern import (
    BEHAVIOR_FROM_JSON,
    BEHAVIOR_JSON,
    ISOLATED,
    Regex,
    as_regex,
    check_behavior,
    cover,
    find_matches_compiled,
    pattern_from_dict,
    pattern_to_dict,
    split_spans,
)
from engine.normalizers import byte_level_transform
from engine.pretokenized import PieceSplitter, PreTokenizedString
from engine import unicode_chars as uc
from engine.unicode_chars import DualPattern, slot

# (builtin `regex` class body, measured HF table) pairs for DualPattern templates.
SPACE: Final = ("\\s", tables.WHITESPACE)
# ASCII punctuation written out, since \p{P} leaves out $+<=>^`|~.
PUNCT: Final = ("\\p{P}!-/:-@\\[-`{-~", tables.PUNCTUATION)
NUMERIC: Final = ("\\p{N}", tables.NUMERIC)
SLOT0: Final = slot(0)
SLOT1: Final = slot(1)
SLOT2: Final = slot(2)
# Whitespace: `\w+|[^\w\s]+` with the Rust regex crate's classes.
WHITESPACE_RE: Final = DualPattern(
    f"[{SLOT0}]+|[^{SLOT0}{SLOT1}]+", [("\\w", tables.RUST_WORD), SPACE], ascii=True
)
NOT_SPACES_RE: Final = DualPattern(f"[^{SLOT0}]+", [SPACE], ascii=True)
BERT_RE: Final = DualPattern(f"[{SLOT0}]|[^{SLOT0}{SLOT1}]+", [PUNCT, SPACE], ascii=True)
PUNCT_RE: Final = DualPattern(f"[{SLOT0}]", [PUNCT], ascii=True)
PUNCT_PIECES_RE: Final = DualPattern(f"[{SLOT0}]|[^{SLOT0}]+", [PUNCT], ascii=True)
DIGITS_INDIVIDUAL_RE: Final = DualPattern(f"[{SLOT0}]|[^{SLOT0}]+", [NUMERIC], ascii=True)
DIGITS_CONTIGUOUS_RE: Final = DualPattern(f"[{SLOT0}]+|[^{SLOT0}]+", [NUMERIC], ascii=True)
# GPT-2's pattern, with Oniguruma's \p{L} \p{N} \s (\S is [^\s]).
GPT2_RE: Final = DualPattern(
    f"'s|'t|'re|'ve|'m|'ll|'d| ?[{SLOT0}]+| ?[{SLOT1}]+| ?[^{SLOT2}{SLOT0}{SLOT1}]+"
    f"|[{SLOT2}]+(?![^{SLOT2}])|[{SLOT2}]+",
    [("\\p{L}", tables.ONIG_LETTER), ("\\p{N}", tables.ONIG_NUMBER), SPACE],
)

RUN_DROP: Final = 0
RUN_SINGLE: Final = -1


class AsciiRuns:
    """A split made of runs of char classes, scanned directly on ASCII text (about twice as fast
    as the regex): each char of `classes` (by code point, 128 entries) is dropped (RUN_DROP),
    a piece alone (RUN_SINGLE), or joins the run of its class (> 0) it is in.

    Whitespace's `\\w+|[^\\w\\s]+` is runs of word chars (1) and of other chars (2), spaces
    dropped; BERT's is single punctuation chars and runs of the rest, spaces dropped.
    """

    classes: list[int]

    def __init__(self, classes: list[int]) -> None:
        self.classes = classes

    @staticmethod
    def of(single: str, runs: list[str], dropped: str) -> AsciiRuns:
        """Classes from `unicode_tables` specs: `runs[k]` is class k + 1; a char in no spec
        joins a run of its own class after them."""
        singles = uc.char_set(single, 0x80) if single else frozenset[str]()
        drops = uc.char_set(dropped, 0x80)
        run_sets = [uc.char_set(spec, 0x80) for spec in runs]
        classes: list[int] = []
        for cp in range(128):
            c = chr(cp)
            if c in drops:
                classes.append(RUN_DROP)
            elif c in singles:
                classes.append(RUN_SINGLE)
            else:
                found = len(run_sets) + 1
                for k in range(len(run_sets)):
                    if c in run_sets[k]:
                        found = k + 1
                        break
                classes.append(found)
        return AsciiRuns(classes)

    def cut(self, text: str) -> Cut:
        """The pieces of an ASCII `text`."""
        out = Cut()
        self._scan(text, out, True)
        return out

    def words(self, text: str) -> list[str]:
        """`cut(text).words`, without the positions (the word counting path)."""
        out = Cut()
        self._scan(text, out, False)
        return out.words

    def _scan(self, text: str, out: Cut, positions: bool) -> None:
        classes = self.classes
        n = len(text)
        i = 0
        while i < n:
            kind = classes[ord(text[i])]
            if kind == RUN_DROP:
                i += 1
                continue
            j = i + 1
            if kind != RUN_SINGLE:
                while j < n and classes[ord(text[j])] == kind:
                    j += 1
            if positions:
                out.add(text[i:j], i, j)
            else:
                out.words.append(text[i:j])
            i = j


WHITESPACE_RUNS: Final = AsciiRuns.of("", [tables.RUST_WORD], tables.WHITESPACE)
NOT_SPACES_RUNS: Final = AsciiRuns.of("", [], tables.WHITESPACE)
BERT_RUNS: Final = AsciiRuns.of(tables.PUNCTUATION, [], tables.WHITESPACE)


# ASCII classes of GPT-2's pattern for `gpt2_ascii_words`: 0 other, 1 letter, 2 digit, 3 space.
GPT2_OTHER: Final = 0
GPT2_LETTER: Final = 1
GPT2_DIGIT: Final = 2
GPT2_SPACE: Final = 3


def _gpt2_ascii_classes() -> list[int]:
    classes = [GPT2_OTHER] * 128
    for cp in range(128):
        c = chr(cp)
        if "A" <= c <= "Z" or "a" <= c <= "z":
            classes[cp] = GPT2_LETTER
        elif "0" <= c <= "9":
            classes[cp] = GPT2_DIGIT
        elif c in "\t\n\x0b\x0c\r ":
            classes[cp] = GPT2_SPACE
    return classes


GPT2_ASCII_CLASSES: Final = _gpt2_ascii_classes()


def gpt2_ascii_words(text: str, mapped: str) -> list[str]:
    """GPT-2's split of an ASCII `text` (GPT2_RE), as the pieces of `mapped` (its byte-level
    chars, same length), by a scan of the chars: about twice as fast as the regex.

    The pattern's alternatives, in its order: 's 't 're 've 'm 'll 'd; an optional space then
    letters, digits, or other chars; a run of spaces that leaves its last one to the word after it;
    a run of spaces.
    """
    classes = GPT2_ASCII_CLASSES
    words: list[str] = []
    n = len(text)
    i = 0
    while i < n:
        c = ord(text[i])
        if c == 39 and i + 1 < n:  # "'"
            d = text[i + 1]
            if d == "s" or d == "t" or d == "m" or d == "d":
                words.append(mapped[i : i + 2])
                i += 2
                continue
            if i + 2 < n:
                two = text[i + 1 : i + 3]
                if two == "re" or two == "ve" or two == "ll":
                    words.append(mapped[i : i + 3])
                    i += 3
                    continue
        kind = classes[c]
        j = i
        if c == 32 and i + 1 < n and classes[ord(text[i + 1])] != GPT2_SPACE:
            j = i + 1  # " ?X": the space starts the word
            kind = classes[ord(text[j])]
        if kind != GPT2_SPACE:
            j += 1
            while j < n and classes[ord(text[j])] == kind:
                j += 1
            words.append(mapped[i:j])
            i = j
            continue
        j = i + 1
        while j < n and classes[ord(text[j])] == GPT2_SPACE:
            j += 1
        if j < n and j - i > 1:
            j -= 1  # \s+(?!\S): the last space goes with the next word
        words.append(mapped[i:j])
        i = j
    return words


ANY_SCRIPT: Final = -1


def _script_table() -> tuple[list[int], list[int], list[int]]:
    starts: list[int] = []
    ends: list[int] = []
    classes: list[int] = []
    for word in tables.SCRIPTS.split():
        span, _, klass = word.partition(":")
        first, _, last = span.partition("-")
        starts.append(int(first, 16))
        ends.append(int(last or first, 16))
        classes.append(int(klass))
    return starts, ends, classes


SCRIPT_TABLE: Final = _script_table()
SCRIPT_STARTS: Final = SCRIPT_TABLE[0]
SCRIPT_ENDS: Final = SCRIPT_TABLE[1]
SCRIPT_CLASSES: Final = SCRIPT_TABLE[2]


def script_of(c: str) -> int:
    """HF UnicodeScripts' class of `c` (Hiragana/Katakana count as Han); ANY_SCRIPT for ' ' and unknowns."""
    cp = ord(c)
    if cp == 0x20:
        return ANY_SCRIPT
    i = bisect_right(SCRIPT_STARTS, cp) - 1
    if i >= 0 and cp <= SCRIPT_ENDS[i]:
        return SCRIPT_CLASSES[i]
    return ANY_SCRIPT


def script_spans(text: str) -> list[tuple[int, int]]:
    """Where UnicodeScripts cuts `text`: a new piece wherever the script changes (`Any` chars join
    the piece before them; leading `Any` chars are dropped, as HF does)."""
    cuts: list[int] = []
    last = -2
    for i in range(len(text)):
        script = script_of(text[i])
        if script != ANY_SCRIPT:
            if script != last:
                cuts.append(i)
            last = script
    cuts.append(len(text))
    out: list[tuple[int, int]] = []
    for i in range(len(cuts) - 1):
        out.append((cuts[i], cuts[i + 1]))
    return out


def _slices(piece: NormalizedString, spans: list[tuple[int, int]]) -> list[NormalizedString]:
    out: list[NormalizedString] = []
    for start, end in spans:
        sliced = piece.slice(start, end)
        if sliced is None:
            raise EngineError(f"NormalizedString bad split at {start}:{end}")
        out.append(sliced)
    return out


def _match_spans(compiled: regex.Pattern[str], text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for m in compiled.finditer(text):
        out.append(m.span())
    return out


def _texts(text: str, spans: list[tuple[int, int]]) -> list[str]:
    out: list[str] = []
    for start, end in spans:
        if start < end:
            out.append(text[start:end])
    return out


class Cut:
    """A text's pieces for the encode fast path: `words[i]` is what the model gets, and
    `text[starts[i]:ends[i]]` where it came from. The two have the same length unless the word
    is the byte-level chars of a non-ASCII piece, or `prefixed`: then the first word starts with
    one inserted char (Metaspace's "▁"), which takes the first char's alignment. No empty pieces.
    `text` is set by whoever asked for the cut (the encode fast path). The positions are vecs:
    unboxed, a long line's pieces cost no int objects."""

    words: list[str]
    starts: vec[i64]
    ends: vec[i64]
    prefixed: bool
    text: str

    def __init__(self) -> None:
        """No pieces yet: `add` them."""
        self.words = []
        self.starts = vec[i64]()
        self.ends = vec[i64]()
        self.prefixed = False
        self.text = ""

    def add(self, word: str, start: int, end: int) -> None:
        """One more piece: `word`, from `text[start:end]`."""
        self.words.append(word)
        self.starts = append(self.starts, start)
        self.ends = append(self.ends, end)

    @staticmethod
    def covering(words: list[str]) -> Cut:
        """Pieces that follow each other with nothing between them (GPT-2's pattern, Digits)."""
        out = Cut()
        position = 0
        for word in words:
            if word:
                out.add(word, position, position + len(word))
                position += len(word)
        return out

    @staticmethod
    def found(text: str, words: list[str]) -> Cut:
        """Matches of a pattern whose gaps hold only chars no match starts with (spaces between
        words), so each match is the next occurrence of its text."""
        out = Cut()
        position = 0
        for word in words:
            if word:
                position = text.find(word, position)
                out.add(word, position, position + len(word))
                position += len(word)
        return out

    @staticmethod
    def spans(text: str, spans: list[tuple[int, int]]) -> Cut:
        out = Cut()
        for start, end in spans:
            if start < end:
                out.add(text[start:end], start, end)
        return out

    def drop_prefix(self) -> Cut:
        """Positions counted in the text with one char inserted at 0 -> positions in the text."""
        self.prefixed = True
        for i in range(len(self.starts)):
            self.starts[i] = self.starts[i] - 1 if self.starts[i] > 0 else 0
            self.ends[i] -= 1
        return self

    def to_byte_level(self) -> Cut:
        """The same pieces, each as the byte-level chars of its UTF-8 bytes."""
        words = self.words
        for i in range(len(words)):
            words[i] = byte_level.to_chars(words[i])
        return self

    def extend(self, other: Cut, shift: int) -> None:
        """Append `other`'s pieces, found in a piece that starts at `shift`."""
        self.words.extend(other.words)
        starts = self.starts
        ends = self.ends
        for i in range(len(other.starts)):
            starts = append(starts, other.starts[i] + shift)
            ends = append(ends, other.ends[i] + shift)
        self.starts = starts
        self.ends = ends


@mypyc_attr(allow_interpreted_subclasses=True)
class PreTokenizer(PieceSplitter):
    """Base class of the pre-tokenizers.

    Simple ones only implement `split_piece` (one piece -> its sub-pieces); `pre_tokenize` then
    applies it to every split that has no tokens yet.
    """

    def pre_tokenize(self, pretok: PreTokenizedString) -> None:
        """Cut every split of `pretok` (that has no tokens yet) in place."""
        pretok.split(self)

    def pre_tokenize_str(self, sequence: str) -> list[tuple[str, tuple[int, int]]]:
        """The pieces of `sequence` with their (char) offsets in it."""
        pretok = PreTokenizedString(sequence)
        self.pre_tokenize(pretok)
        out: list[tuple[str, tuple[int, int]]] = []
        for text, offsets, _ in pretok.get_splits():
            out.append((text, offsets))
        return out

    def split_words(self, sequence: str) -> list[str]:
        """`[w for w, _ in pre_tokenize_str(sequence)]`, computed as fast as possible."""
        out: list[str] = []
        for text, _ in self.pre_tokenize_str(sequence):
            out.append(text)
        return out

    def cut(self, text: str) -> Cut | None:
        """The encode fast path's question: when this pre-tokenizer only cuts `text` (and maybe
        maps each piece to byte-level chars), its pieces as a `Cut`; None when it does more (then
        `pre_tokenize` runs)."""
        return None

    def maps_bytes(self) -> bool:
        """True when `cut` maps its pieces to byte-level chars (ByteLevel)."""
        return False

    def _split_with_all(self, piece: NormalizedString) -> list[NormalizedString]:
        # One piece through the full `pre_tokenize`, for pre-tokenizers that are more than a split.
        pretok = PreTokenizedString.from_normalized(piece)
        self.pre_tokenize(pretok)
        out: list[NormalizedString] = []
        for current in pretok.splits:
            out.append(current.normalized)
        return out

    @abstractmethod
    def to_dict(self) -> dict[str, JsonValue]:
        """The tokenizer.json object of this pre-tokenizer, keys in HF's order."""

    def __repr__(self) -> str:
        fields = self.to_dict()
        name = str(fields.pop("type"))
        return name + "(" + ", ".join(f"{k}={v!r}" for k, v in fields.items()) + ")"


def words_of(pre_tokenizer: PreTokenizer | None, normalized: str) -> list[str]:
    """The non-empty pieces the model gets for a normalized text, as strings (`split_words`; the
    whole text without a pre-tokenizer): what training counts and what `encode_ids` encodes."""
    if pre_tokenizer is None:
        return [normalized] if normalized else []
    found = pre_tokenizer.split_words(normalized)
    if "" in found:
        return [word for word in found if word]
    return found


class Whitespace(PreTokenizer):
    """Words and runs of other non-space chars: `\\w+|[^\\w\\s]+` ("Let's" -> Let, ', s)."""

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return _slices(piece, WHITESPACE_RE.spans(piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        if sequence.isascii():
            return WHITESPACE_RUNS.words(sequence)
        return WHITESPACE_RE.findall(sequence)

    def cut(self, text: str) -> Cut | None:
        if text.isascii():
            return WHITESPACE_RUNS.cut(text)
        return Cut.found(text, WHITESPACE_RE.findall(text))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Whitespace"}


class WhitespaceSplit(PreTokenizer):
    """Split on whitespace (Unicode White_Space), dropping it."""

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return _slices(piece, NOT_SPACES_RE.spans(piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        if sequence.isascii():
            return NOT_SPACES_RUNS.words(sequence)
        return NOT_SPACES_RE.findall(sequence)

    def cut(self, text: str) -> Cut | None:
        if text.isascii():
            return NOT_SPACES_RUNS.cut(text)
        return Cut.found(text, NOT_SPACES_RE.findall(text))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "WhitespaceSplit"}


class BertPreTokenizer(PreTokenizer):
    """BERT's: split on whitespace (dropped), then isolate every punctuation char."""

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return _slices(piece, BERT_RE.spans(piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        if sequence.isascii():
            return BERT_RUNS.words(sequence)
        return BERT_RE.findall(sequence)

    def cut(self, text: str) -> Cut | None:
        if text.isascii():
            return BERT_RUNS.cut(text)
        return Cut.found(text, BERT_RE.findall(text))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "BertPreTokenizer"}


class Punctuation(PreTokenizer):
    """Split on punctuation chars, each handled per `behavior` (default "isolated")."""

    behavior: str

    def __init__(self, behavior: str = ISOLATED) -> None:
        self.behavior = check_behavior(behavior)

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        text = piece.normalized
        return piece.split_matches(cover(PUNCT_RE.spans(text), len(text)), self.behavior)

    def split_words(self, sequence: str) -> list[str]:
        if self.behavior == ISOLATED:
            return PUNCT_PIECES_RE.findall(sequence)
        matches = cover(PUNCT_RE.spans(sequence), len(sequence))
        return _texts(sequence, split_spans(matches, self.behavior))

    def cut(self, text: str) -> Cut | None:
        return Cut.spans(text, split_spans(cover(PUNCT_RE.spans(text), len(text)), self.behavior))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Punctuation", "behavior": BEHAVIOR_JSON[self.behavior]}



class Digits(PreTokenizer):
    """Split digits (Rust `is_numeric`) from the rest, one by one if `individual_digits`."""

    individual_digits: bool

    def __init__(self, individual_digits: bool = False) -> None:
        self.individual_digits = individual_digits

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        dual = DIGITS_INDIVIDUAL_RE if self.individual_digits else DIGITS_CONTIGUOUS_RE
        return _slices(piece, dual.spans(piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        dual = DIGITS_INDIVIDUAL_RE if self.individual_digits else DIGITS_CONTIGUOUS_RE
        return dual.findall(sequence)

    def cut(self, text: str) -> Cut | None:
        dual = DIGITS_INDIVIDUAL_RE if self.individual_digits else DIGITS_CONTIGUOUS_RE
        return Cut.covering(dual.findall(text))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Digits", "individual_digits": self.individual_digits}


class Split(PreTokenizer):
    """Split on a literal string or a `Regex`, per `behavior`; `invert` splits on what does NOT match."""

    pattern: str | Regex
    behavior: str
    invert: bool
    matcher: Regex

    def __init__(self, pattern: str | Regex, behavior: str, invert: bool = False) -> None:
        self.pattern = pattern
        self.behavior = check_behavior(behavior)
        self.invert = invert
        self.matcher = as_regex(pattern)

    def _matches(self, text: str) -> list[tuple[int, int, bool]]:
        matches = self.matcher.find_matches(text, "Split")
        if self.invert:
            flipped: list[tuple[int, int, bool]] = []
            for start, end, is_match in matches:
                flipped.append((start, end, not is_match))
            return flipped
        return matches

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return piece.split_matches(self._matches(piece.normalized), self.behavior)

    def split_words(self, sequence: str) -> list[str]:
        return _texts(sequence, split_spans(self._matches(sequence), self.behavior))

    def cut(self, text: str) -> Cut | None:
        return Cut.spans(text, split_spans(self._matches(text), self.behavior))

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "type": "Split",
            "pattern": pattern_to_dict(self.pattern),
            "behavior": BEHAVIOR_JSON[self.behavior],
            "invert": self.invert,
        }


class CharDelimiterSplit(PreTokenizer):
    """Split on one char, dropping it (like `str.split(delimiter)` without empty pieces)."""

    delimiter: str

    def __init__(self, delimiter: str) -> None:
        if len(delimiter) != 1:
            raise ValueError("CharDelimiterSplit expects a single char delimiter")
        self.delimiter = delimiter

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return _slices(piece, _delimited_spans(piece.normalized, self.delimiter))

    def split_words(self, sequence: str) -> list[str]:
        out: list[str] = []
        for word in sequence.split(self.delimiter):
            if word:
                out.append(word)
        return out

    def cut(self, text: str) -> Cut | None:
        return Cut.found(text, self.split_words(text))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "CharDelimiterSplit", "delimiter": self.delimiter}


def _delimited_spans(text: str, delimiter: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start = 0
    while True:
        found = text.find(delimiter, start)
        if found < 0:
            break
        if found > start:
            out.append((start, found))
        start = found + 1
    if start < len(text):
        out.append((start, len(text)))
    return out


class UnicodeScripts(PreTokenizer):
    """Split where the Unicode script changes (SentencePiece's rule: kana count as Han)."""

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return _slices(piece, script_spans(piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        return _texts(sequence, script_spans(sequence))

    def cut(self, text: str) -> Cut | None:
        return Cut.spans(text, script_spans(text))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "UnicodeScripts"}


class FixedLength(PreTokenizer):
    """Chunks of `length` chars."""

    length: int

    def __init__(self, length: int = 5) -> None:
        self.length = length

    def _spans(self, text: str) -> list[tuple[int, int]]:
        if self.length <= 0:
            raise EngineError("FixedLength: length must be at least 1")
        out: list[tuple[int, int]] = []
        for start in range(0, len(text), self.length):
            out.append((start, min(start + self.length, len(text))))
        return out

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return _slices(piece, self._spans(piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        return _texts(sequence, self._spans(sequence))

    def cut(self, text: str) -> Cut | None:
        return Cut.spans(text, self._spans(text))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "FixedLength", "length": self.length}


class ByteLevel(PreTokenizer):
    """GPT-2's: optional leading space, the GPT-2 regex split, then every byte as a printable char.

    `trim_offsets` is only used by the ByteLevel post-processor; it is kept for serialization.
    """

    add_prefix_space: bool
    trim_offsets: bool
    use_regex: bool

    def __init__(
        self, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True
    ) -> None:
        self.add_prefix_space = add_prefix_space
        self.trim_offsets = trim_offsets
        self.use_regex = use_regex

    @staticmethod
    def alphabet() -> list[str]:
        """The 256 chars bytes map to (HF returns them in hash order; these are in byte order)."""
        return list(byte_level.BYTES_TO_UNICODE)

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        if self.add_prefix_space and not piece.normalized.startswith(" "):
            piece.prepend(" ")
        if not self.use_regex:
            return [piece]
        return _slices(piece, GPT2_RE.spans(piece.normalized))

    def pre_tokenize(self, pretok: PreTokenizedString) -> None:
        pretok.split(self)
        for current in pretok.splits:
            if current.tokens is None:
                byte_level_transform(current.normalized)

    def split_words(self, sequence: str) -> list[str]:
        text = sequence
        if self.add_prefix_space and text and not text.startswith(" "):
            text = " " + text
        if not self.use_regex:
            return [byte_level.to_chars(text)] if text else []
        if text.isascii():
            # subtle: an ASCII line maps char for char, so map it first and split the mapped text.
            return gpt2_ascii_words(text, byte_level.ascii_to_chars(text))
        words = GPT2_RE.findall(text)
        for i in range(len(words)):
            words[i] = byte_level.to_chars(words[i])
        return words

    def cut(self, text: str) -> Cut | None:
        if self.add_prefix_space and text and not text.startswith(" "):
            return None  # the inserted space needs an alignment of its own
        if not self.use_regex:
            return Cut.covering([text] if text else []).to_byte_level()
        if text.isascii():
            # subtle: ASCII maps char for char, so cut the mapped text (split_words does too).
            return Cut.covering(gpt2_ascii_words(text, byte_level.ascii_to_chars(text)))
        return Cut.covering(GPT2_RE.findall(text)).to_byte_level()

    def maps_bytes(self) -> bool:
        return True

    def to_dict(self) -> dict[str, JsonValue]:
        return byte_level.options_to_dict(self.add_prefix_space, self.trim_offsets, self.use_regex)


class Metaspace(PreTokenizer):
    """SentencePiece's: spaces become `replacement`, which is prepended (per `prepend_scheme`) and
    starts every piece when `split`. "first" prepends only to a split that starts the input."""

    replacement: str
    prepend_scheme: str
    split: bool
    pieces_re: regex.Pattern[str]

    def __init__(
        self, replacement: str = metaspace.REPLACEMENT, prepend_scheme: str = metaspace.ALWAYS, split: bool = True
    ) -> None:
        self.replacement = metaspace.check_replacement(replacement)
        self.prepend_scheme = metaspace.check_prepend_scheme(prepend_scheme)
        self.split = split
        rep = regex.escape(replacement)
        self.pieces_re = regex.compile(f"{rep}[^{rep}]*|[^{rep}]+")

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        rep = self.replacement
        if " " in piece.normalized:
            piece.replace_matches(find_matches_compiled(SPACE_RE, piece.normalized), rep)
        if not piece.normalized.startswith(rep):
            if self.prepend_scheme == metaspace.ALWAYS or (
                self.prepend_scheme == metaspace.FIRST and piece.original_shift == 0
            ):
                piece.prepend(rep)
        if not self.split:
            return [piece]
        return _slices(piece, _match_spans(self.pieces_re, piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        rep = self.replacement
        text = sequence.replace(" ", rep)
        # A fresh input is one split starting at offset 0, so "first" prepends like "always".
        if text and self.prepend_scheme != metaspace.NEVER and not text.startswith(rep):
            text = rep + text
        if not self.split:
            return [text] if text else []
        return self.pieces_re.findall(text)

    def cut(self, text: str) -> Cut | None:
        rep = self.replacement
        mapped = text.replace(" ", rep)
        prefixed = bool(mapped) and not mapped.startswith(rep) and self.prepend_scheme != metaspace.NEVER
        if prefixed:
            mapped = rep + mapped
        if not self.split:
            found = Cut.covering([mapped] if mapped else [])
        else:
            found = Cut.covering(self.pieces_re.findall(mapped))
        return found.drop_prefix() if prefixed else found

    def to_dict(self) -> dict[str, JsonValue]:
        return metaspace.options_to_dict(self.replacement, self.prepend_scheme, self.split)


SPACE_RE: Final = regex.compile(" ")


class Sequence(PreTokenizer):
    """Several pre-tokenizers, applied in order."""

    pre_tokenizers: list[PreTokenizer]

    def __init__(self, pre_tokenizers: collections.abc.Sequence[PreTokenizer]) -> None:
        self.pre_tokenizers = list(pre_tokenizers)

    def __len__(self) -> int:
        return len(self.pre_tokenizers)

    def __getitem__(self, index: int) -> PreTokenizer:
        return self.pre_tokenizers[index]

    def __setitem__(self, index: int, value: PreTokenizer) -> None:
        self.pre_tokenizers[index] = value

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return self._split_with_all(piece)

    def pre_tokenize(self, pretok: PreTokenizedString) -> None:
        for pretokenizer in self.pre_tokenizers:
            pretokenizer.pre_tokenize(pretok)

    def _offset_free(self) -> bool:
        # Only Metaspace(prepend_scheme="first") looks at where a piece starts in the input.
        for pretokenizer in self.pre_tokenizers:
            if isinstance(pretokenizer, Metaspace) and pretokenizer.prepend_scheme == metaspace.FIRST:
                return False
            if isinstance(pretokenizer, Sequence) and not pretokenizer._offset_free():
                return False
        return True

    def split_words(self, sequence: str) -> list[str]:
        if not self._offset_free():
            return PreTokenizer.split_words(self, sequence)
        words = [sequence] if sequence else []
        for pretokenizer in self.pre_tokenizers:
            next_words: list[str] = []
            for word in words:
                next_words.extend(pretokenizer.split_words(word))
            words = next_words
        return words

    def cut(self, text: str) -> Cut | None:
        current = Cut.covering([text] if text else [])
        last = len(self.pre_tokenizers) - 1
        for k in range(len(self.pre_tokenizers)):
            pretokenizer = self.pre_tokenizers[k]
            if k < last and pretokenizer.maps_bytes():
                return None  # later parts would cut byte-level chars
            following = Cut()
            for i in range(len(current.words)):
                pieces = pretokenizer.cut(current.words[i])
                if pieces is None or pieces.prefixed:
                    return None  # an inserted char inside the text needs alignments
                following.extend(pieces, current.starts[i])
            current = following
        return current

    def maps_bytes(self) -> bool:
        return bool(self.pre_tokenizers) and self.pre_tokenizers[-1].maps_bytes()

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Sequence", "pretokenizers": [p.to_dict() for p in self.pre_tokenizers]}


# -- tokenizer.json ------------------------------------------------------------------------------


def _behavior_field(data: dict[str, object], owner: str, default: str | None = None) -> str:
    if "behavior" not in data and default is not None:
        return default
    value = require(data, "behavior", owner)
    if not isinstance(value, str) or value not in BEHAVIOR_FROM_JSON:
        raise SchemaError(
            f"{owner}: unknown behavior {value!r}, expected one of "
            + ", ".join(BEHAVIOR_FROM_JSON)
        )
    return BEHAVIOR_FROM_JSON[value]


def from_dict(data: object) -> PreTokenizer:
    """Build a pre-tokenizer from its tokenizer.json object (HF's field names, defaults, legacy forms)."""
    data = expect_object(data, "pre-tokenizer")
    check_nesting(data, "pre-tokenizer")
    kind = type_tag(data, "pre-tokenizer")
    if kind is None:
        raise SchemaError("pre-tokenizer without a 'type' field matches no known pre-tokenizer")
    if kind == "Whitespace":
        return Whitespace()
    if kind == "WhitespaceSplit":
        return WhitespaceSplit()
    if kind == "BertPreTokenizer":
        return BertPreTokenizer()
    if kind == "UnicodeScripts":
        return UnicodeScripts()
    if kind == "Punctuation":
        return Punctuation(_behavior_field(data, kind, ISOLATED))
    if kind == "Digits":
        return Digits(get_bool(data, "individual_digits", kind))
    if kind == "CharDelimiterSplit":
        return CharDelimiterSplit(get_char(data, "delimiter", kind))
    if kind == "Delimiter":
        raise SchemaError(
            "pre-tokenizer type 'Delimiter' is not readable (HF 0.23 rejects it too); "
            "use 'CharDelimiterSplit'"
        )
    if kind == "FixedLength":
        return FixedLength(as_count(data["length"], "FixedLength: field 'length'") if "length" in data else 5)
    if kind == "ByteLevel":
        add_prefix_space, trim_offsets, use_regex = byte_level.options_from_dict(data)
        return ByteLevel(add_prefix_space, trim_offsets, use_regex)
    if kind == "Metaspace":
        replacement, scheme, split = metaspace.options_from_dict(data)
        return Metaspace(replacement, scheme, split)
    if kind == "Split":
        pattern = pattern_from_dict(data, kind)
        behavior = _behavior_field(data, kind)
        return Split(pattern, behavior, get_bool(data, "invert", kind))
    if kind == "Sequence":
        return Sequence([from_dict(item) for item in get_list(data, "pretokenizers", kind)])
    raise SchemaError(f"unknown pre-tokenizer type {kind!r}")

