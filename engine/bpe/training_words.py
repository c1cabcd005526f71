"""BPE training input: the initial vocabulary (special tokens, alphabet, decorated characters) and
each word as a str of symbol ids, as HF's `add_special_tokens`/`compute_alphabet`/`tokenize_words`.

`{"ab": 3}` -> vocab a=0 b=1, words [TrainingWord("\\x00\\x01", 3)]. No pairs or merges here.
"""

from __future__ import annotations

from typing import Final

from engine.progress import STAGE_TOKENIZE_WORDS, ProgressSink, report, report_every

# HF: an initial-alphabet char counts as usize::MAX, so a limit drops it last.
ALWAYS_KEPT: Final = (1 << 64) - 1
# A word is a str whose characters are symbol ids, so ids must be code points.
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


class TrainingWord:
    """One distinct word during training: its symbols (a str of symbol ids) and its count.

    subtle: the merge queue lists these objects, not word indexes: following a position is then
    one pointer to a small object made with all the others, where an index would cost a list
    slot and a separate int object, each somewhere else in memory.
    """

    symbols: str
    count: int
    sizes: list[int]  # chars covered by each symbol; only kept with max_token_length

    def __init__(self, symbols: str, count: int, sizes: list[int]) -> None:
        self.symbols = symbols
        self.count = count
        self.sizes = sizes


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
) -> list[TrainingWord]:
    """HF `tokenize_words`: each word as symbol ids (chars outside the alphabet are dropped, a
    non-first char gets the prefix, the last char the suffix). Words of fewer than 2 symbols
    have no pair and are left out. `limited`: the alphabet may lack some chars. Reports the
    "Tokenize words" stage."""
    total = len(word_counts)
    report(sink, STAGE_TOKENIZE_WORDS, 0, total, "words")
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
    words: list[TrainingWord] = []
    no_sizes: list[int] = []
    every = report_every(total)
    done = 0
    for word, count in word_counts.items():
        done += 1
        if done % every == 0:
            report(sink, STAGE_TOKENIZE_WORDS, done, total, "words")
        if len(word) < 2:
            continue
        if plain:
            symbols = word.translate(table)
        else:
            symbols = _decorated(word, vocab.token_to_id, prefix or "", suffix or "")
        if len(symbols) < 2:
            continue
        words.append(TrainingWord(symbols, count, [1] * len(symbols) if keep_sizes else no_sizes))
    report(sink, STAGE_TOKENIZE_WORDS, total, total, "words")
    return words


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
