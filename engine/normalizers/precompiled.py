"""`Precompiled`: a SentencePiece charsmap (the normalization rules a .model carries) applied
as HF applies it, grapheme by grapheme. Reading charsmaps is `engine.formats.charsmap`'s.
"""

from __future__ import annotations

import base64
from typing import Final

import regex

from engine import unicode_chars as uc
from engine.normalizers.normalized import NormalizedString
from engine.normalizers.base import Normalizer
from engine.schema import JsonValue

# Precompiled: graphemes shorter than this many UTF-8 bytes are looked up whole first (HF).
PRECOMPILED_WHOLE_GRAPHEME_BYTES: Final = 6
# A cached lookup of a chunk with no rule (a replacement never holds NUL).
NO_RULE: Final = "\x00"
GRAPHEME_RE: Final = regex.compile(r"\X")
# What a char may do to a text, for `Precompiled._unchanged` (`Precompiled._char_flags`):
# a rule matches the char alone (or a prefix of its bytes);
RULED: Final = 1
# a longer rule starts with it;
EXTENDABLE: Final = 2
# it may follow the first char of a grapheme, or start one that more chars follow (`JOINING_RE`);
JOINING: Final = 4
# it is a grapheme's first char that the next char always joins (Prepend).
PREPEND: Final = 8
# The chars that may be a grapheme's second char in the `regex` module's `\X`, which also
# starts a grapheme with one of them before a consonant (a virama): every grapheme of two or
# more chars has one of them first or second, or a Prepend char first (checked on random texts
# weighted to these chars in the tests).
JOINING_RE: Final = regex.compile(
    r"[\p{Grapheme_Cluster_Break=Extend}\p{Grapheme_Cluster_Break=ZWJ}\p{Grapheme_Cluster_Break=SpacingMark}"
    r"\p{Grapheme_Cluster_Break=L}\p{Grapheme_Cluster_Break=V}\p{Grapheme_Cluster_Break=T}"
    r"\p{Grapheme_Cluster_Break=LV}\p{Grapheme_Cluster_Break=LVT}\p{Grapheme_Cluster_Break=Regional_Indicator}\n]"
)
PREPEND_RE: Final = regex.compile(r"\p{Grapheme_Cluster_Break=Prepend}")


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
    # code point -> its RULED | EXTENDABLE | JOINING | PREPEND flags, filled as met
    _char_flags: uc.KindTable

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
        self._char_flags = uc.KindTable()
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
            return self._unchanged(text)
        return self._ascii_rules is None or self._ascii_rules.search(text) is None

    def _unchanged(self, text: str) -> bool:
        """True when no rule can apply to `text` (False: maybe one does), without cutting it
        into graphemes. A lookup finds a rule only where the rule is a prefix of the chunk:
        so never when no char has a rule of its own and every grapheme of two or more chars
        starts with a char that no longer rule starts with. Such a grapheme has a JOINING char
        first or second, or a PREPEND char first (`JOINING_RE`): so no char may be JOINING
        right after an EXTENDABLE one.

        One pass over the code points, `_flags` written out (mypyc does not inline it: a call
        per char); `set(text)` made a string per char past Latin-1 and hashed it."""
        table = self._char_flags.table
        after_extendable = False
        for index in range(len(text)):
            code = ord(text[index])
            found = int(table[code]) + uc.UNKNOWN_KIND if code < len(table) else uc.UNKNOWN_KIND
            if found == uc.UNKNOWN_KIND:
                found = self._flags(text, index)
                table = self._char_flags.table  # (the first `remember` makes it)
            if found & RULED or (found & EXTENDABLE and found & (JOINING | PREPEND)):
                return False
            if after_extendable and found & JOINING:
                return False
            after_extendable = (found & EXTENDABLE) != 0
        return True

    def _flags(self, text: str, index: int) -> int:
        """`_flags_of(text[index])`, remembered by code point (no char made once known)."""
        code = ord(text[index])
        found = self._char_flags.known(code)
        if found == uc.UNKNOWN_KIND:
            found = self._flags_of(text[index])
            self._char_flags.remember(code, found)
        return found

    def _flags_of(self, c: str) -> int:
        """`c`'s RULED, EXTENDABLE, JOINING and PREPEND flags (see `_unchanged`)."""
        if 0xD800 <= ord(c) <= 0xDFFF:
            return RULED  # (no UTF-8: the lookups raise as they would have)
        found = 0
        if JOINING_RE.match(c) is not None:
            found |= JOINING
        if PREPEND_RE.match(c) is not None:
            found |= PREPEND
        if c == "\x00":
            return found  # a lookup stops at NUL: nothing starting with it has a rule
        if self._search(c) != NO_RULE:
            return found | RULED
        # walk c's bytes as `_search` does; a child past them (label 1-255) is a longer rule
        units = self._units
        size = len(units)
        if size == 0:
            return found
        unit = units[0]
        pos = (unit >> 10) << ((unit & 0x200) >> 6)
        for byte in c.encode("utf-8"):
            pos ^= byte
            if pos >= size:
                return found
            unit = units[pos]
            if (unit & 0x800000FF) != byte:
                return found
            pos ^= (unit >> 10) << ((unit & 0x200) >> 6)
        for label in range(1, 256):
            child = pos ^ label
            if child < size and (units[child] & 0x800000FF) == label:
                return found | EXTENDABLE
        return found

    def normalize_aligned(self, sequence: str) -> str | None:
        found = self.normalize_for_offsets(sequence)
        return found if isinstance(found, str) else None

    def normalize_for_offsets(self, sequence: str) -> str | NormalizedString:
        # (the graphemes cut once for the text and, where the rules move chars, its alignments)
        if self._untouched(sequence):
            return sequence
        dest, changes, modified = self._changes(sequence)
        # subtle: a text the rules leave as it is keeps every char where it was.
        if not modified or "".join(dest) == sequence:
            return sequence
        mapped = NormalizedString(sequence)
        mapped.transform(dest, changes, 0)
        return mapped

    def normalize(self, normalized: NormalizedString) -> None:
        text = normalized.normalized
        if self._untouched(text):
            return
        dest, changes, modified = self._changes(text)
        if modified:
            normalized.transform(dest, changes, 0)

    def _changes(self, text: str) -> tuple[list[str], list[int], bool]:
        """What the rules make of `text`, grapheme by grapheme, as `NormalizedString.transform`
        takes it (the chars, and for each: 0 replaces a char, 1 inserts one, -n also removes n),
        and whether any rule applied.

        Graphemes are cut (`GRAPHEME_RE`, a fifth of a microsecond a char) only in the stretches
        where a char may join the one before: between two chars neither of which is JOINING,
        the first not a Prepend, every rule of `\\X` breaks (see `JOINING_RE`), so a char with
        such a break on both sides is a grapheme of its own."""
        dest: list[str] = []
        changes: list[int] = []
        modified = False
        size = len(text)
        start = 0
        while start < size:
            end = self._cluster_end(text, start, size, self._flags(text, start))
            if end == start + 1:
                if self._put(text[start], dest, changes):
                    modified = True
            else:
                for grapheme in GRAPHEME_RE.findall(text[start:end]):
                    if self._put(grapheme, dest, changes):
                        modified = True
            start = end
        return dest, changes, modified

    def _cluster_end(self, text: str, start: int, size: int, first: int) -> int:
        """Where the stretch that starts at `start` (a char whose flags are `first`) ends: past
        the chars that may join the one before (`_changes`); start + 1 for a char that is a
        grapheme of its own."""
        end = start + 1
        before = first
        while end < size:
            after = self._flags(text, end)
            if not (before & (JOINING | PREPEND) or after & JOINING):
                break
            before = after
            end += 1
        return end

    def _put(self, grapheme: str, dest: list[str], changes: list[int]) -> bool:
        """Append what the rules make of `grapheme` to `dest` and `changes` (`_changes`): the
        whole grapheme looked up first when it is short, else char by char. Whether a rule applied."""
        if len(grapheme) == 1 or len(grapheme.encode("utf-8")) < PRECOMPILED_WHOLE_GRAPHEME_BYTES:
            found = self.transform(grapheme)
            if found is not None:
                _precompiled_replace(dest, changes, len(grapheme), found)
                return True
            if len(grapheme) == 1:
                dest.append(grapheme)
                changes.append(0)
                return False
        modified = False
        for c in grapheme:
            found = self.transform(c)
            if found is not None:
                modified = True
                _precompiled_replace(dest, changes, 1, found)
            else:
                dest.append(c)
                changes.append(0)
        return modified

    def normalize_str(self, sequence: str) -> str:
        if self._untouched(sequence):
            return sequence
        return self._rewritten(sequence)

    def _rewritten(self, text: str) -> str:
        """`normalize_graphemes` without the chars and changes `_changes` keeps for alignments:
        the stretches no rule touches are copied as slices. A char that is a grapheme of its
        own (cut as `_changes` cuts) has a rule only if its flags say RULED, so only those and
        the graphemes of two or more chars are looked up.

        `_cluster_end` and `_flags` are written out here (mypyc does not inline them: three
        calls per char, and each char's flags were read twice, as a stretch's last `after`
        and as the next one's `first`)."""
        parts: list[str] = []
        size = len(text)
        copied = 0  # text[copied:start] is unchanged and not yet in parts
        start = 0
        first = self._flags(text, 0) if size > 0 else 0
        table = self._char_flags.table
        while start < size:
            # (`_cluster_end`: past the chars that may join the one before)
            end = start + 1
            before = first
            after = 0
            while end < size:
                code = ord(text[end])
                after = int(table[code]) + uc.UNKNOWN_KIND if code < len(table) else uc.UNKNOWN_KIND
                if after == uc.UNKNOWN_KIND:
                    after = self._flags(text, end)
                    table = self._char_flags.table  # (the first `remember` makes it)
                if not (before & (JOINING | PREPEND) or after & JOINING):
                    break
                before = after
                end += 1
            if end == start + 1:
                if first & RULED:
                    found = self.transform(text[start])
                    if found is not None:
                        parts.append(text[copied:start])
                        parts.append(found)
                        copied = end
            else:
                parts.append(text[copied:start])
                copied = end
                # (rare: a cluster of two or more chars; `_put`'s changes are not needed here)
                for grapheme in GRAPHEME_RE.findall(text[start:end]):
                    self._put(grapheme, parts, [])
            start = end
            first = after  # subtle: the flags of text[end], read by the loop that stopped there
        if copied == 0:
            return text
        parts.append(text[copied:])
        return "".join(parts)

    def normalize_graphemes(self, sequence: str) -> str:
        """`normalize_str` without its shortcut: every grapheme looked up (HF's way), the whole
        grapheme first when it is short, else char by char (`_changes`)."""
        return "".join(self._changes(sequence)[0])

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
