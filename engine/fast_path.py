"""The encode fast path: a text straight to token lists, without the pipeline's objects.

HF's pipeline builds a NormalizedString per piece, a Split per piece and a Token per token. For
most texts none of that is needed: when no added token occurs in the text, the normalizer maps it
char for char or gives where each char it made comes from (`Normalizer.normalize_for_offsets`),
and the pre-tokenizer only cuts it (`PreTokenizer.cut`, maybe followed by byte-level chars), a
token's offsets are its piece's start plus its offsets in the piece (through those alignments, if
any), and each piece's tokens come from the model's word cache (`Model.tokenize_run`; BPE's
`word_run`, the form its cache keeps, read without a copy). Anything
else gives None, and the full pipeline runs; both give the same encodings (the tests compare them
on random texts). `ids_only` is the bulk path that skips tokens and offsets. A line for GPT-2's
byte-level BPE is cut and looked up on its UTF-8 bytes (`byte_level_encoding`), its Encoding made
there, its ids, tokens and word ids when read.
"""

from __future__ import annotations

from typing import Final, cast

from librt.vecs import append, vec
from mypy_extensions import i64

from engine import unicode_chars as uc
from engine.added_vocabulary import AddedVocabulary
from engine.byte_splits import (
    CL100K_PATTERN,
    EMPTY,
    GOLDEN,
    LOW_31,
    QWEN2_PATTERN,
    SAME_CASE,
    SHORT,
    bounds_room,
    cl100k_bounds,
    gpt2_bounds,
    gpt2_utf8_bounds,
)
from engine.byte_level import bytes_to_chars
from engine.encoding import Encoding, Unmade
from engine.models.base import Model, TokenRun
from engine.models.bpe.byte_runs import ID_BITS, ID_MASK, INLINE, MID, SPLIT_MASK, SPLIT_SHIFT, TWO, ByteRuns
from engine.models.bpe.model import BPE
from engine.normalizers import Normalizer
from engine.pattern import ISOLATED, Regex
from engine.pre_tokenizers import ByteLevel, Cut, PreTokenizer, Sequence, Split, words_of


class TokenLists:
    """What an `Encoding` of one sequence is built from: parallel lists, one entry per token
    (two in `spans`: the start and end of each token, as `Encoding` keeps them)."""

    ids: list[int]
    tokens: list[str]
    spans: vec[i64]
    words: list[int | None]

    def __init__(self) -> None:
        self.ids = []
        self.tokens = []
        self.spans = vec[i64]()
        self.words = []


# How `_byte_fill_held` splits a text (`byte_split`): none; GPT-2's ByteLevel regex; else the
# most number chars a piece of cl100k's pattern holds (`byte_splits.cl100k_bounds`).
NO_SPLIT: Final[i64] = -1
GPT2_SPLIT: Final[i64] = 0
CL100K_SPLIT: Final[i64] = 3
QWEN2_SPLIT: Final[i64] = 1


def byte_split(pre_tokenizer: PreTokenizer | None) -> i64:
    """How the byte path splits a text for `pre_tokenizer`: GPT2_SPLIT for ByteLevel with its
    regex; CL100K_SPLIT or QWEN2_SPLIT for a Split isolating the matches of cl100k's pattern or
    Qwen2's (GPT-4's, Llama 3's, Qwen2's pre-tokenizers), then a ByteLevel without its regex
    or prefix space; else NO_SPLIT."""
    if isinstance(pre_tokenizer, ByteLevel):
        return GPT2_SPLIT if pre_tokenizer.use_regex else NO_SPLIT
    if not isinstance(pre_tokenizer, Sequence) or len(pre_tokenizer.pre_tokenizers) != 2:
        return NO_SPLIT
    split = pre_tokenizer.pre_tokenizers[0]
    after = pre_tokenizer.pre_tokenizers[1]
    if not isinstance(split, Split) or not isinstance(after, ByteLevel) or after.use_regex or after.add_prefix_space:
        return NO_SPLIT
    pattern = split.pattern
    if split.invert or split.behavior != ISOLATED or not isinstance(pattern, Regex):
        return NO_SPLIT
    if pattern.pattern == CL100K_PATTERN:
        return CL100K_SPLIT
    return QWEN2_SPLIT if pattern.pattern == QWEN2_PATTERN else NO_SPLIT


def byte_level_split(
    text: str, added: AddedVocabulary, normalizer: Normalizer | None, pre_tokenizer: PreTokenizer | None, model: Model
) -> i64:
    """The `byte_split` `byte_level_encoding` and `byte_level_ids` split `text` by (the model is
    then a BPE), or NO_SPLIT when they do not apply: an added token in the text, a normalizer,
    a split `byte_split` does not know, GPT-2's with a space to insert, another model."""
    if normalizer is not None or not isinstance(model, BPE):
        return NO_SPLIT
    split = byte_split(pre_tokenizer)
    if split == NO_SPLIT:
        return NO_SPLIT
    if isinstance(pre_tokenizer, ByteLevel) and pre_tokenizer.add_prefix_space and text and text[0] != " ":
        return NO_SPLIT
    if added.may_match(text, False) or added.may_match(text, True):
        return NO_SPLIT
    return split


def byte_level_encoding(text: str, bpe: BPE, word: int, type_id: int, split: i64 = GPT2_SPLIT) -> Encoding | None:
    """The Encoding of a `text` that `byte_level_split` gave `split` for, found on its UTF-8 bytes:
    GPT-2's split (or cl100k's) scanned on them, each word's run looked up by its bytes (`BPE.byte_entry`),
    no str made per word. Its ids, tokens and word ids are kept in vecs, the lists made when
    first read (`engine.encoding.Unmade`, the ids' objects and tokens from the model's merge
    table). `word` as `token_lists`', `type_id` as `Encoding`'s, `split` the pre-tokenizer's
    `byte_split`. None when the model does not
    cache runs (dropout), has no merge table (its ids too sparse), or another thread is using
    that cache: then the str path encodes the text."""
    table = bpe.built_merge_table()
    if table is None:
        return None
    if bpe.end_of_word_symbol and bpe.end_of_word_suffix is not None and not text.isascii():
        # (the separate end-of-word symbol's zero-width token: HF places it past a word's
        # chars by its byte count, which only the str path follows)
        return None
    runs = _acquired(bpe)
    if runs is None:
        return None
    try:
        found = _byte_fill_held(text, bpe, word, None, runs, split)
    finally:
        runs.lock.release()
    if found is None:
        return None
    return Encoding(spans=found.spans, type_id=type_id, unmade=Unmade(found.ids, found.words, table.objects, table.tokens))


def byte_level_ids(text: str, bpe: BPE, split: i64 = GPT2_SPLIT) -> list[int] | None:
    """`byte_level_encoding`'s ids alone (the bulk path)."""
    runs = _acquired(bpe)
    if runs is None:
        return None
    ids: list[object] = []
    try:
        _byte_fill_held(text, bpe, -1, ids, runs, split)
    finally:
        runs.lock.release()
    # (list[int] as list[object]: the fill appends the cache's shared int objects, unboxed by
    # no one; `cast` checks only that it is a list)
    return cast(list[int], ids)


def _acquired(bpe: BPE) -> ByteRuns | None:
    """`bpe`'s cache of words by their bytes, its lock taken; None when the model does not cache runs
    or another thread holds that cache.

    subtle: the cache is changed in many steps, and compiled code is not atomic: a collection
    run by an allocation may call finalizers, and then another thread (async_encode's executor)
    may run in between (a test with four threads broke the tables before the lock). A thread
    that finds the lock taken does not wait: it takes the str path."""
    runs = bpe.byte_runs()
    if runs is None or not runs.lock.acquire(False):
        return None
    return runs


class TokenVecs:
    """A token each in `ids` and `words` (its word's index), two in `spans` (start, end)."""

    ids: vec[i64]
    words: vec[i64]
    spans: vec[i64]

    def __init__(self, ids: vec[i64], words: vec[i64], spans: vec[i64]) -> None:
        self.ids = ids
        self.words = words
        self.spans = spans


def _byte_fill_held(text: str, bpe: BPE, word: int, ids: list[object] | None, runs: ByteRuns, split: i64) -> TokenVecs | None:
    """The tokens of `text`, split as `split` says (`byte_split`): appended to `ids` (ints,
    each as the cache gives it) when it is given, else returned; `word` >= 0 is every token's
    word index, else the word's own. `runs.lock` is held.

    perf: written out for both, since the loop is most of an encode; a branch a token on
    `ids_only` is predicted and costs nothing measurable."""
    ids_only = ids is not None
    out_ids: list[object] = ids if ids is not None else []
    data = text.encode("utf-8")
    n_bytes: i64 = len(data)
    ascii = n_bytes == len(text)
    bounds = bounds_room(runs.bounds, n_bytes)
    runs.bounds = bounds
    if split != GPT2_SPLIT:
        n = cl100k_bounds(data, 0, n_bytes, split, bounds)
    elif ascii:
        n = gpt2_bounds(data, 0, n_bytes, False, SAME_CASE, bounds)
    else:
        n = gpt2_utf8_bounds(data, 0, n_bytes, False, bounds)
    # (room for two tokens a word, a word being two bounds: most lines take no second
    # allocation, where growing from empty took four or five a vec)
    room: i64 = 0 if ids_only else n
    id_vec = vec[i64](capacity=room)
    words = vec[i64](capacity=room)
    spans = vec[i64](capacity=2 * room)
    objects = runs.objects
    k: i64 = 0
    t: i64 = 0
    while k < n:
        start = bounds[k]
        end = bounds[k + 1]
        word_index: i64 = word if word >= 0 else k // 2
        k += 2
        # The common case, a short word of the current generation: `RunTable.find` written
        # out (word_key, slot_of and slot_for's probe), without the calls around it.
        table = runs.current
        value: i64 = -1
        if end - start <= SHORT:
            key: i64 = (end - start) << 56
            shift: i64 = 0
            i = start
            while i < end:
                byte: i64 = data[i]
                key |= byte << shift
                shift += 8
                i += 1
            cells = table.cells
            mask = table.mask
            folded = key ^ (key >> 23) ^ (key >> 41)
            s = (((folded & LOW_31) * GOLDEN) >> 16) & mask
            while True:
                found = cells[2 * s]
                if found == key:
                    value = cells[2 * s + 1]
                    break
                if found == EMPTY:
                    break
                s = (s + 1) & mask
        elif end - start <= MID:
            # a mid word: `RunTable.find`'s two keys and probe written out too
            key1: i64 = 0
            shift = 0
            i = start
            while i < start + 7:
                byte = data[i]
                key1 |= byte << shift
                shift += 8
                i += 1
            key2: i64 = (end - start) << 56
            shift = 0
            while i < end:
                byte = data[i]
                key2 |= byte << shift
                shift += 8
                i += 1
            mids = table.mids
            mid_mask = table.mid_mask
            mixed = key1 ^ key2 ^ (key1 >> 29)
            folded = mixed ^ (mixed >> 23) ^ (mixed >> 41)
            s = (((folded & LOW_31) * GOLDEN) >> 16) & mid_mask
            while True:
                found = mids[3 * s]
                if found == key2 and mids[3 * s + 1] == key1:
                    value = mids[3 * s + 2]
                    break
                if found == 0:
                    break
                s = (s + 1) & mid_mask
        else:
            value = table.find(data, start, end)
        if value < 0:
            table, value = bpe.byte_entry(runs, data, start, end)
            # (a new vocabulary's first word switches the cache's objects)
            objects = runs.objects
        if value >= INLINE:
            id0 = value & ID_MASK
            two = (value & TWO) != 0
            id1 = (value >> ID_BITS) & ID_MASK
            if ids_only:
                out_ids.append(objects[id0])
                if two:
                    out_ids.append(objects[id1])
                continue
            id_vec = append(id_vec, id0)
            words = append(words, word_index)
            spans = append(spans, start)
            if two:
                split = start + ((value >> SPLIT_SHIFT) & SPLIT_MASK)
                id_vec = append(id_vec, id1)
                words = append(words, word_index)
                spans = append(spans, split)
                spans = append(spans, split)
            spans = append(spans, end)
            continue
        if value < 0:
            # a word too long to cache
            found_run = bpe.word_run(bytes_to_chars(data[start:end]))
            found_ids = found_run.ids
            found_spans = found_run.spans
            for t in range(len(found_ids)):
                if ids_only:
                    out_ids.append(found_ids[t])
                    continue
                id_vec = append(id_vec, found_ids[t])
                words = append(words, word_index)
                spans = append(spans, start + found_spans[2 * t])
                spans = append(spans, start + found_spans[2 * t + 1])
            continue
        t = table.firsts[value]
        last = table.firsts[value + 1]
        run_ids = table.ids
        if ids_only:
            while t < last:
                out_ids.append(run_ids[t])
                t += 1
            continue
        run_spans = table.spans
        while t < last:
            id_vec = append(id_vec, run_ids[t])
            words = append(words, word_index)
            spans = append(spans, start + run_spans[2 * t])
            spans = append(spans, start + run_spans[2 * t + 1])
            t += 1
    if ids_only:
        return None
    return TokenVecs(id_vec, words, spans if ascii else _char_spans(spans, data))


def _char_spans(spans: vec[i64], data: bytes) -> vec[i64]:
    """`spans` counted in the bytes of the UTF-8 `data` as counted in its chars: a token spans
    the chars its bytes are in (a token inside a char spans the whole char, as in HF)."""
    char_at = vec[i64](capacity=len(data) + 1)
    chars: i64 = -1
    for byte in data:
        if byte & 0xC0 != 0x80:
            chars += 1
        char_at = append(char_at, chars)
    char_at = append(char_at, chars + 1)
    out = vec[i64](capacity=len(spans))
    for k in range(0, len(spans), 2):
        start = spans[k]
        end = spans[k + 1]
        first = char_at[start]
        out = append(out, first)
        out = append(out, char_at[end - 1] + 1 if end > start else first)
    return out


def cut(
    text: str, added: AddedVocabulary, normalizer: Normalizer | None, pre_tokenizer: PreTokenizer | None
) -> Cut | None:
    """`text`'s pieces when the fast path applies to it, else None."""
    if added.may_match(text, False):
        return None
    normalized = text
    align_start: list[int] | None = None
    align_end: list[int] | None = None
    if normalizer is not None:
        made = normalizer.normalize_for_offsets(text)
        if isinstance(made, str):
            normalized = made
        else:
            normalized = made.normalized
            align_start = made.align_start
            align_end = made.align_end
    if added.may_match(normalized, True):
        return None
    found = Cut.covering([normalized] if normalized else []) if pre_tokenizer is None else pre_tokenizer.cut(normalized)
    if found is not None:
        found.text = normalized
        found.align_start = align_start
        found.align_end = align_end
    return found


def token_lists(pieces: Cut, model: Model, word: int) -> TokenLists | None:
    """The tokens of every piece; `word` >= 0 is every token's word index, else the piece's.
    None when the text was normalized with alignments and a token has no chars to align, or a
    token starts past its piece's bytes (the full pipeline then places it)."""
    out = TokenLists()
    ids = out.ids
    tokens = out.tokens
    words = out.words
    piece_words = pieces.words
    piece_starts = pieces.starts
    piece_ends = pieces.ends
    bpe = model if isinstance(model, BPE) else None
    for index in range(len(piece_words)):
        piece = piece_words[index]
        start = piece_starts[index]
        # subtle: typed `int | None`, the word index is boxed once here, and every token of the
        # piece shares that object (an `int` is boxed again at each append: one allocation a
        # token on a long line, past CPython's small ints)
        word_index: int | None = word if word >= 0 else index
        if bpe is not None and not (index == 0 and pieces.prefixed) and len(piece) == piece_ends[index] - start:
            # BPE's cached form, read as it is (the common piece: no char inserted or widened)
            found = bpe.word_run(piece)
            found_ids = found.ids
            found_values = found.values
            found_spans = found.spans
            spans = out.spans
            # (appends, not extend: most words are one or two tokens)
            for k in range(len(found_ids)):
                ids.append(found_ids[k])
                tokens.append(found_values[k])
                spans = append(spans, start + found_spans[2 * k])
                spans = append(spans, start + found_spans[2 * k + 1])
                words.append(word_index)
            out.spans = spans
            continue
        run = model.tokenize_run(piece)
        if index == 0 and pieces.prefixed:
            _append_prefixed(out, run, start, word_index)
            continue
        if len(piece) != piece_ends[index] - start:
            if not _append_wide(out, run, pieces.text[start : piece_ends[index]], start, word_index):
                return None
            continue
        ids.extend(run.ids)
        tokens.extend(run.values)
        starts = run.starts
        ends = run.ends
        spans = out.spans
        for k in range(len(starts)):
            spans = append(spans, start + starts[k])
            spans = append(spans, start + ends[k])
            words.append(word_index)
        out.spans = spans
    if pieces.align_start is not None and pieces.align_end is not None:
        return _realigned(out, pieces.align_start, pieces.align_end)
    return out


def _realigned(out: TokenLists, align_start: list[int], align_end: list[int]) -> TokenLists | None:
    """`out` with its offsets, counted in the normalized text, turned into the input's through
    the normalizer's alignments: a token over normalized chars s..e spans from where char s
    comes from to where char e - 1 ends (HF's convert_offsets), None for an empty token."""
    spans = out.spans
    mapped = vec[i64]()
    for k in range(0, len(spans), 2):
        start = spans[k]
        end = spans[k + 1]
        if end <= start:
            return None
        mapped = append(mapped, align_start[start])
        mapped = append(mapped, align_end[end - 1])
    out.spans = mapped
    return out


def _append_prefixed(out: TokenLists, run: TokenRun, start: int, word_index: int | None) -> None:
    """Tokens of a piece whose first char was inserted (and aligned with the next one)."""
    out.ids.extend(run.ids)
    out.tokens.extend(run.values)
    spans = out.spans
    for k in range(len(run.starts)):
        first = run.starts[k] - 1 if run.starts[k] > 0 else 0
        last = run.ends[k] - 1 if run.ends[k] > 1 else 1
        spans = append(spans, start + first)
        spans = append(spans, start + last)
        out.words.append(word_index)
    out.spans = spans


def _append_wide(out: TokenLists, run: TokenRun, source: str, start: int, word_index: int | None) -> bool:
    """Tokens of the byte-level chars of a non-ASCII piece: their offsets count bytes, so map
    them back to the chars they came from (a token inside a char spans the whole char, as in HF).
    False, and nothing appended, when a token starts past the piece's bytes (the separate
    end-of-word symbol): the full pipeline places it as HF does a span it cannot convert."""
    char_of_byte = uc.char_of_byte(source)
    for k in range(len(run.starts)):
        if run.starts[k] >= len(char_of_byte):
            return False
    out.ids.extend(run.ids)
    out.tokens.extend(run.values)
    spans = out.spans
    for k in range(len(run.starts)):
        first = char_of_byte[run.starts[k]]
        last = char_of_byte[run.ends[k] - 1] + 1 if run.ends[k] > run.starts[k] else first
        spans = append(spans, start + first)
        spans = append(spans, start + last)
        out.words.append(word_index)
    out.spans = spans
    return True


def ids_only(
    text: str, added: AddedVocabulary, normalizer: Normalizer | None, pre_tokenizer: PreTokenizer | None, model: Model
) -> list[int] | None:
    """The ids of `text` when no added token occurs in it (else None): the bulk path. Without
    offsets any normalizer will do, and the pre-tokenizers' `split_words` (the word counting
    path of training) gives the pieces as the model sees them."""
    split = byte_level_split(text, added, normalizer, pre_tokenizer, model)
    if split != NO_SPLIT:
        found = byte_level_ids(text, cast(BPE, model), split)
        if found is not None:
            return found
    if added.may_match(text, False):
        return None
    normalized = normalizer.normalize_str(text) if normalizer is not None else text
    if added.may_match(normalized, True):
        return None
    ids: list[int] = []
    if isinstance(model, BPE):
        for word in words_of(pre_tokenizer, normalized):
            run_ids = model.word_run(word).ids
            for k in range(len(run_ids)):
                ids.append(run_ids[k])
        return ids
    for word in words_of(pre_tokenizer, normalized):
        found = model.tokenize_run(word).ids
        if len(found) == 1:
            ids.append(found[0])
        else:
            ids.extend(found)
    return ids
