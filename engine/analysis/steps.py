"""What every model's step-through shares (`engine.analysis.encode_steps`, `lattice_steps`): the
`Step` record (a phase, an index, a sentence) and how a step writes pieces, tokens and scores.
No algorithm here.
"""

from __future__ import annotations

import math
from typing import Final

from engine.analysis.vocabulary import visible_text

# The phases of a step: what `Step.index` counts in each.
START: Final = "start"  # the word as the algorithm first sees it (index 0)
LOOKUP: Final = "lookup"  # WordPiece: the index of the lookup
MERGE: Final = "merge"  # BPE: the index of the merge
FILL: Final = "fill"  # Unigram: the position whose best score is filled in
BACK: Final = "back"  # Unigram: how many nodes of the best path are lit, from the end
END: Final = "end"  # the tokens (index 0)
# Pieces or pairs named in one sentence, at most.
LISTED: Final = 6

# (id, token, start, end): a token of the word, offsets in characters of the word
TokenTuple = tuple[int, str, int, int]


class Step:
    """One step: its `phase` (START, LOOKUP, MERGE, FILL, BACK or END), the index it shows in
    that phase, and what happens, in words."""

    phase: str
    index: int
    text: str

    def __init__(self, phase: str, index: int, text: str) -> None:
        self.phase = phase
        self.index = index
        self.text = text

    def to_wire(self) -> dict[str, object]:
        return {"phase": self.phase, "index": self.index, "text": self.text}

    def __repr__(self) -> str:
        return f"Step({self.phase}, {self.index}, {self.text!r})"


def quoted(text: str) -> str:
    """A piece in quotes, spaces and invisible characters shown: "a b" -> 'a·b'."""
    return "'" + visible_text(text, True, True) + "'"


def joined(tokens: list[TokenTuple]) -> str:
    """The tokens as a reader writes them: "play ##ing"."""
    parts: list[str] = []
    for token in tokens:
        parts.append(visible_text(token[1], True, True))
    return " ".join(parts)


def plural(count: int, thing: str) -> str:
    """1 -> "1 token", 3 -> "3 tokens"."""
    return f"{count:,} {thing}{'' if count == 1 else 's'}"


def done_text(word: str, tokens: list[TokenTuple]) -> str:
    """The last step's sentence: "Done: 'playing' → play ##ing (2 tokens, ids 2377, 2075)."."""
    if not tokens:
        return f"Done: {quoted(word)} gives no token."
    ids: list[str] = []
    for token in tokens:
        ids.append(str(token[0]))
    label = "id" if len(tokens) == 1 else "ids"
    return f"Done: {quoted(word)} → {joined(tokens)} ({plural(len(tokens), 'token')}, {label} {', '.join(ids)})."


def score_text(value: float) -> str:
    """A score as the steps write it: -6.0 -> "-6.00"; no path -> "-inf"."""
    if value == -math.inf:
        return "-inf"
    return f"{value:.2f}"
