"""What the trainers share: HF's option conversions, progress helpers and settings (de)serialization.

`as_special_tokens(["[UNK]"]) -> [AddedToken("[UNK]", special=True)]`. No training algorithm here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.added_vocabulary import AddedToken, as_added_tokens
from engine.errors import SchemaError, TrainingCancelled
from engine.model import JsonValue
from engine.progress import ProgressSink, TrainProgress

# Long stages report about this many times.
REPORTS_PER_STAGE: Final = 100


def report(sink: ProgressSink, stage: str, current: int, total: int, unit: str, detail: str = "") -> None:
    """Send one progress record; raise TrainingCancelled when the sink asks to stop."""
    if not sink.report(TrainProgress(stage, current, total, unit, detail)):
        raise TrainingCancelled(f"training cancelled during '{stage}'")


def report_every(total: int) -> int:
    """How many units between two reports so that a stage reports about 100 times."""
    every = (total + REPORTS_PER_STAGE - 1) // REPORTS_PER_STAGE
    return every if every > 0 else 1


def non_negative(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, not {value!r}")
    return value


def optional_non_negative(name: str, value: object) -> int | None:
    return None if value is None else non_negative(name, value)


def as_special_tokens(tokens: Sequence[object]) -> list[AddedToken]:
    """HF: a str becomes a special AddedToken; a given AddedToken is marked special."""
    return as_added_tokens(tokens, True)


def first_chars(alphabet: Sequence[object]) -> list[str]:
    """HF keeps the first char of each string (skipping empty ones) as a set; sorted here."""
    chars: set[str] = set()
    for item in alphabet:
        if not isinstance(item, str):
            raise TypeError("initial_alphabet must be a List[str]")
        if item:
            chars.add(item[0])
    return sorted(chars)


def special_tokens_to_json(tokens: list[AddedToken]) -> JsonValue:
    result: list[JsonValue] = []
    for token in tokens:
        result.append(
            {
                "content": token.content,
                "single_word": token.single_word,
                "lstrip": token.lstrip,
                "rstrip": token.rstrip,
                "normalized": token.normalized,
                "special": token.special,
            }
        )
    return result


def special_tokens_from_json(data: object, kind: str) -> list[str | AddedToken]:
    if not isinstance(data, list):
        raise SchemaError(f"{kind}: 'special_tokens' must be a list")
    result: list[str | AddedToken] = []
    for item in data:
        if isinstance(item, str):
            result.append(item)
            continue
        if not isinstance(item, dict):
            raise SchemaError(f"{kind}: a special token must be a string or an object")
        content = item.get("content")
        if not isinstance(content, str):
            raise SchemaError(f"{kind}: special token: missing field 'content'")
        flags: list[bool] = []
        for name in ("single_word", "lstrip", "rstrip", "normalized"):
            value = item.get(name, False)
            if not isinstance(value, bool):
                raise SchemaError(f"{kind}: special token field '{name}' must be a boolean")
            flags.append(value)
        result.append(AddedToken(content, flags[0], flags[1], flags[2], flags[3], True))
    return result


class TrainerFields:
    """A trainer's settings object read from a project file, with typed, checked accessors."""

    kind: str
    fields: dict[str, object]

    def __init__(self, data: object, kind: str) -> None:
        if not isinstance(data, dict):
            raise SchemaError(f"{kind}: expected an object")
        fields: dict[str, object] = {}
        for key, value in data.items():
            if not isinstance(key, str):
                raise SchemaError(f"{kind}: field names must be strings")
            fields[key] = value
        found = fields.get("type", kind)
        if found != kind:
            raise SchemaError(f"{kind}: unexpected type {found!r}")
        self.kind = kind
        self.fields = fields

    def integer(self, name: str, default: int) -> int:
        value = self.fields.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise SchemaError(f"{self.kind}: '{name}' must be a non-negative integer")
        return value

    def optional_integer(self, name: str) -> int | None:
        value = self.fields.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise SchemaError(f"{self.kind}: '{name}' must be a non-negative integer or null")
        return value

    def boolean(self, name: str, default: bool) -> bool:
        value = self.fields.get(name, default)
        if not isinstance(value, bool):
            raise SchemaError(f"{self.kind}: '{name}' must be a boolean")
        return value

    def optional_string(self, name: str) -> str | None:
        value = self.fields.get(name)
        if value is None or isinstance(value, str):
            return value
        raise SchemaError(f"{self.kind}: '{name}' must be a string or null")

    def strings(self, name: str) -> list[str]:
        value = self.fields.get(name, [])
        if not isinstance(value, list):
            raise SchemaError(f"{self.kind}: '{name}' must be a list of strings")
        result: list[str] = []
        for item in value:
            if not isinstance(item, str):
                raise SchemaError(f"{self.kind}: '{name}' must be a list of strings")
            result.append(item)
        return result

    def special_tokens(self) -> list[str | AddedToken]:
        return special_tokens_from_json(self.fields.get("special_tokens", []), self.kind)
