"""The Unicode report: what a text is made of, code point by code point (name, category, script,
combining class, what NFC/NFD/NFKC/NFKD do to it, and flags for what a reader cannot see or
could mistake), the text under each normal form with the ids a tokenizer gives each, and over a
corpus how many lines each normal form changes and each flag marks.

    code_points("cafe\u0301")[4] -> U+0301 COMBINING ACUTE ACCENT, Mn, Inherited, class 230,
                                   changes under NFC and NFKC (it composes with the "e")
    normal_forms("\ufb01le")      -> original "\ufb01le" | NFC "\ufb01le" | NFD "\ufb01le" | NFKC "file" | NFKD "file"

Normal forms are Python's `unicodedata` (its Unicode version: `UNICODE_VERSION`), not the engine's
normalizers (which follow HF's Unicode 9.0 tables): the report says what the standard does to the
text; the tokenizer, given each form, shows what its own pipeline makes of it. Nothing here draws
or reads a file other than the corpus it is given.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final, Literal

import regex

from engine.analysis.unicode_characters import (
    BIDI_CONTROL_CHARS,
    CATEGORY_NAMES,
    LATIN_LOOK_ALIKES,
    LOOK_ALIKE_SCRIPT,
    LOOK_ALIKE_SCRIPTS,
    ORDINARY_CONTROLS,
    ZERO_WIDTH_CHARS,
    character_name,
    code_label,
    composing_starters,
    script_of,
)
from engine.corpus.units import checked_size
from engine.errors import CorpusError
from engine.tokenizer import Tokenizer

UNICODE_VERSION: Final = unicodedata.unidata_version
Form = Literal["NFC", "NFD", "NFKC", "NFKD"]
FORMS: Final[tuple[Form, ...]] = ("NFC", "NFD", "NFKC", "NFKD")
ORIGINAL: Final = "original"

# The flags (see `char_flags` and `word_flags` for what each means exactly).
ZERO_WIDTH: Final = "zero-width"
BIDI_CONTROL: Final = "bidi-control"
UNUSUAL_SPACE: Final = "unusual-space"
CONTROL: Final = "control"
PRIVATE_USE: Final = "private-use"
UNASSIGNED: Final = "unassigned"
SURROGATE: Final = "surrogate"
MIXED_SCRIPT_WORD: Final = "mixed-script-word"
CONFUSABLE_PREFIX: Final = "confusable:"

CONFUSABLE: Final = CONFUSABLE_PREFIX + LOOK_ALIKE_SCRIPT
# Every flag a text can get, in the order reports list them.
FLAGS: Final = (
    ZERO_WIDTH, BIDI_CONTROL, UNUSUAL_SPACE, CONTROL, PRIVATE_USE, UNASSIGNED, SURROGATE, CONFUSABLE, MIXED_SCRIPT_WORD,
)  # fmt: skip

# A word, as `baselines.WORD_PATTERN` has it: a run of letters, marks and digits.
WORD_RE: Final = regex.compile(r"[\p{L}\p{M}\p{N}]+")
# A Cyrillic or Greek character: only a line with one can hold a confusable or a mixed-script word.
LOOK_ALIKE_RE: Final = regex.compile(r"[\p{Script=Cyrillic}\p{Script=Greek}]")
# The ASCII controls that are flagged (all but tab, line feed and carriage return).
ASCII_CONTROL_RE: Final = regex.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

# Examples kept per normal form and per flag in a corpus report, and how much of a line each shows.
EXAMPLES: Final = 5
# How often `corpus_forms` says how far into a file it is (bytes).
PROGRESS_BYTES: Final = 1 << 20
EXAMPLE_CHARACTERS: Final = 120
# How far before the first change or flag an example's window starts.
EXAMPLE_LEAD: Final = 40


class CodePoint:
    """One code point of a text. `offset` is its index in the text (a Python str index);
    `forms` what each normal form makes of it alone ("\ufb01" -> NFKC "fi"); `changes` the forms
    under which the text changes where it stands (in context: the "e" and the accent of
    "cafe\u0301" both change under NFC); `looks_like` the Latin letter a look-alike imitates
    ("" for others); `flags` see `char_flags` and `word_flags`."""

    character: str
    offset: int
    code: str
    name: str
    category: str
    category_name: str
    script: str
    combining: int
    forms: dict[str, str]
    changes: list[str]
    looks_like: str
    flags: set[str]

    def __init__(self, character: str, offset: int, changes: list[str], flags: set[str]) -> None:
        self.character = character
        self.offset = offset
        self.code = code_label(character)
        self.name = character_name(character)
        self.category = unicodedata.category(character)
        self.category_name = CATEGORY_NAMES.get(self.category, "")
        self.script = script_of(character)
        self.combining = unicodedata.combining(character)
        forms: dict[str, str] = {}
        for form in FORMS:
            forms[form] = unicodedata.normalize(form, character)
        self.forms = forms
        self.changes = changes
        self.looks_like = LATIN_LOOK_ALIKES.get(character, "")
        self.flags = flags

    def to_wire(self) -> dict[str, object]:
        return {
            "character": self.character, "offset": self.offset, "code": self.code, "name": self.name,
            "category": self.category, "category_name": self.category_name, "script": self.script,
            "combining": self.combining, "forms": dict(self.forms), "changes": list(self.changes),
            "looks_like": self.looks_like, "flags": sorted(self.flags),
        }  # fmt: skip

    def __repr__(self) -> str:
        return f"CodePoint({self.code} {self.name}, {self.category}, {self.script}, flags={sorted(self.flags)})"


class FormRow:
    """The text under one normal form (or the `ORIGINAL`): its string and length in code points,
    whether it equals the original, and with a tokenizer the ids and tokens it encodes to
    (without special tokens) and whether those equal the original's (None without a tokenizer)."""

    form: str
    text: str
    code_points: int
    equals_original: bool
    ids: list[int] | None
    tokens: list[str] | None
    same_ids: bool | None

    def __init__(self, form: str, text: str, original: str) -> None:
        self.form = form
        self.text = text
        self.code_points = len(text)
        self.equals_original = text == original
        self.ids = None
        self.tokens = None
        self.same_ids = None

    def to_wire(self) -> dict[str, object]:
        return {
            "form": self.form, "text": self.text, "code_points": self.code_points,
            "equals_original": self.equals_original, "ids": None if self.ids is None else list(self.ids),
            "tokens": None if self.tokens is None else list(self.tokens), "same_ids": self.same_ids,
        }  # fmt: skip

    def __repr__(self) -> str:
        return f"FormRow({self.form}, {self.text!r}, equals_original={self.equals_original}, ids={self.ids})"


class FlagSummary:
    """The flags of a text: how many code points carry each (`counts`, every flag of `FLAGS`
    present, 0 when none) and their offsets in the text, ascending (`offsets`, for highlighting)."""

    counts: dict[str, int]
    offsets: dict[str, list[int]]

    def __init__(self) -> None:
        self.counts = {}
        self.offsets = {}
        for flag in FLAGS:
            self.counts[flag] = 0
            self.offsets[flag] = []

    def add(self, flag: str, offset: int) -> None:
        if flag not in self.counts:
            self.counts[flag] = 0
            self.offsets[flag] = []
        self.counts[flag] += 1
        self.offsets[flag].append(offset)

    def to_wire(self) -> dict[str, object]:
        offsets: dict[str, list[int]] = {}
        for flag, found in self.offsets.items():
            offsets[flag] = list(found)
        return {"counts": dict(self.counts), "offsets": offsets}

    def __repr__(self) -> str:
        return f"FlagSummary({ {flag: count for flag, count in self.counts.items() if count} })"


class Example:
    """One corpus line shown as an example: its number (from 1), a window of it (`text`, starting
    at character `start` of the line), the offset in the line of the first change or flag
    (`column`), and for a normal form the same window normalized (`form_text`, "" for a flag)."""

    line_number: int
    text: str
    start: int
    column: int
    form_text: str

    def __init__(self, line_number: int, text: str, start: int, column: int, form_text: str) -> None:
        self.line_number = line_number
        self.text = text
        self.start = start
        self.column = column
        self.form_text = form_text

    def to_wire(self) -> dict[str, object]:
        return {
            "line_number": self.line_number, "text": self.text, "start": self.start, "column": self.column,
            "form_text": self.form_text,
        }  # fmt: skip

    def __repr__(self) -> str:
        return f"Example(line {self.line_number}, {self.text!r})"


class CorpusForms:
    """A corpus line by line: `lines` read (all, or up to `max_lines`: `complete` says which),
    how many lines each normal form changes (`changed`) and each flag marks (`flagged`: lines
    with at least one such code point), and up to `EXAMPLES` lines of each, the first found."""

    source: str
    lines: int
    complete: bool
    changed: dict[str, int]
    flagged: dict[str, int]
    form_examples: dict[str, list[Example]]
    flag_examples: dict[str, list[Example]]

    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = 0
        self.complete = True
        self.changed = {}
        self.form_examples = {}
        for form in FORMS:
            self.changed[form] = 0
            self.form_examples[form] = []
        self.flagged = {}
        self.flag_examples = {}
        for flag in FLAGS:
            self.flagged[flag] = 0
            self.flag_examples[flag] = []

    def to_wire(self) -> dict[str, object]:
        form_examples: dict[str, list[dict[str, object]]] = {}
        for form, examples in self.form_examples.items():
            form_examples[form] = [example.to_wire() for example in examples]
        flag_examples: dict[str, list[dict[str, object]]] = {}
        for flag, examples in self.flag_examples.items():
            flag_examples[flag] = [example.to_wire() for example in examples]
        return {
            "source": self.source, "lines": self.lines, "complete": self.complete, "changed": dict(self.changed),
            "flagged": dict(self.flagged), "form_examples": form_examples, "flag_examples": flag_examples,
        }  # fmt: skip

    def __repr__(self) -> str:
        return f"CorpusForms({self.source!r}, {self.lines} lines, changed={self.changed})"


def char_flags(character: str) -> list[str]:
    """The flags one code point carries wherever it stands:
    zero-width: one of `ZERO_WIDTH_CHARS`; bidi-control: one of `BIDI_CONTROL_CHARS`;
    unusual-space: a space separator (Zs) other than U+0020, or the line or paragraph separator
    (U+2028, U+2029): NBSP, narrow NBSP, en/em/thin/hair spaces, ideographic space...;
    control: a control (Cc) other than tab, line feed and carriage return;
    private-use (Co); surrogate (Cs, a lone half of a pair); unassigned (Cn, noncharacters included,
    as this Python's `unicodedata` knows them)."""
    found: list[str] = []
    if character in ZERO_WIDTH_CHARS:
        found.append(ZERO_WIDTH)
    if character in BIDI_CONTROL_CHARS:
        found.append(BIDI_CONTROL)
    category = unicodedata.category(character)
    if (category == "Zs" and character != " ") or category == "Zl" or category == "Zp":
        found.append(UNUSUAL_SPACE)
    elif category == "Cc":
        if character not in ORDINARY_CONTROLS:
            found.append(CONTROL)
    elif category == "Co":
        found.append(PRIVATE_USE)
    elif category == "Cs":
        found.append(SURROGATE)
    elif category == "Cn":
        found.append(UNASSIGNED)
    return found


def word_flags(text: str) -> dict[int, list[str]]:
    """The flags code points get from the word they are in (a word: a run of letters, marks and
    digits), by offset:
    confusable:Latin: a letter of `LATIN_LOOK_ALIKES` in a word that could pass for Latin: every
    letter of it Latin or a look-alike, and a Latin letter or at least two letters in it
    ("pаypal" with a Cyrillic а, "сор" all Cyrillic; not the о of "слово", whose л and в give it
    away, nor a word of one letter such as the Russian "а" or the Greek "α" of "α1");
    mixed-script-word: every code point of a word with letters of two or more of Latin, Cyrillic
    and Greek ("pаypal")."""
    flags: dict[int, list[str]] = {}
    if LOOK_ALIKE_RE.search(text) is None:
        return flags
    for match in WORD_RE.finditer(text):
        start, end = match.span()
        scripts: set[str] = set()
        passes_for_latin = True
        look_alikes = 0
        letters = 0
        for index in range(start, end):
            character = text[index]
            if not unicodedata.category(character).startswith("L"):
                continue
            letters += 1
            script = script_of(character)
            if script in LOOK_ALIKE_SCRIPTS:
                scripts.add(script)
            if character in LATIN_LOOK_ALIKES:
                look_alikes += 1
            elif script != LOOK_ALIKE_SCRIPT:
                passes_for_latin = False
        mixed = len(scripts) >= 2
        confusable = passes_for_latin and look_alikes > 0 and (LOOK_ALIKE_SCRIPT in scripts or letters >= 2)
        if not mixed and not confusable:
            continue
        for index in range(start, end):
            found: list[str] = []
            if confusable and text[index] in LATIN_LOOK_ALIKES:
                found.append(CONFUSABLE)
            if mixed:
                found.append(MIXED_SCRIPT_WORD)
            if found:
                flags[index] = found
    return flags


def flagged_offsets(text: str) -> dict[int, list[str]]:
    """Every flagged code point of `text`, by offset: its `char_flags` then its `word_flags`."""
    flags: dict[int, list[str]] = {}
    if text.isascii() and ASCII_CONTROL_RE.search(text) is None:
        return flags
    for index in range(len(text)):
        found = char_flags(text[index])
        if found:
            flags[index] = found
    for index, found in word_flags(text).items():
        if index in flags:
            flags[index].extend(found)
        else:
            flags[index] = found
    return flags


def changed_under(text: str, form: Form) -> list[bool]:
    """For each code point, whether normalizing `text` to `form` changes it where it stands:
    "cafe\u0301", NFC -> [False, False, False, True, True] (the e and the accent become one é).
    Each of `normalization_runs` is changed or not as a whole."""
    changed = [False] * len(text)
    if unicodedata.is_normalized(form, text):
        return changed
    for start, end in normalization_runs(text, form):
        run = text[start:end]
        if not unicodedata.is_normalized(form, run):
            for index in range(start, end):
                changed[index] = True
    return changed


def normalization_runs(text: str, form: Form) -> list[tuple[int, int]]:
    """The (start, end) spans of `text` that `form` normalizes independently, so that the text's
    normal form is theirs joined: a starter with the marks after it, joined with the next one
    where that one may combine with what comes before it (`composing_starters`: Hangul jamo, an
    Indic two-part vowel, a half-width voicing mark): "e\u0301x" -> [(0, 2), (2, 3)];
    "\u1100\u1161" (NFC) -> [(0, 2)]."""
    backward = composing_starters(form)
    runs: list[tuple[int, int]] = []
    n = len(text)
    run_start = 0
    index = 0
    while index < n:
        end = index + 1
        while end < n and unicodedata.combining(text[end]) != 0:
            end += 1
        if index > run_start and text[index] not in backward:
            runs.append((run_start, index))
            run_start = index
        index = end
    if n > run_start:
        runs.append((run_start, n))
    return runs


def code_points(text: str) -> list[CodePoint]:
    """Every code point of `text`, in order (see `CodePoint`)."""
    changes: list[list[str]] = []
    for _ in range(len(text)):
        changes.append([])
    for form in FORMS:
        under = changed_under(text, form)
        for index in range(len(text)):
            if under[index]:
                changes[index].append(form)
    flags = flagged_offsets(text)
    points: list[CodePoint] = []
    for index in range(len(text)):
        points.append(CodePoint(text[index], index, changes[index], set(flags.get(index, []))))
    return points


def normal_forms(text: str, tokenizer: Tokenizer | None = None) -> list[FormRow]:
    """The original text and its NFC, NFD, NFKC and NFKD forms, each with the ids `tokenizer`
    gives it (encoded without special tokens) when one is given:
    "\ufb01le" with a tokenizer whose vocabulary has "file" but no normalizer -> the original's
    ids are the unknown token's, NFKC's and NFKD's are "file"'s."""
    rows = [FormRow(ORIGINAL, text, text)]
    for form in FORMS:
        rows.append(FormRow(form, unicodedata.normalize(form, text), text))
    if tokenizer is None:
        return rows
    original_ids: list[int] = []
    for row in rows:
        encoding = tokenizer.encode(row.text, add_special_tokens=False)
        row.ids = list(encoding.ids)
        row.tokens = list(encoding.tokens)
        if row.form == ORIGINAL:
            original_ids = row.ids
        row.same_ids = row.ids == original_ids
    return rows


def flags_summary(text: str) -> FlagSummary:
    """How many code points of `text` carry each flag, and where:
    "a\u00a0b\u200bc" -> unusual-space 1 at [1], zero-width 1 at [3]."""
    summary = FlagSummary()
    flags = flagged_offsets(text)
    for index in sorted(flags):
        for flag in flags[index]:
            summary.add(flag, index)
    return summary


def corpus_forms(
    source: Iterable[str] | str | Path,
    max_lines: int | None = None,
    examples: int = EXAMPLES,
    progress: Callable[[int], None] | None = None,
) -> CorpusForms:
    """Read a corpus line by line, streamed: `source` is a path (a `str` or `Path`: a UTF-8 text
    file, CorpusError naming it and the line and byte where it is not) or any other iterable of
    lines (a line's ending, "\\n" or "\\r\\n", is not part of it). Counts the lines each normal
    form changes and each flag marks, with up to `examples` of each; stops after `max_lines`.
    `progress(bytes read)` hears of a file's progress every PROGRESS_BYTES or so."""
    if isinstance(source, (str, Path)):
        path = str(source)
        report = CorpusForms(path)
        _read_file(path, report, max_lines, examples, progress)
        return report
    report = CorpusForms("")
    for line in source:
        if max_lines is not None and report.lines >= max_lines:
            report.complete = False
            break
        _add_line(report, _without_ending(line), examples)
    return report


def _without_ending(line: str) -> str:
    if line.endswith("\n"):
        line = line[:-1].removesuffix("\r")
    return line


def _read_file(path: str, report: CorpusForms, max_lines: int | None, examples: int, progress: Callable[[int], None] | None) -> None:
    checked_size(path)
    offset = 0
    reported = 0
    try:
        with open(path, "rb") as stream:
            for raw in stream:
                if max_lines is not None and report.lines >= max_lines:
                    report.complete = False
                    break
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as error:
                    raise CorpusError(
                        path, f"line {report.lines + 1} is not valid UTF-8 ({error.reason})", offset + error.start
                    ) from None
                offset += len(raw)
                _add_line(report, _without_ending(line), examples)
                if progress is not None and offset - reported >= PROGRESS_BYTES:
                    reported = offset
                    progress(offset)
    except OSError as error:
        raise CorpusError(path, f"cannot be read ({error.strerror or error})") from None


def _add_line(report: CorpusForms, line: str, examples: int) -> None:
    report.lines += 1
    number = report.lines
    if not line.isascii():
        # subtle: ASCII is the same under every normal form, so only other lines are normalized.
        for form in FORMS:
            if unicodedata.is_normalized(form, line):
                continue
            report.changed[form] += 1
            kept = report.form_examples[form]
            if len(kept) < examples:
                normalized = unicodedata.normalize(form, line)
                column = _first_difference(line, normalized)
                start = max(0, column - EXAMPLE_LEAD)
                kept.append(
                    Example(
                        number,
                        line[start : start + EXAMPLE_CHARACTERS],
                        start,
                        column,
                        normalized[start : start + EXAMPLE_CHARACTERS],
                    )
                )
    flags = _line_flags(line)
    for flag, column in flags.items():
        if flag not in report.flagged:
            report.flagged[flag] = 0
            report.flag_examples[flag] = []
        report.flagged[flag] += 1
        kept = report.flag_examples[flag]
        if len(kept) < examples:
            start = max(0, column - EXAMPLE_LEAD)
            kept.append(Example(number, line[start : start + EXAMPLE_CHARACTERS], start, column, ""))


def _line_flags(line: str) -> dict[str, int]:
    """The flags of a line, each with the offset of its first code point (as `flagged_offsets`,
    looking at each distinct character once)."""
    first: dict[str, int] = {}
    if line.isascii():
        match = ASCII_CONTROL_RE.search(line)
        if match is not None:
            first[CONTROL] = match.start()
        return first
    for character in set(line):
        found = char_flags(character)
        if not found:
            continue
        column = line.find(character)
        for flag in found:
            known = first.get(flag)
            if known is None or column < known:
                first[flag] = column
    for index, found in word_flags(line).items():
        for flag in found:
            known = first.get(flag)
            if known is None or index < known:
                first[flag] = index
    return first


def _first_difference(a: str, b: str) -> int:
    """The first index where `a` and `b` differ (the shorter's length when one starts the other)."""
    n = min(len(a), len(b))
    for index in range(n):
        if a[index] != b[index]:
            return index
    return n
