"""The BPE model: split a word into its characters, then apply the merges in rank order (HF).

Reads and writes vocab.json + merges.txt and the tokenizer.json "model" object. No training
here (see `engine.models.bpe.trainer`, which fills a model through `set_vocab_and_merges`).
"""

from __future__ import annotations

import os
from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

from engine import unicode_chars as uc
from engine.byte_level import BYTES_TO_UNICODE, bytes_to_chars
from engine.errors import EngineError, SchemaError
from engine.schema import JsonValue, expect_tagged, get_bool, get_opt_float, get_opt_str, get_vocab, require
from engine.models.base import DEFAULT_CACHE_CAPACITY, MAX_CACHED_LENGTH, Token, TokenRun, VocabModel, WordCache
from engine.models.bpe.byte_runs import ByteRuns, RunTable
from engine.models.bpe.encoder import char_offsets_from_bytes, merge_all, utf8_len
from engine.models.bpe.merge_table import SHORT_WORD, CharIds, Merged, MergeTable
from engine.models.bpe.word_run import WordRun, packed_word_run
from engine.formats.files import write_texts_atomically
from engine.formats.vocab_files import (
    dump_merges_txt,
    dump_vocab_json,
    ordered_vocab,
    parse_merges,
    read_merges_txt,
    read_vocab_json,
)



# The code point of each byte's byte-level char (b" " -> ord("Ġ")).
BYTE_CODES: Final = vec[i64]([ord(char) for char in BYTES_TO_UNICODE])


class BPE(VocabModel):
    """Byte-pair encoding with HF's options: unk_token, fuse_unk, byte_fallback, dropout,
    ignore_merges, continuing_subword_prefix and end_of_word_suffix; and one of ours,
    end_of_word_symbol (not HF's).

    Token offsets are characters of the piece; a byte-fallback `<0xNN>` token covers its whole
    character. Results of deterministic tokenization are cached per word.

    `end_of_word_symbol` (needs `end_of_word_suffix`): a word starts as its characters followed
    by the suffix as a symbol of its own, `l o w </w>` as in subword-nmt and the textbooks,
    instead of HF's `l o w</w>`. A token holding the `</w>` ends at the word's end; a lone
    `</w>` token is kept, zero-width at the word's end (the decoder reads the word end from it).
    """

    # The merges as given, in rank order (duplicates kept, as HF's trainer may emit them).
    _merge_list: list[tuple[str, str]]
    # Built from _merge_list on first use: packed pair (a * _stride + b) -> rank, rank -> new id.
    _merge_ranks: dict[int, int]
    _merge_new_ids: list[int]
    _merges_built: bool
    # The same merges over native ints for short words (`_merged_run`), built with them; None
    # when the vocabulary gives two tokens one id (the native merge needs one token an id), or
    # an id of 2**31 or more.
    _merge_table: MergeTable | None
    # The symbol id of a char first in a word, inside it, last, and alone (the prefix and the
    # suffix in effect then), built on first use; None after any of them changes.
    _char_ids: list[CharIds] | None
    _stride: int
    _byte_ids: list[int]
    _cache: WordCache[WordRun]
    # the same runs keyed by the UTF-8 bytes of words, for the encode fast path (cleared with
    # `_cache`, through `_clear_cache`)
    _byte_runs: ByteRuns
    _dropout: float | None
    _unk_token: str | None
    _continuing_subword_prefix: str | None
    _end_of_word_suffix: str | None
    _fuse_unk: bool
    _byte_fallback: bool
    _ignore_merges: bool
    _end_of_word_symbol: bool

    def __init__(
        self,
        vocab: dict[str, int] | str | None = None,
        merges: list[tuple[str, str]] | str | None = None,
        cache_capacity: int | None = None,
        dropout: float | None = None,
        unk_token: str | None = None,
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        fuse_unk: bool | None = None,
        byte_fallback: bool = False,
        ignore_merges: bool = False,
        end_of_word_symbol: bool = False,
    ) -> None:
        if (vocab is None) != (merges is None):
            raise ValueError("`vocab` and `merges` must be both specified")
        if dropout is not None and not 0.0 <= dropout <= 1.0:
            raise ValueError("Error while initializing BPE: Dropout should be between 0 and 1, inclusive")
        self._dropout = dropout
        self._unk_token = unk_token
        self._continuing_subword_prefix = continuing_subword_prefix
        self._end_of_word_suffix = end_of_word_suffix
        self._fuse_unk = bool(fuse_unk)
        self._byte_fallback = byte_fallback
        self._ignore_merges = ignore_merges
        _check_end_of_word_symbol(end_of_word_symbol, end_of_word_suffix)
        self._end_of_word_symbol = end_of_word_symbol
        capacity = DEFAULT_CACHE_CAPACITY if cache_capacity is None else cache_capacity
        self._cache = WordCache(capacity)
        self._byte_runs = ByteRuns(capacity)
        vocab_dict: dict[str, int] = {}
        merge_list: list[tuple[str, str]] = []
        if isinstance(vocab, str) and isinstance(merges, str):
            vocab_dict, merge_list = BPE.read_file(vocab, merges)
        elif isinstance(vocab, str) or isinstance(merges, str):
            raise ValueError("`vocab` and `merges` must be both be from memory or both filenames")
        elif vocab is not None and merges is not None:
            vocab_dict = dict(vocab)
            merge_list = _merge_pairs(list[object](merges))
        self._set(vocab_dict, merge_list)
        # HF builds (and checks) the merges at construction.
        self._build_merges()

    # -- construction -----------------------------------------------------------------------

    def _set(self, vocab: dict[str, int], merges: list[tuple[str, str]]) -> None:
        self._vocab = vocab
        vocab_r: dict[int, str] = {}
        stride = 1
        for token, id in vocab.items():
            vocab_r[id] = token
            if id >= stride:
                stride = id + 1
        self._vocab_r = vocab_r
        self._stride = stride
        byte_ids: list[int] = []
        for byte in range(256):
            found = vocab.get(f"<0x{byte:02X}>")
            byte_ids.append(found if found is not None else -1)
        self._byte_ids = byte_ids
        self._merge_list = merges
        self._merge_ranks = {}
        self._merge_new_ids = []
        self._merges_built = False
        self._merge_table = None
        self._char_ids = None
        self._clear_cache()

    def set_vocab_and_merges(self, vocab: dict[str, int], merges: list[tuple[str, str]]) -> None:
        """Replace the vocabulary and merges (what HF's BpeTrainer does at the end of training).

        The merge table is built on first use, with the `continuing_subword_prefix` in effect
        then, so a trainer may set the prefix before or after this call.
        """
        self._set(dict(vocab), _merge_pairs(list[object](merges)))

    def _build_merges(self) -> None:
        """pair -> (rank, new id); a merge's new token is `a + b` without b's continuing prefix."""
        vocab = self._vocab
        stride = self._stride
        prefix = self._continuing_subword_prefix
        prefix_len = len(prefix.encode("utf-8")) if prefix else 0
        ranks: dict[int, int] = {}
        new_ids: list[int] = []
        for rank, (a, b) in enumerate(self._merge_list):
            a_id = vocab.get(a)
            if a_id is None:
                raise ValueError(f"Error while initializing BPE: Token `{a}` out of vocabulary")
            b_id = vocab.get(b)
            if b_id is None:
                raise ValueError(f"Error while initializing BPE: Token `{b}` out of vocabulary")
            if prefix_len == 0 or (b == self._end_of_word_suffix and self._end_of_word_symbol):
                # (the separate end-of-word symbol is never a continuing piece: `est` + `</w>`)
                merged = a + b
            elif prefix is not None and b.startswith(prefix):
                merged = a + b[len(prefix) :]
            else:
                # subtle: HF drops the prefix's byte length from b whatever b starts with.
                merged = a + b.encode("utf-8")[prefix_len:].decode("utf-8", "replace")
            new_id = vocab.get(merged)
            if new_id is None:
                raise ValueError(f"Error while initializing BPE: Token `{merged}` out of vocabulary")
            # subtle: a pair merged twice keeps its last rank, as HF's map collect does.
            ranks[a_id * stride + b_id] = rank
            new_ids.append(new_id)
        self._merge_ranks = ranks
        self._merge_new_ids = new_ids
        self._merges_built = True
        # (the table packs an id in 32 bits, and lists every id's token: the ids must be dense)
        native = len(self._vocab_r) == len(vocab) and stride < min(1 << 31, 4 * len(vocab) + 1024)
        self._merge_table = MergeTable(ranks, new_ids, stride, self._vocab_r) if native else None

    @classmethod
    def from_file(
        cls,
        vocab: str,
        merges: str,
        cache_capacity: int | None = None,
        dropout: float | None = None,
        unk_token: str | None = None,
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        fuse_unk: bool | None = None,
        byte_fallback: bool = False,
        ignore_merges: bool = False,
        end_of_word_symbol: bool = False,
    ) -> BPE:
        vocab_dict, merge_list = BPE.read_file(vocab, merges)
        return BPE(
            vocab_dict,
            merge_list,
            cache_capacity,
            dropout,
            unk_token,
            continuing_subword_prefix,
            end_of_word_suffix,
            fuse_unk,
            byte_fallback,
            ignore_merges,
            end_of_word_symbol,
        )

    @staticmethod
    def read_file(vocab: str, merges: str) -> tuple[dict[str, int], list[tuple[str, str]]]:
        """Read a vocab.json and a merges.txt (HF rules: "#version" lines skipped, "a b" per line)."""
        return read_vocab_json(vocab), read_merges_txt(merges)

    # -- options (changing one clears the word cache) ---------------------------------------

    @property
    def dropout(self) -> float | None:
        return self._dropout

    @dropout.setter
    def dropout(self, dropout: float | None) -> None:
        self._dropout = dropout
        self._clear_cache()

    @property
    def unk_token(self) -> str | None:
        return self._unk_token

    @unk_token.setter
    def unk_token(self, unk_token: str | None) -> None:
        self._unk_token = unk_token
        self._clear_cache()

    @property
    def continuing_subword_prefix(self) -> str | None:
        return self._continuing_subword_prefix

    @continuing_subword_prefix.setter
    def continuing_subword_prefix(self, prefix: str | None) -> None:
        self._continuing_subword_prefix = prefix
        self._char_ids = None
        self._clear_cache()

    @property
    def end_of_word_suffix(self) -> str | None:
        return self._end_of_word_suffix

    @end_of_word_suffix.setter
    def end_of_word_suffix(self, suffix: str | None) -> None:
        _check_end_of_word_symbol(self._end_of_word_symbol, suffix)
        self._end_of_word_suffix = suffix
        self._char_ids = None
        self._clear_cache()

    @property
    def end_of_word_symbol(self) -> bool:
        """Whether `end_of_word_suffix` is a symbol of its own after the word's last char."""
        return self._end_of_word_symbol

    @end_of_word_symbol.setter
    def end_of_word_symbol(self, separate: bool) -> None:
        _check_end_of_word_symbol(separate, self._end_of_word_suffix)
        self._end_of_word_symbol = separate
        self._char_ids = None
        self._clear_cache()

    @property
    def fuse_unk(self) -> bool:
        return self._fuse_unk

    @fuse_unk.setter
    def fuse_unk(self, fuse_unk: bool) -> None:
        self._fuse_unk = fuse_unk
        self._clear_cache()

    @property
    def byte_fallback(self) -> bool:
        return self._byte_fallback

    @byte_fallback.setter
    def byte_fallback(self, byte_fallback: bool) -> None:
        self._byte_fallback = byte_fallback
        self._clear_cache()

    @property
    def ignore_merges(self) -> bool:
        return self._ignore_merges

    @ignore_merges.setter
    def ignore_merges(self, ignore_merges: bool) -> None:
        self._ignore_merges = ignore_merges
        self._clear_cache()

    def _clear_cache(self) -> None:
        self._cache.clear()
        self._byte_runs.clear()

    def _resize_cache(self, capacity: int) -> None:
        self._cache.resize(capacity)
        self._byte_runs.resize(capacity)

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The merges in rank order (a pair given twice appears once, at its last rank)."""
        stride = self._stride
        vocab_r = self._vocab_r
        result: list[tuple[str, str]] = []
        for _, key in self._ranked_merges():
            result.append((vocab_r[key // stride], vocab_r[key % stride]))
        return result

    @property
    def merged_ids(self) -> list[int]:
        """The id of the token each of `merges` makes (the right part loses its continuing prefix)."""
        ranked = self._ranked_merges()  # builds the merges first
        new_ids = self._merge_new_ids
        result: list[int] = []
        for rank, _ in ranked:
            result.append(new_ids[rank])
        return result

    def _ranked_merges(self) -> list[tuple[int, int]]:
        """(rank, pair key) of each distinct merge, in rank order."""
        if not self._merges_built:
            self._build_merges()
        by_rank: list[tuple[int, int]] = []
        for key, rank in self._merge_ranks.items():
            by_rank.append((rank, key))
        by_rank.sort()
        return by_rank

    # -- Model ------------------------------------------------------------------------------

    def tokenize(self, sequence: str) -> list[Token]:
        """HF's `Model.tokenize`, offsets in UTF-8 bytes: a byte-fallback token covers its own
        byte here (in the pipeline's char offsets it covers its whole char)."""
        if sequence.isascii():
            return self.tokenize_run(sequence).tokens()
        if not self._merges_built:
            self._build_merges()
        dropout = self._dropout
        if self._ignore_merges and self._vocab.get(self._whole_word(sequence)) is not None:
            return super().tokenize(sequence)
        packed = self._merge_word(sequence, dropout if dropout is not None else 0.0, False)
        return self._run(packed).tokens()

    def tokenize_run(self, sequence: str) -> TokenRun:
        return self.word_run(sequence).token_run()

    def word_run(self, sequence: str) -> WordRun:
        """`tokenize_run`'s tokens as the word cache keeps them (what the encode fast path
        reads): offsets in characters of the piece. Shared: read only."""
        # subtle: the cache only ever holds deterministic results (changing the dropout clears
        # it), so a hit is the answer whatever the options are now.
        cache = self._cache
        cached = cache.runs.get(sequence)
        if cached is not None:
            return cached
        cached = cache.recall(sequence)
        if cached is not None:
            return cached
        cached = self._fresh_run(sequence)
        if self._caches_runs():
            cache.put(sequence, cached)
        return cached

    def _caches_runs(self) -> bool:
        """Whether runs are cached: not with dropout (each merge is drawn anew)."""
        dropout = self._dropout
        return dropout is None or dropout == 0.0

    def _fresh_run(self, sequence: str) -> WordRun:
        """`word_run` without the cache."""
        if not sequence:
            return WordRun((), (), vec[i64]())
        if not self._merges_built:
            self._build_merges()
        dropout = self._dropout
        if dropout is not None and dropout != 0.0:
            return packed_word_run(self._merge_word(sequence, dropout, True), self._vocab_r)
        whole = self._vocab.get(self._whole_word(sequence)) if self._ignore_merges else None
        if whole is not None:
            return WordRun((whole,), (self._vocab_r[whole],), vec[i64]([0, len(sequence)]))
        merged = self._merged_run(sequence)
        if merged is None:
            merged = packed_word_run(self._merge_word(sequence, 0.0, True), self._vocab_r)
        return merged

    def byte_runs(self) -> ByteRuns | None:
        """The cache of the runs of words by their UTF-8 bytes (`byte_runs.ByteRuns`), read by
        the encode fast path; None when runs are not cached (dropout, a capacity of 0)."""
        if not self._caches_runs() or self._byte_runs.capacity <= 0:
            return None
        return self._byte_runs

    def built_merge_table(self) -> MergeTable | None:
        """The merge table, built if it was not yet (it lists every id's token and int object),
        or None when the model's ids are too sparse for one. A new vocabulary makes a new one."""
        if not self._merges_built:
            self._build_merges()
        return self._merge_table

    def byte_entry(self, runs: ByteRuns, data: bytes, start: i64, end: i64) -> tuple[RunTable, i64]:
        """The table and value in `runs` (this model's `byte_runs()`) of the run of the
        byte-level chars of the word of UTF-8 bytes data[start:end], just missed in `runs.current`
        (the fast path looks there first), made now if it is not in `runs.old`; value -1 for
        a word too long to cache (`word_run` it)."""
        found = runs.recall(data, start, end)
        if found[1] >= 0 or end - start >= MAX_CACHED_LENGTH:
            return found
        if not self._merges_built:
            self._build_merges()
        table = self._merge_table
        if table is not None and not self._ignore_merges and end - start <= SHORT_WORD:
            # the common miss: merged from the bytes' chars, its tokens put straight in
            codes = vec[i64](capacity=end - start)
            for i in range(start, end):
                codes = append(codes, BYTE_CODES[data[i]])
            merged = self._merged_units(codes, table)
            if merged is not None:
                return runs.put_merged(data, start, end, merged, table)
        return runs.put(data, start, end, self._fresh_run(bytes_to_chars(data[start:end])))

    def _whole_word(self, sequence: str) -> str:
        """The token `ignore_merges` looks for: the word itself (HF), or with the separate
        end-of-word symbol, the word and its end (`low</w>`: `low` alone is no whole word)."""
        suffix = self._end_of_word_suffix
        if self._end_of_word_symbol and suffix is not None:
            return sequence + suffix
        return sequence

    def _run(self, packed: list[int]) -> TokenRun:
        """[id, start, end, id, start, end, ...] -> a TokenRun."""
        vocab_r = self._vocab_r
        run = TokenRun([], [], [], [])
        i = 0
        n = len(packed)
        while i < n:
            id = packed[i]
            run.ids.append(id)
            run.values.append(vocab_r[id])
            run.starts.append(packed[i + 1])
            run.ends.append(packed[i + 2])
            i += 3
        return run

    def _merged_run(self, word: str) -> WordRun | None:
        """`_merge_word` of a short word whose chars are all tokens, over native ints (without
        dropout); None for any other word. "hug" with merges (h, u), (hu, g) -> hug (0, 3)."""
        n_chars = len(word)
        table = self._merge_table
        if n_chars == 0 or n_chars > SHORT_WORD or table is None:
            return None
        codes = vec[i64](capacity=n_chars)
        for i in range(n_chars):
            codes = append(codes, ord(word[i]))
        merged = self._merged_units(codes, table)
        if merged is None:
            return None
        tokens = table.tokens
        token_ids: list[int] = []
        values: list[str] = []
        spans = vec[i64](capacity=2 * merged.n)
        for k in range(merged.n):
            id = merged.ids[k]
            token_ids.append(id)
            values.append(tokens[id])
            spans = append(spans, merged.start(k))
            spans = append(spans, merged.end(k))
        return WordRun(tuple(token_ids), tuple(values), spans)

    def _merged_units(self, codes: vec[i64], table: MergeTable) -> Merged | None:
        """The short word of chars `codes` (at most SHORT_WORD) merged by `table`; None when a
        char is not a token."""
        n_chars: i64 = len(codes)
        kinds = self._char_ids
        if kinds is None:
            kinds = self._build_char_ids()
        ids = vec[i64](capacity=n_chars + 1)
        starts = vec[i64](capacity=n_chars + 1)
        last = n_chars - 1
        for i in range(n_chars):
            # kinds: first, inside, last, alone
            kind = (2 if i > 0 else 3) if i == last else (1 if i > 0 else 0)
            found = kinds[kind].id_of(codes[i])
            if found < 0:
                return None
            ids = append(ids, found)
            starts = append(starts, i)
        suffix = self._end_of_word_suffix
        if self._end_of_word_symbol and suffix is not None:
            # the separate end-of-word symbol: one virtual unit past the end (see `_merge_word`)
            found_suffix = self._vocab.get(suffix)
            if found_suffix is not None:
                ids = append(ids, found_suffix)
                starts = append(starts, n_chars)
        units: i64 = len(ids)
        n = table.merge(ids, starts) if units > 1 else units
        return Merged(ids, starts, n, units, n_chars)

    def _build_char_ids(self) -> list[CharIds]:
        prefix = self._continuing_subword_prefix or ""
        suffix = self._end_of_word_suffix
        glued = "" if suffix is None or self._end_of_word_symbol else suffix
        vocab = self._vocab
        first = CharIds(vocab, "", "")
        inside = CharIds(vocab, prefix, "") if prefix else first
        at_end = inside if not glued else CharIds(vocab, prefix, glued)
        alone = first if not glued else (at_end if not prefix else CharIds(vocab, "", glued))
        kinds = [first, inside, at_end, alone]
        self._char_ids = kinds
        return kinds

    def _unk_id(self, unk_token: str) -> int:
        found = self._vocab.get(unk_token)
        if found is None:
            raise EngineError(f"Unk token `{unk_token}` not found in the vocabulary")
        return found

    def _merge_word(self, word: str, dropout: float, in_chars: bool) -> list[int]:
        """HF merge_word + Word.merge_all: symbols of `word`, merged; packed (id, start, end) in
        chars (`in_chars`) or in UTF-8 bytes.

        "hug" with merges (h, u), (hu, g) -> [id(hug), 0, 3]
        """
        ids: list[int] = []
        lens: list[int] = []
        in_bytes = False
        if not self._symbols(word, ids, lens, False):
            # subtle: a char split into several byte-fallback tokens: redo it in HF's byte units.
            in_bytes = True
            ids = []
            lens = []
            self._symbols(word, ids, lens, True)
        n = len(ids)
        if n > 1 and self._merge_new_ids:
            merge_all(ids, lens, self._merge_ranks, self._merge_new_ids, self._stride, dropout)
        packed: list[int] = []
        pos = 0
        # subtle: the separate end-of-word symbol is a virtual unit just past the word's end;
        # clamping to the word's length here (before any byte/char conversion) ends a token
        # holding it at the word's end. A lone one (still the last symbol, of length 1) is
        # zero-width at the word's end, even when chars before it were dropped.
        limit = -1
        lone = -1
        if self._end_of_word_symbol and n > 0:
            limit = len(word.encode("utf-8", "surrogatepass")) if in_bytes else len(word)
            if lens[n - 1] == 1 and ids[n - 1] == self._vocab.get(self._end_of_word_suffix or ""):
                lone = ids[n - 1]
                n -= 1
        for i in range(n):
            length = lens[i]
            if length == 0:
                continue
            packed.append(ids[i])
            packed.append(pos if limit < 0 or pos < limit else limit)
            pos += length
            packed.append(pos if limit < 0 or pos < limit else limit)
        if lone >= 0:
            packed.append(lone)
            packed.append(limit)
            packed.append(limit)
        if in_bytes and in_chars:
            char_offsets_from_bytes(packed, word)
        elif not in_bytes and not in_chars and not word.isascii():
            byte_at = uc.utf8_offsets(word)
            for i in range(1, len(packed), 3):
                packed[i] = byte_at[packed[i]]
                packed[i + 1] = byte_at[packed[i + 1]]
        return packed

    def _symbols(self, word: str, ids: list[int], lens: list[int], in_bytes: bool) -> bool:
        """The word's initial symbols (ids, lengths in chars, or UTF-8 bytes when `in_bytes`).

        Char units give HF's offsets when the symbols cover the word char by char. In chars,
        this returns False as soon as that fails (a char split into several byte-fallback
        tokens; in a non-ASCII word, any byte fallback or a dropped char): only HF's byte
        arithmetic defines the offsets then.
        """
        vocab = self._vocab
        prefix = self._continuing_subword_prefix
        suffix = self._end_of_word_suffix
        byte_fallback = self._byte_fallback
        unk_token = self._unk_token
        fuse_unk = self._fuse_unk
        byte_ids = self._byte_ids
        n_chars = len(word)
        last = n_chars - 1
        exact = in_bytes or word.isascii()
        separate = self._end_of_word_symbol and suffix is not None
        unk_id = -1
        unk_len = 0
        for i in range(n_chars):
            ch = word[i]
            s = ch
            if i > 0 and prefix is not None:
                s = prefix + s
            if i == last and suffix is not None and not separate:
                s = s + suffix
            size = utf8_len(ord(ch)) if in_bytes else 1
            found = vocab.get(s)
            if found is not None:
                if unk_id >= 0:
                    ids.append(unk_id)
                    lens.append(unk_len)
                    unk_id = -1
                ids.append(found)
                lens.append(size)
                continue
            if byte_fallback:
                raw = s.encode("utf-8", "surrogatepass")
                complete = True
                for byte in raw:
                    if byte_ids[byte] < 0:
                        complete = False
                        break
                if complete:
                    if not exact or (len(raw) > 1 and not in_bytes):
                        return False
                    # subtle: HF adds the byte tokens before a pending unk is flushed.
                    for byte in raw:
                        ids.append(byte_ids[byte])
                        lens.append(1)
                    continue
            if unk_token is not None:
                if unk_id >= 0 and fuse_unk:
                    unk_len += size
                else:
                    if unk_id >= 0:
                        ids.append(unk_id)
                        lens.append(unk_len)
                    unk_id = self._unk_id(unk_token)
                    unk_len = size
            elif not exact:
                return False
        if unk_id >= 0:
            ids.append(unk_id)
            lens.append(unk_len)
        if separate and suffix is not None:
            # (length 1, not 0: merge_all and the packing skip a symbol of length 0)
            found = vocab.get(suffix)
            if found is not None:
                ids.append(found)
                lens.append(1)
            # (a vocabulary without it, such as an untrained model's, leaves it out like any
            # symbol it lacks when there is no unk token: nothing fails)
        return True

    # -- serialization ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, JsonValue]:
        merges: list[JsonValue] = []
        for a, b in self.merges:
            merges.append([a, b])
        data: dict[str, JsonValue] = {
            "type": "BPE",
            "dropout": self._dropout,
            "unk_token": self._unk_token,
            "continuing_subword_prefix": self._continuing_subword_prefix,
            "end_of_word_suffix": self._end_of_word_suffix,
        }
        if self._end_of_word_symbol:
            # subtle: written only when on, so every file made without it stays HF's byte for
            # byte (HF ignores the key and would encode with the suffix glued: see exports).
            data["end_of_word_symbol"] = True
        data["fuse_unk"] = self._fuse_unk
        data["byte_fallback"] = self._byte_fallback
        data["ignore_merges"] = self._ignore_merges
        data["vocab"] = ordered_vocab(self._vocab_r)
        data["merges"] = merges
        return data

    @staticmethod
    def from_dict(data: object) -> BPE:
        """A BPE from its tokenizer.json object (merges as [a, b] pairs or legacy "a b" strings)."""
        where = "BPE"
        obj = expect_tagged(data, where)
        if "vocab" not in obj or "merges" not in obj:
            raise SchemaError(f"{where}: missing field '{'vocab' if 'vocab' not in obj else 'merges'}'")
        vocab = get_vocab(obj, "vocab", where)
        raw_merges = require(obj, "merges", where)
        if not isinstance(raw_merges, list):
            raise SchemaError(f"{where}: field 'merges' must be a list")
        merges = _merges_from_json(raw_merges)
        try:
            return BPE(
                vocab,
                merges,
                dropout=get_opt_float(obj, "dropout", where),
                unk_token=get_opt_str(obj, "unk_token", where),
                continuing_subword_prefix=get_opt_str(obj, "continuing_subword_prefix", where),
                end_of_word_suffix=get_opt_str(obj, "end_of_word_suffix", where),
                fuse_unk=get_bool(obj, "fuse_unk", where, False),
                byte_fallback=get_bool(obj, "byte_fallback", where, False),
                ignore_merges=get_bool(obj, "ignore_merges", where, False),
                end_of_word_symbol=get_bool(obj, "end_of_word_symbol", where, False),
            )
        except ValueError as error:
            raise SchemaError(f"{where}: {error}") from None

    def save(self, folder: str, prefix: str | None = None) -> list[str]:
        """Write vocab.json and merges.txt ("#version: 0.2" then "a b" per merge, in rank order),
        both or neither (`engine.formats.gpt2.write` is the export with the pipeline around it)."""
        vocab_path = os.path.join(folder, f"{prefix}-vocab.json" if prefix else "vocab.json")
        merges_path = os.path.join(folder, f"{prefix}-merges.txt" if prefix else "merges.txt")
        write_texts_atomically(
            [(vocab_path, dump_vocab_json(self._vocab_r)), (merges_path, dump_merges_txt(self.merges))]
        )
        return [vocab_path, merges_path]

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickling and deep copies go through the tokenizer.json "model" object, as HF's do
        (a compiled native class has no default way to rebuild itself)."""
        return (BPE.from_dict, (self.to_dict(),))

    def __repr__(self) -> str:
        return (
            f"BPE(vocab_size={len(self._vocab)}, merges={len(self._merge_list)}, dropout={self._dropout}, "
            f"unk_token={self._unk_token!r}, continuing_subword_prefix={self._continuing_subword_prefix!r}, "
            f"end_of_word_suffix={self._end_of_word_suffix!r}, fuse_unk={self._fuse_unk}, "
            f"byte_fallback={self._byte_fallback}, ignore_merges={self._ignore_merges}"
            + (", end_of_word_symbol=True)" if self._end_of_word_symbol else ")")
        )


# -- helpers shared with the other models -----------------------------------------------------


def _check_end_of_word_symbol(separate: bool, suffix: str | None) -> None:
    if separate and not suffix:
        raise ValueError("end_of_word_symbol needs an end_of_word_suffix (the symbol it adds, such as `</w>`)")


def _merge_pairs(items: list[object]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for item in items:
        if isinstance(item, (tuple, list)) and len(item) == 2:
            a = item[0]
            b = item[1]
            if isinstance(a, str) and isinstance(b, str):
                pairs.append((a, b))
                continue
        raise ValueError(f"a merge must be a pair of strings, got {item!r}")
    return pairs


def _merges_from_json(raw: list[object]) -> list[tuple[str, str]]:
    """[["a", "b"], ...] or the legacy ["a b", ...] (HF accepts either form)."""
    if raw and all_strings(raw):
        lines: list[str] = []
        for item in raw:
            lines.append(str(item))
        try:
            return parse_merges(lines)
        except ValueError as error:
            raise SchemaError(f"BPE: {error}") from None
    try:
        return _merge_pairs(raw)
    except ValueError as error:
        raise SchemaError(f"BPE: field 'merges': {error}") from None


def all_strings(items: list[object]) -> bool:
    for item in items:
        if not isinstance(item, str):
            return False
    return True
