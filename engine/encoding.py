"""`Encoding`, the output of a tokenizer: ids, tokens, offsets and masks, HF's read-only view of
them, and the edits made to one encoding (truncate, pad, merge).

Mirrors HF tokenizers' encoding.rs, offsets in characters. No tokenization and no special tokens
here (see `engine.tokenizer`, `engine.processors`); truncating and padding by the tokenizer's
settings, a pair or a batch at a time, are `engine.truncation` and `engine.padding`.
"""

from __future__ import annotations

import warnings
from typing import Final, cast

from librt.vecs import append, extend, vec
from mypy_extensions import i64

from engine.errors import TruncationError
from engine.models.base import Token

# The sides an encoding is truncated or padded on, and their names in tokenizer.json (the
# "truncation" and "padding" objects: `engine.truncation`, `engine.padding`).
DIRECTIONS: Final = ("left", "right")
DIRECTION_TO_JSON: Final = {"left": "Left", "right": "Right"}
DIRECTION_FROM_JSON: Final = {"Left": "left", "Right": "right"}


# What `overflows()` and `ranges()` give for an encoding without any (never modified).
NO_ENCODINGS: Final[list[Encoding]] = []
NO_RANGES: Final[dict[int, tuple[int, int]]] = {}


class Unmade:
    """What an encoding's ids, tokens and word ids are made from when first read: `ids` and
    `words` (-1: none) a token each, `objects` the int object of each id (`objects[i] == i`;
    shared, so the ids made take no int each) and `names` the token of each id. Neither list
    is ever changed by whoever gave it (a new vocabulary gives new ones)."""

    ids: vec[i64]
    words: vec[i64]
    objects: list[object]
    names: list[str]

    def __init__(self, ids: vec[i64], words: vec[i64], objects: list[object], names: list[str]) -> None:
        self.ids = ids
        self.words = words
        self.objects = objects
        self.names = names


class Encoding:
    """Ids, tokens, offsets and masks of one encoded input (or pair), as HF's `Encoding`.

    `sequence_ranges` maps a sequence index to the (start, end) token range it covers; empty
    means one sequence covering everything. Offsets are character offsets into the input.

    The offsets are kept flat (`spans`: start and end of token 0, then of token 1, ...) and
    `offsets` makes the (start, end) tuples when it is read, as HF's binding does: a tuple and
    two ints a token were most of what encoding a long line allocated.
    """

    # `ids`, `tokens` and `word_ids` (see the properties): None until first read when the
    # encoding was made from vecs (the encode fast path's, issue 25), else the lists. Then the
    # ids are `_id_vec` (the int objects `_id_objects[id]`), each token `_names[id]` of its id,
    # the word ids `_word_vec` (-1: None). Encoding a line then takes no reference to an int
    # or str object a token: those refcounts were the cache misses of a third of an encode.
    _ids: list[int] | None
    _tokens: list[str] | None
    _word_ids: list[int | None] | None
    _id_vec: vec[i64]
    _word_vec: vec[i64]
    _id_objects: list[object] | None
    _names: list[str] | None
    # subtle: a vec's `append`/`extend` may share the buffer of the vec it was given, so each
    # encoding owns its spans alone: copies are made with a slice, never by sharing.
    _spans: vec[i64]
    # The masks, made on first read when None (see the properties): a fresh sequence's are
    # `_made_length` times its type id `_type_id`, 0 (not special) and 1 (attended). Three
    # lists a text that most callers of encode never read (issue 25: a tenth of an encode).
    _type_ids: list[int] | None
    _special_tokens_mask: list[int] | None
    _attention_mask: list[int] | None
    _type_id: int
    # how many tokens it had when made: the length of the lists made on first read (whatever
    # was done to the others since)
    _made_length: int
    # made on first use: most encodings never overflow nor hold a pair (see the properties)
    _overflowing: list[Encoding] | None
    _sequence_ranges: dict[int, tuple[int, int]] | None

    def __init__(
        self,
        ids: list[int] | None = None,
        type_ids: list[int] | None = None,
        tokens: list[str] | None = None,
        words: list[int | None] | None = None,
        offsets: list[tuple[int, int]] | None = None,
        special_tokens_mask: list[int] | None = None,
        attention_mask: list[int] | None = None,
        overflowing: list[Encoding] | None = None,
        sequence_ranges: dict[int, tuple[int, int]] | None = None,
        spans: vec[i64] | None = None,
        type_id: int = -1,
        unmade: Unmade | None = None,
    ) -> None:
        """`offsets` as tuples, or `spans` flat (the encoding then owns that vec). With `type_id`
        >= 0 and no masks given, the masks are a fresh sequence's (every token of that type,
        none special, all attended), made when first read. With `unmade` instead of `ids`,
        `tokens` and `words`, those are made from it when first read."""
        if unmade is not None:
            self._ids = None
            self._tokens = None
            self._word_ids = None
            self._id_vec = unmade.ids
            self._word_vec = unmade.words
            self._id_objects = unmade.objects
            self._names = unmade.names
            self._made_length = len(unmade.ids)
        else:
            made = ids if ids is not None else []
            self._ids = made
            self._tokens = tokens if tokens is not None else []
            self._word_ids = words if words is not None else []
            self._id_vec = vec[i64]()
            self._word_vec = vec[i64]()
            self._id_objects = None
            self._names = None
            self._made_length = len(made)
        if spans is not None:
            self._spans = spans
        else:
            self._spans = flat_spans(offsets) if offsets is not None else vec[i64]()
        lazy = type_id >= 0
        self._type_ids = type_ids if type_ids is not None or lazy else []
        self._special_tokens_mask = special_tokens_mask if special_tokens_mask is not None or lazy else []
        self._attention_mask = attention_mask if attention_mask is not None or lazy else []
        self._type_id = type_id
        self._overflowing = overflowing
        self._sequence_ranges = sequence_ranges

    @property
    def ids(self) -> list[int]:
        found = self._ids
        if found is None:
            made: list[object] = []
            objects = self._id_objects
            if objects is not None:
                id_vec = self._id_vec
                for index in range(self._made_length):
                    made.append(objects[id_vec[index]])
            # (the objects are ints: `Unmade`)
            found = cast(list[int], made)
            self._ids = found
            self._drop_vecs()
        return found

    @ids.setter
    def ids(self, value: list[int]) -> None:
        self._ids = value
        self._drop_vecs()

    @property
    def tokens(self) -> list[str]:
        found = self._tokens
        if found is None:
            found = []
            names = self._names
            if names is not None:
                id_vec = self._id_vec
                for index in range(self._made_length):
                    found.append(names[id_vec[index]])
            self._tokens = found
            self._drop_vecs()
        return found

    @tokens.setter
    def tokens(self, value: list[str]) -> None:
        self._tokens = value
        self._drop_vecs()

    @property
    def word_ids(self) -> list[int | None]:
        found = self._word_ids
        if found is None:
            found = []
            word_vec = self._word_vec
            for index in range(self._made_length):
                word = word_vec[index]
                found.append(word if word >= 0 else None)
            self._word_ids = found
            self._drop_vecs()
        return found

    @word_ids.setter
    def word_ids(self, value: list[int | None]) -> None:
        self._word_ids = value
        self._drop_vecs()

    def unmade_names(self) -> list[str] | None:
        """The token of each id its tokens are still to be made from (`Unmade.names`), None
        once they are made or it holds other tokens than it was made with (then read
        `tokens`). While not None, `unmade_ids()` are its ids."""
        if self._tokens is not None or len(self) != self._made_length:
            return None
        return self._names

    def unmade_ids(self) -> vec[i64]:
        """Its ids as it was made (`Unmade.ids`), for reading only; see `unmade_names`."""
        return self._id_vec

    def _drop_vecs(self) -> None:
        """Let go of what the lists were made from once all three are made."""
        if self._ids is not None and self._tokens is not None and self._word_ids is not None:
            self._id_vec = vec[i64]()
            self._word_vec = vec[i64]()
            self._id_objects = None
            self._names = None

    @property
    def type_ids(self) -> list[int]:
        found = self._type_ids
        if found is None:
            found = [self._type_id] * self._made_length
            self._type_ids = found
        return found

    @type_ids.setter
    def type_ids(self, value: list[int]) -> None:
        self._type_ids = value

    @property
    def special_tokens_mask(self) -> list[int]:
        found = self._special_tokens_mask
        if found is None:
            found = [0] * self._made_length
            self._special_tokens_mask = found
        return found

    @special_tokens_mask.setter
    def special_tokens_mask(self, value: list[int]) -> None:
        self._special_tokens_mask = value

    @property
    def attention_mask(self) -> list[int]:
        found = self._attention_mask
        if found is None:
            found = [1] * self._made_length
            self._attention_mask = found
        return found

    @attention_mask.setter
    def attention_mask(self, value: list[int]) -> None:
        self._attention_mask = value

    def overflows(self) -> list[Encoding]:
        """`overflowing` for reading only: no list is made for an encoding without any."""
        found = self._overflowing
        return found if found is not None else NO_ENCODINGS

    def ranges(self) -> dict[int, tuple[int, int]]:
        """`sequence_ranges` for reading only (no dict is made when there is none)."""
        found = self._sequence_ranges
        return found if found is not None else NO_RANGES

    @property
    def overflowing(self) -> list[Encoding]:
        found = self._overflowing
        if found is None:
            found = []
            self._overflowing = found
        return found

    @overflowing.setter
    def overflowing(self, value: list[Encoding]) -> None:
        self._overflowing = value

    @property
    def sequence_ranges(self) -> dict[int, tuple[int, int]]:
        """Sequence index -> (start, end) token range; empty: one sequence covering everything."""
        found = self._sequence_ranges
        if found is None:
            found = {}
            self._sequence_ranges = found
        return found

    @sequence_ranges.setter
    def sequence_ranges(self, value: dict[int, tuple[int, int]]) -> None:
        self._sequence_ranges = value

    @staticmethod
    def from_tokens(tokens: list[Token], type_id: int = 0) -> Encoding:
        """One sequence from model tokens: no word ids, no special tokens (HF from_tokens)."""
        n = len(tokens)
        ids: list[int] = []
        values: list[str] = []
        spans = vec[i64]()
        for token in tokens:
            ids.append(token.id)
            values.append(token.value)
            spans = append(spans, token.start)
            spans = append(spans, token.end)
        words: list[int | None] = [None] * n
        return Encoding(ids, tokens=values, words=words, spans=spans, type_id=type_id)

    # -- offsets --------------------------------------------------------------------------------

    @property
    def offsets(self) -> list[tuple[int, int]]:
        """(start, end) of each token, made at each read as HF's do (changing the list leaves
        the encoding as it is). Read it once, not once per token: `offset(i)` reads one."""
        spans = self._spans
        result: list[tuple[int, int]] = []
        for i in range(0, len(spans), 2):
            result.append((spans[i], spans[i + 1]))
        return result

    def offset(self, token_index: int) -> tuple[int, int]:
        """(start, end) of token `token_index` (IndexError outside the tokens)."""
        if token_index < 0 or 2 * token_index >= len(self._spans):
            raise IndexError(f"token index {token_index} out of range for {len(self._spans) // 2} tokens")
        return (self._spans[2 * token_index], self._spans[2 * token_index + 1])

    def spans(self) -> vec[i64]:
        """The offsets flat, start and end of each token in turn, for reading only."""
        return self._spans

    def set_offset(self, token_index: int, start: int, end: int) -> None:
        """Change the offsets of one token (a post-processor trimming them)."""
        self._spans[2 * token_index] = start
        self._spans[2 * token_index + 1] = end

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # (a vec does not pickle: its values go as a list)
        return (
            _restore,
            (
                self.ids,
                self.type_ids,
                self.tokens,
                self.word_ids,
                list(self._spans),
                self.special_tokens_mask,
                self.attention_mask,
                self._overflowing,
                self._sequence_ranges,
            ),
        )

    # -- HF's read-only view ------------------------------------------------------------------

    def __len__(self) -> int:
        found = self._ids
        return len(found) if found is not None else self._made_length

    def __repr__(self) -> str:
        return (
            f"Encoding(num_tokens={len(self.ids)}, attributes=[ids, type_ids, tokens, offsets, "
            "attention_mask, special_tokens_mask, overflowing])"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Encoding):
            return NotImplemented
        return (
            self.ids == other.ids
            and self.type_ids == other.type_ids
            and self.tokens == other.tokens
            and self.word_ids == other.word_ids
            and self._spans == other._spans
            and self.special_tokens_mask == other.special_tokens_mask
            and self.attention_mask == other.attention_mask
            and self.overflows() == other.overflows()
            and self.ranges() == other.ranges()
        )

    @property
    def words(self) -> list[int | None]:
        """Deprecated alias of `word_ids` (warns, like HF)."""
        warnings.warn(
            "Deprecated in 0.9.4: Encoding.words is deprecated, please use Encoding.word_ids instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.word_ids

    @property
    def n_sequences(self) -> int:
        ranges = self.ranges()
        return len(ranges) if ranges else 1

    @property
    def sequence_ids(self) -> list[int | None]:
        n = len(self.ids)
        result: list[int | None] = [None] * n
        for seq_id in range(self.n_sequences):
            start, end = self._sequence_range(seq_id)
            for i in range(start, min(end, n)):
                result[i] = seq_id
        return result

    def set_sequence_id(self, sequence_id: int) -> None:
        """Mark every token as belonging to sequence `sequence_id`."""
        self.sequence_ranges[sequence_id] = (0, len(self))

    def set_type_ids(self, type_id: int) -> None:
        """Every token of type `type_id` (`type_ids = [type_id] * len(self)`: still made when
        first read if it was not yet, and no token was added since)."""
        if self._type_ids is None and len(self) == self._made_length:
            self._type_id = type_id
            return
        self._type_ids = [type_id] * len(self)

    def _sequence_range(self, sequence_id: int) -> tuple[int, int]:
        found = self.ranges().get(sequence_id)
        return found if found is not None else (0, len(self.ids))

    def token_to_sequence(self, token_index: int) -> int | None:
        # subtle: HF tests `token > len`, so token == len still answers 0 for one sequence.
        if token_index < 0 or token_index > len(self.ids):
            return None
        if not self.ranges():
            return 0
        for seq_id, (start, end) in self.ranges().items():
            if start <= token_index < end:
                return seq_id
        return None

    def token_to_chars(self, token_index: int) -> tuple[int, int] | None:
        if self.token_to_sequence(token_index) is None or 2 * token_index >= len(self._spans):
            return None
        return self.offset(token_index)

    def token_to_word(self, token_index: int) -> int | None:
        if self.token_to_sequence(token_index) is None or token_index >= len(self.word_ids):
            return None
        return self.word_ids[token_index]

    def word_to_tokens(self, word_index: int, sequence_index: int = 0) -> tuple[int, int] | None:
        """(first token, last token + 1) of word `word_index` in sequence `sequence_index`."""
        if word_index < 0 or sequence_index < 0:
            return None
        range_start, range_end = self._sequence_range(sequence_index)
        if range_start > range_end or range_end > len(self.word_ids):
            return None
        start = -1
        end = -1
        # subtle: HF stops at the first word id greater than the target (None sorts first).
        for i in range(range_start, range_end):
            word = self.word_ids[i]
            if word is not None and word > word_index:
                break
            if word == word_index:
                if start < 0:
                    start = i
                end = i + 1
        if start < 0:
            return None
        return (start, end)

    def word_to_chars(self, word_index: int, sequence_index: int = 0) -> tuple[int, int] | None:
        found = self.word_to_tokens(word_index, sequence_index)
        if found is None:
            return None
        start, end = found
        return (self._spans[2 * start], self._spans[2 * end - 1])

    def char_to_token(self, char_pos: int, sequence_index: int = 0) -> int | None:
        if char_pos < 0 or sequence_index < 0:
            return None
        range_start, range_end = self._sequence_range(sequence_index)
        spans = self._spans
        if range_start > range_end or 2 * range_end > len(spans):
            return None
        for i in range(range_start, range_end):
            if spans[2 * i] <= char_pos < spans[2 * i + 1]:
                return i
        return None

    def char_to_word(self, char_pos: int, sequence_index: int = 0) -> int | None:
        token = self.char_to_token(char_pos, sequence_index)
        if token is None:
            return None
        return self.token_to_word(token)

    # -- edits --------------------------------------------------------------------------------

    def copy(self) -> Encoding:
        """A deep copy (overflowing encodings included), like Rust's `clone`."""
        overflowing: list[Encoding] = []
        for encoding in self.overflows():
            overflowing.append(encoding.copy())
        return Encoding(
            list(self.ids),
            list(self.type_ids),
            list(self.tokens),
            list(self.word_ids),
            None,
            list(self.special_tokens_mask),
            list(self.attention_mask),
            overflowing,
            dict(self.ranges()),
            self._spans[:],
        )

    def _slice(self, start: int, stop: int) -> Encoding:
        return Encoding(
            self.ids[start:stop],
            self.type_ids[start:stop],
            self.tokens[start:stop],
            self.word_ids[start:stop],
            None,
            self.special_tokens_mask[start:stop],
            self.attention_mask[start:stop],
            spans=self._spans[2 * start : 2 * stop],
        )

    def truncate(self, max_length: int, stride: int = 0, direction: str = "right") -> None:
        """Keep `max_length` tokens; the rest goes to `overflowing`, windows overlapping by `stride`.

        [1, 2, 3, 4, 5].truncate(4, stride=2) -> [1, 2, 3, 4], overflowing [[3, 4, 5]]
        """
        if direction not in DIRECTIONS:
            raise ValueError(f"Invalid truncation direction value : {direction}")
        n = len(self.ids)
        if max_length >= n:
            return
        if max_length <= 0:
            moved = Encoding(
                self.ids,
                self.type_ids,
                self.tokens,
                self.word_ids,
                None,
                self.special_tokens_mask,
                self.attention_mask,
                self._overflowing,
                self._sequence_ranges,
                self._spans,
            )
            self._assign(Encoding())
            self.overflowing.append(moved)
            return
        if stride >= max_length:
            raise TruncationError(
                f"`stride` must be strictly less than `max_len={max_length}` (note that `max_len` may be "
                "shorter than the max length of the original model, as it subtracts the number of "
                "special characters"
            )
        step = max_length - stride
        parts: list[tuple[int, int]] = []
        if direction == "right":
            start = 0
            while start < n:
                stop = min(start + max_length, n)
                parts.append((start, stop))
                if stop == n:
                    break
                start += step
        else:
            last = n - 1
            while last >= 0:
                stop = last + 1
                start = max(stop - max_length, 0)
                parts.append((start, stop))
                if start == 0:
                    break
                last -= step
        first_start, first_stop = parts[0]
        kept = self._slice(first_start, first_stop)
        for index in range(1, len(parts)):
            part_start, part_stop = parts[index]
            kept.overflowing.append(self._slice(part_start, part_stop))
        # subtle: the sequence ranges are lost, as in HF.
        self._assign(kept)

    def _assign(self, other: Encoding) -> None:
        self.ids = other.ids
        self.type_ids = other.type_ids
        self.tokens = other.tokens
        self.word_ids = other.word_ids
        self._spans = other._spans
        self.special_tokens_mask = other.special_tokens_mask
        self.attention_mask = other.attention_mask
        self._overflowing = other._overflowing
        self._sequence_ranges = other._sequence_ranges

    def pad(
        self,
        length: int,
        direction: str = "right",
        pad_id: int = 0,
        pad_type_id: int = 0,
        pad_token: str = "[PAD]",
    ) -> None:
        """Pad to `length` tokens (overflowing encodings too); never shortens."""
        if direction not in DIRECTIONS:
            raise ValueError(f"Unknown `direction`: `{direction}`. Use one of `left` or `right`")
        for encoding in self.overflows():
            encoding.pad(length, direction, pad_id, pad_type_id, pad_token)
        n = len(self.ids)
        if n >= length:
            return
        count = length - n
        words: list[int | None] = [None] * count
        zeros = zero_spans(count)
        if direction == "left":
            self.ids = [pad_id] * count + self.ids
            self.type_ids = [pad_type_id] * count + self.type_ids
            self.tokens = [pad_token] * count + self.tokens
            self.word_ids = words + self.word_ids
            self.attention_mask = [0] * count + self.attention_mask
            self.special_tokens_mask = [1] * count + self.special_tokens_mask
            self._spans = extend(zeros, self._spans)
            shifted: dict[int, tuple[int, int]] = {}
            for seq_id, (start, end) in self.ranges().items():
                shifted[seq_id] = (start + count, end + count)
            self.sequence_ranges = shifted
        else:
            self.ids.extend([pad_id] * count)
            self.type_ids.extend([pad_type_id] * count)
            self.tokens.extend([pad_token] * count)
            self.word_ids.extend(words)
            self.attention_mask.extend([0] * count)
            self.special_tokens_mask.extend([1] * count)
            self._spans = extend(self._spans, zeros)

    @staticmethod
    def merge(encodings: list[Encoding], growing_offsets: bool = True) -> Encoding:
        """Concatenate encodings (copies; the inputs are not changed)."""
        result = Encoding()
        for encoding in encodings:
            # merge_with only reads its argument, so no copy is needed to leave it untouched.
            result.merge_with(encoding, growing_offsets)
        return result

    def merge_with(self, pair: Encoding, growing_offsets: bool) -> None:
        """Append `pair` in place; overflowing parts are combined two by two, as in HF."""
        if pair is self:
            pair = self.copy()
        overflowings: list[Encoding] = []
        for own in self.overflows():
            combined = own.copy()
            combined.merge_with(pair, growing_offsets)
            overflowings.append(combined)
            for other in pair.overflows():
                combined = own.copy()
                combined.merge_with(other, growing_offsets)
                overflowings.append(combined)
        for other in pair.overflows():
            combined = self.copy()
            combined.merge_with(other, growing_offsets)
            overflowings.append(combined)

        original_len = len(self.ids)
        for seq_id, (start, end) in pair.ranges().items():
            self.sequence_ranges[seq_id] = (original_len + start, original_len + end)
        self.ids.extend(pair.ids)
        self.type_ids.extend(pair.type_ids)
        self.tokens.extend(pair.tokens)
        self.word_ids.extend(pair.word_ids)
        spans = self._spans
        shift = spans[len(spans) - 1] if growing_offsets and len(spans) > 0 else 0
        if shift == 0:
            spans = extend(spans, pair._spans)
        else:
            for value in pair._spans:
                spans = append(spans, value + shift)
        self._spans = spans
        self.special_tokens_mask.extend(pair.special_tokens_mask)
        self.attention_mask.extend(pair.attention_mask)
        self.overflowing = overflowings


def _restore(
    ids: list[int],
    type_ids: list[int],
    tokens: list[str],
    words: list[int | None],
    spans: list[int],
    special_tokens_mask: list[int],
    attention_mask: list[int],
    overflowing: list[Encoding] | None,
    sequence_ranges: dict[int, tuple[int, int]] | None,
) -> Encoding:
    """An unpickled `Encoding` (see `Encoding.__reduce__`)."""
    return Encoding(
        ids, type_ids, tokens, words, None, special_tokens_mask, attention_mask, overflowing, sequence_ranges, vec[i64](spans)
    )


def zero_spans(n: int) -> vec[i64]:
    """The spans of `n` tokens at (0, 0): special tokens, padding, encode_fast's tokens."""
    return vec[i64]([0] * (2 * n))


def flat_spans(offsets: list[tuple[int, int]]) -> vec[i64]:
    """[(0, 2), (3, 5)] -> vec [0, 2, 3, 5]: what an `Encoding` keeps."""
    spans = vec[i64]()
    for start, end in offsets:
        spans = append(spans, start)
        spans = append(spans, end)
    return spans
