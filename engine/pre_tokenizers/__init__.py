"""The pre-tokenize stage, as HF's `tokenizers.pre_tokenizers`: Whitespace ... ByteLevel,
Metaspace, Sequence, and `from_dict`, which reads the tokenizer.json "pre_tokenizer" object.

The contract is `base.PreTokenizer`; each component has its module, as in HF's Rust crate;
`scanners` holds the fast paths of their splits, and `pretokenized` the `PreTokenizedString` they
cut. No model or normalizer logic here.
"""

from __future__ import annotations

# (aliased: `byte_level` and `metaspace` here name this package's own submodules)
from engine.byte_level import options_from_dict as byte_level_options
from engine.errors import SchemaError
from engine.metaspace import options_from_dict as metaspace_options
from engine.pattern import BEHAVIOR_FROM_JSON, ISOLATED, pattern_from_dict
from engine.pre_tokenizers.base import Cut, PreTokenizer, words_of
from engine.pre_tokenizers.bert import BertPreTokenizer
from engine.pre_tokenizers.byte_level import ByteLevel
from engine.pre_tokenizers.digits import Digits
from engine.pre_tokenizers.fixed_length import FixedLength
from engine.pre_tokenizers.metaspace import Metaspace
from engine.pre_tokenizers.punctuation import Punctuation
from engine.pre_tokenizers.sequence import Sequence
from engine.pre_tokenizers.split import CharDelimiterSplit, Split
from engine.pre_tokenizers.unicode_scripts import UnicodeScripts
from engine.pre_tokenizers.whitespace import Whitespace, WhitespaceSplit
from engine.schema import as_count, check_nesting, expect_object, get_bool, get_char, get_list, require, type_tag

__all__ = [
    "BertPreTokenizer",
    "ByteLevel",
    "CharDelimiterSplit",
    "Cut",
    "Digits",
    "FixedLength",
    "Metaspace",
    "PreTokenizer",
    "Punctuation",
    "Sequence",
    "Split",
    "UnicodeScripts",
    "Whitespace",
    "WhitespaceSplit",
    "from_dict",
    "words_of",
]


def _behavior_field(data: dict[str, object], owner: str, default: str | None = None) -> str:
    if "behavior" not in data and default is not None:
        return default
    value = require(data, "behavior", owner)
    if not isinstance(value, str) or value not in BEHAVIOR_FROM_JSON:
        raise SchemaError(
            f"{owner}: unknown behavior {value!r}, expected one of "
            + ", ".join(BEHAVIOR_FROM_JSON)
        )
    return BEHAVIOR_FROM_JSON[value]


def from_dict(data: object) -> PreTokenizer:
    """Build a pre-tokenizer from its tokenizer.json object (HF's field names, defaults, legacy forms)."""
    data = expect_object(data, "pre-tokenizer")
    check_nesting(data, "pre-tokenizer")
    kind = type_tag(data, "pre-tokenizer")
    if kind is None:
        raise SchemaError("pre-tokenizer without a 'type' field matches no known pre-tokenizer")
    if kind == "Whitespace":
        return Whitespace()
    if kind == "WhitespaceSplit":
        return WhitespaceSplit()
    if kind == "BertPreTokenizer":
        return BertPreTokenizer()
    if kind == "UnicodeScripts":
        return UnicodeScripts()
    if kind == "Punctuation":
        return Punctuation(_behavior_field(data, kind, ISOLATED))
    if kind == "Digits":
        return Digits(get_bool(data, "individual_digits", kind))
    if kind == "CharDelimiterSplit":
        return CharDelimiterSplit(get_char(data, "delimiter", kind))
    if kind == "Delimiter":
        raise SchemaError(
            "pre-tokenizer type 'Delimiter' is not readable (HF 0.23 rejects it too); "
            "use 'CharDelimiterSplit'"
        )
    if kind == "FixedLength":
        return FixedLength(as_count(data["length"], "FixedLength: field 'length'") if "length" in data else 5)
    if kind == "ByteLevel":
        add_prefix_space, trim_offsets, use_regex = byte_level_options(data)
        return ByteLevel(add_prefix_space, trim_offsets, use_regex)
    if kind == "Metaspace":
        replacement, scheme, split = metaspace_options(data)
        return Metaspace(replacement, scheme, split)
    if kind == "Split":
        pattern = pattern_from_dict(data, kind)
        behavior = _behavior_field(data, kind)
        return Split(pattern, behavior, get_bool(data, "invert", kind))
    if kind == "Sequence":
        return Sequence([from_dict(item) for item in get_list(data, "pretokenizers", kind)])
    raise SchemaError(f"unknown pre-tokenizer type {kind!r}")
