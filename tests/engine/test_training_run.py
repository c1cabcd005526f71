"""The training-run contract every trainer shares, and the public path from files to word counts
to a trained tokenizer (what the CLI and the window's training process use)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine import AddedToken, Tokenizer, models, pre_tokenizers, trainers
from engine.errors import TrainerMismatchError, TrainingCancelled
from engine.models.base import Model
from engine.progress import ProgressSink, SilentProgress, TrainProgress
from engine.trainers.base import Trainer, TrainingRun
from engine.trainers.records import MergeStep, RoundStep

WORDS = {
    "the": 40, "then": 9, "there": 12, "other": 7, "these": 5, "brother": 3, "theatre": 2,
    "that": 20, "this": 18, "thistle": 1, "hat": 4, "sat": 3, "at": 11, "a": 30, "an": 8,
}
TEXT = "the cat sat on the mat\nthe cat ate the rat\nthat hat is flat\na bat and a gnat\n" * 20

# (trainer, a fresh model it trains, the step record it makes)
KINDS: dict[str, tuple[Callable[[], Trainer], Callable[[], Model], type]] = {
    "bpe": (lambda: trainers.BpeTrainer(vocab_size=45, special_tokens=["[UNK]"]), lambda: models.BPE(unk_token="[UNK]"), MergeStep),
    "wordpiece": (lambda: trainers.WordPieceTrainer(vocab_size=60, special_tokens=["[UNK]"]), lambda: models.WordPiece(unk_token="[UNK]"), MergeStep),
    "wordpiece-likelihood-gain": (lambda: trainers.WordPieceTrainer(vocab_size=60, special_tokens=["[UNK]"], scoring="likelihood_gain"), lambda: models.WordPiece(unk_token="[UNK]"), MergeStep),
    "wordpiece-frequency": (lambda: trainers.WordPieceTrainer(vocab_size=60, special_tokens=["[UNK]"], scoring="frequency"), lambda: models.WordPiece(unk_token="[UNK]"), MergeStep),
    "wordlevel": (lambda: trainers.WordLevelTrainer(vocab_size=10, special_tokens=["[UNK]"]), lambda: models.WordLevel(unk_token="[UNK]"), RoundStep),
    "unigram": (lambda: trainers.UnigramTrainer(vocab_size=30, special_tokens=["[UNK]"], unk_token="[UNK]"), lambda: models.Unigram(), RoundStep),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_stepping_to_the_end_equals_running_to_the_end(kind: str) -> None:
    make_trainer, make_model, step_type = KINDS[kind]
    trainer = make_trainer()
    stepped = trainer.start(WORDS)
    assert isinstance(stepped, TrainingRun)
    steps = []
    while not stepped.done:
        step = stepped.step()
        assert isinstance(step, step_type)
        steps.append(step)
    assert stepped.step() is None
    ran = trainer.start(WORDS)
    ran.run_to_end()
    assert ran.done
    assert stepped.vocab == ran.vocab
    assert stepped.history == ran.history
    assert stepped.history.steps() == steps
    stepped_model, ran_model = make_model(), make_model()
    assert trainer.apply(stepped, stepped_model) == trainer.apply(ran, ran_model)
    assert stepped_model.to_dict() == ran_model.to_dict()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_train_equals_start_run_apply(kind: str) -> None:
    make_trainer, make_model, _ = KINDS[kind]
    trained, applied = make_model(), make_model()
    special, history = make_trainer().train_and_record(WORDS, trained, SilentProgress())
    assert [token.content for token in special] == ["[UNK]"]
    trainer = make_trainer()
    run = trainer.start(WORDS)
    run.run_to_end(SilentProgress())
    trainer.apply(run, applied)
    assert trained.to_dict() == applied.to_dict()
    assert history == run.history and len(history) > 0


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_segmentations_show_the_most_frequent_words_as_their_tokens(kind: str) -> None:
    make_trainer, _, _ = KINDS[kind]
    run = make_trainer().start(WORDS)
    # BPE and WordPiece leave out one-char words: there is nothing to merge in them ("a": 30).
    merging = kind not in ("wordlevel", "unigram")
    expected = [40, 20, 18] if merging else [40, 30, 20]
    before = run.segmentations(3)
    assert [count for _, count in before] == expected
    run.run_to_end()
    after = run.segmentations(3)
    assert [count for _, count in after] == expected
    assert after[0][0] == ["the"]  # the most frequent word is one token by the end
    if kind == "bpe":
        assert before[0][0] == ["t", "h", "e"]
    if kind.startswith("wordpiece"):
        assert before[0][0] == ["t", "##h", "##e"]
    if kind == "unigram":
        assert before[0][0] == ["t", "h", "e"]


def test_wordlevel_run_is_one_selection_round_with_no_pairs() -> None:
    run = trainers.WordLevelTrainer(vocab_size=4, special_tokens=["[UNK]"]).start(WORDS)
    assert run.top_candidates(5) == []
    step = run.step()
    assert step == RoundStep(0, "select words", 4, 0, None)
    assert run.vocab == {"[UNK]": 0, "the": 1, "a": 2, "that": 3}


def test_applying_another_trainers_run_is_refused() -> None:
    bpe_run = trainers.BpeTrainer(vocab_size=40).start(WORDS)
    with pytest.raises(TrainerMismatchError):
        trainers.WordLevelTrainer().apply(bpe_run, models.WordLevel())
    with pytest.raises(TrainerMismatchError):
        trainers.BpeTrainer().apply(bpe_run, models.WordLevel())


# -- the public path: files -> counts -> tokenizer ---------------------------------------------


def fresh_bpe() -> Tokenizer:
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.add_special_tokens([AddedToken("<sep>")])
    return tokenizer


def bpe_trainer() -> trainers.BpeTrainer:
    return trainers.BpeTrainer(vocab_size=50, special_tokens=["[UNK]"], show_progress=False)


@pytest.mark.parametrize("processes", [1, 2])
def test_count_words_then_train_from_counts_equals_train(tmp_path: Path, processes: int) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text(TEXT.replace("flat", "flat<sep>"), encoding="utf-8")
    whole = fresh_bpe()
    report = whole.train([str(corpus)], bpe_trainer(), processes=processes)
    parts = fresh_bpe()
    counts = parts.count_words([str(corpus)], processes=processes)
    assert counts["the"] == 80 and counts["<sep>"] == 20  # HF counts an added token as one word
    from_counts = parts.train_from_counts(counts, bpe_trainer())
    assert parts.to_str() == whole.to_str()
    assert from_counts.history == report.history and len(report.history) > 0
    assert (report.files, from_counts.files) == (1, 0)
    assert from_counts.total_words == report.total_words == sum(counts.values())


def test_a_stepped_run_applied_to_the_tokenizer_equals_training() -> None:
    trained = fresh_bpe()
    trained.train_from_iterator(TEXT.splitlines(), bpe_trainer())
    stepped = fresh_bpe()
    trainer = bpe_trainer()
    run = trainer.start(stepped.count_words_from_iterator(TEXT.splitlines()))
    while run.step() is not None:
        pass
    history = stepped.apply_training(trainer, run)
    assert stepped.to_str() == trained.to_str()
    assert len(history) == len(run.history.merges)


class StopAt(ProgressSink):
    def __init__(self, stage: str) -> None:
        self.stage = stage

    def report(self, event: TrainProgress) -> bool:
        return event.stage != self.stage


def test_cancelled_training_from_counts_leaves_the_tokenizer_untouched() -> None:
    tokenizer = fresh_bpe()
    before = tokenizer.to_str()
    counts = tokenizer.count_words_from_iterator(TEXT.splitlines())
    with pytest.raises(TrainingCancelled):
        tokenizer.train_from_counts(counts, bpe_trainer(), progress=StopAt("Compute merges"))
    assert tokenizer.to_str() == before
