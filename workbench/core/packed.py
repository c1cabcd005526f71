"""Columns packed to cross from a child process to the window cheaply: strings as one text and
where each ends (`PackedStrings`), numbers as `array`s. No Qt here.

Why: the window unpickles what the encoding and training processes send on its GUI thread. A
32k-token vocabulary with its merges and history as lists and dicts of Python objects took
60-150 ms to unpickle there, a stall on every switch of tokenizer; packed, the same columns take
about a millisecond. Strings are read one at a time (a table row on screen, a merge tree) and
made into lists or arrays only when something needs them all (a sort, a filter).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import TypeVar, overload

from engine.analysis.vocabulary import VocabularyTable


T = TypeVar("T")


class OnDemand(Sequence[T]):
    """A read-only sequence whose items are made when read (`_item`): indexing from the end
    and slices as a list has them, an index out of range an IndexError."""

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...

    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        size = len(self)
        if isinstance(index, slice):
            return [self._item(i) for i in range(*index.indices(size))]
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError(f"{type(self).__name__} index out of range")
        return self._item(index)

    def _item(self, index: int) -> T:
        """The item at `index` (0 <= index < len(self))."""
        raise NotImplementedError


class PackedStrings(OnDemand[str]):
    """A sequence of strings held as one text and the end of each in it (in characters):
    `PackedStrings.of(["lo", "w"])` is the text "low" with ends [2, 3]."""

    def __init__(self, text: str = "", ends: array[int] | None = None) -> None:
        self.text = text
        self.ends: array[int] = ends if ends is not None else array("q")
        if len(self.ends) and self.ends[-1] != len(text):
            raise ValueError("packed strings: the ends do not match the text")

    @staticmethod
    def of(strings: Iterable[str]) -> PackedStrings:
        items = strings if isinstance(strings, list) else list(strings)
        return PackedStrings("".join(items), array("q", accumulate(map(len, items))))

    def __len__(self) -> int:
        return len(self.ends)

    def _item(self, index: int) -> str:
        ends = self.ends
        return self.text[ends[index - 1] if index > 0 else 0 : ends[index]]

    def __iter__(self) -> Iterator[str]:
        text = self.text
        start = 0
        for end in self.ends:
            yield text[start:end]
            start = end

    def tolist(self) -> list[str]:
        return list(self)


class VocabularyColumns:
    """A vocabulary table (`engine.analysis.vocabulary.VocabularyTable`: one column per field, one row per
    token in id order) as the window holds it: numbers in `array`s, strings packed."""

    def __init__(
        self,
        ids: array[int] | None = None,
        tokens: PackedStrings | None = None,
        shown: PackedStrings | None = None,
        char_lengths: array[int] | None = None,
        byte_lengths: array[int] | None = None,
        kinds: PackedStrings | None = None,
        merge_ranks: array[int] | None = None,
        frequencies: array[int] | None = None,
    ) -> None:
        self.ids: array[int] = ids if ids is not None else array("q")
        self.tokens = tokens if tokens is not None else PackedStrings()
        self.shown = shown if shown is not None else PackedStrings()
        self.char_lengths: array[int] = char_lengths if char_lengths is not None else array("q")
        self.byte_lengths: array[int] = byte_lengths if byte_lengths is not None else array("q")
        self.kinds = kinds if kinds is not None else PackedStrings()
        self.merge_ranks: array[int] = merge_ranks if merge_ranks is not None else array("q")
        self.frequencies: array[int] = frequencies if frequencies is not None else array("q")
        n = len(self.ids)
        columns: tuple[Sequence[object], ...] = (
            self.tokens, self.shown, self.char_lengths, self.byte_lengths, self.kinds, self.merge_ranks, self.frequencies,
        )  # fmt: skip
        if any(len(column) != n for column in columns):
            raise ValueError("vocabulary table: columns of different lengths")

    @staticmethod
    def of(table: VocabularyTable) -> VocabularyColumns:
        return VocabularyColumns(
            array("q", table.ids), PackedStrings.of(table.tokens), PackedStrings.of(table.shown),
            array("q", table.char_lengths), array("q", table.byte_lengths), PackedStrings.of(table.kinds),
            array("q", table.merge_ranks), array("q", table.frequencies),
        )  # fmt: skip

    def __len__(self) -> int:
        return len(self.ids)


# How each token a BPE model merged was made (`engine.analysis.vocabulary.merges_made`), packed: the
# tokens, the ranks of the merges that made them, and the two parts of each.
MadeWire = tuple[PackedStrings, "array[int]", PackedStrings, PackedStrings]


def pack_made(made: dict[str, tuple[int, str, str]]) -> MadeWire:
    values = list(made.values())
    return (
        PackedStrings.of(made),
        array("q", [rank for rank, _, _ in values]),
        PackedStrings.of([left for _, left, _ in values]),
        PackedStrings.of([right for _, _, right in values]),
    )


def unpack_made(wire: MadeWire) -> dict[str, tuple[int, str, str]]:
    tokens, ranks, lefts, rights = wire
    return {token: (rank, left, right) for token, rank, left, right in zip(tokens, ranks, lefts, rights)}
