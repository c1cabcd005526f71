"""`PreTokenizedString`: the input cut into `SplitPiece`s (normalized pieces, maybe with their tokens).

HF's tokenizer/pre_tokenizer.rs in CHARACTER offsets: split, normalize, tokenize, get_splits, and the
token lists an `Encoding` is built from. Which pieces to cut is the pre-tokenizers' job, not this module's.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64, mypyc_attr

from engine.errors import EngineError
from engine import unicode_chars as uc
from engine.models.base import Model, Token
from engine.normalizers.normalized import NormalizedString
from engine.normalizers import Normalizer

ORIGINAL: Final = "original"
NORMALIZED: Final = "normalized"
CHAR: Final = "char"
BYTE: Final = "byte"


class SplitPiece:
    """One piece of a `PreTokenizedString`: its `NormalizedString` and, once tokenized, its tokens."""

    normalized: NormalizedString
    tokens: list[Token] | None

    def __init__(self, normalized: NormalizedString, tokens: list[Token] | None = None) -> None:
        self.normalized = normalized
        self.tokens = tokens

    def __repr__(self) -> str:
        return f"SplitPiece({self.normalized!r}, tokens={self.tokens!r})"


@mypyc_attr(allow_interpreted_subclasses=True)
class PieceSplitter(ABC):
    """Cuts one piece into sub-pieces that together cover its original text (HF's `split_fn`)."""

    @abstractmethod
    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        """The sub-pieces of `piece` (the `index`-th split); empty ones are dropped by the caller."""


@mypyc_attr(allow_interpreted_subclasses=True)
class TokenSplitter(ABC):
    """Like `PieceSplitter`, but may attach tokens to sub-pieces (added tokens, for the Tokenizer)."""

    @abstractmethod
    def split_piece(self, index: int, piece: NormalizedString) -> list[SplitPiece]: ...


class PreTokenizedString:
    """The whole input and its current `splits`, in order; offsets are chars of `original`."""

    original: str
    splits: list[SplitPiece]

    def __init__(self, text: str = "") -> None:
        self.original = text
        self.splits = [SplitPiece(NormalizedString(text))]

    @staticmethod
    def from_normalized(normalized: NormalizedString) -> PreTokenizedString:
        """One split holding `normalized` (HF `From<NormalizedString>`)."""
        out = PreTokenizedString()
        out.original = normalized.get_original()
        out.splits = [SplitPiece(normalized)]
        return out

    def split(self, splitter: PieceSplitter) -> None:
        """Replace every split without tokens by its non-empty sub-pieces."""
        new_splits: list[SplitPiece] = []
        for i, current in enumerate(self.splits):
            if current.tokens is not None:
                new_splits.append(current)
                continue
            for piece in splitter.split_piece(i, current.normalized):
                if piece.normalized:
                    new_splits.append(SplitPiece(piece))
        self.splits = new_splits

    def split_with_tokens(self, splitter: TokenSplitter) -> None:
        """`split`, for a splitter that may return pieces that already carry tokens."""
        new_splits: list[SplitPiece] = []
        for i, current in enumerate(self.splits):
            if current.tokens is not None:
                new_splits.append(current)
                continue
            for piece in splitter.split_piece(i, current.normalized):
                if piece.normalized.normalized:
                    new_splits.append(piece)
        self.splits = new_splits

    def normalize(self, normalizer: Normalizer) -> None:
        """Normalize every split that has no tokens yet."""
        for current in self.splits:
            if current.tokens is None:
                normalizer.normalize(current.normalized)

    def tokenize(self, model: Model) -> None:
        """Give every split without tokens the model's tokens for its normalized text."""
        for current in self.splits:
            if current.tokens is None:
                current.tokens = model.tokenize_run(current.normalized.normalized).tokens()

    def get_splits(
        self, offset_referential: str = ORIGINAL, offset_type: str = CHAR
    ) -> list[tuple[str, tuple[int, int], list[Token] | None]]:
        """(normalized text, offsets, tokens) per split, offsets in the original (default) or in the
        concatenated normalized text, as chars (default) or UTF-8 bytes."""
        if offset_referential not in (ORIGINAL, NORMALIZED):
            raise ValueError("Wrong value for OffsetReferential, expected one of `original, normalized`")
        if offset_type not in (CHAR, BYTE):
            raise ValueError("Wrong value for OffsetType, expected one of `byte, char`")
        out: list[tuple[str, tuple[int, int], list[Token] | None]] = []
        if offset_referential == ORIGINAL:
            prefix = uc.utf8_offsets(self.original) if offset_type == BYTE else []
            for current in self.splits:
                start, end = current.normalized.offsets_original()
                if offset_type == BYTE:
                    start = prefix[start]
                    end = prefix[end]
                out.append((current.normalized.normalized, (start, end), current.tokens))
            return out
        # subtle: HF counts the normalized referential in UTF-8 bytes and, for chars, converts
        # those byte offsets with the ORIGINAL string's byte->char map; we do the same.
        char_of_byte = uc.char_of_byte(self.original) if offset_type == CHAR else []
        offset = 0
        for current in self.splits:
            text = current.normalized.normalized
            start = offset
            offset += len(text.encode("utf-8"))
            end = offset
            if offset_type == CHAR:
                start, end = _hf_byte_to_char(char_of_byte, start, end)
            out.append((text, (start, end), current.tokens))
        return out

    def token_lists(
        self, word_idx: int | None = None
    ) -> tuple[list[int], list[str], vec[i64], list[int]]:
        """(ids, tokens, spans, word indices) of all tokens, offsets in original chars (flat in
        `spans`: start and end of each token, as `Encoding` keeps them).

        HF `into_encoding`: each token's normalized span goes through its split's alignments; a token
        whose span cannot be converted keeps its piece-relative offsets. The word index is the split
        index unless `word_idx` is given. Raises if a split was not tokenized.
        """
        ids: list[int] = []
        values: list[str] = []
        spans = vec[i64]()
        words: list[int] = []
        for index, current in enumerate(self.splits):
            tokens = current.tokens
            if tokens is None:
                raise EngineError(
                    "Split has not been tokenized, call `PreTokenizedString.tokenize` first"
                )
            piece = current.normalized
            shift = piece.original_shift
            word = index if word_idx is None else word_idx
            for token in tokens:
                found = piece.convert_normalized_range(token.start, token.end)
                if found is None:
                    spans = append(spans, token.start)
                    spans = append(spans, token.end)
                else:
                    spans = append(spans, shift + found[0])
                    spans = append(spans, shift + found[1])
                ids.append(token.id)
                values.append(token.value)
                words.append(word)
        return ids, values, spans, words


def _hf_byte_to_char(char_of_byte: list[int], start: int, end: int) -> tuple[int, int]:
    """HF's BytesToCharOffsetConverter.convert, falling back to the byte offsets like HF does."""
    n = len(char_of_byte)
    if start >= n:
        return (start, end)
    first = char_of_byte[start]
    if end < n:
        return (first, char_of_byte[end])
    last = char_of_byte[end - 1] if 0 <= end - 1 < n else first + 1
    return (first, last + 1)
