"""WordPieceTrainer: the course's ratio ("likelihood") on the HF course's worked example, an
oracle that rescores every pair from scratch at every step, the three scorings side by side,
HF's frequency mode, and files written before the likelihood gain existed.

The course corpus, its first-round scores and its merges are from the HF NLP course's WordPiece
chapter ("WordPiece tokenization", section 6 of chapter 6, and its notebook): its first merges
are ("a", "##b") and ("##f", "##u"), each at score 0.2. The likelihood gain's own machinery is
tests/engine/test_likelihood_gain.py's.
"""

from __future__ import annotations

import json
import math
import random

import pytest

from support import naive_wordpiece

from engine import Tokenizer, models, pre_tokenizers, trainers
from engine.errors import SchemaError
from engine.schema import JsonValue
from engine.trainers.records import SCORE_COUNT, SCORE_LIKELIHOOD, SCORE_LIKELIHOOD_GAIN
from engine.models.bpe.training_run import BpeTrainingRun
from engine.models.wordpiece.likelihood_gain import LikelihoodGainRun
from engine.models.wordpiece.trainer import WordPieceTrainer
from engine.models.wordpiece.training_run import WordPieceTrainingRun

COURSE = [
    "This is the Hugging Face Course.",
    "This chapter is about tokenization.",
    "This section shows several tokenizer algorithms.",
    "Hopefully, you will be able to understand how they are trained and generate tokens.",
]
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def course_words() -> dict[str, int]:
    counts: dict[str, int] = {}
    pre = pre_tokenizers.BertPreTokenizer()
    for line in COURSE:
        for word, _ in pre.pre_tokenize_str(line):
            counts[word] = counts.get(word, 0) + 1
    return counts


def test_the_course_corpus_first_round_of_scores() -> None:
    # The course splits each word into its first character and ##-prefixed others, and scores
    # every adjacent pair freq(pair) / (freq(first) * freq(second)); its notebook prints these.
    words = course_words()
    assert (len(words), sum(words.values())) == (30, 36)
    pairs: set[tuple[str, str]] = set()
    for word in words:
        split = [word[0]] + ["##" + ch for ch in word[1:]]
        pairs.update(zip(split, split[1:]))
    assert len(pairs) == 92
    run = WordPieceTrainer(vocab_size=1000, special_tokens=SPECIALS, scoring="likelihood").start(words)
    scores = {(c.left, c.right): c.rank_value for c in run.top_candidates(1000)}
    assert set(scores) == pairs
    printed = {
        ("T", "##h"): 0.125,
        ("##h", "##i"): 0.03409090909090909,
        ("##i", "##s"): 0.02727272727272727,
        ("i", "##s"): 0.1,
        ("t", "##h"): 0.03571428571428571,
        ("##h", "##e"): 0.011904761904761904,
    }
    assert {pair: scores[pair] for pair in printed} == printed
    assert max(scores.values()) == scores[("a", "##b")] == 0.2
    step = run.step()
    assert step is not None and (step.left, step.right, step.new_token, step.score) == ("a", "##b", "ab", 0.2)


def test_the_course_example_merge_by_merge() -> None:
    run = WordPieceTrainer(vocab_size=70, special_tokens=SPECIALS).start(course_words())
    # ("a", "##b"): "about" and "able" hold it, so count(ab) = 2; "a" starts 5 words ("about",
    # "algorithms", "able", "are", "and"); "##b" occurs twice: 2 / (5 * 2) = 0.2. ("##f", "##u")
    # ties at 1 / (1 * 5) = 0.2 and goes second: the tie goes to the more frequent pair.
    first = run.top_candidates(2)
    assert [(c.left, c.right, c.count, c.left_count, c.right_count) for c in first] == [
        ("a", "##b", 2, 5, 2),
        ("##f", "##u", 1, 1, 5),
    ]
    assert [c.score for c in first] == [0.2, 0.2]
    made = []
    for _ in range(11):
        step = run.step()
        assert step is not None
        assert step.left_count is not None and step.right_count is not None
        assert step.score == step.count / (step.left_count * step.right_count)
        made.append(step.new_token)
    # The course's own sequence (its ties go by first appearance; none of these is such a tie).
    assert made == ["ab", "##fu", "Fa", "Fac", "##ct", "##ful", "##full", "##fully", "Th", "ch", "##hm"]
    history = run.history
    assert history.algorithm == "WordPiece"
    assert history.score_name == SCORE_LIKELIHOOD


def test_symbol_counts_follow_the_merges() -> None:
    run = WordPieceTrainer(vocab_size=100).start({"hug": 10, "pug": 5, "hugs": 5, "u": 2})
    assert isinstance(run, WordPieceTrainingRun)  # (start() is typed as either scoring's run)
    assert run.symbol_count("##u") == 20
    assert run.symbol_count("u") == 2  # (a one-letter word counts too)
    step = run.step()
    assert step is not None
    # (##u, ##g) 20 / (20 * 20), (h, ##u) 15 / (15 * 20) and (##g, ##s) 5 / (20 * 5) all score
    # 0.05: the most frequent pair goes first.
    assert (step.left, step.right, step.count, step.score) == ("##u", "##g", 20, 0.05)
    assert run.symbol_count("##u") == 0
    assert run.symbol_count("##g") == 0
    assert run.symbol_count("##ug") == 20
    # Now (h, ##ug) scores 15 / (15 * 20) and (##ug, ##s) 5 / (20 * 5): both rescored, both 0.05.
    assert [(c.left, c.right, c.score) for c in run.top_candidates(2)] == [("h", "##ug", 0.05), ("p", "##ug", 5 / (5 * 20))]


def naive_likelihood(words: dict[str, int], vocab_size: int, specials: list[str], min_frequency: int = 0) -> list[str]:
    """The course's ratio, rescored from scratch at every step (`support.naive_wordpiece`)."""
    return naive_wordpiece(words, vocab_size, specials, lambda count, a, b, total, same: count / (a * b), min_frequency)


@pytest.mark.parametrize("seed", range(12))
def test_incremental_scores_equal_rescoring_everything(seed: int) -> None:
    rng = random.Random(seed)
    letters = "abcde" if seed % 2 else "abcdefghij"
    words = {
        "".join(rng.choice(letters) for _ in range(rng.randint(1, 7))): rng.randint(1, 30) for _ in range(40)
    }
    min_frequency = 3 if seed % 3 == 0 else 0
    run = WordPieceTrainer(vocab_size=120, special_tokens=["[UNK]"], min_frequency=min_frequency).start(words)
    made = []
    while (step := run.step()) is not None:
        made.append(step.new_token)
    assert made == naive_likelihood(words, 120, ["[UNK]"], min_frequency)


@pytest.mark.parametrize("seed", range(16))
def test_rescoring_forgets_dead_pairs_and_lists_remade_ones(seed: int) -> None:
    # Zipf-like counts over few letters: symbols used up (count 0) and made again by another
    # merge ("a" + "##bc" after "ab" + "##c"), pairs dropped at a rescore and made again later,
    # and a + a pairs; each step is what the step view showed first.
    rng = random.Random(1000 + seed)
    letters = "abcdefgh"[: rng.randint(2, 8)]
    words = {
        "".join(rng.choice(letters) for _ in range(rng.randint(1, 10))): int(rng.paretovariate(1.0) * 3)
        for _ in range(rng.randint(20, 150))
    }
    min_frequency = (0, 0, 2, 4)[seed % 4]
    vocab_size = rng.randint(30, 250)
    run = WordPieceTrainer(vocab_size=vocab_size, special_tokens=["[UNK]"], min_frequency=min_frequency).start(words)
    made = []
    while True:
        shown = run.top_candidates(1)
        step = run.step()
        if step is None:
            break
        assert (shown[0].left, shown[0].right, shown[0].count, shown[0].score) == (step.left, step.right, step.count, step.score)
        made.append(step.new_token)
    assert made == naive_likelihood(words, vocab_size, ["[UNK]"], min_frequency)


def test_a_trained_tokenizer_encodes_with_its_vocabulary() -> None:
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.train_from_iterator(COURSE * 3, WordPieceTrainer(vocab_size=80, special_tokens=SPECIALS, show_progress=False))
    model = tokenizer.model
    assert isinstance(model, models.WordPiece)
    assert model.continuing_subword_prefix == "##"
    assert tokenizer.get_vocab_size() == 80
    assert tokenizer.encode("Hugging").tokens == ["Hugg", "##i", "##n", "##g"]
    assert tokenizer.encode("quiz").tokens == ["[UNK]"]  # "q" is outside the alphabet


def test_frequency_scoring_is_bpe_with_the_prefix() -> None:
    words = course_words()
    wordpiece = WordPieceTrainer(vocab_size=70, special_tokens=SPECIALS, scoring="frequency").start(words)
    bpe = trainers.BpeTrainer(vocab_size=70, special_tokens=SPECIALS, continuing_subword_prefix="##").start(words)
    wordpiece.run_to_end()
    bpe.run_to_end()
    assert wordpiece.vocab == bpe.vocab
    assert wordpiece.history.score_name == "count"


# The course's BPE corpus, split WordPiece's way: h ##u ##g (10), p ##u ##g (5), p ##u ##n (12),
# b ##u ##n (4), h ##u ##g ##s (5). Symbols: h 15, p 17, b 4, ##u 36, ##g 20, ##n 16, ##s 5;
# N = 113 in all.
HUG = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


def f(x: int) -> float:
    return x * math.log(x) if x > 0 else 0.0


def test_each_scoring_merges_its_own_first_pair() -> None:
    firsts: dict[str, list[tuple[str, str, int, float | None]]] = {}
    merges: dict[str, list[str]] = {}
    for scoring in ("likelihood", "likelihood_gain", "frequency"):
        run = WordPieceTrainer(vocab_size=30, scoring=scoring).start(HUG)
        firsts[scoring] = [(c.left, c.right, c.count, c.score) for c in run.top_candidates(2)]
        made = []
        while (step := run.step()) is not None:
            made.append(step.new_token)
        merges[scoring] = made
    # The course's ratio: (##g, ##s) 5 / (20 * 5) = 1/20 beats (##u, ##g) 20 / (36 * 20) = 1/36,
    # as the course says. Then every pair holds ##u and scores 1/36: the tie goes to the most
    # frequent, (p, ##u) 17 (the course takes the first it meets, (h, ##u)).
    assert firsts["likelihood"] == [("##g", "##s", 5, 5 / (20 * 5)), ("##u", "##g", 20, 20 / (36 * 20))]
    assert merges["likelihood"][:2] == ["##gs", "pu"]
    # The gain: (##u, ##g) leaves 16 ##u and no ##g, and N falls to 93:
    # f(20) - (f(36) - f(16)) - (f(20) - f(0)) + f(113) - f(93) = 28.02; (p, ##u) leaves no p,
    # 19 ##u and N = 96: f(17) - f(17) - (f(36) - f(19)) + f(113) - f(96) = 22.96.
    gains = firsts["likelihood_gain"]
    assert [gain[:3] for gain in gains] == [("##u", "##g", 20), ("p", "##u", 17)]
    assert [gain[3] for gain in gains] == [
        pytest.approx(f(20) - (f(36) - f(16)) - f(20) + f(113) - f(93), abs=1e-9),
        pytest.approx(-(f(36) - f(19)) + f(113) - f(96), abs=1e-9),
    ]
    assert merges["likelihood_gain"][:3] == ["##ug", "##un", "hug"]
    # HF's: the most frequent pair, (##u, ##g) 20, then (##u, ##n) 16 once ##u's pairs are split.
    assert firsts["frequency"] == [("##u", "##g", 20, None), ("p", "##u", 17, None)]
    assert merges["frequency"][:3] == ["##ug", "##un", "hug"]


@pytest.mark.parametrize(
    ("scoring", "run_class", "score_name"),
    [
        ("likelihood", WordPieceTrainingRun, SCORE_LIKELIHOOD),
        ("likelihood_gain", LikelihoodGainRun, SCORE_LIKELIHOOD_GAIN),
        ("frequency", BpeTrainingRun, SCORE_COUNT),
    ],
)
def test_each_scoring_survives_the_trainer_json(scoring: str, run_class: type, score_name: str) -> None:
    trainer = WordPieceTrainer(vocab_size=40, special_tokens=["[UNK]"], scoring=scoring)
    written = trainer.to_dict()
    assert written["scoring"] == scoring
    again = trainers.from_dict(json.loads(json.dumps(written)))
    assert isinstance(again, WordPieceTrainer) and again.scoring == scoring
    assert again.to_dict() == written
    run = again.start(HUG)
    assert type(run) is run_class
    run.run_to_end()
    assert run.history.score_name == score_name


def test_a_file_written_before_the_gain_still_trains_the_course_ratio() -> None:
    # A WordPieceTrainer as projects and trainer files have held it since "scoring" existed:
    # "likelihood" is the course's ratio, and it still trains the course's merges.
    special = [
        {"content": token, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
        for token in SPECIALS
    ]
    written: dict[str, JsonValue] = {
        "type": "WordPieceTrainer", "vocab_size": 70, "min_frequency": 0, "show_progress": True,
        "special_tokens": list[JsonValue](special), "limit_alphabet": None, "initial_alphabet": [],
        "continuing_subword_prefix": "##", "end_of_word_suffix": None, "scoring": "likelihood",
    }  # fmt: skip
    trainer = trainers.from_dict(written)
    assert isinstance(trainer, WordPieceTrainer)
    assert trainer.to_dict() == written  # (saved again, the file says the same)
    run = trainer.start(course_words())
    assert type(run) is WordPieceTrainingRun
    made = []
    for _ in range(11):
        step = run.step()
        assert step is not None and step.left_count and step.right_count
        assert step.score == step.count / (step.left_count * step.right_count)
        made.append(step.new_token)
    assert made == ["ab", "##fu", "Fa", "Fac", "##ct", "##ful", "##full", "##fully", "Th", "ch", "##hm"]
    assert run.history.score_name == SCORE_LIKELIHOOD
    # (a trainer written without "scoring" is the same: the default has not moved)
    assert WordPieceTrainer.from_dict({"type": "WordPieceTrainer"}).scoring == "likelihood"


def test_settings_round_trip_and_bad_options() -> None:
    trainer = WordPieceTrainer(vocab_size=500, min_frequency=2, special_tokens=["[UNK]"], limit_alphabet=50, scoring="frequency")
    again = trainers.from_dict(trainer.to_dict())
    assert isinstance(again, WordPieceTrainer)
    assert again.to_dict() == trainer.to_dict()
    with pytest.raises(ValueError, match="scoring must be 'likelihood' .*'likelihood_gain' or 'frequency'"):
        WordPieceTrainer(scoring="entropy")
    with pytest.raises(SchemaError, match="unknown scoring 'ratio', expected 'likelihood'"):
        WordPieceTrainer.from_dict({"type": "WordPieceTrainer", "scoring": "ratio"})
    assert isinstance(trainers.default_trainer(models.WordPiece()), WordPieceTrainer)
    assert isinstance(WordPieceTrainer().start({"ab": 1}), WordPieceTrainingRun)
