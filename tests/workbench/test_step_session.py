"""`StepSession`, the step-by-step training the Step by Step panel draws, without a window."""

from __future__ import annotations

import json

from engine import Tokenizer
from engine.trainers.records import MergeStep, RoundStep
from workbench.core import presets
from workbench.core.presets import Configuration
from workbench.jobs.children.training import window_result
from workbench.core.step_session import StepSession, count_typed, tie_text, tied_with_first, typed_table

TEXT = "the cat sat on the mat\nthe dog sat on the log\na hat on a cat that sat\n"


def _configuration(preset: str, vocab_size: int) -> Configuration:
    tokenizer, trainer = presets.build(preset, vocab_size)
    pipeline: dict[str, object] = json.loads(tokenizer.to_str())
    return pipeline, trainer.to_dict()


def test_each_step_merges_the_pair_the_candidates_put_first() -> None:
    configuration = _configuration("bpe", 60)
    session = StepSession(configuration, count_typed(configuration[0], TEXT), TEXT, from_file=False)
    assert session.score_name == "count" and not session.rounds and not session.done
    for _ in range(5):
        first = session.candidates()[0]
        [step] = session.step(1)
        assert isinstance(step, MergeStep)
        assert (step.left, step.right) == (first.left, first.right)
    assert ["".join(pieces) for pieces, _ in session.words()][:3] == ["the", "sat", "on"]


def test_the_textbook_tie_is_marked_with_the_rule_that_breaks_it() -> None:
    """ship x3, shipping x2, shop x2: s+h first (7), then sh+i and i+p tie at 5, and HF's queue
    merges i+p (its left token, i, was made before sh)."""
    configuration = _configuration("bpe", 60)
    session = StepSession(configuration, {"ship": 3, "shipping": 2, "shop": 2}, "ship shipping shop", from_file=False)
    first = session.candidates()[0]
    assert (first.left, first.right, first.count) == ("s", "h", 7)
    assert tied_with_first(session.candidates(), session.algorithm, session.score_name) == []
    assert tie_text(session.candidates(), session.algorithm, session.score_name) == ""
    session.step(1)
    candidates = session.candidates()
    assert [(c.left, c.right, c.count) for c in candidates[:2]] == [("i", "p", 5), ("sh", "i", 5)]
    assert tied_with_first(candidates, session.algorithm, session.score_name) == [1]
    text = tie_text(candidates, session.algorithm, session.score_name)
    assert text.startswith("tied with 1 other pair at 5: HF's queue takes the pair whose left token has the smaller id")
    [step] = session.step(1)
    assert isinstance(step, MergeStep) and (step.left, step.right) == ("i", "p")


def test_a_typed_word_count_table_is_the_corpus_the_textbooks_give() -> None:
    """The HF course's BPE corpus: hug 10, pug 5, pun 12, bun 4, hugs 5; u+g is its first merge (20)."""
    configuration = _configuration("bpe", 60)
    table = "hug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n"
    assert typed_table(table) == [("hug", 10), ("pug", 5), ("pun", 12), ("bun", 4), ("hugs", 5)]
    counts = count_typed(configuration[0], table)
    assert counts == {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    session = StepSession(configuration, counts, table, from_file=False)
    first = session.candidates()[0]
    assert (first.left, first.right, first.count) == ("u", "g", 20)
    # a line of text with a tab in it is text, not a table
    assert typed_table("the cat\tsat\n") is None and typed_table("a\t0\n") is None
    assert count_typed(configuration[0], "the cat\tsat\n") == {"the": 1, "cat": 1, "sat": 1}


def test_keep_gives_the_tokenizer_the_run_made_and_the_settings_that_make_it() -> None:
    configuration = _configuration("bpe", 60)
    session = StepSession(configuration, count_typed(configuration[0], TEXT), TEXT, from_file=True)
    made = session.step(7)
    kept = session.keep()
    pipeline, trainer = kept.pipeline, kept.trainer_settings
    assert kept.tokenizer.get_vocab_size() == trainer["vocab_size"] == len(kept.frequencies)
    assert len(json.loads(kept.tokenizer.to_str())["model"]["merges"]) == len(made) == 7
    assert pipeline == configuration[0]
    assert trainer["type"] == "BpeTrainer" and configuration[1]["vocab_size"] == 60  # (the settings given are not changed)
    assert kept.report.files == 1 and len(kept.report.history) == 7
    # as the window takes it: the parts and the vocabulary table made in the process
    result = window_result(kept.tokenizer, kept.report, kept.frequencies, kept.examples, glyphs=True)
    stored, shown = result.stored_result()
    assert shown is not None and len(shown[0]) == stored.vocab_size == trainer["vocab_size"]
    assert Tokenizer.from_str(stored.tokenizer_json).get_vocab() == kept.tokenizer.get_vocab()
    report = stored.parsed_report()
    assert report is not None and report.files == 1


def test_a_unigram_session_steps_by_rounds_and_measures_the_text() -> None:
    configuration = _configuration("sentencepiece-unigram", 40)
    session = StepSession(configuration, count_typed(configuration[0], TEXT * 3), TEXT * 3, from_file=False)
    assert session.rounds
    before = session.characters_per_token(force=True)
    assert before is not None and session.characters_per_token(force=False) is None  # (measured a moment ago)
    rounds = session.step(2)
    assert [type(step) for step in rounds] == [RoundStep, RoundStep]
    after = session.characters_per_token(force=True)
    assert after is not None and after > before


def test_the_bert_preset_steps_by_likelihood_gain() -> None:
    """The HF course's BPE corpus under the BERT preset: its gain merges ##u + ##g first, where the
    course's ratio ("likelihood") merges ##g + ##s; each names its score."""
    configuration = _configuration("bert", 60)
    table = "hug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n"
    counts = count_typed(configuration[0], table)
    session = StepSession(configuration, counts, table, from_file=False)
    assert session.score_name == "likelihood gain"
    first = session.candidates()[0]
    assert (first.left, first.right, first.count) == ("##u", "##g", 20) and first.score is not None
    [step] = session.step(1)
    assert isinstance(step, MergeStep) and (step.new_token, step.score) == ("##ug", first.score)
    ratio = (configuration[0], {**configuration[1], "scoring": "likelihood"})
    session = StepSession(ratio, counts, table, from_file=False)
    assert session.score_name == "likelihood"
    assert [(c.left, c.right) for c in session.candidates()[:1]] == [("##g", "##s")]
