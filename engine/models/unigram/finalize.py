"""Unigram training's last round, sentencepiece's FinalizeSentencePieces: the final vocabulary
(special tokens, the required characters, the best pieces up to vocab_size) and the model cut to it.

Works on the pieces of a `TrainingLattices`; which characters are required is
`engine.models.unigram.seeds`'s, and when to finalize `engine.models.unigram.training_run`'s.
"""

from __future__ import annotations

from typing import Final

from engine.models.unigram.training_lattices import TrainingLattices

# Required characters missing from the model come back at min_score + k * this (k = 0, 1, ...).
MIN_SCORE_PENALTY_DELTA: Final = 0.0001


def choose_final_pieces(
    lattices: TrainingLattices,
    required: list[str],
    special_tokens: list[str],
    unk_token: str | None,
    vocab_size: int,
) -> list[tuple[str, float]]:
    """The (piece, score) list of the final model: the unk token (when it is not a special token)
    and the special tokens at 0.0, then the required characters and the best pieces, by score
    descending (ties: smaller piece first), `vocab_size` in all. The k-th required character the
    model dropped (k = 0, 1, ...) scores the lowest score + k x 0.0001: with pieces a -1.0, ab
    -2.0, required ["a", "b"] and vocab_size 3 -> [("a", -1.0), ("ab", -2.0), ("b", -2.0)]."""
    present_scores: dict[str, float] = {}
    low = float("inf")
    for id in range(len(lattices.pieces)):
        if lattices.present[id]:
            present_scores[lattices.pieces[id]] = lattices.scores[id]
            if lattices.scores[id] < low:
                low = lattices.scores[id]
    if low == float("inf"):
        low = 0.0
    specials: list[tuple[str, float]] = []
    if unk_token is not None and unk_token not in special_tokens:
        specials.append((unk_token, 0.0))
    for token in special_tokens:
        specials.append((token, 0.0))
    limit = vocab_size - len(specials)
    chosen: list[tuple[float, str]] = []
    inserted: set[str] = set()
    penalty = 0.0
    for char in required:
        score = present_scores.get(char)
        if score is None:
            score = low + penalty
            penalty += MIN_SCORE_PENALTY_DELTA
        chosen.append((-score, char))
        inserted.add(char)
    ranked: list[tuple[float, str]] = []
    for piece, score in present_scores.items():
        if piece not in inserted:
            ranked.append((-score, piece))
    ranked.sort()
    for item in ranked:
        if len(chosen) >= limit:
            break
        chosen.append(item)
    chosen.sort()
    result = specials
    for neg_score, piece in chosen:
        result.append((piece, -neg_score))
    return result


def keep_final(lattices: TrainingLattices, final: list[tuple[str, float]]) -> int:
    """Make the model hold exactly the pieces of `final` (`choose_final_pieces`), at their final
    scores, absent characters among them back in (so the last pass scores them); returns how
    many pieces left."""
    index: dict[str, int] = {}
    for id in range(len(lattices.pieces)):
        if lattices.present[id] or id < lattices.n_chars:
            index[lattices.pieces[id]] = id
    keep: list[bool] = [False] * len(lattices.pieces)
    for piece, score in final:
        id = index.get(piece, -1)
        if id >= 0:
            keep[id] = True
            lattices.scores[id] = score
    removed = lattices.remove(keep)
    for id in range(lattices.n_chars):
        if keep[id] and not lattices.present[id]:
            lattices.present[id] = True  # a required character back in the model
    return removed
