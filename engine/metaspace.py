"""SentencePiece's metaspace convention, shared by the Metaspace pre-tokenizer and decoder: the
replacement char that stands for a space, when it is prepended (`prepend_scheme`), and the
tokenizer.json fields both serialize. No splitting or decoding here.
"""

from __future__ import annotations

from typing import Final

from engine.errors import SchemaError
from engine.schema import JsonValue, get_bool, get_char, get_str

# "▁" (U+2581 LOWER ONE EIGHTH BLOCK), SentencePiece's space.
REPLACEMENT: Final = "\u2581"
ALWAYS: Final = "always"
FIRST: Final = "first"
NEVER: Final = "never"
PREPEND_SCHEMES: Final = (FIRST, NEVER, ALWAYS)


def check_replacement(replacement: str) -> str:
    """`replacement` if it is one char, else HF's ValueError."""
    if len(replacement) != 1:
        raise ValueError(f"replacement must be a single character, got {replacement!r}")
    return replacement


def check_prepend_scheme(prepend_scheme: str) -> str:
    """`prepend_scheme` if it is one of first/never/always, else HF's ValueError."""
    if prepend_scheme not in PREPEND_SCHEMES:
        raise ValueError(
            f"{prepend_scheme} is an unknown variant, should be one of ['first', 'never', 'always']"
        )
    return prepend_scheme


def options_to_dict(replacement: str, prepend_scheme: str, split: bool) -> dict[str, JsonValue]:
    """The tokenizer.json object of a Metaspace pre-tokenizer or decoder, keys in HF's order."""
    return {"type": "Metaspace", "replacement": replacement, "prepend_scheme": prepend_scheme, "split": split}


def options_from_dict(data: dict[str, object]) -> tuple[str, str, bool]:
    """(replacement, prepend_scheme, split) of a Metaspace object, with HF 0.23's defaults and its
    legacy `add_prefix_space` field (which only loads when it agrees with the scheme)."""
    where = "Metaspace"
    replacement = get_char(data, "replacement", where)
    scheme = get_str(data, "prepend_scheme", where, ALWAYS)
    if scheme not in PREPEND_SCHEMES:
        raise SchemaError(f"{where}: unknown prepend_scheme {scheme!r}, expected one of first, never, always")
    legacy = data.get("add_prefix_space")
    if legacy is not None and not isinstance(legacy, bool):
        raise SchemaError(f"{where}: field 'add_prefix_space' must be true or false")
    if legacy is False and scheme != NEVER:
        raise SchemaError(f"{where}: add_prefix_space does not match declared prepend_scheme")
    return replacement, scheme, get_bool(data, "split", where, True)
