"""Unigram on one word, step by step: the lattice (every piece at every position, with its score),
the best score of each position filled in left to right with its back-pointer (Viterbi), the best
path followed back from the end, and beside it the n best paths and sampled segmentations.

Everything comes from the model's own `Unigram.lattice` (`Lattice.viterbi_scores`, `viterbi`,
`nbest`, `sample`, `forward`); the last step fuses unknown characters as the model does, so the
tokens are its `tokenize_run`'s. The WordPiece and BPE steppers are `engine.analysis.encode_steps`.
"""

from __future__ import annotations

import math
import random
from typing import Final

from engine.analysis.steps import BACK, END, FILL, LISTED, START, Step, TokenTuple, done_text, plural, quoted, score_text
from engine.models.unigram.lattice import Lattice
from engine.models.unigram.model import Unigram

# What the page asks for by default: paths of the n-best list, sampled segmentations, alpha, seed.
NBEST: Final = 5
SAMPLES: Final = 5
ALPHA: Final = 0.1
SEED: Final = 0
# Paths asked for at most (sentencepiece's n-best keeps a bounded agenda; so does the page).
MAX_PATHS: Final = 50

# (start, end, id, piece, score, unknown): one lattice node; `piece` is the vocabulary's piece,
# or the character itself for an unknown node
NodeTuple = tuple[int, int, int, str, float, bool]


class UnigramTrace:
    """The lattice of one word and what Viterbi does on it.

    `nodes[k]`: node k of the model's lattice (`NodeTuple`); `best[p]`: the best score of a path
    from position 0 to p (`Lattice.viterbi_scores`); `back[p]`: the node that path ends with
    (-1 for position 0, or where no path reaches); `path`: the best path's nodes
    (`Lattice.viterbi`), `score` its score; `tokens`: the model's tokens (unknown runs fused).
    `nbest`: (nodes, score, probability at `alpha`) of each of the n best paths (`Lattice.nbest`);
    `samples`: (nodes, score) of each path drawn by `Lattice.sample(alpha, Random(seed))`, in
    order; `log_z`: the log of the sum of exp(alpha * score) over every path.
    """

    word: str
    nodes: list[NodeTuple]
    best: list[float]
    back: list[int]
    path: list[int]
    score: float
    tokens: list[TokenTuple]
    nbest: list[tuple[list[int], float, float]]
    samples: list[tuple[list[int], float]]
    alpha: float
    seed: int
    log_z: float
    unk_score: float
    steps: list[Step]

    def __init__(self, word: str, alpha: float, seed: int, unk_score: float) -> None:
        self.word = word
        self.nodes = []
        self.best = []
        self.back = []
        self.path = []
        self.score = 0.0
        self.tokens = []
        self.nbest = []
        self.samples = []
        self.alpha = alpha
        self.seed = seed
        self.log_z = 0.0
        self.unk_score = unk_score
        self.steps = []

    def pieces(self, path: list[int]) -> list[str]:
        """The pieces of a path of nodes: ["▁cat", "s"]."""
        found: list[str] = []
        for node in path:
            found.append(self.nodes[node][3])
        return found

    def to_wire(self) -> dict[str, object]:
        return {
            "kind": "unigram", "word": self.word, "nodes": list(self.nodes), "best": list(self.best),
            "back": list(self.back), "path": list(self.path), "score": self.score, "tokens": list(self.tokens),
            "nbest": list(self.nbest), "samples": list(self.samples), "alpha": self.alpha, "seed": self.seed,
            "log_z": self.log_z, "unk_score": self.unk_score, "steps": [step.to_wire() for step in self.steps],
        }  # fmt: skip


def unigram_trace(
    model: Unigram, word: str, nbest: int = NBEST, alpha: float = ALPHA, seed: int = SEED, samples: int = SAMPLES
) -> UnigramTrace:
    """Viterbi on the lattice of `word`, one position at a time, then the best path followed
    back; the `nbest` best paths and `samples` segmentations drawn with `alpha` from `seed`.

    "▁cats" with ▁cat -2.0, s -2.5 (and the characters, lower): best[4] -2.00 through ▁cat,
    best[5] -4.50 through s -> ▁cat s.
    """
    if not math.isfinite(alpha):
        raise ValueError(f"alpha must be a number, not {alpha}")
    lattice = model.lattice(word)  # (raises EngineError, as the model does, with no unknown piece)
    trace = UnigramTrace(word, alpha, seed, model.piece_index.unk_score)
    unk = model.unk_id if model.unk_id is not None else -1
    size = lattice.size
    for k in range(len(lattice.ids)):
        start = lattice.starts[k]
        end = lattice.ends[k]
        id = lattice.ids[k]
        surface = word[start:end]
        name = model.id_to_token(id)
        # (an unknown node stands for its character; "<unk>" typed in the text is the piece itself)
        unknown = id == unk and name != surface
        trace.nodes.append((start, end, id, surface if unknown or name is None else name, lattice.scores[k], unknown))
    trace.best = lattice.viterbi_scores()
    trace.back = _back_pointers(lattice, trace.best)
    trace.path = lattice.viterbi()
    trace.score = lattice.path_score(trace.path)
    trace.tokens = _path_tokens(model, word, lattice, trace.path)
    wanted = min(max(nbest, 0), MAX_PATHS)
    if size > 0:
        trace.log_z = lattice.forward(alpha)[size]
        for path, score in lattice.nbest(wanted):
            trace.nbest.append((path, score, math.exp(alpha * score - trace.log_z)))
        rng = random.Random(seed)
        for _ in range(min(max(samples, 0), MAX_PATHS)):
            path = lattice.sample(alpha, rng)
            trace.samples.append((path, lattice.path_score(path)))
    _unigram_steps(model, trace, lattice)
    return trace


def _back_pointers(lattice: Lattice, best: list[float]) -> list[int]:
    """back[p]: the node a best path to p ends with; of equal scores the node inserted first (the
    one starting first), as `Lattice.viterbi` and HF choose. -1 for 0 and unreached positions."""
    back = [-1] * (lattice.size + 1)
    for pos in range(1, lattice.size + 1):
        top = -math.inf
        for node in lattice.ending[pos]:
            start = lattice.starts[node]
            if best[start] == -math.inf:
                continue
            candidate = best[start] + lattice.scores[node]
            if back[pos] < 0 or candidate > top:
                top = candidate
                back[pos] = node
    return back


def _path_tokens(model: Unigram, word: str, lattice: Lattice, path: list[int]) -> list[TokenTuple]:
    """The model's tokens for a path (`Unigram.path_run`: unknown runs fused, looked up whole,
    byte-fallen-back, as the model encodes)."""
    run = model.path_run(word, lattice, path)
    tokens: list[TokenTuple] = []
    for k in range(len(run.ids)):
        tokens.append((run.ids[k], run.values[k], run.starts[k], run.ends[k]))
    return tokens


def _node_text(trace: UnigramTrace, node: int) -> str:
    start, end, id, piece, score, unknown = trace.nodes[node]
    return f"{quoted(piece)}{' (unknown)' if unknown else ''} ({start}–{end})"


def _unigram_steps(model: Unigram, trace: UnigramTrace, lattice: Lattice) -> None:
    word = trace.word
    size = lattice.size
    steps = trace.steps
    if size == 0:
        steps.append(Step(END, 0, done_text(word, trace.tokens)))
        return
    text = (
        f"The lattice of {quoted(word)}: the {plural(len(trace.nodes), 'piece')} of the vocabulary found in it, "
        f"each at its place with its score (the log probability of the piece: higher is likelier). Every "
        f"path of pieces from position 0 to {size} is a segmentation, scored by the sum of its pieces' "
        f"scores. Viterbi finds the best: it fills in the best score of each position from left to right, "
        f"then follows the back-pointers from the end."
    )
    unknown: list[str] = []
    for node in range(len(trace.nodes)):
        if trace.nodes[node][5]:
            unknown.append(quoted(trace.nodes[node][3]))
    if unknown:
        names = ", ".join(unknown[:LISTED]) + (f" and {len(unknown) - LISTED} more" if len(unknown) > LISTED else "")
        text += (
            f" No piece covers {names}: each such character gets the unknown piece, scored min_score − 10 "
            f"= {score_text(trace.unk_score)}."
        )
    steps.append(Step(START, 0, text))
    for pos in range(1, size + 1):
        steps.append(Step(FILL, pos, _fill_text(trace, lattice, pos)))
    path = trace.path
    for lit in range(1, len(path) + 1):
        node = path[len(path) - lit]
        start, end = trace.nodes[node][0], trace.nodes[node][1]
        text = f"Back from position {end}: its back-pointer is {_node_text(trace, node)}, so the best path "
        text += f"{'ends' if lit == 1 else 'goes on'} with {quoted(trace.nodes[node][3])}"
        if start > 0:
            text += f"; continue at position {start}."
        else:
            scores: list[str] = []
            for step_node in path:
                scores.append(score_text(trace.nodes[step_node][4]))
            text += (
                f". Position 0 is reached: the best path is {' '.join(trace.pieces(path))}, score "
                f"{' + '.join(scores)} = {score_text(trace.score)}."
            )
        steps.append(Step(BACK, lit, text))
    steps.append(Step(END, 0, _fused_text(trace) + done_text(word, trace.tokens)))


def _fill_text(trace: UnigramTrace, lattice: Lattice, pos: int) -> str:
    """The sentence of position `pos`: "Position 3 (after '▁ca'): best score -6.00, through '▁ca'
    (0–3): best[0] 0.00 + -6.00 ... Also ending here: 'a' (2–3): best[2] -7.00 + -3.00 = -10.00."."""
    chosen = trace.back[pos]
    text = f"Position {pos} (after {quoted(trace.word[:pos])}): "
    if chosen < 0:
        return text + "no path reaches it."
    start = lattice.starts[chosen]
    score = lattice.scores[chosen]
    text += (
        f"best score {score_text(trace.best[pos])}, through {_node_text(trace, chosen)}: best[{start}] "
        f"{score_text(trace.best[start])} + {score_text(score)}; the back-pointer of position {pos} is "
        f"{quoted(trace.nodes[chosen][3])}."
    )
    others: list[str] = []
    tied = False
    for node in lattice.ending[pos]:
        if node == chosen:
            continue
        other_start = lattice.starts[node]
        total = trace.best[other_start] + lattice.scores[node]
        if total == trace.best[pos]:
            tied = True
        if len(others) < LISTED:
            others.append(
                f"{_node_text(trace, node)}: best[{other_start}] {score_text(trace.best[other_start])} + "
                f"{score_text(lattice.scores[node])} = {score_text(total)}"
            )
    more = len(lattice.ending[pos]) - 1 - len(others)
    if others:
        text += f" Also ending here: {'; '.join(others)}{f'; and {more} more' if more > 0 else ''}."
    else:
        text += " No other piece ends here."
    if tied:
        text += " A tie: the piece that starts first wins, as in HF and sentencepiece."
    return text


def _fused_text(trace: UnigramTrace) -> str:
    """What the model makes of the unknown characters on the best path ("" when none): a run of
    them is one token, looked up whole, else its UTF-8 bytes (byte_fallback), else unknown."""
    parts: list[str] = []
    told: set[int] = set()
    for id, value, start, end in trace.tokens:
        if start in told or not _unknown_at(trace, start):
            continue
        told.add(start)
        surface = quoted(trace.word[start:end])
        if value != trace.word[start:end]:
            parts.append(f"byte_fallback writes the unknown {surface} as its UTF-8 bytes.")
        elif end - start > 1:
            parts.append(f"The unknown characters {surface} next to each other are one token.")
    return " ".join(parts) + (" " if parts else "")


def _unknown_at(trace: UnigramTrace, start: int) -> bool:
    """Whether the best path has an unknown node starting at `start`."""
    for node in trace.path:
        if trace.nodes[node][0] == start:
            return trace.nodes[node][5]
    return False
