"""Vocabulary files shared by the models: vocab.json, vocab.txt and merges.txt text.

HF's conventions (id-ordered compact JSON, Rust line splitting); no model logic here. Files are
read and written through `engine.formats.files` (clear errors, atomic writes).
"""

from __future__ import annotations

import json

from engine.errors import TokenizerFileError
from engine.formats.files import read_text
from engine.schema import JsonValue


def ordered_vocab(vocab_r: dict[int, str]) -> dict[str, JsonValue]:
    """{token: id} in id order, as HF's OrderedVocabIter writes it (holes skipped)."""
    result: dict[str, JsonValue] = {}
    for id in sorted(vocab_r):
        result[vocab_r[id]] = id
    return result


def dump_vocab_json(vocab_r: dict[int, str]) -> str:
    """Compact JSON like serde_json's: no spaces, non-ASCII kept as is."""
    return json.dumps(ordered_vocab(vocab_r), ensure_ascii=False, separators=(",", ":"))


def split_lines(text: str) -> list[str]:
    """Rust BufRead::lines: split on "\\n", drop one "\\r" before it, no empty last line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for index in range(len(lines)):
        line = lines[index]
        if line.endswith("\r"):
            lines[index] = line[:-1]
    return lines


def read_vocab_json(path: str) -> dict[str, int]:
    """A vocab.json: {token: id}; non-number values are skipped, as HF does."""
    text = read_text(path, "vocab.json")
    try:
        data = json.loads(text)
    except ValueError as error:
        raise TokenizerFileError(path, f"not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise TokenizerFileError(path, "Bad vocabulary json file: expected an object {token: id}")
    vocab: dict[str, int] = {}
    for token, id in data.items():
        if isinstance(id, bool) or not isinstance(id, (int, float)):
            continue
        if not isinstance(id, int) or id < 0:
            raise TokenizerFileError(path, f"Bad vocabulary json file: id {id!r} of {token!r} is not a non-negative integer")
        vocab[str(token)] = id
    return vocab


def parse_merges(lines: list[str]) -> list[tuple[str, str]]:
    """HF's merges.txt rules: lines starting with "#version" are skipped, the rest are "a b"."""
    merges: list[tuple[str, str]] = []
    rank = 0
    for line in lines:
        if line.startswith("#version"):
            continue
        rank += 1
        parts = line.split(" ")
        if len(parts) != 2:
            raise ValueError(f"Merges text file invalid at line {rank}")
        merges.append((parts[0], parts[1]))
    return merges


def read_merges_txt(path: str) -> list[tuple[str, str]]:
    try:
        return parse_merges(split_lines(read_text(path, "merges.txt")))
    except ValueError as error:
        raise TokenizerFileError(path, str(error)) from None
