"""What sentencepiece's trainers allow a piece to be, and which characters they keep: its
`IsValidSentencePiece` (`PieceRules.valid`) and its character coverage (`covered_chars`), with
sentencepiece's option names. No training here: `engine.trainers.sentencepiece` applies them.

Scripts are sentencepiece's (`unicode_script_map.h`, checked against ours code point by code
point when this was written): our UnicodeScripts table, where Hiragana, Katakana and the long
vowel mark U+30FC already count as Han, except that the code points it leaves out and five
scripts sentencepiece's table does not know are Common there.
"""

from __future__ import annotations

import struct
from typing import Final

from librt.vecs import vec
from mypy_extensions import u8

from engine.pre_tokenizers.scanners import ANY_SCRIPT, script_of

# sentencepiece's whitespace mark and the character rare ones become (`kWSChar`, `kUNKChar`).
WS_CHAR: Final = "\u2581"
UNK_CHAR: Final = "\u2585"
# sentencepiece's defaults (`trainer_spec.proto`).
DEFAULT_CHARACTER_COVERAGE: Final = 0.9995
DEFAULT_MAX_SENTENCEPIECE_LENGTH: Final = 16

_COMMON: Final = 0  # our class of Common
_INHERITED: Final = 3  # our class of Inherited (combining marks take the script before them)
# Our classes sentencepiece's table does not have (Common there): Old Hungarian, Inscriptional
# Parthian and Pahlavi, Egyptian and Anatolian hieroglyphs.
_UNKNOWN_TO_SENTENCEPIECE: Final = frozenset((91, 98, 99, 124, 125))
# A piece's script before its first scripted character (sentencepiece's kAnyType).
_ANY: Final = -1


def _script(cp: int) -> int:
    """sentencepiece's script of code point `cp`, as one of our classes."""
    found = script_of(chr(cp))
    if found == ANY_SCRIPT or found in _UNKNOWN_TO_SENTENCEPIECE:
        return _COMMON
    return found


def is_decimal_number(cp: int) -> bool:
    """sentencepiece's `is_unicode_decimal_number`: ASCII and full-width digits only."""
    return 0x30 <= cp <= 0x39 or 0xFF10 <= cp <= 0xFF19


class PieceRules:
    """Which strings may be pieces, as sentencepiece's trainers decide (`IsValidSentencePiece`,
    whitespace as a prefix, whitespace-only pieces not allowed):

    - at most `max_sentencepiece_length` characters, none of them the rare-character mark ▅,
      NUL, a tab or a space;
    - "▁" only at the start (`split_by_whitespace`), or anywhere but the end (not);
    - one script per piece (`split_by_unicode_script`; a combining mark takes the script before
      it, and digits count as no script unless `split_by_number`);
    - a digit alone (`split_digits`).

    PieceRules().valid("▁the") -> True; "▁fair." -> False (Latin, then Common); "▁a▁b" -> False.
    """

    max_sentencepiece_length: int
    split_by_unicode_script: bool
    split_by_number: bool
    split_by_whitespace: bool
    split_digits: bool
    # code point -> sentencepiece's script + 1 as met (0: not yet; empty until the first):
    # read unboxed (a dict boxed every code point past 256 to look it up)
    _scripts: vec[u8]

    def __init__(
        self,
        max_sentencepiece_length: int = DEFAULT_MAX_SENTENCEPIECE_LENGTH,
        split_by_unicode_script: bool = True,
        split_by_number: bool = True,
        split_by_whitespace: bool = True,
        split_digits: bool = False,
    ) -> None:
        self.max_sentencepiece_length = max_sentencepiece_length
        self.split_by_unicode_script = split_by_unicode_script
        self.split_by_number = split_by_number
        self.split_by_whitespace = split_by_whitespace
        self.split_digits = split_digits
        self._scripts = vec[u8]()

    def valid(self, piece: str) -> bool:
        n = len(piece)
        if n == 0 or n > self.max_sentencepiece_length:
            return False
        previous = _ANY
        scripts = self._scripts
        for pos in range(n):
            cp = ord(piece[pos])
            if cp == 0x2585 or cp == 0 or cp == 0x09 or cp == 0x20 or 0xD800 <= cp <= 0xDFFF:
                return False
            if cp == 0x2581:
                if self.split_by_whitespace:
                    if pos > 0:
                        return False
                elif pos > 0 and pos == n - 1:
                    return False
                continue
            script = int(scripts[cp]) - 1 if cp < len(scripts) else -1
            if script < 0:
                script = _script(cp)
                scripts = self._remember(cp, script)
            if script == _INHERITED:
                script = previous
            if is_decimal_number(cp):
                if not self.split_by_number:
                    script = _ANY
                if self.split_digits and n > 1:
                    return False
            if self.split_by_unicode_script and script != _ANY and previous != _ANY and previous != script:
                return False
            previous = script
        return True

    def _remember(self, cp: int, script: int) -> vec[u8]:
        """Note `script` (0 .. 254) for code point `cp`; the table, grown to hold it if needed
        (to the BMP, or to every code point)."""
        scripts = self._scripts
        if cp >= len(scripts):
            size = 0x10000 if cp < 0x10000 else 0x110000
            scripts = vec[u8](bytes(scripts) + bytes(size - len(scripts)))
            self._scripts = scripts
        scripts[cp] = u8(script + 1)
        return scripts


def float32(value: float) -> float:
    """`value` rounded to a C float, as sentencepiece compares coverage."""
    rounded: float = struct.unpack("f", struct.pack("f", value))[0]
    return rounded


def covered_chars(counts: dict[str, int], character_coverage: float) -> list[str]:
    """The characters sentencepiece keeps (its required_chars): the most frequent first (ties:
    smaller code point first) until they cover `character_coverage` of all occurrences (as C
    floats); the others become ▅ before training. Tabs, spaces, NUL and ▅ are never kept.

    {"a": 6, "b": 3, "c": 1}, 0.9 -> ["a", "b"]; 1.0 -> ["a", "b", "c"].
    """
    ranked: list[tuple[int, str]] = []
    total = 0
    for char, count in counts.items():
        if char == " " or char == "\0":
            continue
        ranked.append((-count, char))
        total += count
    ranked.sort()
    wanted = float32(character_coverage)
    kept: list[str] = []
    accumulated = 0
    for neg_count, char in ranked:
        if total > 0 and float32(accumulated / total) >= wanted:
            break
        accumulated -= neg_count
        if char != "\t" and char != UNK_CHAR:
            kept.append(char)
    return kept


def kept_table(kept: list[str]) -> vec[u8]:
    """`kept` as a table by code point, 1 for a kept char (up to the largest one's code):
    ["a", "c"] -> 0 x 97, then 1, 0, 1."""
    top = 0
    for char in kept:
        if ord(char) > top:
            top = ord(char)
    table = vec[u8](bytes(top + 1))
    for char in kept:
        table[ord(char)] = 1
    return table


def kept_parts(sentence: str, kept: vec[u8]) -> list[str]:
    """`split_words(sentence, kept, False)` with `kept` as its `kept_table`: the sentence cut at
    every char not kept, read by code point (no string made for a char, no set looked up):
    "▁aéb" with the table of ["▁", "a", "b"] -> ["▁a", "b"]."""
    words: list[str] = []
    start = 0
    n = len(sentence)
    size = len(kept)
    for i in range(n):
        code = ord(sentence[i])
        if code >= size or kept[code] == 0:
            if i > start:
                words.append(sentence[start:i])
            start = i + 1
    if start == 0:
        if n > 0:
            words.append(sentence)  # (the whole sentence kept: no copy)
    elif n > start:
        words.append(sentence[start:])
    return words


def split_words(sentence: str, kept: set[str] | None, by_whitespace: bool) -> list[str]:
    """The training words of one normalized `sentence`: cut before each "▁" when
    `by_whitespace` (sentencepiece's SplitSentencesByWhitespace), and at every character not
    in `kept` (None: all are kept), which no piece may hold (the ▅ sentencepiece puts there).

    split_words("▁ab▁c", None, True) -> ["▁ab", "▁c"]; split_words("▁aéb", {"▁", "a", "b"}, True)
    -> ["▁a", "b"].
    """
    words: list[str] = []
    start = 0
    n = len(sentence)
    for i in range(n):
        c = sentence[i]
        if kept is not None and c not in kept:
            if i > start:
                words.append(sentence[start:i])
            start = i + 1
        elif by_whitespace and c == WS_CHAR and i > start:
            words.append(sentence[start:i])
            start = i
    if n > start:
        words.append(sentence[start:])
    return words
