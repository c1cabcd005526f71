"""BPE training input: the initial vocabulary (special tokens, alphabet, decorated characters) and
each word as a str of symbol ids, as HF's `add_special_tokens`/`compute_alphabet`/`tokenize_words`.

`{"ab": 3}` -> vocab a=0 b=1, words flat [2, 3, 0, 1] (length, count, symbol ids). No pairs or
merges here.
"""

from __future__ import annotations

from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.progress import STAGE_TOKENIZE_WORDS, ProgressSink, report, report_every

# HF: an initial-alphabet char counts as usize::MAX, so a limit drops it last.
ALWAYS_KEPT: Final = (1 << 64) - 1
# Words reach symbol ids through `str.translate` (one char per id), so ids must be code points.
MAX_IDS: Final = 0x110000


class Vocabulary:
    """token <-> id, ids in order of creation."""

    id_to_token: list[str]
    token_to_id: dict[str, int]

    def __init__(self) -> None:
        self.id_to_token = []
        self.token_to_id = {}

    def add(self, token: str) -> int:
        """The id of `token`, added at the end if new."""
        found = self.token_to_id.get(token)
        if found is not None:
            return found
        new_id = len(self.id_to_token)
        self.id_to_token.append(token)
        self.token_to_id[token] = new_id
        return new_id

    def __len__(self) -> int:
        return len(self.id_to_token)


class TrainingWords:
    """The distinct words during training, in one flat vec. A word is known by its offset `o`:
    `flat[o]` is its length n, `flat[o + 1]` its count, `flat[o + 2 : o + 2 + n]` its symbol ids.
    A merge shortens a word in place (the slots past its length are left unused).

    subtle: one vec, so the merge loop visiting a word reads one place in memory (length, count
    and symbols are neighbours), where a word object and its symbols str were two cache misses.
    """

    flat: vec[i64]
    offsets: vec[i64]  # every word's offset, in the order of the word counts
    sizes: vec[i64]  # chars covered by the symbol at the same index of `flat`; only with max_token_length

    def __init__(self, flat: vec[i64], offsets: vec[i64], sizes: vec[i64]) -> None:
        self.flat = flat
        self.offsets = offsets
        self.sizes = sizes

    def __len__(self) -> int:
        return len(self.offsets)

    def count(self, o: i64) -> i64:
        return self.flat[o + 1]

    def symbols(self, o: i64) -> list[int]:
        """The symbol ids of the word at offset `o`, as they are now."""
        flat = self.flat
        return [int(flat[i]) for i in range(o + 2, o + 2 + flat[o])]


def initial_vocabulary(
    word_counts: dict[str, int],
    special_tokens: list[str],
    limit_alphabet: int | None,
    initial_alphabet: list[str],
) -> Vocabulary:
    """Special tokens first, then the alphabet: every char seen plus the initial alphabet, at most
    `limit_alphabet` of them (the most frequent), in code-point order."""
    vocab = Vocabulary()
    for token in special_tokens:
        vocab.add(token)
    chars: list[str]
    if limit_alphabet is None:
        seen: set[str] = set()
        for word in word_counts:
            seen.update(word)
        seen.update(initial_alphabet)
        chars = sorted(seen)
    else:
        frequency: dict[str, int] = {}
        for word, count in word_counts.items():
            for ch in word:
                frequency[ch] = frequency.get(ch, 0) + count
        for ch in initial_alphabet:
            frequency[ch] = ALWAYS_KEPT
        kept = [(count, ch) for ch, count in frequency.items()]
        to_remove = len(kept) - limit_alphabet
        if to_remove > 0:
            # subtle: HF sorts by count alone with an unstable sort over hash-map order, so which
            # of equally rare chars go is arbitrary there; the lowest code points go here.
            kept.sort()
            kept = kept[to_remove:]
        chars = sorted([ch for _, ch in kept])
    for ch in chars:
        vocab.add(ch)
    return vocab


def add_decorated_symbols(word_counts: dict[str, int], vocab: Vocabulary, prefix: str, suffix: str) -> None:
    """Give ids to the prefixed/suffixed characters the words need, in code-point order.

    subtle: HF creates them while iterating a hash map, so their ids (and so count-tie merges)
    vary from run to run there (HF issue #1794); sorting makes ours reproducible.
    """
    token_to_id = vocab.token_to_id
    needed: set[str] = set()
    for word in word_counts:
        last = len(word) - 1
        for i in range(len(word)):
            ch = word[i]
            if ch not in token_to_id:
                continue
            symbol = prefix + ch if i > 0 else ch
            if i == last:
                symbol = symbol + suffix
            if symbol not in token_to_id:
                needed.add(symbol)
    for symbol in sorted(needed):
        vocab.add(symbol)


def training_words(
    word_counts: dict[str, int],
    vocab: Vocabulary,
    prefix: str | None,
    suffix: str | None,
    limited: bool,
    keep_sizes: bool,
    sink: ProgressSink,
    end_of_word_symbol: bool = False,
) -> TrainingWords:
    """HF `tokenize_words`: each word as symbol ids (chars outside the alphabet are dropped, a
    non-first char gets the prefix, the last char the suffix). Words of fewer than 2 symbols
    have no pair and are left out. `limited`: the alphabet may lack some chars. Reports the
    "Tokenize words" stage.

    `end_of_word_symbol`: the suffix is not glued to the last char but follows it as a symbol
    of its own, which must already be in `vocab` (`{"ab": 3}` with "</w>" -> a b </w>); a word
    of one char then has 2 symbols (`a </w>`) and a pair."""
    total = len(word_counts)
    report(sink, STAGE_TOKENIZE_WORDS, 0, total, "words")
    separate_id = -1
    if end_of_word_symbol:
        if not suffix:
            raise ValueError("end_of_word_symbol needs an end_of_word_suffix")
        separate_id = vocab.token_to_id[suffix]
        suffix = None
    plain = prefix is None and suffix is None and not limited
    if prefix is not None or suffix is not None:
        add_decorated_symbols(word_counts, vocab, prefix or "", suffix or "")
    if len(vocab) > MAX_IDS:
        raise ValueError(f"more than {MAX_IDS:,} initial tokens are not supported")
    # ord(char) -> id, for str.translate: every alphabet char is a one-char token.
    table: dict[int, int] = {}
    for token, id in vocab.token_to_id.items():
        if len(token) == 1:
            table[ord(token)] = id
    # ord(char) -> id of prefix + char: the chars after the first, when every char is in the
    # alphabet (then `add_decorated_symbols` made every decorated symbol a word needs)
    after_first: dict[int, int] = {}
    token_to_id = vocab.token_to_id
    if prefix and not limited:
        for code in table:
            decorated = token_to_id.get(prefix + chr(code))
            if decorated is not None:
                after_first[code] = decorated
    else:
        after_first = table
    glued = suffix or ""
    flat = vec[i64]()
    offsets = vec[i64]()
    every = report_every(total)
    done = 0
    for word, count in word_counts.items():
        done += 1
        if done % every == 0:
            report(sink, STAGE_TOKENIZE_WORDS, done, total, "words")
        if len(word) < 2 and separate_id < 0:
            continue
        if plain:
            symbols = word.translate(table)
        elif not limited:
            # (`_decorated` by C loops: the first char, the middle ones, the last one)
            if not glued:
                symbols = word[:1].translate(table) + word[1:].translate(after_first)
            elif len(word) == 1:
                symbols = chr(token_to_id[word + glued])
            else:
                last = (prefix or "") + word[len(word) - 1] + glued
                symbols = word[:1].translate(table) + word[1 : len(word) - 1].translate(after_first) + chr(token_to_id[last])
        else:
            symbols = _decorated(word, token_to_id, prefix or "", glued)
        if separate_id >= 0:
            # subtle: a word whose chars all fell outside the alphabet is a lone `</w>`: no pair
            symbols = symbols + chr(separate_id) if symbols else ""
        if len(symbols) < 2:
            continue
        offsets = append(offsets, len(flat))
        flat = append(flat, len(symbols))
        flat = append(flat, count)
        for symbol in symbols:
            flat = append(flat, ord(symbol))
    report(sink, STAGE_TOKENIZE_WORDS, total, total, "words")
    # (every symbol starts as one char; the header slots' sizes are never read)
    sizes = vec[i64]([1] * len(flat)) if keep_sizes else vec[i64]()
    if keep_sizes and separate_id >= 0:
        # the separate end-of-word symbol adds no char to a token, as a glued suffix adds none
        for o in offsets:
            sizes[o + 1 + flat[o]] = 0
    return TrainingWords(flat, offsets, sizes)


def _decorated(word: str, token_to_id: dict[str, int], prefix: str, suffix: str) -> str:
    """One word through HF `tokenize_words` with a prefix/suffix or a limited alphabet."""
    last = len(word) - 1
    symbols: list[str] = []
    for i in range(len(word)):
        ch = word[i]
        if ch not in token_to_id:
            continue
        symbol = prefix + ch if i > 0 else ch
        if i == last:
            symbol = symbol + suffix
        symbols.append(chr(token_to_id[symbol]))
    return "".join(symbols)
