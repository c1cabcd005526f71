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
from engine.errors import SchemaError, TokenizerFileError
from engine.formats.safe_json import parse_json
from engine.schema import JsonValue, as_id, json_type
from engine.models.base import Model
from engine.normalizers import Normalizer
from engine.padding import PaddingParams
from engine.pre_tokenizers import PreTokenizer
from engine.processors import PostProcessor
from engine.truncation import TruncationParams

FORMAT_VERSION: Final = "1.0"
# Padding to a length makes that many ids, tokens and offsets in every encoding: a larger length
# (or multiple) is refused when it is read, before anything is padded (HF would try, and run
# out of memory). Real files pad to a few thousand.
MAX_PAD_LENGTH: Final = 1 << 20


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


def parse(text: str, source: str) -> TokenizerParts:
    """Parse tokenizer.json text; `source` names the file (or "<string>") in every error.
    The JSON is read as HF reads it (`safe_json.parse_json`: numbers as `serde_float`)."""
    data = parse_json(text, source, hf_floats=True)
    if not isinstance(data, dict):
        raise TokenizerFileError(source, f"is not a tokenizer.json: the top level is a JSON {json_type(data)}, not an object")
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
        if parts.padding is not None:
            check_padding(parts.padding)
        section = "added_tokens"
        parts.added_tokens = _added_tokens(data.get(section, []))
    except SchemaError as error:
        raise TokenizerFileError(source, f"{section}: {error}") from None
    return parts


def check_padding(padding: PaddingParams) -> None:
    """SchemaError for what HF cannot read back (ids past u32) or no one can pad to (`MAX_PAD_LENGTH`)."""
    as_id(padding.pad_id, "field 'pad_id'")
    as_id(padding.pad_type_id, "field 'pad_type_id'")
    for what, size in (("the 'Fixed' length", padding.length), ("field 'pad_to_multiple_of'", padding.pad_to_multiple_of)):
        if size is not None and size > MAX_PAD_LENGTH:
            raise SchemaError(
                f"{what} {size:,} is larger than {MAX_PAD_LENGTH:,}: every encoding would be padded"
                " to that many tokens (refused before allocating them)"
            )


def _added_tokens(raw: object) -> list[tuple[int, AddedToken]]:
    if not isinstance(raw, list):
        raise SchemaError(f"expected a list of tokens, found a JSON {json_type(raw)}")
    tokens: list[tuple[int, AddedToken]] = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise SchemaError(f"entry {index} is a JSON {json_type(item)}, not an object")
        try:
            id = as_id(item.get("id"), "\"id\"")
            tokens.append((id, AddedToken.from_dict(item)))
        except SchemaError as error:
            raise SchemaError(f"entry {index}: {error}") from None
    return tokens
