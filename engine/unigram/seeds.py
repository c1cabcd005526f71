"""The seed vocabulary of Unigram training: every character, then the substrings that occur at
least twice and end where their occurrences go different ways (the internal nodes of a suffix
tree, as sentencepiece's `MakeSeedSentencePieces` finds them), ranked by frequency x length.

Frequencies count word occurrences (a word seen 5 times counts 5), like sentencepiece's over
its sentences; no EM here (`engine.unigram.training_run`).
"""

from __future__ import annotations

import math
from typing import Final

# Marks the end of a word in the sorted suffixes (the lowest code point sorts first).
_END: Final = "\0"


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
    {"a": 2, "b": 3}."""
    result: dict[str, int] = {}
    for k in range(len(words)):
        count = counts[k]
        for char in words[k]:
            result[char] = result.get(char, 0) + count
    return result


def required_chars(words: list[str], counts: list[int], initial_alphabet: list[str]) -> list[str]:
    """The characters every final vocabulary holds: the words' (count descending, then code
    point), then the initial alphabet's others (code-point order): ["ab", "b"], [2, 1], ["c"]
    -> ["b", "a", "c"]."""
    counted = char_counts(words, counts)
    ranked = [(-count, char) for char, count in counted.items()]
    ranked.sort()
    result = [char for _, char in ranked]
    extra = sorted([char for char in initial_alphabet if char not in counted])
    result.extend(extra)
    return result


def frequent_substrings(words: list[str], counts: list[int], max_length: int) -> dict[str, int]:
    """Substrings of 2 to `max_length` characters that occur at least twice (weighted) and are
    followed by more than one thing (different characters, or a word end), with their counts.

    ["▁abc", "▁abd"], [1, 1], 16 -> {"▁ab": 2}; ["▁ab"], [3], 16 -> {"▁ab": 3} (a word end
    counts as "followed by many": the next word varies, as in sentencepiece's sentences).

    The suffixes of every word, cut to `max_length + 1` characters (+ an end mark when they
    reach the word's end), are sorted in one C-level sort; the repeated prefixes of neighbours
    (their LCPs) then give the suffix tree's internal nodes with a stack, as esaxx does.
    """
    keys: list[str] = []
    weights: list[int] = []
    cut = max_length + 1
    for k in range(len(words)):
        word = words[k]
        count = counts[k]
        size = len(word)
        for start in range(size):
            if start + cut <= size:
                keys.append(word[start : start + cut])
            else:
                keys.append(word[start:] + _END)
            weights.append(count)
    order = sorted(range(len(keys)), key=keys.__getitem__)
    n = len(order)
    sorted_keys: list[str] = []
    prefix_weight: list[int] = [0]
    running = 0
    for i in order:
        sorted_keys.append(keys[i])
        running += weights[i]
        prefix_weight.append(running)
    del keys
    found: dict[str, int] = {}
    word_final: set[str] = set()  # found only as a repeated word end, so far
    # subtle: the stack holds (left boundary, depth) of open LCP intervals; depth 0 is the root.
    stack_left: list[int] = [0]
    stack_depth: list[int] = [0]
    previous = ""
    for i in range(1, n + 1):
        if i < n:
            current = sorted_keys[i]
            previous = sorted_keys[i - 1]
            limit = len(current) if len(current) < len(previous) else len(previous)
            lcp = 0
            while lcp < limit and current[lcp] == previous[lcp]:
                lcp += 1
        else:
            lcp = 0
        left = i - 1
        while stack_depth[-1] > lcp:
            depth = stack_depth.pop()
            left = stack_left.pop()
            # the interval [left, i) of suffixes shares `depth` characters and no more
            substring = sorted_keys[left][:depth]
            weight = prefix_weight[i] - prefix_weight[left]
            if substring[-1] == _END:
                # the same word end, repeated: a word-final substring, unless a branching node
                # (reported later: it is shallower) says the same with all its occurrences
                substring = substring[:-1]
                if 2 <= len(substring) <= max_length and substring not in found:
                    found[substring] = weight
                    word_final.add(substring)
            elif 2 <= len(substring) <= max_length and (substring not in found or substring in word_final):
                found[substring] = weight
                word_final.discard(substring)
        if stack_depth[-1] < lcp:
            stack_left.append(left)
            stack_depth.append(lcp)
    # A word-final substring seen in one suffix only, from a word counted twice or more.
    for i in range(n):
        key = sorted_keys[i]
        if key[-1] == _END and 3 <= len(key) <= max_length + 1:
            weight = prefix_weight[i + 1] - prefix_weight[i]
            substring = key[:-1]
            if weight >= 2 and substring not in found:
                found[substring] = weight
    return found


def make_seed_pieces(words: list[str], counts: list[int], max_length: int, seed_size: int) -> SeedPieces:
    """Every character, then the best-scoring frequent substrings (count x length), `seed_size`
    pieces at most (characters always all), scored log(value / total of values).

    subtle: a substring ending in "\\0" is never seeded (the character is the end mark here).
    """
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
        for substring, weight in frequent_substrings(words, counts, max_length).items():
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
