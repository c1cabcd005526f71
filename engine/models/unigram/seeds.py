"""The seed vocabulary of Unigram training: every character, then the substrings that occur at
least twice and end where their occurrences go different ways (the internal nodes of a suffix
tree, as sentencepiece's `MakeSeedSentencePieces` finds them), ranked by frequency x length.

Frequencies count word occurrences (a word seen 5 times counts 5), like sentencepiece's over
its sentences; no EM here (`engine.models.unigram.training_run`).
"""

from __future__ import annotations

import math
from typing import Final

from librt.vecs import append, pop, vec
from mypy_extensions import i64

from engine.models.unigram.suffix_sort import radix_sort, shared_length, sort_suffixes, suffix_length
from engine.trainers.piece_rules import PieceRules

# Ends each word in the text the suffixes are read from (as code 0; a char c is code c + 1).
_END: Final = "\0"
# `char_counts` counts the code points below this in a table, the others in a dict.
_BMP: Final = 0x10000


class SeedPieces:
    """The seed vocabulary: `pieces[:n_chars]` are the single characters (count descending, then
    code point), then the substrings (score descending, then code-point order); `scores` are
    log-probabilities of count x length (a character's length is 1)."""

    pieces: list[str]
    scores: list[float]
    n_chars: int

    def __init__(self, pieces: list[str], scores: list[float], n_chars: int) -> None:
        self.pieces = pieces
        self.scores = scores
        self.n_chars = n_chars


def char_counts(words: list[str], counts: list[int]) -> dict[str, int]:
    """How often each character occurs, words weighted by their counts: ["ab", "b"], [2, 1] ->
    {"a": 2, "b": 3} (in code-point order; a word counted 0 times adds no character).

    Counted on native ints by code point (`ord(word[i])` makes no string); the characters past
    the Basic Multilingual Plane, rare, in a dict. (Counter made a string per char past
    Latin-1 and hashed it: 7-10 % of the sentencepiece preset on a Japanese novel.)
    """
    table = vec[i64]()
    rare: dict[int, int] = {}
    for k in range(len(words)):
        word = words[k]
        count: i64 = counts[k]
        for i in range(len(word)):
            code: i64 = ord(word[i])
            if code >= len(table):
                if code >= _BMP:
                    rare[code] = rare.get(code, 0) + count
                    continue
                table = _grown(table, code)
            table[code] += count
    result: dict[str, int] = {}
    for code in range(len(table)):
        if table[code] != 0:
            result[chr(code)] = int(table[code])
    for code in sorted(rare):
        result[chr(code)] = rare[code]
    return result


def _grown(table: vec[i64], code: i64) -> vec[i64]:
    """`table` long enough to count `code` (below _BMP): 256 entries, or the whole BMP."""
    size: i64 = 256 if code < 256 else _BMP
    grown = vec[i64]([0] * size)
    for i in range(len(table)):
        grown[i] = table[i]
    return grown


def required_chars(words: list[str], counts: list[int], initial_alphabet: list[str]) -> list[str]:
    """The characters every final vocabulary holds: the words' (count descending, then code
    point), then the initial alphabet's others (code-point order): ["ab", "b"], [2, 1], ["c"]
    -> ["b", "a", "c"]."""
    return chars_by_count(char_counts(words, counts), initial_alphabet)


def chars_by_count(counted: dict[str, int], initial_alphabet: list[str]) -> list[str]:
    """`required_chars` from the words' `char_counts`."""
    ranked = [(-count, char) for char, count in counted.items()]
    ranked.sort()
    result = [char for _, char in ranked]
    extra = sorted([char for char in initial_alphabet if char not in counted])
    result.extend(extra)
    return result


def frequent_substrings(words: list[str], counts: list[int], max_length: int, ends_branch: bool = True) -> dict[str, int]:
    """Substrings of 2 to `max_length` characters that occur at least twice (weighted) and are
    followed by more than one thing (different characters, or a word end), with their counts.

    ["▁abc", "▁abd"], [1, 1], 16 -> {"▁ab": 2}; ["▁ab"], [3], 16 -> {"▁ab": 3} (a word end
    counts as "followed by many": the next word varies, as in sentencepiece's sentences).

    The suffixes of every word, cut to `max_length + 1` characters (+ an end mark when they
    reach the word's end), are sorted on native ints (`suffix_sort`); equal ones are one entry,
    their weights summed (they stay together in any interval). The repeated prefixes of
    neighbours (their LCPs) then give the suffix tree's internal nodes with a stack, as esaxx does.
    """
    texts, weights = ordered_substrings(words, counts, max_length, ends_branch)
    found: dict[str, int] = {}
    for k in range(len(texts)):
        found[texts[k]] = weights[k]
    return found


def ordered_substrings(
    words: list[str], counts: list[int], max_length: int, ends_branch: bool = True
) -> tuple[list[str], list[int]]:
    """`frequent_substrings` as two lists, the substrings in code-point order and their counts:
    ["▁abc", "▁abd"], [1, 1], 16 -> (["ab", "▁ab"], [2, 2]).

    subtle: code-point order is the order of the substrings' (first entry, length) in the sorted
    suffixes: a substring comes before the ones it is a prefix of (same first entry, shorter),
    and before those of later entries (their suffixes sort after its own). A word-final one
    (`ends_branch`) is its entry's whole suffix, which sorts first among those it prefixes.
    """
    cut: i64 = max_length + 1
    # the words' code points + 1, each word followed by 0 (`_END`, lowest), and the weight of
    # each suffix start (vecs made whole and written in place: an append is a call)
    size: i64 = len(words)
    for word in words:
        size += len(word)
    codes = vec[i64]([0] * size)
    weights = vec[i64]([0] * size)
    starts = vec[i64]([0] * (size - len(words)))
    at: i64 = 0
    n_starts: i64 = 0
    for k in range(len(words)):
        word = words[k]
        count: i64 = counts[k]
        for i in range(len(word)):
            starts[n_starts] = at
            n_starts += 1
            codes[at] = ord(word[i]) + 1  # (no string made for the char)
            weights[at] = count
            at += 1
        at += 1  # (the end mark: code 0, weight 0)
    text = _END.join(words) + _END  # (the same positions as `codes`)
    sort_suffixes(codes, starts, cut)
    # One entry per distinct suffix: where it starts, the weights up to it (prefix sums), and
    # how many characters it shares with the entry before (written in place, n at most).
    entries = vec[i64]([0] * len(starts))
    prefix_weight = vec[i64]([0] * (len(starts) + 1))
    lcps = vec[i64]([0] * len(starts))
    running: i64 = 0
    n: i64 = 0
    for i in range(len(starts)):
        start = starts[i]
        running += weights[start]
        shared: i64 = shared_length(codes, entries[n - 1], start, cut) if n > 0 else 0
        if shared < 0:
            prefix_weight[n] = running  # (the same suffix as the entry before)
            continue
        entries[n] = start
        lcps[n] = shared
        n += 1
        prefix_weight[n] = running
    # Each substring found as (its first entry) * cut + its length, and its count.
    found_at = vec[i64]()
    found_weight = vec[i64]()
    # subtle: the stack holds (left boundary, depth) of open LCP intervals; depth 0 is the root.
    # An interval holds two entries or more, which differ before their end marks: its shared
    # prefix never holds one.
    stack_left = vec[i64]([0])
    stack_depth = vec[i64]([0])
    for i in range(1, n + 1):
        lcp: i64 = lcps[i] if i < n else 0
        left: i64 = i - 1
        while stack_depth[len(stack_depth) - 1] > lcp:
            stack_depth, depth = pop(stack_depth)
            stack_left, left = pop(stack_left)
            # the interval [left, i) of suffixes shares `depth` characters and no more
            if 2 <= depth <= max_length:
                found_at = append(found_at, left * cut + depth)
                found_weight = append(found_weight, prefix_weight[i] - prefix_weight[left])
        if stack_depth[len(stack_depth) - 1] < lcp:
            stack_left = append(stack_left, left)
            stack_depth = append(stack_depth, lcp)
    # A word-final substring no branching node reports: its one entry, from word ends that add
    # up to two or more (each is followed by whatever word comes next). Not for whole sentences
    # (`ends_branch` False): their ends are followed by one same mark, as in sentencepiece.
    # subtle: a node of the same text would be the interval of entry i and the next ones that
    # share all of it (entry i, ended, sorts first among them): there is one when the next
    # entry shares size - 1 characters with it.
    for i in range(n if ends_branch else 0):
        start = entries[i]
        size = suffix_length(codes, start, cut)
        if codes[start + size - 1] == 0 and 3 <= size:
            weight = prefix_weight[i + 1] - prefix_weight[i]
            if weight >= 2 and not (i + 1 < n and lcps[i + 1] == size - 1):
                found_at = append(found_at, i * cut + size - 1)
                found_weight = append(found_weight, weight)
    order = vec[i64]([0] * len(found_at))
    for k in range(len(order)):
        order[k] = k
    radix_sort(order, found_at, int(n * cut).bit_length())
    found_texts: list[str] = []
    found_counts: list[int] = []
    for k in range(len(order)):
        at = found_at[k]  # (sorted along with `order`)
        start = entries[at // cut]
        found_texts.append(text[start : start + at % cut])
        found_counts.append(int(found_weight[order[k]]))
    return found_texts, found_counts


def _by_value(values: list[int]) -> list[int]:
    """The positions of `values` by value, largest first, equal values in their order (a
    stable sort): [3, 1, 3] -> [0, 2, 1]. (An LSD radix sort on native ints: no key calls.)"""
    top = 0
    for value in values:
        if value > top:
            top = value
    if top >= 1 << 62:  # (counts past what an i64 holds: the same order, by Python's sort)
        negated = [-value for value in values]
        return sorted(range(len(values)), key=negated.__getitem__)
    order = vec[i64]([0] * len(values))
    keys = vec[i64]([0] * len(values))
    for k in range(len(values)):
        order[k] = k
        keys[k] = top - values[k]
    radix_sort(order, keys, int(top).bit_length())
    result: list[int] = []
    for k in range(len(order)):
        result.append(int(order[k]))
    return result


def make_seed_pieces(
    words: list[str],
    counts: list[int],
    max_length: int,
    seed_size: int,
    counted: dict[str, int] | None = None,
    rules: PieceRules | None = None,
    sentences: dict[str, int] | None = None,
) -> SeedPieces:
    """Every character, then the best-scoring frequent substrings (count x length), `seed_size`
    pieces at most (characters always all), scored log(value / total of values). `counted`:
    the words' `char_counts`, when the caller has them; `rules`: only substrings they allow
    (sentencepiece's trainer; HF's allows every one); `sentences`: the substrings are those of
    these whole sentences instead of the words (sentencepiece's seeds).

    subtle: a substring ending in "\\0" is never seeded (the character is the end mark here).
    """
    if counted is None:
        counted = char_counts(words, counts)
    ranked_chars = [(-count, char) for char, count in counted.items()]
    ranked_chars.sort()
    pieces: list[str] = []
    values: list[float] = []
    for neg_count, char in ranked_chars:
        pieces.append(char)
        values.append(float(-neg_count))
    n_chars = len(pieces)
    if max_length >= 2:
        if sentences is None:
            texts, weights = ordered_substrings(words, counts, max_length)
        else:
            texts, weights = ordered_substrings(list(sentences), list(sentences.values()), max_length, False)
        substrings: list[str] = []
        scores_of: list[int] = []
        for k in range(len(texts)):
            substring = texts[k]
            if rules is not None and not rules.valid(substring):
                continue
            substrings.append(substring)
            scores_of.append(weights[k] * len(substring))
        # subtle: the substrings are in code-point order, so a stable sort by score alone puts
        # equal scores in code-point order
        for at in _by_value(scores_of):
            if len(pieces) >= seed_size:
                break
            pieces.append(substrings[at])
            values.append(float(scores_of[at]))
    total = 0.0
    for value in values:
        total += value
    log_total = math.log(total) if total > 0.0 else 0.0
    scores: list[float] = []
    for value in values:
        scores.append(math.log(value) - log_total)
    return SeedPieces(pieces, scores, n_chars)
