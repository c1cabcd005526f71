"""The decoding stage, as HF's `tokenizers.decoders`: turn tokens back into text.

ByteLevel, WordPiece, Metaspace, BPEDecoder, ByteFallback, Fuse, Strip, Replace, CTC, Sequence.
Each works on token strings only; the Tokenizer maps ids to tokens and drops special ones first.
"""

from __future__ import annotations

import collections.abc
import json
from typing import Final
from abc import ABC, abstractmethod


from engine import byte_level, metaspace
from engine.errors import SchemaError
from engine.schema import JsonValue, check_nesting, expect_object, get_bool, get_char, get_count, get_list, get_str, type_tag
from engine.pattern import Regex, Replacement

class Decoder(ABC):
    """Turns a list of token strings back into text."""

    @abstractmethod
    def decode_chain(self, tokens: list[str]) -> list[str]:
        """HF's `decode_chain`: tokens in, (fewer or changed) tokens out; decoders compose by chaining."""

    def decode(self, tokens: list[str]) -> str:
        return "".join(self.decode_chain(tokens))

    @abstractmethod
    def to_dict(self) -> dict[str, JsonValue]:
        """The tokenizer.json "decoder" object."""

    def __str__(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


# -- ByteLevel --------------------------------------------------------------------------------


class ByteLevel(Decoder):
    """Maps GPT-2 byte-level chars back to bytes and decodes them as UTF-8 (invalid -> U+FFFD).

    The three options only round-trip through tokenizer.json; they do not change decoding.
    """

    add_prefix_space: bool
    trim_offsets: bool
    use_regex: bool

    def __init__(self, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True) -> None:
        self.add_prefix_space = add_prefix_space
        self.trim_offsets = trim_offsets
        self.use_regex = use_regex

    def decode_chain(self, tokens: list[str]) -> list[str]:
        # subtle: HF keeps a token holding any char outside the map as its own UTF-8 bytes.
        return [byte_level.decode_tokens(tokens)]

    def to_dict(self) -> dict[str, JsonValue]:
        return byte_level.options_to_dict(self.add_prefix_space, self.trim_offsets, self.use_regex)


# -- WordPiece --------------------------------------------------------------------------------


# What follows the space that starts every pattern `cleanup` replaces.
_CLEANED_AFTER_SPACE: Final = frozenset(".?!,'nd")


def cleanup(text: str) -> str:
    """HF's English detokenization cleanup: "do n't" -> "don't", "a ." -> "a.", ...

    (Each pattern starts with a space and one of `_CLEANED_AFTER_SPACE`: a text with no such
    pair, most tokens a decoder cleans one by one, is the same text, told without its eleven
    replaces.)"""
    space = text.find(" ")
    while space >= 0:
        if space + 1 < len(text) and text[space + 1] in _CLEANED_AFTER_SPACE:
            break
        space = text.find(" ", space + 1)
    if space < 0:
        return text
    return (
        text.replace(" .", ".")
        .replace(" ?", "?")
        .replace(" !", "!")
        .replace(" ,", ",")
        .replace(" ' ", "'")
        .replace(" n't", "n't")
        .replace(" 'm", "'m")
        .replace(" do not", " don't")
        .replace(" 's", "'s")
        .replace(" 've", "'ve")
        .replace(" 're", "'re")
    )


class WordPiece(Decoder):
    """Joins WordPiece tokens: "##"-prefixed pieces glue to the previous one, others get a space."""

    prefix: str
    cleanup: bool

    def __init__(self, prefix: str = "##", cleanup: bool = True) -> None:
        self.prefix = prefix
        self.cleanup = cleanup

    def decode_chain(self, tokens: list[str]) -> list[str]:
        prefix = self.prefix
        result: list[str] = []
        for index in range(len(tokens)):
            token = tokens[index]
            if index != 0:
                if token.startswith(prefix):
                    token = token[len(prefix) :]
                else:
                    token = " " + token
            if self.cleanup:
                token = cleanup(token)
            result.append(token)
        return result

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "WordPiece", "prefix": self.prefix, "cleanup": self.cleanup}


# -- Metaspace --------------------------------------------------------------------------------


class Metaspace(Decoder):
    """Replaces the metaspace ("▁") with spaces; in the first token (unless prepend_scheme is "never")
    the metaspaces are dropped instead."""

    _replacement: str
    _prepend_scheme: str
    split: bool

    def __init__(
        self, replacement: str = metaspace.REPLACEMENT, prepend_scheme: str = metaspace.ALWAYS, split: bool = True
    ) -> None:
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split = split

    @property
    def replacement(self) -> str:
        return self._replacement

    @replacement.setter
    def replacement(self, replacement: str) -> None:
        self._replacement = metaspace.check_replacement(replacement)

    @property
    def prepend_scheme(self) -> str:
        return self._prepend_scheme

    @prepend_scheme.setter
    def prepend_scheme(self, prepend_scheme: str) -> None:
        self._prepend_scheme = metaspace.check_prepend_scheme(prepend_scheme)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        replacement = self._replacement
        result: list[str] = []
        for index in range(len(tokens)):
            token = tokens[index]
            if index == 0 and self._prepend_scheme != metaspace.NEVER:
                result.append(token.replace(replacement, ""))
            else:
                result.append(token.replace(replacement, " "))
        return result

    def to_dict(self) -> dict[str, JsonValue]:
        return metaspace.options_to_dict(self._replacement, self._prepend_scheme, self.split)


# -- BPEDecoder -------------------------------------------------------------------------------


class BPEDecoder(Decoder):
    """Turns the end-of-word suffix ("</w>") into a space, except at the very end."""

    suffix: str

    def __init__(self, suffix: str = "</w>") -> None:
        self.suffix = suffix

    def decode_chain(self, tokens: list[str]) -> list[str]:
        last = len(tokens) - 1
        result: list[str] = []
        for index in range(len(tokens)):
            result.append(tokens[index].replace(self.suffix, "" if index == last else " "))
        return result

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "BPEDecoder", "suffix": self.suffix}


# -- ByteFallback -----------------------------------------------------------------------------


def _byte_value(token: str) -> int:
    """The byte of a "<0xNN>" token, or -1. Rust's u8 parsing also takes "<0x+N>"."""
    if len(token) != 6 or not token.isascii() or not token.startswith("<0x") or not token.endswith(">"):
        return -1
    digits = token[3:5]
    if digits[0] == "+":
        digits = digits[1:]
    for ch in digits:
        if ch not in "0123456789abcdefABCDEF":
            return -1
    return int(digits, 16)


class ByteFallback(Decoder):
    """Turns runs of "<0xNN>" byte tokens into text; an invalid UTF-8 run gives one U+FFFD per byte."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        result: list[str] = []
        pending = bytearray()
        for token in tokens:
            byte = _byte_value(token)
            if byte >= 0:
                pending.append(byte)
                continue
            if pending:
                _flush_bytes(pending, result)
            result.append(token)
        if pending:
            _flush_bytes(pending, result)
        return result

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "ByteFallback"}


def _flush_bytes(pending: bytearray, result: list[str]) -> None:
    try:
        result.append(bytes(pending).decode("utf-8"))
    except UnicodeDecodeError:
        for _ in range(len(pending)):
            result.append("\ufffd")
    pending.clear()


# -- Fuse, Strip ------------------------------------------------------------------------------


class Fuse(Decoder):
    """Fuses all tokens into one string."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return ["".join(tokens)]

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Fuse"}


class Strip(Decoder):
    """Removes up to `start` leading and `stop` trailing `content` chars from each token."""

    _content: str
    start: int
    stop: int

    def __init__(self, content: str = " ", left: int = 0, right: int = 0) -> None:
        self.content = content
        self.start = left
        self.stop = right

    @property
    def content(self) -> str:
        return self._content

    @content.setter
    def content(self, content: str) -> None:
        if len(content) != 1:
            raise ValueError(f"content must be a single character, got {content!r}")
        self._content = content

    def decode_chain(self, tokens: list[str]) -> list[str]:
        content = self._content
        result: list[str] = []
        for token in tokens:
            n = len(token)
            start_cut = 0
            for i in range(min(self.start, n)):
                if token[i] != content:
                    break
                start_cut = i + 1
            stop_cut = n
            for i in range(self.stop):
                index = n - i - 1
                # subtle: HF panics past the start of the token; we stop there instead.
                if index < 0 or token[index] != content:
                    break
                stop_cut = index
            result.append(token[start_cut:stop_cut] if start_cut < stop_cut else "")
        return result

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Strip", "content": self._content, "start": self.start, "stop": self.stop}


# -- Replace ----------------------------------------------------------------------------------


class Replace(Decoder):
    """Replaces every match of `pattern` (a literal string or a `Regex`) by `content` in each token."""

    replacement: Replacement

    def __init__(self, pattern: str | Regex, content: str) -> None:
        self.replacement = Replacement(pattern, content)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        result: list[str] = []
        for token in tokens:
            result.append(self.replacement.apply(token))
        return result

    def to_dict(self) -> dict[str, JsonValue]:
        return self.replacement.to_dict()


# -- CTC --------------------------------------------------------------------------------------


class CTC(Decoder):
    """Connectionist temporal classification output: dedup repeats, drop pad, delimiter -> space."""

    pad_token: str
    word_delimiter_token: str
    cleanup: bool

    def __init__(self, pad_token: str = "<pad>", word_delimiter_token: str = "|", cleanup: bool = True) -> None:
        self.pad_token = pad_token
        self.word_delimiter_token = word_delimiter_token
        self.cleanup = cleanup

    def decode_chain(self, tokens: list[str]) -> list[str]:
        result: list[str] = []
        previous: str | None = None
        for token in tokens:
            if token == previous:
                continue
            previous = token
            replaced = token.replace(self.pad_token, "")
            if self.cleanup:
                replaced = cleanup(replaced).replace(self.word_delimiter_token, " ")
            if replaced:
                result.append(replaced)
        return result

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "type": "CTC",
            "pad_token": self.pad_token,
            "word_delimiter_token": self.word_delimiter_token,
            "cleanup": self.cleanup,
        }


# -- Sequence ---------------------------------------------------------------------------------


class Sequence(Decoder):
    """Chains decoders: each one's output tokens feed the next."""

    decoders: list[Decoder]

    def __init__(self, decoders: collections.abc.Sequence[Decoder]) -> None:
        checked: list[Decoder] = []
        for decoder in decoders:
            if not isinstance(decoder, Decoder):
                raise TypeError(f"expected a Decoder, got {type(decoder).__name__}")
            checked.append(decoder)
        self.decoders = checked

    def __getitem__(self, index: int) -> Decoder:
        return self.decoders[index]

    def __len__(self) -> int:
        return len(self.decoders)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        for decoder in self.decoders:
            tokens = decoder.decode_chain(tokens)
        return tokens

    def to_dict(self) -> dict[str, JsonValue]:
        decoders: list[JsonValue] = []
        for decoder in self.decoders:
            decoders.append(decoder.to_dict())
        return {"type": "Sequence", "decoders": decoders}


# -- tokenizer.json ---------------------------------------------------------------------------


def from_dict(data: object) -> Decoder:
    """A decoder from its tokenizer.json object, by "type" (HF's tags, e.g. "BPEDecoder").

    Legacy objects without "type" are recognised by their fields, in HF's order.
    """
    obj = expect_object(data, "decoder")
    check_nesting(obj, "decoder")
    tag = type_tag(obj, "decoder")
    if tag is None:
        tag = _legacy_tag(obj)
    if tag == "ByteLevel":
        add_prefix_space, trim_offsets, use_regex = byte_level.options_from_dict(obj)
        return ByteLevel(add_prefix_space, trim_offsets, use_regex)
    if tag == "WordPiece":
        return WordPiece(get_str(obj, "prefix", tag), get_bool(obj, "cleanup", tag))
    if tag == "Metaspace":
        replacement, scheme, split = metaspace.options_from_dict(obj)
        return Metaspace(replacement, scheme, split)
    if tag == "BPEDecoder":
        return BPEDecoder(get_str(obj, "suffix", tag))
    if tag == "ByteFallback":
        return ByteFallback()
    if tag == "Fuse":
        return Fuse()
    if tag == "Strip":
        return Strip(get_char(obj, "content", tag), get_count(obj, "start", tag), get_count(obj, "stop", tag))
    if tag == "Replace":
        rule = Replacement.from_dict(obj)
        return Replace(rule.pattern, rule.content)
    if tag == "CTC":
        return CTC(
            get_str(obj, "pad_token", tag),
            get_str(obj, "word_delimiter_token", tag),
            get_bool(obj, "cleanup", tag),
        )
    if tag == "Sequence":
        decoders: list[Decoder] = []
        for item in get_list(obj, "decoders", tag):
            decoders.append(from_dict(item))
        return Sequence(decoders)
    raise SchemaError(f"unknown decoder type {tag!r}")


def _legacy_tag(obj: dict[str, object]) -> str:
    """HF's untagged fallback order: BPEDecoder, WordPiece, CTC, Replace, Strip."""
    if "suffix" in obj:
        return "BPEDecoder"
    if "prefix" in obj and "cleanup" in obj:
        return "WordPiece"
    if "pad_token" in obj and "word_delimiter_token" in obj and "cleanup" in obj:
        return "CTC"
    if "pattern" in obj and "content" in obj:
        return "Replace"
    if "content" in obj and "start" in obj and "stop" in obj:
        return "Strip"
    raise SchemaError("decoder: missing field 'type'")
