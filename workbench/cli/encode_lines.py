"""`encode` without --out: every line of files or standard input encoded and printed, as tokens
or as JSON, streamed block by block.

A line longer than a read block is encoded in pieces where that gives the same tokens
(`engine.corpus.long_lines`), so memory follows the block, not the line (a 200 MB line printed as
tokens no longer holds its whole Encoding). Lines that are not UTF-8 are handled by --errors.
Argument checks are `workbench.cli.main`'s; this module only reads, encodes and prints.
"""

from __future__ import annotations

import json
from array import array
from typing import Final, TextIO

from engine.corpus.long_lines import DocumentSink, LineEncoder, long_line_cutter
from engine.corpus.streams import ByteStream, LineBlocks
from engine.encoding import Encoding
from engine.tokenizer import Tokenizer

# JSON of a document in pieces is written this many items at a time.
JSON_CHUNK: Final = 1 << 14


class EncodeError(Exception):
    """A line that cannot be encoded (not UTF-8 under --errors strict); the message is complete."""


def visible(token: str) -> str:
    """A token as one space-free word: spaces and controls shown as escapes."""
    if token and not any(c.isspace() or not c.isprintable() for c in token):
        return token
    return json.dumps(token, ensure_ascii=False)


class LinePrinter(DocumentSink):
    """Prints each line's encoding: its tokens joined by spaces, or one JSON object with ids,
    tokens and offsets (`ascii_only`: every non-ASCII char escaped, for a stdout that is not
    UTF-8). A line in pieces is printed as it comes (tokens) or kept compact until its end (JSON)."""

    out: TextIO
    as_json: bool
    ascii_only: bool
    started: bool
    pieces: int
    first: Encoding | None
    ids: array[int]
    tokens: list[str]
    spans: array[int]

    def __init__(self, out: TextIO, as_json: bool, ascii_only: bool) -> None:
        self.out = out
        self.as_json = as_json
        self.ascii_only = ascii_only
        self.started = False
        self.pieces = 0
        self.first = None
        self.ids = array("q")
        self.tokens = []
        self.spans = array("q")

    def add(self, ids: list[int], encoding: Encoding | None, shift: int) -> None:
        assert encoding is not None
        if not self.as_json:
            if encoding.tokens:
                text = " ".join(visible(token) for token in encoding.tokens)
                self.out.write(" " + text if self.started else text)
                self.started = True
            return
        self.pieces += 1
        if self.pieces == 1:
            self.first = encoding
            return
        if self.pieces == 2:
            first = self.first
            assert first is not None
            self.first = None
            self._keep(first, 0)
        self._keep(encoding, shift)

    def _keep(self, encoding: Encoding, shift: int) -> None:
        self.ids.extend(encoding.ids)
        self.tokens.extend(encoding.tokens)
        for start, end in encoding.offsets:
            self.spans.append(start + shift)
            self.spans.append(end + shift)

    def end(self) -> None:
        if not self.as_json:
            self.out.write("\n")
            self.started = False
            return
        if self.pieces <= 1:
            first = self.first
            ids = first.ids if first is not None else []
            tokens = first.tokens if first is not None else []
            offsets = first.offsets if first is not None else []
            document = {"ids": ids, "tokens": tokens, "offsets": offsets}
            self.out.write(json.dumps(document, ensure_ascii=self.ascii_only) + "\n")
        else:
            self._write_json_in_chunks()
        self.pieces = 0
        self.first = None
        self.ids = array("q")
        self.tokens = []
        self.spans = array("q")

    def _write_json_in_chunks(self) -> None:
        """The same text `json.dumps({"ids", "tokens", "offsets"})` gives, written in pieces."""
        out = self.out
        count = len(self.ids)
        out.write('{"ids": [')
        for start in range(0, count, JSON_CHUNK):
            chunk = json.dumps(self.ids[start : start + JSON_CHUNK].tolist())[1:-1]
            out.write(chunk if start == 0 else ", " + chunk)
        out.write('], "tokens": [')
        for start in range(0, count, JSON_CHUNK):
            chunk = json.dumps(self.tokens[start : start + JSON_CHUNK], ensure_ascii=self.ascii_only)[1:-1]
            out.write(chunk if start == 0 else ", " + chunk)
        out.write('], "offsets": [')
        for start in range(0, count, JSON_CHUNK):
            spans = self.spans[2 * start : 2 * (start + JSON_CHUNK)]
            pairs = [[spans[i], spans[i + 1]] for i in range(0, len(spans), 2)]
            chunk = json.dumps(pairs)[1:-1]
            out.write(chunk if start == 0 else ", " + chunk)
        out.write("]}\n")


def encode_stream(
    out: TextIO, tokenizer: Tokenizer, stream: ByteStream, name: str, errors: str, as_json: bool, ascii_only: bool
) -> int:
    """Encode and print each line of a byte stream, decoded as UTF-8 by `errors` ("strict":
    EncodeError naming the line and byte; "replace": U+FFFD; "skip": the line is dropped).
    Returns how many lines were skipped. CorpusError for a line past the reading bound."""
    # subtle: --errors skip drops a whole line, so its lines are read whole (never in pieces
    # of which some would already be printed when a bad byte shows up in a later one).
    cutter = long_line_cutter(tokenizer, with_offsets=as_json) if errors != "skip" else None
    blocks = LineBlocks(name, stream, 0, cutter)
    printer = LinePrinter(out, as_json, ascii_only)
    lines = LineEncoder(tokenizer, printer)
    try:
        skipped = _print_blocks(blocks, lines, name, errors)
    finally:
        blocks.close()
    lines.finish()
    return skipped


def _print_blocks(blocks: LineBlocks, lines: LineEncoder, name: str, errors: str) -> int:
    number = 0  # lines that ended before this block
    carried = 0  # bytes of this block's first line that were in earlier blocks
    skipped = 0
    while blocks.next_block():
        data = blocks.data
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            if errors == "replace":
                text = data.decode("utf-8", errors="replace")
            elif errors == "skip":
                text, dropped = _good_lines(data)
                skipped += dropped
            else:
                before = data.count(b"\n", 0, error.start)
                line_start = data.rfind(b"\n", 0, error.start) + 1
                offset = error.start - line_start + (carried if before == 0 else 0)
                raise EncodeError(
                    f"{name} line {number + before + 1}: byte 0x{data[error.start]:02x} at offset {offset} is not UTF-8 "
                    "(use --errors replace to substitute U+FFFD, or --errors skip to drop the line)"
                ) from None
        lines.feed(text, blocks.complete)
        breaks = data.count(b"\n")
        number += breaks
        carried = len(data) - (data.rfind(b"\n") + 1) + (carried if breaks == 0 else 0)
    return skipped


def _good_lines(data: bytes) -> tuple[str, int]:
    """The lines of `data` that are UTF-8, as text (their "\\n" kept), and how many were not."""
    parts = data.split(b"\n")
    last = len(parts) - 1
    kept: list[str] = []
    dropped = 0
    for i in range(last + 1):
        raw = parts[i] if i == last else parts[i] + b"\n"
        if not raw:
            continue
        try:
            kept.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            dropped += 1
    return "".join(kept), dropped


def text_argument(given: str, errors: str, option: str = "--text") -> str | None:
    """An option's text as the user typed it (--text; also --special-tokens, --separator).
    Bytes that are not UTF-8 reach the command line as lone surrogates (Python's
    surrogateescape): they are decoded by `errors` like a line of a file (None: skipped).
    EncodeError naming the option for what is not UTF-8 under "strict"."""
    try:
        given.encode("utf-8")
        return given
    except UnicodeEncodeError:
        pass
    try:
        raw = given.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as error:
        raise EncodeError(f"{option}: holds a lone surrogate, U+{ord(given[error.start]):04X}, which is not text") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        if errors == "replace":
            return raw.decode("utf-8", errors="replace")
        if errors == "skip":
            return None
        hint = " (use --errors replace to substitute U+FFFD, or --errors skip to drop it)" if option == "--text" else ""
        raise EncodeError(f"{option}: byte 0x{raw[error.start]:02x} at offset {error.start} is not UTF-8{hint}") from None
