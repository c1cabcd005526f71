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
# What `BertNormalizer._local` holds for a char whose result depends on its neighbours (no
# char becomes eight U+FFFF).
NOT_LOCAL: Final = "\uffff" * 8


class BertNormalizer(Normalizer):
    """BERT's cleanup: drop controls and map spaces, pad CJK ideographs, strip accents, lowercase.

    `strip_accents=None` follows `lowercase`, as in the original BERT.
    """

    clean_text: bool
    handle_chinese_chars: bool
    strip_accents: bool | None
    lowercase: bool
    # char -> what this normalizer makes of it wherever it stands, NOT_LOCAL when that depends
    # on its neighbours (`_local_char`), for the options in `_local_options`, filled as met
    _local: dict[str, str]
    _local_options: int
    # `_local`'s chars that become exactly one char, by code point (what str.translate reads)
    _one_to_one: dict[int, str]

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
        self._local = {}
        self._local_options = -1
        self._one_to_one = {}

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
        """`normalize_aligned` of any text, char by char through the table of what each char
        becomes (`_local_char`); None when a char does not become exactly one."""
        found = self._through_table(sequence)
        return found if isinstance(found, str) else None

    def normalize_mapped(self, sequence: str) -> NormalizedString:
        """`Normalizer.normalize_mapped`, char by char through the table of what each char
        becomes (`_local_char`): every char made from an input char comes from that char's span,
        as `normalize`'s alignments have it. A char whose result depends on its neighbours sends
        the text through `normalize`."""
        found = self._through_table(sequence)
        if isinstance(found, str):
            out = NormalizedString(sequence)
            out.normalized = found
            return out
        return found

    def normalize_for_offsets(self, sequence: str) -> str | NormalizedString:
        # (one pass through the table gives the text, or its alignments)
        if sequence.isascii():
            aligned = self.normalize_aligned(sequence)
            if aligned is not None:
                return aligned
        return self._through_table(sequence)

    def _through_table(self, sequence: str) -> str | NormalizedString:
        """`sequence` normalized char by char: the text when each char became exactly one char,
        else a NormalizedString with the alignments (through `normalize` when a char's result
        depends on its neighbours)."""
        options = (
            (1 if self.clean_text else 0) | (2 if self.handle_chinese_chars else 0)
            | (4 if self._strips_accents() else 0) | (8 if self.lowercase else 0)
        )  # fmt: skip
        local = self._local
        one_to_one = self._one_to_one
        if options != self._local_options:
            local.clear()
            one_to_one.clear()
            self._local_options = options
        # (each distinct char looked up once: when every one becomes exactly one char, as in
        # most scripts, str.translate makes the text with no alignments to keep)
        aligned = True
        for c in set(sequence):
            out = local.get(c)
            if out is None:
                made = self._local_char(c)
                out = NOT_LOCAL if made is None else made
                local[c] = out
                if len(out) == 1:
                    one_to_one[ord(c)] = out
            if out == NOT_LOCAL:
                return Normalizer.normalize_mapped(self, sequence)
            if len(out) != 1:
                aligned = False
        if aligned:
            return sequence.translate(one_to_one)
        pieces: list[str] = []
        align_start: list[int] = []
        align_end: list[int] = []
        # (alignments are written from the first char that does not become exactly one)
        aligned = True
        index = 0
        for c in sequence:
            out = local[c]
            if len(out) != 1 and aligned:
                aligned = False
                align_start = list(range(index))
                align_end = list(range(1, index + 1))
            pieces.append(out)
            if not aligned:
                for _ in range(len(out)):
                    align_start.append(index)
                    align_end.append(index + 1)
            index += 1
        text = "".join(pieces)
        if aligned:
            return text
        mapped = NormalizedString(sequence)
        mapped.normalized = text
        mapped.align_start = align_start
        mapped.align_end = align_end
        return mapped

    def _local_char(self, c: str) -> str | None:
        """What `normalize` makes of `c` wherever it stands (every char of it aligned to `c`),
        or None when that can depend on its neighbours.

        Each step works char by char but NFD's canonical reordering, which moves only chars of
        nonzero combining class: a char qualifies unless what stays of its decomposition (the
        nonspacing marks go) has such a char. "É" -> "e"; "猫" -> " 猫 "; "İ" -> "i\u0307";
        "\x07" -> ""."""
        text = c
        if self.clean_text:
            if BERT_REMOVED_RE.spans(text):
                return ""
            text = BERT_SPACE_RE.sub(" ", text)
        if self.handle_chinese_chars and CJK_RE.match(text) is not None:
            text = " " + text + " "
        if self._strips_accents():
            kept: list[str] = []
            for part in text:
                for piece in uc.decompose_char(part, False):
                    if NONSPACING_MARK_RE.spans(piece):
                        continue
                    if uc.ccc(piece) != 0:
                        return None
                    kept.append(piece)
            text = "".join(kept)
        if self.lowercase:
            text = uc.lower_str(text)
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
