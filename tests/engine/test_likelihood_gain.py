"""The likelihood gain (`engine.models.wordpiece.likelihood_gain`): the formula against the unigram
model's log-likelihood computed before and after a merge, its bound, and the incremental run
against an oracle that rescores every pair from scratch at every step, with the documented ties.
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import naive_wordpiece

from engine.models.wordpiece.likelihood_gain import LikelihoodGainRun, gain_bound, likelihood_gain
from engine.models.wordpiece.trainer import WordPieceTrainer


def log_likelihood(counts: dict[str, int]) -> float:
    """sum of count(s) * log(count(s) / N): the symbols' log-likelihood under their unigram model."""
    total = sum(counts.values())
    return sum(count * math.log(count / total) for count in counts.values() if count > 0)


def test_the_gain_is_the_rise_in_log_likelihood() -> None:
    # {"hug": 10, "pug": 5, "hugs": 5}: h 15, p 5, ##u 20, ##g 20, ##s 5 (N = 65); merging
    # (##u, ##g), seen 20 times, leaves no ##u and no ##g, 20 ##ug and N = 45.
    before = {"h": 15, "p": 5, "##u": 20, "##g": 20, "##s": 5}
    after = {"h": 15, "p": 5, "##ug": 20, "##s": 5}
    assert likelihood_gain(20, 20, 20, 65, False) == pytest.approx(log_likelihood(after) - log_likelihood(before), abs=1e-9)
    assert likelihood_gain(20, 20, 20, 65, False) == pytest.approx(40.1207, abs=1e-4)
    # (h, ##u) at 15 and (##g, ##s) at 5 gain less, where the course's ratio ties all three at 0.05
    assert likelihood_gain(15, 15, 20, 65, False) == pytest.approx(23.8666, abs=1e-4)
    assert likelihood_gain(5, 20, 5, 65, False) == pytest.approx(6.3806, abs=1e-4)


@given(
    st.integers(1, 50),
    st.integers(0, 60),
    st.integers(0, 60),
    st.integers(0, 5000),
    st.booleans(),
)
def test_the_gain_equals_the_log_likelihood_after_minus_before(count: int, left_more: int, right_more: int, others: int, same: bool) -> None:
    left = count + left_more
    right = count + right_more
    if same:
        left = 2 * count + left_more  # (a + a: two a's per merge)
        before = {"a": left, "rest": others}
        after = {"a": left - 2 * count, "aa": count, "rest": others}
        total = left + others
    else:
        before = {"a": left, "b": right, "rest": others}
        after = {"a": left - count, "b": right - count, "ab": count, "rest": others}
        total = left + right + others
    expected = log_likelihood(after) - log_likelihood(before)
    assert likelihood_gain(count, left, right if not same else left, total, same) == pytest.approx(expected, rel=1e-9, abs=1e-7)


@given(st.integers(1, 200), st.integers(0, 300), st.integers(0, 300), st.integers(0, 10_000), st.integers(0, 40))
def test_no_pair_gains_more_than_its_bound(count: int, left_more: int, right_more: int, others: int, counted_more: int) -> None:
    # The bound of a pair counted `count + counted_more` times before (a count only falls) by
    # its left symbol's count holds whatever the right symbol is (one the pair alone uses included).
    left, right = count + left_more, count + right_more
    total = left + right + others
    bound = gain_bound(count + counted_more, left, total)
    assert likelihood_gain(count, left, right, total, False) <= bound + 1e-9
    assert likelihood_gain(count, left, count, total, False) <= bound + 1e-9
    assert likelihood_gain(count, 2 * count + left_more, 2 * count + left_more, total + count, True) <= (
        gain_bound(count + counted_more, 2 * count + left_more, total + count) + 1e-9
    )


def naive_gain(words: dict[str, int], vocab_size: int, specials: list[str], min_frequency: int = 0) -> list[str]:
    """The likelihood gain, rescored from scratch at every step (`support.naive_wordpiece`)."""
    return naive_wordpiece(words, vocab_size, specials, likelihood_gain, min_frequency)


@pytest.mark.parametrize("seed", range(16))
def test_incremental_gains_equal_rescoring_everything(seed: int) -> None:
    # Zipf-like counts, so that frequent symbols have many rare pairs (which wait unscored
    # behind their bound) and words repeat letters (a + a pairs).
    rng = random.Random(seed)
    letters = "abcdefghijklmnop"[: rng.randint(3, 16)]
    words = {
        "".join(rng.choice(letters) for _ in range(rng.randint(1, 12))): int(rng.paretovariate(1.0) * 3)
        for _ in range(rng.randint(20, 200))
    }
    min_frequency = (0, 0, 2, 5)[seed % 4]
    vocab_size = rng.randint(40, 300)
    run = WordPieceTrainer(vocab_size=vocab_size, special_tokens=["[UNK]"], min_frequency=min_frequency, scoring="likelihood_gain").start(words)
    assert isinstance(run, LikelihoodGainRun)
    made = []
    while True:
        shown = run.top_candidates(3)
        step = run.step()
        if step is None:
            assert not shown or run.done
            break
        # what the step view shows first is what the step merges, at the score it shows
        assert (shown[0].left, shown[0].right, shown[0].count, shown[0].score) == (step.left, step.right, step.count, step.score)
        made.append(step.new_token)
    assert made == naive_gain(words, vocab_size, ["[UNK]"], min_frequency)


def test_a_tie_goes_to_the_smaller_ids() -> None:
    # "ab" and "ba", each once: (a, ##b) and (b, ##a) both gain f(N) - f(N - 1) with every
    # symbol seen once (N = 4), at the same count; a comes before b, so (a, ##b) goes first.
    run = WordPieceTrainer(vocab_size=20, scoring="likelihood_gain").start({"ab": 1, "ba": 1})
    shown = run.top_candidates(2)
    assert [(c.left, c.right) for c in shown] == [("a", "##b"), ("b", "##a")]
    assert shown[0].score == shown[1].score == pytest.approx(4 * math.log(4) - 3 * math.log(3), abs=1e-12)
    step = run.step()
    assert step is not None and step.new_token == "ab"
