"""Pre-tokenizers and PreTokenizedString: documented examples, split_words == pre_tokenize_str,
offsets that slice the input, tokens mapped back through normalization, tokenizer.json in and out."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import byte_level
from engine import normalizers as N
from engine import pre_tokenizers as P
from engine.pre_tokenizers import scanners
from engine.pre_tokenizers.metaspace import metaspace_pieces
from engine.errors import EngineError, SchemaError
from engine.models.base import Model, Token
from engine.normalizers.normalized import NormalizedString
from engine.pattern import Regex
from engine.pre_tokenizers.pretokenized import PreTokenizedString, SplitPiece, TokenSplitter


def all_pre_tokenizers() -> list[P.PreTokenizer]:
    return [
        P.Whitespace(),
        P.WhitespaceSplit(),
        P.BertPreTokenizer(),
        P.Punctuation(),
        P.Punctuation("removed"),
        P.Punctuation("merged_with_previous"),
        P.Punctuation("merged_with_next"),
        P.Punctuation("contiguous"),
        P.Digits(),
        P.Digits(individual_digits=True),
        P.Split(" ", "removed"),
        P.Split(Regex(r"\s+"), "isolated", invert=True),
        P.Split(Regex(r"\p{N}{1,3}"), "merged_with_next"),
        P.Split("", "isolated"),
        P.ByteLevel(),
        P.ByteLevel(add_prefix_space=False),
        P.ByteLevel(use_regex=False),
        P.Metaspace(),
        P.Metaspace(prepend_scheme="first", split=False),
        P.Metaspace(prepend_scheme="never"),
        P.CharDelimiterSplit("x"),
        P.UnicodeScripts(),
        P.FixedLength(3),
        P.Sequence([P.WhitespaceSplit(), P.Digits(individual_digits=True)]),
        P.Sequence([P.WhitespaceSplit(), P.Metaspace(prepend_scheme="first")]),
        P.Sequence([P.Split(Regex(r"\s+"), "merged_with_next"), P.ByteLevel(use_regex=False)]),
    ]


# Pre-tokenizers whose pieces are plain slices of the input (no char is changed or added).
PURE = (
    P.Whitespace,
    P.WhitespaceSplit,
    P.BertPreTokenizer,
    P.Punctuation,
    P.Digits,
    P.Split,
    P.CharDelimiterSplit,
    P.UnicodeScripts,
    P.FixedLength,
)

STRINGS = [
    "",
    " ",
    "\t\n",
    "Hello, world! Let's tokenize.",
    "Call 123 please, x4567x",
    "  leading   and trailing  ",
    "どこ Where 日本語",
    "e\u0301te\u0301 ﬁ İ ΟΔΟΣ",
    "👨\u200d👩\u200d👧 ok",
    "a\x00b\x07c\u2003d\u3000e",
]


@pytest.mark.parametrize("pre_tokenizer", all_pre_tokenizers(), ids=repr)
@pytest.mark.parametrize("text", STRINGS)
def test_split_words_equals_pre_tokenize_str(pre_tokenizer: P.PreTokenizer, text: str) -> None:
    pieces = pre_tokenizer.pre_tokenize_str(text)
    assert pre_tokenizer.split_words(text) == [w for w, _ in pieces]
    last = 0
    for word, (start, end) in pieces:
        assert word
        assert last <= start <= end <= len(text)
        last = start
        if isinstance(pre_tokenizer, PURE):
            assert text[start:end] == word


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab1 \t\n.,'-é\u0301日ß😀\u2003İΣ٣")), max_size=30))
def test_split_words_property(text: str) -> None:
    for pre_tokenizer in all_pre_tokenizers():
        pieces = pre_tokenizer.pre_tokenize_str(text)
        assert pre_tokenizer.split_words(text) == [w for w, _ in pieces]
        for word, (start, end) in pieces:
            assert 0 <= start <= end <= len(text)
            if isinstance(pre_tokenizer, PURE):
                assert text[start:end] == word
            elif isinstance(pre_tokenizer, P.ByteLevel) and not pre_tokenizer.add_prefix_space:
                assert byte_level.to_chars(text[start:end]) == word


def test_documented_examples() -> None:
    assert P.BertPreTokenizer().pre_tokenize_str("Hello, I'm a single sentence!") == [
        ("Hello", (0, 5)), (",", (5, 6)), ("I", (7, 8)), ("'", (8, 9)), ("m", (9, 10)),
        ("a", (11, 12)), ("single", (13, 19)), ("sentence", (20, 28)), ("!", (28, 29)),
    ]
    # (the .pyi docstring shows "Ġfriend," / "Ġgoing?"; HF itself splits the punctuation off)
    assert P.ByteLevel().pre_tokenize_str("Hello my friend, how is it going?") == [
        ("ĠHello", (0, 5)), ("Ġmy", (5, 8)), ("Ġfriend", (8, 15)), (",", (15, 16)),
        ("Ġhow", (16, 20)), ("Ġis", (20, 23)), ("Ġit", (23, 26)), ("Ġgoing", (26, 32)),
        ("?", (32, 33)),
    ]
    assert P.CharDelimiterSplit("x").pre_tokenize_str("helloxthere") == [
        ("hello", (0, 5)), ("there", (6, 11))
    ]
    assert P.FixedLength(length=3).pre_tokenize_str("Hello") == [("Hel", (0, 3)), ("lo", (3, 5))]
    # (the docstring says (6, 8) and (9, 15); the ▁ replacing a space aligns with that space)
    assert P.Metaspace().pre_tokenize_str("Hello my friend") == [
        ("▁Hello", (0, 5)), ("▁my", (5, 8)), ("▁friend", (8, 15))
    ]
    assert P.Punctuation().pre_tokenize_str("Hello, how are you?") == [
        ("Hello", (0, 5)), (",", (5, 6)), (" how are you", (6, 18)), ("?", (18, 19))
    ]
    assert P.Sequence([P.Whitespace(), P.Punctuation()]).pre_tokenize_str("Hello, world!") == [
        ("Hello", (0, 5)), (",", (5, 6)), ("world", (7, 12)), ("!", (12, 13))
    ]
    assert P.Split(",", behavior="removed").pre_tokenize_str("one,two,three") == [
        ("one", (0, 3)), ("two", (4, 7)), ("three", (8, 13))
    ]
    assert P.Split(Regex(r"\s+"), behavior="isolated").pre_tokenize_str("hello   world") == [
        ("hello", (0, 5)), ("   ", (5, 8)), ("world", (8, 13))
    ]
    assert P.UnicodeScripts().pre_tokenize_str("どこ Where") == [("どこ ", (0, 3)), ("Where", (3, 8))]
    assert P.Whitespace().pre_tokenize_str("Hello, world! Let's tokenize.") == [
        ("Hello", (0, 5)), (",", (5, 6)), ("world", (7, 12)), ("!", (12, 13)), ("Let", (14, 17)),
        ("'", (17, 18)), ("s", (18, 19)), ("tokenize", (20, 28)), (".", (28, 29)),
    ]
    assert P.WhitespaceSplit().pre_tokenize_str("Hello, world! How are you?") == [
        ("Hello,", (0, 6)), ("world!", (7, 13)), ("How", (14, 17)), ("are", (18, 21)),
        ("you?", (22, 26)),
    ]
    assert P.Digits().split_words("Call 123 please") == ["Call ", "123", " please"]
    assert P.Digits(True).split_words("Call 123 please") == ["Call ", "1", "2", "3", " please"]


def test_hf_quirks_we_keep() -> None:
    # UnicodeScripts drops leading script-less chars (only ' ' and unknown chars are script-less).
    assert P.UnicodeScripts().pre_tokenize_str(" a") == [("a", (1, 2))]
    assert P.UnicodeScripts().pre_tokenize_str("   ") == []
    # ByteLevel only adds a space if the piece does not start with one.
    assert P.ByteLevel().split_words(" a") == ["Ġa"]
    assert P.ByteLevel().split_words("") == []
    # Metaspace keeps consecutive replacement chars as their own pieces.
    assert P.Metaspace().split_words("a  b") == ["▁a", "▁", "▁b"]


def test_metaspace_first_only_prepends_at_the_start_of_the_input() -> None:
    seq_first = P.Sequence([P.WhitespaceSplit(), P.Metaspace(prepend_scheme="first")])
    seq_always = P.Sequence([P.WhitespaceSplit(), P.Metaspace(prepend_scheme="always")])
    assert seq_first.pre_tokenize_str("Hey friend") == [("▁Hey", (0, 3)), ("friend", (4, 10))]
    assert seq_always.split_words("Hey friend") == ["▁Hey", "▁friend"]
    assert seq_first.pre_tokenize_str(" Hey") == [("Hey", (1, 4))]


def test_byte_level_alphabet_and_map() -> None:
    alphabet = P.ByteLevel.alphabet()
    assert len(alphabet) == len(set(alphabet)) == 256
    assert byte_level.BYTES_TO_UNICODE[32] == "Ġ" and byte_level.BYTES_TO_UNICODE[10] == "Ċ"
    assert byte_level.to_chars("é ") == "Ã©Ġ"
    assert byte_level.to_bytes("Ã©Ġ") == "é ".encode()
    assert byte_level.to_bytes("€") is None
    # a token with a char outside the map contributes its own UTF-8; bad bytes become U+FFFD
    assert byte_level.decode_tokens(["Ġh", "Ã©", "€x", "Ã"]) == " hé€x\ufffd"
    assert P.ByteLevel().pre_tokenize_str("é!") == [("ĠÃ©", (0, 1)), ("!", (1, 2))]


def char_model(chars: str) -> Model:
    """A BPE without merges over `chars`: one token per char, ids in `chars` order."""
    from engine.models.bpe.model import BPE

    return BPE(vocab={c: i for i, c in enumerate(chars)}, merges=[])


def test_tokens_map_back_to_original_offsets() -> None:
    pretok = PreTokenizedString("Ça ﬁt")
    pretok.normalize(N.Sequence([N.NFKD(), N.StripAccents(), N.Lowercase()]))
    P.WhitespaceSplit().pre_tokenize(pretok)
    assert [(w, o) for w, o, _ in pretok.get_splits()] == [("ca", (0, 2)), ("fit", (3, 5))]
    pretok.tokenize(char_model("cafit"))
    ids, tokens, spans, words = pretok.token_lists()
    assert tokens == ["c", "a", "f", "i", "t"]
    assert list(spans) == [0, 1, 1, 2, 3, 4, 3, 4, 4, 5]
    assert words == [0, 0, 1, 1, 1]
    assert ids == [0, 1, 2, 3, 4]
    assert pretok.token_lists(word_idx=7)[3] == [7] * 5


def test_splits_with_tokens_are_left_alone() -> None:
    pretok = PreTokenizedString("a [X] b")
    whole = pretok.splits[0].normalized
    left, special, right = whole.slice(0, 2), whole.slice(2, 5), whole.slice(5, 7)
    assert left is not None and special is not None and right is not None
    pretok.splits = [SplitPiece(left), SplitPiece(special, [Token(99, "[X]", 0, 3)]), SplitPiece(right)]
    P.Metaspace().pre_tokenize(pretok)
    assert [(w, o) for w, o, _ in pretok.get_splits()] == [
        ("▁a", (0, 1)), ("▁", (1, 2)), ("[X]", (2, 5)), ("▁b", (5, 7))
    ]
    pretok.tokenize(char_model("▁ab"))
    ids, tokens, spans, words = pretok.token_lists()
    assert tokens == ["▁", "a", "▁", "[X]", "▁", "b"]
    assert ids == [0, 1, 0, 99, 0, 2]
    assert list(spans) == [0, 1, 0, 1, 1, 2, 2, 5, 5, 6, 6, 7]
    assert words == [0, 0, 1, 2, 3, 3]


def test_untokenized_split_is_an_error() -> None:
    with pytest.raises(EngineError, match="not been tokenized"):
        PreTokenizedString("abc").token_lists()


def test_get_splits_referentials_and_byte_offsets() -> None:
    pretok = PreTokenizedString("日本 ab")
    P.WhitespaceSplit().pre_tokenize(pretok)
    assert [o for _, o, _ in pretok.get_splits("original", "char")] == [(0, 2), (3, 5)]
    assert [o for _, o, _ in pretok.get_splits("original", "byte")] == [(0, 6), (7, 9)]
    assert [o for _, o, _ in pretok.get_splits("normalized", "byte")] == [(0, 6), (6, 8)]
    with pytest.raises(ValueError):
        pretok.get_splits("sideways")
    with pytest.raises(ValueError):
        pretok.get_splits("original", "word")


def test_from_normalized_keeps_the_normalization() -> None:
    ns = NormalizedString("ÉTÉ été")
    N.Lowercase().normalize(ns)
    pretok = PreTokenizedString.from_normalized(ns)
    P.WhitespaceSplit().pre_tokenize(pretok)
    assert [(w, o) for w, o, _ in pretok.get_splits()] == [("été", (0, 3)), ("été", (4, 7))]


@pytest.mark.parametrize("pre_tokenizer", all_pre_tokenizers(), ids=repr)
def test_to_dict_round_trip(pre_tokenizer: P.PreTokenizer) -> None:
    data = pre_tokenizer.to_dict()
    again = P.from_dict(data)
    assert again.to_dict() == data
    text = "Hello, wörld 123 日本"
    assert again.pre_tokenize_str(text) == pre_tokenizer.pre_tokenize_str(text)


def test_to_dict_matches_hf_layout() -> None:
    assert P.ByteLevel().to_dict() == {
        "type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True
    }
    assert P.Metaspace().to_dict() == {
        "type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True
    }
    assert P.Split(Regex(r"\s"), "merged_with_next", invert=True).to_dict() == {
        "type": "Split", "pattern": {"Regex": r"\s"}, "behavior": "MergedWithNext", "invert": True
    }
    assert P.CharDelimiterSplit("x").to_dict() == {"type": "CharDelimiterSplit", "delimiter": "x"}
    assert P.Punctuation().to_dict() == {"type": "Punctuation", "behavior": "Isolated"}
    assert P.Sequence([P.Digits()]).to_dict() == {
        "type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": False}]
    }


def test_from_dict_defaults_and_legacy_metaspace() -> None:
    punct = P.from_dict({"type": "Punctuation"})
    assert isinstance(punct, P.Punctuation) and punct.behavior == "isolated"
    byte = P.from_dict({"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True})
    assert isinstance(byte, P.ByteLevel) and byte.use_regex and not byte.add_prefix_space
    fixed = P.from_dict({"type": "FixedLength"})
    assert isinstance(fixed, P.FixedLength) and fixed.length == 5
    legacy = P.from_dict(
        {"type": "Metaspace", "replacement": "▁", "str_rep": "▁", "add_prefix_space": True}
    )
    assert isinstance(legacy, P.Metaspace)
    assert legacy.prepend_scheme == "always" and legacy.split
    never = P.from_dict(
        {"type": "Metaspace", "replacement": "▁", "add_prefix_space": False, "prepend_scheme": "never"}
    )
    assert isinstance(never, P.Metaspace) and never.prepend_scheme == "never"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (None, "pre-tokenizer: expected an object, got null"),
        ({"type": 3}, "pre-tokenizer: field 'type' must be a string, got a number"),
        ({"type": "FixedLength", "length": -1}, "FixedLength: field 'length'"),
        ({"type": "Sequence", "pretokenizers": {}}, "Sequence: field 'pretokenizers' must be a list, got an object"),
        ({}, "without a 'type'"),
        ({"type": "Foo"}, "unknown pre-tokenizer type 'Foo'"),
        ({"type": "Delimiter", "delimiter": "x"}, "use 'CharDelimiterSplit'"),
        ({"type": "CharDelimiterSplit", "delimiter": "xy"}, "single char"),
        ({"type": "ByteLevel"}, "ByteLevel: missing field 'add_prefix_space'"),
        ({"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": None},
         "must be true or false"),
        ({"type": "Digits"}, "Digits: missing field 'individual_digits'"),
        ({"type": "Metaspace"}, "Metaspace: missing field 'replacement'"),
        ({"type": "Metaspace", "replacement": "ab"}, "single char"),
        ({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "First"}, "prepend_scheme"),
        ({"type": "Metaspace", "replacement": "▁", "add_prefix_space": False},
         "add_prefix_space does not match"),
        ({"type": "Punctuation", "behavior": "isolated"}, "unknown behavior"),
        ({"type": "Split", "pattern": {"String": "a"}, "behavior": "Removed"},
         "Split: missing field 'invert'"),
        ({"type": "Split", "pattern": {"Regex": "("}, "behavior": "Removed", "invert": False},
         "invalid regex"),
        ({"type": "Sequence"}, "Sequence: missing field 'pretokenizers'"),
        ({"type": "Sequence", "pretokenizers": [{"type": "Nope"}]}, "'Nope'"),
        ({"type": "FixedLength", "length": "5"}, "non-negative integer"),
    ],
)
def test_from_dict_errors(data: object, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        P.from_dict(data)


def test_constructor_validation() -> None:
    with pytest.raises(ValueError):
        P.Metaspace(replacement="ab")
    with pytest.raises(ValueError, match="unknown variant"):
        P.Metaspace(prepend_scheme="sometimes")
    with pytest.raises(ValueError):
        P.Punctuation("sideways")
    with pytest.raises(ValueError):
        P.CharDelimiterSplit("")
    with pytest.raises(EngineError):
        P.FixedLength(0).split_words("abc")


class EveryOtherChar(P.PreTokenizer):
    """A custom pre-tokenizer written in (interpreted) Python, like HF's `PreTokenizer.custom`."""

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        out: list[NormalizedString] = []
        for start in range(0, len(piece), 2):
            sliced = piece.slice(start, min(start + 2, len(piece)))
            assert sliced is not None
            out.append(sliced)
        return out

    def to_dict(self) -> dict[str, object]:
        return {"type": "EveryOtherChar"}


class Shout(N.Normalizer):
    def normalize(self, normalized: NormalizedString) -> None:
        normalized.uppercase()

    def to_dict(self) -> dict[str, object]:
        return {"type": "Shout"}


def test_custom_components_plug_into_the_compiled_ones() -> None:
    seq = P.Sequence([P.WhitespaceSplit(), EveryOtherChar()])
    assert seq.pre_tokenize_str("abcde fg") == [("ab", (0, 2)), ("cd", (2, 4)), ("e", (4, 5)), ("fg", (6, 8))]
    assert seq.split_words("abcde fg") == ["ab", "cd", "e", "fg"]
    norm = N.Sequence([N.NFKD(), Shout()])
    assert norm.normalize_str("ﬁx ß") == "FIX SS"
    pretok = PreTokenizedString("ﬁx ß")
    pretok.normalize(norm)
    assert [(w, o) for w, o, _ in pretok.get_splits()] == [("FIX SS", (0, 4))]


class CutMarker(TokenSplitter):
    """Cuts "[X]" out as a split that already carries its token (what added tokens do)."""

    def split_piece(self, index: int, piece: NormalizedString) -> list[SplitPiece]:
        found = piece.get().find("[X]")
        if found < 0:
            return [SplitPiece(piece)]
        out: list[SplitPiece] = []
        for start, end, tokens in [
            (0, found, None),
            (found, found + 3, [Token(7, "[X]", 0, 3)]),
            (found + 3, len(piece), None),
        ]:
            sliced = piece.slice(start, end)
            assert sliced is not None
            out.append(SplitPiece(sliced, tokens))
        return out


def test_split_with_tokens_keeps_token_splits_through_pre_tokenization() -> None:
    pretok = PreTokenizedString("[X]ab [X]")
    pretok.split_with_tokens(CutMarker())  # cuts the first marker only
    pretok.split_with_tokens(CutMarker())  # the second: splits with tokens are left alone
    assert [(w, o, t is not None) for w, o, t in pretok.get_splits()] == [
        ("[X]", (0, 3), True), ("ab ", (3, 6), False), ("[X]", (6, 9), True)
    ]
    P.Whitespace().pre_tokenize(pretok)
    assert [(w, o) for w, o, _ in pretok.get_splits()] == [("[X]", (0, 3)), ("ab", (3, 5)), ("[X]", (6, 9))]


GPT2_ASCII = st.text(alphabet="aZ09 '\t\n\r\x0b\x0c\x01\x7f!.,-stmdrevl", max_size=40)


def gpt2_pattern_words(text: str) -> list[str]:
    return [byte_level.to_chars(word) for word in scanners.GPT2_RE.pick(text).findall(text)]


@settings(max_examples=500, deadline=None)
@given(GPT2_ASCII)
def test_the_gpt2_ascii_scan_equals_the_pattern(text: str) -> None:
    assert scanners.gpt2_ascii_words(text, byte_level.ascii_to_chars(text)) == gpt2_pattern_words(text)


def test_the_gpt2_ascii_scan_on_the_hard_cases() -> None:
    for text in ["don't 's 're 'S '", "a  \tb   c\n\nd", " 's !'s 'll've", "x ", "  ", "\t", "1.5e-3 ok!!"]:
        assert scanners.gpt2_ascii_words(text, byte_level.ascii_to_chars(text)) == gpt2_pattern_words(text), text


RUNS_ASCII = st.text(alphabet="aZ09_ '\t\n\r\x0b\x0c\x1c\x1f\x01\x7f!.,-$+<=>^`|~", max_size=40)
# chars the builtin classes and HF's disagree on, or that are rare: ¡ ¿ « (punctuation), U+0085
# and U+2003 and U+3000 (spaces), U+200B (zero width, not a space), ٣ (a digit), combining marks
RUNS_ANY = RUNS_ASCII | st.text(alphabet="aZ9 ,.\u00a1\u00bf\u00ab\u0085\u2003\u3000\u200b\u0663\u0301\u093f日é😀\u2028§", max_size=40)


@settings(max_examples=400, deadline=None)
@given(RUNS_ANY | st.text(max_size=20))
def test_the_run_scans_equal_the_patterns(text: str) -> None:
    for runs, pattern in [(scanners.WHITESPACE_RUNS, scanners.WHITESPACE_RE), (scanners.NOT_SPACES_RUNS, scanners.NOT_SPACES_RE), (scanners.BERT_RUNS, scanners.BERT_RE)]:
        cut = runs.cut(text)
        assert cut.words == runs.words(text) == pattern.pick(text).findall(text)
        assert [text[s:e] for s, e in zip(cut.starts, cut.ends)] == cut.words
        assert [(s, e) for s, e in zip(cut.starts, cut.ends)] == pattern.spans(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab ▁é\t", max_size=20))
def test_metaspace_pieces_by_split_are_the_pattern_s(text: str) -> None:
    # the fast path cuts with str.split; the full pipeline with the pattern: the same pieces
    for pre_tokenizer in (P.Metaspace(), P.Metaspace(prepend_scheme="never"), P.Metaspace(replacement="_")):
        mapped = text.replace(" ", pre_tokenizer.replacement)
        assert metaspace_pieces(mapped, pre_tokenizer.replacement) == pre_tokenizer.pieces_re.findall(mapped)
        assert pre_tokenizer.split_words(text) == [word for word, _ in pre_tokenizer.pre_tokenize_str(text)]
