"""UnigramTrainer: the seed substrings, the E-step against brute force, the rounds, the final
vocabulary, options and settings. Quality against sentencepiece is tests/parity's."""

from __future__ import annotations

import math
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Tokenizer, models, pre_tokenizers, trainers
from engine.errors import EngineError, TrainerMismatchError, TrainingCancelled, VocabularyTooSmallError
from engine.progress import ProgressSink, TrainProgress
from engine.trainers.base import AlphabetNeed
from engine.trainers.records import PairCandidate, RoundStep
from librt.vecs import vec
from mypy_extensions import i64

from engine.models.unigram.seeds import char_counts, frequent_substrings, make_seed_pieces, ordered_substrings, required_chars
from engine.models.unigram.pruning import stable_order
from engine.models.unigram.suffix_sort import PackedText, sort_suffixes
from engine.models.unigram.trainer import UnigramTrainer
from engine.models.unigram.training_run import digamma

WORDS = {
    "▁the": 40, "▁then": 9, "▁there": 12, "▁other": 7, "▁these": 5, "▁brother": 3, "▁theatre": 2,
    "▁that": 20, "▁this": 18, "▁thistle": 1, "▁hat": 4, "▁sat": 3, "▁at": 11, "▁a": 30, "▁an": 8,
}


def segmentations_of(word: str, scores: dict[str, float]) -> list[list[str]]:
    """Every split of `word` into pieces of `scores` (brute force)."""
    if not word:
        return [[]]
    result = []
    for end in range(1, len(word) + 1):
        head = word[:end]
        if head in scores:
            for rest in segmentations_of(word[end:], scores):
                result.append([head, *rest])
    return result


# -- pieces of the algorithm ----------------------------------------------------------------


def test_digamma_matches_known_values() -> None:
    assert digamma(1.0) == pytest.approx(-0.5772156649, abs=1e-9)
    assert digamma(0.5) == pytest.approx(-1.9635100260, abs=1e-9)
    assert digamma(10.0) == pytest.approx(2.2517525891, abs=1e-9)


def test_frequent_substrings_are_repeated_and_branching() -> None:
    # "▁ab" and "ab" are followed by "c" and "d": nodes; "▁a" only by "b": not one.
    assert frequent_substrings(["▁abc", "▁abd"], [1, 1], 16) == {"▁ab": 2, "ab": 2}
    # a word seen 3 times: its end is followed by whatever comes next, so it counts.
    assert frequent_substrings(["▁ab"], [3], 16) == {"▁ab": 3, "ab": 3}
    # a word-final substring shared by two words, and branching elsewhere: one count, the node's.
    found = frequent_substrings(["▁xab", "▁yab", "▁abs"], [1, 1, 1], 16)
    assert found["ab"] == 3
    assert "▁x" not in found  # seen once
    # max_length bounds the substrings
    assert frequent_substrings(["▁abc", "▁abd"], [1, 1], 2) == {"ab": 2}


def branching_substrings(words: list[str], counts: list[int], max_length: int, ends_branch: bool = True) -> dict[str, int]:
    """`frequent_substrings` by its definition, by brute force: every substring of 2 to
    `max_length` chars seen at least twice (weighted) that is followed by at least two
    different things, where each occurrence of a word at its end is followed by something
    different (the next word varies), or (not `ends_branch`: whole sentences) by one same end."""
    weight: dict[str, int] = {}
    followers: dict[str, set[object]] = {}
    for k, (word, count) in enumerate(zip(words, counts)):
        for start in range(len(word)):
            for end in range(start + 2, min(start + max_length, len(word)) + 1):
                piece = word[start:end]
                weight[piece] = weight.get(piece, 0) + count
                after = followers.setdefault(piece, set())
                if end < len(word):
                    after.add(word[end])
                elif ends_branch:
                    after.update((k, copy) for copy in range(count))
                else:
                    after.add(None)
    return {piece: w for piece, w in weight.items() if w >= 2 and len(followers[piece]) >= 2}


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.text("abc▁", min_size=1, max_size=9), st.integers(1, 3), min_size=1, max_size=8)
    | st.dictionaries(st.text("ab", min_size=1, max_size=40), st.integers(1, 3), min_size=1, max_size=30),
    st.integers(2, 5),
    st.booleans(),
)
def test_frequent_substrings_equal_the_brute_force_definition(counted: dict[str, int], max_length: int, ends_branch: bool) -> None:
    words = sorted(counted)
    counts = [counted[word] for word in words]
    expected = branching_substrings(words, counts, max_length, ends_branch)
    assert frequent_substrings(words, counts, max_length, ends_branch) == expected
    # in code-point order, which make_seed_pieces' ties rely on
    texts, weights = ordered_substrings(words, counts, max_length, ends_branch)
    assert texts == sorted(expected)
    assert weights == [expected[text] for text in texts]


def cut_suffix(codes: list[int], start: int, cut: int) -> list[int]:
    """The suffix of `codes` at `start`, its first `cut` codes, up to its end mark (0) included."""
    out: list[int] = []
    for code in codes[start : start + cut]:
        out.append(code)
        if code == 0:
            break
    return out


def test_sort_suffixes_orders_the_cut_suffixes() -> None:
    # [a b 0 a c 0] (a=1, b=2, c=3), cut 2: "ab", "ac", "b", "c"
    starts = vec[i64]([0, 1, 3, 4])
    sort_suffixes(vec[i64]([1, 2, 0, 1, 3, 0]), starts, 2)
    assert list(starts) == [0, 3, 1, 4]
    packed = PackedText(vec[i64]([1, 2, 0, 1, 3, 0]))
    assert (packed.bits, packed.per_key) == (2, 31)
    assert packed.keys[0] == (1 << 60) | (2 << 58)  # a, b, then the end mark and nothing
    assert packed.keys[2] == 0


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.integers(1, 4) | st.integers(1, 70) | st.integers(1, 0x110000), min_size=1, max_size=60), min_size=1, max_size=12),
    st.integers(1, 30),
)
def test_sort_suffixes_equals_sorting_the_cut_suffixes(words: list[list[int]], cut: int) -> None:
    # (alphabets of 2 to 21 bits a rank: a step of 3 to 31 chars, the cut inside a step or not)
    codes: list[int] = []
    starts: list[int] = []
    for word in words:
        for code in word:
            starts.append(len(codes))
            codes.append(code)
        codes.append(0)
    order = vec[i64](starts)
    sort_suffixes(vec[i64](codes), order, cut)
    assert sorted(order) == sorted(starts)
    got = [cut_suffix(codes, start, cut) for start in order]
    assert got == sorted(cut_suffix(codes, start, cut) for start in starts)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([-1.5, -0.0, 0.0, 0.25, 2.0, float("inf"), float("-inf")]) | st.floats(), max_size=80))
def test_stable_order_is_pythons_stable_sort(keys: list[float]) -> None:
    # (ties, signed zeros, infinities; a NaN hands the job to Python's sort)
    assert list(stable_order(vec[float](keys))) == sorted(range(len(keys)), key=keys.__getitem__)
    assert list(stable_order(vec[float]([0.5, -1.0, 0.5]))) == [1, 0, 2]


def test_char_counts_weighs_words_by_their_counts() -> None:
    assert char_counts(["ab", "b"], [2, 1]) == {"a": 2, "b": 3}
    assert char_counts(["日本", "本😀", "😀"], [1, 2, 3]) == {"日": 1, "本": 3, "😀": 5}
    assert list(char_counts(["😀é日a", "a"], [1, 1])) == ["a", "é", "日", "😀"]


def test_seed_pieces_are_characters_then_substrings_by_count_times_length() -> None:
    seeds = make_seed_pieces(["▁ab", "▁b"], [3, 1], 16, 1000)
    # characters by count (b: 4, ▁: 4, a: 3; ties in code-point order), then substrings
    assert seeds.pieces[: seeds.n_chars] == ["b", "▁", "a"]
    assert seeds.pieces[seeds.n_chars :] == ["▁ab", "ab"]  # 3 x 3, then 3 x 2
    values = [4.0, 4.0, 3.0, 9.0, 6.0]
    assert seeds.scores == pytest.approx([math.log(v / sum(values)) for v in values])
    capped = make_seed_pieces(["▁ab", "▁b"], [3, 1], 16, 4)
    assert capped.pieces == ["b", "▁", "a", "▁ab"]


def test_required_chars_are_by_count_then_the_initial_alphabet() -> None:
    assert required_chars(["ab", "b"], [2, 1], ["c", "a"]) == ["b", "a", "c"]


# -- the E-step ---------------------------------------------------------------------------


def test_expected_counts_equal_brute_force_marginals() -> None:
    words = {"▁ab": 3, "▁abab": 2, "▁b": 2, "▁ba": 1}
    run = UnigramTrainer(vocab_size=8).start(words)
    step = run.step()
    assert isinstance(step, RoundStep) and step.phase == "seed"
    scores = dict(run.pieces)
    expected: dict[str, float] = dict.fromkeys(scores, 0.0)
    log_likelihood = 0.0
    for word, count in words.items():
        splits = segmentations_of(word, scores)
        weights = [math.exp(sum(scores[piece] for piece in split)) for split in splits]
        z = sum(weights)
        log_likelihood += count * math.log(z)
        for split, weight in zip(splits, weights):
            for piece in split:
                expected[piece] += count * weight / z
    assert step.log_likelihood == pytest.approx(log_likelihood, rel=1e-9)
    got = run.expected_counts()
    assert got.keys() == expected.keys()
    for piece in expected:
        assert got[piece] == pytest.approx(expected[piece], rel=1e-9, abs=1e-12), piece


def test_em_rounds_rescore_by_digamma_and_drop_rare_pieces() -> None:
    run = UnigramTrainer(vocab_size=20).start(WORDS)
    run.step()
    expected = run.expected_counts()
    kept = {piece: count for piece, count in expected.items() if count >= 0.5}
    step = run.step()
    assert isinstance(step, RoundStep) and step.phase == "EM"
    assert step.removed == len(expected) - len(kept)
    total = digamma(sum(kept.values()))
    scores = dict(run.pieces)
    assert scores.keys() == kept.keys()
    for piece, count in kept.items():
        assert scores[piece] == pytest.approx(digamma(count) - total)


# -- whole runs ---------------------------------------------------------------------------


def test_rounds_go_seed_em_prune_then_finalize() -> None:
    words = {f"▁{a}{b}{c}": 1 + (i * 7) % 5 for i, (a, b, c) in enumerate((a, b, c) for a in "abcdefg" for b in "hijk" for c in "lmno")}
    run = UnigramTrainer(vocab_size=40, n_sub_iterations=2).start(words)
    run.run_to_end()
    phases = [step.phase for step in run.history.rounds]
    assert phases[0] == "seed" and phases[-1] == "finalize"
    assert "prune" in phases
    for i, phase in enumerate(phases[1:-1], start=1):
        if phase == "prune":
            assert phases[i - 2 : i] == ["EM", "EM"]
    sizes = [step.vocab_size for step in run.history.rounds[:-1]]
    assert sizes == sorted(sizes, reverse=True)
    assert run.history.rounds[-1].vocab_size == len(run.vocab) == 40
    assert all(step.log_likelihood is not None and step.log_likelihood < 0 for step in run.history.rounds)


def test_final_vocabulary_has_specials_first_then_pieces_by_score() -> None:
    trainer = UnigramTrainer(vocab_size=30, special_tokens=["<pad>", "<s>"], unk_token="<unk>")
    run = trainer.start(WORDS)
    run.run_to_end()
    pieces = run.final_pieces()
    assert 20 < len(pieces) <= 30  # EM may leave fewer pieces than asked for, as sentencepiece's
    assert pieces[:3] == [("<unk>", 0.0), ("<pad>", 0.0), ("<s>", 0.0)]
    assert run.unk_id() == 0
    scores = [score for _, score in pieces[3:]]
    assert scores == sorted(scores, reverse=True)
    # every character of the words stays, whatever the pruning did
    assert set("".join(WORDS)) <= {piece for piece, _ in pieces}
    model = models.Unigram(byte_fallback=True)
    assert [token.content for token in trainer.apply(run, model)] == ["<pad>", "<s>"]
    assert model.pieces == pieces and model.unk_id == 0 and model.byte_fallback
    assert [token.value for token in model.tokenize("▁the")] == ["▁the"]


def test_unk_token_among_the_special_tokens_keeps_its_place() -> None:
    run = UnigramTrainer(vocab_size=25, special_tokens=["<s>", "<unk>"], unk_token="<unk>").start(WORDS)
    run.run_to_end()
    assert [piece for piece, _ in run.final_pieces()[:2]] == ["<s>", "<unk>"]
    assert run.unk_id() == 1
    assert UnigramTrainer(vocab_size=25).start(WORDS).unk_id() is None


def test_training_is_deterministic_whatever_the_word_order() -> None:
    trainer = UnigramTrainer(vocab_size=24)
    first = trainer.start(WORDS)
    first.run_to_end()
    second = trainer.start(dict(reversed(list(WORDS.items()))))
    second.run_to_end()
    assert first.final_pieces() == second.final_pieces()
    assert first.history == second.history


def test_a_run_stopped_early_still_gives_a_valid_model() -> None:
    trainer = UnigramTrainer(vocab_size=20, unk_token="<unk>")
    run = trainer.start(WORDS)
    before = run.final_pieces()  # before any round: the unk token and the characters
    assert before[0] == ("<unk>", 0.0) and {piece for piece, _ in before[1:]} == set("".join(WORDS))
    run.step()
    model = models.Unigram()
    trainer.apply(run, model)
    assert model.get_vocab_size() == 20
    assert model.get_vocab() == run.vocab


def test_top_candidates_are_the_pieces_the_next_prune_drops_first() -> None:
    run = UnigramTrainer(vocab_size=20).start(WORDS)
    assert run.top_candidates(3) == []  # nothing seeded yet
    run.step()
    candidates = run.top_candidates(5)
    assert 0 < len(candidates) <= 5
    assert all(isinstance(c, PairCandidate) for c in candidates)
    losses = [c.rank_value for c in candidates]
    assert losses == sorted(losses)
    for candidate in candidates:
        # the replacement spells the piece
        assert candidate.right.replace(" ", "") == candidate.left and " " in candidate.right
        assert candidate.count > 0
    run.run_to_end()
    assert run.top_candidates(3) == []


def test_segmentations_follow_the_rounds() -> None:
    run = UnigramTrainer(vocab_size=24).start(WORDS)
    assert run.segmentations(2) == [(["▁", "t", "h", "e"], 40), (["▁", "a"], 30)]
    run.run_to_end()
    assert run.segmentations(2) == [(["▁the"], 40), (["▁a"], 30)]
    run.release()
    assert run.segmentations(2) == [] and len(run.vocab) == 24


def test_too_small_a_vocabulary_is_refused() -> None:
    run = UnigramTrainer(vocab_size=5).start(WORDS)
    with pytest.raises(ValueError, match="choose at least"):
        run.step()


def test_too_small_a_vocabulary_says_the_smallest_size() -> None:
    # as sentencepiece ("Vocabulary size is smaller than required_chars. 1 vs 4."), where HF
    # raises "The vocabulary is not large enough to contain all chars"
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = UnigramTrainer(vocab_size=1, initial_alphabet=["z"], unk_token="<unk>", show_progress=False)
    with pytest.raises(VocabularyTooSmallError) as raised:
        tokenizer.train_from_iterator(["ab ab ba", "c"], trainer)
    assert str(raised.value) == (
        "vocab_size 1 is smaller than the 5 tokens the alphabet needs (4 characters + 1 special token): choose at least 5"
    )
    assert (raised.value.requested, raised.value.required) == (1, 5)
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, EngineError)
    copy = pickle.loads(pickle.dumps(raised.value))
    assert (str(copy), copy.requested, copy.required) == (str(raised.value), 1, 5)
    assert trainer.smallest_vocab_size({"ab": 2, "ba": 1, "c": 0}) == 3  # a, b, and the alphabet's z
    # the smallest size trains: every character a piece, and the unk token
    tokenizer.train_from_iterator(
        ["ab ab ba", "c"], UnigramTrainer(vocab_size=5, initial_alphabet=["z"], unk_token="<unk>", show_progress=False)
    )
    assert set(tokenizer.get_vocab()) == {"<unk>", "a", "b", "c", "z"}


def test_the_alphabet_need_counts_the_characters_and_special_tokens_before_the_seed() -> None:
    # {"ab": 2, "b": 1}: characters a and b, the alphabet's z; <s> and the unk token <unk>
    trainer = UnigramTrainer(vocab_size=4, special_tokens=["<s>"], unk_token="<unk>", initial_alphabet=["z", "a"])
    run = trainer.start({"ab": 2, "b": 1, "c": 0})
    need = run.alphabet_need()
    assert need == AlphabetNeed(3, 2)
    assert need.required == 5 and need.detail() == "3 characters + 2 special tokens"
    # at vocab_size 4 (above the 3 characters) the seed goes on, as HF's does: the vocabulary
    # comes out larger than asked (the workbench refuses it: workbench.core.vocab_size_check)
    run.run_to_end()
    assert len(run.final_pieces()) == 5
    assert run.alphabet_need() == need  # (the same, from the seed's characters)


def test_no_words_gives_the_special_tokens_only() -> None:
    run = UnigramTrainer(vocab_size=10, special_tokens=["<s>"], unk_token="<unk>").start({})
    run.run_to_end()
    assert run.final_pieces() == [("<unk>", 0.0), ("<s>", 0.0)]


class StopAtEm(ProgressSink):
    def report(self, event: TrainProgress) -> bool:
        return event.stage != "EM training" or event.current < 2


def test_cancel_stops_between_rounds() -> None:
    run = UnigramTrainer(vocab_size=20).start(WORDS)
    with pytest.raises(TrainingCancelled):
        run.run_to_end(StopAtEm())
    assert not run.done and len(run.history.rounds) == 3


# -- options, settings, the tokenizer -------------------------------------------------------


def test_defaults_and_settings_round_trip() -> None:
    trainer = UnigramTrainer()
    assert (trainer.vocab_size, trainer.shrinking_factor, trainer.max_piece_length) == (8000, 0.75, 16)
    assert (trainer.n_sub_iterations, trainer.seed_size, trainer.unk_token) == (2, 1_000_000, None)
    custom = UnigramTrainer(
        vocab_size=100, special_tokens=["<s>"], initial_alphabet=["xy", "z"], shrinking_factor=0.5,
        unk_token="<unk>", max_piece_length=8, n_sub_iterations=3, seed_size=500, show_progress=False,
    )
    data = custom.to_dict()
    assert data["type"] == "UnigramTrainer" and data["initial_alphabet"] == ["x", "z"]
    again = trainers.from_dict(data)
    assert isinstance(again, UnigramTrainer) and again.to_dict() == data
    assert isinstance(trainers.default_trainer(models.Unigram()), UnigramTrainer)
    with pytest.raises(ValueError):
        UnigramTrainer(shrinking_factor=0.0)
    with pytest.raises(ValueError):
        UnigramTrainer(vocab_size=-1)


def test_initial_alphabet_characters_join_the_vocabulary() -> None:
    run = UnigramTrainer(vocab_size=30, initial_alphabet=["é", "ß"]).start(WORDS)
    run.run_to_end()
    assert {"é", "ß"} <= set(run.vocab)


def test_a_trainer_refuses_other_models_and_runs() -> None:
    trainer = UnigramTrainer(vocab_size=20)
    with pytest.raises(TrainerMismatchError):
        trainer.check_model(models.BPE())
    with pytest.raises(TrainerMismatchError):
        trainer.apply(trainers.BpeTrainer(vocab_size=30).start(WORDS), models.Unigram())


def test_a_trained_tokenizer_encodes_and_decodes_its_text() -> None:
    text = ["the cat sat on the mat", "the cat ate the rat", "that hat is flat", "a bat and a gnat"] * 10
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    report = tokenizer.train_from_iterator(text, UnigramTrainer(vocab_size=40, unk_token="<unk>", special_tokens=["<unk>"], show_progress=False))
    assert tokenizer.get_vocab_size() <= 40
    assert report.history.rounds[-1].phase == "finalize"
    encoding = tokenizer.encode("the cat sat on the mat")
    assert "".join(encoding.tokens).replace("▁", " ").strip() == "the cat sat on the mat"
    assert "▁the" in encoding.tokens
