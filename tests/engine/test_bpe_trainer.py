"""BpeTrainer and BpeTrainingRun: hand-checked cases, HF's own Rust test cases, and a literal oracle.

The oracle below is a slow, line-by-line transcription of HF's `BpeTrainer::do_train` (heap of
entries each carrying its own word set, lazy re-push, `Word::merge`); hypothesis checks the fast
run against it on small random corpora, including prefix/suffix collisions and duplicate merges.
Parity with the real HF library lives in tests/parity/test_bpe_training_parity.py.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from typing import TypedDict, Unpack

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.added_vocabulary import AddedToken
from engine.models.bpe.model import BPE
from engine.models.bpe.trainer import BpeTrainer, BpeTrainingRun
from engine.errors import SchemaError, TrainerMismatchError, TrainingCancelled
from engine.trainers.base import AlphabetNeed
from engine.progress import (
    STAGE_COMPUTE_MERGES,
    STAGE_COUNT_PAIRS,
    STAGE_TOKENIZE_WORDS,
    ProgressSink,
    SilentProgress,
    TrainProgress,
)
from engine.trainers.records import MergeStep, TrainHistory
from engine.models.wordlevel.model import WordLevel


class Recorder(ProgressSink):
    """Keeps every event; asks to stop at the `stop_at`-th event of `stop_stage` (if given)."""

    def __init__(self, stop_stage: str = "", stop_at: int = 0) -> None:
        self.events: list[TrainProgress] = []
        self.stop_stage = stop_stage
        self.stop_at = stop_at

    def report(self, event: TrainProgress) -> bool:
        self.events.append(event)
        seen = sum(1 for e in self.events if e.stage == self.stop_stage)
        return not (self.stop_stage and event.stage == self.stop_stage and seen >= self.stop_at)


class Options(TypedDict, total=False):
    """BpeTrainer's training options, as `trained` passes them on."""

    vocab_size: int
    min_frequency: int
    special_tokens: Sequence[str | AddedToken] | None
    limit_alphabet: int | None
    initial_alphabet: Sequence[str] | None
    continuing_subword_prefix: str | None
    end_of_word_suffix: str | None
    max_token_length: int | None


def trained(word_counts: dict[str, int], **options: Unpack[Options]) -> BpeTrainingRun:
    run = BpeTrainer(**options).start(word_counts)
    run.run_to_end(SilentProgress())
    return run


# -- the hand-checkable reference case -----------------------------------------------------


def test_minbpe_reference_case_merges_written_out() -> None:
    # "aaabdaaabac": alphabet a b c d -> 0 1 2 3. (a,a) occurs 4 times but merges left to right
    # without overlap: a a a b d a a a b a c -> aa a b d aa a b a c. Then (a,b) (count 2) beats
    # (aa,a) (count 2) on ids: (0,1) < (4,0). Then aa+ab, and the count-1 pairs in id order.
    run = BpeTrainer(vocab_size=100).start({"aaabdaaabac": 1})
    steps: list[MergeStep] = []
    while (step := run.step()) is not None:
        steps.append(step)
    assert [(s.left, s.right) for s in steps] == [
        ("a", "a"),
        ("a", "b"),
        ("aa", "ab"),
        ("a", "c"),
        ("d", "aaab"),
        ("aaab", "daaab"),
        ("aaabdaaab", "ac"),
    ]
    assert [s.count for s in steps] == [4, 2, 2, 1, 1, 1, 1]
    assert steps[0] == MergeStep(0, "a", "a", "aa", 4, 4, 5, 1)
    assert run.vocab == {
        "a": 0, "b": 1, "c": 2, "d": 3, "aa": 4, "ab": 5, "aaab": 6, "ac": 7,
        "daaab": 8, "aaabdaaab": 9, "aaabdaaabac": 10,
    }
    assert run.done
    assert run.step() is None


def test_hf_rust_test_train_case() -> None:
    # HF models/bpe/trainer.rs `test_train`: min_frequency 2 leaves exactly re, are, is.
    words = {
        "roses": 1, "are": 2, "red": 1, "voilets": 1, "blue": 1, "BERT": 1,
        "is": 2, "big": 1, "and": 1, "so": 1, "GPT-2": 1,
    }
    run = trained(words, min_frequency=2)
    assert run.merges == [("r", "e"), ("a", "re"), ("i", "s")]
    alphabet = "-2BEGPRTabdegilnorstuv"
    expected = {ch: i for i, ch in enumerate(alphabet)}
    expected.update({"re": 22, "are": 23, "is": 24})
    assert run.vocab == expected


def test_hf_rust_max_token_length_direct_case() -> None:
    # HF `bpe_test_max_token_length_direct_assert`: with max_token_length 2 only the initial
    # pairs can merge (a new pair is counted only when shorter than the limit: HF's `<`).
    words = {w: 2 for w in ["sin", "Sin", "Lon", "Ano", "짧은한", "긴한글", "短字符", "长字符", "短い文", "長い文", "so", "GP"]}
    run = trained(words, max_token_length=2)
    assert run.vocab == {
        "短": 12, "n": 6, "i": 5, "s": 8, "字符": 23, "長": 14, "긴": 17, "い文": 22, "L": 2,
        "in": 21, "o": 7, "은한": 29, "S": 4, "P": 3, "so": 27, "符": 13, "文": 11, "字": 10,
        "짧": 19, "GP": 25, "글": 16, "G": 1, "An": 24, "长": 15, "A": 0, "Lo": 26, "긴한": 28,
        "い": 9, "한": 20, "은": 18,
    }


def test_max_token_length_bounds_every_merged_token() -> None:
    words = {"singlelongtokenwithoutcasechange": 2, "Longsingletokenwithpunctu@t!onwithin": 2, "长字符串长字符串长字符串长字符串": 2}
    for limit in (3, 5, 16):
        run = trained(words, max_token_length=limit)
        assert max(len(token) for token in run.vocab) <= limit


# -- stepping, candidates, progress, cancel --------------------------------------------------

TEXT_WORDS = {
    "the": 40, "then": 9, "there": 12, "other": 7, "these": 5, "brother": 3, "theatre": 2,
    "that": 20, "this": 18, "thistle": 1, "hat": 4, "sat": 3, "at": 11, "a": 30, "an": 8,
}


def test_stepping_to_the_end_equals_running() -> None:
    stepped = BpeTrainer(vocab_size=60, special_tokens=["<unk>"]).start(TEXT_WORDS)
    steps = []
    while (step := stepped.step()) is not None:
        steps.append(step)
    ran = trained(TEXT_WORDS, vocab_size=60, special_tokens=["<unk>"])
    assert stepped.merges == ran.merges
    assert stepped.vocab == ran.vocab
    assert stepped.history.counts == ran.history.counts == [s.count for s in steps]
    assert stepped.history.vocab_sizes == [s.vocab_size for s in steps]
    assert [s.index for s in steps] == list(range(len(steps)))
    assert all(s.new_token == s.left + s.right and ran.vocab[s.new_token] == s.new_id for s in steps)


def test_run_continues_a_stepped_run() -> None:
    run = BpeTrainer(vocab_size=50).start(TEXT_WORDS)
    for _ in range(5):
        run.step()
    run.run_to_end(SilentProgress())
    assert run.merges == trained(TEXT_WORDS, vocab_size=50).merges


def test_top_candidates_lead_with_the_next_merge() -> None:
    run = BpeTrainer(vocab_size=60).start(TEXT_WORDS)
    for _ in range(12):
        candidates = run.top_candidates(5)
        assert 1 <= len(candidates) <= 5
        counts = [c.count for c in candidates]
        assert counts == sorted(counts, reverse=True)
        step = run.step()
        assert step is not None
        assert (candidates[0].left, candidates[0].right, candidates[0].count) == (step.left, step.right, step.count)
    assert run.top_candidates(0) == []


def test_top_candidates_at_the_start_are_the_real_pair_counts() -> None:
    run = BpeTrainer().start({"abab": 2, "ba": 5})
    # pairs: (a,b) 2*2 = 4, (b,a) 2*1 + 5 = 7
    assert [(c.left, c.right, c.count) for c in run.top_candidates(10)] == [("b", "a", 7), ("a", "b", 4)]


def test_count_ties_go_to_the_smaller_pair_of_ids() -> None:
    # (b,c) and (a,b)... every pair here has count 1; ids a=0 b=1 c=2 x=3 y=4.
    run = trained({"xy": 1, "bc": 1, "ab": 1}, vocab_size=6)
    assert run.merges == [("a", "b")]


def test_progress_reports_each_stage_and_ends_complete() -> None:
    sink = Recorder()
    words = {f"w{i}x{i % 7}": 1 + i % 5 for i in range(3000)}
    run = BpeTrainer(vocab_size=400).start(words)
    run.run_to_end(sink)
    stages = [e.stage for e in sink.events]
    first = [stages.index(s) for s in (STAGE_TOKENIZE_WORDS, STAGE_COUNT_PAIRS, STAGE_COMPUTE_MERGES)]
    assert first == sorted(first)
    merges = [e for e in sink.events if e.stage == STAGE_COMPUTE_MERGES]
    assert merges[-1].current == merges[-1].total == run.merge_count
    assert [e.current for e in merges] == sorted(e.current for e in merges)
    # about every 1%, never per merge
    assert len(merges) <= 110
    assert all(e.unit == "merges" for e in merges)


@pytest.mark.parametrize("stage", [STAGE_TOKENIZE_WORDS, STAGE_COUNT_PAIRS, STAGE_COMPUTE_MERGES])
def test_a_sink_returning_false_cancels(stage: str) -> None:
    words = {f"w{i}x{i % 7}": 1 + i % 5 for i in range(3000)}
    run = BpeTrainer(vocab_size=400).start(words)
    with pytest.raises(TrainingCancelled):
        run.run_to_end(Recorder(stage, 2))


def test_cancelled_train_leaves_the_model_untouched() -> None:
    model = BPE(vocab={"x": 0}, merges=[], unk_token="x")
    trainer = BpeTrainer(vocab_size=100)
    with pytest.raises(TrainingCancelled):
        trainer.train(TEXT_WORDS, model, Recorder(STAGE_COMPUTE_MERGES, 2))
    assert model.get_vocab() == {"x": 0}


def test_train_fills_the_model_and_returns_the_special_tokens() -> None:
    model = BPE(unk_token="<unk>", dropout=None)
    trainer = BpeTrainer(vocab_size=40, special_tokens=["<unk>", AddedToken("<pad>")])
    special = trainer.train(TEXT_WORDS, model, SilentProgress())
    assert [t.content for t in special] == ["<unk>", "<pad>"]
    assert all(t.special for t in special)
    run = trained(TEXT_WORDS, vocab_size=40, special_tokens=["<unk>", "<pad>"])
    assert model.get_vocab() == run.vocab
    assert model.unk_token == "<unk>"
    assert "the" in model.get_vocab()
    assert [t.value for t in model.tokenize("the")] == ["the"]


def test_a_stepped_run_fills_a_model_where_it_stopped() -> None:
    trainer = BpeTrainer(vocab_size=40)
    run = trainer.start(TEXT_WORDS)
    for _ in range(3):
        run.step()
    model = BPE()
    assert trainer.apply(run, model) == []
    assert run.merges == [("t", "h"), ("th", "e"), ("a", "t")]
    assert model.get_vocab() == run.vocab
    assert [t.value for t in model.tokenize("the")] == ["the"]
    assert [t.value for t in model.tokenize("that")] == ["th", "at"]


def test_train_rejects_another_kind_of_model() -> None:
    with pytest.raises(TrainerMismatchError):
        BpeTrainer().train(TEXT_WORDS, WordLevel(), SilentProgress())


# -- options -------------------------------------------------------------------------------


def test_special_tokens_come_first_in_order_and_only_once() -> None:
    run = trained({"ab": 3}, special_tokens=["[UNK]", AddedToken("[PAD]"), "[UNK]", "a"])
    assert run.vocab == {"[UNK]": 0, "[PAD]": 1, "a": 2, "b": 3, "ab": 4}


def test_min_frequency_stops_at_the_first_rarer_pair() -> None:
    run = trained({"ab": 5, "cd": 2, "ef": 1}, min_frequency=2)
    assert run.merges == [("a", "b"), ("c", "d")]
    assert trained({"ab": 5, "cd": 2, "ef": 1}).merges == [("a", "b"), ("c", "d"), ("e", "f")]


@pytest.mark.parametrize("min_frequency", [2**63 - 1, 2**63, 2**70])
def test_a_min_frequency_past_every_count_merges_nothing(min_frequency: int) -> None:
    # HF takes any u64; the run counts in i64, where 2**63 raised ValueError in the compiled build
    trainer = BpeTrainer(min_frequency=min_frequency)
    run = trainer.start({"ab": 5, "cd": 2})
    run.run_to_end(SilentProgress())
    assert run.merges == [] and trainer.min_frequency == min_frequency


def test_vocab_size_counts_special_tokens_and_alphabet() -> None:
    run = trained({"abc": 3, "abd": 2}, vocab_size=6, special_tokens=["<s>"])
    # <s> a b c d = 5, so exactly one merge
    assert run.merges == [("a", "b")]
    assert len(run.vocab) == 6
    assert trained({"abc": 3}, vocab_size=2).merges == []


def test_limit_alphabet_drops_the_rarest_chars_from_alphabet_and_words() -> None:
    run = trained({"aaab": 10, "xaz": 1}, limit_alphabet=2)
    # a (31), b (10) kept; x and z (1 each) dropped, so "xaz" is just "a" (no pair).
    # aaab: (a,a) 20 -> aa a b; then (a,b) 10 beats (aa,a) 10 on ids; then aa + ab.
    assert run.vocab == {"a": 0, "b": 1, "aa": 2, "ab": 3, "aaab": 4}
    assert run.merges == [("a", "a"), ("a", "b"), ("aa", "ab")]


def test_limit_alphabet_ties_drop_the_lowest_code_points_first() -> None:
    # HF's choice among equally rare chars depends on hash order; ours is fixed.
    run = BpeTrainer(limit_alphabet=2).start({"cab": 1})
    assert run.vocab == {"b": 0, "c": 1}


def test_initial_alphabet_adds_unseen_chars_keeping_the_first_char() -> None:
    trainer = BpeTrainer(initial_alphabet=["z", "yes", "", "a"])
    assert trainer.initial_alphabet == ["a", "y", "z"]
    run = trainer.start({"ab": 2})
    assert run.vocab == {"a": 0, "b": 1, "y": 2, "z": 3}
    run.run_to_end(SilentProgress())
    assert run.merges == [("a", "b")]


def test_initial_alphabet_survives_limit_alphabet() -> None:
    run = trained({"aaab": 10, "cd": 3}, limit_alphabet=3, initial_alphabet=["q"])
    assert [t for t in run.vocab if len(t) == 1] == ["a", "b", "q"]


def test_continuing_subword_prefix_marks_inner_symbols_and_is_stripped_on_merge() -> None:
    run = trained({"abab": 3, "b": 1}, continuing_subword_prefix="##", vocab_size=20)
    vocab = run.vocab
    assert {"a", "b", "##a", "##b"} <= set(vocab)
    # a + ##b -> "ab"; ##a + ##b -> "##ab"
    assert ("a", "##b") in run.merges
    assert "ab" in vocab and "##ab" in vocab
    # decorated symbols come after the alphabet, in code-point order
    assert vocab["##a"] < vocab["##b"] and vocab["##a"] > vocab["b"]


def test_end_of_word_suffix_marks_last_symbols() -> None:
    run = trained({"abc": 4, "c": 2}, end_of_word_suffix="</w>", vocab_size=20)
    assert {"c</w>"} <= set(run.vocab)
    assert run.merges[:2] == [("a", "b"), ("ab", "c</w>")]
    assert "abc</w>" in run.vocab


def test_train_sets_prefix_and_suffix_on_the_model() -> None:
    model = BPE()
    BpeTrainer(vocab_size=30, continuing_subword_prefix="##", end_of_word_suffix="</w>").train(TEXT_WORDS, model, SilentProgress())
    assert model.continuing_subword_prefix == "##"
    assert model.end_of_word_suffix == "</w>"


def test_a_pair_queued_twice_is_merged_twice_and_the_model_keeps_its_last_rank() -> None:
    # The suffix makes "a"+"a" collide with the decorated "a" + "a" of a final "a": "aa" exists
    # before it is merged, so (b, aa) gains words twice and sits in the queue twice (HF too).
    words = {"aaaa": 2, "bbbbbbba": 5, "aa": 4, "baba": 5, "bbaaabaabba": 2, "aaaabaaaaa": 1, "babba": 5, "bbabbabaaba": 5, "aaabbbbbba": 4, "aaa": 1}
    run = trained(words, vocab_size=36, end_of_word_suffix="a")
    merges = run.merges
    assert len(merges) > len(set(merges))
    kept = run.model_merges()
    assert len(kept) == len(set(kept))
    last = {pair: i for i, pair in enumerate(merges)}
    assert kept == [pair for i, pair in enumerate(merges) if last[pair] == i]
    assert run.merges == oracle_merges(words, 36, suffix="a")


def test_a_big_alphabet_counts_its_first_pairs_like_a_small_one() -> None:
    # Over 1024 distinct chars, initial pairs are counted in a dict instead of flat lists.
    chars = [chr(0x4E00 + i) for i in range(1100)]
    words = {chars[i] + chars[(i * 7) % 1100] + chars[(i * 13) % 1100]: 1 + i % 4 for i in range(1100)}
    words["ab" * 5] = 50
    run = trained(words, vocab_size=1200)
    assert run.initial_vocab_size == 1102
    assert run.merges == oracle_merges(words, 1200)


def test_history_round_trips_and_rejects_bad_data() -> None:
    history = trained(TEXT_WORDS, vocab_size=40).history
    assert len(history) == len(history.counts) > 0
    again = TrainHistory.from_dict(history.to_dict())
    assert again == history
    assert again.counts == history.counts and again.words_touched == history.words_touched
    columns = history.to_dict()["merges"]
    assert isinstance(columns, dict)
    with pytest.raises(SchemaError):
        TrainHistory.from_dict({"algorithm": "BPE", "merges": {**columns, "count": columns["count"][1:]}})
    with pytest.raises(SchemaError):
        TrainHistory.from_dict({"algorithm": "BPE", "merges": {**columns, "count": ["x"] * len(history)}})


def test_trainer_settings_round_trip() -> None:
    trainer = BpeTrainer(
        vocab_size=123, min_frequency=2, special_tokens=["[UNK]", AddedToken("<x>", lstrip=True)],
        limit_alphabet=50, initial_alphabet=["b", "a"], continuing_subword_prefix="##",
        end_of_word_suffix="</w>", max_token_length=7, show_progress=False,
    )
    again = BpeTrainer.from_dict(trainer.to_dict())
    assert again.to_dict() == trainer.to_dict()
    assert again.special_tokens[1].lstrip
    with pytest.raises(SchemaError):
        BpeTrainer.from_dict({"type": "BpeTrainer", "vocab_size": "big"})
    with pytest.raises(SchemaError):
        BpeTrainer.from_dict({"type": "WordPieceTrainer"})


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError):
        BpeTrainer(vocab_size=-1)
    with pytest.raises(TypeError):
        BpeTrainer(special_tokens=[3])  # type: ignore[list-item]


def test_no_words_gives_only_special_tokens() -> None:
    run = trained({}, special_tokens=["<s>"])
    assert run.vocab == {"<s>": 0}
    assert run.merges == []


# -- the oracle ------------------------------------------------------------------------------


def oracle_merges(
    word_counts: dict[str, int],
    vocab_size: int,
    *,
    min_frequency: int = 0,
    special: tuple[str, ...] = (),
    prefix: str | None = None,
    suffix: str | None = None,
    max_length: int | None = None,
) -> list[tuple[str, str]]:
    """HF do_train, transcribed literally (equal queue entries leave first-in, first-out)."""
    w2id: dict[str, int] = {}
    id2w: list[str] = []

    def add(s: str) -> int:
        if s not in w2id:
            w2id[s] = len(id2w)
            id2w.append(s)
        return w2id[s]

    for s in special:
        add(s)
    for ch in sorted({c for w in word_counts for c in w}):
        add(ch)
    decorated = set()
    for w in word_counts:
        for i, ch in enumerate(w):
            sym = (prefix or "") + ch if i > 0 else ch
            sym = sym + (suffix or "") if i == len(w) - 1 else sym
            if sym not in w2id:
                decorated.add(sym)
    for sym in sorted(decorated):
        add(sym)
    words: list[list[list[int]]] = []
    counts: list[int] = []
    for w, c in word_counts.items():
        symbols = []
        for i, ch in enumerate(w):
            sym = (prefix or "") + ch if i > 0 else ch
            sym = sym + (suffix or "") if i == len(w) - 1 else sym
            symbols.append([w2id[sym], 1])
        words.append(symbols)
        counts.append(c)
    limit = max_length if max_length is not None else 1 << 62
    pair_counts: dict[tuple[int, int], int] = {}
    where: dict[tuple[int, int], set[int]] = {}
    for i, word in enumerate(words):
        for j in range(len(word) - 1):
            p = (word[j][0], word[j + 1][0])
            pair_counts[p] = pair_counts.get(p, 0) + counts[i]
            where.setdefault(p, set()).add(i)
    heap: list[tuple[int, tuple[int, int], int, set[int]]] = []
    order = itertools.count()
    for p, pos in where.items():
        if pair_counts[p] > 0:
            heapq.heappush(heap, (-pair_counts[p], p, next(order), pos))
    merges: list[tuple[str, str]] = []
    while len(w2id) < vocab_size and heap:
        neg, p, _, pos = heapq.heappop(heap)
        # HF: `top.count != pair_counts[&pair] as u64`: a negative i32 count becomes huge.
        current = pair_counts[p] if pair_counts[p] >= 0 else pair_counts[p] + (1 << 64)
        if -neg != current:
            heapq.heappush(heap, (-current, p, next(order), pos))
            continue
        if -neg < 1 or min_frequency > -neg:
            break
        b = id2w[p[1]]
        if prefix is not None and b.startswith(prefix):
            b = b[len(prefix):]
        new = add(id2w[p[0]] + b)
        merges.append((id2w[p[0]], id2w[p[1]]))
        gained: dict[tuple[int, int], set[int]] = {}
        for wi in sorted(pos):
            sy = words[wi]
            i = 0
            while i < len(sy):
                if sy[i][0] == p[0] and i + 1 < len(sy) and sy[i + 1][0] == p[1]:
                    first, second = sy[i], sy[i + 1]
                    merged = [new, first[1] + second[1]]
                    changes = []
                    if i > 0:
                        changes.append(((sy[i - 1][0], first[0]), -1))
                        if sy[i - 1][1] + merged[1] < limit:
                            changes.append(((sy[i - 1][0], new), 1))
                    sy[i : i + 2] = [merged]
                    if i < len(sy) - 1:
                        changes.append(((second[0], sy[i + 1][0]), -1))
                        if sy[i + 1][1] + merged[1] < limit:
                            changes.append(((new, sy[i + 1][0]), 1))
                    for pair, change in changes:
                        pair_counts[pair] = pair_counts.get(pair, 0) + change * counts[wi]
                        if change > 0:
                            gained.setdefault(pair, set()).add(wi)
                i += 1
        for pair, pos_set in gained.items():
            if pair_counts[pair] > 0:
                heapq.heappush(heap, (-pair_counts[pair], pair, next(order), pos_set))
    return merges


words_strategy = st.dictionaries(
    st.text(alphabet="abc", min_size=1, max_size=12), st.integers(min_value=1, max_value=6), min_size=1, max_size=10
)


@settings(max_examples=150, deadline=None)
@given(words=words_strategy, vocab_size=st.integers(min_value=3, max_value=50), min_frequency=st.integers(0, 4))
def test_run_equals_the_oracle(words: dict[str, int], vocab_size: int, min_frequency: int) -> None:
    run = trained(words, vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=["ab", "<s>"])
    assert run.merges == oracle_merges(words, vocab_size, min_frequency=min_frequency, special=("ab", "<s>"))


@settings(max_examples=150, deadline=None)
@given(words=words_strategy, vocab_size=st.integers(min_value=3, max_value=50), max_length=st.integers(1, 6))
def test_run_equals_the_oracle_with_max_token_length(words: dict[str, int], vocab_size: int, max_length: int) -> None:
    run = trained(words, vocab_size=vocab_size, max_token_length=max_length)
    assert run.merges == oracle_merges(words, vocab_size, max_length=max_length)


@settings(max_examples=150, deadline=None)
@given(
    words=words_strategy,
    vocab_size=st.integers(min_value=3, max_value=50),
    prefix=st.sampled_from([None, "a", "##"]),
    suffix=st.sampled_from([None, "a", "b", "</w>"]),
    max_length=st.sampled_from([None, 3]),
)
def test_run_equals_the_oracle_with_decorations_and_collisions(
    words: dict[str, int], vocab_size: int, prefix: str | None, suffix: str | None, max_length: int | None
) -> None:
    run = trained(
        words, vocab_size=vocab_size, continuing_subword_prefix=prefix, end_of_word_suffix=suffix, max_token_length=max_length
    )
    assert run.merges == oracle_merges(words, vocab_size, prefix=prefix, suffix=suffix, max_length=max_length)


def test_the_alphabet_need_is_the_initial_vocabulary_before_any_merge() -> None:
    # {"ab": 1, "b": 1} with [UNK], prefix ## and suffix </w>: [UNK], a, b; then the forms the
    # words need: a (first) stays a, b last in "ab" is ##b</w>, b alone is b</w>
    run = BpeTrainer(
        vocab_size=3, special_tokens=["[UNK]"], continuing_subword_prefix="##", end_of_word_suffix="</w>"
    ).start({"ab": 1, "b": 1})
    need = run.alphabet_need()
    assert need == AlphabetNeed(2, 1, 2, "continuing and end-of-word forms (##x, x</w>)", "keep fewer characters with limit_alphabet")
    assert need.required == run.initial_vocab_size == 5
    assert str(need.error(3)) == (
        "vocab_size 3 is smaller than the 5 tokens the alphabet needs (2 characters + 2 continuing and end-of-word "
        "forms (##x, x</w>) + 1 special token): choose at least 5, or keep fewer characters with limit_alphabet"
    )
    # as HF: the run goes on all the same, and keeps its whole alphabet
    run.run_to_end()
    assert len(run.vocab) == 5 and run.merges == []


def test_asking_for_the_alphabet_first_changes_no_merge() -> None:
    asked = BpeTrainer(vocab_size=40).start(dict(TEXT_WORDS))
    assert asked.alphabet_need().required == len(set("".join(TEXT_WORDS)))
    asked.run_to_end(SilentProgress())
    assert asked.merges == trained(dict(TEXT_WORDS), vocab_size=40).merges == oracle_merges(TEXT_WORDS, 40)
    byte_level = BpeTrainer(vocab_size=100, initial_alphabet=["a", "b"], limit_alphabet=1).start({"xy": 1})
    assert byte_level.alphabet_need().hint == ""  # (an initial alphabet is kept whatever the limit)
