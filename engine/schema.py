"""Typed readers for the fields of serialized components (tokenizer.json objects).

Each reader returns the field's value or raises `SchemaError` naming the component and field.
No component knowledge here: the stages' `from_dict` functions decide what is required.
"""

from __future__ import annotations

from typing import Final

from engine.errors import SchemaError

# HF's integer fields: ids are u32, counts and sizes usize (u64).
MAX_ID: Final = 2**32 - 1
MAX_COUNT: Final = 2**64 - 1
# serde_json's recursion limit: HF refuses arrays and objects nested 128 deep.
MAX_DEPTH: Final = 127


def nesting_depth(data: object) -> int:
    """How deep lists and dicts nest in `data` (`[[1], {}]` -> 2, `3` -> 0), without recursion."""
    deepest = 0
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            deepest = max(deepest, depth)
            for item in value.values():
                if isinstance(item, (dict, list)):
                    stack.append((item, depth + 1))
        elif isinstance(value, list):
            deepest = max(deepest, depth)
            for item in value:
                if isinstance(item, (dict, list)):
                    stack.append((item, depth + 1))
    return deepest


def check_nesting(data: object, where: str) -> None:
    """SchemaError when a component's object nests deeper than HF reads (a Sequence of Sequences
    ... 64 deep): building it would recurse that deep."""
    if nesting_depth(data) > MAX_DEPTH:
        raise SchemaError(f"{where}: nested more than {MAX_DEPTH} levels deep (HF refuses it too)")

# The value of a field of a serialized component (a tokenizer.json object, a project file entry).
JsonValue = object


def expect_object(data: object, where: str) -> dict[str, object]:
    """`data` as a JSON object, or SchemaError("BPE: expected an object, got list")."""
    if not isinstance(data, dict):
        raise SchemaError(f"{where}: expected an object, got {_kind(data)}")
    for key in data:
        if not isinstance(key, str):
            raise SchemaError(f"{where}: object keys must be strings, got {key!r}")
    # (not a copy: no reader changes the objects it reads; a 250,000-token vocab is not copied)
    result: dict[str, object] = data
    return result


def type_tag(data: dict[str, object], where: str) -> str | None:
    """The `"type"` tag, None when absent (HF's legacy untagged objects)."""
    tag = data.get("type")
    if tag is None:
        return None
    if not isinstance(tag, str):
        raise SchemaError(f"{where}: field 'type' must be a string, got {_kind(tag)}")
    return tag


def expect_tagged(data: object, kind: str) -> dict[str, object]:
    """`data` as the JSON object of a `kind` ("BPE"...): untagged (HF's legacy objects) or tagged
    with that type, else SchemaError("BPE: wrong type 'WordPiece'")."""
    obj = expect_object(data, kind)
    tag = obj.get("type")
    if tag is not None and tag != kind:
        raise SchemaError(f"{kind}: wrong type {tag!r}")
    return obj


def require(data: dict[str, object], key: str, where: str) -> object:
    if key not in data:
        raise SchemaError(f"{where}: missing field '{key}'")
    return data[key]


def get_str(data: dict[str, object], key: str, where: str, default: str | None = None) -> str:
    """A required string field (or `default` when given and the field is absent)."""
    if key not in data and default is not None:
        return default
    value = require(data, key, where)
    if not isinstance(value, str):
        raise SchemaError(f"{where}: field '{key}' must be a string, got {_kind(value)}")
    return value


def get_opt_str(data: dict[str, object], key: str, where: str) -> str | None:
    """A string field that may be absent or null."""
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise SchemaError(f"{where}: field '{key}' must be a string or null, got {_kind(value)}")
    return value


def get_choice(
    data: dict[str, object], key: str, where: str, choices: dict[str, str], default: str | None = None
) -> str:
    """A string field that must be one of `choices`' keys, mapped to its value.

    {"direction": "Left"} with {"Left": "left", "Right": "right"} -> "left"
    """
    value = get_str(data, key, where, default)
    found = choices.get(value)
    if found is None:
        expected = ", ".join(repr(choice) for choice in choices)
        raise SchemaError(f"{where}: unknown {key} {value!r} (expected one of {expected})")
    return found


def get_char(data: dict[str, object], key: str, where: str, default: str | None = None) -> str:
    """A field holding exactly one character (Rust `char`)."""
    value = get_str(data, key, where, default)
    if len(value) != 1:
        raise SchemaError(f"{where}: field '{key}' must be a single character, got {value!r}")
    return value


def get_bool(data: dict[str, object], key: str, where: str, default: bool | None = None) -> bool:
    """A required boolean field (or `default` when given and the field is absent; null is an error, as in HF)."""
    if key not in data:
        if default is not None:
            return default
        raise SchemaError(f"{where}: missing field '{key}'")
    value = data[key]
    if not isinstance(value, bool):
        raise SchemaError(f"{where}: field '{key}' must be true or false, got {_kind(value)}")
    return value


def get_opt_bool(data: dict[str, object], key: str, where: str) -> bool | None:
    """A boolean field that may be absent or null (HF's Option<bool>)."""
    value = data.get(key)
    if value is not None and not isinstance(value, bool):
        raise SchemaError(f"{where}: field '{key}' must be true, false or null, got {_kind(value)}")
    return value


def get_count(data: dict[str, object], key: str, where: str, default: int | None = None) -> int:
    """A required non-negative integer field (Rust usize/u32)."""
    value = data.get(key)
    if value is None:
        if default is not None:
            return default
        raise SchemaError(f"{where}: missing field '{key}'")
    return as_count(value, f"{where}: field '{key}'")


def as_count(value: object, what: str) -> int:
    """A non-negative integer that fits a Rust usize/u64, as HF's serde reads one."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SchemaError(f"{what} must be a non-negative integer, got {_shown(value)}")
    if value > MAX_COUNT:
        raise SchemaError(f"{what} must be at most {MAX_COUNT} (a 64-bit count), got {_shown(value)}")
    return value


def as_id(value: object, what: str) -> int:
    """A token id: a non-negative integer that fits a u32, as HF stores ids."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SchemaError(f"{what} must be a non-negative integer, got {_shown(value)}")
    if value > MAX_ID:
        raise SchemaError(f"{what} must be at most {MAX_ID} (ids are 32-bit in HF), got {_shown(value)}")
    return value


def get_id(data: dict[str, object], key: str, where: str) -> int:
    """A required token id field (u32)."""
    return as_id(require(data, key, where), f"{where}: field '{key}'")


def _shown(value: object) -> str:
    """`repr(value)`, cut to 40 chars (a number may have thousands of digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and (value >= 10**40 or value <= -(10**40)):
        return f"a number of {len(str(abs(value))):,} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "\u2026"


def get_opt_count(data: dict[str, object], key: str, where: str) -> int | None:
    """A non-negative integer field that may be absent or null."""
    value = data.get(key)
    if value is None:
        return None
    return as_count(value, f"{where}: field '{key}'")


def as_float(value: object, what: str) -> float:
    """A number that fits an f64 and is not NaN or infinite (serde_json reads no other)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SchemaError(f"{what} must be a number, got {_kind(value)}")
    try:
        result = float(value)
    except OverflowError:
        result = float("inf")
    if result - result != 0.0:
        raise SchemaError(f"{what} must be a finite number, got {_shown(value)}")
    return result


def get_float(data: dict[str, object], key: str, where: str) -> float:
    """A required number field."""
    return as_float(require(data, key, where), f"{where}: field '{key}'")


def get_opt_float(data: dict[str, object], key: str, where: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SchemaError(f"{where}: field '{key}' must be a number or null, got {_kind(value)}")
    return as_float(value, f"{where}: field '{key}'")


def get_list(data: dict[str, object], key: str, where: str) -> list[object]:
    value = require(data, key, where)
    if not isinstance(value, list):
        raise SchemaError(f"{where}: field '{key}' must be a list, got {_kind(value)}")
    result: list[object] = []
    for item in value:
        result.append(item)
    return result


def get_strings(data: dict[str, object], key: str, where: str, default: list[str] | None = None) -> list[str]:
    """A list of strings (or `default` when given and the field is absent)."""
    if key not in data and default is not None:
        return list(default)
    result: list[str] = []
    for item in get_list(data, key, where):
        if not isinstance(item, str):
            raise SchemaError(f"{where}: field '{key}' must hold strings, got {_kind(item)}")
        result.append(item)
    return result


def get_counts(data: dict[str, object], key: str, where: str) -> list[int]:
    """A list of non-negative integers."""
    result: list[int] = []
    for item in get_list(data, key, where):
        result.append(as_count(item, f"{where}: an item of '{key}'"))
    return result


def get_floats(data: dict[str, object], key: str, where: str) -> list[float]:
    """A list of numbers."""
    result: list[float] = []
    for item in get_list(data, key, where):
        result.append(as_float(item, f"{where}: an item of '{key}'"))
    return result


def get_vocab(data: dict[str, object], key: str, where: str) -> dict[str, int]:
    """A {token: id} object with u32 ids."""
    raw = expect_object(require(data, key, where), f"{where}: field '{key}'")
    vocab: dict[str, int] = {}
    for token, id in raw.items():
        vocab[token] = as_id(id, f"{where}: the id of vocab token {token!r}")
    return vocab


def json_type(value: object) -> str:
    """The JSON type of a parsed value, as JSON names it: "object", "array", "string", "number",
    "boolean" or "null" (every reader's errors say what they found in these words)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _kind(value: object) -> str:
    """`json_type` with its article: "an array", "a number", "null"."""
    name = json_type(value)
    return name if name == "null" else f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
