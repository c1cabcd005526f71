"""engine.analysis.inspection: the pipeline trace equals each component's own output, the round trip's
verdict and causes, counts, shared spans and the boundaries columns do not share."""

from __future__ import annotations

import difflib
import random
from pathlib import Path

import pytest

from engine import Tokenizer, decoders, models, normalizers, pre_tokenizers
from engine.analysis.inspection import (
    ADVICE,
    CAUSE_ACCENTS,
    CAUSE_CANONICAL,
    CAUSE_COMPATIBILITY,
    CAUSE_JOINED,
    CAUSE_LOWERCASE,
    CAUSE_SPACES,
    CAUSE_UNKNOWN,
    CAUSE_UNKNOWN_SKIPPED,
    content_tokens,
    counts,
    opcodes,
    round_trip,
    shared_spans,
    trace,
    unknown_id,
    unknown_positions,
    unknown_token,
    unshared_boundaries,
)
from engine.formats import convert
from support import bert_id, train_byte_level

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


def test_nfc_composing_is_named_apart_from_compatibility_characters() -> None:
    """NFC's composition of "cafe" + U+0301 is the same text for Unicode: not NFKC's doing, and
    the advice is not "use NFC" (it is NFC); NFKC's "ﬁ" -> "fi" is."""
    tokenizer = byte_level()
    tokenizer.normalizer = normalizers.NFC()
    text = "cafe\u0301"
    result = round_trip(tokenizer, text, tokenizer.encode(text))
    assert result.decoded == "café" and result.causes == [CAUSE_CANONICAL]
    assert not ADVICE[CAUSE_CANONICAL].startswith("use NFC")
    tokenizer.normalizer = normalizers.NFKC()
    text = "ﬁne"
    result = round_trip(tokenizer, text, tokenizer.encode(text))
    assert result.decoded == "fine" and result.causes == [CAUSE_COMPATIBILITY]


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


# -- unknown tokens, told by id ------------------------------------------------------------------


def unigram() -> Tokenizer:
    """A hand-made Unigram with an unk id: "é" is outside its vocabulary."""
    tokenizer = Tokenizer(models.Unigram([("<unk>", 0.0), ("▁", -2.0), ("a", -1.0), ("b", -1.0), ("ab", -1.5), ("▁ab", -1.2)], unk_id=0))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    return tokenizer


def test_a_unigram_unknown_is_told_by_its_id_not_its_string() -> None:
    tokenizer = unigram()
    encoding = tokenizer.encode("ab é")
    # HF's token string for a Unigram unknown is the text itself, not "<unk>"
    assert (encoding.ids, encoding.tokens) == ([5, 1, 0], ["▁ab", "▁", "é"])
    assert (unknown_id(tokenizer), unknown_token(tokenizer)) == (0, "<unk>")
    assert unknown_positions(tokenizer, encoding, "ab é") == [2]
    assert unknown_positions(tokenizer, tokenizer.encode("ab"), "ab") == []
    result = round_trip(tokenizer, "ab é", encoding)
    assert result.decoded == "ab <unk>"
    assert [d.to_tuple() for d in result.differences] == [(3, 4, 3, 8, CAUSE_UNKNOWN)]
    # an unknown token that is special: decoding leaves it out, and the round trip says so
    tokenizer.add_special_tokens(["<unk>"])
    result = round_trip(tokenizer, "ab é", tokenizer.encode("ab é"))
    assert result.decoded == "ab " and [d.to_tuple() for d in result.differences] == [(3, 4, 3, 3, CAUSE_UNKNOWN_SKIPPED)]


def test_a_sentencepiece_model_names_its_unknown_characters(corpora: Path) -> None:
    tokenizer = convert.load(str(corpora / "sp_test_model.model"))
    text = "Ωmega ünï 😀😀"
    encoding = tokenizer.encode(text)
    assert unknown_positions(tokenizer, encoding, text) == [1, 7, 9, 11]
    assert [encoding.tokens[i] for i in [1, 7, 9, 11]] == ["Ω", "ü", "ï", "😀😀"]
    result = round_trip(tokenizer, text, encoding)
    assert result.decoded == " ⁇ mega  ⁇ n ⁇   ⁇ "
    assert result.causes == [CAUSE_UNKNOWN] and len(result.differences) == 4


def test_unknowns_of_the_other_models_and_an_unknown_token_typed_as_text(corpora: Path) -> None:
    bert = Tokenizer.from_file(str(corpora / "bert_uncased_tokenizer.json"))
    assert unknown_positions(bert, bert.encode("hello 😀"), "hello 😀") == [2]
    # "[UNK]" typed is the added token, not an unknown character
    assert bert.encode("hello [UNK]").ids[:3] == [101, bert_id("hello"), 100]  # (7592 in the real vocab)
    assert unknown_positions(bert, bert.encode("hello [UNK]"), "hello [UNK]") == []
    level = Tokenizer(models.WordLevel({"a": 0, "b": 1, "[UNK]": 2}, unk_token="[UNK]"))
    level.pre_tokenizer = pre_tokenizers.Whitespace()
    assert unknown_positions(level, level.encode("a zz b"), "a zz b") == [1]
    bpe = Tokenizer(models.BPE({"a": 0, "b": 1, "<unk>": 2, "ab": 3}, [("a", "b")], unk_token="<unk>"))
    assert bpe.encode("abxa").tokens == ["ab", "<unk>", "a"]
    assert unknown_positions(bpe, bpe.encode("abxa"), "abxa") == [1]
    # byte_fallback without an unknown token: every character has tokens
    fallback = Tokenizer(models.BPE({"a": 0, "<0x78>": 1}, [], byte_fallback=True))
    assert unknown_id(fallback) == -1 and unknown_positions(fallback, fallback.encode("ax"), "ax") == []
    # a pair: the unknown of the second text is found in it
    pair = bert.encode("hello", "😀 world")
    assert [pair.tokens[i] for i in unknown_positions(bert, pair, "hello", "😀 world")] == ["[UNK]"]
    assert unknown_positions(bert, pair, "hello", "😀 world") == [pair.tokens.index("[UNK]")]


def test_opcodes_are_difflibs() -> None:
    # `round_trip` lines texts up with its own typed copy of difflib's SequenceMatcher
    rng = random.Random(5)
    pairs = [("", ""), ("", "ab"), ("ab", ""), ("qabxcd", "abycdf"), ("Hello World", "hello world"), ("aaaa", "aa")]
    for _ in range(3000):
        alphabet = "ab c" if rng.random() < 0.5 else "abcdefgh ⁇éE"
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        if rng.random() < 0.3:
            b = a.lower().replace("e", " ⁇ ")
        pairs.append((a, b))
    for a, b in pairs:
        assert opcodes(a, b) == difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes(), (a, b)
