"""Rule-based segmentations that every tokenizer lesson compares against: characters, UTF-8
bytes, words and sentences. Each gives the (start, end) character spans of its pieces.

    words("Dr. Who's 2nd.")      -> Dr|.|Who|'|s|2nd|.
    sentences("Dr. Who ran. Go!") -> "Dr. Who ran." | "Go!"

No tokenizer here: these are the yardsticks the Compare tab puts beside trained tokenizers.
"""

from __future__ import annotations

from typing import Final

import regex

from engine import unicode_chars as uc

# A word: a run of letters, marks and digits; anything else but white space is one piece each.
WORD_PATTERN: Final = r"[\p{L}\p{M}\p{N}]+|[^\p{L}\p{M}\p{N}\s]"
WORD_RE: Final = regex.compile(WORD_PATTERN)
WORD_RUN_RE: Final = regex.compile(r"[\p{L}\p{M}\p{N}]")
# What `words` makes of a char (remembered in `_KINDS`).
WORD_CHAR: Final = 1
SPACE_CHAR: Final = 0
OTHER_CHAR: Final = 2
_KINDS: Final = uc.KindTable()
# Where a sentence may end: one or more of . ! ? (closing quotes and brackets stay with it).
SENTENCE_END_RE: Final = regex.compile(r"[.!?]+[\"'”’)\]]*")
# Abbreviations whose final period does not end a sentence (compared lowercased, period included).
ABBREVIATIONS: Final = frozenset(
    (
        "dr.", "mr.", "mrs.", "ms.", "prof.", "st.", "jr.", "sr.", "rev.", "gen.", "col.", "lt.",
        "capt.", "sgt.", "gov.", "sen.", "rep.", "hon.", "mt.", "ft.", "nos.", "vol.",
        "vols.", "fig.", "figs.", "p.", "pp.", "ch.", "sec.", "eds.", "approx.",
        "dept.", "inc.", "ltd.", "co.", "corp.", "vs.", "cf.", "e.g.", "i.e.",
        "viz.", "jan.", "feb.", "mar.", "apr.", "jun.", "jul.", "aug.", "sep.", "sept.",
        "oct.", "nov.", "dec.", "u.s.", "u.k.",
    )
)
# Words that are abbreviations in one sentence and end another ("No. 5" / "I said no."; "et al.
# (2019)" / "and so on, etc."; "at 5 p.m. sharp" / "We met at 5 p.m."): their period ends the
# sentence only when the next word begins with a capital letter.
AMBIGUOUS: Final = frozenset(("no.", "art.", "ed.", "est.", "al.", "etc.", "a.m.", "p.m."))
BASELINES: Final = ("characters", "UTF-8 bytes", "words", "sentences")


def characters(text: str) -> list[tuple[int, int]]:
    """One piece per character: "añ" -> [(0, 1), (1, 2)]."""
    return [(i, i + 1) for i in range(len(text))]


def utf8_bytes(text: str) -> list[tuple[int, int]]:
    """One piece per UTF-8 byte, each spanning the character it belongs to:
    "añ" -> [(0, 1), (1, 2), (1, 2)] (ñ is two bytes)."""
    spans: list[tuple[int, int]] = []
    for i in range(len(text)):
        for _ in range(len(text[i].encode("utf-8", "surrogatepass"))):
            spans.append((i, i + 1))
    return spans


def words(text: str) -> list[tuple[int, int]]:
    """Runs of letters and digits, and every other non-space character on its own (`WORD_PATTERN`,
    read char by char: each char's kind is asked of the pattern once, then remembered; a match
    object per word took four times as long)."""
    spans: list[tuple[int, int]] = []
    kinds = _KINDS
    start = -1
    index = 0
    n = len(text)
    while index < n:
        code = ord(text[index])
        kind = kinds.known(code)
        if kind == uc.UNKNOWN_KIND:
            kind = _kind(text[index])
            kinds.remember(code, kind)
        if kind == WORD_CHAR:
            if start < 0:
                start = index
        else:
            if start >= 0:
                spans.append((start, index))
                start = -1
            if kind == OTHER_CHAR:
                spans.append((index, index + 1))
        index += 1
    if start >= 0:
        spans.append((start, index))
    return spans


def _kind(c: str) -> int:
    """Whether `c` goes in a word (WORD_CHAR), is white space (SPACE_CHAR), or is a word on its
    own (OTHER_CHAR), as `WORD_PATTERN` sees it."""
    found = WORD_RE.match(c)
    if found is None:
        return SPACE_CHAR
    return WORD_CHAR if WORD_RUN_RE.match(c) is not None else OTHER_CHAR


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentences: a sentence ends after `.`, `!` or `?` (and closing quotes) followed by white
    space or the end, unless the word before the period is an abbreviation ("Dr.", "e.g.") or
    a single letter (an initial). Leading and trailing white space is left out of each span."""
    spans: list[tuple[int, int]] = []
    start = 0
    n = len(text)
    for match in SENTENCE_END_RE.finditer(text):
        end = match.end()
        if end < n and not text[end].isspace():
            continue
        if match.group().startswith(".") and _ends_with_abbreviation(text, start, match.start(), end):
            continue
        _add_trimmed(text, start, end, spans)
        start = end
    _add_trimmed(text, start, n, spans)
    return spans


def _ends_with_abbreviation(text: str, start: int, period: int, after: int) -> bool:
    """Whether the word just before the period at `period` is a listed abbreviation, an
    ambiguous one not followed (from `after`) by a capitalized word, or an initial (not "I")."""
    begin = period
    while begin > start and not text[begin - 1].isspace():
        begin -= 1
    word = text[begin : period + 1].lstrip("\"'“‘([")
    lowered = word.lower()
    if lowered in ABBREVIATIONS:
        return True
    if lowered in AMBIGUOUS:
        following = after
        while following < len(text) and text[following].isspace():
            following += 1
        return following < len(text) and not text[following].isupper()
    # an initial: one capital letter and its period ("J. R. R. Tolkien"); "I." is the pronoun
    return len(word) == 2 and word[0].isupper() and word[0] != "I"


def _add_trimmed(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        spans.append((start, end))


def segment(name: str, text: str) -> list[tuple[int, int]]:
    """The spans of baseline `name` (one of `BASELINES`) over `text`."""
    if name == "characters":
        return characters(text)
    if name == "UTF-8 bytes":
        return utf8_bytes(text)
    if name == "words":
        return words(text)
    if name == "sentences":
        return sentences(text)
    raise ValueError(f"unknown baseline {name!r}; choose one of {', '.join(BASELINES)}")
