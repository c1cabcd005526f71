"""engine.inspection: the pipeline trace equals each component's own output, the round trip's
verdict and causes, counts, shared spans and the boundaries columns do not share."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Tokenizer, decoders, models, normalizers, pre_tokenizers
from engine.inspection import (
    ADVICE,
    CAUSE_ACCENTS,
    CAUSE_JOINED,
    CAUSE_LOWERCASE,
    CAUSE_SPACES,
    CAUSE_UNKNOWN,
    CAUSE_UNKNOWN_SKIPPED,
    content_tokens,
    counts,
    round_trip,
    shared_spans,
    trace,
    unshared_boundaries,
)
from support import train_byte_level

TEXT = ["The Café served naïve guests.", "Hello world, hello again!", "low lower lowest"] * 5


def byte_level() -> Tokenizer:
    return train_byte_level(TEXT, 300)


def lowercasing() -> Tokenizer:
    tokenizer = Tokenizer(models.WordPiece({"[UNK]": 0, "the": 1, "cafe": 2, "hello": 3, ",": 4, "world": 5, "!": 6}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    return tokenizer


@pytest.mark.parametrize("make", [byte_level, lowercasing], ids=["byte-level", "lowercasing"])
def test_each_stage_equals_the_components_own_output(make: object) -> None:
    assert callable(make)
    tokenizer: Tokenizer = make()
    text = "The Café said: Hello, World! 😀"
    found = trace(tokenizer, text)
    normalizer = tokenizer.normalizer
    normalized = normalizer.normalize_str(text) if normalizer is not None else text
    assert found.normalized == normalized
    assert len(found.alignments) == len(normalized)
    assert tokenizer.pre_tokenizer is not None
    expected_pieces = tokenizer.pre_tokenizer.pre_tokenize_str(normalized)
    assert [piece for piece, _, _ in found.pieces] == [piece for piece, _ in expected_pieces]
    assert [[token for _, token, _, _ in tokens] for tokens in found.model_tokens] == [
        [t.value for t in tokenizer.model.tokenize(piece)] for piece, _ in expected_pieces
    ]
    encoding = tokenizer.encode(text)
    assert found.encoding.ids == encoding.ids and found.encoding.offsets == encoding.offsets
    assert found.round_trip.decoded == tokenizer.decode(encoding.ids)
    # every piece's original span covers the original text the piece came from
    for piece, start, end in found.pieces:
        assert 0 <= start < end <= len(text)


def test_a_byte_level_round_trip_is_exact() -> None:
    tokenizer = byte_level()
    text = "The Café served naïve guests. 😀 and\ttabs"
    result = round_trip(tokenizer, text, tokenizer.encode(text))
    assert result.exact and result.decoded == text and result.causes == []


def test_a_lowercasing_round_trip_names_its_causes() -> None:
    tokenizer = lowercasing()
    text = "The Café, Hello World!"
    result = round_trip(tokenizer, text, tokenizer.encode(text))
    assert not result.exact
    assert result.decoded == "the cafe, hello world!"
    causes = {difference.cause for difference in result.differences}
    assert CAUSE_LOWERCASE in causes and CAUSE_ACCENTS in causes
    for difference in result.differences:
        assert text[difference.start : difference.end].lower().replace("é", "e") == result.decoded[difference.decoded_start : difference.decoded_end]


def test_unknown_tokens_and_spaces_are_named() -> None:
    tokenizer = Tokenizer(models.WordLevel({"a": 0, "b": 1, "[UNK]": 2}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    result = round_trip(tokenizer, "a  b zz", tokenizer.encode("a  b zz"))
    assert result.decoded == "a b [UNK]"
    assert [d.cause for d in result.differences] == [CAUSE_JOINED, CAUSE_UNKNOWN]
    # with a decoder, its spaces are its own; an unknown token that is special is left out
    tokenizer.decoder = decoders.WordPiece()
    tokenizer.add_special_tokens(["[UNK]"])
    result = round_trip(tokenizer, "a  b zz", tokenizer.encode("a  b zz"))
    assert result.decoded == "a b"
    assert [d.cause for d in result.differences] == [CAUSE_SPACES, CAUSE_UNKNOWN_SKIPPED]
    assert all(cause in ADVICE for cause in result.causes)


def test_counts_and_shared_spans() -> None:
    tokenizer = byte_level()
    encoding = tokenizer.encode("ab 😀")
    assert content_tokens(encoding) == len(encoding.ids)
    shared = shared_spans(encoding.offsets)
    assert [(start, end) for start, end, _ in shared] == [(3, 4)]  # the emoji's four bytes
    assert len(shared[0][2]) >= 2
    found = counts("Hello, world", 4)
    assert (found.characters, found.bytes, found.words, found.tokens) == (12, 12, 3, 4)
    assert found.characters_per_token == 3.0 and found.tokens_per_word == pytest.approx(4 / 3)


def test_unshared_boundaries_on_a_hand_checked_case() -> None:
    # "unhappiness": A = un|happi|ness, B = un|happ|iness, C = unhappi|ness
    a = [(0, 2), (2, 7), (7, 11)]
    b = [(0, 2), (2, 6), (6, 11)]
    c = [(0, 7), (7, 11)]
    assert unshared_boundaries([a, b, c]) == [[2, 7], [2, 6], [7]]
    assert unshared_boundaries([a, a]) == [[], []]


def test_trace_of_real_bert(corpora: Path) -> None:
    tokenizer = Tokenizer.from_file(str(corpora / "bert_uncased_tokenizer.json"))
    found = trace(tokenizer, "Héllo WORLD")
    assert found.normalized == "hello world"
    assert [piece for piece, _, _ in found.pieces] == ["hello", "world"]
    assert [(start, end) for _, start, end in found.pieces] == [(0, 5), (6, 11)]
    # this file pads every encoding to 128 tokens, as the model was used
    assert found.encoding.tokens[:4] == ["[CLS]", "hello", "world", "[SEP]"]
    assert set(found.encoding.tokens[4:]) == {"[PAD]"} and content_tokens(found.encoding) == 2
    assert not found.round_trip.exact and CAUSE_LOWERCASE in found.round_trip.causes
