"""The plain vocabulary files the models read and write: vocab.json, vocab.txt and merges.txt.

One reader per file kind, HF's rules (Rust line splitting, `#version` lines skipped), and one
message style: `<file>: line N: <problem>` or `<file>: token "x": <problem>`. No pipelines here
(see `bert_vocab`, `gpt2`), no model logic.
"""

from __future__ import annotations

import json
from typing import Final

from engine.errors import TokenizerFileError
from engine.formats.files import read_text
from engine.formats.safe_json import parse_json
from engine.schema import JsonValue
from engine.unicode_chars import WHITESPACE_CHARS

MERGES_HEADER: Final = "#version: 0.2"
WHITESPACE_SET: Final = frozenset(WHITESPACE_CHARS)
# HF stores ids as u32.
MAX_ID: Final = 2**32 - 1


def ordered_vocab(vocab_r: dict[int, str]) -> dict[str, JsonValue]:
    """{token: id} in id order, as HF's OrderedVocabIter writes it (holes skipped)."""
    result: dict[str, JsonValue] = {}
    for id in sorted(vocab_r):
        result[vocab_r[id]] = id
    return result


def dump_vocab_json(vocab_r: dict[int, str]) -> str:
    """Compact JSON like serde_json's: no spaces, non-ASCII kept as is."""
    return json.dumps(ordered_vocab(vocab_r), ensure_ascii=False, separators=(",", ":"))


def dump_vocab_txt(vocab: dict[str, int]) -> str:
    """vocab.txt: one token per line, in id order (`{"b": 1, "a": 0}` -> `"a\\nb\\n"`)."""
    by_id: list[tuple[int, str]] = []
    for token, id in vocab.items():
        by_id.append((id, token))
    by_id.sort()
    lines: list[str] = []
    for _, token in by_id:
        lines.append(token + "\n")
    return "".join(lines)


def dump_merges_txt(merges: list[tuple[str, str]]) -> str:
    """merges.txt: `#version: 0.2`, then `a b` per merge, in rank order."""
    lines: list[str] = [MERGES_HEADER + "\n"]
    for a, b in merges:
        lines.append(f"{a} {b}\n")
    return "".join(lines)


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


def read_vocab_txt(path: str) -> dict[str, int]:
    """A vocab.txt: one token per line, its id the line index, right-trimmed (HF's WordPiece.read_file).

    As in HF, a repeated line keeps its last index (the earlier index becomes a hole).
    """
    result: dict[str, int] = {}
    lines = read_text(path, "vocab.txt").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    trailing = WHITESPACE_SET
    for index in range(len(lines)):
        line = lines[index]
        # subtle: stripping also drops the "\r" of a "\r\n" line end (split_lines' rule)
        if line and line[-1] in trailing:
            line = line.rstrip(WHITESPACE_CHARS)
        result[line] = index
    return result


def read_vocab_json(path: str) -> dict[str, int]:
    """A vocab.json: {token: id}; non-number values are skipped, as HF does.

    An id that is not an integer in 0..2**32-1, or that two tokens share, is an error naming the token.
    """
    data = parse_json(read_text(path, "vocab.json"), path)
    if not isinstance(data, dict):
        raise TokenizerFileError(path, "Bad vocabulary json file: expected an object {token: id}")
    vocab: dict[str, int] = {}
    owners: dict[int, str] = {}
    for token, id in data.items():
        if isinstance(id, bool) or not isinstance(id, (int, float)):
            continue
        if not isinstance(id, int) or id < 0 or id > MAX_ID:
            raise TokenizerFileError(
                path, f"Bad vocabulary json file: token {token!r}: id {id!r} is not an integer in 0..{MAX_ID}"
            )
        other = owners.get(id)
        if other is not None:
            raise TokenizerFileError(
                path, f"Bad vocabulary json file: token {token!r}: id {id} is already the id of {other!r}"
            )
        owners[id] = str(token)
        vocab[str(token)] = id
    return vocab


def parse_merges(lines: list[str]) -> list[tuple[str, str]]:
    """HF's merges.txt rules: lines starting with "#version" are skipped, the rest are "a b"."""
    merges, _ = parse_merges_with_lines(lines)
    return merges


def parse_merges_with_lines(lines: list[str]) -> tuple[list[tuple[str, str]], list[int]]:
    """The merges and, for each, its 1-based line in the file (`#version` lines count there).

    A bad line raises ValueError with HF's message, whose number skips `#version` lines, and the
    file's own line number after it.
    """
    merges: list[tuple[str, str]] = []
    numbers: list[int] = []
    rank = 0
    for index in range(len(lines)):
        line = lines[index]
        if line.startswith("#version"):
            continue
        rank += 1
        parts = line.split(" ")
        if len(parts) != 2:
            raise ValueError(
                f"Merges text file invalid at line {rank} (line {index + 1}: {line[:60]!r} is not two tokens"
                " separated by one space)"
            )
        merges.append((parts[0], parts[1]))
        numbers.append(index + 1)
    return merges, numbers


def read_merges_txt(path: str) -> list[tuple[str, str]]:
    """A merges.txt as (a, b) pairs in rank order (HF's BPE.read_file rules)."""
    merges, _ = read_merges_txt_with_lines(path)
    return merges


def read_merges_txt_with_lines(path: str) -> tuple[list[tuple[str, str]], list[int]]:
    """`read_merges_txt` plus each merge's line number, for messages."""
    try:
        return parse_merges_with_lines(split_lines(read_text(path, "merges.txt")))
    except ValueError as error:
        raise TokenizerFileError(path, str(error)) from None


def check_merges(merges: list[tuple[str, str]], numbers: list[int], vocab: dict[str, int], path: str) -> None:
    """Every merge names two tokens of `vocab`, else `<merges file>: line N: ...`."""
    for index in range(len(merges)):
        a, b = merges[index]
        for side in (a, b):
            if side not in vocab:
                raise TokenizerFileError(
                    path, f"line {numbers[index]}: merge {a!r} {b!r} names the token {side!r}, which is not in the vocabulary"
                )
