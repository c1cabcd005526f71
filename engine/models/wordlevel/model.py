"""The WordLevel model: each pre-tokenized word is one token, or `unk_token` (HF).

Reads and writes vocab.json and the tokenizer.json "model" object. No training here
(see `engine.models.wordlevel.trainer`, which fills a model through `set_vocab`).
"""

from __future__ import annotations

import os

from engine.errors import EngineError
from engine.schema import JsonValue, expect_tagged, get_str, get_vocab
from engine.models.base import TokenRun, VocabModel
from engine.formats.files import write_text_atomically
from engine.formats.vocab_files import dump_vocab_json, ordered_vocab, read_vocab_json


class WordLevel(VocabModel):
    """A plain word -> id lookup; unknown words become `unk_token` ("<unk>" by default)."""

    unk_token: str

    def __init__(self, vocab: dict[str, int] | str | None = None, unk_token: str | None = None) -> None:
        self.unk_token = unk_token if unk_token is not None else "<unk>"
        if isinstance(vocab, str):
            vocab = WordLevel.read_file(vocab)
        self._vocab = {}
        self._vocab_r = {}
        self.set_vocab(vocab if vocab is not None else {})

    def set_vocab(self, vocab: dict[str, int]) -> None:
        """Replace the vocabulary (what HF's WordLevelTrainer does at the end of training)."""
        self._vocab = dict(vocab)
        vocab_r: dict[int, str] = {}
        for token, id in self._vocab.items():
            vocab_r[id] = token
        self._vocab_r = vocab_r

    @classmethod
    def from_file(cls, vocab: str, unk_token: str | None = None) -> WordLevel:
        return WordLevel(WordLevel.read_file(vocab), unk_token)

    @staticmethod
    def read_file(vocab: str) -> dict[str, int]:
        """A vocab.json {token: id} (non-number values skipped, as HF does)."""
        return read_vocab_json(vocab)

    # -- Model ------------------------------------------------------------------------------

    def tokenize_run(self, sequence: str) -> TokenRun:
        """The whole piece as one token. Like HF, even "" is looked up (and may give unk)."""
        found = self._vocab.get(sequence)
        if found is not None:
            return TokenRun([found], [sequence], [0], [len(sequence)])
        unk = self._vocab.get(self.unk_token)
        if unk is None:
            raise EngineError("WordLevel error: Missing [UNK] token from the vocabulary")
        return TokenRun([unk], [self.unk_token], [0], [len(sequence)])

    # -- serialization ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "type": "WordLevel",
            "vocab": ordered_vocab(self._vocab_r),
            "unk_token": self.unk_token,
        }

    @staticmethod
    def from_dict(data: object) -> WordLevel:
        where = "WordLevel"
        obj = expect_tagged(data, where)
        return WordLevel(get_vocab(obj, "vocab", where), get_str(obj, "unk_token", where))

    def save(self, folder: str, prefix: str | None = None) -> list[str]:
        """Write vocab.json ({token: id} in id order)."""
        path = os.path.join(folder, f"{prefix}-vocab.json" if prefix else "vocab.json")
        write_text_atomically(path, dump_vocab_json(self._vocab_r))
        return [path]

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickling and deep copies go through the tokenizer.json "model" object, as HF's do
        (a compiled native class has no default way to rebuild itself)."""
        return (WordLevel.from_dict, (self.to_dict(),))

    def __repr__(self) -> str:
        return f"WordLevel(vocab_size={len(self._vocab)}, unk_token={self.unk_token!r})"
