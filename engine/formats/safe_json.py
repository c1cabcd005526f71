"""The one JSON reader of every format (tokenizer.json, vocab.json, the .tiktoken sidecar, the
project file): it reads no more than HF's serde_json would, and names the file in every error.

Refused, as serde refuses them: nesting deeper than serde's recursion limit, NaN and Infinity,
numbers out of f64 range, and strings holding a lone surrogate (a Rust String cannot). Numbers
past Python's 4,300-digit limit are an error here, not a bare ValueError. What the fields
mean is the callers' business (`engine.schema` checks ids and sizes).
"""

from __future__ import annotations

import json
import re
from typing import Final

from engine.errors import TokenizerFileError
from engine.schema import MAX_DEPTH, nesting_depth
# Python's int() refuses longer digit strings (sys.get_int_max_str_digits), json.loads with it.
MAX_INT_DIGITS: Final = 4300
LONG_NUMBER: Final = re.compile("[0-9]{" + str(MAX_INT_DIGITS + 1) + ",}")
# A \u escape of a surrogate: found, the parsed strings are searched for a lone one (a pair
# escaped as two \u is one char). (chr: mypyc takes no surrogates in string literals)
SURROGATE_ESCAPE: Final = re.compile("\\\\u[dD][89a-fA-F]")
SURROGATE: Final = re.compile("[" + chr(0xD800) + "-" + chr(0xDFFF) + "]")
# Texts are checked for surrogate chars (a str given to `from_str`) this many chars at a time.
ENCODE_CHUNK: Final = 1 << 20
OUT_OF_RANGE: Final = "is out of range (no 64-bit float holds it; HF refuses it too)"
# How much of a bad string an error shows.
SHOWN_CHARS: Final = 40

U64_MAX: Final = 2**64 - 1
# serde_json's table of powers of ten, as f64 literals
POW10: Final = [float(f"1e{e}") for e in range(309)]


class JsonNumberError(ValueError):
    """A number that no f64 holds (serde_json: "number out of range"), or NaN/Infinity."""

    text: str
    problem: str

    def __init__(self, text: str, problem: str) -> None:
        super().__init__(text)
        self.text = text
        self.problem = problem


def parse_json(text: str, source: str, hf_floats: bool = False) -> object:
    """The JSON value of `text`, or a TokenizerFileError naming `source` (a file, "<string>").

    `hf_floats`: numbers with a fraction or an exponent are read as HF reads them (`serde_float`),
    for tokenizer.json; otherwise correctly rounded, as Python reads them.
    """
    try:
        data: object = json.loads(
            text, parse_float=_serde_number if hf_floats else _number, parse_constant=_constant
        )
    except json.JSONDecodeError as error:
        hint = " (the file looks truncated)" if error.pos >= len(text.rstrip()) else ""
        raise TokenizerFileError(
            source, f"is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}{hint}"
        ) from None
    except JsonNumberError as error:
        shown = error.text if len(error.text) <= SHOWN_CHARS else error.text[:SHOWN_CHARS] + "\u2026"
        raise TokenizerFileError(source, f"is not valid JSON: {shown}{_where(text, error.text)} {error.problem}") from None
    except ValueError:
        # int() of a number longer than Python's digit limit
        found = LONG_NUMBER.search(text)
        digits = len(found.group()) if found is not None else MAX_INT_DIGITS + 1
        where = _position(text, found.start()) if found is not None else ""
        raise TokenizerFileError(
            source, f"is not valid JSON: a number of {digits:,} digits{where} {OUT_OF_RANGE}"
        ) from None
    except RecursionError:
        raise TokenizerFileError(source, _too_deep()) from None
    # subtle: a file cannot nest deeper than it has brackets; most files have few, and a walk
    # over a 250,000-token vocabulary is spared.
    if text.count("[") + text.count("{") > MAX_DEPTH and nesting_depth(data) > MAX_DEPTH:
        raise TokenizerFileError(source, _too_deep())
    if SURROGATE_ESCAPE.search(text) is not None or not _utf8_encodable(text):
        problem = _lone_surrogate(data)
        if problem:
            raise TokenizerFileError(source, problem)
    return data


def _utf8_encodable(text: str) -> bool:
    """False when `text` holds a surrogate char. subtle: encoding (in chunks, so the copy stays
    small) is 7x faster than searching for the surrogate class, and files are often 20 MB."""
    if text.isascii():
        return True
    for start in range(0, len(text), ENCODE_CHUNK):
        try:
            text[start : start + ENCODE_CHUNK].encode("utf-8")
        except UnicodeEncodeError:
            return False
    return True


def _too_deep() -> str:
    return f"is nested more than {MAX_DEPTH} levels deep (arrays and objects inside one another; HF refuses it too)"


def _position(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return f" at line {line} column {column}"


def _where(text: str, number: str) -> str:
    """Where `number` first stands as a value in `text` (not inside a string: a token "NaN")."""
    found = re.search(r"(?<![\w\"\\.+-])" + re.escape(number) + r"(?![\w\".])", text)
    return _position(text, found.start()) if found is not None else ""


def _number(text: str) -> float:
    value = float(text)
    if value - value != 0.0:  # inf (NaN never comes from digits)
        raise JsonNumberError(text, OUT_OF_RANGE)
    return value


def _serde_number(text: str) -> float:
    try:
        value = serde_float(text)
    except ValueError:  # an exponent longer than Python's digit limit
        raise JsonNumberError(text, OUT_OF_RANGE) from None
    if value - value != 0.0:
        raise JsonNumberError(text, OUT_OF_RANGE)
    return value


def _constant(text: str) -> float:
    """json's NaN, Infinity and -Infinity, which are not JSON (serde_json refuses them)."""
    raise JsonNumberError(text, "is not a JSON number (HF refuses it too)")


def _lone_surrogate(data: object) -> str:
    """What holds a lone surrogate in `data` (a key or a string, and where), or ""."""
    stack: list[tuple[object, str]] = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if SURROGATE.search(value) is not None:
                return _surrogate_message("the string", value, path)
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and SURROGATE.search(key) is not None:
                    return _surrogate_message("the key", key, path)
                stack.append((item, f"{path}.{key}" if path else str(key)))
        elif isinstance(value, list):
            for index in range(len(value)):
                stack.append((value[index], f"{path}[{index}]"))
    return ""


def _surrogate_message(what: str, text: str, path: str) -> str:
    found = SURROGATE.search(text)
    code = ord(found.group()) if found is not None else 0xD800
    shown = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "\u2026"
    where = f" in {path}" if path else ""
    return (
        f"{what} {shown!r}{where} holds a lone surrogate (U+{code:04X}), which is not Unicode text:"
        " no UTF-8 file can hold it (HF refuses it too)"
    )


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
