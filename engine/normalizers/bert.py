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
            return None
        text = sequence
        if self.clean_text:
            # subtle: ASCII controls other than \t\n\r are removed, which moves alignments.
            text = text.translate(BERT_ASCII_TABLE)
            if len(text) != len(sequence):
                return None
        return text.lower() if self.lowercase else text

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
