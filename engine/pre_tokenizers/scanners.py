"""The fast paths of the pre-tokenizers' splits: the patterns as measured character classes
(`DualPattern`), runs of char classes scanned without a regex (`CharRuns`), GPT-2's pattern on
ASCII text, and Unicode scripts by table. Each gives the same pieces as the HF regex it stands for.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Final

import regex
from librt.vecs import vec
from mypy_extensions import i64

from engine import unicode_chars as uc
from engine import unicode_tables as tables
from engine.byte_splits import SAME_CASE, bounds_room, gpt2_bounds
from engine.pre_tokenizers.base import Cut
from engine.unicode_chars import DualPattern, slot

# (builtin `regex` class body, measured HF table) pairs for DualPattern templates.
SPACE: Final = ("\\s", tables.WHITESPACE)
# ASCII punctuation written out, since \p{P} leaves out $+<=>^`|~.
PUNCT: Final = ("\\p{P}!-/:-@\\[-`{-~", tables.PUNCTUATION)
NUMERIC: Final = ("\\p{N}", tables.NUMERIC)
SLOT0: Final = slot(0)
SLOT1: Final = slot(1)
SLOT2: Final = slot(2)
# Whitespace: `\w+|[^\w\s]+` with the Rust regex crate's classes.
WHITESPACE_RE: Final = DualPattern(
    f"[{SLOT0}]+|[^{SLOT0}{SLOT1}]+", [("\\w", tables.RUST_WORD), SPACE], ascii=True
)
NOT_SPACES_RE: Final = DualPattern(f"[^{SLOT0}]+", [SPACE], ascii=True)
BERT_RE: Final = DualPattern(f"[{SLOT0}]|[^{SLOT0}{SLOT1}]+", [PUNCT, SPACE], ascii=True)
PUNCT_RE: Final = DualPattern(f"[{SLOT0}]", [PUNCT], ascii=True)
PUNCT_PIECES_RE: Final = DualPattern(f"[{SLOT0}]|[^{SLOT0}]+", [PUNCT], ascii=True)
DIGITS_INDIVIDUAL_RE: Final = DualPattern(f"[{SLOT0}]|[^{SLOT0}]+", [NUMERIC], ascii=True)
DIGITS_CONTIGUOUS_RE: Final = DualPattern(f"[{SLOT0}]+|[^{SLOT0}]+", [NUMERIC], ascii=True)
# GPT-2's pattern, with Oniguruma's \p{L} \p{N} \s (\S is [^\s]).
GPT2_RE: Final = DualPattern(
    f"'s|'t|'re|'ve|'m|'ll|'d| ?[{SLOT0}]+| ?[{SLOT1}]+| ?[^{SLOT2}{SLOT0}{SLOT1}]+"
    f"|[{SLOT2}]+(?![^{SLOT2}])|[{SLOT2}]+",
    [("\\p{L}", tables.ONIG_LETTER), ("\\p{N}", tables.ONIG_NUMBER), SPACE],
)

RUN_DROP: Final = 0
RUN_SINGLE: Final = -1


class CharRuns:
    """A split made of runs of char classes, scanned directly (about twice as fast as the regex):
    each char is dropped (RUN_DROP), a piece alone (RUN_SINGLE), or joins the run of its class
    (> 0) it is in. ASCII chars are read from `classes` (by code point, 128 entries); any other
    char's kind is asked of the exact classes once (`kind`), in the order the regex tries them.

    Whitespace's `\\w+|[^\\w\\s]+` is runs of word chars (1) and of other chars (2), spaces
    dropped; BERT's is single punctuation chars and runs of the rest, spaces dropped.
    """

    classes: list[int]
    # the exact classes, as `unicode_tables` specs: single chars, each run class, dropped chars
    single: str
    runs: list[str]
    dropped: str
    _kinds: uc.KindTable
    # (compiled at the first non-ASCII char: single, runs..., dropped)
    _patterns: list[regex.Pattern[str]]

    def __init__(self, classes: list[int], single: str, runs: list[str], dropped: str) -> None:
        self.classes = classes
        self.single = single
        self.runs = runs
        self.dropped = dropped
        self._kinds = uc.KindTable()
        self._patterns = []

    @staticmethod
    def of(single: str, runs: list[str], dropped: str) -> CharRuns:
        """Classes from `unicode_tables` specs: `runs[k]` is class k + 1; a char in no spec
        joins a run of its own class after them."""
        singles = uc.char_set(single, 0x80) if single else frozenset[str]()
        drops = uc.char_set(dropped, 0x80)
        run_sets = [uc.char_set(spec, 0x80) for spec in runs]
        classes: list[int] = []
        for cp in range(128):
            c = chr(cp)
            if c in drops:
                classes.append(RUN_DROP)
            elif c in singles:
                classes.append(RUN_SINGLE)
            else:
                found = len(run_sets) + 1
                for k in range(len(run_sets)):
                    if c in run_sets[k]:
                        found = k + 1
                        break
                classes.append(found)
        return CharRuns(classes, single, runs, dropped)

    def kind(self, c: str) -> int:
        """What the split does with `c`: RUN_DROP, RUN_SINGLE, or the class of its run."""
        code = ord(c)
        if code < 0x80:
            return self.classes[code]
        found = self._kinds.known(code)
        if found == uc.UNKNOWN_KIND:
            found = self._kind_of(c)
            self._kinds.remember(code, found)
        return found

    def _kind_of(self, c: str) -> int:
        # (in the regex's order: a single char first, then each run's class, then a dropped char)
        patterns = self._patterns
        if not patterns:
            for spec in [self.single] + self.runs + [self.dropped]:
                patterns.append(regex.compile("[" + tables.regex_class(spec) + "]" if spec else "(?!)"))
        if patterns[0].match(c) is not None:
            return RUN_SINGLE
        for k in range(len(self.runs)):
            if patterns[k + 1].match(c) is not None:
                return k + 1
        if patterns[len(patterns) - 1].match(c) is not None:
            return RUN_DROP
        return len(self.runs) + 1

    def cut(self, text: str) -> Cut:
        """The pieces of `text`."""
        out = Cut()
        self._scan(text, out, True)
        return out

    def words(self, text: str) -> list[str]:
        """`cut(text).words`, without the positions (the word counting path)."""
        out = Cut()
        self._scan(text, out, False)
        return out.words

    def _scan(self, text: str, out: Cut, positions: bool) -> None:
        if not text.isascii():
            self._scan_any(text, out, positions)
            return
        classes = self.classes
        n = len(text)
        i = 0
        while i < n:
            kind = classes[ord(text[i])]
            if kind == RUN_DROP:
                i += 1
                continue
            j = i + 1
            if kind != RUN_SINGLE:
                while j < n and classes[ord(text[j])] == kind:
                    j += 1
            if positions:
                out.add(text[i:j], i, j)
            else:
                out.words.append(text[i:j])
            i = j

    def _scan_any(self, text: str, out: Cut, positions: bool) -> None:
        # (`_scan` with each char's kind from `kind`: one pass, a run closed when the kind changes)
        start = 0
        run = RUN_DROP
        index = 0
        n = len(text)
        kinds = self._kinds
        while index < n:
            code = ord(text[index])
            kind = self.classes[code] if code < 0x80 else kinds.known(code)
            if kind == uc.UNKNOWN_KIND:
                kind = self._kind_of(text[index])
                kinds.remember(code, kind)
            if run != RUN_DROP and (kind != run or run == RUN_SINGLE):
                if positions:
                    out.add(text[start:index], start, index)
                else:
                    out.words.append(text[start:index])
                run = RUN_DROP
            if kind != RUN_DROP and run == RUN_DROP:
                start = index
                run = kind
            index += 1
        if run != RUN_DROP:
            if positions:
                out.add(text[start:index], start, index)
            else:
                out.words.append(text[start:index])


WHITESPACE_RUNS: Final = CharRuns.of("", [tables.RUST_WORD], tables.WHITESPACE)
NOT_SPACES_RUNS: Final = CharRuns.of("", [], tables.WHITESPACE)
BERT_RUNS: Final = CharRuns.of(tables.PUNCTUATION, [], tables.WHITESPACE)


def gpt2_ascii_words(text: str, mapped: str) -> list[str]:
    """GPT-2's split of an ASCII `text` (GPT2_RE), as the pieces of `mapped` (its byte-level
    chars, same length), by a scan of its bytes (`byte_splits.gpt2_bounds`): about twice as
    fast as the regex."""
    data = text.encode("ascii")
    bounds = bounds_room(vec[i64](), len(data))
    n = gpt2_bounds(data, 0, len(data), False, SAME_CASE, bounds)
    words: list[str] = []
    for k in range(0, n, 2):
        words.append(mapped[bounds[k] : bounds[k + 1]])
    return words


ANY_SCRIPT: Final = -1


def _script_table() -> tuple[list[int], list[int], list[int]]:
    starts: list[int] = []
    ends: list[int] = []
    classes: list[int] = []
    for word in tables.SCRIPTS.split():
        span, _, klass = word.partition(":")
        first, _, last = span.partition("-")
        starts.append(int(first, 16))
        ends.append(int(last or first, 16))
        classes.append(int(klass))
    return starts, ends, classes


SCRIPT_TABLE: Final = _script_table()
SCRIPT_STARTS: Final = SCRIPT_TABLE[0]
SCRIPT_ENDS: Final = SCRIPT_TABLE[1]
SCRIPT_CLASSES: Final = SCRIPT_TABLE[2]


def script_of(c: str) -> int:
    """HF UnicodeScripts' class of `c` (Hiragana/Katakana count as Han); ANY_SCRIPT for ' ' and unknowns."""
    cp = ord(c)
    if cp == 0x20:
        return ANY_SCRIPT
    i = bisect_right(SCRIPT_STARTS, cp) - 1
    if i >= 0 and cp <= SCRIPT_ENDS[i]:
        return SCRIPT_CLASSES[i]
    return ANY_SCRIPT


def script_spans(text: str) -> list[tuple[int, int]]:
    """Where UnicodeScripts cuts `text`: a new piece wherever the script changes (`Any` chars join
    the piece before them; leading `Any` chars are dropped, as HF does)."""
    cuts: list[int] = []
    last = -2
    for i in range(len(text)):
        script = script_of(text[i])
        if script != ANY_SCRIPT:
            if script != last:
                cuts.append(i)
            last = script
    cuts.append(len(text))
    out: list[tuple[int, int]] = []
    for i in range(len(cuts) - 1):
        out.append((cuts[i], cuts[i + 1]))
    return out
