"""The WordPiece model: greedy longest-match-first over the vocabulary, a whole word -> unk (HF).

Reads and writes vocab.txt and the tokenizer.json "model" object. No training here
(HF's WordPieceTrainer trains a BPE and converts it with `WordPiece.from_bpe`).
"""

from __future__ import annotations

import os

from mypy_extensions import i64

from engine.models.bpe.model import BPE
from engine.errors import EngineError
from engine.schema import JsonValue, expect_tagged, get_count, get_str, get_vocab
from engine.models.base import RunCache, TokenRun, VocabModel
from engine.models.prefix_trie import NO_NODE, NO_PIECE, ROOT, PrefixTrie
from engine.formats.files import write_text_atomically
from engine.formats.vocab_files import dump_vocab_txt, ordered_vocab, read_vocab_txt


class WordPiece(VocabModel):
    """BERT's WordPiece: pieces after the first carry `continuing_subword_prefix` ("##").

    A word longer than `max_input_chars_per_word` characters, or one that cannot be covered
    by vocabulary pieces, becomes a single `unk_token`.
    """

    unk_token: str
    continuing_subword_prefix: str
    max_input_chars_per_word: int
    # `_prefix_index`'s, for the prefix it was built with (when `_indexed`)
    _heads: PrefixTrie
    _tails: PrefixTrie
    _indexed_prefix: str
    _indexed: bool
    # whether `_vocab_r` was built: it is, at the first id lookup (converting a 10-million-token
    # vocab.txt needs none, and it is 0.35 GB)
    _reversed: bool
    # word -> tokens, valid for the options it was filled with (they are plain attributes)
    _cache: RunCache
    _cached_options: tuple[str, str, int]

    def __init__(
        self,
        vocab: dict[str, int] | str | None = None,
        unk_token: str = "[UNK]",
        max_input_chars_per_word: int = 100,
        continuing_subword_prefix: str = "##",
    ) -> None:
        self.unk_token = unk_token
        self.max_input_chars_per_word = max_input_chars_per_word
        self.continuing_subword_prefix = continuing_subword_prefix
        self._cache = RunCache()
        self._cached_options = (unk_token, continuing_subword_prefix, max_input_chars_per_word)
        if isinstance(vocab, str):
            vocab = WordPiece.read_file(vocab)
        self.set_vocab(dict(vocab) if vocab is not None else {})

    def set_vocab(self, vocab: dict[str, int]) -> None:
        """Replace the vocabulary (what WordPieceTrainer gives the model it trained)."""
        self._vocab = vocab
        self._vocab_r = {}
        self._reversed = False
        self._heads = PrefixTrie()
        self._tails = PrefixTrie()
        self._indexed_prefix = ""
        self._indexed = False
        self._cache.clear()

    def _reverse(self) -> dict[int, str]:
        """id -> token, built at the first call (for a repeated id, the last token has it)."""
        if not self._reversed:
            vocab_r: dict[int, str] = {}
            for token, id in self._vocab.items():
                vocab_r[id] = token
            self._vocab_r = vocab_r
            self._reversed = True
        return self._vocab_r

    def id_to_token(self, id: int) -> str | None:
        return self._reverse().get(id)

    @staticmethod
    def owning(
        vocab: dict[str, int],
        unk_token: str = "[UNK]",
        max_input_chars_per_word: int = 100,
        continuing_subword_prefix: str = "##",
    ) -> WordPiece:
        """A WordPiece that takes `vocab` as its own, without the constructor's copy: the caller
        gives it up (a 10-million-token vocabulary is 0.35 GB a copy)."""
        model = WordPiece(None, unk_token, max_input_chars_per_word, continuing_subword_prefix)
        model.set_vocab(vocab)
        return model

    @classmethod
    def from_file(
        cls,
        vocab: str,
        unk_token: str = "[UNK]",
        max_input_chars_per_word: int = 100,
        continuing_subword_prefix: str = "##",
    ) -> WordPiece:
        return WordPiece(
            WordPiece.read_file(vocab), unk_token, max_input_chars_per_word, continuing_subword_prefix
        )

    @staticmethod
    def read_file(vocab: str) -> dict[str, int]:
        """A vocab.txt: one token per line, its id the line number (right-trimmed, as HF)."""
        return read_vocab_txt(vocab)

    @staticmethod
    def from_bpe(bpe: BPE) -> WordPiece:
        """HF's conversion used by WordPieceTrainer: same vocab, BPE's unk and prefix if set."""
        wordpiece = WordPiece(bpe.get_vocab())
        if bpe.unk_token is not None:
            wordpiece.unk_token = bpe.unk_token
        if bpe.continuing_subword_prefix is not None:
            wordpiece.continuing_subword_prefix = bpe.continuing_subword_prefix
        return wordpiece

    # -- Model ------------------------------------------------------------------------------

    def _longest_first(self, sequence: str) -> TokenRun:
        """Longest vocabulary piece first, then the rest with the prefix.

        "unaffable" with {un, ##aff, ##able} -> un (0, 2), ##aff (2, 5), ##able (5, 9)
        """
        n = len(sequence)
        if n > self.max_input_chars_per_word:
            return self._unk(n)
        heads, tails = self._prefix_index()
        prefix = self.continuing_subword_prefix
        run = TokenRun([], [], [], [])
        start = 0
        while start < n:
            # subtle: walked forward while the text is a prefix of some piece, the last piece
            # met is the longest that fits (HF tries every length from the longest down)
            trie = heads if start == 0 else tails
            found: i64 = NO_PIECE
            found_end = start
            node = trie.child(ROOT, ord(sequence[start]))
            end = start + 1
            while node != NO_NODE:
                id = trie.piece(node)
                if id >= 0:
                    found = id
                    found_end = end
                if end >= n:
                    break
                node = trie.child(node, ord(sequence[end]))
                end += 1
            if found < 0:
                return self._unk(n)
            run.ids.append(int(found))
            run.values.append(sequence[start:found_end] if start == 0 else prefix + sequence[start:found_end])
            run.starts.append(start)
            run.ends.append(found_end)
            start = found_end
        return run

    def _prefix_index(self) -> tuple[PrefixTrie, PrefixTrie]:
        """The tries (`PrefixTrie`) of the pieces that start a word, and of the pieces that go
        on one (their `continuing_subword_prefix` cut off). Built at the first word, and again
        when the prefix changed (a vocabulary of 10 million tokens converted is never tokenized)."""
        prefix = self.continuing_subword_prefix
        if self._indexed_prefix != prefix or not self._indexed:
            heads = PrefixTrie()
            tails = PrefixTrie()
            for token, id in self._vocab.items():
                heads.add(token, id)
                if token.startswith(prefix):
                    tails.add(token[len(prefix) :], id)
            self._heads = heads
            self._tails = tails
            self._indexed_prefix = prefix
            self._indexed = True
        return self._heads, self._tails

    def tokenize_run(self, sequence: str) -> TokenRun:
        options = (self.unk_token, self.continuing_subword_prefix, self.max_input_chars_per_word)
        if options != self._cached_options:
            self._cache.clear()
            self._cached_options = options
        run = self._cache.get(sequence)
        if run is None:
            run = self._longest_first(sequence)
            self._cache.put(sequence, run)
        return run

    def _unk(self, length: int) -> TokenRun:
        id = self._vocab.get(self.unk_token)
        if id is None:
            raise EngineError("WordPiece error: Missing [UNK] token from the vocabulary")
        return TokenRun([id], [self.unk_token], [0], [length])

    # -- serialization ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "type": "WordPiece",
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "vocab": self._ordered_vocab(),
        }

    def _ordered_vocab(self) -> dict[str, JsonValue]:
        """{token: id} in id order. subtle: a vocabulary read from a file is already in that order
        (checked), and is copied as it is, with no id -> token map built for the sorting."""
        previous = -1
        in_order = True
        for id in self._vocab.values():
            if id <= previous:
                in_order = False
                break
            previous = id
        if not in_order:
            return ordered_vocab(self._reverse())
        return dict[str, JsonValue](self._vocab)

    @staticmethod
    def from_dict(data: object) -> WordPiece:
        where = "WordPiece"
        obj = expect_tagged(data, where)
        return WordPiece.owning(
            get_vocab(obj, "vocab", where),
            get_str(obj, "unk_token", where),
            get_count(obj, "max_input_chars_per_word", where),
            get_str(obj, "continuing_subword_prefix", where),
        )

    def save(self, folder: str, prefix: str | None = None) -> list[str]:
        """Write vocab.txt: one token per line, in id order."""
        path = os.path.join(folder, f"{prefix}-vocab.txt" if prefix else "vocab.txt")
        write_text_atomically(path, dump_vocab_txt(self._vocab))
        return [path]

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickling and deep copies go through the tokenizer.json "model" object, as HF's do
        (a compiled native class has no default way to rebuild itself)."""
        return (WordPiece.from_dict, (self.to_dict(),))

    def __repr__(self) -> str:
        return (
            f"WordPiece(vocab_size={len(self._vocab)}, unk_token={self.unk_token!r}, "
            f"continuing_subword_prefix={self.continuing_subword_prefix!r}, "
            f"max_input_chars_per_word={self.max_input_chars_per_word})"
        )
