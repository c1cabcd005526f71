"""Per-character Unicode behaviour of HF's Rust dependencies: NF(K)D/NF(K)C with alignment changes, case maps.

Decomposition/composition follow the `unicode_normalization_alignments` crate (Unicode 9.0 data, so chars
that crate does not know are left alone); case maps follow Rust `char::to_lowercase`/`to_uppercase`.
Character classes for regexes are built here too. Nothing here knows about offsets (see `engine.normalizers.normalized`).
"""

from __future__ import annotations

import re
import sys
import unicodedata
from array import array
from typing import Final

import regex
from librt.vecs import vec
from mypy_extensions import u8

from engine import unicode_tables as tables

# Hangul syllable arithmetic (Unicode 3.12 "Conjoining Jamo Behavior").
S_BASE: Final = 0xAC00
L_BASE: Final = 0x1100
V_BASE: Final = 0x1161
T_BASE: Final = 0x11A7
L_COUNT: Final = 19
V_COUNT: Final = 21
T_COUNT: Final = 28
N_COUNT: Final = V_COUNT * T_COUNT
S_COUNT: Final = L_COUNT * N_COUNT
PAIR_KEY: Final = 0x110000
# Canonical 2-char decompositions stop below this code point (checked in the tests).
LAST_COMPOSITE: Final = 0x1D1C0


def class_pattern(spec: str, repeat: str = "") -> regex.Pattern[str]:
    """A compiled one-class regex over the ranges of a `unicode_tables` spec (`repeat` e.g. "+")."""
    return regex.compile("[" + tables.regex_class(spec) + "]" + repeat)


LOWER_EXTRA: Final = frozenset(chr(cp) for cp in tables.LOWER_EXTRA)
UPPER_EXTRA: Final = frozenset(chr(cp) for cp in tables.UPPER_EXTRA)


# What `KindTable.known` gives for a code point not remembered yet.
UNKNOWN_KIND: Final = -128


class KindTable:
    """A small int (-127 .. 127) remembered per code point, as a char scanner asks each char's
    kind of its classes once: a byte per code point, read by `ord(text[i])`, where a dict keyed
    by the char made a string (past Latin-1) and hashed it for every char read. The table
    (1.1 MB) is made at the first `remember`.

    `table` holds kind - UNKNOWN_KIND (0: not known yet) and is empty before the first
    `remember`; a hot loop may read it itself (`known` written out, a call less per char),
    taking it again after each `remember`. (A vec of u8, read unboxed: a bytearray's item
    went through PyObject_GetItem with the code point boxed.)
    """

    table: vec[u8]

    def __init__(self) -> None:
        self.table = vec[u8]()

    def known(self, code: int) -> int:
        """The kind remembered for `code`, or UNKNOWN_KIND."""
        table = self.table
        if code >= len(table):
            return UNKNOWN_KIND
        return int(table[code]) + UNKNOWN_KIND

    def remember(self, code: int, kind: int) -> None:
        if not self.table:
            self.table = vec[u8](bytes(0x110000))  # (copied whole from the zero bytes)
        self.table[code] = u8(kind - UNKNOWN_KIND)


def utf8_offsets(text: str) -> list[int]:
    """UTF-8 byte offset of every char index of `text`, and of its end: `"aé"` -> `[0, 1, 3]`."""
    out = [0]
    total = 0
    for c in text:
        cp = ord(c)
        total += 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4
        out.append(total)
    return out


def char_of_byte(text: str) -> list[int]:
    """The char index each UTF-8 byte of `text` belongs to: `"aé"` -> `[0, 1, 1]`."""
    out: list[int] = []
    for i in range(len(text)):
        cp = ord(text[i])
        width = 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4
        for _ in range(width):
            out.append(i)
    return out


def char_set(spec: str, below: int = 0x110000) -> frozenset[str]:
    """The chars of a `unicode_tables` range spec (those under code point `below`)."""
    # subtle: the ASCII tables ask for `below=0x80`; the whole of a big class (\w: 145k chars)
    # is 15 MB of one-char strs that stayed in the process's memory after the import.
    out: set[str] = set()
    for start, end in tables.parse_ranges(spec):
        for cp in range(start, min(end + 1, below)):
            out.add(chr(cp))
    return frozenset(out)


UNKNOWN: Final = char_set(tables.NORM_UNKNOWN)
# Rust's char::is_whitespace (Unicode White_Space), for str.strip: Python's isspace() also takes \x1c-\x1f.
WHITESPACE_CHARS: Final = "".join(sorted(char_set(tables.WHITESPACE)))


class _Caches:
    """Lazily filled lookup tables (module-level mutable state kept in one native object)."""

    ccc: dict[str, int]
    canonical: dict[str, str]
    compatible: dict[str, str]
    compositions: dict[int, str]
    every_char: str

    def __init__(self) -> None:
        self.ccc = {}
        self.canonical = {}
        self.compatible = {}
        self.compositions = {}
        self.every_char = ""


CACHES: Final = _Caches()


def ccc(c: str) -> int:
    """Canonical combining class as HF's Unicode 9.0 tables see it (0 for chars they do not know)."""
    if c < "\u0300":
        return 0
    found = CACHES.ccc.get(c)
    if found is None:
        found = 0 if c in UNKNOWN else unicodedata.combining(c)
        CACHES.ccc[c] = found
    return found


def decompose_char(c: str, compat: bool) -> str:
    """Full canonical (or compatibility) decomposition of one char: `"é"` -> `"e\\u0301"`."""
    if c < "\u00a0":
        return c
    cache = CACHES.compatible if compat else CACHES.canonical
    found = cache.get(c)
    if found is None:
        cp = ord(c)
        if S_BASE <= cp < S_BASE + S_COUNT:
            index = cp - S_BASE
            found = chr(L_BASE + index // N_COUNT) + chr(V_BASE + (index % N_COUNT) // T_COUNT)
            if index % T_COUNT:
                found += chr(T_BASE + index % T_COUNT)
        elif c in UNKNOWN:
            found = c
        else:
            # subtle: the raw mappings, expanded recursively, are already in canonical order
            # (checked for every char in the tests), so NFD/NFKD of one char gives them.
            found = unicodedata.normalize("NFKD" if compat else "NFD", c)
        cache[c] = found
    return found


def _compositions() -> dict[int, str]:
    table = CACHES.compositions
    if not table:
        for cp in range(0xC0, LAST_COMPOSITE + 1):
            c = chr(cp)
            raw = unicodedata.decomposition(c)
            if not raw or raw[0] == "<" or c in UNKNOWN:
                continue
            parts = raw.split()
            if len(parts) != 2 or unicodedata.normalize("NFC", c) != c:
                continue  # singletons and composition exclusions never recompose
            table[int(parts[0], 16) * PAIR_KEY + int(parts[1], 16)] = c
    return table


def compose(a: str, b: str) -> str:
    """The primary composite of `a` + `b`, or "" when there is none."""
    ca = ord(a)
    cb = ord(b)
    if L_BASE <= ca < L_BASE + L_COUNT and V_BASE <= cb < V_BASE + V_COUNT:
        return chr(S_BASE + ((ca - L_BASE) * V_COUNT + (cb - V_BASE)) * T_COUNT)
    if (
        S_BASE <= ca < S_BASE + S_COUNT
        and T_BASE < cb < T_BASE + T_COUNT
        and (ca - S_BASE) % T_COUNT == 0
    ):
        return chr(ca + cb - T_BASE)
    return _compositions().get(ca * PAIR_KEY + cb, "")


def _sort_block(chars: list[str], changes: list[int], classes: list[int], start: int) -> None:
    """Stable insertion sort of `[start:]` by combining class; the changes travel with their chars."""
    for i in range(start + 1, len(chars)):
        k = classes[i]
        j = i
        while j > start and classes[j - 1] > k:
            j -= 1
        if j != i:
            c = chars[i]
            g = changes[i]
            del chars[i], changes[i], classes[i]
            chars.insert(j, c)
            changes.insert(j, g)
            classes.insert(j, k)


def decompose(text: str, compat: bool) -> tuple[list[str], list[int], list[int]]:
    """NFD/NFKD of `text` as (chars, changes, combining classes), changes as HF's transform wants.

    `"é"` -> `(["e", "\\u0301"], [0, 1], [0, 230])`: the first char of a decomposition replaces the
    source char (0), the others are insertions (1); canonical reordering moves changes with chars.
    """
    chars: list[str] = []
    changes: list[int] = []
    classes: list[int] = []
    block = 0
    for c in text:
        parts = decompose_char(c, compat)
        first = True
        for d in parts:
            k = ccc(d)
            if k == 0:
                if len(chars) - block > 1:
                    _sort_block(chars, changes, classes, block)
                block = len(chars)
            chars.append(d)
            changes.append(0 if first else 1)
            classes.append(k)
            first = False
    if len(chars) - block > 1:
        _sort_block(chars, changes, classes, block)
    return chars, changes, classes


def recompose(
    chars: list[str], changes: list[int], classes: list[int]
) -> tuple[list[str], list[int]]:
    """Canonical composition of a decomposed sequence, merging changes like the crate does.

    A composite keeps the change of its starter plus the change of the mark minus one:
    `(["e", "\\u0301"], [0, 0])` -> `(["é"], [-1])` (é stands for e and swallows the accent).
    """
    out: list[str] = []
    out_changes: list[int] = []
    buffer: list[str] = []
    buffer_changes: list[int] = []
    has_composee = False
    composee = ""
    composee_change = 0
    last_class = -1
    for i in range(len(chars)):
        ch = chars[i]
        change = changes[i]
        klass = classes[i]
        if not has_composee:
            if klass != 0:
                out.append(ch)
                out_changes.append(change)
                continue
            has_composee = True
            composee = ch
            composee_change = change
            continue
        if last_class < 0:
            composed = compose(composee, ch)
            if composed:
                composee = composed
                composee_change += change - 1
                continue
            if klass == 0:
                out.append(composee)
                out_changes.append(composee_change)
                composee = ch
                composee_change = change
                continue
            buffer.append(ch)
            buffer_changes.append(change)
            last_class = klass
            continue
        if last_class >= klass:
            # `ch` is blocked from the composee
            if klass == 0:
                out.append(composee)
                out_changes.append(composee_change)
                out.extend(buffer)
                out_changes.extend(buffer_changes)
                buffer.clear()
                buffer_changes.clear()
                composee = ch
                composee_change = change
                last_class = -1
                continue
            buffer.append(ch)
            buffer_changes.append(change)
            last_class = klass
            continue
        composed = compose(composee, ch)
        if composed:
            composee = composed
            composee_change += change - 1
            continue
        buffer.append(ch)
        buffer_changes.append(change)
        last_class = klass
    if has_composee:
        out.append(composee)
        out_changes.append(composee_change)
    out.extend(buffer)
    out_changes.extend(buffer_changes)
    return out, out_changes


def normalize_changes(text: str, form: str) -> tuple[list[str], list[int]]:
    """`form` ("NFD", "NFKD", "NFC", "NFKC") of `text` as (chars, changes) for a transform."""
    compat = form == "NFKD" or form == "NFKC"
    chars, changes, classes = decompose(text, compat)
    if form == "NFC" or form == "NFKC":
        return recompose(chars, changes, classes)
    return chars, changes


def needs_normalization(text: str, form: str) -> bool:
    """False when HF's `form` leaves `text` exactly as it is (then alignments do not move either)."""
    if text.isascii():
        return False
    if not UNKNOWN.isdisjoint(text):
        return True
    if form == "NFC":
        return not unicodedata.is_normalized("NFC", text)
    if form == "NFD":
        return not unicodedata.is_normalized("NFD", text)
    if form == "NFKC":
        return not unicodedata.is_normalized("NFKC", text)
    return not unicodedata.is_normalized("NFKD", text)


def normalize_str(text: str, form: str) -> str:
    """HF's NFD/NFKD/NFC/NFKC of `text` (Python's unicodedata unless a char is unknown to HF)."""
    if text.isascii():
        return text
    if UNKNOWN.isdisjoint(text):
        if form == "NFC":
            out = unicodedata.normalize("NFC", text)
        elif form == "NFD":
            out = unicodedata.normalize("NFD", text)
        elif form == "NFKC":
            out = unicodedata.normalize("NFKC", text)
        else:
            out = unicodedata.normalize("NFKD", text)
        # subtle: known chars may compose into a char HF does not know (U+11935 U+11930).
        if UNKNOWN.isdisjoint(out):
            return out
    chars, _ = normalize_changes(text, form)
    return "".join(chars)


def lower_char(c: str) -> str:
    """Rust `char::to_lowercase` of one char (no final-sigma rule: `"Σ"` -> `"σ"`)."""
    extra = tables.LOWER_EXTRA.get(ord(c))
    return extra if extra is not None else c.lower()


def upper_char(c: str) -> str:
    """Rust `char::to_uppercase` of one char (`"ß"` -> `"SS"`)."""
    extra = tables.UPPER_EXTRA.get(ord(c))
    return extra if extra is not None else c.upper()


def lower_str(text: str) -> str:
    """Every char lowercased on its own, as HF does: `"ΟΔΟΣ"` -> `"οδοσ"` (Python says `"οδος"`)."""
    if text.isascii():
        return text.lower()
    # subtle: str.lower() applies the final-sigma rule; per-char lowercase of Σ is always σ.
    out = text.replace("\u03a3", "\u03c3").lower()
    if not LOWER_EXTRA.isdisjoint(text):
        out = out.translate(tables.LOWER_EXTRA)
    return out


def upper_str(text: str) -> str:
    """Every char uppercased on its own, as HF does."""
    out = text.upper()
    if not text.isascii() and not UPPER_EXTRA.isdisjoint(text):
        out = out.translate(tables.UPPER_EXTRA)
    return out


def _every_char() -> str:
    """Every code point but the surrogates, in order (4.4 MB, made once)."""
    if not CACHES.every_char:
        # subtle: built from UTF-32 bytes, not from a list of 1.1M one-char strs (a 90 MB
        # transient that made training's peak memory on any non-ASCII text).
        points = array("I", range(0xD800))
        points.extend(range(0xE000, 0x110000))
        CACHES.every_char = points.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")
    return CACHES.every_char


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1] + 1:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def _disagreement(builtin: str, spec: str) -> list[tuple[int, int]]:
    """Code point ranges where the `regex` class body `builtin` and the table `spec` disagree."""
    every = _every_char()
    ours: list[tuple[int, int]] = []
    for m in regex.finditer("[" + builtin + "]+", every):
        ours.append((ord(every[m.start()]), ord(every[m.end() - 1])))
    events: list[tuple[int, int]] = []  # (code point, +1 start / -1 end) of both range lists
    for start, end in _merge(ours) + tables.parse_ranges(spec):
        events.append((start, 1))
        events.append((end + 1, -1))
    events.sort()
    out: list[tuple[int, int]] = []
    depth = 0
    open_at = -1
    for cp, step in events:
        if depth == 1 and open_at < cp:
            out.append((open_at, cp - 1))
        depth += step
        open_at = cp
    return _merge(out)


def slot(i: int) -> str:
    """Where the i-th class body goes in a `DualPattern` template (two noncharacters around i)."""
    return "\ufdd0" + str(i) + "\ufdd1"


def ascii_body(spec: str) -> str:
    """A stdlib `re` class body for the ASCII chars of `spec`, plus U+0080 so it is never empty
    (`[^...]` and `[...]` then behave on ASCII text exactly like the full class)."""
    parts: list[str] = []
    for start, end in tables.parse_ranges(spec):
        if start >= 0x80:
            break
        last = end if end < 0x80 else 0x7F
        parts.append(f"\\x{start:02x}" if start == last else f"\\x{start:02x}-\\x{last:02x}")
    parts.append("\\x80")
    return "".join(parts)


class DualPattern:
    """One regex written with HF's measured character classes, run the fastest exact way.

    Three compiled forms: stdlib `re` with the classes cut down to ASCII (for ASCII text, the common
    case: `re` is ~2x faster than `regex` there), `regex` with its own Unicode classes (fast, right
    unless the text holds a char on which they disagree with HF's), and `regex` with HF's full classes
    as large explicit sets (exact, slow), used only for texts holding such a rare char.

    `DualPattern(f"[{slot(0)}]+", [("\\w", tables.RUST_WORD)])` is HF's `\\w+`.
    """

    template: str
    classes: list[tuple[str, str]]
    flags: int
    fast: regex.Pattern[str]
    ascii: re.Pattern[str] | None
    exact: regex.Pattern[str] | None
    rare: frozenset[str] | None
    ascii_fast: bool

    def __init__(
        self, template: str, classes: list[tuple[str, str]], flags: int = 0, ascii: bool = False
    ) -> None:
        """`classes[i]` pairs a builtin class body (`"\\w"`, `"\\p{L}"`) with the `unicode_tables`
        spec it stands for; `ascii` also builds the stdlib-`re` form (templates that `re` accepts,
        no flags); raises `regex.error` if the template does not compile."""
        self.template = template
        self.classes = classes
        self.flags = flags
        builtins: list[str] = []
        asciis: list[str] = []
        for builtin, spec in classes:
            builtins.append(builtin)
            asciis.append(ascii_body(spec))
        self.fast = regex.compile(self._fill(builtins), flags)
        self.ascii = re.compile(self._fill(asciis)) if ascii else None
        self.exact = None
        self.rare = None
        self.ascii_fast = False

    def _fill(self, bodies: list[str]) -> str:
        out = self.template
        for i in range(len(bodies)):
            out = out.replace(slot(i), bodies[i])
        return out

    def _measure(self) -> frozenset[str]:
        rare: set[str] = set()
        for i in range(len(self.classes)):
            if slot(i) not in self.template:
                continue
            builtin, spec = self.classes[i]
            for start, end in _disagreement(builtin, spec):
                for cp in range(start, end + 1):
                    if not 0xD800 <= cp < 0xE000:
                        rare.add(chr(cp))
        ascii_fast = True
        for c in rare:
            if c < "\x80":
                ascii_fast = False
        self.ascii_fast = ascii_fast
        out = frozenset(rare)
        self.rare = out
        return out

    def pick(self, text: str) -> regex.Pattern[str]:
        """The `regex` form that matches `text` exactly as HF would."""
        rare = self.rare
        if rare is None:
            rare = self._measure()
        # (an empty set's isdisjoint still walks the whole text: most patterns have no rare char)
        if not rare or (self.ascii_fast and text.isascii()) or rare.isdisjoint(text):
            return self.fast
        exact = self.exact
        if exact is None:
            exacts: list[str] = []
            for _, spec in self.classes:
                exacts.append(tables.regex_class(spec))
            exact = regex.compile(self._fill(exacts), self.flags)
            self.exact = exact
        return exact

    def findall(self, text: str) -> list[str]:
        """All matches of a pattern without groups, as strings."""
        fast = self.ascii
        if fast is not None and text.isascii():
            return fast.findall(text)
        return self.pick(text).findall(text)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of every match."""
        out: list[tuple[int, int]] = []
        fast = self.ascii
        if fast is not None and text.isascii():
            for m in fast.finditer(text):
                out.append(m.span())
            return out
        for found in self.pick(text).finditer(text):
            out.append(found.span())
        return out

    def sub(self, replacement: str, text: str) -> str:
        """`text` with every match replaced by the literal `replacement`."""
        fast = self.ascii
        if fast is not None and text.isascii():
            return fast.sub(replacement, text)
        return self.pick(text).sub(replacement, text)
