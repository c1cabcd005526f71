"""Counting words by whitespace chunks: pre-tokenize each distinct chunk once, times its count.

Training counts the words of every line. When the pre-tokenizer never makes a word across
whitespace, a line's words are the words of its whitespace-separated chunks, so the chunks can be
counted first (C-speed `str.split` and one dict update each) and only the distinct ones run
through the normalizer and pre-tokenizer. `chunk_mode` says whether, and how, a pipeline allows
it; everything else counts line by line. Exactness is tested against line-by-line counting
(tests/engine/test_chunking.py).

Two kinds of pipelines qualify:
- DROPPED: the pre-tokenizer drops whitespace (Whitespace, WhitespaceSplit, BertPreTokenizer):
  "a b\\nc" -> chunks a, b, c; line ends do not matter.
- SEGMENTS: GPT-2's regex (ByteLevel with use_regex), which keeps whitespace in words (" b")
  but never makes a word of a non-space char followed by a space char. A line is cut where a
  non-space char meets a space char: "a b\\tc  d\\n" -> a | " b\\tc" | "  d\\n". The cut before
  " " is found with `line.split(" ")`; a piece whose left neighbour is a space char is glued back.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from engine import normalizers as n
from engine import pre_tokenizers as p
from engine.corpus import byte_words
from engine.corpus.byte_words import ByteScan
from engine.corpus.streams import LineCutter
from engine.metaspace import FIRST

CHUNKS_NONE: Final = 0
CHUNKS_DROPPED: Final = 1
CHUNKS_SEGMENTS: Final = 2

# A block holding one of these is counted line by line. Python's str.split() also splits at
# U+001C-001F, which Unicode White_Space (HF's \s) does not include; and BertNormalizer's
# clean_text (and Nmt) delete some White_Space chars that are also controls (U+000B, U+000C,
# U+0085), joining the chunks on either side.
_UNSAFE_CHARS: Final = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85")


def chunk_mode(normalizer: n.Normalizer | None, pre_tokenizer: p.PreTokenizer | None) -> int:
    """How a pipeline's training words may be counted by chunks: CHUNKS_NONE, _DROPPED or _SEGMENTS.

    The normalizer must never join text across whitespace: Unicode forms and Lowercase; also
    StripAccents, BertNormalizer, Nmt and Strip where the pre-tokenizer drops whitespace.
    """
    mode = _pre_tokenizer_mode(pre_tokenizer)
    if mode == CHUNKS_NONE or normalizer is None:
        return mode
    return mode if _normalizer_allows(normalizer, mode) else CHUNKS_NONE


def _pre_tokenizer_mode(pre_tokenizer: p.PreTokenizer | None) -> int:
    if pre_tokenizer is None:
        return CHUNKS_NONE
    kind = type(pre_tokenizer)
    if kind is p.Whitespace or kind is p.WhitespaceSplit or kind is p.BertPreTokenizer:
        return CHUNKS_DROPPED
    if isinstance(pre_tokenizer, p.ByteLevel) and kind is p.ByteLevel:
        return CHUNKS_SEGMENTS if pre_tokenizer.use_regex else CHUNKS_NONE
    if isinstance(pre_tokenizer, p.Sequence) and kind is p.Sequence:
        # Later steps only cut (and map) the first step's words, unless one of them looks at
        # where a word starts in the line (Metaspace "first").
        steps = pre_tokenizer.pre_tokenizers
        if not steps or not _offset_free(pre_tokenizer):
            return CHUNKS_NONE
        return _pre_tokenizer_mode(steps[0])
    return CHUNKS_NONE


def _offset_free(sequence: p.Sequence) -> bool:
    for step in sequence.pre_tokenizers:
        if isinstance(step, p.Metaspace) and step.prepend_scheme == FIRST:
            return False
        if isinstance(step, p.Sequence) and not _offset_free(step):
            return False
    return True


def _normalizer_allows(normalizer: n.Normalizer, mode: int) -> bool:
    kind = type(normalizer)
    if kind is n.NFC or kind is n.NFD or kind is n.NFKC or kind is n.NFKD or kind is n.Lowercase:
        # None of them turns a non-space char into nothing or into text ending with a space
        # (checked over all of Unicode), so a segment still ends where a space follows.
        return True
    if kind is n.StripAccents or kind is n.BertNormalizer or kind is n.Strip or kind is n.Nmt:
        # They delete chars ("¨" -> NFKD " \u0308" -> " "), pad CJK with spaces or strip them:
        # harmless only where whitespace is dropped anyway.
        return mode == CHUNKS_DROPPED
    if isinstance(normalizer, n.Sequence) and kind is n.Sequence:
        for step in normalizer.normalizers:
            if not _normalizer_allows(step, mode):
                return False
        return True
    return False


def byte_scan(normalizer: n.Normalizer | None, pre_tokenizer: p.PreTokenizer | None) -> ByteScan | None:
    """How `engine.corpus.byte_words` splits the pipeline's ASCII lines to the same words as
    the pipeline does; None when it cannot.

    Pre-tokenizers: ByteLevel with its regex (GPT-2's split; with no normalizer, the lines past
    ASCII too); BertPreTokenizer, Whitespace, WhitespaceSplit (runs). Normalizers: the Unicode
    forms and StripAccents leave ASCII as it is, Lowercase lowers it; BertNormalizer too, where
    whitespace is dropped (its clean_text turns tabs into spaces, and deletes controls: the scan
    leaves lines with those to the text path).
    """
    kind = type(pre_tokenizer)
    if kind is p.ByteLevel and isinstance(pre_tokenizer, p.ByteLevel):
        if not pre_tokenizer.use_regex:
            return None
        lower = _ascii_lowered(normalizer, False)
        if lower is None:
            return None
        return ByteScan(True, pre_tokenizer.add_prefix_space, byte_words.GPT2_CLASSES, lower, normalizer is None)
    if kind is p.BertPreTokenizer:
        classes = byte_words.BERT_CLASSES
    elif kind is p.Whitespace:
        classes = byte_words.WHITESPACE_CLASSES
    elif kind is p.WhitespaceSplit:
        classes = byte_words.WHITESPACE_SPLIT_CLASSES
    else:
        return None
    lower = _ascii_lowered(normalizer, True)
    return None if lower is None else ByteScan(False, False, classes, lower)


def _ascii_lowered(normalizer: n.Normalizer | None, dropped: bool) -> bool | None:
    """Whether the normalizer lowercases ASCII, when all it does to ASCII text is that (or
    nothing); None when it does more. `dropped`: the pre-tokenizer drops whitespace."""
    if normalizer is None:
        return False
    kind = type(normalizer)
    if kind is n.NFC or kind is n.NFD or kind is n.NFKC or kind is n.NFKD or kind is n.StripAccents:
        return False
    if kind is n.Lowercase:
        return True
    if kind is n.BertNormalizer and isinstance(normalizer, n.BertNormalizer):
        return normalizer.lowercase if dropped else None
    if isinstance(normalizer, n.Sequence) and kind is n.Sequence:
        lower = False
        for step in normalizer.normalizers:
            lowered = _ascii_lowered(step, dropped)
            if lowered is None:
                return None
            lower = lower or lowered
        return lower
    return None


def needs_lines(text: str) -> bool:
    """True when `text` holds a char that chunks could cut at wrongly (`_UNSAFE_CHARS`)."""
    for char in _UNSAFE_CHARS:
        if char in text:
            return True
    return False


def count_chunks(text: str, chunks: Counter[str]) -> None:
    """CHUNKS_DROPPED: every whitespace-separated chunk of `text` (whole lines or not)."""
    # Counter's own loop (in C) hashes each new chunk once and is faster than ours.
    chunks.update(text.split())


def count_segments(text: str, ends_with_newline: bool, leading: dict[str, int], spaced: dict[str, int]) -> None:
    """CHUNKS_SEGMENTS: the segments of every line of `text` (lines end with "\\n"; the last one
    only if `ends_with_newline`).

    A segment that starts a line goes to `leading` as it is; one that starts after a cut before
    " " goes to `spaced` WITHOUT that space (its words are those of " " + key): a line
    "a b  c\\n" -> leading a, spaced "b", " c\\n" (the second space glued: its left neighbour is
    a space).
    """
    lines = text.split("\n")
    last = len(lines) - 1
    for i in range(last + 1):
        if i < last:
            line = lines[i] + "\n"
        elif ends_with_newline or not lines[i]:
            break
        else:
            line = lines[i]
        pieces = line.split(" ")
        current = pieces[0]
        leads = True
        for k in range(1, len(pieces)):
            size = len(current)
            if size == 0 and leads:
                # The line starts with " ": a cut at the line start.
                current = pieces[k]
                leads = False
            elif size > 0 and not _maybe_space(ord(current[size - 1])):
                if leads:
                    leading[current] = leading.get(current, 0) + 1
                else:
                    spaced[current] = spaced.get(current, 0) + 1
                current = pieces[k]
                leads = False
            else:
                # The space's left neighbour is a space char: no cut there.
                current = current + " " + pieces[k]
        if leads:
            if current:
                leading[current] = leading.get(current, 0) + 1
        else:
            spaced[current] = spaced.get(current, 0) + 1


def _maybe_space(code: int) -> bool:
    """True for every White_Space char (and for U+001C-001F, which only makes fewer cuts)."""
    if code <= 32:
        return code == 32 or 9 <= code <= 13 or code >= 28
    if code < 0x85:
        return False
    return chr(code).isspace()


# -- cutting a long line -----------------------------------------------------------------------


class SpaceCutter(LineCutter):
    """CHUNKS_DROPPED: after the last space or tab (every allowed pipeline drops both, and no
    allowed normalizer deletes them)."""

    def cut(self, data: bytes) -> int:
        return max(data.rfind(b" "), data.rfind(b"\t")) + 1


class SegmentCutter(LineCutter):
    """CHUNKS_SEGMENTS: before the last " " that follows a printable ASCII char, a non-space
    char: GPT-2's regex ends every match before such a space, and the part after the cut starts
    with " " (no prefix space is added to it, no segment of it leads a line)."""

    def cut(self, data: bytes) -> int:
        at = data.rfind(b" ")
        while at > 0:
            before = data[at - 1]
            if 0x21 <= before <= 0x7E:
                return at
            at = data.rfind(b" ", 0, at)
        return 0


SPACE_CUTTER: Final = SpaceCutter()
SEGMENT_CUTTER: Final = SegmentCutter()


def line_cutter(mode: int) -> LineCutter | None:
    """Where a line too long for one read block may be cut in this mode (None: nowhere)."""
    if mode == CHUNKS_DROPPED:
        return SPACE_CUTTER
    if mode == CHUNKS_SEGMENTS:
        return SEGMENT_CUTTER
    return None
