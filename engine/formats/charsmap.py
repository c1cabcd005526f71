"""SentencePiece `precompiled_charsmap` blobs: compile normalization rules into one, read one back,
and the NFKC / nmt_nfkc rule sets sentencepiece builds, made from Python's `unicodedata`.

A blob is `<uint32 LE trie size><darts-clone double array><NUL-terminated replacements>`: the
trie maps each rule's UTF-8 key to the offset of its replacement. `normalizers.Precompiled`,
sentencepiece's `normalizer.cc` and HF's `spm_precompiled` all read it. Not a normalizer: applying
rules to text is `normalizers.Precompiled`'s job.

subtle: sentencepiece builds its tables with ICU, we build ours with `unicodedata` (Unicode
14.0 on Python 3.11), so code points added in later Unicode versions (e.g. U+A7F1, U+1E030..) have
no rule here where a newer sentencepiece has one; every rule both know is identical (measured
against the nfkc blob of sentencepiece 0.2: 224,755 of its 225,232 rules, no rule different).
"""

from __future__ import annotations

import unicodedata
from typing import Final

__all__ = ["charsmap_rules", "compile_charsmap", "nfkc_charsmap", "nfkc_rules"]

# darts-clone unit bit fields (reader side: has_leaf = bit 8, label = bits 0-7 (+ bit 31 for a
# value unit), offset = bits 10-31, shifted left by 8 when bit 9 is set; a value unit is
# `value | 1 << 31`).
HAS_LEAF: Final = 1 << 8
IS_VALUE: Final = 1 << 31
EXTENSION_BIT: Final = 1 << 9
BLOCK: Final = 256
# Free units are searched only in the newest blocks (darts-clone keeps 16 "extra" blocks open):
# older ones are closed, which bounds the search for a base.
OPEN_BLOCKS: Final = 16
MAX_SMALL_OFFSET: Final = 1 << 21
MAX_OFFSET: Final = 1 << 29

HANGUL_FIRST: Final = 0xAC00
HANGUL_LAST: Final = 0xD7A3

# sentencepiece's MergeNmtMap (builder.cc): these become " " (U+061C ARABIC LETTER MARK is not in
# builder.cc at 2025-02 but is in the nmt_nfkc table sentencepiece 0.2.x ships) ...
NMT_SPACES: Final = (
    0x0009, 0x000A, 0x000C, 0x000D, 0x061C, 0x1680, 0x200B, 0x200E, 0x200F, 0x2028, 0x2029, 0x2581, 0xFEFF, 0xFFFD,
    0x200C,
)
# ... these are removed (ASCII/C1 controls), and U+FF5E FULLWIDTH TILDE keeps no rule (Japanese
# uses it apart from "~"). subtle: U+200D (ZWJ) is left alone, unlike HF's Nmt normalizer.
NMT_REMOVED: Final = (
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0B, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16,
    0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x7F, 0x8F, 0x9F,
)
NMT_KEPT: Final = 0xFF5E


# -- rules -> blob -------------------------------------------------------------------------------


class _Dawg:
    """The rules' keys as a minimal acyclic automaton over UTF-8 bytes (darts-clone builds one too).

    A state's transitions are packed ints `child << 8 | byte`; `values[state]` is the offset of
    its replacement, -1 when no key ends there. State 0 is the root.
    """

    transitions: list[list[int]]
    values: list[int]
    register: dict[str, int]

    def __init__(self) -> None:
        self.transitions = [[]]
        self.values = [-1]
        self.register = {}

    def add_sorted(self, keys: list[bytes], key_values: list[int]) -> None:
        """Add keys in increasing byte order, minimizing as it goes (Daciuk et al.)."""
        path: list[int] = [0]
        previous = b""
        for k in range(len(keys)):
            key = keys[k]
            common = 0
            limit = min(len(previous), len(key))
            while common < limit and previous[common] == key[common]:
                common += 1
            self._minimize(path, common)
            for at in range(common, len(key)):
                state = len(self.values)
                self.transitions.append([])
                self.values.append(-1)
                self.transitions[path[len(path) - 1]].append(state << 8 | key[at])
                path.append(state)
            self.values[path[len(path) - 1]] = key_values[k]
            previous = key
        self._minimize(path, 0)

    def _minimize(self, path: list[int], depth: int) -> None:
        """Replace the states on `path` deeper than `depth` by their registered equals."""
        while len(path) - 1 > depth:
            state = path.pop()
            parts: list[str] = [str(self.values[state])]
            for packed in self.transitions[state]:
                parts.append(str(packed))
            signature = " ".join(parts)
            found = self.register.get(signature)
            if found is None:
                self.register[signature] = state
                continue
            parent = self.transitions[path[len(path) - 1]]
            last = parent[len(parent) - 1]
            parent[len(parent) - 1] = found << 8 | (last & 0xFF)


class _DoubleArray:
    """darts-clone's double array: the unit at `p` has children at `base ^ label`, where
    `base = p ^ offset(p)`, and its value (when has_leaf) at `base` itself (label 0).

    subtle: a base is never given to two states, so a child found at `base ^ label` with that
    label is always the right one; a state shared in the DAWG keeps one base for all its units.
    """

    units: list[int]
    used: list[bool]
    used_base: list[bool]
    next_free: list[int]
    prev_free: list[int]
    head: int

    def __init__(self) -> None:
        self.units = []
        self.used = []
        self.used_base = []
        self.next_free = []
        self.prev_free = []
        self.head = -1
        self._grow()
        self._take(0)
        # subtle: base 0 would give the root offset 0, which darts-clone's validate() (run by
        # sentencepiece >= 0.2.1 on load) rejects as "no children".
        self.used_base[0] = True

    def _grow(self) -> None:
        """Add a block of free units, closing the oldest open block past OPEN_BLOCKS."""
        start = len(self.units)
        for p in range(start, start + BLOCK):
            self.units.append(0)
            self.used.append(False)
            self.used_base.append(False)
            self.next_free.append(-1)
            self.prev_free.append(-1)
            self._link(p)
        closing = start // BLOCK - OPEN_BLOCKS
        if closing >= 0:
            for p in range(closing * BLOCK, closing * BLOCK + BLOCK):
                if not self.used[p] and self.next_free[p] >= 0:
                    self._unlink(p)
                    self.used[p] = True

    def _link(self, p: int) -> None:
        # append p at the end of the circular free list
        if self.head < 0:
            self.head = p
            self.next_free[p] = p
            self.prev_free[p] = p
            return
        last = self.prev_free[self.head]
        self.next_free[last] = p
        self.prev_free[p] = last
        self.next_free[p] = self.head
        self.prev_free[self.head] = p

    def _unlink(self, p: int) -> None:
        after = self.next_free[p]
        if after == p:
            self.head = -1
        else:
            before = self.prev_free[p]
            self.next_free[before] = after
            self.prev_free[after] = before
            if self.head == p:
                self.head = after
        self.next_free[p] = -1
        self.prev_free[p] = -1

    def _take(self, p: int) -> None:
        while p >= len(self.units):
            self._grow()
        self.used[p] = True
        self._unlink(p)

    def _fits(self, base: int, labels: list[int]) -> bool:
        if base < len(self.used_base) and self.used_base[base]:
            return False
        for label in labels:
            p = base ^ label
            if p == 0 or (p < len(self.used) and self.used[p]):
                return False
        return True

    def find_base(self, labels: list[int]) -> int:
        """A base where every `base ^ label` is free (growing the array when none is)."""
        first = labels[0]
        if self.head >= 0:
            p = self.head
            while True:
                base = p ^ first
                if self._fits(base, labels):
                    return base
                p = self.next_free[p]
                if p == self.head:
                    break
        return len(self.units) ^ first

    def reserve(self, base: int, labels: list[int]) -> None:
        while (base | (BLOCK - 1)) >= len(self.units):
            self._grow()
        self.used_base[base] = True
        for label in labels:
            self._take(base ^ label)

    def set_offset(self, p: int, base: int) -> None:
        offset = p ^ base
        if offset >= MAX_OFFSET or (offset >= MAX_SMALL_OFFSET and offset & 0xFF):
            raise ValueError("too many rules for a charsmap: a double-array offset does not fit")
        if offset < MAX_SMALL_OFFSET:
            self.units[p] |= offset << 10
        else:
            self.units[p] |= (offset << 2) | EXTENSION_BIT


def _build_trie(dawg: _Dawg) -> list[int]:
    """Lay the DAWG out as darts-clone units, depth first from the root at unit 0."""
    array = _DoubleArray()
    bases: list[int] = [-1] * len(dawg.values)
    # (state, unit) pairs still to lay out, packed as state * 2**32 + unit
    stack: list[int] = [0]
    while stack:
        packed = stack.pop()
        state = packed >> 32
        unit = packed & 0xFFFFFFFF
        value = dawg.values[state]
        if value >= 0:
            array.units[unit] |= HAS_LEAF
        base = bases[state]
        if base < 0:
            labels: list[int] = []
            if value >= 0:
                labels.append(0)
            for transition in dawg.transitions[state]:
                labels.append(transition & 0xFF)
            base = array.find_base(labels)
            array.reserve(base, labels)
            bases[state] = base
            if value >= 0:
                array.units[base] = value | IS_VALUE
            transitions = dawg.transitions[state]
            for k in range(len(transitions) - 1, -1, -1):
                label = transitions[k] & 0xFF
                array.units[base ^ label] = label
                stack.append((transitions[k] >> 8) * (1 << 32) + (base ^ label))
        array.set_offset(unit, base)
    return array.units


def compile_charsmap(rules: dict[str, str]) -> bytes:
    """The `precompiled_charsmap` blob that maps each key of `rules` to its value (sentencepiece's
    `CompileCharsMap`): replacements sorted and stored once each, keys in a darts-clone trie.

    compile_charsmap({"ﬁ": "fi"}) -> b"..." (Precompiled(blob).normalize_str("ﬁ") == "fi")
    Keys must be non-empty; no key or value may hold NUL (the blob's terminator).
    """
    values = sorted(set(rules.values()))
    strings = bytearray()
    where: dict[str, int] = {}
    for value in values:
        if "\x00" in value:
            raise ValueError(f"a charsmap replacement cannot hold NUL: {value!r}")
        where[value] = len(strings)
        strings += value.encode("utf-8")
        strings.append(0)
    pairs: list[tuple[bytes, int]] = []
    for key, value in rules.items():
        if not key or "\x00" in key:
            raise ValueError(f"a charsmap key must be non-empty and hold no NUL: {key!r}")
        pairs.append((key.encode("utf-8"), where[value]))
    pairs.sort()
    if pairs:
        dawg = _Dawg()
        dawg.add_sorted([p[0] for p in pairs], [p[1] for p in pairs])
        units = _build_trie(dawg)
    else:
        # no rule: a root whose children block (base 1) is empty, and one empty string, which
        # sentencepiece requires (its string block must end with NUL)
        units = [1 << 10] + [0] * (BLOCK - 1)
        strings.append(0)
    out = bytearray((len(units) * 4).to_bytes(4, "little"))
    for unit in units:
        out += unit.to_bytes(4, "little")
    out += strings
    return bytes(out)


def charsmap_rules(blob: bytes) -> dict[str, str]:
    """Every rule a charsmap holds (sentencepiece's `DecompileCharsMap`): key -> replacement.

    charsmap_rules(compile_charsmap({"a": "b"})) -> {"a": "b"}
    """
    if len(blob) < 4:
        raise ValueError("Cannot parse precompiled_charsmap")
    count = int.from_bytes(blob[0:4], "little") // 4
    if 4 + count * 4 > len(blob):
        raise ValueError("Cannot parse precompiled_charsmap")
    units: list[int] = [int.from_bytes(blob[4 + 4 * k : 8 + 4 * k], "little") for k in range(count)]
    strings = blob[4 + count * 4 :]
    # the units reachable as `base ^ label` with that label, by base: one pass, not 255 probes a node
    children: dict[int, list[int]] = {}
    for p in range(count):
        label = units[p] & (IS_VALUE | 0xFF)
        if 0 < label < 256:
            found = children.get(p ^ label)
            if found is None:
                children[p ^ label] = [p]
            else:
                found.append(p)
    rules: dict[str, str] = {}
    if not units:
        return rules
    # depth first over (unit, key so far); keys are short, so a list of pairs is fine here
    stack: list[tuple[int, bytes]] = [(0, b"")]
    while stack:
        unit, key = stack.pop()
        for child in children.get(unit ^ _offset(units[unit]), []):
            child_key = key + bytes([units[child] & 0xFF])
            if units[child] & HAS_LEAF:
                leaf = child ^ _offset(units[child])
                if leaf < count:
                    start = units[leaf] & (IS_VALUE - 1)
                    end = strings.find(b"\x00", start)
                    if end < 0:
                        end = len(strings)
                    rules[child_key.decode("utf-8", "replace")] = strings[start:end].decode("utf-8", "replace")
            stack.append((child, child_key))
    return rules


def _offset(unit: int) -> int:
    return (unit >> 10) << ((unit & EXTENSION_BIT) >> 6)


# -- NFKC rules ----------------------------------------------------------------------------------


def _is_unicode_char(cp: int) -> bool:
    """ICU's U_IS_UNICODE_CHAR: not a surrogate, not a noncharacter."""
    return not (0xD800 <= cp <= 0xDFFF or 0xFDD0 <= cp <= 0xFDEF or (cp & 0xFFFE) == 0xFFFE)


def _build_nfkc_map() -> dict[str, str]:
    """sentencepiece's BuildNFKCMap before RemoveRedundantMap: each code point NFKC changes, and
    every sequence that NFKD-decomposes like a composable char, to that char's NFKC."""
    rules: dict[str, str] = {}
    # fully decomposed char -> the chars whose NFKD is exactly it (itself included)
    originals: dict[str, list[str]] = {}
    decomposed: set[str] = set()
    for cp in range(1, 0x110000):
        if not _is_unicode_char(cp):
            continue
        c = chr(cp)
        # subtle: unicodedata.decomposition() is "" for Hangul syllables (their decomposition is
        # algorithmic), and a char with no decomposition is its own NFKC and NFKD.
        if not unicodedata.decomposition(c) and not HANGUL_FIRST <= cp <= HANGUL_LAST:
            continue
        nfkc = unicodedata.normalize("NFKC", c)
        if nfkc != c:
            rules[c] = nfkc
        nfkd = unicodedata.normalize("NFKD", c)
        if len(nfkd) == 1:
            found = originals.get(nfkd)
            if found is None:
                originals[nfkd] = [c]
            else:
                found.append(c)
        else:
            decomposed.add(nfkd)
    for nfkd in sorted(decomposed):
        nfkc = unicodedata.normalize("NFKC", nfkd)
        if nfkc == nfkd:
            continue
        spellings: list[str] = [""]
        for c in nfkd:
            others = originals.get(c)
            longer: list[str] = []
            for prefix in spellings:
                longer.append(prefix + c)
                if others is not None:
                    for other in others:
                        if other != c:
                            longer.append(prefix + other)
            spellings = longer
        for spelling in spellings:
            if spelling != nfkc:
                rules[spelling] = nfkc
    return rules


def _apply_longest(rules: dict[str, str], text: str, max_len: int) -> str:
    """`text` through `rules` by longest match of at most `max_len` chars (builder.cc's Normalize)."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        size = min(max_len, n - i)
        while size > 0:
            found = rules.get(text[i : i + size])
            if found is not None:
                out.append(found)
                i += size
                break
            size -= 1
        if size == 0:
            out.append(text[i])
            i += 1
    return "".join(out)


def _remove_redundant(rules: dict[str, str]) -> dict[str, str]:
    """Drop each rule that shorter rules already give (sentencepiece's RemoveRedundantMap)."""
    kept: dict[str, str] = {}
    by_length: dict[int, list[str]] = {}
    for key in rules:
        if len(key) == 1:
            kept[key] = rules[key]
        else:
            found = by_length.get(len(key))
            if found is None:
                by_length[len(key)] = [key]
            else:
                found.append(key)
    for length in sorted(by_length):
        for key in by_length[length]:
            value = rules[key]
            if value != _apply_longest(kept, key, length - 1):
                kept[key] = value
    return kept


def _build_nfkc_rules(nmt: bool) -> dict[str, str]:
    rules = _remove_redundant(_build_nfkc_map())
    if nmt:
        for cp in NMT_SPACES:
            rules[chr(cp)] = " "
        for cp in NMT_REMOVED:
            rules[chr(cp)] = ""
        rules.pop(chr(NMT_KEPT), None)
        rules = _remove_redundant(rules)
    return rules


class _Cache:
    """Rule sets and blobs, built on first use (a few seconds) and kept for the process."""

    rules: dict[bool, dict[str, str]]
    blobs: dict[bool, bytes]

    def __init__(self) -> None:
        self.rules = {}
        self.blobs = {}


CACHE: Final = _Cache()


def nfkc_rules(nmt: bool) -> dict[str, str]:
    """sentencepiece's "nfkc" rules (nmt=False) or "nmt_nfkc" (nmt=True), from `unicodedata`.

    nfkc_rules(False)["ﬁ"] -> "fi"; nfkc_rules(True)["\\t"] -> " " (and "\\x01" -> "")
    A new dict each call (the cached one stays untouched).
    """
    found = CACHE.rules.get(nmt)
    if found is None:
        found = _build_nfkc_rules(nmt)
        CACHE.rules[nmt] = found
    return dict(found)


def nfkc_charsmap(nmt: bool) -> bytes:
    """The compiled blob of `nfkc_rules(nmt)`, built once per process."""
    found = CACHE.blobs.get(nmt)
    if found is None:
        rules = CACHE.rules.get(nmt)
        if rules is None:
            rules = _build_nfkc_rules(nmt)
            CACHE.rules[nmt] = rules
        found = compile_charsmap(rules)
        CACHE.blobs[nmt] = found
    return found
