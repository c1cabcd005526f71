"""HF `tokenizer.json` (format version 1.0): parse it into pipeline parts, and print it back.

The schema is the one `tokenizers` 0.23 writes (reference §1.11). Components parse themselves
(`from_dict` in each stage module); this module handles the envelope and names the file in errors.
"""

from __future__ import annotations

import json
from typing import Final

from engine import decoders, models, normalizers, pre_tokenizers, processors
from engine.added_vocabulary import AddedToken
from engine.decoders import Decoder
from engine.encoding import PaddingParams, TruncationParams
from engine.errors import SchemaError, TokenizerFileError
from engine.schema import JsonValue
from engine.models.base import Model
from engine.normalizers import Normalizer
from engine.pre_tokenizers import PreTokenizer
from engine.processors import PostProcessor

FORMAT_VERSION: Final = "1.0"


class TokenizerParts:
    """Everything a tokenizer.json holds, as engine objects, before a Tokenizer is built."""

    model: Model
    normalizer: Normalizer | None
    pre_tokenizer: PreTokenizer | None
    post_processor: PostProcessor | None
    decoder: Decoder | None
    added_tokens: list[tuple[int, AddedToken]]
    truncation: TruncationParams | None
    padding: PaddingParams | None

    def __init__(self, model: Model) -> None:
        self.model = model
        self.normalizer = None
        self.pre_tokenizer = None
        self.post_processor = None
        self.decoder = None
        self.added_tokens = []
        self.truncation = None
        self.padding = None


def dumps(data: dict[str, JsonValue], pretty: bool) -> str:
    """JSON text as HF writes it: UTF-8 characters as is; 2-space indent when pretty, compact otherwise."""
    if pretty:
        return json.dumps(data, ensure_ascii=False, indent=2)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


U64_MAX: Final = 2**64 - 1
# serde_json's table of powers of ten, as f64 literals
POW10: Final = [float(f"1e{e}") for e in range(309)]


def serde_float(text: str) -> float:
    """A JSON number with a fraction or an exponent, read as HF reads it.

    HF's serde_json (without its float_roundtrip feature) takes up to 19 significant digits as
    an integer, converts that to f64 and then multiplies or divides by a power of ten: two
    roundings, so about a fifth of the scores of a trained Unigram come out one unit in the last
    place from the correctly rounded value Python reads. Equal-scoring segmentations then break
    ties differently, so reading the scores the other way gave other tokens than HF's on lines
    of repeated characters. `serde_float("-3.6136524666377596") == -3.61365246663776`.
    """
    n = len(text)
    i = 0
    negative = n > 0 and text[0] == "-"
    if negative:
        i = 1
    significand = 0
    exponent = 0
    overflowed = False
    fraction = False
    while i < n:
        c = text[i]
        if c == ".":
            fraction = True
            i += 1
            continue
        if c == "e" or c == "E":
            exponent += int(text[i + 1 :])
            break
        digit = ord(c) - 48
        if overflowed or (significand >= U64_MAX // 10 and (significand > U64_MAX // 10 or digit > U64_MAX % 10)):
            # serde ignores the digits that do not fit (integer ones still scale the number)
            overflowed = True
            if not fraction:
                exponent += 1
        else:
            significand = significand * 10 + digit
            if fraction:
                exponent -= 1
        i += 1
    value = float(significand)
    while True:
        size = exponent if exponent >= 0 else -exponent
        if size < len(POW10):
            value = value * POW10[size] if exponent >= 0 else value / POW10[size]
            break
        if value == 0.0 or exponent > 0:
            value = value * POW10[308] * POW10[308] if exponent > 0 else value
            break
        value /= 1e308
        exponent += 308
    return -value if negative else value


def parse(text: str, source: str) -> TokenizerParts:
    """Parse tokenizer.json text; `source` names the file (or "<string>") in every error.
    Numbers with a fraction are read as HF reads them (`serde_float`)."""
    try:
        data = json.loads(text, parse_float=serde_float)
    except json.JSONDecodeError as error:
        hint = " (the file looks truncated)" if error.pos >= len(text.rstrip()) else ""
        raise TokenizerFileError(
            source, f"is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}{hint}"
        ) from None
    if not isinstance(data, dict):
        raise TokenizerFileError(source, f"is not a tokenizer.json: the top level is a JSON {_kind(data)}, not an object")
    if "model" not in data:
        found = ", ".join(sorted(str(k) for k in data)[:6])
        raise TokenizerFileError(
            source,
            "is not a tokenizer.json: it has no \"model\" object"
            + (f" (its keys: {found})" if found else " (it is empty)"),
        )
    version = data.get("version", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise TokenizerFileError(
            source,
            f"tokenizer.json format version {version!r} is not supported (this engine reads version {FORMAT_VERSION})",
        )
    section = "model"
    try:
        parts = TokenizerParts(models.from_dict(data["model"]))
        section = "normalizer"
        raw = data.get(section)
        parts.normalizer = normalizers.from_dict(raw) if raw is not None else None
        section = "pre_tokenizer"
        raw = data.get(section)
        parts.pre_tokenizer = pre_tokenizers.from_dict(raw) if raw is not None else None
        section = "post_processor"
        raw = data.get(section)
        parts.post_processor = processors.from_dict(raw) if raw is not None else None
        section = "decoder"
        raw = data.get(section)
        parts.decoder = decoders.from_dict(raw) if raw is not None else None
        section = "truncation"
        raw = data.get(section)
        parts.truncation = TruncationParams.from_dict(raw) if raw is not None else None
        section = "padding"
        raw = data.get(section)
        parts.padding = PaddingParams.from_dict(raw) if raw is not None else None
        section = "added_tokens"
        parts.added_tokens = _added_tokens(data.get(section, []))
    except SchemaError as error:
        raise TokenizerFileError(source, f"{section}: {error}") from None
    return parts


def _kind(value: object) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "null"


def _added_tokens(raw: object) -> list[tuple[int, AddedToken]]:
    if not isinstance(raw, list):
        raise SchemaError(f"expected a list of tokens, found a JSON {_kind(raw)}")
    tokens: list[tuple[int, AddedToken]] = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise SchemaError(f"entry {index} is a JSON {_kind(item)}, not an object")
        id = item.get("id")
        if not isinstance(id, int) or isinstance(id, bool) or id < 0:
            raise SchemaError(f"entry {index}: \"id\" must be a non-negative integer")
        try:
            tokens.append((id, AddedToken.from_dict(item)))
        except SchemaError as error:
            raise SchemaError(f"entry {index}: {error}") from None
    return tokens
