"""`encode --baseline NAME`: each line of --text, files or standard input cut by one of the rule
baselines the Compare tab shows (`engine.analysis.baselines`: characters, UTF-8 bytes, words,
sentences), printed as its pieces or, with --json, as pieces and character offsets.

    $ tokenizer-workbench encode --baseline words --text "Dr. Who's 2nd."
    Dr . Who ' s 2nd .

No tokenizer: these are the yardsticks a trained tokenizer is measured against.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Final, TextIO

from engine.analysis import baselines
from workbench.cli.encode_lines import EncodeError, text_argument, visible

# The command line's names for the baselines (`baselines.BASELINES`).
CHOICES: Final = {"characters": "characters", "bytes": "UTF-8 bytes", "words": "words", "sentences": "sentences"}


def pieces(name: str, text: str) -> tuple[list[str], list[tuple[int, int]]]:
    """The pieces of `text` under baseline `name` (a key of CHOICES) and their character spans;
    a byte that is not ASCII is written <0xNN>: ("bytes", "añ") -> (["a", "<0xC3>", "<0xB1>"], ...)."""
    spans = baselines.segment(CHOICES[name], text)
    if name != "bytes":
        return [text[start:end] for start, end in spans], spans
    shown: list[str] = []
    for char in text:
        encoded = char.encode("utf-8", "surrogatepass")
        shown.extend([char] if len(encoded) == 1 else [f"<0x{byte:02X}>" for byte in encoded])
    return shown, spans


def print_lines(out: TextIO, name: str, lines: Iterable[str | None], as_json: bool, ascii_only: bool) -> int:
    """Print the pieces of each line (None: a line --errors skip dropped); the number skipped."""
    skipped = 0
    for line in lines:
        if line is None:
            skipped += 1
            continue
        shown, spans = pieces(name, line)
        if as_json:
            record = {"baseline": CHOICES[name], "pieces": shown, "offsets": [list(span) for span in spans]}
            out.write(json.dumps(record, ensure_ascii=ascii_only) + "\n")
        else:
            text = " ".join(visible(piece) for piece in shown)
            out.write((text.encode("ascii", "backslashreplace").decode("ascii") if ascii_only else text) + "\n")
    return skipped


def file_lines(name: str, errors: str) -> Iterator[str | None]:
    """The lines of a file, as `stream_lines` reads them."""
    try:
        with open(name, "rb") as stream:
            yield from stream_lines(stream, name, errors)
    except OSError as error:
        raise EncodeError(f"{name}: cannot read it ({error.strerror or error})") from None


def stream_lines(stream: Iterable[bytes], name: str, errors: str) -> Iterator[str | None]:
    """The lines of a byte stream (line endings stripped) decoded as --errors says: EncodeError
    naming `name`, the line and the byte under "strict"; None for a line "skip" drops."""
    for number, raw in enumerate(stream, start=1):
        raw = raw.rstrip(b"\r\n")
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as error:
            if errors == "replace":
                yield raw.decode("utf-8", errors="replace")
            elif errors == "skip":
                yield None
            else:
                raise EncodeError(
                    f"{name}: line {number:,}: byte 0x{raw[error.start]:02x} at offset {error.start} is not UTF-8 "
                    "(use --errors replace to substitute U+FFFD, or --errors skip to drop the line)"
                ) from None


def text_lines(given: str, errors: str) -> list[str | None]:
    """--text's lines (a text of several lines is cut at its line breaks, as a file is)."""
    text = text_argument(given, errors)
    if text is None:
        return [None]
    return list(text.split("\n"))
