"""The trainers' options, listed once: `TrainerOptions` holds each option of a trainer (its JSON
name, what kind of value it is, its default) and writes the trainer's `to_dict()`, reads
`from_dict()` and says `__repr__()` from that one list, so the three cannot disagree on a field
or a default (each trainer spelled them out three times, and defaults drifted by hand).

What is particular to one trainer stays in its class's `from_dict`: WordPiece's "##" when the
prefix is empty, and its check of the scoring. The constructors keep their own
defaults (Python needs them in the signature); `tests/engine/test_trainer_options.py` checks
that a trainer made with no arguments and one read from `{"type": ...}` are the same.
"""

from __future__ import annotations

from typing import Any, Final

from engine.added_vocabulary import AddedToken
from engine.errors import SchemaError
from engine.schema import (
    JsonValue,
    expect_object,
    get_bool,
    get_count,
    get_float,
    get_list,
    get_opt_count,
    get_opt_str,
    get_str,
    get_strings,
)

# What kind of value an option holds (how it is read from JSON, and written).
COUNT: Final = "count"  # an int >= 0
OPTIONAL_COUNT: Final = "optional count"  # an int >= 0 or null
FLAG: Final = "flag"  # true or false
NUMBER: Final = "number"  # a float
TEXT: Final = "text"  # a string
OPTIONAL_TEXT: Final = "optional text"  # a string or null
STRINGS: Final = "strings"  # a list of strings
SPECIAL_TOKENS: Final = "special tokens"  # strings or AddedToken objects; written as objects


class Option:
    """One option of a trainer: `name` is both the JSON field and the constructor's argument;
    `shown`: part of the trainer's repr."""

    name: str
    kind: str
    default: JsonValue
    shown: bool

    def __init__(self, name: str, kind: str, default: JsonValue = None, shown: bool = False) -> None:
        self.name = name
        self.kind = kind
        self.default = default
        self.shown = shown


class TrainerOptions:
    """The options of the trainer called `trainer` ("BpeTrainer"...), in the order its
    `to_dict()` writes them (after "type")."""

    trainer: str
    options: list[Option]

    def __init__(self, trainer: str, options: list[Option]) -> None:
        self.trainer = trainer
        self.options = options

    def write(self, trainer: object) -> dict[str, JsonValue]:
        """`trainer`'s settings as a JSON object (what a project file keeps)."""
        data: dict[str, JsonValue] = {"type": self.trainer}
        for option in self.options:
            value = getattr(trainer, option.name)
            if option.kind == SPECIAL_TOKENS:
                tokens: list[JsonValue] = [token.to_dict() for token in value]
                data[option.name] = tokens
            elif option.kind == STRINGS:
                data[option.name] = list[JsonValue](value)
            else:
                data[option.name] = value
        return data

    def read(self, data: object) -> dict[str, Any]:
        """The constructor's keyword arguments from a `to_dict()` object: a missing field takes
        its default; a field of the wrong kind is a SchemaError naming the trainer."""
        where = self.trainer
        obj = settings_object(data, where)
        arguments: dict[str, Any] = {}
        for option in self.options:
            name, kind, default = option.name, option.kind, option.default
            if kind == COUNT:
                arguments[name] = get_count(obj, name, where, default if isinstance(default, int) else None)
            elif kind == OPTIONAL_COUNT:
                arguments[name] = get_opt_count(obj, name, where)
            elif kind == FLAG:
                arguments[name] = get_bool(obj, name, where, default if isinstance(default, bool) else None)
            elif kind == NUMBER:
                arguments[name] = get_float(obj, name, where) if name in obj else default
            elif kind == TEXT:
                arguments[name] = get_str(obj, name, where, default if isinstance(default, str) else None)
            elif kind == OPTIONAL_TEXT:
                arguments[name] = get_opt_str(obj, name, where)
            elif kind == STRINGS:
                arguments[name] = get_strings(obj, name, where, [])
            elif kind == SPECIAL_TOKENS:
                arguments[name] = _special_tokens(obj, name, where)
            else:
                raise ValueError(f"{where}: option {name!r} has an unknown kind {kind!r}")
        return arguments

    def describe(self, trainer: object) -> str:
        """`trainer`'s repr: its class and the options marked `shown` (special tokens by their text)."""
        parts: list[str] = []
        for option in self.options:
            if option.shown:
                value = getattr(trainer, option.name)
                if option.kind == SPECIAL_TOKENS:
                    value = [token.content for token in value]
                parts.append(f"{option.name}={value!r}")
        return f"{self.trainer}({', '.join(parts)})"


def _special_tokens(obj: dict[str, object], key: str, where: str) -> list[str | AddedToken]:
    """The special tokens of a trainer's settings: strings or AddedToken objects."""
    if key not in obj:
        return []
    tokens: list[str | AddedToken] = []
    for item in get_list(obj, key, where):
        tokens.append(item if isinstance(item, str) else AddedToken.from_dict(item))
    return tokens


def settings_object(data: object, kind: str) -> dict[str, object]:
    """A trainer's `to_dict()` object, checked to be of this `kind` (a missing "type" is fine)."""
    obj = expect_object(data, kind)
    found = obj.get("type", kind)
    if found != kind:
        raise SchemaError(f"{kind}: unexpected type {found!r}")
    return obj
