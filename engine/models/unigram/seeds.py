"""The seed vocabulary of Unigram training: every character, then the substrings that occur at
least twice and end where their occurrences go different ways (the internal nodes of a suffix
tree, as sentencepiece's `MakeSeedSentencePieces` finds them), ranked by frequency x length.

Frequencies count word occurrences (a word seen 5 times counts 5), like sentencepiece's over
its sentences; no EM here (`engine.models.unigram.training_run`).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Final

from engine.trainers.piece_rules import PieceRules

# Marks the end of a word in the sorted suffixes (the lowest code point sorts first).
_END: Final = "\0"
_END_CODE: Final = 0  # ord(_END)


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
    {"a": 2, "b": 3}. (Counted by Counter's C loop, once per distinct word count.)"""
    by_count: dict[int, list[str]] = {}
    for k in range(len(words)):
        group = by_count.get(counts[k])
        if group is None:
            by_count[counts[k]] = [words[k]]
        else:
            group.append(words[k])
    result: dict[str, int] = {}
    for count, group in by_count.items():
        for char, seen in Counter("".join(group)).items():
            result[char] = result.get(char, 0) + seen * count
    return result


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
    reach the word's end), are counted (equal ones are one entry, their weights summed: they
    stay together in any interval) and sorted in one C-level sort; the repeated prefixes of
    neighbours (their LCPs) then give the suffix tree's internal nodes with a stack, as esaxx does.
    """
    weights: dict[str, int] = {}
    cut = max_length + 1
    for k in range(len(words)):
        word = words[k]
        count = counts[k]
        size = len(word)
        for start in range(size):
            key = word[start : start + cut] if start + cut <= size else word[start:] + _END
            weights[key] = weights.get(key, 0) + count
    sorted_keys = sorted(weights)
    n = len(sorted_keys)
    prefix_weight: list[int] = [0]
    running = 0
    for key in sorted_keys:
        running += weights[key]
        prefix_weight.append(running)
    del weights
    found: dict[str, int] = {}
    # subtle: the stack holds (left boundary, depth) of open LCP intervals; depth 0 is the root.
    # An interval holds two keys or more, which differ before their end marks: its shared
    # prefix never holds one.
    stack_left: list[int] = [0]
    stack_depth: list[int] = [0]
    for i in range(1, n + 1):
        lcp = 0
        if i < n:
            current = sorted_keys[i]
            previous = sorted_keys[i - 1]
            limit = len(current) if len(current) < len(previous) else len(previous)
            while lcp < limit and ord(current[lcp]) == ord(previous[lcp]):  # ord: no 1-char strs
                lcp += 1
        left = i - 1
        while stack_depth[-1] > lcp:
            depth = stack_depth.pop()
            left = stack_left.pop()
            # the interval [left, i) of suffixes shares `depth` characters and no more
            if 2 <= depth <= max_length:
                found[sorted_keys[left][:depth]] = prefix_weight[i] - prefix_weight[left]
        if stack_depth[-1] < lcp:
            stack_left.append(left)
            stack_depth.append(lcp)
    # A word-final substring no branching node reports: its one key, from word ends that add up
    # to two or more (each is followed by whatever word comes next). Not for whole sentences
    # (`ends_branch` False): their ends are followed by one same mark, as in sentencepiece.
    for i in range(n if ends_branch else 0):
        key = sorted_keys[i]
        if ord(key[-1]) == _END_CODE and 3 <= len(key) <= max_length + 1:
            weight = prefix_weight[i + 1] - prefix_weight[i]
            substring = key[:-1]
            if weight >= 2 and substring not in found:
                found[substring] = weight
    return found


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
        ranked: list[tuple[int, str]] = []
        if sentences is None:
            found = frequent_substrings(words, counts, max_length)
        else:
            found = frequent_substrings(list(sentences), list(sentences.values()), max_length, False)
        for substring, weight in found.items():
            if rules is not None and not rules.valid(substring):
                continue
            ranked.append((-weight * len(substring), substring))
        ranked.sort()
        for neg_score, substring in ranked:
            if len(pieces) >= seed_size:
                break
            pieces.append(substring)
            values.append(float(-neg_score))
    total = 0.0
    for value in values:
        total += value
    log_total = math.log(total) if total > 0.0 else 0.0
    scores: list[float] = []
    for value in values:
        scores.append(math.log(value) - log_total)
    return SeedPieces(pieces, scores, n_chars)
