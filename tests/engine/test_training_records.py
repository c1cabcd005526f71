"""Training records and `Tokenizer` cross process boundaries: wire forms, pickling, deep copies.

These run on the build under test, which in CI is the compiled one (tests/test_build.py checks),
where mypyc-compiled frozen dataclasses do not unpickle on their own.
"""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Tokenizer, models, normalizers, pre_tokenizers, trainers
from engine.errors import SchemaError
from engine.progress import TrainProgress
from engine.trainers.records import (
    MergeStep,
    PairCandidate,
    RoundStep,
    TrainHistory,
    TrainReport,
    step_from_dict,
)
from support import corpus_path, train_byte_level

TEXT = ["the cat sat on the mat", "the cat ate the rat", "that hat is flat", "a bat and a gnat"] * 5


def bpe_report() -> tuple[Tokenizer, TrainReport]:
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    report = tokenizer.train_from_iterator(
        TEXT, trainers.BpeTrainer(vocab_size=60, special_tokens=["[UNK]"], show_progress=False)
    )
    return tokenizer, report


def every_record() -> list[object]:
    _, report = bpe_report()
    return [
        TrainProgress("Compute merges", 3, 10, "merges", "th"),
        TrainProgress("Count pairs", 0, 0),
        report.history.merges[0],
        MergeStep(4, "##a", "b", "##ab", 9, 12, 10, 3, score=0.25, left_count=40, right_count=30, seconds=1.5),
        RoundStep(0, "em", 8000, 0, -123456.5, 2.0),
        RoundStep(1, "select words", 500, 0, None),
        PairCandidate("t", "h", 17),
        PairCandidate("##a", "b", 12, 0.01, 40, 30),
        report.history,
        TrainHistory("Unigram", "log-likelihood", rounds=[RoundStep(0, "em", 10, 0, -5.0, 0.1)]),
        report,
    ]


@pytest.mark.parametrize("record", every_record(), ids=lambda r: type(r).__name__)
def test_every_record_pickles_and_deep_copies(record: object) -> None:
    assert pickle.loads(pickle.dumps(record)) == record
    assert copy.deepcopy(record) == record


@pytest.mark.parametrize("record", every_record(), ids=lambda r: type(r).__name__)
def test_every_record_round_trips_through_json(record: object) -> None:
    assert isinstance(record, (TrainProgress, MergeStep, RoundStep, PairCandidate, TrainHistory, TrainReport))
    wire = json.loads(json.dumps(record.to_dict()))
    again = type(record).from_dict(wire)
    assert again == record
    if isinstance(record, (MergeStep, RoundStep)):
        assert step_from_dict(wire) == record
        assert isinstance(again, (MergeStep, RoundStep)) and again.seconds == record.seconds


def test_history_columns_follow_the_merges() -> None:
    _, report = bpe_report()
    history = report.history
    assert history.algorithm == "BPE" and history.score_name == "count"
    assert len(history) == len(history.merges) > 10
    assert history.counts == [step.count for step in history.merges]
    assert history.rank_values == [float(step.count) for step in history.merges]
    assert history.vocab_sizes == sorted(history.vocab_sizes)
    assert [step.index for step in history.steps()] == list(range(len(history)))
    seconds = [step.seconds for step in history.merges]
    assert seconds == sorted(seconds) and seconds[0] >= 0.0


@pytest.mark.parametrize(
    ("maker", "data"),
    [
        (MergeStep.from_dict, {"kind": "merge", "index": 0}),
        (MergeStep.from_dict, [1, 2]),
        (RoundStep.from_dict, {"index": 0, "phase": "em", "vocab_size": -1, "removed": 0, "log_likelihood": None, "seconds": 0}),
        (PairCandidate.from_dict, {"left": "a", "right": "b", "count": "many"}),
        (TrainProgress.from_dict, {"stage": "x", "current": 1.5, "total": 2}),
        (step_from_dict, {"kind": "split"}),
        (TrainHistory.from_dict, {"algorithm": "BPE", "rounds": {"index": [0], "phase": []}}),
        (TrainReport.from_dict, {"files": 1}),
    ],
)
def test_bad_wire_data_is_a_schema_error(maker: object, data: object) -> None:
    assert callable(maker)
    with pytest.raises(SchemaError):
        maker(data)


def test_records_cross_a_real_process_boundary(tmp_path: Path) -> None:
    # A separate interpreter makes the records with the installed engine and pickles them; this
    # one unpickles them, as the window's training process and the window do.
    script = textwrap.dedent(
        """
        import pickle, sys
        from engine import Tokenizer, models, pre_tokenizers, trainers
        from engine.progress import TrainProgress
        tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
        tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
        run = trainers.BpeTrainer(vocab_size=40, special_tokens=["[UNK]"]).start({"hello": 3, "help": 2, "hell": 1})
        step = run.step()
        candidates = run.top_candidates(3)
        report = tokenizer.train_from_iterator(["hello help hell"] * 3, trainers.BpeTrainer(vocab_size=40, show_progress=False))
        sys.stdout.buffer.write(pickle.dumps([TrainProgress("Count pairs", 1, 2, "words"), step, candidates, report, tokenizer]))
        """
    )
    result = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, cwd=tmp_path, check=True)
    progress, step, candidates, report, tokenizer = pickle.loads(result.stdout)
    assert progress == TrainProgress("Count pairs", 1, 2, "words")
    assert isinstance(step, MergeStep) and step.count == 6 and step.new_token == step.left + step.right
    assert all(isinstance(candidate, PairCandidate) for candidate in candidates) and candidates
    assert isinstance(report, TrainReport) and len(report.history) > 0
    assert isinstance(tokenizer, Tokenizer) and tokenizer.encode("hello").tokens == ["hello"]


# -- Tokenizer ---------------------------------------------------------------------------------


def byte_level_tokenizer() -> Tokenizer:
    tokenizer = train_byte_level(TEXT, 300, trim_offsets=True)
    tokenizer.add_special_tokens(["<|endoftext|>"])
    return tokenizer


def wordlevel_tokenizer() -> Tokenizer:
    tokenizer = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase()])
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(TEXT, trainers.WordLevelTrainer(special_tokens=["[UNK]"], show_progress=False))
    tokenizer.enable_truncation(8)
    return tokenizer


TOKENIZERS: dict[str, Callable[[], Tokenizer]] = {
    "bpe": lambda: bpe_report()[0],
    "byte-level": byte_level_tokenizer,
    "wordlevel": wordlevel_tokenizer,
    "bert": lambda: Tokenizer.from_file(str(corpus_path("bert_uncased_tokenizer.json"))),
}


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_tokenizer_pickles_and_deep_copies_through_its_json(name: str) -> None:
    tokenizer = TOKENIZERS[name]()
    text = "The Cat sat, then ate the rat. <|endoftext|> 😀 naïve"
    expected = tokenizer.encode(text)
    for again in (pickle.loads(pickle.dumps(tokenizer)), copy.deepcopy(tokenizer), copy.copy(tokenizer)):
        assert again is not tokenizer
        assert again.to_str() == tokenizer.to_str()
        encoding = again.encode(text)
        assert (encoding.ids, encoding.tokens, encoding.offsets) == (expected.ids, expected.tokens, expected.offsets)


def test_a_deep_copy_is_independent() -> None:
    tokenizer = wordlevel_tokenizer()
    twin = copy.deepcopy(tokenizer)
    twin.add_tokens(["brand-new"])
    twin.no_truncation()
    assert tokenizer.token_to_id("brand-new") is None
    assert tokenizer.truncation is not None
