"""Patterns for splitting and replacing: HF's `Regex` (Oniguruma semantics), literal strings, behaviours.

`find_matches` covers a text with (start, end, is_match) spans like HF's pattern.rs; `split_spans` applies
a SplitDelimiterBehavior. A user's regex runs under a time bound (`Regex.find_matches`): a pattern
that backtracks without end is an error, not a hang. No alignments here (see `engine.normalizers.normalized`).
"""

from __future__ import annotations

import time
from typing import Final

import regex

from engine import unicode_chars as uc
from engine import unicode_tables as tables
from engine.errors import EngineError, RegexTimeoutError, SchemaError
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


# A user's regex may backtrack without end: `(a|a)+$` on 30 "a"s and a "b" takes 2**30 steps.
# Oniguruma stops such a search at a retry limit (HF then raises); the `regex` module has no step
# limit but a `timeout=` in seconds of the process's CPU time, checked when a match starts and
# every 256 steps. The bound grows with the text: GPT-2's, cl100k's and o200k's patterns take
# about 0.4 s per million characters here, a tenth of what the bound allows.
REGEX_BASE_SECONDS: Final = 2.0
REGEX_SECONDS_PER_CHAR: Final = 4e-6
# How much of the text a RegexTimeoutError shows.
SHOWN_CHARS: Final = 40
# What keeps a translated pattern out of the one-call wrapper (see `Regex.find_matches`):
# numbered group references (the wrapper's group shifts the numbers), \G (the search anchor),
# \K (it moves a match's start, not a group's), fuzzy matching; flags that change the rules.
UNWRAPPABLE: Final = regex.compile(r"\\[0-9gGK]|\(\?(?:\(|[0-9+\-R&]|P>)|\{[deis]")
UNWRAPPABLE_FLAGS: Final = (
    regex.VERBOSE | regex.REVERSE | regex.VERSION1 | regex.POSIX | regex.BESTMATCH | regex.ENHANCEMATCH
)
# Every match of P in one call: at each position P as a search would find it there, else one char.
COVER_OPEN: Final = "(?:(?>("
COVER_CLOSE: Final = "))|(?s:.))*"


# Patterns whose time is linear in the text, known by their form (`is_linear`): one char, class
# or escape with at most one greedy quantifier (a failed attempt reads at most its minimum count,
# under 100 chars), or a literal. They are the Replace patterns of real tokenizers (" {2,}", "``"),
# where reading the clock for the bound would cost more than the search itself.
LINEAR_CHAR: Final = r"[^\\\[\](){}|.*+?^$]|\\[^\w\s]"
LINEAR_ATOM: Final = LINEAR_CHAR + r"|\.|\\[sSdDwWh]|\\[pP]\{\^?\w+\}|\[(?:[^\\\[\]]|\\.)+\]"
LINEAR_FORMS: Final = regex.compile(
    r"(?:" + LINEAR_ATOM + r")(?:[*+?]|\{[0-9]{1,2}(?:,[0-9]{0,2})?\})?|(?:" + LINEAR_CHAR + r")+"
)
# Equivalent linear forms of patterns the engine writes for SentencePiece's remove_extra_whitespaces
# (formats/sentencepiece), run in their place. subtle: " +\z" tries every space of a long run
# (20,000 spaces and a letter: 2.7 s, quadratic); the lookbehind lets it start only where a run starts.
LINEAR_EQUIVALENTS: Final[dict[str, str]] = {r" +\z": r"(?<! ) +\z", r"\A +| +\z": r"\A +|(?<! ) +\z"}


def is_linear(pattern: str) -> bool:
    """Whether `pattern` cannot backtrack more than linearly, by its form: `" {2,}"`, `"\\s+"`,
    `"[ab]*"` and `"``"` cannot; `"(a|a)+$"` and `" +\\z"` can (and run under a time bound)."""
    return pattern in LINEAR_EQUIVALENTS or LINEAR_FORMS.fullmatch(pattern) is not None


def regex_limit(length: int) -> float:
    """The CPU seconds a user regex may take on a text of `length` chars: 2 s + 4 s per million."""
    return REGEX_BASE_SECONDS + length * REGEX_SECONDS_PER_CHAR


def regex_timeout_error(owner: str, pattern: str, text: str, limit: float) -> RegexTimeoutError:
    """The error for a regex that ran out of time, naming the pattern and the text (shortened):
    `Split pattern '(a|a)+$' took more than 2.04 s on the text 'aaa…' (10,001 characters): ...`."""
    shown = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "\u2026"
    return RegexTimeoutError(
        f"{owner} pattern {pattern!r} took more than {limit:.3g} s on the text {shown!r}"
        f" ({len(text):,} characters): the pattern backtracks catastrophically"
    )


class Regex:
    """HF's `tokenizers.Regex`: an Oniguruma (Ruby syntax) pattern, run by the `regex` module.

    Like Oniguruma, `^`/`$` match at line boundaries, and an empty match right after the previous
    match is skipped (`a*` on "baab" matches at 0, 1-3 and 4 only). `\\p{L}` `\\p{N}` `\\s` `\\w` `\\d`
    use Oniguruma's Unicode tables whenever the text holds a char the `regex` module sees otherwise.
    """

    pattern: str
    dual: uc.DualPattern
    # a pattern that cannot backtrack more than linearly (`is_linear`): it runs without a bound
    linear: bool
    # the pattern wrapped to find all its matches in one call (see `find_matches`), made at first use
    _cover: uc.DualPattern | None
    _cover_tried: bool
    # whether the last text was mostly matches (then the wrapper is the faster way)
    _dense: bool

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        try:
            self.dual = uc.DualPattern(
                translate_onig(LINEAR_EQUIVALENTS.get(pattern, pattern)), ONIG_CLASSES, regex.MULTILINE
            )
        except (regex.error, ValueError) as error:
            raise EngineError(f"invalid regex {pattern!r}: {error}") from None
        self.linear = is_linear(pattern)
        self._cover = None
        self._cover_tried = False
        self._dense = True

    @property
    def compiled(self) -> regex.Pattern[str]:
        """The pattern with the `regex` module's own classes (exact for most text; see `for_text`)."""
        return self.dual.fast

    def for_text(self, text: str) -> regex.Pattern[str]:
        """The compiled pattern that matches `text` exactly as Oniguruma would (with no time bound:
        `find_matches` has one)."""
        return self.dual.pick(text)

    def find_matches(self, text: str, owner: str) -> list[tuple[int, int, bool]]:
        """HF's find_matches cover of `text`, or a RegexTimeoutError naming `owner` ("Split",
        "Replace"), the pattern and the text when it takes longer than `regex_limit`.

        subtle: the bound reads the CPU clock whenever a match starts, a system call (about 2 us
        here) that costs more than a short match. A pattern whose matches cover most of the text
        (a Split's) is wrapped to find all of them in ONE match of `(?:(?>(P))|(?s:.))*`, whose
        captures of group 1 are finditer's matches (faster than finditer, bound included); a
        pattern with few matches (a Replace's) runs finditer, whose search skips to them faster.
        Which way is chosen by the coverage of the previous text; both give the same spans. A
        pattern that matches empty (Oniguruma's rules apply) takes the finditer way from then on.
        """
        compiled = self.dual.pick(text)
        if self.linear:
            return find_matches_compiled(compiled, text)
        limit = regex_limit(len(text))
        spans: list[tuple[int, int]] | None = None
        try:
            cover_dual = self._cover_pattern() if self._dense else None
            if cover_dual is not None and text:
                wrapped = cover_dual.fast if compiled is self.dual.fast else cover_dual.pick(text)
                found = wrapped.match(text, timeout=limit)
                if found is not None and found.end() == len(text):
                    spans = found.spans(1)
                    for start, end in spans:
                        if start == end:
                            spans = None
                            break
                if spans is None:
                    # P matches empty (Oniguruma's rules: the finditer way), here and likely again
                    self._cover = None
            if spans is None:
                spans = _bounded_spans(compiled, text, limit)
        except TimeoutError:
            raise regex_timeout_error(owner, self.pattern, text, limit) from None
        if text:
            matched = 0
            for start, end in spans:
                matched += end - start
            self._dense = 2 * matched >= len(text)
        return cover(spans, len(text))

    def _cover_pattern(self) -> uc.DualPattern | None:
        if self._cover_tried:
            return self._cover
        self._cover_tried = True
        template = self.dual.template
        if UNWRAPPABLE.search(template) is not None or self.dual.fast.flags & UNWRAPPABLE_FLAGS:
            return None
        try:
            wrapped = uc.DualPattern(COVER_OPEN + template + COVER_CLOSE, ONIG_CLASSES, regex.MULTILINE)
        except (regex.error, ValueError):
            return None
        # subtle: the same classes disagree with HF's on the same chars; measuring again costs 40 ms.
        self.dual.pick("")
        wrapped.rare = self.dual.rare
        wrapped.ascii_fast = self.dual.ascii_fast
        self._cover = wrapped
        return wrapped

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r})"


def as_regex(pattern: str | Regex) -> Regex:
    """HF's pattern argument as a Regex: a `Regex` as is, a literal string escaped.

    subtle: as in HF, a literal is an escaped regex, so "" matches between every char.
    """
    if isinstance(pattern, Regex):
        return pattern
    escaped = Regex(regex.escape(pattern))
    escaped.linear = True
    return escaped


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
        """The (start, end, is_match) cover of `text` (in bounded time: `Regex.find_matches`)."""
        return self.matcher.find_matches(text, "Replace")

    def apply(self, text: str) -> str:
        pattern = self.pattern
        if isinstance(pattern, str) and pattern:
            # subtle: a non-empty literal: str.replace finds the same leftmost, non-overlapping
            # matches as the escaped regex, without a regex search and a cover per text (a
            # Replace decoder runs once per token)
            return text.replace(pattern, self.content)
        return self.apply_matches(text, self.matches(text))

    def apply_matches(self, text: str, matches: list[tuple[int, int, bool]]) -> str:
        """`text` with its `matches` (this pattern's cover of it) replaced by `content`."""
        if len(matches) == 1 and not matches[0][2]:
            return text  # nothing matched
        parts: list[str] = []
        for start, end, is_match in matches:
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


def _onig_spans(compiled: regex.Pattern[str], text: str, deadline: float = 0.0) -> list[tuple[int, int]]:
    """Every match as Oniguruma finds it; with a `deadline` (of `time.process_time()`), each
    search is given only what is left of the time, and TimeoutError is raised past it."""
    # subtle: Python's finditer reports an empty match right after a non-empty one; Oniguruma
    # (and the Rust regex crate) skip it and search again one char further.
    spans: list[tuple[int, int]] = []
    last_end = 0
    last_match_end = -1
    n = len(text)
    while last_end <= n:
        if deadline:
            left = deadline - time.process_time()
            if left <= 0.0:
                raise TimeoutError("regex timed out")
            m = compiled.search(text, last_end, timeout=left)
        else:
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


def _bounded_spans(compiled: regex.Pattern[str], text: str, limit: float) -> list[tuple[int, int]]:
    """The spans `find_matches_compiled` covers `text` with, raising TimeoutError when finding
    them takes more than `limit` seconds of CPU (twice that for a pattern that matches empty)."""
    spans: list[tuple[int, int]] = []
    if not text:
        return spans
    has_empty = False
    for match in compiled.finditer(text, timeout=limit):
        start, end = match.span()
        if start == end:
            has_empty = True
            break
        spans.append((start, end))
    if not has_empty:
        return spans
    # subtle: the clock is read here, not before the finditer above: it is a system call, and
    # most texts never come here.
    return _onig_spans(compiled, text, time.process_time() + limit)


def find_matches(pattern: str | Regex, text: str, owner: str = "Regex") -> list[tuple[int, int, bool]]:
    """HF's find_matches for the Python API's patterns: a `Regex` (in bounded time), or a literal
    string ("" never matches)."""
    if isinstance(pattern, Regex):
        return pattern.find_matches(text, owner)
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
