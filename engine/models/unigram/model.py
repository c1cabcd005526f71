"""The Unigram model (SentencePiece's): each piece has a log-probability score, and a word splits
into the pieces whose scores sum highest (Viterbi), with HF `tokenizers` 0.23 semantics.

Unknown characters become `unk_id` with score `min_score - 10`, consecutive unknowns fuse into one
token, and `byte_fallback` spells an unknown run as `<0xXX>` pieces when all of them exist. Also
n-best and sampled segmentations (sentencepiece's). No training here (`engine.models.unigram.trainer`).
"""

from __future__ import annotations

import json
import os
import random
from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

from engine.errors import EngineError, SchemaError
from engine.formats.files import write_text_atomically
from engine.models.base import Model, RunCache, Token, TokenRun
from engine.schema import JsonValue, as_float, expect_tagged, get_bool, get_list, get_opt_count
from engine.models.prefix_trie import NO_NODE, ROOT, PrefixTrie
from engine.models.unigram.lattice import UNK_PENALTY, Lattice, PieceIndex

MISSING_UNK: Final = "Encountered an unknown token but `unk_id` is missing"


class Unigram(Model):
    """A SentencePiece Unigram model: `vocab` is [(piece, score), ...] in id order.

    Unigram([("<unk>", 0.0), ("a", -1.0), ("b", -1.0), ("ab", -1.5)], unk_id=0).tokenize("abc")
    -> [Token(3, "ab", (0, 2)), Token(0, "c", (2, 3))]
    """

    unk_id: int | None
    byte_fallback: bool
    min_score: float
    _pieces: list[str]
    _scores: list[float]
    _token_to_ids: dict[str, int]
    _index: PieceIndex
    # the fast path's copies of the index's fields
    _trie: PrefixTrie
    _unk: int
    _unk_score: float
    _cache: RunCache
    _cached_byte_fallback: bool

    def __init__(
        self,
        vocab: list[tuple[str, float]] | None = None,
        unk_id: int | None = None,
        byte_fallback: bool = False,
    ) -> None:
        if vocab is None:
            if unk_id is not None:
                raise ValueError("`vocab` and `unk_id` must be both specified")
            vocab = [("<unk>", 0.0)]
            unk_id = 0
        self.byte_fallback = byte_fallback
        self._cache = RunCache()
        self._cached_byte_fallback = byte_fallback
        self.set_pieces(vocab, unk_id)

    def set_pieces(self, vocab: list[tuple[str, float]], unk_id: int | None) -> None:
        """Replace the pieces and the unknown piece's id (what UnigramTrainer gives the model it
        trained); raises ValueError as the constructor does."""
        if unk_id is not None:
            if not vocab:
                raise ValueError("Error while loading Unigram: The vocabulary is empty but at least <unk> is needed")
            if unk_id < 0 or unk_id >= len(vocab):
                raise ValueError("Error while loading Unigram: The `unk_id` is larger than vocabulary size")
        self.unk_id = unk_id
        pieces: list[str] = []
        scores: list[float] = []
        token_to_ids: dict[str, int] = {}
        min_score = float("inf")
        for piece, score in vocab:
            token_to_ids[piece] = len(pieces)  # subtle: a repeated piece keeps its LAST id, as in HF
            pieces.append(piece)
            scores.append(float(score))
            if score < min_score:
                min_score = float(score)
        self._pieces = pieces
        self._scores = scores
        self._token_to_ids = token_to_ids
        self.min_score = min_score
        self._index = PieceIndex(token_to_ids, scores, unk_id, min_score - UNK_PENALTY)
        self._trie = self._index.trie
        self._unk = self._index.unk_id
        self._unk_score = self._index.unk_score
        self._cache.clear()

    @property
    def pieces(self) -> list[tuple[str, float]]:
        """The (piece, score) list, in id order."""
        result: list[tuple[str, float]] = []
        for k in range(len(self._pieces)):
            result.append((self._pieces[k], self._scores[k]))
        return result

    @property
    def piece_index(self) -> PieceIndex:
        """The lookup structure lattices are built from (shared; do not modify)."""
        return self._index

    def lattice(self, sequence: str) -> Lattice:
        """The full lattice of `sequence` (every piece at every position, unknowns as `unk_id`)."""
        return self._index.lattice(sequence)

    # -- Model --------------------------------------------------------------------------------

    def tokenize_run(self, sequence: str) -> TokenRun:
        """The Viterbi best segmentation of one piece (offsets in chars)."""
        if not sequence:
            return TokenRun([], [], [], [])
        if self.byte_fallback != self._cached_byte_fallback:
            self._cache.clear()
            self._cached_byte_fallback = self.byte_fallback
        run = self._cache.get(sequence)
        if run is None:
            run = self._run(sequence, self._best_path(sequence))
            self._cache.put(sequence, run)
        return run

    def _best_path(self, sequence: str) -> list[int]:
        """HF's `encode_optimized` with unknowns fused: [id, start, end, ...] per token, in order.

        Of equal scores, the path whose last piece starts first wins (HF's strict `>`).
        """
        size = len(sequence)
        trie = self._trie
        scores = self._scores
        unk = self._unk
        unk_score = self._unk_score
        # (unboxed: a list's store boxed a float or an int per piece met)
        best = vec[float]([0.0] * (size + 1))
        back_start = vec[i64]([-1] * (size + 1))
        back_id = vec[i64]([0] * (size + 1))
        for start in range(size):
            # subtle: HF scores an unreached position 0.0 (possible only without an unk id)
            base: float = best[start]
            has_single = False
            node = trie.child(ROOT, ord(sequence[start]))
            end = start + 1
            while node != NO_NODE:
                found = trie.piece(node)
                if found >= 0:
                    candidate = base + scores[found]
                    if back_start[end] < 0 or candidate > best[end]:
                        best[end] = candidate
                        back_start[end] = start
                        back_id[end] = found
                    if end == start + 1:
                        has_single = True
                if end >= size:
                    break
                node = trie.child(node, ord(sequence[end]))
                end += 1
            if not has_single:
                end = start + 1
                candidate = base + unk_score
                if back_start[end] < 0 or candidate > best[end]:
                    if unk < 0:
                        raise EngineError(MISSING_UNK)
                    best[end] = candidate
                    back_start[end] = start
                    back_id[end] = unk
        flat: list[int] = []
        end = size
        run_end = -1  # end of the unknown run being fused, -1 when none
        while end > 0:
            start = int(back_start[end])
            if start < 0:
                raise EngineError(f"Unigram: no segmentation reaches character {end} of {sequence!r}")
            id = int(back_id[end])
            if id == unk:
                if run_end < 0:
                    run_end = end
            else:
                if run_end >= 0:
                    flat.append(run_end)
                    flat.append(end)
                    flat.append(unk)
                    run_end = -1
                flat.append(end)
                flat.append(start)
                flat.append(id)
            end = start
        if run_end >= 0:
            flat.append(run_end)
            flat.append(0)
            flat.append(unk)
        flat.reverse()
        return flat

    def path_run(self, sequence: str, lattice: Lattice, path: list[int]) -> TokenRun:
        """The model's tokens for a path through `lattice` (of `sequence`), as `tokenize_run`
        makes them of the best path: a run of unknown nodes is one token, looked up whole, else
        byte pieces (byte_fallback), else the unknown piece (the Encode tab's stepper)."""
        return self._run(sequence, self._path_flat(lattice, path))

    def _path_flat(self, lattice: Lattice, path: list[int]) -> list[int]:
        """A lattice path as [id, start, end, ...] with consecutive unknown nodes fused."""
        flat: list[int] = []
        unk = self._unk
        k = 0
        while k < len(path):
            node = path[k]
            id = lattice.ids[node]
            start = lattice.starts[node]
            end = lattice.ends[node]
            if id == unk:
                while k + 1 < len(path) and lattice.ids[path[k + 1]] == unk:
                    k += 1
                    end = lattice.ends[path[k]]
            flat.append(id)
            flat.append(start)
            flat.append(end)
            k += 1
        return flat

    def _tokens(self, sequence: str, flat: list[int]) -> list[Token]:
        """Tokens of a flat path (`_run`'s, as Token objects)."""
        return self._run(sequence, flat).tokens()

    def _run(self, sequence: str, flat: list[int]) -> TokenRun:
        """The run of a flat path; a fused unknown run is looked up whole, then byte-fallen-back.
        (Straight into the run's lists: a Token object per token was a fifth of the time.)"""
        run = TokenRun([], [], [], [])
        ids = run.ids
        values = run.values
        starts = run.starts
        ends = run.ends
        pieces = self._pieces
        unk = self._unk
        for k in range(0, len(flat), 3):
            id = flat[k]
            start = flat[k + 1]
            end = flat[k + 2]
            if id != unk:
                ids.append(id)
                values.append(pieces[id])
                starts.append(start)
                ends.append(end)
                continue
            value = sequence[start:end]
            found = self._token_to_ids.get(value)
            if found is not None:
                ids.append(found)
                values.append(value)
                starts.append(start)
                ends.append(end)
                continue
            if self.byte_fallback and self._append_bytes(run, value, start, end):
                continue
            if unk < 0:
                raise EngineError(MISSING_UNK)
            ids.append(unk)
            values.append(value)
            starts.append(start)
            ends.append(end)
        return run

    def _append_bytes(self, run: TokenRun, value: str, start: int, end: int) -> bool:
        """Append one `<0xXX>` token per UTF-8 byte of `value` (all spanning start..end), or
        nothing and False when one of those pieces is missing."""
        ids: list[int] = []
        names: list[str] = []
        for byte in value.encode("utf-8"):
            name = f"<0x{byte:02X}>"
            found = self._token_to_ids.get(name)
            if found is None:
                return False
            ids.append(found)
            names.append(name)
        for k in range(len(ids)):
            run.ids.append(ids[k])
            run.values.append(names[k])
            run.starts.append(start)
            run.ends.append(end)
        return True

    def nbest(self, sequence: str, n: int) -> list[tuple[list[Token], float]]:
        """The `n` best segmentations, best first, each with its score (the sum of its piece
        scores, unknowns at `min_score - 10`), as sentencepiece's NBestEncode."""
        if not sequence or n <= 0:
            return []
        lattice = self.lattice(sequence)
        result: list[tuple[list[Token], float]] = []
        for path, score in lattice.nbest(n):
            result.append((self._tokens(sequence, self._path_flat(lattice, path)), score))
        return result

    def sample(self, sequence: str, alpha: float, rng: random.Random) -> list[Token]:
        """A segmentation drawn with probability proportional to exp(alpha * its score)
        (subword regularization, sentencepiece's SampleEncode). alpha 0 is uniform."""
        if not sequence:
            return []
        lattice = self.lattice(sequence)
        path = lattice.sample(alpha, rng)
        return self._tokens(sequence, self._path_flat(lattice, path))

    def token_to_id(self, token: str) -> int | None:
        return self._token_to_ids.get(token)

    def id_to_token(self, id: int) -> str | None:
        if 0 <= id < len(self._pieces):
            return self._pieces[id]
        return None

    def get_vocab(self) -> dict[str, int]:
        return dict(self._token_to_ids)

    def get_vocab_size(self) -> int:
        return len(self._pieces)

    def get_score(self, id: int) -> float:
        return self._scores[id]

    def clear_cache(self) -> None:
        self._cache.clear()

    def resize_cache(self, capacity: int) -> None:
        self._cache.resize(capacity)

    # -- serialization ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, JsonValue]:
        vocab: list[JsonValue] = []
        for k in range(len(self._pieces)):
            vocab.append([self._pieces[k], self._scores[k]])
        return {
            "type": "Unigram",
            "unk_id": self.unk_id,
            "vocab": vocab,
            "byte_fallback": self.byte_fallback,
        }

    @staticmethod
    def from_dict(data: object) -> Unigram:
        where = "Unigram"
        obj = expect_tagged(data, where)
        if "vocab" not in obj:
            raise SchemaError(f"{where}: missing field 'vocab'")
        vocab: list[tuple[str, float]] = []
        for index, item in enumerate(get_list(obj, "vocab", where)):
            if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str):
                raise SchemaError(f"{where}: vocab item {index} must be [piece, score], got {item!r}")
            vocab.append((item[0], as_float(item[1], f"{where}: the score of vocab item {index}")))
        unk_id = get_opt_count(obj, "unk_id", where)
        byte_fallback = get_bool(obj, "byte_fallback", where, False)
        try:
            return Unigram(vocab, unk_id, byte_fallback)
        except ValueError as error:
            raise SchemaError(f"{where}: {error}") from None

    def save(self, folder: str, prefix: str | None = None) -> list[str]:
        """Write unigram.json (the model object, pretty-printed, as HF)."""
        path = os.path.join(folder, f"{prefix}-unigram.json" if prefix else "unigram.json")
        write_text_atomically(path, json.dumps(self.to_dict(), ensure_ascii=False, indent=2))
        return [path]

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickling and deep copies go through the tokenizer.json "model" object, as HF's do
        (a compiled native class has no default way to rebuild itself)."""
        return (Unigram.from_dict, (self.to_dict(),))

    def __repr__(self) -> str:
        return f"Unigram(vocab_size={len(self._pieces)}, unk_id={self.unk_id}, byte_fallback={self.byte_fallback})"
