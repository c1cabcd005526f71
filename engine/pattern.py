"""Patterns for splitting and replacing: HF's `Regex` (Oniguruma semantics), literal strings, behaviours.

`find_matches` covers a text with (start, end, is_match) spans like HF's pattern.rs; `split_spans` applies
a SplitDelimiterBehavior. No alignments here (see `engine.normalized`).
"""

from __future__ import annotations

from typing import Final

import regex

from engine import unicode_chars as uc
from engine import unicode_tables as tables
from engine.errors import EngineError, SchemaError
from engine.schema import JsonValue, get_str, require

# SplitDelimiterBehavior, as the Python API spells it (tokenizer.json uses the CamelCase names below).
REMOVED: Final = "removed"
ISOLATED: Final = "isolated"
MERGED_WITH_PREVIOUS: Final = "merged_with_previous"
MERGED_WITH_NEXT: Final = "merged_with_next"
CONTIGUOUS: Final = "contiguous"
BEHAVIOR_JSON: Final[dict[str, str]] = {
    REMOVED: "Removed",
    ISOLATED: "Isolated",
    MERGED_WITH_PREVIOUS: "MergedWithPrevious",
    MERGED_WITH_NEXT: "MergedWithNext",
    CONTIGUOUS: "Contiguous",
}
BEHAVIOR_FROM_JSON: Final[dict[str, str]] = {v: k for k, v in BEHAVIOR_JSON.items()}


def check_behavior(behavior: str) -> str:
    """`behavior` if it is a SplitDelimiterBehavior name, else a ValueError like HF's."""
    if behavior not in BEHAVIOR_JSON:
        raise ValueError(
            "Wrong value for SplitDelimiterBehavior, expected one of: "
            "`removed, isolated, merged_with_previous, merged_with_next, contiguous`"
        )
    return behavior


# The Unicode classes a user regex may use, as Oniguruma sees them (see `Regex`).
ONIG_CLASSES: Final[list[tuple[str, str]]] = [
    ("\\p{L}", tables.ONIG_LETTER),
    ("\\p{N}", tables.ONIG_NUMBER),
    ("\\s", tables.WHITESPACE),
    ("\\w", tables.ONIG_WORD),
    ("\\d", tables.ONIG_DIGIT),
]
ONIG_PROPERTY_SLOTS: Final[dict[str, int]] = {"L": 0, "Letter": 0, "N": 1, "Number": 1}
ONIG_ESCAPE_SLOTS: Final[dict[str, int]] = {"s": 2, "S": 2, "w": 3, "W": 3, "d": 4, "D": 4}
HEX_DIGITS: Final = "0-9a-fA-F"


def translate_onig(pattern: str) -> str:
    """An Oniguruma (Ruby syntax) pattern as a `DualPattern` template for the `regex` module.

    `\\p{L}`, `\\p{N}`, `\\s`, `\\w`, `\\d` (and their negations outside brackets) become class
    slots; Ruby-only escapes are rewritten: `\\h` (hex digit), `\\H`, `\\Z` (end or before a final
    newline), `\\x{HH}`, `\\e`, `\\k<name>`. Anything else is passed through unchanged.
    """
    out: list[str] = []
    i = 0
    n = len(pattern)
    depth = 0
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            e = pattern[i + 1]
            k = -1
            negated = False
            width = 2
            if (e == "p" or e == "P") and i + 2 < n:
                name = pattern[i + 2]
                width = 3
                if name == "{":
                    close = pattern.find("}", i + 3)
                    if close > 0:
                        name = pattern[i + 3 : close]
                        width = close - i + 1
                negated = e == "P"
                if name.startswith("^"):
                    negated = not negated
                    name = name[1:]
                k = ONIG_PROPERTY_SLOTS.get(name, -1)
            elif e in ONIG_ESCAPE_SLOTS:
                k = ONIG_ESCAPE_SLOTS[e]
                negated = e.isupper()
            if k >= 0 and not (negated and depth > 0):
                body = uc.slot(k)
                if depth > 0:
                    out.append(body)
                else:
                    out.append("[^" + body + "]" if negated else "[" + body + "]")
                i += width
                continue
            if e == "h":
                out.append(HEX_DIGITS if depth > 0 else "[" + HEX_DIGITS + "]")
            elif e == "H" and depth == 0:
                out.append("[^" + HEX_DIGITS + "]")
            elif e == "Z" and depth == 0:
                out.append("(?=\\n?\\Z)")
            elif e == "e":
                out.append("\\x1b")
            elif e == "x" and i + 2 < n and pattern[i + 2] == "{" and pattern.find("}", i + 3) > 0:
                close = pattern.find("}", i + 3)
                out.append(f"\\U{int(pattern[i + 3 : close], 16):08x}")
                i = close + 1
                continue
            elif e == "k" and i + 2 < n and pattern[i + 2] == "<" and pattern.find(">", i + 3) > 0:
                close = pattern.find(">", i + 3)
                name = pattern[i + 3 : close]
                out.append("(?:\\" + name + ")" if name.isdigit() else "(?P=" + name + ")")
                i = close + 1
                continue
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if c == "[":
            if depth > 0 and pattern.startswith("[:", i) and pattern.find(":]", i + 2) > 0:
                close = pattern.find(":]", i + 2)
                out.append(pattern[i : close + 2])  # POSIX bracket, e.g. [[:alpha:]]
                i = close + 2
                continue
            depth += 1
        elif c == "]" and depth > 0:
            depth -= 1
        out.append(c)
        i += 1
    return "".join(out)


class Regex:
    """HF's `tokenizers.Regex`: an Oniguruma (Ruby syntax) pattern, run by the `regex` module.

    Like Oniguruma, `^`/`$` match at line boundaries, and an empty match right after the previous
    match is skipped (`a*` on "baab" matches at 0, 1-3 and 4 only). `\\p{L}` `\\p{N}` `\\s` `\\w` `\\d`
    use Oniguruma's Unicode tables whenever the text holds a char the `regex` module sees otherwise.
    """

    pattern: str
    dual: uc.DualPattern

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        try:
            self.dual = uc.DualPattern(translate_onig(pattern), ONIG_CLASSES, regex.MULTILINE)
        except (regex.error, ValueError) as error:
            raise EngineError(f"invalid regex {pattern!r}: {error}") from None

    @property
    def compiled(self) -> regex.Pattern[str]:
        """The pattern with the `regex` module's own classes (exact for most text; see `for_text`)."""
        return self.dual.fast

    def for_text(self, text: str) -> regex.Pattern[str]:
        """The compiled pattern that matches `text` exactly as Oniguruma would."""
        return self.dual.pick(text)

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r})"


def as_regex(pattern: str | Regex) -> Regex:
    """HF's pattern argument as a Regex: a `Regex` as is, a literal string escaped.

    subtle: as in HF, a literal is an escaped regex, so "" matches between every char.
    """
    return pattern if isinstance(pattern, Regex) else Regex(regex.escape(pattern))


class Replacement:
    """Every match of `pattern` (a literal string or a `Regex`) replaced by `content`: the part
    HF's Replace normalizer and Replace decoder share, JSON form included.

    `Replacement(" ", "_").apply("a b") == "a_b"`.
    """

    pattern: str | Regex
    content: str
    matcher: Regex

    def __init__(self, pattern: str | Regex, content: str) -> None:
        self.pattern = pattern
        self.content = content
        self.matcher = as_regex(pattern)

    def matches(self, text: str) -> list[tuple[int, int, bool]]:
        """The (start, end, is_match) cover of `text`."""
        return find_matches_compiled(self.matcher.for_text(text), text)

    def apply(self, text: str) -> str:
        parts: list[str] = []
        for start, end, is_match in self.matches(text):
            parts.append(self.content if is_match else text[start:end])
        return "".join(parts)

    def to_dict(self) -> dict[str, JsonValue]:
        """The tokenizer.json object of a Replace normalizer or decoder."""
        return {"type": "Replace", "pattern": pattern_to_dict(self.pattern), "content": self.content}

    @staticmethod
    def from_dict(data: dict[str, object]) -> Replacement:
        return Replacement(pattern_from_dict(data, "Replace"), get_str(data, "content", "Replace"))


def find_matches_compiled(compiled: regex.Pattern[str], text: str) -> list[tuple[int, int, bool]]:
    """Cover `text` with (start, end, is_match) spans, HF's `Pattern::find_matches` for a regex.

    `"a  b"` with `\\s+` -> `[(0, 1, False), (1, 3, True), (3, 4, False)]`; `""` -> `[(0, 0, False)]`.
    """
    if not text:
        return [(0, 0, False)]
    spans: list[tuple[int, int]] = []
    has_empty = False
    for m in compiled.finditer(text):
        start, end = m.span()
        if start == end:
            has_empty = True
            break
        spans.append((start, end))
    if has_empty:
        spans = _onig_spans(compiled, text)
    out: list[tuple[int, int, bool]] = []
    prev = 0
    for start, end in spans:
        if prev != start:
            out.append((prev, start, False))
        out.append((start, end, True))
        prev = end
    if prev != len(text):
        out.append((prev, len(text), False))
    return out


def cover(spans: list[tuple[int, int]], length: int) -> list[tuple[int, int, bool]]:
    """Non-empty, ordered match spans -> HF's find_matches cover of a text of `length` chars.

    `[(1, 3)]`, 4 -> `[(0, 1, False), (1, 3, True), (3, 4, False)]`; length 0 -> `[(0, 0, False)]`.
    """
    if length == 0:
        return [(0, 0, False)]
    out: list[tuple[int, int, bool]] = []
    prev = 0
    for start, end in spans:
        if prev != start:
            out.append((prev, start, False))
        out.append((start, end, True))
        prev = end
    if prev != length:
        out.append((prev, length, False))
    return out


def _onig_spans(compiled: regex.Pattern[str], text: str) -> list[tuple[int, int]]:
    # subtle: Python's finditer reports an empty match right after a non-empty one; Oniguruma
    # (and the Rust regex crate) skip it and search again one char further.
    spans: list[tuple[int, int]] = []
    last_end = 0
    last_match_end = -1
    n = len(text)
    while last_end <= n:
        m = compiled.search(text, last_end)
        if m is None:
            break
        start, end = m.span()
        if start == end and last_match_end == end:
            last_end += 1
            continue
        last_end = end
        last_match_end = end
        spans.append((start, end))
    return spans


def find_matches(pattern: str | Regex, text: str) -> list[tuple[int, int, bool]]:
    """HF's find_matches for the Python API's patterns: a `Regex`, or a literal string ("" never matches)."""
    if isinstance(pattern, Regex):
        return find_matches_compiled(pattern.for_text(text), text)
    if not pattern:
        return [(0, len(text), False)]
    return find_matches_compiled(regex.compile(regex.escape(pattern)), text)


def split_spans(matches: list[tuple[int, int, bool]], behavior: str) -> list[tuple[int, int]]:
    """The pieces HF's `NormalizedString::split` keeps, given the matches and a behaviour.

    On "the-final--countdown" split at '-': Removed -> the, final, countdown;
    MergedWithNext -> the, -final, -, -countdown; Contiguous -> the, -, final, --, countdown.
    Pieces may be empty; callers drop them.
    """
    out: list[tuple[int, int]] = []
    if behavior == ISOLATED:
        for start, end, _ in matches:
            out.append((start, end))
    elif behavior == REMOVED:
        for start, end, is_match in matches:
            if not is_match:
                out.append((start, end))
    elif behavior == CONTIGUOUS:
        previous = False
        for start, end, is_match in matches:
            if is_match == previous and out:
                out[-1] = (out[-1][0], end)
            else:
                out.append((start, end))
            previous = is_match
    elif behavior == MERGED_WITH_PREVIOUS:
        previous = False
        for start, end, is_match in matches:
            if is_match and not previous and out:
                out[-1] = (out[-1][0], end)
            else:
                out.append((start, end))
            previous = is_match
    elif behavior == MERGED_WITH_NEXT:
        previous = False
        for i in range(len(matches) - 1, -1, -1):
            start, end, is_match = matches[i]
            if is_match and not previous and out:
                out[-1] = (start, out[-1][1])
            else:
                out.append((start, end))
            previous = is_match
        out.reverse()
    else:
        check_behavior(behavior)
    return out


def pattern_to_dict(pattern: str | Regex) -> dict[str, JsonValue]:
    """tokenizer.json form of a Replace/Split pattern: `{"String": s}` or `{"Regex": r}`."""
    if isinstance(pattern, Regex):
        return {"Regex": pattern.pattern}
    return {"String": pattern}


def pattern_from_dict(data: dict[str, object], owner: str) -> str | Regex:
    """The `pattern` field of `data`: `{"String": s}` -> s; `{"Regex": r}` -> Regex(r).

    A malformed field or a regex that does not compile is a SchemaError naming `owner`.
    """
    value = require(data, "pattern", owner)
    if not isinstance(value, dict) or len(value) != 1:
        raise SchemaError(f"{owner}: 'pattern' must be {{\"String\": ...}} or {{\"Regex\": ...}}")
    kind, text = next(iter(value.items()))
    if not isinstance(text, str) or kind not in ("String", "Regex"):
        raise SchemaError(f"{owner}: 'pattern' must be {{\"String\": ...}} or {{\"Regex\": ...}}")
    if kind == "String":
        return text
    try:
        return Regex(text)
    except EngineError as error:
        raise SchemaError(f"{owner}: {error}") from None
