"""What the parts of a project file share: the names of the archive's members, and the
readers of the JSON fields they hold (token ids as keys, numbers, relative paths, parts parsed
strictly), each error naming where it was found.
"""

from __future__ import annotations

import json
import os
from typing import Final

from engine.errors import SchemaError, TokenizerFileError
from engine.formats.safe_json import parse_json
from engine.project.archive import Part
from engine.schema import JsonValue, as_count, get_list

# The archive's index, and where each trained tokenizer's parts go (`<n>`: its place in the list).
INDEX_MEMBER: Final = "project.json"
TOKENIZER_MEMBER: Final = "tokenizers/{}/tokenizer.json"
HISTORY_MEMBER: Final = "tokenizers/{}/history.json"
VOCABULARY_MEMBER: Final = "tokenizers/{}/vocabulary.json"


def member_part(parts: dict[str, object], key: str, members: dict[str, Part], where: str, required: bool) -> Part | None:
    """The archive member a result's `parts` name for `key` (None when absent and not `required`)."""
    name = parts.get(key)
    if name is None and not required:
        return None
    if not isinstance(name, str) or name not in members:
        raise SchemaError(f"{where}: the archive has no {key} part ({name!r})")
    return members[name]


def id_key(key: str, where: str) -> int:
    """A token id written as an object key: ASCII digits only ("²".isdigit() is true), and small."""
    if not key.isascii() or not key.isdigit() or len(key) > 10:
        raise SchemaError(f"{where}: {key[:20]!r} is not a token id")
    return int(key)


def read_evaluations(obj: dict[str, object], where: str) -> list[tuple[int, float]]:
    found: list[tuple[int, float]] = []
    for item in get_list(obj, "evaluations", where) if "evaluations" in obj else []:
        if not isinstance(item, list) or len(item) != 2:
            raise SchemaError(f"{where}: an evaluation must be [merges, characters per token]")
        done, value = item[0], item[1]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise SchemaError(f"{where}: an evaluation's value must be a number")
        found.append((as_count(done, f"{where}: an evaluation's merges"), float(value)))
    return found


def read_round_points(obj: dict[str, object], where: str) -> list[tuple[int, int, int, int]]:
    """A result's "round_points": [[round, vocabulary size, tokens, characters], ...] (none in
    projects saved before rounds were measured)."""
    found: list[tuple[int, int, int, int]] = []
    for item in get_list(obj, "round_points", where) if "round_points" in obj else []:
        if not isinstance(item, list) or len(item) != 4:
            raise SchemaError(f"{where}: a round's point must be [round, vocabulary size, tokens, characters]")
        what = f"{where}: a round's point"
        found.append((as_count(item[0], what), as_count(item[1], what), as_count(item[2], what), as_count(item[3], what)))
    return found


def get_number(obj: dict[str, object], key: str, where: str, default: float) -> float:
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise SchemaError(f"{where}: '{key}' must be a number")
    return float(value)


def parse_part(data: bytes, where: str) -> object:
    try:
        return parse_json(data.decode("utf-8"), where)
    except UnicodeDecodeError as error:
        raise SchemaError(f"{where} is not UTF-8 (byte {error.start})") from None
    except TokenizerFileError as error:
        raise SchemaError(f"{where} cannot be read: {error.reason}") from None


def compact_json(data: dict[str, JsonValue]) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def relative_path(path: str, folder: str) -> str:
    """`path` relative to `folder`, or "" when they are on different drives."""
    if not folder:
        return ""
    try:
        return os.path.relpath(path, folder)
    except ValueError:
        return ""


def json_object(data: dict[str, object]) -> dict[str, JsonValue]:
    result: dict[str, JsonValue] = {}
    for key, value in data.items():
        result[key] = value
    return result
