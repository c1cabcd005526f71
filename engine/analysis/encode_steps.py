"""How a model cuts ONE word, step by step: WordPiece's lookups and BPE's merges in rank order
here, Unigram's lattice in `engine.analysis.lattice_steps`; each step with its numbers and a
sentence saying it.

`trace_word(model, word)` follows the model's own algorithm on its own data (vocabulary, merge
ranks, piece scores, `Unigram.lattice`) and ends in the tokens its `tokenize_run` gives;
`word_at(tokenizer, text, cursor)` finds the pre-tokenized word under a cursor with the
tokenizer's own pipeline. Records are native classes with plain `to_wire` forms (a compiled
record does not unpickle). Nothing here draws.
"""

from __future__ import annotations

from typing import Final

from engine.analysis.lattice_steps import ALPHA, NBEST, SAMPLES, SEED, UnigramTrace, unigram_trace
from engine.analysis.steps import END, LISTED, LOOKUP, MERGE, START, Step, TokenTuple, done_text, joined, quoted
from engine.errors import EngineError
from engine.input_sequence import pre_tokenized
from engine.models.base import Model
from engine.models.bpe.encoder import merge_all
from engine.models.bpe.model import BPE
from engine.models.unigram.model import Unigram
from engine.models.wordpiece.model import WordPiece
from engine.pre_tokenizers.pretokenized import CHAR, ORIGINAL
from engine.tokenizer import Tokenizer

# A word longer than this is not stepped through (a lattice drawn of it would be metres wide).
MAX_WORD_CHARS: Final = 1000

# A neighbouring pair that has a merge: (its left symbol's position in the row, the merge's
# rank, left, right)
Pair = tuple[int, int, str, str]


# -- WordPiece -----------------------------------------------------------------------------------


class Lookup:
    """One vocabulary lookup of WordPiece: `piece` (with the continuing prefix after the word's
    start) for characters start..end of the word, and the id found (-1: not in the vocabulary)."""

    start: int
    end: int
    piece: str
    id: int

    def __init__(self, start: int, end: int, piece: str, id: int) -> None:
        self.start = start
        self.end = end
        self.piece = piece
        self.id = id

    def to_wire(self) -> tuple[int, int, str, int]:
        return (self.start, self.end, self.piece, self.id)


class WordPieceTrace:
    """WordPiece on one word (HF's greedy longest-match-first): every lookup in order, then the
    tokens; `unknown` when the word became the unknown token (`too_long`: past
    max_input_chars_per_word, so never looked up)."""

    word: str
    prefix: str
    unk_token: str
    max_chars: int
    lookups: list[Lookup]
    tokens: list[TokenTuple]
    unknown: bool
    too_long: bool
    steps: list[Step]

    def __init__(self, word: str, prefix: str, unk_token: str, max_chars: int) -> None:
        self.word = word
        self.prefix = prefix
        self.unk_token = unk_token
        self.max_chars = max_chars
        self.lookups = []
        self.tokens = []
        self.unknown = False
        self.too_long = False
        self.steps = []

    def to_wire(self) -> dict[str, object]:
        return {
            "kind": "wordpiece", "word": self.word, "prefix": self.prefix, "unk_token": self.unk_token,
            "max_chars": self.max_chars, "lookups": [lookup.to_wire() for lookup in self.lookups],
            "tokens": list(self.tokens), "unknown": self.unknown, "too_long": self.too_long,
            "steps": [step.to_wire() for step in self.steps],
        }  # fmt: skip


def wordpiece_trace(model: WordPiece, word: str) -> WordPieceTrace:
    """WordPiece's cut of `word`, one lookup at a time, as HF's loop: the longest piece first,
    the window shrinking from the right; a start where no piece fits makes the whole word unknown.

    "playing" with {play, ##ing}: playing, playin, playi, play (found), ##ing (found) -> play ##ing
    """
    prefix = model.continuing_subword_prefix
    trace = WordPieceTrace(word, prefix, model.unk_token, model.max_input_chars_per_word)
    n = len(word)
    steps = trace.steps
    if n > model.max_input_chars_per_word:
        trace.too_long = True
        steps.append(Step(START, 0, (
            f"{quoted(word)} has {n:,} characters, more than max_input_chars_per_word "
            f"({model.max_input_chars_per_word:,}): WordPiece does not look it up, the whole word "
            f"becomes the unknown token {model.unk_token}."
        )))  # fmt: skip
        _wordpiece_unknown(model, trace)
        return trace
    steps.append(Step(START, 0, (
        f"{quoted(word)} has {n} character{'s' if n != 1 else ''}. WordPiece takes the longest "
        f"piece of the vocabulary first: it looks up the whole word, then one character less from "
        f"the right, until a lookup succeeds; then it goes on after that piece, looking up pieces "
        f"inside the word with {quoted(prefix)} in front."
    )))  # fmt: skip
    start = 0
    while start < n:
        end = n
        found = -1
        while start < end:
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            id = model.token_to_id(piece)
            index = len(trace.lookups)
            trace.lookups.append(Lookup(start, end, piece, -1 if id is None else id))
            where = f"Look up {quoted(piece)} (characters {start}–{end}): "
            if id is not None:
                found = id
                rest = word[end:]
                if rest:
                    after = f"the rest, {quoted(rest)}, is looked up as {quoted(prefix + rest)}."
                else:
                    after = "it ends the word."
                steps.append(Step(LOOKUP, index, where + f"in the vocabulary (id {id}). {quoted(piece)} is a token; {after}"))
                break
            if end - start > 1:
                steps.append(Step(LOOKUP, index, where + "not in the vocabulary. One character less from the right, and again."))
            else:
                steps.append(Step(LOOKUP, index, where + (
                    f"not in the vocabulary, and no shorter piece is left: nothing in the vocabulary "
                    f"covers character {start} here. WordPiece gives up on the whole word: it becomes "
                    f"{model.unk_token}, and the pieces found before are dropped (as HF does)."
                )))  # fmt: skip
            end -= 1
        if found < 0:
            _wordpiece_unknown(model, trace)
            return trace
        value = word[start:end] if start == 0 else prefix + word[start:end]
        trace.tokens.append((found, value, start, end))
        start = end
    steps.append(Step(END, 0, done_text(word, trace.tokens)))
    return trace


def _wordpiece_unknown(model: WordPiece, trace: WordPieceTrace) -> None:
    unk = model.token_to_id(model.unk_token)
    if unk is None:
        raise EngineError("WordPiece error: Missing [UNK] token from the vocabulary")
    trace.unknown = True
    trace.tokens = [(unk, model.unk_token, 0, len(trace.word))]
    trace.steps.append(Step(END, 0, done_text(trace.word, trace.tokens)))


# -- BPE -----------------------------------------------------------------------------------------


class MergeStep:
    """One merge applied to the word: the pair (`left`, `right`) at symbol `position` of the row
    before it, its `rank` (its index in the model's merges: learned earlier, applied first), the
    token it makes, and every neighbouring pair that had a merge before it (`Pair`s, left to
    right; not on the wire). `row_after` gives the symbols after any number of merges."""

    rank: int
    position: int
    left: str
    right: str
    made: str
    made_id: int
    present: list[Pair]

    def __init__(self, rank: int, position: int, left: str, right: str, made: str, made_id: int) -> None:
        self.rank = rank
        self.position = position
        self.left = left
        self.right = right
        self.made = made
        self.made_id = made_id
        self.present = []

    def to_wire(self) -> dict[str, object]:
        return {
            "rank": self.rank, "position": self.position, "left": self.left, "right": self.right,
            "made": self.made, "made_id": self.made_id,
        }  # fmt: skip


class BpeTrace:
    """BPE on one word: its first symbols (`symbols`), each merge in the order HF's merge loop
    applies them, and the tokens. `whole`: the word is one vocabulary token and the model has
    ignore_merges, so no merge runs. `notes` say how the first symbols were made."""

    word: str
    symbols: list[TokenTuple]
    merges: list[MergeStep]
    tokens: list[TokenTuple]
    whole: bool
    notes: list[str]
    steps: list[Step]

    def __init__(self, word: str) -> None:
        self.word = word
        self.symbols = []
        self.merges = []
        self.tokens = []
        self.whole = False
        self.notes = []
        self.steps = []

    def row(self, count: int) -> list[TokenTuple]:
        """The symbols after the first `count` merges (`row_after`)."""
        merged: list[tuple[int, int, str]] = []
        for merge in self.merges:
            merged.append((merge.position, merge.made_id, merge.made))
        return row_after(self.symbols, merged, count)

    def to_wire(self) -> dict[str, object]:
        return {
            "kind": "bpe", "word": self.word, "symbols": list(self.symbols),
            "merges": [merge.to_wire() for merge in self.merges], "tokens": list(self.tokens),
            "whole": self.whole, "notes": list(self.notes), "steps": [step.to_wire() for step in self.steps],
        }  # fmt: skip


def bpe_trace(model: BPE, word: str) -> BpeTrace:
    """BPE's cut of `word`: its symbols (characters, with the continuing prefix and end-of-word
    suffix, unknowns and byte fallback as the model makes them), then HF's `merge_all`: the lowest
    rank of the pairs present first, the leftmost of equal ranks first, until no pair has a merge.

    "lowest" with merges (l o) (lo w) (e s) (es t): l o w e s t -> lo w e s t -> low e s t ->
    low es t -> low est. Dropout is left out: the steps are the deterministic encoding.
    """
    trace = BpeTrace(word)
    if not word:
        trace.steps.append(Step(END, 0, done_text(word, [])))
        return trace
    vocab = model.get_vocab()
    if model.ignore_merges:
        suffix = model.end_of_word_suffix
        # (with the end-of-word symbol the whole word is `low</w>`, as the model looks it up)
        whole_token = word + suffix if model.end_of_word_symbol and suffix is not None else word
        whole = vocab.get(whole_token)
        if whole is not None:
            trace.whole = True
            trace.symbols = [(whole, whole_token, 0, len(word))]
            trace.tokens = list(trace.symbols)
            trace.steps.append(Step(START, 0, (
                f"{quoted(word)} is a token of the vocabulary as a whole (id {whole}), and this model "
                f"has ignore_merges: such a word is that one token, no merge runs."
            )))  # fmt: skip
            trace.steps.append(Step(END, 0, done_text(word, trace.tokens)))
            return trace
    # subtle: the same vocabulary and options without merges makes exactly the model's first
    # symbols (unknowns fused or not, byte fallback, characters left out), offsets in characters
    base = BPE(
        vocab, [], cache_capacity=0, unk_token=model.unk_token,
        continuing_subword_prefix=model.continuing_subword_prefix,
        end_of_word_suffix=model.end_of_word_suffix, fuse_unk=model.fuse_unk, byte_fallback=model.byte_fallback,
        end_of_word_symbol=model.end_of_word_symbol,
    )  # fmt: skip
    first = base.tokenize_run(word)
    n = len(first.ids)
    ids: list[int] = list(first.ids)
    values: list[str] = list(first.values)
    starts: list[int] = list(first.starts)
    ends: list[int] = list(first.ends)
    for k in range(n):
        trace.symbols.append((ids[k], values[k], starts[k], ends[k]))
    trace.notes = _symbol_notes(model, word, trace.symbols)
    trace.steps.append(Step(START, 0, _bpe_start(model, word, trace)))
    stride = 1
    for id in vocab.values():
        if id >= stride:
            stride = id + 1
    ranks: dict[int, int] = {}
    merges = model.merges
    new_ids = model.merged_ids
    for rank in range(len(merges)):
        a, b = merges[rank]
        ranks[vocab[a] * stride + vocab[b]] = rank
    # the merges HF's Word.merge_all applies (engine.models.bpe.encoder: the one place that
    # decides them), replayed one by one with the symbols around each
    applied: list[int] = []
    if n > 1:
        merge_all(list(ids), [1] * n, ranks, new_ids, stride, 0.0, None, applied)
    alive = [True] * n
    nxt = list(range(1, n + 1))
    if n > 0:
        nxt[n - 1] = -1
    for k in range(0, len(applied), 3):
        pos, right, current = applied[k], applied[k + 1], applied[k + 2]
        new_id = new_ids[current]
        made = model.id_to_token(new_id)
        step = MergeStep(current, _row_index(alive, pos), values[pos], values[right], made if made is not None else "", new_id)
        step.present = _present(ids, values, alive, nxt, ranks, stride)
        ids[pos] = new_id
        values[pos] = step.made
        ends[pos] = ends[right]
        alive[right] = False
        nxt[pos] = nxt[right]
        trace.steps.append(Step(MERGE, len(trace.merges), _merge_text(step)))
        trace.merges.append(step)
    trace.tokens = _row(ids, values, starts, ends, alive)
    ending = "No neighbouring pair has a merge left. " if n > 1 else ""
    trace.steps.append(Step(END, 0, ending + done_text(word, trace.tokens)))
    return trace


def _row(ids: list[int], values: list[str], starts: list[int], ends: list[int], alive: list[bool]) -> list[TokenTuple]:
    row: list[TokenTuple] = []
    for k in range(len(ids)):
        if alive[k]:
            row.append((ids[k], values[k], starts[k], ends[k]))
    return row


def row_after(symbols: list[TokenTuple], merges: list[tuple[int, int, str]], count: int) -> list[TokenTuple]:
    """The word's symbols after its first `count` merges, each merge given as (position, made
    id, made): l o w and [(0, 3, "lo")], 1 -> lo w. (The rows are made again when asked for,
    not kept: a long word's rows add up to its length squared.)"""
    row = list(symbols)
    for k in range(min(count, len(merges))):
        position, made_id, made = merges[k]
        left = row[position]
        right = row[position + 1]
        row[position : position + 2] = [(made_id, made, left[2], right[3])]
    return row


def _row_index(alive: list[bool], pos: int) -> int:
    """Where symbol `pos` stands in the row (merged-away symbols left out)."""
    index = 0
    for k in range(pos):
        if alive[k]:
            index += 1
    return index


def _present(ids: list[int], values: list[str], alive: list[bool], nxt: list[int], ranks: dict[int, int], stride: int) -> list[Pair]:
    """(row position, rank, left, right) of each neighbouring pair that has a merge, left to right."""
    present: list[Pair] = []
    index = 0
    for k in range(len(ids)):
        if not alive[k]:
            continue
        right = nxt[k]
        if right != -1:
            found = ranks.get(ids[k] * stride + ids[right])
            if found is not None:
                present.append((index, found, values[k], values[right]))
        index += 1
    return present


def _symbol_notes(model: BPE, word: str, symbols: list[TokenTuple]) -> list[str]:
    """What the first symbols hold besides one character each: the continuing prefix, the
    end-of-word suffix, unknown tokens, byte fallback, characters left out."""
    notes: list[str] = []
    prefix = model.continuing_subword_prefix
    suffix = model.end_of_word_suffix
    if prefix and len(word) > 1:
        notes.append(f"Every character after the first carries the continuing prefix {quoted(prefix)}.")
    if suffix and model.end_of_word_symbol:
        notes.append(
            f"The word ends with the end-of-word symbol {quoted(suffix)}, a symbol of its own (as in "
            "subword-nmt and the textbooks): merges join it like any other symbol."
        )
    elif suffix:
        notes.append(f"The last character carries the end-of-word suffix {quoted(suffix)}.")
    unk = model.unk_token
    covered = [False] * len(word)
    for id, value, start, end in symbols:
        for k in range(start, end):
            covered[k] = True
        if unk is not None and value == unk and word[start:end] != unk:
            notes.append(f"{quoted(word[start:end])} is not in the vocabulary: it becomes the unknown token {unk}.")
    bytes_seen: dict[int, list[str]] = {}
    for id, value, start, end in symbols:
        if len(value) == 6 and value.startswith("<0x") and value.endswith(">") and model.byte_fallback:
            if start not in bytes_seen:
                bytes_seen[start] = []
            bytes_seen[start].append(value)
    for start, names in bytes_seen.items():
        notes.append(f"{quoted(word[start])} is not in the vocabulary: it is written as its UTF-8 bytes {' '.join(names)} (byte_fallback).")
    left_out: list[str] = []
    for k in range(len(word)):
        if not covered[k]:
            left_out.append(quoted(word[k]))
    if left_out:
        notes.append(
            f"{', '.join(left_out[:LISTED])} {'is' if len(left_out) == 1 else 'are'} not in the vocabulary and the "
            "model has no unknown token: left out, as HF does."
        )
    if model.dropout is not None and model.dropout > 0.0:
        notes.append(
            f"The model has dropout {model.dropout:g}, which skips merges at random; these steps are "
            "the encoding without it."
        )
    return notes


def _bpe_start(model: BPE, word: str, trace: BpeTrace) -> str:
    count = len(trace.symbols)
    text = (
        f"{quoted(word)} starts as its characters, one symbol each: {joined(trace.symbols)} "
        f"({count} symbol{'s' if count != 1 else ''}). "
    )
    if trace.notes:
        text += " ".join(trace.notes) + " "
    return text + (
        "Then the merges apply: of the neighbouring pairs that have one, the lowest rank first (the "
        "merge learned earliest), the leftmost first when ranks are equal, until no pair has a merge."
    )


def _merge_text(step: MergeStep) -> str:
    """The merge's sentence: "Merge 'e' + 's' → 'es' (rank 1): the lowest rank of the 3 pairs
    that have a merge ('e' + 's' rank 1, 'l' + 'o' rank 3, 's' + 't' rank 7)."."""
    text = f"Merge {quoted(step.left)} + {quoted(step.right)} → {quoted(step.made)} (rank {step.rank:,}): "
    if len(step.present) == 1:
        return text + "the only neighbouring pair that has a merge."
    ordered: list[tuple[int, int, str, str]] = []
    for position, rank, left, right in step.present:
        ordered.append((rank, position, left, right))
    ordered.sort()
    listed: list[str] = []
    same = 0
    for rank, position, left, right in ordered:
        if rank == step.rank:
            same += 1
        if len(listed) < LISTED:
            listed.append(f"{quoted(left)} + {quoted(right)} rank {rank:,}")
    more = f" and {len(ordered) - LISTED} more" if len(ordered) > LISTED else ""
    text += f"the lowest rank of the {len(ordered)} pairs that have a merge ({', '.join(listed)}{more})."
    if same > 1:
        text += " The pair occurs more than once: the leftmost goes first."
    return text


# -- the word under a cursor, and the stepper of its model -----------------------------------------


class WordAt:
    """The pre-tokenized word under a cursor: `word` as the model sees it (normalized and
    pre-tokenized: "Ġcats", "▁cats"), its span `start`..`end` in the original text, its index
    among the text's pieces and whether it is an added token (which the model never sees)."""

    word: str
    start: int
    end: int
    index: int
    added: bool

    def __init__(self, word: str, start: int, end: int, index: int, added: bool) -> None:
        self.word = word
        self.start = start
        self.end = end
        self.index = index
        self.added = added

    def __repr__(self) -> str:
        return f"WordAt({self.word!r}, {self.start}, {self.end}, index={self.index}, added={self.added})"


def word_at(tokenizer: Tokenizer, text: str, cursor: int) -> WordAt | None:
    """The piece of `text` the model gets at character `cursor`, with the tokenizer's own
    pipeline (added tokens cut out, normalized, pre-tokenized, as `encode` does); a cursor right
    after a word (on a space the pre-tokenizer drops) takes that word. None where there is none.

    BERT, "the cats", 5 -> WordAt("cats", 4, 8); GPT-2's byte level, 5 -> WordAt("Ġcats", 3, 8)
    """
    # subtle: the tokenizer's added vocabulary cuts its tokens out first; `encode` does the same
    pieces = pre_tokenized(text, tokenizer._added, tokenizer.normalizer, tokenizer.pre_tokenizer)
    splits = pieces.get_splits(ORIGINAL, CHAR)
    before = -1
    for index in range(len(splits)):
        piece, (start, end), tokens = splits[index]
        if start <= cursor < end:
            return WordAt(piece, start, end, index, tokens is not None)
        if end == cursor:
            before = index
    if before >= 0:
        piece, (start, end), tokens = splits[before]
        return WordAt(piece, start, end, before, tokens is not None)
    return None


Trace = WordPieceTrace | BpeTrace | UnigramTrace


def trace_word(
    model: Model, word: str, nbest: int = NBEST, alpha: float = ALPHA, seed: int = SEED, samples: int = SAMPLES
) -> Trace:
    """The steps `model` takes on `word` (a piece as the model gets it): WordPiece's lookups,
    BPE's merges or Unigram's lattice (with `nbest` best paths and `samples` segmentations drawn
    with `alpha` from `seed`). ValueError for another model or a word past MAX_WORD_CHARS."""
    if len(word) > MAX_WORD_CHARS:
        raise ValueError(f"the word has {len(word):,} characters: Step Through follows words of up to {MAX_WORD_CHARS}")
    if isinstance(model, WordPiece):
        return wordpiece_trace(model, word)
    if isinstance(model, BPE):
        return bpe_trace(model, word)
    if isinstance(model, Unigram):
        return unigram_trace(model, word, nbest, alpha, seed, samples)
    raise ValueError(f"Step Through follows BPE, WordPiece and Unigram; this model is {type(model).__name__}")
