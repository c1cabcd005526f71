"""The rule-based baselines: characters, UTF-8 bytes, words and sentences, on hand-checked text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.analysis import baselines


def pieces(text: str, spans: list[tuple[int, int]]) -> list[str]:
    return [text[start:end] for start, end in spans]


def test_characters_and_bytes() -> None:
    assert baselines.characters("añ") == [(0, 1), (1, 2)]
    # ñ is two bytes and 😀 four: each byte spans the character it belongs to
    assert baselines.utf8_bytes("añ😀") == [(0, 1), (1, 2), (1, 2), (2, 3), (2, 3), (2, 3), (2, 3)]
    assert baselines.characters("") == baselines.utf8_bytes("") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Dr. Who's 2nd naïve café.", ["Dr", ".", "Who", "'", "s", "2nd", "naïve", "café", "."]),
        ("e\u0301t\u00e9", ["e\u0301t\u00e9"]),  # a combining accent stays in its word
        ("1,234.56 kg", ["1", ",", "234", ".", "56", "kg"]),
        ("日本語のテキスト", ["日本語のテキスト"]),
        ("a  b\t\nc", ["a", "b", "c"]),
        ("👩‍💻!", ["👩", "\u200d", "💻", "!"]),
    ],
)
def test_words_are_runs_of_letters_and_digits_or_one_other_character(text: str, expected: list[str]) -> None:
    assert pieces(text, baselines.words(text)) == expected


@settings(max_examples=400, deadline=None)
@given(text=st.text(max_size=40) | st.text(alphabet="ab1 .\t\u0301\u00a0\u200b\x1c日😀\ud800", max_size=40))
def test_words_read_char_by_char_are_the_patterns_matches(text: str) -> None:
    # `words` asks the pattern each char's kind once; the spans are the pattern's own matches
    assert baselines.words(text) == [match.span() for match in baselines.WORD_RE.finditer(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Dr. Who ran. Go!", ["Dr. Who ran.", "Go!"]),
        ("It works, e.g. here. And i.e. there? Yes.", ["It works, e.g. here.", "And i.e. there?", "Yes."]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("J. R. R. Tolkien wrote it... Really?!", ["J. R. R. Tolkien wrote it...", "Really?!"]),
        ("Version 2.5 is out. Mr. Smith agrees", ["Version 2.5 is out.", "Mr. Smith agrees"]),
        ("  leading and trailing  ", ["leading and trailing"]),
        # words that are abbreviations only sometimes end a sentence before a capital
        ("I said no. She agreed.", ["I said no.", "She agreed."]),
        ("See No. 5 and art. 3 for more.", ["See No. 5 and art. 3 for more."]),
        ("Smith et al. (2019) agree. We met at 5 p.m. Then we left.", ["Smith et al. (2019) agree.", "We met at 5 p.m.", "Then we left."]),
        ("Bread, milk, etc. The rest is art. Fine.", ["Bread, milk, etc.", "The rest is art.", "Fine."]),
        ("It ends with etc.", ["It ends with etc."]),
        # "I." is the pronoun, not an initial
        ("So did I. Then we left.", ["So did I.", "Then we left."]),
        ("", []),
    ],
)
def test_sentences_end_at_punctuation_but_not_after_abbreviations(text: str, expected: list[str]) -> None:
    assert pieces(text, baselines.sentences(text)) == expected


def test_segment_by_name() -> None:
    # "né 😀.": é is two UTF-8 bytes and 😀 four; the emoji and the period are words of their own
    text = "né 😀."
    assert {name: baselines.segment(name, text) for name in baselines.BASELINES} == {
        "characters": [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)],
        "UTF-8 bytes": [(0, 1), (1, 2), (1, 2), (2, 3), (3, 4), (3, 4), (3, 4), (3, 4), (4, 5)],
        "words": [(0, 2), (3, 4), (4, 5)],
        "sentences": [(0, 5)],
    }
    with pytest.raises(ValueError, match="unknown baseline"):
        baselines.segment("paragraphs", "x")
