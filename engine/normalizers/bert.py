"""`BertNormalizer`: BERT's clean-up (controls out, whitespace to spaces), spaces around
CJK ideographs, accents stripped and lowercasing, as HF's `normalizers/bert.rs`.
"""

from __future__ import annotations

from typing import Final

import regex

from engine import unicode_chars as uc
from engine import unicode_tables as tables
from engine.normalizers.normalized import WHITESPACE_CLASS, NormalizedString
from engine.normalizers.base import ONE_OF, Normalizer
from engine.normalizers.unicode import NONSPACING_MARK_RE
from engine.schema import JsonValue

# Cc without \t\n\r, Cf Co Cs, U+FFFD (NUL is in Cc).
BERT_REMOVED_BUILTIN: Final = "\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f\\p{Cf}\\p{Co}\\p{Cs}\\ufffd"
BERT_REMOVED_RE: Final = uc.DualPattern(
    ONE_OF, [(BERT_REMOVED_BUILTIN, tables.BERT_CLEAN_REMOVED)], ascii=True
)
BERT_SPACE_RE: Final = regex.compile("[" + WHITESPACE_CLASS + "]")


def _bert_ascii_table() -> dict[int, str | None]:
    # clean_text on ASCII in one str.translate: controls go, whitespace becomes " ".
    removed = uc.char_set(tables.BERT_CLEAN_REMOVED, 0x80)
    spaces = uc.char_set(tables.WHITESPACE, 0x80)
    table: dict[int, str | None] = {}
    for cp in range(0x80):
        if chr(cp) in removed:
            table[cp] = None
        elif chr(cp) in spaces and cp != 0x20:
            table[cp] = " "
    return table


BERT_ASCII_TABLE: Final = _bert_ascii_table()
# BERT's "Chinese" blocks (CJK ideographs and their extensions/compatibility blocks).
CJK_CLASS: Final = (
    "\u4e00-\u9fff\u3400-\u4dbf\U00020000-\U0002a6df\U0002a700-\U0002b73f"
    "\U0002b740-\U0002b81f\U0002b920-\U0002ceaf\uf900-\ufaff\U0002f800-\U0002fa1f"
)
CJK_RE: Final = regex.compile("[" + CJK_CLASS + "]")


class BertNormalizer(Normalizer):
    """BERT's cleanup: drop controls and map spaces, pad CJK ideographs, strip accents, lowercase.

    `strip_accents=None` follows `lowercase`, as in the original BERT.
    """

    clean_text: bool
    handle_chinese_chars: bool
    strip_accents: bool | None
    lowercase: bool
    # code point -> its normalized char where this normalizer maps it to exactly one char in
    # place, else "" (`_aligned_char`); for the options in `_aligned_options`, filled as met
    _aligned: dict[int, str]
    _aligned_options: int

    def __init__(
        self,
        clean_text: bool = True,
        handle_chinese_chars: bool = True,
        strip_accents: bool | None = None,
        lowercase: bool = True,
    ) -> None:
        self.clean_text = clean_text
        self.handle_chinese_chars = handle_chinese_chars
        self.strip_accents = strip_accents
        self.lowercase = lowercase
        self._aligned = {}
        self._aligned_options = -1

    def _strips_accents(self) -> bool:
        return self.strip_accents if self.strip_accents is not None else self.lowercase

    def normalize(self, normalized: NormalizedString) -> None:
        if self.clean_text:
            normalized.remove_matching(BERT_REMOVED_RE)
            normalized.map_chars(BERT_SPACE_RE.sub(" ", normalized.normalized))
        if self.handle_chinese_chars:
            text = normalized.normalized
            if CJK_RE.search(text) is not None:
                dest: list[str] = []
                changes: list[int] = []
                for c in text:
                    if CJK_RE.match(c) is not None:
                        dest += [" ", c, " "]
                        changes += [0, 1, 1]
                    else:
                        dest.append(c)
                        changes.append(0)
                normalized.transform(dest, changes, 0)
        if self._strips_accents():
            normalized.nfd()
            normalized.remove_matching(NONSPACING_MARK_RE)
        if self.lowercase:
            normalized.lowercase()

    def normalize_aligned(self, sequence: str) -> str | None:
        if not sequence.isascii():
            return self._normalize_aligned_chars(sequence)
        text = sequence
        if self.clean_text:
            # subtle: ASCII controls other than \t\n\r are removed, which moves alignments.
            text = text.translate(BERT_ASCII_TABLE)
            if len(text) != len(sequence):
                return None
        return text.lower() if self.lowercase else text

    def _normalize_aligned_chars(self, sequence: str) -> str | None:
        """`normalize_aligned` of any text: char by char through a table of what each char
        becomes (one char, or "" when it becomes none or several), None when a char does not
        map to exactly one (then the text's length changes and `normalize` aligns it)."""
        options = (
            (1 if self.clean_text else 0) | (2 if self.handle_chinese_chars else 0)
            | (4 if self._strips_accents() else 0) | (8 if self.lowercase else 0)
        )  # fmt: skip
        table = self._aligned
        if options != self._aligned_options:
            table.clear()
            self._aligned_options = options
        for c in set(sequence):
            if ord(c) not in table:
                table[ord(c)] = self._aligned_char(c)
        # (an unaligned char maps to "": translate drops it, and the length tells)
        out = sequence.translate(table)
        return out if len(out) == len(sequence) else None

    def _aligned_char(self, c: str) -> str:
        """What `normalize` makes of `c` when it makes exactly one char in its place whatever
        surrounds it (its alignment then stays (i, i + 1)), else "".

        Each step works char by char but NFD's canonical reordering, which moves only chars of
        nonzero combining class: a char qualifies when its decomposition is one starter (class
        0) that stays, then nonspacing marks that go (so nothing that stays ever moves), and
        its lowercase is one char outside Rust's extra mappings (`uc.lower_str` applies those
        to a whole text at once)."""
        text = c
        if self.clean_text:
            if BERT_REMOVED_RE.spans(text):
                return ""
            text = BERT_SPACE_RE.sub(" ", text)
        if self.handle_chinese_chars and CJK_RE.match(text) is not None:
            return ""
        if self._strips_accents():
            parts = uc.decompose_char(text, False)
            if not parts or uc.ccc(parts[0]) != 0 or NONSPACING_MARK_RE.spans(parts[0]):
                return ""
            for k in range(1, len(parts)):
                if not NONSPACING_MARK_RE.spans(parts[k]):
                    return ""
            text = parts[0]
        if self.lowercase:
            if ord(text) in tables.LOWER_EXTRA:
                return ""
            text = uc.lower_str(text)
            if len(text) != 1 or ord(text) in tables.LOWER_EXTRA:
                return ""
        return text

    def normalize_str(self, sequence: str) -> str:
        text = sequence
        if text.isascii():
            # no CJK, no accents in ASCII: only the cleanup and the lowercase can change it
            if self.clean_text:
                text = text.translate(BERT_ASCII_TABLE)
            return text.lower() if self.lowercase else text
        if self.clean_text:
            text = BERT_SPACE_RE.sub(" ", BERT_REMOVED_RE.sub("", text))
        if self.handle_chinese_chars:
            text = CJK_RE.sub(_pad_match, text)
        if self._strips_accents():
            text = uc.normalize_str(text, "NFD")
            text = NONSPACING_MARK_RE.sub("", text)
        if self.lowercase:
            text = uc.lower_str(text)
        return text

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "type": "BertNormalizer",
            "clean_text": self.clean_text,
            "handle_chinese_chars": self.handle_chinese_chars,
            "strip_accents": self.strip_accents,
            "lowercase": self.lowercase,
        }


def _pad_match(m: regex.Match[str]) -> str:
    return " " + m.group() + " "
