"""What Unicode says about one character, and the curated sets the Unicode report flags: its
name (or, for a character without one, its alias or code point label), what its general
category means, its script (its Script property, not Script_Extensions), and which characters
are invisible, bidi controls, or Latin look-alikes in Cyrillic and Greek.

    character_name("\\n") -> "LINE FEED (LF)"; script_of("\u0430") -> "Cyrillic" (а);
    LATIN_LOOK_ALIKES["\u0430"] -> "a"

Scripts: one `regex` pattern tries each script in turn (the common ones first) and a cache keeps
each character's answer, so a 10,000-character text costs one regex match per distinct character.
Which starters a normal form may join with the character before them (`composing_starters`) is
found from `unicodedata` once per process. Nothing about texts here (`unicode_report` looks at
words, lines and normal forms).
"""

from __future__ import annotations

import unicodedata
from typing import Final

import regex

# Unicode's long script names (PropertyValueAliases.txt), as far as the installed `regex` knows
# them; the ones most text is written in first, since the pattern tries them in order.
SCRIPT_NAMES: Final = (
    "Common", "Latin", "Inherited", "Han", "Hiragana", "Katakana", "Cyrillic", "Greek", "Arabic",
    "Hebrew", "Hangul", "Devanagari", "Thai", "Bengali", "Tamil", "Telugu", "Kannada", "Malayalam",
    "Gujarati", "Gurmukhi", "Oriya", "Sinhala", "Armenian", "Georgian", "Ethiopic", "Khmer", "Lao",
    "Myanmar", "Tibetan", "Mongolian", "Bopomofo", "Coptic", "Syriac", "Thaana", "Nko", "Samaritan",
    "Mandaic", "Cherokee", "Canadian_Aboriginal", "Ogham", "Runic", "Tagalog", "Hanunoo", "Buhid",
    "Tagbanwa", "Limbu", "Tai_Le", "New_Tai_Lue", "Buginese", "Tai_Tham", "Balinese", "Sundanese",
    "Batak", "Lepcha", "Ol_Chiki", "Braille", "Glagolitic", "Tifinagh", "Yi", "Lisu", "Vai", "Bamum",
    "Syloti_Nagri", "Phags_Pa", "Saurashtra", "Kayah_Li", "Rejang", "Javanese", "Cham", "Tai_Viet",
    "Meetei_Mayek", "Linear_B", "Lycian", "Carian", "Old_Italic", "Gothic", "Old_Permic", "Ugaritic",
    "Old_Persian", "Deseret", "Shavian", "Osmanya", "Osage", "Elbasan", "Caucasian_Albanian",
    "Vithkuqi", "Todhri", "Linear_A", "Cypriot", "Imperial_Aramaic", "Palmyrene", "Nabataean",
    "Hatran", "Phoenician", "Lydian", "Meroitic_Hieroglyphs", "Meroitic_Cursive", "Kharoshthi",
    "Old_South_Arabian", "Old_North_Arabian", "Manichaean", "Avestan", "Inscriptional_Parthian",
    "Inscriptional_Pahlavi", "Psalter_Pahlavi", "Old_Turkic", "Old_Hungarian", "Hanifi_Rohingya",
    "Garay", "Yezidi", "Old_Sogdian", "Sogdian", "Old_Uyghur", "Chorasmian", "Elymaic", "Brahmi",
    "Kaithi", "Sora_Sompeng", "Chakma", "Mahajani", "Sharada", "Khojki", "Multani", "Khudawadi",
    "Grantha", "Tulu_Tigalari", "Newa", "Tirhuta", "Siddham", "Modi", "Takri", "Ahom", "Dogra",
    "Warang_Citi", "Dives_Akuru", "Nandinagari", "Zanabazar_Square", "Soyombo", "Pau_Cin_Hau",
    "Sunuwar", "Bhaiksuki", "Marchen", "Masaram_Gondi", "Gunjala_Gondi", "Makasar", "Kawi",
    "Cuneiform", "Cypro_Minoan", "Egyptian_Hieroglyphs", "Anatolian_Hieroglyphs", "Gurung_Khema",
    "Mro", "Tangsa", "Bassa_Vah", "Pahawh_Hmong", "Kirat_Rai", "Medefaidrin", "Miao", "Tangut",
    "Nushu", "Khitan_Small_Script", "Duployan", "SignWriting", "Nyiakeng_Puachue_Hmong", "Toto",
    "Wancho", "Nag_Mundari", "Ol_Onal", "Mende_Kikakui", "Adlam",
)  # fmt: skip
# A character in none of them (unassigned, private use, a surrogate).
UNKNOWN_SCRIPT: Final = "Unknown"
# One named group per script: the group that matched names the character's script.
SCRIPT_RE: Final = regex.compile("|".join([f"(?P<{name}>\\p{{Script={name}}})" for name in SCRIPT_NAMES]))
# Characters looked up so far (bounded: a text has a few thousand distinct characters at most).
_CACHE: Final[dict[str, str]] = {}
CACHE_LIMIT: Final = 1 << 16


def script_of(character: str) -> str:
    """The Unicode script of one character: "é" -> Latin, "猫" -> Han, "1" -> Common."""
    found = _CACHE.get(character)
    if found is not None:
        return found
    match = SCRIPT_RE.match(character)
    name = UNKNOWN_SCRIPT
    if match is not None:
        group = match.lastgroup
        if group is not None:
            name = group
    if len(_CACHE) >= CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[character] = name
    return name


# Characters that take no width where they stand: the zero width space, non-joiner and joiner,
# the word joiner and the invisible math operators, the zero width no-break space (the BOM),
# the Mongolian vowel separator, the soft hyphen (seen only where a line breaks at it), the
# combining grapheme joiner, and the tag characters (invisible; also used to smuggle text).
ZERO_WIDTH_CHARS: Final = frozenset(
    [
        "\u200b", "\u200c", "\u200d", "\u2060", "\u2061", "\u2062", "\u2063", "\u2064", "\ufeff", "\u180e",
        "\u00ad", "\u034f", "\U000e0001",
    ]
    + [chr(code) for code in range(0xE0020, 0xE0080)]
)
# Unicode's Bidi_Control property, all twelve: ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI,
# FSI, PDI.
BIDI_CONTROL_CHARS: Final = frozenset(
    [
        "\u061c", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067",
        "\u2068", "\u2069",
    ]
)
# Controls that plain text is made of and that are not flagged.
ORDINARY_CONTROLS: Final = frozenset(["\t", "\n", "\r"])

# Letters of Cyrillic and Greek that look like a Latin letter in common fonts -> that Latin letter.
# Written after the idea of Unicode's confusables.txt (UTS #39, "Unicode Security Mechanisms"),
# from the glyphs, not copied from it, and kept to the look-alikes that spoofed names use; a
# letter that only resembles one in some fonts (Cyrillic к, п, т; Greek ε, η, ω) is left out.
LATIN_LOOK_ALIKES: Final = {
    # Cyrillic small
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0443": "y",
    "\u0445": "x", "\u0455": "s", "\u0456": "i", "\u0458": "j", "\u04bb": "h", "\u0501": "d",
    "\u051b": "q", "\u051d": "w", "\u04cf": "l",
    # Cyrillic capital
    "\u0410": "A", "\u0412": "B", "\u0415": "E", "\u041a": "K", "\u041c": "M", "\u041d": "H",
    "\u041e": "O", "\u0420": "P", "\u0421": "C", "\u0422": "T", "\u0425": "X", "\u0405": "S",
    "\u0406": "I", "\u0408": "J", "\u04ae": "Y", "\u04c0": "I", "\u051a": "Q", "\u051c": "W",
    # Greek small
    "\u03bf": "o", "\u03b1": "a", "\u03bd": "v", "\u03c1": "p", "\u03c4": "t", "\u03b9": "i",
    "\u03ba": "k", "\u03c5": "u", "\u03b3": "y", "\u03f2": "c", "\u03f3": "j",
    # Greek capital
    "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I",
    "\u039a": "K", "\u039c": "M", "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T",
    "\u03a5": "Y", "\u03a7": "X", "\u03f9": "C", "\u037f": "J",
}  # fmt: skip
# The script every look-alike above imitates.
LOOK_ALIKE_SCRIPT: Final = "Latin"
# The scripts a mixed-script word mixes (two or more of them in one word).
LOOK_ALIKE_SCRIPTS: Final = frozenset(["Latin", "Cyrillic", "Greek"])

# What each general category means (Unicode's PropertyValueAliases, in lower case).
CATEGORY_NAMES: Final = {
    "Lu": "letter, uppercase", "Ll": "letter, lowercase", "Lt": "letter, titlecase", "Lm": "letter, modifier",
    "Lo": "letter, other", "Mn": "mark, nonspacing", "Mc": "mark, spacing combining", "Me": "mark, enclosing",
    "Nd": "number, decimal digit", "Nl": "number, letter", "No": "number, other", "Pc": "punctuation, connector",
    "Pd": "punctuation, dash", "Ps": "punctuation, open", "Pe": "punctuation, close",
    "Pi": "punctuation, initial quote", "Pf": "punctuation, final quote", "Po": "punctuation, other",
    "Sm": "symbol, math", "Sc": "symbol, currency", "Sk": "symbol, modifier", "So": "symbol, other",
    "Zs": "separator, space", "Zl": "separator, line", "Zp": "separator, paragraph", "Cc": "other, control",
    "Cf": "other, format", "Cs": "other, surrogate", "Co": "other, private use", "Cn": "other, not assigned",
}  # fmt: skip

# Control characters have no Unicode name; these are their aliases from NameAliases.txt (their
# Unicode 1.0 names, but U+0007's, BELL, which is U+1F514's name now: ALERT), with the usual
# abbreviation where it is the better known name. Others get a label: "<control-0080>".
CONTROL_NAMES: Final = {
    0x00: "NULL", 0x01: "START OF HEADING", 0x02: "START OF TEXT", 0x03: "END OF TEXT",
    0x04: "END OF TRANSMISSION", 0x05: "ENQUIRY", 0x06: "ACKNOWLEDGE", 0x07: "ALERT (BEL)", 0x08: "BACKSPACE",
    0x09: "CHARACTER TABULATION", 0x0A: "LINE FEED (LF)", 0x0B: "LINE TABULATION", 0x0C: "FORM FEED (FF)",
    0x0D: "CARRIAGE RETURN (CR)", 0x0E: "SHIFT OUT", 0x0F: "SHIFT IN", 0x10: "DATA LINK ESCAPE",
    0x11: "DEVICE CONTROL ONE", 0x12: "DEVICE CONTROL TWO", 0x13: "DEVICE CONTROL THREE",
    0x14: "DEVICE CONTROL FOUR", 0x15: "NEGATIVE ACKNOWLEDGE", 0x16: "SYNCHRONOUS IDLE",
    0x17: "END OF TRANSMISSION BLOCK", 0x18: "CANCEL", 0x19: "END OF MEDIUM", 0x1A: "SUBSTITUTE",
    0x1B: "ESCAPE", 0x1C: "INFORMATION SEPARATOR FOUR", 0x1D: "INFORMATION SEPARATOR THREE",
    0x1E: "INFORMATION SEPARATOR TWO", 0x1F: "INFORMATION SEPARATOR ONE", 0x7F: "DELETE",
    0x82: "BREAK PERMITTED HERE", 0x83: "NO BREAK HERE", 0x85: "NEXT LINE (NEL)",
    0x86: "START OF SELECTED AREA", 0x87: "END OF SELECTED AREA", 0x88: "CHARACTER TABULATION SET",
    0x89: "CHARACTER TABULATION WITH JUSTIFICATION", 0x8A: "LINE TABULATION SET",
    0x8B: "PARTIAL LINE FORWARD", 0x8C: "PARTIAL LINE BACKWARD", 0x8D: "REVERSE LINE FEED",
    0x8E: "SINGLE SHIFT TWO", 0x8F: "SINGLE SHIFT THREE", 0x90: "DEVICE CONTROL STRING",
    0x91: "PRIVATE USE ONE", 0x92: "PRIVATE USE TWO", 0x93: "SET TRANSMIT STATE", 0x94: "CANCEL CHARACTER",
    0x95: "MESSAGE WAITING", 0x96: "START OF GUARDED AREA", 0x97: "END OF GUARDED AREA",
    0x98: "START OF STRING", 0x9A: "SINGLE CHARACTER INTRODUCER", 0x9B: "CONTROL SEQUENCE INTRODUCER",
    0x9C: "STRING TERMINATOR", 0x9D: "OPERATING SYSTEM COMMAND", 0x9E: "PRIVACY MESSAGE",
    0x9F: "APPLICATION PROGRAM COMMAND",
}  # fmt: skip


def code_label(character: str) -> str:
    """The code point's label: "é" -> "U+00E9"; "😀" -> "U+1F600"."""
    return f"U+{ord(character):04X}"


def character_name(character: str) -> str:
    """The Unicode name, or for a code point without one its Unicode 1.0 name (controls:
    "\\n" -> "LINE FEED (LF)") or its code point label: "<control-0080>", "<private-use-E000>",
    "<surrogate-D800>", "<noncharacter-FFFF>", "<reserved-0378>" (unassigned)."""
    name = unicodedata.name(character, "")
    if name:
        return name
    code = ord(character)
    category = unicodedata.category(character)
    label = "reserved"
    if category == "Cc":
        known = CONTROL_NAMES.get(code)
        if known is not None:
            return known
        label = "control"
    elif category == "Co":
        label = "private-use"
    elif category == "Cs":
        label = "surrogate"
    elif is_noncharacter(code):
        label = "noncharacter"
    return f"<{label}-{code:04X}>"


def is_noncharacter(code: int) -> bool:
    """The 66 noncharacters: U+FDD0..U+FDEF and the last two code points of every plane."""
    return 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE


# The starters each composing form joins with what comes before them (computed when first needed).
_COMPOSING_STARTERS: Final[dict[str, frozenset[str]]] = {}
# Characters past this have no decomposition (the last is U+2FA1D, a CJK compatibility ideograph).
LAST_DECOMPOSABLE: Final = 0x2FA20
# How many code points `_find_composing_starters` checks at once.
DECOMPOSITION_BLOCK: Final = 256


def composing_starters(form: str) -> frozenset[str]:
    """The characters of combining class 0 that `form` ("NFC", "NFD", "NFKC" or "NFKD") may join
    with the character before them:
    those whose decomposition (canonical for NFC and NFD, compatibility for NFKC and NFKD)
    starts with a mark, which may reorder with the marks before it (under NFKC and NFKD: U+FF9E
    HALFWIDTH KATAKANA VOICED SOUND MARK becomes the combining U+3099), and for NFC and NFKC
    also the second halves of canonical pairs (Hangul vowels and trailing consonants included)
    and the characters whose decomposition starts with one."""
    if not _COMPOSING_STARTERS:
        _find_composing_starters()
    return _COMPOSING_STARTERS[form]


def _find_composing_starters() -> None:
    """Fill `_COMPOSING_STARTERS` for the four forms from this Python's `unicodedata` (one pass
    over the code points that can decompose: about a tenth of a second, once per process)."""
    seconds: set[str] = set()
    for code in range(0x1161, 0x1176):  # Hangul vowels (L V -> LV)
        seconds.add(chr(code))
    for code in range(0x11A8, 0x11C3):  # Hangul trailing consonants (LV T -> LVT)
        seconds.add(chr(code))
    decomposable: list[str] = []
    for block_start in range(0, LAST_DECOMPOSABLE, DECOMPOSITION_BLOCK):
        block_end = min(block_start + DECOMPOSITION_BLOCK, LAST_DECOMPOSABLE)
        block = "".join([chr(code) for code in range(block_start, block_end)])
        # subtle: most blocks decompose nothing; one call on the block skips it (a block that only
        # holds marks out of canonical order is looked at character by character, to no effect)
        if unicodedata.is_normalized("NFKD", block):
            continue
        for character in block:
            decomposition = unicodedata.decomposition(character)
            if not decomposition:
                continue
            if unicodedata.combining(character) == 0:
                decomposable.append(character)
            parts = decomposition.split()
            if len(parts) == 2 and not decomposition.startswith("<"):
                seconds.add(chr(int(parts[1], 16)))
    pair_starters: set[str] = set()
    for character in seconds:
        if unicodedata.combining(character) == 0:
            pair_starters.add(character)
    nfd: set[str] = set()
    nfkd: set[str] = set()
    nfc = set(pair_starters)
    nfkc = set(pair_starters)
    for character in decomposable:
        first = unicodedata.normalize("NFD", character)[:1]
        if unicodedata.combining(first) != 0:
            nfd.add(character)
            nfc.add(character)
        elif first in seconds:
            nfc.add(character)
        first = unicodedata.normalize("NFKD", character)[:1]
        if not first:
            continue
        if unicodedata.combining(first) != 0:
            nfkd.add(character)
            nfkc.add(character)
        elif first in seconds:
            nfkc.add(character)
    _COMPOSING_STARTERS["NFD"] = frozenset(nfd)
    _COMPOSING_STARTERS["NFKD"] = frozenset(nfkd)
    _COMPOSING_STARTERS["NFC"] = frozenset(nfc)
    _COMPOSING_STARTERS["NFKC"] = frozenset(nfkc)
