"""The model stage's contract: `Model` turns one pre-tokenized piece into `Token`s, and back.

Concrete models live in their algorithm packages (`engine.bpe`, `engine.wordpiece`,
`engine.wordlevel`); this module only holds what they share. No training here (`engine.trainers`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Final

from mypy_extensions import mypyc_attr

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


@mypyc_attr(allow_interpreted_subclasses=True)
class Model(ABC):
    """A vocabulary and an algorithm that splits a piece of text into tokens of that vocabulary."""

    @abstractmethod
    def tokenize(self, sequence: str) -> list[Token]:
        """Split one pre-tokenized, normalized piece. `""` gives `[]`."""

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
