"""Encoding text one line per document when a line may be too long to hold whole: blocks of
lines go in (`LineEncoder.feed`), each line's tokens come out to a `DocumentSink`, in pieces.

A line that ends within its block is encoded whole (`Tokenizer.encode`). A longer one arrives
cut at whitespace (`engine.corpus.streams.LineBlocks` with `long_line_cutter`), only where the cut
cannot change its tokens: the pipeline never makes a word across whitespace
(`engine.corpus.chunking.chunk_mode`), no added token holds or strips whitespace, and there is no
truncation or padding. Each piece is then encoded alone, without special tokens, and the
post-processor's special tokens are put around the whole line (`LineFrame`). No reading here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Final

from mypy_extensions import mypyc_attr

from engine.corpus import chunking
from engine.corpus.streams import LineCutter
from engine.encoding import Encoding
from engine.tokenizer import Tokenizer

# The id given to the one token of the probe encoding `LineFrame` post-processes: no real id.
_PROBE_ID: Final = -1


def long_line_cutter(tokenizer: Tokenizer, with_offsets: bool = True) -> LineCutter | None:
    """Where a long line may be cut so that its pieces, encoded apart, give the line's tokens
    (and, `with_offsets`, their offsets), or None: nowhere; lines are then read whole.

    BERT's and GPT-2's pipelines allow it (Whitespace/BertPreTokenizer drop whitespace; GPT-2's
    regex never makes a word across " "); SentencePiece's Metaspace does not."""
    if tokenizer.truncation is not None or tokenizer.padding is not None:
        return None
    for token in tokenizer.get_added_tokens_decoder().values():
        if token.lstrip or token.rstrip:
            return None
        for char in token.content:
            if char.isspace():
                return None
    processor = tokenizer.post_processor
    if with_offsets and processor is not None and _trims_first_offsets(processor.to_dict()):
        return None
    return chunking.line_cutter(chunking.chunk_mode(tokenizer.normalizer, tokenizer.pre_tokenizer))


def _trims_first_offsets(data: object) -> bool:
    """Whether a post-processor (its tokenizer.json object) trims the offsets of a sequence's
    first token unlike the others'.

    subtle: HF's ByteLevel offset trimming, with add_prefix_space, leaves a first token's one
    leading space in its offsets: the first token of a piece is not the line's first."""
    if not isinstance(data, dict):
        return False
    kind = data.get("type")
    if kind == "Sequence":
        steps = data.get("processors")
        if isinstance(steps, list):
            for step in steps:
                if _trims_first_offsets(step):
                    return True
        return False
    if kind == "ByteLevel" or kind == "RobertaProcessing":
        return data.get("trim_offsets") is True and data.get("add_prefix_space") is True
    return False


class LineFrame:
    """The tokens the post-processor puts before and after one sequence (`[CLS]` and `[SEP]`
    for BERT; none for GPT-2), found by post-processing a one-token probe encoding."""

    before: Encoding
    after: Encoding

    def __init__(self, tokenizer: Tokenizer) -> None:
        probe = Encoding([_PROBE_ID], [0], ["x"], [0], [(0, 1)], [0], [1])
        framed = tokenizer.post_process(probe, None, True)
        ids = framed.ids
        at = 0
        while at < len(ids) and ids[at] != _PROBE_ID:
            at += 1
        if at == len(ids):
            raise ValueError("the post-processor dropped the sequence it was given")
        self.before = _part(framed, 0, at)
        self.after = _part(framed, at + 1, len(ids))


def _part(encoding: Encoding, start: int, end: int) -> Encoding:
    """Tokens [start, end) of `encoding`: ids, tokens and offsets."""
    offsets = encoding.offsets
    return Encoding(
        encoding.ids[start:end],
        encoding.type_ids[start:end],
        encoding.tokens[start:end],
        encoding.word_ids[start:end],
        offsets[start:end],
        encoding.special_tokens_mask[start:end],
        encoding.attention_mask[start:end],
    )


@mypyc_attr(allow_interpreted_subclasses=True)
class DocumentSink(ABC):
    """Where `LineEncoder` puts each line's tokens: `add` once or more per line, then `end`
    (the command line prints them: subclassed outside the compiled engine)."""

    @abstractmethod
    def add(self, ids: list[int], encoding: Encoding | None, shift: int) -> None:
        """The next tokens of the current line: their ids, and (unless the encoder makes ids
        only) their Encoding, whose offsets are in the piece: add `shift` for the line's."""

    @abstractmethod
    def end(self) -> None:
        """The current line is done."""


class LineEncoder:
    """Encodes the lines of a text handed over in blocks: `feed(text, complete)` for each block
    (`complete`: it ends with "\\n"; if not, its last line goes on in the next block or ends
    the text), then `finish()`. A line's "\\r"s before its "\\n" (or the end) are dropped.

    `ids_only`: the sink gets ids and no Encoding (`Tokenizer.encode_ids`, the fast way).
    `lines` counts the lines done; `line_open` is True while a line runs across blocks.
    """

    tokenizer: Tokenizer
    sink: DocumentSink
    ids_only: bool
    frame: LineFrame | None
    held: str
    holding: bool
    line_open: bool
    shift: int
    lines: int

    def __init__(self, tokenizer: Tokenizer, sink: DocumentSink, ids_only: bool = False) -> None:
        self.tokenizer = tokenizer
        self.sink = sink
        self.ids_only = ids_only
        self.frame = None
        self.held = ""
        self.holding = False
        self.line_open = False
        self.shift = 0
        self.lines = 0

    def feed(self, text: str, complete: bool) -> None:
        lines = text.split("\n")
        last = len(lines) - 1
        for i in range(last):
            self._line_end(lines[i])
        if not complete and lines[last]:
            # subtle: held back, not encoded: if the text ends here it is a whole line, encoded
            # as one (with the post-processor), else the first piece of a long line.
            if self.holding:
                self._piece(self.held)
            self.held = lines[last]
            self.holding = True

    def finish(self) -> None:
        """The text ended: its last line, if it had no "\\n", is done."""
        if self.holding or self.line_open:
            self._line_end("")

    def _line_end(self, text: str) -> None:
        if self.holding:
            # (two pieces at most: encoded together, which is never wrong)
            text = self.held + text
            self.held = ""
            self.holding = False
        text = text.rstrip("\r")
        if not self.line_open:
            if self.ids_only:
                self.sink.add(self.tokenizer.encode_ids(text), None, 0)
            else:
                encoding = self.tokenizer.encode(text)
                self.sink.add(encoding.ids, encoding, 0)
        else:
            self._piece(text)
            frame = self._frame()
            if frame.after.ids:
                self.sink.add(frame.after.ids, None if self.ids_only else frame.after, 0)
            self.line_open = False
        self.sink.end()
        self.lines += 1

    def _piece(self, text: str) -> None:
        """One piece of a long line: the frame's first tokens before the first piece."""
        if not self.line_open:
            self.line_open = True
            self.shift = 0
            frame = self._frame()
            if frame.before.ids:
                self.sink.add(frame.before.ids, None if self.ids_only else frame.before, 0)
        if not text:
            return
        if self.ids_only:
            self.sink.add(self.tokenizer.encode_ids(text, False), None, self.shift)
        else:
            encoding = self.tokenizer.encode(text, add_special_tokens=False)
            self.sink.add(encoding.ids, encoding, self.shift)
        self.shift += len(text)

    def _frame(self) -> LineFrame:
        frame = self.frame
        if frame is None:
            frame = LineFrame(self.tokenizer)
            self.frame = frame
        return frame
