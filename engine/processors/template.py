"""`TemplateProcessing`: special tokens placed by templates such as "[CLS] $A [SEP] $B:1 [SEP]:1".

Parses HF's string and list syntax and the tokenizer.json form (HF's processors/template.rs).
The other post-processors are the other modules of `engine.processors`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from engine.encoding import Encoding, zero_spans
from engine.errors import EngineError, SchemaError
from engine.schema import JsonValue, as_count, as_id, expect_object, get_list, require
from engine.processors.base import PostProcessor


@dataclass(frozen=True)
class Piece:
    """One item of a template: a sequence ("A"/"B") or a special token id, with its type id."""

    is_sequence: bool
    id: str
    type_id: int

    def to_dict(self) -> dict[str, JsonValue]:
        body: dict[str, JsonValue] = {"id": self.id, "type_id": self.type_id}
        return {"Sequence" if self.is_sequence else "SpecialToken": body}

    def debug(self) -> str:
        """Rust's Debug form, which HF's `TemplateProcessing.single` getter shows."""
        if self.is_sequence:
            return f"Sequence {{ id: {self.id}, type_id: {self.type_id} }}"
        return f"SpecialToken {{ id: {json.dumps(self.id, ensure_ascii=False)}, type_id: {self.type_id} }}"


class SpecialToken:
    """A template's special token: its template id, and the ids/tokens it expands to."""

    id: str
    ids: list[int]
    tokens: list[str]

    def __init__(self, id: str, ids: list[int], tokens: list[str]) -> None:
        if len(ids) != len(tokens):
            raise ValueError("SpecialToken: ids and tokens must be of the same length")
        self.id = id
        self.ids = ids
        self.tokens = tokens

    def to_dict(self) -> dict[str, JsonValue]:
        ids: list[JsonValue] = []
        for id in self.ids:
            ids.append(id)
        tokens: list[JsonValue] = []
        for token in self.tokens:
            tokens.append(token)
        return {"id": self.id, "ids": ids, "tokens": tokens}


TemplateSpec = str | list[str]
SpecialTokenSpec = tuple[str, int] | tuple[int, str] | dict[str, object]


class TemplateProcessing(PostProcessor):
    """Special tokens placed by templates: "[CLS] $A [SEP]" / "[CLS] $A [SEP] $B:1 [SEP]:1".

    `$A`/`$B` are the sequences (`$` alone or `$0` = A), `:n` sets the type id; any other word
    is a special token id, which `special_tokens` must define.
    """

    _single: list[Piece]
    pair: list[Piece]
    special_tokens: dict[str, SpecialToken]

    def __init__(
        self,
        single: TemplateSpec | None = None,
        pair: TemplateSpec | None = None,
        special_tokens: list[SpecialTokenSpec] | None = None,
    ) -> None:
        tokens: dict[str, SpecialToken] = {}
        if special_tokens is not None:
            # subtle: items are checked here (as objects), so a bad one gets HF's message.
            for spec in list[object](special_tokens):
                token = _special_token(spec)
                tokens[token.id] = token
        single_pieces = parse_template(single) if single is not None else None
        pair_pieces = parse_template(pair) if pair is not None else None
        if pair_pieces is not None:
            has_a = False
            has_b = False
            for piece in pair_pieces:
                if piece.is_sequence:
                    if piece.id == "A":
                        has_a = True
                    else:
                        has_b = True
            if not (has_a and has_b):
                raise ValueError("Template for `pair` must use both sequences")
        missing: list[str] = []
        for pieces in (single_pieces, pair_pieces):
            if pieces is not None:
                for piece in pieces:
                    if not piece.is_sequence and piece.id not in tokens and piece.id not in missing:
                        missing.append(piece.id)
        if missing:
            raise ValueError(f"Missing SpecialToken(s) with id(s) `{', '.join(missing)}`")
        self._single = single_pieces if single_pieces is not None else parse_template("$0")
        self.pair = pair_pieces if pair_pieces is not None else parse_template("$A:0 $B:1")
        self.special_tokens = tokens

    @property
    def single(self) -> str:
        """HF shows the template in Rust's Debug form."""
        return "Template([" + ", ".join([piece.debug() for piece in self._single]) + "])"

    @single.setter
    def single(self, single: TemplateSpec) -> None:
        self._single = parse_template(single)

    @property
    def single_pieces(self) -> list[Piece]:
        return list(self._single)

    def _count_added(self, pieces: list[Piece]) -> int:
        count = 0
        for piece in pieces:
            if not piece.is_sequence:
                token = self.special_tokens.get(piece.id)
                if token is not None:
                    count += len(token.ids)
        return count

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        return self._count_added(self.pair if is_pair else self._single)

    def process_encodings(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        template = self.pair if len(encodings) == 2 else self._single
        last_use: dict[int, int] = {}
        for position in range(len(template)):
            piece = template[position]
            if piece.is_sequence:
                last_use[0 if piece.id == "A" else 1] = position
        result: list[Encoding] = []
        for position in range(len(template)):
            piece = template[position]
            if piece.is_sequence:
                index = 0 if piece.id == "A" else 1
                if index >= len(encodings):
                    raise EngineError(f"TemplateProcessing: the template uses ${piece.id} but no such sequence was given")
                encoding = encodings[index]
                encoding.set_type_ids(piece.type_id)
                encoding.set_sequence_id(index)
                # subtle: HF clones the encoding at each use; the last use can take it as is.
                result.append(encoding if last_use[index] == position else encoding.copy())
            elif add_special_tokens:
                token = self.special_tokens.get(piece.id)
                if token is None:
                    raise EngineError(f"TemplateProcessing: missing special token {piece.id!r}")
                n = len(token.ids)
                words: list[int | None] = [None] * n
                spans = zero_spans(n)
                result.append(
                    Encoding(
                        list(token.ids), [piece.type_id] * n, list(token.tokens), words, None, [1] * n, [1] * n, spans=spans
                    )
                )
        return result

    def to_dict(self) -> dict[str, JsonValue]:
        single: list[JsonValue] = []
        for piece in self._single:
            single.append(piece.to_dict())
        pair: list[JsonValue] = []
        for piece in self.pair:
            pair.append(piece.to_dict())
        tokens: dict[str, JsonValue] = {}
        for key in sorted(self.special_tokens):
            tokens[key] = self.special_tokens[key].to_dict()
        return {"type": "TemplateProcessing", "single": single, "pair": pair, "special_tokens": tokens}


def parse_template(spec: object) -> list[Piece]:
    """A template from its string ("[CLS] $A [SEP]", split on single spaces) or list form."""
    if isinstance(spec, str):
        parts = spec.split(" ")
    elif isinstance(spec, list) and all(isinstance(item, str) for item in spec):
        parts = [str(item) for item in spec]
    else:
        raise TypeError("Expected Union[str, List[str]]")
    pieces: list[Piece] = []
    for part in parts:
        pieces.append(parse_piece(part))
    return pieces


def parse_piece(text: str) -> Piece:
    """"$A" -> Sequence A type 0, "$B:1" -> Sequence B type 1, "$2" -> A type 2, "[SEP]:1" -> token."""
    parts = text.split(":")
    if len(parts) > 2:
        raise ValueError(f'Cannot build Piece from string "{text}"')
    piece = _extract_id(parts[0])
    if piece is None:
        raise ValueError(f'Cannot build Piece from string "{text}"')
    if len(parts) == 2:
        type_id = _parse_u32(parts[1])
        if type_id < 0:
            raise ValueError(f'Cannot build Piece from string "{text}"')
        piece = Piece(piece.is_sequence, piece.id, type_id)
    return piece


def _extract_id(text: str) -> Piece | None:
    if not text.startswith("$"):
        return Piece(False, text, 0)
    rest = text[1:]
    if rest in ("", "A", "a"):
        return Piece(True, "A", 0)
    if rest in ("B", "b"):
        return Piece(True, "B", 0)
    type_id = _parse_u32(rest)
    if type_id < 0:
        return None
    return Piece(True, "A", type_id)


def _parse_u32(text: str) -> int:
    """Rust's u32 parsing: an optional "+", then ASCII digits; -1 when invalid."""
    digits = text[1:] if text.startswith("+") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        return -1
    value = int(digits)
    return value if value <= 0xFFFFFFFF else -1


def _special_token(spec: object) -> SpecialToken:
    if isinstance(spec, tuple) and len(spec) == 2:
        first = spec[0]
        second = spec[1]
        if isinstance(first, str) and isinstance(second, int) and not isinstance(second, bool):
            return SpecialToken(first, [second], [first])
        if isinstance(first, int) and not isinstance(first, bool) and isinstance(second, str):
            return SpecialToken(second, [first], [second])
    elif isinstance(spec, dict):
        id = spec.get("id")
        if id is None:
            raise ValueError("`id` must be specified")
        ids = spec.get("ids")
        if ids is None:
            raise ValueError("`ids` must be specified")
        tokens = spec.get("tokens")
        if tokens is None:
            raise ValueError("`tokens` must be specified")
        if not isinstance(id, str):
            raise TypeError("`id` must be a string")
        if not isinstance(ids, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in ids):
            raise TypeError("`ids` must be a list of integers")
        if not isinstance(tokens, list) or not all(isinstance(x, str) for x in tokens):
            raise TypeError("`tokens` must be a list of strings")
        return SpecialToken(id, [int(x) for x in ids], [str(x) for x in tokens])
    raise TypeError("Expected Union[Tuple[str, int], Tuple[int, str], dict]")


# -- tokenizer.json ---------------------------------------------------------------------------


def template_from_dict(obj: dict[str, object]) -> TemplateProcessing:
    where = "TemplateProcessing"
    single = _pieces_from_json(get_list(obj, "single", where), "single")
    pair = _pieces_from_json(get_list(obj, "pair", where), "pair")
    raw_tokens = expect_object(require(obj, "special_tokens", where), f"{where}: field 'special_tokens'")
    tokens: dict[str, SpecialToken] = {}
    for key, value in raw_tokens.items():
        token_obj = expect_object(value, f"{where}: special token {key!r}")
        token_where = f"{where}: special token {key!r}"
        id = require(token_obj, "id", token_where)
        ids = get_list(token_obj, "ids", token_where)
        values = get_list(token_obj, "tokens", token_where)
        if not isinstance(id, str):
            raise SchemaError(f"{token_where}: field 'id' must be a string")
        id_list: list[int] = []
        for item in ids:
            id_list.append(as_id(item, f"{token_where}: an id"))
        token_list: list[str] = []
        for item in values:
            if not isinstance(item, str):
                raise SchemaError(f"{token_where}: 'tokens' must hold strings")
            token_list.append(item)
        if len(id_list) != len(token_list):
            raise SchemaError(f"{token_where}: ids and tokens must be of the same length")
        tokens[key] = SpecialToken(id, id_list, token_list)
    # subtle: HF does not validate a deserialized template (no missing-token check).
    processor = TemplateProcessing()
    processor._single = single
    processor.pair = pair
    processor.special_tokens = tokens
    return processor


def _pieces_from_json(items: list[object], name: str) -> list[Piece]:
    where = f"TemplateProcessing: '{name}'"
    pieces: list[Piece] = []
    for item in items:
        obj = expect_object(item, where)
        if len(obj) != 1 or ("Sequence" not in obj and "SpecialToken" not in obj):
            raise SchemaError(f"{where}: a piece must be {{\"Sequence\": ...}} or {{\"SpecialToken\": ...}}")
        is_sequence = "Sequence" in obj
        body = expect_object(obj["Sequence" if is_sequence else "SpecialToken"], where)
        id = require(body, "id", where)
        type_id = as_count(require(body, "type_id", where), f"{where}: 'type_id'")
        if not isinstance(id, str) or (is_sequence and id not in ("A", "B")):
            raise SchemaError(f"{where}: bad piece id {id!r}")
        pieces.append(Piece(is_sequence, id, type_id))
    return pieces
