"""WordPieceTrainer: the likelihood algorithm on the HF course's worked example, an oracle that
rescores every pair from scratch at every step, and HF's frequency mode.

The course corpus and its merges are from the HF NLP course's WordPiece chapter ("WordPiece
tokenization"): its first merges are ("a", "##b") and ("##f", "##u"), each at score 0.2.
"""

from __future__ import annotations

import random

import pytest

from engine import Tokenizer, models, pre_tokenizers, trainers
from engine.errors import SchemaError
from engine.trainers.records import SCORE_LIKELIHOOD
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
    """Rescore every pair from scratch at every step, with the documented ties."""
    vocab: list[str] = list(specials)
    chars = sorted({ch for word in words for ch in word})
    vocab += [ch for ch in chars if ch not in vocab]
    decorated = sorted({"##" + word[i] for word in words for i in range(1, len(word))})
    vocab += [symbol for symbol in decorated if symbol not in vocab]
    ids = {token: i for i, token in enumerate(vocab)}
    split = {word: [word[0]] + ["##" + ch for ch in word[1:]] for word in words}
    made: list[str] = []
    while len(vocab) < vocab_size:
        symbols: dict[str, int] = {}
        pairs: dict[tuple[str, str], int] = {}
        for word, count in words.items():
            pieces = split[word]
            for piece in pieces:
                symbols[piece] = symbols.get(piece, 0) + count
            for a, b in zip(pieces, pieces[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + count
        ranked = [
            (-(count / (symbols[a] * symbols[b])), -count, ids[a], ids[b], a, b)
            for (a, b), count in pairs.items()
            if count >= max(min_frequency, 1)
        ]
        if not ranked:
            break
        _, _, _, _, a, b = min(ranked)
        new = a + b[2:] if b.startswith("##") else a + b
        if new not in ids:
            ids[new] = len(vocab)
            vocab.append(new)
        made.append(new)
        for word, pieces in split.items():
            merged: list[str] = []
            i = 0
            while i < len(pieces):
                if i + 1 < len(pieces) and pieces[i] == a and pieces[i + 1] == b:
                    merged.append(new)
                    i += 2
                else:
                    merged.append(pieces[i])
                    i += 1
            split[word] = merged
    return made


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


def test_settings_round_trip_and_bad_options() -> None:
    trainer = WordPieceTrainer(vocab_size=500, min_frequency=2, special_tokens=["[UNK]"], limit_alphabet=50, scoring="frequency")
    again = trainers.from_dict(trainer.to_dict())
    assert isinstance(again, WordPieceTrainer)
    assert again.to_dict() == trainer.to_dict()
    with pytest.raises(ValueError, match="scoring"):
        WordPieceTrainer(scoring="entropy")
    with pytest.raises(SchemaError, match="scoring"):
        WordPieceTrainer.from_dict({"type": "WordPieceTrainer", "scoring": "entropy"})
    assert isinstance(trainers.default_trainer(models.WordPiece()), WordPieceTrainer)
    assert isinstance(WordPieceTrainer().start({"ab": 1}), WordPieceTrainingRun)
