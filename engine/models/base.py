"""The model stage's contract: `Model` turns one pre-tokenized piece into `Token`s, and back.

Concrete models live in their algorithm packages (`engine.models.bpe`, `engine.models.wordpiece`,
`engine.models.wordlevel`); this module only holds what they share. No training here (`engine.trainers`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Final, Generic, TypeVar

from mypy_extensions import mypyc_attr

from engine import unicode_chars as uc
from engine.schema import JsonValue

NO_ID: Final = -1


class Token:
    """One token produced by a model: its id, its string, and where it sits in the piece.

    `start`/`end` are CHARACTER offsets into the normalized piece the model was given
    (HF's Rust `Token` carries byte offsets; its Python binding reports characters, and so do we).
    """

    id: int
    value: str
    start: int
    end: int

    def __init__(self, id: int, value: str, start: int, end: int) -> None:
        self.id = id
        self.value = value
        self.start = start
        self.end = end

    @property
    def offsets(self) -> tuple[int, int]:
        return (self.start, self.end)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Token):
            return NotImplemented
        return (
            self.id == other.id
            and self.value == other.value
            and self.start == other.start
            and self.end == other.end
        )

    def __hash__(self) -> int:
        return hash((self.id, self.value, self.start, self.end))

    def __repr__(self) -> str:
        return f"Token(id={self.id}, value={self.value!r}, offsets=({self.start}, {self.end}))"


class TokenRun:
    """A model's tokens for one piece as parallel lists: what the encode fast path copies from.

    Runs come out of the models' word caches and are shared: never modify one.
    """

    ids: list[int]
    values: list[str]
    starts: list[int]
    ends: list[int]

    def __init__(self, ids: list[int], values: list[str], starts: list[int], ends: list[int]) -> None:
        self.ids = ids
        self.values = values
        self.starts = starts
        self.ends = ends

    def tokens(self) -> list[Token]:
        out: list[Token] = []
        for k in range(len(self.ids)):
            out.append(Token(self.ids[k], self.values[k], self.starts[k], self.ends[k]))
        return out


# Words of 256 chars or more are never cached (as in HF). HF caches 10,000 words; a book has
# more distinct words than that (shakespeare.txt: 13,355), and a cache that starts over
# whenever it is full then misses the common words again and again (measured: encoding every
# line took 0.243 s with 10,000 words, 0.135 s with 50,000). A dictionary has more still
# (gcide, 11 MB: 129,086 distinct words in 2,714,085), so the cache keeps two generations of
# 50,000 runs each: 138,928 misses there, against 191,399 for one of 50,000 that starts over
# (benchmarks/peers.md). 100,000 runs take about 40 MB.
MAX_CACHED_LENGTH: Final = 256
DEFAULT_CACHE_CAPACITY: Final = 100_000


R = TypeVar("R")


class WordCache(Generic[R]):
    """A bounded word -> run cache of two generations. Words go into the current one;
    when it is full (half the capacity) it becomes the old one, and the old one is dropped. A
    word found in the old one is copied forward, so a word in use survives the turnover and a
    word not seen for a generation goes. Never more than `capacity` runs in all; 0 caches nothing.

    capacity 4: put a, b -> current {a, b}; put c -> old {a, b}, current {c}; get a -> current
    {c, a}; put d -> old {c, a}, current {d}: b is gone.
    """

    capacity: int
    # (the most runs of a generation: half the capacity; a capacity of 1 keeps one generation)
    generation: int
    runs: dict[str, R]
    old: dict[str, R]

    def __init__(self, capacity: int = DEFAULT_CACHE_CAPACITY) -> None:
        self.capacity = capacity
        self.generation = max(1, capacity // 2)
        self.runs = {}
        self.old = {}

    def get(self, word: str) -> R | None:
        found = self.runs.get(word)
        if found is not None:
            return found
        return self.recall(word)

    def recall(self, word: str) -> R | None:
        """The run of `word` from the old generation, copied forward into the current one."""
        if not self.old:
            return None
        found = self.old.get(word)
        if found is not None:
            self.put(word, found)
        return found

    def put(self, word: str, run: R) -> None:
        if self.capacity <= 0 or len(word) >= MAX_CACHED_LENGTH:
            return
        if len(self.runs) >= self.generation:
            # subtle: with a capacity of 1 (or 3) two generations would hold more than it
            self.old = self.runs if 2 * self.generation <= self.capacity else {}
            self.runs = {}
        self.runs[word] = run

    def __len__(self) -> int:
        """How many runs it holds (a word copied forward is in both generations: counted twice)."""
        return len(self.runs) + len(self.old)

    def clear(self) -> None:
        self.runs = {}
        self.old = {}

    def resize(self, capacity: int) -> None:
        self.capacity = capacity
        self.generation = max(1, capacity // 2)
        self.clear()


class RunCache(WordCache[TokenRun]):
    """The word cache of the models whose hits are `TokenRun`s (BPE keeps its own kind of run)."""


@mypyc_attr(allow_interpreted_subclasses=True)
class Model(ABC):
    """A vocabulary and an algorithm that splits a piece of text into tokens of that vocabulary."""

    @abstractmethod
    def tokenize_run(self, sequence: str) -> TokenRun:
        """Split one pre-tokenized, normalized piece; offsets in CHARACTERS of the piece, as the
        pipeline needs them. The run may come from the model's word cache: read only. `""`
        gives an empty run."""

    def tokenize(self, sequence: str) -> list[Token]:
        """HF's `Model.tokenize`: the tokens of one piece, offsets in UTF-8 BYTES of it, as
        HF reports them ("straße" on BERT -> st (0, 2), ##raße (2, 7)). Fresh objects."""
        tokens = self.tokenize_run(sequence).tokens()
        if not sequence.isascii():
            byte_at = uc.utf8_offsets(sequence)
            for token in tokens:
                token.start = byte_at[token.start]
                token.end = byte_at[token.end]
        return tokens

    @abstractmethod
    def token_to_id(self, token: str) -> int | None: ...

    @abstractmethod
    def id_to_token(self, id: int) -> str | None: ...

    @abstractmethod
    def get_vocab(self) -> dict[str, int]: ...

    @abstractmethod
    def get_vocab_size(self) -> int: ...

    @abstractmethod
    def to_dict(self) -> dict[str, JsonValue]:
        """The `"model"` object of tokenizer.json, keys in HF's order."""

    @abstractmethod
    def save(self, folder: str, prefix: str | None = None) -> list[str]:
        """Write the model's own files (vocab.json/merges.txt, vocab.txt...) and return their paths."""


class VocabModel(Model):
    """A model whose vocabulary is a plain token -> id map (BPE, WordPiece, WordLevel)."""

    _vocab: dict[str, int]
    _vocab_r: dict[int, str]

    def get_vocab(self) -> dict[str, int]:
        return dict(self._vocab)

    def get_vocab_size(self) -> int:
        return len(self._vocab)

    def token_to_id(self, token: str) -> int | None:
        return self._vocab.get(token)

    def id_to_token(self, id: int) -> str | None:
        return self._vocab_r.get(id)
