"""Which Unicode script a character belongs to (its Script property, not Script_Extensions):
"a" -> Latin, "а" (U+0430) -> Cyrillic, "\u0301" -> Inherited, "ー" -> Common, "\U000E0041" -> Common.

One `regex` pattern tries each script in turn (the common ones first) and a cache keeps each
character's answer, so a 10,000-character text costs one regex match per distinct character.
No per-language knowledge here (`audit.dominant_script` is the ISO 15924 view of a whole text).
"""

from __future__ import annotations

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
