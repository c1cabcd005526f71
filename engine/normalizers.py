"""The normalize stage: HF's normalizers (NFC ... BertNormalizer, Precompiled, Sequence), JSON in and out.

Each edits a `NormalizedString` in place (keeping alignments) and has a string-only fast path,
`normalize_str`, that gives the same text. Precompiled reads SentencePiece charsmaps (not .model files).
"""

from __future__ import annotations

import base64
import collections.abc
from abc import ABC, abstractmethod
from typing import Final

import regex
from mypy_extensions import mypyc_attr

from engine import byte_level, metaspace
from engine import unicode_chars as uc
from engine import unicode_tables as tables
from engine.errors import SchemaError
from engine.schema import JsonValue, check_nesting, expect_object, get_bool, get_list, get_opt_bool, get_str, require, type_tag
from engine.normalized import (
    LEADING_SPACES_RE,
    TRAILING_SPACES_RE,
    WHITESPACE_CLASS,
    NormalizedString,
)
from engine.pattern import Regex, Replacement

ONE_OF: Final = "[" + uc.slot(0) + "]"
COMBINING_MARK_RE: Final = uc.DualPattern(ONE_OF, [("\\p{M}", tables.COMBINING_MARK)], ascii=True)
NONSPACING_MARK_RE: Final = uc.DualPattern(
    ONE_OF, [("\\p{Mn}", tables.NONSPACING_MARK)], ascii=True
)
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
# Nmt: control chars it deletes, and chars it turns into a space.
NMT_REMOVED_RE: Final = uc.DualPattern(
    ONE_OF, [("\\x01-\\x08\\x0b\\x0e-\\x1f\\x7f\\x8f\\x9f", "1-8 b e-1f 7f 8f 9f")], ascii=True
)
NMT_SPACES_RE: Final = regex.compile(
    "[\t\n\x0c\r\u1680\u200b-\u200f\u2028\u2029\u2581\ufeff\ufffd]"
)


@mypyc_attr(allow_interpreted_subclasses=True)
class Normalizer(ABC):
    """Base class of the normalizers: `normalize` edits in place, `normalize_str` returns the text."""

    @abstractmethod
    def normalize(self, normalized: NormalizedString) -> None:
        """Normalize `normalized` in place, keeping its alignments."""

    def normalize_str(self, sequence: str) -> str:
        """The normalized text of `sequence` (same text as `normalize` on a fresh NormalizedString)."""
        normalized = NormalizedString(sequence)
        self.normalize(normalized)
        return normalized.normalized

    def normalize_aligned(self, sequence: str) -> str | None:
        """The normalized text when it maps `sequence` char for char (normalized char i comes
        from original char i, so offsets need no alignment), else None. The encode fast path
        asks this first; None sends the text through `normalize`."""
        return None

    @abstractmethod
    def to_dict(self) -> dict[str, JsonValue]:
        """The tokenizer.json object of this normalizer, keys in HF's order."""

    def __repr__(self) -> str:
        fields = self.to_dict()
        name = str(fields.pop("type"))
        return name + "(" + ", ".join(f"{k}={v!r}" for k, v in fields.items()) + ")"


class NFD(Normalizer):
    """Canonical decomposition (`"é"` -> `"e\\u0301"`)."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.nfd()

    def normalize_str(self, sequence: str) -> str:
        return uc.normalize_str(sequence, "NFD")

    def normalize_aligned(self, sequence: str) -> str | None:
        return None if uc.needs_normalization(sequence, "NFD") else sequence

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "NFD"}


class NFKD(Normalizer):
    """Compatibility decomposition (`"ﬁ"` -> `"fi"`)."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.nfkd()

    def normalize_str(self, sequence: str) -> str:
        return uc.normalize_str(sequence, "NFKD")

    def normalize_aligned(self, sequence: str) -> str | None:
        return None if uc.needs_normalization(sequence, "NFKD") else sequence

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "NFKD"}


class NFC(Normalizer):
    """Canonical decomposition then composition (`"e\\u0301"` -> `"é"`)."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.nfc()

    def normalize_str(self, sequence: str) -> str:
        return uc.normalize_str(sequence, "NFC")

    def normalize_aligned(self, sequence: str) -> str | None:
        return None if uc.needs_normalization(sequence, "NFC") else sequence

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "NFC"}


class NFKC(Normalizer):
    """Compatibility decomposition then canonical composition."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.nfkc()

    def normalize_str(self, sequence: str) -> str:
        return uc.normalize_str(sequence, "NFKC")

    def normalize_aligned(self, sequence: str) -> str | None:
        return None if uc.needs_normalization(sequence, "NFKC") else sequence

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "NFKC"}


class Lowercase(Normalizer):
    """Lowercase char by char (Rust semantics: no final sigma, `"İ"` -> `"i̇"`)."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.lowercase()

    def normalize_str(self, sequence: str) -> str:
        return uc.lower_str(sequence)

    def normalize_aligned(self, sequence: str) -> str | None:
        # subtle: Rust never lowers a char to nothing, so an equal length means one for one.
        lowered = uc.lower_str(sequence)
        return lowered if len(lowered) == len(sequence) else None

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Lowercase"}


class StripAccents(Normalizer):
    """Remove combining marks (Unicode 9.0 `M*`); meant to follow NFD/NFKD."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.remove_matching(COMBINING_MARK_RE)

    def normalize_str(self, sequence: str) -> str:
        return COMBINING_MARK_RE.sub("", sequence)

    def normalize_aligned(self, sequence: str) -> str | None:
        return sequence if sequence.isascii() else None

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "StripAccents"}


class Strip(Normalizer):
    """Remove leading (`left`) and/or trailing (`right`) whitespace."""

    left: bool
    right: bool

    def __init__(self, left: bool = True, right: bool = True) -> None:
        self.left = left
        self.right = right

    def normalize(self, normalized: NormalizedString) -> None:
        if self.left and self.right:
            normalized.strip()
        elif self.left:
            normalized.lstrip()
        elif self.right:
            normalized.rstrip()

    def normalize_str(self, sequence: str) -> str:
        start = 0
        end = len(sequence)
        if self.left:
            m = LEADING_SPACES_RE.match(sequence)
            if m is not None:
                start = m.end()
        if self.right:
            m = TRAILING_SPACES_RE.search(sequence, start)
            if m is not None:
                end = m.start()
        return sequence[start:end] if start < end else ""

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Strip", "strip_left": self.left, "strip_right": self.right}


class Replace(Normalizer):
    """Replace every match of `pattern` (a literal string or a `Regex`) by `content`."""

    replacement: Replacement

    def __init__(self, pattern: str | Regex, content: str) -> None:
        self.replacement = Replacement(pattern, content)

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.replace_matches(self.replacement.matches(normalized.normalized), self.replacement.content)

    def normalize_str(self, sequence: str) -> str:
        return self.replacement.apply(sequence)

    def normalize_aligned(self, sequence: str) -> str | None:
        one_char = len(self.replacement.content) == 1
        for start, end, is_match in self.replacement.matches(sequence):
            if is_match and not (one_char and end - start == 1):
                return None  # a span of another length than its replacement moves alignments
        return self.replacement.apply(sequence)

    def to_dict(self) -> dict[str, JsonValue]:
        return self.replacement.to_dict()


class Prepend(Normalizer):
    """Put `prepend` in front of any non-empty string (its chars align with the first char)."""

    prepend: str

    def __init__(self, prepend: str = metaspace.REPLACEMENT) -> None:
        self.prepend = prepend

    def normalize(self, normalized: NormalizedString) -> None:
        if normalized.normalized:
            normalized.prepend(self.prepend)

    def normalize_str(self, sequence: str) -> str:
        return self.prepend + sequence if sequence else sequence

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Prepend", "prepend": self.prepend}


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


class Nmt(Normalizer):
    """SentencePiece's NMT cleanup: drop some controls, turn other spaces/separators into ' '."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.remove_matching(NMT_REMOVED_RE)
        normalized.map_chars(NMT_SPACES_RE.sub(" ", normalized.normalized))

    def normalize_str(self, sequence: str) -> str:
        return NMT_SPACES_RE.sub(" ", NMT_REMOVED_RE.sub("", sequence))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Nmt"}


class ByteLevel(Normalizer):
    """Replace each UTF-8 byte by its GPT-2 byte-level char (`"é"` -> `"Ã©"`)."""

    @staticmethod
    def alphabet() -> list[str]:
        return list(byte_level.BYTES_TO_UNICODE)

    def normalize(self, normalized: NormalizedString) -> None:
        byte_level_transform(normalized)

    def normalize_str(self, sequence: str) -> str:
        return byte_level.to_chars(sequence)

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "ByteLevel"}


def byte_level_transform(normalized: NormalizedString) -> None:
    """Each char becomes the byte-level chars of its UTF-8 bytes; extra bytes align with their char."""
    text = normalized.normalized
    if not text:
        return
    if text.isascii():
        normalized.map_chars(byte_level.to_chars(text))
        return
    dest: list[str] = []
    changes: list[int] = []
    for c in text:
        mapped = byte_level.to_chars(c)
        for i in range(len(mapped)):
            dest.append(mapped[i])
            changes.append(1 if i > 0 else 0)
    normalized.transform(dest, changes, 0)


# Precompiled: graphemes shorter than this many UTF-8 bytes are looked up whole first (HF).
PRECOMPILED_WHOLE_GRAPHEME_BYTES: Final = 6
# A cached lookup of a chunk with no rule (a replacement never holds NUL).
NO_RULE: Final = "\x00"
GRAPHEME_RE: Final = regex.compile(r"\X")


class Precompiled(Normalizer):
    """SentencePiece's compiled normalization rules (`precompiled_charsmap` of a .model), as HF.

    The blob is `<uint32 LE trie size><darts-clone double array><NUL-terminated replacements>`.
    Each grapheme shorter than 6 UTF-8 bytes is looked up whole, else char by char; a lookup takes
    the SHORTEST rule that is a prefix of the chunk and replaces the whole chunk (HF's quirk).
    """

    precompiled_charsmap: bytes
    _units: list[int]
    _replacements: bytes
    _cache: dict[str, str]
    _ascii_rules: regex.Pattern[str] | None

    def __init__(self, precompiled_charsmap: bytes) -> None:
        blob = bytes(precompiled_charsmap)
        if len(blob) < 4:
            raise ValueError("Cannot parse precompiled_charsmap")
        trie_size = int.from_bytes(blob[0:4], "little")
        count = trie_size // 4
        if 4 + count * 4 > len(blob):
            raise ValueError("Cannot parse precompiled_charsmap")
        units: list[int] = []
        for k in range(count):
            at = 4 + 4 * k
            units.append(int.from_bytes(blob[at : at + 4], "little"))
        replacements = blob[4 + count * 4 :]
        try:
            replacements.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("Cannot parse precompiled_charsmap: the replacements are not UTF-8") from None
        self.precompiled_charsmap = blob
        self._units = units
        self._replacements = replacements
        self._cache = {}
        ruled = ""
        for cp in range(0x80):
            if self._search(chr(cp)) != NO_RULE:
                ruled += regex.escape(chr(cp))
        pattern = "[" + ruled + "]" if ruled else ""
        if self._search("\r\n") != NO_RULE and "\r" not in ruled:
            pattern = pattern + "|\r\n" if pattern else "\r\n"
        self._ascii_rules = regex.compile(pattern) if pattern else None

    def _search(self, chunk: str) -> str:
        """The replacement of the shortest rule prefixing `chunk`, or NO_RULE (darts-clone's
        common prefix search over the UTF-8 bytes, stopping at a NUL byte)."""
        units = self._units
        if not units:
            return NO_RULE
        size = len(units)
        unit = units[0]
        pos = (unit >> 10) << ((unit & 0x200) >> 6)
        for byte in chunk.encode("utf-8"):
            if byte == 0:
                break
            pos ^= byte
            if pos >= size:
                return NO_RULE
            unit = units[pos]
            if (unit & 0x800000FF) != byte:
                return NO_RULE
            pos ^= (unit >> 10) << ((unit & 0x200) >> 6)
            if (unit >> 8) & 1:
                if pos >= size:
                    return NO_RULE
                start = units[pos] & 0x7FFFFFFF
                end = self._replacements.find(b"\x00", start)
                if end < 0:
                    end = len(self._replacements)
                return self._replacements[start:end].decode("utf-8", "replace")
        return NO_RULE

    def transform(self, chunk: str) -> str | None:
        """The replacement of `chunk` (a grapheme or a char), None when no rule applies.

        Precompiled(nmt_nfkc_blob).transform("ﬁ") -> "fi"
        """
        found = self._cache.get(chunk)
        if found is None:
            found = self._search(chunk)
            if len(self._cache) < 65536:
                self._cache[chunk] = found
        return None if found == NO_RULE else found

    def _untouched(self, text: str) -> bool:
        # ASCII text with no ruled char is left as is (the common case, no grapheme split needed)
        if not text.isascii():
            return False
        return self._ascii_rules is None or self._ascii_rules.search(text) is None

    def normalize_aligned(self, sequence: str) -> str | None:
        if self._untouched(sequence):
            return sequence
        # subtle: a text the rules leave as it is keeps every char where it was.
        return sequence if self.normalize_str(sequence) == sequence else None

    def normalize(self, normalized: NormalizedString) -> None:
        text = normalized.normalized
        if self._untouched(text):
            return
        dest: list[str] = []
        changes: list[int] = []
        modified = False
        for grapheme in GRAPHEME_RE.findall(text):
            if len(grapheme) == 1 or len(grapheme.encode("utf-8")) < PRECOMPILED_WHOLE_GRAPHEME_BYTES:
                found = self.transform(grapheme)
                if found is not None:
                    modified = True
                    _precompiled_replace(dest, changes, len(grapheme), found)
                    continue
                if len(grapheme) == 1:
                    dest.append(grapheme)
                    changes.append(0)
                    continue
            for c in grapheme:
                found = self.transform(c)
                if found is not None:
                    modified = True
                    _precompiled_replace(dest, changes, 1, found)
                else:
                    dest.append(c)
                    changes.append(0)
        if modified:
            normalized.transform(dest, changes, 0)

    def normalize_str(self, sequence: str) -> str:
        if self._untouched(sequence):
            return sequence
        parts: list[str] = []
        for grapheme in GRAPHEME_RE.findall(sequence):
            if len(grapheme) == 1 or len(grapheme.encode("utf-8")) < PRECOMPILED_WHOLE_GRAPHEME_BYTES:
                found = self.transform(grapheme)
                if found is not None:
                    parts.append(found)
                    continue
                if len(grapheme) == 1:
                    parts.append(grapheme)
                    continue
            for c in grapheme:
                found = self.transform(c)
                parts.append(c if found is None else found)
        return "".join(parts)

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(self.precompiled_charsmap).decode("ascii")}

    def __repr__(self) -> str:
        return f"Precompiled(precompiled_charsmap=<{len(self.precompiled_charsmap)} bytes>)"


def _precompiled_replace(dest: list[str], changes: list[int], old_count: int, new: str) -> None:
    """Append `new` as the replacement of `old_count` chars, HF's way: extra chars count as
    inserted (the LAST ones), and missing chars are removed after the last char appended.

    subtle: a removal is charged to the last entry so far, which may belong to an earlier chunk,
    and is lost when nothing precedes it (HF does exactly this).
    """
    for c in new:
        dest.append(c)
        changes.append(0)
    diff = len(new) - old_count
    if diff > 0:
        for k in range(len(changes) - diff, len(changes)):
            changes[k] = 1
    elif diff < 0 and changes:
        changes[len(changes) - 1] += diff


class Sequence(Normalizer):
    """Several normalizers, applied in order."""

    normalizers: list[Normalizer]

    def __init__(self, normalizers: collections.abc.Sequence[Normalizer]) -> None:
        self.normalizers = list(normalizers)

    def __len__(self) -> int:
        return len(self.normalizers)

    def __getitem__(self, index: int) -> Normalizer:
        return self.normalizers[index]

    def __setitem__(self, index: int, value: Normalizer) -> None:
        self.normalizers[index] = value

    def normalize(self, normalized: NormalizedString) -> None:
        for normalizer in self.normalizers:
            normalizer.normalize(normalized)

    def normalize_str(self, sequence: str) -> str:
        text = sequence
        for normalizer in self.normalizers:
            text = normalizer.normalize_str(text)
        return text

    def normalize_aligned(self, sequence: str) -> str | None:
        text: str | None = sequence
        for normalizer in self.normalizers:
            if text is None:
                return None
            text = normalizer.normalize_aligned(text)
        return text

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Sequence", "normalizers": [n.to_dict() for n in self.normalizers]}


# -- tokenizer.json ------------------------------------------------------------------------------


def _legacy_type(data: dict[str, object]) -> str:
    # HF falls back to untagged matching, in this order; these shapes load without a "type".
    if "clean_text" in data and "handle_chinese_chars" in data and "lowercase" in data:
        return "BertNormalizer"
    if "strip_left" in data and "strip_right" in data:
        return "Strip"
    if "normalizers" in data:
        return "Sequence"
    if "pattern" in data and "content" in data:
        return "Replace"
    if "prepend" in data:
        return "Prepend"
    raise SchemaError("normalizer without a 'type' field matches no known normalizer")


def from_dict(data: object) -> Normalizer:
    """Build a normalizer from its tokenizer.json object (HF's field names, defaults and legacy forms)."""
    data = expect_object(data, "normalizer")
    check_nesting(data, "normalizer")
    kind = type_tag(data, "normalizer")
    if kind is None:
        kind = _legacy_type(data)
    if kind == "NFC":
        return NFC()
    if kind == "NFD":
        return NFD()
    if kind == "NFKC":
        return NFKC()
    if kind == "NFKD":
        return NFKD()
    if kind == "Lowercase":
        return Lowercase()
    if kind == "StripAccents":
        return StripAccents()
    if kind == "Nmt":
        return Nmt()
    if kind == "ByteLevel":
        return ByteLevel()
    if kind == "Strip":
        return Strip(
            get_bool(data, "strip_left", kind), get_bool(data, "strip_right", kind)
        )
    if kind == "Prepend":
        return Prepend(get_str(data, "prepend", kind))
    if kind == "Replace":
        rule = Replacement.from_dict(data)
        return Replace(rule.pattern, rule.content)
    if kind == "BertNormalizer" or kind == "Bert":
        owner = "BertNormalizer"
        return BertNormalizer(
            get_bool(data, "clean_text", owner),
            get_bool(data, "handle_chinese_chars", owner),
            get_opt_bool(data, "strip_accents", owner),
            get_bool(data, "lowercase", owner),
        )
    if kind == "Sequence":
        return Sequence([from_dict(item) for item in get_list(data, "normalizers", kind)])
    if kind == "Precompiled":
        charsmap = require(data, "precompiled_charsmap", kind)
        if charsmap is None:
            raise SchemaError("Precompiled: a null 'precompiled_charsmap' is not supported (HF refuses it too)")
        if not isinstance(charsmap, str):
            raise SchemaError("Precompiled: field 'precompiled_charsmap' must be a base64 string, got " + repr(charsmap))
        try:
            return Precompiled(base64.b64decode(charsmap, validate=True))
        except ValueError as error:
            raise SchemaError(f"Precompiled: field 'precompiled_charsmap': {error}") from None
    raise SchemaError(f"unknown normalizer type {kind!r}")
