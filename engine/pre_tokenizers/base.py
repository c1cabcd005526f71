"""`PreTokenizer`, the contract of the pre-tokenize stage (cut a `PreTokenizedString` in place, or
a plain string through `split_words` with the same pieces), and `Cut`, the pieces the encode fast
path takes. No component here.
"""

from __future__ import annotations

from abc import abstractmethod

import regex
from librt.vecs import append, vec
from mypy_extensions import i64, mypyc_attr

from engine import byte_level
from engine.errors import EngineError
from engine.normalizers.normalized import NormalizedString
from engine.pre_tokenizers.pretokenized import PieceSplitter, PreTokenizedString
from engine.schema import JsonValue


def piece_slices(piece: NormalizedString, spans: list[tuple[int, int]]) -> list[NormalizedString]:
    out: list[NormalizedString] = []
    for start, end in spans:
        sliced = piece.slice(start, end)
        if sliced is None:
            raise EngineError(f"NormalizedString bad split at {start}:{end}")
        out.append(sliced)
    return out


def match_spans(compiled: regex.Pattern[str], text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for m in compiled.finditer(text):
        out.append(m.span())
    return out


def span_texts(text: str, spans: list[tuple[int, int]]) -> list[str]:
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
    # where `text` is a normalized text that does not map the input char for char: for each of
    # its chars, the input span it comes from (set by the encode fast path, like `text`)
    align_start: list[int] | None
    align_end: list[int] | None

    def __init__(self) -> None:
        """No pieces yet: `add` them."""
        self.words = []
        self.starts = vec[i64]()
        self.ends = vec[i64]()
        self.prefixed = False
        self.text = ""
        self.align_start = None
        self.align_end = None

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
