"""`NormalizedString`: a piece of text, its normalized form and, per normalized char, its source span.

HF's NormalizedString (tokenizer/normalizer.rs) in CHARACTER offsets. Patterns live in `engine.pattern`;
no normalizer or pre-tokenizer logic here (see their own modules).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import regex

from engine import unicode_chars as uc
from engine import unicode_tables as tables
from engine.errors import EngineError
from engine.pattern import Regex, check_behavior, find_matches, split_spans

WHITESPACE_CLASS: Final = tables.regex_class(tables.WHITESPACE)
LEADING_SPACES_RE: Final = regex.compile("[" + WHITESPACE_CLASS + "]+")
TRAILING_SPACES_RE: Final = regex.compile("[" + WHITESPACE_CLASS + "]+\\Z")


class NormalizedString:
    """An original text, its normalized version, and where each normalized char comes from.

    `align_start[i]`/`align_end[i]` is the span of `original` (chars, relative to it) that normalized
    char i stands for; `original_shift` is where `original` starts in the whole input. Every edit goes
    through `transform_range`, whose `changes` follow HF: 0 replaces the next source char, 1 inserts
    (copying the previous char's alignment, or (0, 0) at the very start), -n replaces and removes n more.
    """

    original: str
    normalized: str
    align_start: list[int]
    align_end: list[int]
    original_shift: int

    def __init__(self, text: str = "") -> None:
        self.original = text
        self.normalized = text
        self.align_start = list(range(len(text)))
        self.align_end = list(range(1, len(text) + 1))
        self.original_shift = 0

    def copy(self) -> NormalizedString:
        out = NormalizedString()
        out.original = self.original
        out.normalized = self.normalized
        out.align_start = list(self.align_start)
        out.align_end = list(self.align_end)
        out.original_shift = self.original_shift
        return out

    def __repr__(self) -> str:
        return (
            f"NormalizedString(original={self.original!r}, normalized={self.normalized!r}, "
            f"shift={self.original_shift})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NormalizedString):
            return NotImplemented
        return (
            self.original == other.original
            and self.normalized == other.normalized
            and self.align_start == other.align_start
            and self.align_end == other.align_end
            and self.original_shift == other.original_shift
        )

    # -- accessors -------------------------------------------------------------------------------

    def get(self) -> str:
        return self.normalized

    def get_original(self) -> str:
        return self.original

    def __len__(self) -> int:
        return len(self.normalized)

    def len_original(self) -> int:
        return len(self.original)

    def is_empty(self) -> bool:
        return not self.normalized

    def offsets_original(self) -> tuple[int, int]:
        """Where this piece's original text sits in the whole input: `(shift, shift + len)`."""
        return (self.original_shift, self.original_shift + len(self.original))

    def alignments(self) -> list[tuple[int, int]]:
        """Per normalized char, its source span in `original` (relative)."""
        return list(zip(self.align_start, self.align_end))

    def convert_normalized_range(self, start: int, end: int) -> tuple[int, int] | None:
        """Normalized range -> original range (relative to `original`); HF's convert_offsets.

        An empty range comes back as it is; an out-of-bounds or reversed one gives None.
        """
        if start == end:
            return (start, end)
        if start > end or start < 0 or end > len(self.align_start):
            return None
        return (self.align_start[start], self.align_end[end - 1])

    def convert_original_range(self, start: int, end: int) -> tuple[int, int] | None:
        """Original range (relative) -> normalized range; HF's convert_offsets(Range::Original).

        Chars with an empty alignment (pure insertions) never start a range.
        """
        if start == end:
            return (start, end)
        if start > end:
            return None
        found_start = -1
        found_end = -1
        starts = self.align_start
        ends = self.align_end
        for i in range(len(starts)):
            a_end = ends[i]
            if end < a_end:
                break
            if found_start < 0 and start <= starts[i] and starts[i] != a_end:
                found_start = i
            found_end = i + 1
        if found_start >= 0 and found_end >= 0:
            return (found_start, found_end)
        if found_start >= 0:
            return (found_start, found_start)
        if found_end >= 0:
            return (found_end, found_end)
        return None

    def _whole_range(self) -> tuple[int, int] | None:
        # convert_original_range(0, len(original)) without the scan: every alignment ends inside
        # `original`, so the range runs to the end and starts at the first non-empty alignment.
        if not self.original:
            return (0, 0)
        n = len(self.align_start)
        if n == 0:
            return None
        i = 0
        while i < n and self.align_start[i] == self.align_end[i]:
            i += 1
        return (i, n) if i < n else (n, n)

    def get_range_original(self, start: int, end: int) -> str | None:
        """The original text behind normalized chars `start:end` (HF get_range_original(Normalized))."""
        found = self.convert_normalized_range(start, end)
        if found is None:
            return None
        o_start, o_end = found
        if o_start < 0 or o_start > o_end or o_end > len(self.original):
            return None
        return self.original[o_start:o_end]

    # -- slicing ---------------------------------------------------------------------------------

    def slice(self, start: int, end: int) -> NormalizedString | None:
        """The piece made of normalized chars `start:end`, with its own original and alignments."""
        if start < 0 or start > len(self.normalized) or end > len(self.normalized):
            return None
        found = self.convert_normalized_range(start, end)
        if found is None:
            return None
        o_start, o_end = found
        out = NormalizedString()
        if 0 <= o_start <= o_end <= len(self.original) and start != end:
            out.original = self.original[o_start:o_end]
        out.normalized = self.normalized[start:end]
        out.align_start = [a - o_start for a in self.align_start[start:end]]
        out.align_end = [a - o_start for a in self.align_end[start:end]]
        out.original_shift = self.original_shift + o_start
        return out

    def slice_normalized(self, start: int, end: int) -> NormalizedString | None:
        """Same as `slice` (HF `slice(Range::Normalized)`)."""
        return self.slice(start, end)

    def slice_original(self, start: int, end: int) -> NormalizedString | None:
        """The piece whose ORIGINAL text is `original[start:end]` (HF slice(Range::Original))."""
        if start < 0 or start > len(self.original) or end > len(self.original):
            return None
        found = self.convert_original_range(start, end)
        if found is None:
            return None
        n_start, n_end = found
        if n_start > n_end or n_end > len(self.align_start):
            return None
        out = NormalizedString()
        out.original = self.original[start:end]
        out.normalized = self.normalized[n_start:n_end]
        out.align_start = [a - start for a in self.align_start[n_start:n_end]]
        out.align_end = [a - start for a in self.align_end[n_start:n_end]]
        out.original_shift = self.original_shift + start
        return out

    # -- the one primitive edit ------------------------------------------------------------------

    def transform_range(
        self, start: int, end: int, dest: list[str], changes: list[int], initial_offset: int
    ) -> None:
        """Replace normalized chars `start:end` by `dest`, aligning each new char per its change.

        `initial_offset` source chars are removed before the first new char. A `dest` entry is one
        char. Mirrors HF's transform_range, including the (0, 0) alignment of an insertion at 0.
        """
        old_start = self.align_start
        old_end = self.align_end
        available = end - start
        used = initial_offset if initial_offset < available else available
        offset = start + used
        new_start: list[int] = []
        new_end: list[int] = []
        for k in range(len(dest)):
            change = changes[k]
            if change > 0:
                if offset < 1:
                    new_start.append(0)
                    new_end.append(0)
                else:
                    new_start.append(old_start[offset - 1])
                    new_end.append(old_end[offset - 1])
                continue
            new_start.append(old_start[offset])
            new_end.append(old_end[offset])
            if used < available:
                used += 1
                offset += 1
            if change < 0:
                removed = -change
                if removed > available - used:
                    removed = available - used
                used += removed
                offset += removed
        self.normalized = self.normalized[:start] + "".join(dest) + self.normalized[end:]
        self.align_start = old_start[:start] + new_start + old_start[end:]
        self.align_end = old_end[:start] + new_end + old_end[end:]

    def transform_range_original(
        self, start: int, end: int, dest: list[str], changes: list[int], initial_offset: int
    ) -> None:
        """`transform_range` on the normalized chars behind ORIGINAL chars `start:end`."""
        found = self.convert_original_range(start, end)
        if found is not None:
            self.transform_range(found[0], found[1], dest, changes, initial_offset)

    def transform(self, dest: list[str], changes: list[int], initial_offset: int) -> None:
        """`transform_range` over everything (HF: `Range::Original(..)`)."""
        found = self._whole_range()
        if found is not None:
            self.transform_range(found[0], found[1], dest, changes, initial_offset)

    def _is_whole(self) -> bool:
        found = self._whole_range()
        return found is not None and found[0] == 0 and found[1] == len(self.normalized)

    # -- edits -----------------------------------------------------------------------------------

    def _normalize(self, form: str) -> None:
        if self._is_whole() and not uc.needs_normalization(self.normalized, form):
            return
        dest, changes = uc.normalize_changes(self.normalized, form)
        self.transform(dest, changes, 0)

    def nfd(self) -> None:
        self._normalize("NFD")

    def nfkd(self) -> None:
        self._normalize("NFKD")

    def nfc(self) -> None:
        self._normalize("NFC")

    def nfkc(self) -> None:
        self._normalize("NFKC")

    def lowercase(self) -> None:
        """Rust's per-char `to_lowercase` ("İ" -> "i̇", no final sigma)."""
        lowered = uc.lower_str(self.normalized)
        if len(lowered) == len(self.normalized) and self._is_whole():
            self.normalized = lowered  # one char for one char: alignments stay
            return
        dest: list[str] = []
        changes: list[int] = []
        for c in self.normalized:
            mapped = uc.lower_char(c)
            for i in range(len(mapped)):
                dest.append(mapped[i])
                changes.append(1 if i > 0 else 0)
        self.transform(dest, changes, 0)

    def uppercase(self) -> None:
        """Rust's per-char `to_uppercase` ("ß" -> "SS")."""
        raised = uc.upper_str(self.normalized)
        if len(raised) == len(self.normalized) and self._is_whole():
            self.normalized = raised
            return
        dest: list[str] = []
        changes: list[int] = []
        for c in self.normalized:
            mapped = uc.upper_char(c)
            for i in range(len(mapped)):
                dest.append(mapped[i])
                changes.append(1 if i > 0 else 0)
        self.transform(dest, changes, 0)

    def filter_mask(self, keep: list[bool]) -> None:
        """Keep normalized char i iff `keep[i]` (HF `filter`: a kept char absorbs the removed ones after it)."""
        text = self.normalized
        dest: list[str] = []
        changes: list[int] = []
        removed = 0
        removed_start = 0
        last = ""
        for i in range(len(text)):
            if keep[i]:
                if last:
                    dest.append(last)
                    changes.append(-removed)
                else:
                    removed_start = removed
                last = text[i]
                removed = 0
            else:
                removed += 1
        if last:
            dest.append(last)
            changes.append(-removed)
        self.transform(dest, changes, removed_start)

    def remove_matching(self, chars: uc.DualPattern) -> None:
        """Filter out every char matched by the one-char pattern `chars`."""
        text = self.normalized
        found = chars.spans(text)
        if not found and self._is_whole():
            return
        keep = [True] * len(text)
        for start, _ in found:
            keep[start] = False
        self.filter_mask(keep)

    def filter(self, keep: Callable[[str], bool]) -> None:
        """Keep the chars for which `keep(char)` is true (HF's Python `NormalizedString.filter`)."""
        mask: list[bool] = []
        for c in self.normalized:
            mask.append(bool(keep(c)))
        self.filter_mask(mask)

    def map_chars(self, dest: str) -> None:
        """Replace char i by `dest[i]` (same length): HF `map`, every change 0."""
        if len(dest) != len(self.normalized):
            raise ValueError("map_chars needs one char per normalized char")
        if self._is_whole():
            self.normalized = dest
            return
        self.transform(list(dest), [0] * len(dest), 0)

    def map(self, func: Callable[[str], str]) -> None:
        """Replace each char by `func(char)`, which must be one char (HF's Python `NormalizedString.map`)."""
        out: list[str] = []
        for c in self.normalized:
            mapped = func(c)
            if len(mapped) != 1:
                raise ValueError("`map` expects a callable returning exactly one char")
            out.append(mapped)
        self.map_chars("".join(out))

    def prepend(self, s: str) -> None:
        """Insert `s` before the first char; every new char takes the first char's alignment."""
        if not self.normalized:
            return
        dest = list(s)
        changes = [1] * len(s)
        if changes:
            changes[0] = 0
        # subtle: with s == "" the first char is re-inserted alone and gets the (0, 0) alignment.
        dest.append(self.normalized[0])
        changes.append(1)
        self.transform_range(0, 1, dest, changes, 0)

    def append(self, s: str) -> None:
        """Insert `s` after the last char; every new char takes the last char's alignment."""
        if self.normalized:
            n = len(self.normalized)
            dest = [self.normalized[-1]] + list(s)
            changes = [0] + [1] * len(s)
            self.transform_range(n - 1, n, dest, changes, 0)
        else:
            self.transform_range(0, 0, list(s), [1] * len(s), 0)

    def clear(self) -> int:
        """Empty the normalized string (the original stays); returns the former length."""
        n = len(self.normalized)
        self.transform([], [], n)
        return n

    def _lrstrip(self, left: bool, right: bool) -> None:
        text = self.normalized
        leading = 0
        trailing = 0
        if left:
            m = LEADING_SPACES_RE.match(text)
            if m is not None:
                leading = m.end()
        if right and leading < len(text):
            m = TRAILING_SPACES_RE.search(text)
            if m is not None:
                trailing = len(text) - m.start()
        elif right:
            trailing = len(text)
        if leading == 0 and trailing == 0:
            return
        last = len(text) - trailing
        if last <= leading:
            self.transform([], [], leading)
            return
        dest = list(text[leading:last])
        changes = [0] * len(dest)
        changes[-1] = -trailing
        self.transform(dest, changes, leading)

    def lstrip(self) -> None:
        self._lrstrip(True, False)

    def rstrip(self) -> None:
        self._lrstrip(False, True)

    def strip(self) -> None:
        self._lrstrip(True, True)

    def replace_matches(self, matches: list[tuple[int, int, bool]], content: str) -> None:
        """Replace each matched span by `content`; its chars all take the span's last alignment."""
        text = self.normalized
        starts = self.align_start
        ends = self.align_end
        parts: list[str] = []
        new_start: list[int] = []
        new_end: list[int] = []
        last_end = 0
        n_content = len(content)
        for start, end, is_match in matches:
            if not is_match:
                continue
            parts.append(text[last_end:start])
            new_start.extend(starts[last_end:start])
            new_end.extend(ends[last_end:start])
            parts.append(content)
            # subtle: inserted chars copy the alignment of the char before the END of the match
            # (the last matched char, or the char before an empty match; (0, 0) at offset 0).
            a = starts[end - 1] if end >= 1 else 0
            b = ends[end - 1] if end >= 1 else 0
            new_start.extend([a] * n_content)
            new_end.extend([b] * n_content)
            last_end = end
        parts.append(text[last_end:])
        new_start.extend(starts[last_end:])
        new_end.extend(ends[last_end:])
        self.normalized = "".join(parts)
        self.align_start = new_start
        self.align_end = new_end

    def replace(self, pattern: str | Regex, content: str) -> None:
        """Replace what `pattern` matches by `content` (HF's Python `NormalizedString.replace`)."""
        self.replace_matches(find_matches(pattern, self.normalized), content)

    def split_matches(
        self, matches: list[tuple[int, int, bool]], behavior: str
    ) -> list[NormalizedString]:
        """Cut into pieces at the matches (see `split_spans`); empty pieces are kept, like HF."""
        out: list[NormalizedString] = []
        for start, end in split_spans(matches, behavior):
            piece = self.slice(start, end)
            if piece is None:
                raise EngineError(f"NormalizedString bad split at {start}:{end}")
            out.append(piece)
        return out

    def split(
        self, pattern: str | Regex, behavior: str, invert: bool = False
    ) -> list[NormalizedString]:
        """HF's `NormalizedString.split(pattern, behavior)` (`invert` flips what counts as a match)."""
        check_behavior(behavior)
        matches = find_matches(pattern, self.normalized)
        if invert:
            matches = [(s, e, not m) for s, e, m in matches]
        return self.split_matches(matches, behavior)
