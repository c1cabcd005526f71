"""The normalize stage, as HF's `tokenizers.normalizers`: NFC ... BertNormalizer, Precompiled,
Sequence, and `from_dict`, which reads the tokenizer.json "normalizer" object.

The contract is `base.Normalizer`; each family has its module (`unicode`, `edits`, `bert`, `nmt`,
`byte_level`, `precompiled`, `sequence`), and `normalized` holds the `NormalizedString` they edit.
"""

from __future__ import annotations

import base64

from engine.errors import SchemaError
from engine.normalizers.base import Normalizer
from engine.normalizers.bert import BertNormalizer
from engine.normalizers.byte_level import ByteLevel, byte_level_transform
from engine.normalizers.edits import Prepend, Replace, Strip
from engine.normalizers.nmt import Nmt
from engine.normalizers.precompiled import Precompiled
from engine.normalizers.sequence import Sequence
from engine.normalizers.unicode import NFC, NFD, NFKC, NFKD, Lowercase, StripAccents
from engine.pattern import Replacement
from engine.schema import check_nesting, expect_object, get_bool, get_list, get_opt_bool, get_str, require, type_tag

__all__ = [
    "NFC",
    "NFD",
    "NFKC",
    "NFKD",
    "BertNormalizer",
    "ByteLevel",
    "Lowercase",
    "Nmt",
    "Normalizer",
    "Precompiled",
    "Prepend",
    "Replace",
    "Sequence",
    "Strip",
    "StripAccents",
    "byte_level_transform",
    "from_dict",
]


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
