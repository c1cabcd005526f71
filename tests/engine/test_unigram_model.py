"""The Unigram model and its lattice: Viterbi with HF's semantics (unknowns, fusing, byte
fallback, ties), n-best, sampling, forward-backward, JSON and files.

The hand-checkable case: pieces a, b, ab, c over "abc" have exactly 2 segmentations with unk-free
paths [ab, c] and [a, b, c]; everything (n-best, sample frequencies, marginals) is checked on it.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path

import pytest

from engine import models
from engine.errors import EngineError, SchemaError
from engine.models.base import Token
from engine.models.unigram.lattice import Lattice, PieceIndex, log_sum_exp
from engine.models.unigram.model import Unigram

# HF's own test vocabulary (models/unigram/model.rs, test_encode2)
HF_PIECES = [
    ("<unk>", 0.0),
    ("ab", 0.0),
    ("cd", -0.1),
    ("abc", -0.2),
    ("a", -0.3),
    ("b", -0.4),
    ("c", -0.5),
    ("ABC", -0.5),
    ("abcdabcd", 20.0),
    ("q", 20.5),
    ("r", 20.5),
    ("qr", -0.5),
]

TINY = [("<unk>", 0.0), ("a", math.log(0.2)), ("b", math.log(0.3)), ("ab", math.log(0.1)), ("c", math.log(0.4))]


def values(tokens: list[Token]) -> list[str]:
    return [token.value for token in tokens]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("abc", ["abc"]),
        ("AB", ["AB"]),
        ("abcd", ["ab", "cd"]),
        ("abcc", ["abc", "c"]),
        ("xabcabaabcdd", ["x", "abc", "ab", "a", "ab", "cd", "d"]),
        ("xyz東京", ["xyz東京"]),
        ("ABC", ["ABC"]),
        ("abABCcd", ["ab", "ABC", "cd"]),
        ("ababcdabcdcd", ["ab", "abcdabcd", "cd"]),
        ("abqrcd", ["ab", "q", "r", "cd"]),
    ],
)
def test_hf_reference_segmentations(text: str, expected: list[str]) -> None:
    assert values(Unigram(HF_PIECES, 0).tokenize(text)) == expected


def test_ids_and_char_offsets() -> None:
    model = Unigram(HF_PIECES, 0)
    assert model.tokenize_run("x東abc").tokens() == [Token(0, "x東", 0, 2), Token(3, "abc", 2, 5)]
    # `tokenize` counts UTF-8 bytes, as HF's Model.tokenize does
    assert model.tokenize("x東abc") == [Token(0, "x東", 0, 4), Token(3, "abc", 4, 7)]
    assert model.tokenize("") == []


def test_hf_docstring_example() -> None:
    pieces = [("<unk>", 0.0), ("a", 0.0), ("b", 0.0), ("c", 0.0), ("d", 0.0), ("cd", 1.0), ("ab", 2.0), ("abc", 5.0), ("abcd", 10.0)]
    assert values(Unigram(pieces, 0).tokenize("abcdacdxx")) == ["abcd", "a", "cd", "xx"]


def test_ties_go_to_the_longer_last_piece() -> None:
    # "abc" = [ab, c] or [a, bc], both scoring -2: HF keeps the path whose last piece starts first
    model = Unigram([("<unk>", 0.0), ("a", -1.0), ("ab", -1.0), ("bc", -1.0), ("c", -1.0), ("b", -5.0)], 0)
    assert values(model.tokenize("abc")) == ["a", "bc"]


def test_unknown_score_is_min_score_minus_ten() -> None:
    model = Unigram([("<unk>", 0.0), ("a", -3.0), ("xy", -25.0)], 0)
    assert model.min_score == -25.0
    # "xy" as a piece (-25) beats two unknown chars (2 * -35)
    assert model.tokenize("xy") == [Token(2, "xy", 0, 2)]
    ((tokens, score),) = model.nbest("z", 1)
    assert score == -35.0 and tokens == [Token(0, "z", 0, 1)]


def test_byte_fallback() -> None:
    # HF's test: "é" is not a piece, its two UTF-8 bytes are
    model = Unigram([("<unk>", 0.0), ("<0xC3>", -0.01), ("<0xA9>", -0.03)], 0, byte_fallback=True)
    assert model.tokenize_run("é").tokens() == [Token(1, "<0xC3>", 0, 1), Token(2, "<0xA9>", 0, 1)]
    assert model.tokenize("é") == [Token(1, "<0xC3>", 0, 2), Token(2, "<0xA9>", 0, 2)]  # bytes, as HF
    # "?" has no byte piece: the whole fused unknown run becomes unk
    assert model.tokenize_run("?é").tokens() == [Token(0, "?é", 0, 2)]
    # byte_fallback without byte pieces is accepted and falls back to unk, as in HF
    assert Unigram([("<unk>", 0.0)], 0, byte_fallback=True).tokenize("é") == [Token(0, "é", 0, 2)]


def test_missing_unk() -> None:
    model = Unigram([("a", -1.0)], None)
    assert values(model.tokenize("aa")) == ["a", "a"]
    with pytest.raises(EngineError, match="unk_id"):
        model.tokenize("ab")


def test_constructor_errors_and_default() -> None:
    with pytest.raises(ValueError, match="larger than vocabulary size"):
        Unigram([("a", 0.0)], 1)
    with pytest.raises(ValueError, match="empty"):
        Unigram([], 0)
    with pytest.raises(ValueError, match="both specified"):
        Unigram(None, 0)
    default = Unigram()
    assert default.pieces == [("<unk>", 0.0)] and default.unk_id == 0
    assert values(default.tokenize("hi")) == ["hi"]


def test_vocab_accessors() -> None:
    model = Unigram(HF_PIECES, 0)
    assert model.get_vocab_size() == len(HF_PIECES)
    assert model.token_to_id("abc") == 3 and model.token_to_id("zzz") is None
    assert model.id_to_token(3) == "abc" and model.id_to_token(99) is None
    assert model.get_vocab()["qr"] == 11
    assert model.pieces == HF_PIECES


def test_json_round_trip(tmp_path: Path) -> None:
    model = Unigram(TINY, 0, byte_fallback=True)
    data = model.to_dict()
    assert list(data) == ["type", "unk_id", "vocab", "byte_fallback"]
    again = models.from_dict(json.loads(json.dumps(data)))
    assert isinstance(again, Unigram)
    assert again.pieces == TINY and again.unk_id == 0 and again.byte_fallback
    assert models.from_dict({"vocab": [["a", -1.0]], "unk_id": None}).get_vocab() == {"a": 0}
    (path,) = model.save(str(tmp_path), "tiny")
    assert Path(path).name == "tiny-unigram.json"
    assert json.loads(Path(path).read_text(encoding="utf-8")) == data
    assert Path(model.save(str(tmp_path))[0]).name == "unigram.json"


@pytest.mark.parametrize(
    "data",
    [
        {"type": "Unigram"},
        {"type": "Unigram", "vocab": [["a"]]},
        {"type": "Unigram", "vocab": [["a", "x"]]},
        {"type": "Unigram", "vocab": [["a", 0.0]], "unk_id": 3},
        {"type": "Unigram", "vocab": [["a", 0.0]], "unk_id": -1},
    ],
)
def test_bad_json(data: dict[str, object]) -> None:
    with pytest.raises(SchemaError):
        models.from_dict(data)


# -- n-best, sampling, marginals on a hand-checkable lattice ------------------------------------


def all_segmentations(model: Unigram, text: str) -> list[tuple[list[str], float]]:
    """Every segmentation of `text` into the model's pieces, with its score (brute force)."""
    vocab = {piece: score for piece, score in model.pieces if piece != "<unk>"}
    found: list[tuple[list[str], float]] = []
    for cuts in itertools.product([False, True], repeat=len(text) - 1):
        parts: list[str] = []
        start = 0
        for i, cut in enumerate(cuts, 1):
            if cut:
                parts.append(text[start:i])
                start = i
        parts.append(text[start:])
        if all(part in vocab for part in parts):
            found.append((parts, sum(vocab[part] for part in parts)))
    return found


def test_nbest_hand_checked() -> None:
    model = Unigram(TINY, 0)
    result = model.nbest("abc", 5)
    # [a, b, c] = 0.2 * 0.3 * 0.4 = 0.024 beats [ab, c] = 0.1 * 0.4 = 0.04? no: 0.04 > 0.024
    assert [values(tokens) for tokens, _ in result] == [["ab", "c"], ["a", "b", "c"]]
    assert result[0][1] == pytest.approx(math.log(0.04))
    assert result[1][1] == pytest.approx(math.log(0.024))
    assert model.nbest("abc", 1)[0][0] == model.tokenize("abc")
    assert model.nbest("", 3) == [] and model.nbest("abc", 0) == []


def test_nbest_matches_brute_force() -> None:
    model = Unigram(HF_PIECES, 0)
    text = "abcdabcdab"
    expected = sorted(all_segmentations(model, text), key=lambda item: -item[1])
    got = model.nbest(text, 8)
    assert [score for _, score in got] == pytest.approx([score for _, score in expected[:8]])
    assert all("".join(values(tokens)) == text for tokens, _ in got)


def test_sample_is_a_segmentation() -> None:
    model = Unigram(HF_PIECES, 0)
    rng = random.Random(7)
    for text in ["abcdabcdab", "xabcqrz", "ab東京cd"]:
        for _ in range(20):
            tokens = model.sample(text, 0.5, rng)
            assert "".join(values(tokens)) == text
            assert [t.start for t in tokens[1:]] == [t.end for t in tokens[:-1]]
    assert model.sample("", 1.0, rng) == []


def test_sample_with_huge_alpha_is_viterbi() -> None:
    model = Unigram(HF_PIECES, 0)
    rng = random.Random(1)
    for text in ["abcdabcdab", "xabcabaabcdd", "abqrcd"]:
        assert model.sample(text, 1000.0, rng) == model.tokenize(text)


def test_sample_frequencies_follow_path_probabilities() -> None:
    # P([ab, c]) = 0.04 / 0.064 = 0.625 and P([a, b, c]) = 0.375 at alpha 1
    model = Unigram(TINY, 0)
    rng = random.Random(1234)
    draws = 8000
    count = sum(1 for _ in range(draws) if values(model.sample("abc", 1.0, rng)) == ["ab", "c"])
    assert count / draws == pytest.approx(0.625, abs=0.02)
    # alpha 0: every segmentation is equally likely
    count = sum(1 for _ in range(draws) if values(model.sample("abc", 0.0, rng)) == ["ab", "c"])
    assert count / draws == pytest.approx(0.5, abs=0.02)


def test_lattice_api_for_trainers() -> None:
    index = PieceIndex({"a": 0, "b": 1, "ab": 2}, [-1.0, -1.0, -1.5], unk_id=None, unk_score=-11.5)
    assert index.trie.longest == 2
    lattice = index.lattice("aab")
    assert lattice.pieces(lattice.viterbi()) == ["a", "ab"]
    assert lattice.path_score(lattice.viterbi()) == -2.5
    assert [lattice.pieces(path) for path, _ in lattice.nbest(3)] == [["a", "ab"], ["a", "a", "b"]]
    with pytest.raises(EngineError):
        index.lattice("abc")
    by_hand = Lattice("ab")
    by_hand.insert(0, 1, 0, -1.0)
    by_hand.insert(0, 2, 2, -1.5)
    by_hand.insert(1, 2, 1, -1.0)
    assert by_hand.pieces(by_hand.viterbi()) == ["ab"]
    assert by_hand.forward(1.0)[2] == pytest.approx(math.log(math.exp(-1.5) + math.exp(-2.0)))
    assert log_sum_exp(0.0, 0.0) == pytest.approx(math.log(2.0))
    assert log_sum_exp(0.0, -100.0) == 0.0
