"""The held-out text a training is measured on: which lines of the corpus are held out
(`held_out_split`), and how many characters each token covers there (`characters_per_token`).

Shared by the training process and the step-by-step session; no training or Qt here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine import Tokenizer
from engine.corpus.sources import CorpusSource
from engine.corpus.units import FileSlice, line_start_after, training_inputs

# The held-out text is at most this big: encoding it must stay cheap next to the training.
HELD_OUT_MAX_BYTES: Final = 64 * 1024


def held_out_split(
    files: Sequence[str | CorpusSource], fraction: float, max_bytes: int = HELD_OUT_MAX_BYTES
) -> tuple[list[FileSlice | CorpusSource], str]:
    """The inputs to train on, and the held-out text: the last lines of the last plain text
    file, about `fraction` of all the bytes (at most `max_bytes`). No held-out text when
    `fraction` is 0, when that file is too short to give up a line, or when no input is a plain
    text file (compressed, JSON Lines, Parquet/Arrow and .tsv inputs are trained on whole)."""
    slices = training_inputs(files)
    total = sum(piece.size for piece in slices)
    wanted = min(int(total * fraction), max_bytes)
    index = len(slices) - 1
    while index >= 0 and not isinstance(slices[index], FileSlice):
        index -= 1
    if index < 0:
        return slices, ""
    last = slices[index]
    assert isinstance(last, FileSlice)
    if wanted <= 0 or wanted >= last.size:
        return slices, ""
    cut = line_start_after(last.path, last.end - wanted, last.end)
    if cut <= last.start or cut >= last.end:
        return slices, ""
    with open(last.path, "rb") as stream:
        stream.seek(cut)
        held = stream.read(last.end - cut)
    slices[index] = FileSlice(last.path, last.start, cut)
    return slices, held.decode("utf-8", "replace")


def characters_per_token(tokenizer: Tokenizer, lines: list[str]) -> float:
    """How many characters of `lines` each token covers on average (0 for no tokens): the
    compression the plots follow as merges accumulate."""
    chars = 0
    tokens = 0
    for line in lines:
        chars += len(line)
        tokens += len(tokenizer.encode(line, add_special_tokens=False).ids)
    return chars / tokens if tokens else 0.0
