"""The pair index shared by the merge-based training runs (BPE and WordPiece): the words as
symbol ids, every adjacent pair's count and the words it occurs in, and the merge of one pair
in every word that holds it, with the pair counts kept current (their first count, before any
merge, is `engine.models.bpe.pair_counting`'s).

`PairMergeRun` does all of that and records each merge; a subclass only decides which pair
goes next (`engine.models.bpe.training_run`: the most frequent, HF's queue; `engine.models.wordpiece.trainer`:
the highest likelihood score). `{"abab": 2}` -> pairs (a,b) 4, (b,a) 2; merging (a,b) -> "ab"
leaves ("ab","ab") 2.
"""

from __future__ import annotations

import gc
import time
from abc import abstractmethod

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.models.bpe.pair_table import PairCounts
from engine.models.bpe.pair_counting import DENSE_PAIRS_MAX_IDS, count_pairs_dense, count_pairs_sparse, empty_lists
from engine.models.bpe.training_words import TrainingWords, Vocabulary, initial_vocabulary, training_words
from engine.progress import (
    STAGE_COMPUTE_MERGES,
    STAGE_COUNT_PAIRS,
    ProgressSink,
    SilentProgress,
    report,
    report_every,
)
from engine.trainers.base import DEFAULT_VOCAB_SIZE, AlphabetNeed, TrainingRun
from engine.trainers.piece_rules import PieceRules
from engine.trainers.records import SCORE_COUNT, MergeStep, RoundStep, TrainHistory


class PairMergeRun(TrainingRun):
    """A training run that merges one adjacent pair at a time, over an index of pairs.

    Layout (DESIGN.md "engine: speed"): the words are `TrainingWords`, one flat vec in which a
    word is known by its offset, and the words a pair occurs in are a vec of offsets; a pair is
    one int (`left << shift | right`); pair counts live in a `PairCounts` table, without the
    pairs at 0. Subclasses keep their own
    queue, fed by `_index_pairs` (the initial pairs) and by `_gained_pairs`/`_gained_pos` after
    each `_merge` (the pairs a merge created, with the words they are in), and implement
    `_merge_next` (choose a pair and `_merge` it) and `_settle` (make the queue top current).
    """

    # options
    _vocab_size: int
    _min_frequency: int
    _prefix: str | None
    _suffix: str | None
    _end_of_word_symbol: bool  # the suffix a symbol of its own after the last char (l o w </w>)
    _max_length: int  # -1: no limit
    _special_tokens: list[str]
    _limit_alphabet: int | None
    _initial_alphabet: list[str]
    _rules: PieceRules | None  # which merged tokens a subclass may make (None: any)
    _hint: str  # another way out of a too-small vocabulary, when the options give one
    _word_counts: dict[str, int]  # read by `_prepare` only
    _consume: bool
    # vocabulary and words
    _prepared: bool
    _words_ready: bool  # the vocabulary and words made (`_prepare_words`), pairs perhaps not yet
    _finished: bool
    _vocab: Vocabulary
    _initial_size: int
    _alphabet_end: int  # the special tokens' and the alphabet's size, before the decorated characters
    _words: TrainingWords
    # pairs
    _shift: int
    _id_mask: int
    _pair_counts: PairCounts
    # per-merge accumulators, indexed by the id of a neighbour of the merged pair (the counts in
    # vecs: unboxed, so adding to one allocates nothing)
    _left_lost: vec[i64]
    _left_gain: vec[i64]
    _left_pos: vec[vec[i64]]
    _left_seen: list[int]
    _right_lost: vec[i64]
    _right_gain: vec[i64]
    _right_pos: vec[vec[i64]]
    _right_seen: list[int]
    # what the last merge created: pairs gained (with the words they are in), occurrences merged
    _gained_pairs: list[int]
    _gained_pos: vec[vec[i64]]
    _merged_occurrences: int
    # what was merged
    _merge_left: list[int]
    _merge_right: list[int]
    _merge_new: list[int]
    _hist_counts: list[int]
    _hist_words: list[int]
    _hist_sizes: list[int]
    _hist_seconds: list[float]
    # what chose each merge where it is not the count (WordPiece): the score, the symbols' counts
    _hist_scores: list[float]
    _hist_left_counts: list[int]
    _hist_right_counts: list[int]
    _started: float
    # the offsets of the most frequent words, for `segmentations` (sorted once, on first use)
    _frequent: vec[i64]

    def __init__(
        self,
        word_counts: dict[str, int],
        vocab_size: int = DEFAULT_VOCAB_SIZE,
        min_frequency: int = 0,
        special_tokens: list[str] | None = None,
        limit_alphabet: int | None = None,
        initial_alphabet: list[str] | None = None,
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        max_token_length: int | None = None,
        rules: PieceRules | None = None,
        hint: str = "",
        end_of_word_symbol: bool = False,
    ) -> None:
        """Usually made by a trainer's `start`; the options mean what the trainer's do. `rules`:
        the tokens a merge may make (sentencepiece's trainer), `hint` a way out of a vocabulary
        too small for the alphabet ("": the one limit_alphabet gives)."""
        self._vocab_size = vocab_size
        self._min_frequency = min_frequency
        self._prefix = continuing_subword_prefix
        self._suffix = end_of_word_suffix
        if end_of_word_symbol and not end_of_word_suffix:
            raise ValueError("end_of_word_symbol needs an end_of_word_suffix (the symbol it adds, such as `</w>`)")
        self._end_of_word_symbol = end_of_word_symbol
        self._max_length = -1 if max_token_length is None else max_token_length
        self._special_tokens = list(special_tokens) if special_tokens is not None else []
        self._limit_alphabet = limit_alphabet
        self._initial_alphabet = list(initial_alphabet) if initial_alphabet is not None else []
        self._rules = rules
        self._hint = hint
        self._word_counts = word_counts
        self._consume = False
        self._prepared = False
        self._words_ready = False
        self._finished = False
        self._vocab = Vocabulary()
        self._initial_size = 0
        self._alphabet_end = 0
        self._words = _no_words()
        self._shift = 0
        self._id_mask = 0
        self._pair_counts = PairCounts()
        self._left_lost = vec[i64]()
        self._left_gain = vec[i64]()
        self._left_pos = vec[vec[i64]]()
        self._left_seen = []
        self._right_lost = vec[i64]()
        self._right_gain = vec[i64]()
        self._right_pos = vec[vec[i64]]()
        self._right_seen = []
        self._gained_pairs = []
        self._gained_pos = vec[vec[i64]]()
        self._merged_occurrences = 0
        self._merge_left = []
        self._merge_right = []
        self._merge_new = []
        self._hist_counts = []
        self._hist_words = []
        self._hist_sizes = []
        self._hist_seconds = []
        self._hist_scores = []
        self._hist_left_counts = []
        self._hist_right_counts = []
        self._started = time.perf_counter()
        self._frequent = vec[i64]()
        self._clear_queue()

    # -- what a subclass decides ---------------------------------------------------------------

    @abstractmethod
    def _index_pairs(self, pairs: list[int], counts: list[int], positions: vec[vec[i64]]) -> None:
        """Queue the initial pairs (`_pair_counts` already holds their counts)."""

    @abstractmethod
    def _merge_next(self) -> bool:
        """Choose the next pair and `_merge` it; False (and `_finished`) when training stops."""

    @abstractmethod
    def _settle(self) -> None:
        """Bring the queue's top up to date; set `_finished` when the next step would stop."""

    @abstractmethod
    def _clear_queue(self) -> None:
        """Drop the subclass's queue (a cancelled preparation, or `release`)."""

    @abstractmethod
    def _algorithm(self) -> str:
        """The model the run trains, for its history ("BPE", "WordPiece")."""

    def _score_name(self) -> str:
        """What ranks the merges, for the history's plots (`TrainHistory.score_name`)."""
        return SCORE_COUNT

    # -- what the run has made so far ----------------------------------------------------

    @property
    def vocab(self) -> dict[str, int]:
        """token -> id: special tokens, the alphabet in code-point order, then merged tokens."""
        self._prepare(SilentProgress())
        return dict(self._vocab.token_to_id)

    @property
    def merges(self) -> list[tuple[str, str]]:
        """Every merge made, in order (a pair HF merges twice appears twice here)."""
        tokens = self._vocab.id_to_token
        lefts = self._merge_left
        rights = self._merge_right
        return [(tokens[lefts[i]], tokens[rights[i]]) for i in range(len(lefts))]

    def model_merges(self) -> list[tuple[str, str]]:
        """The merges as HF's model keeps them: a pair merged twice keeps only its last rank."""
        pairs = self._merge_left
        rights = self._merge_right
        shift = self._shift
        last: dict[int, int] = {}
        for i in range(len(pairs)):
            last[(pairs[i] << shift) | rights[i]] = i
        tokens = self._vocab.id_to_token
        result: list[tuple[str, str]] = []
        for i in range(len(pairs)):
            if last[(pairs[i] << shift) | rights[i]] == i:
                result.append((tokens[pairs[i]], tokens[rights[i]]))
        return result

    @property
    def history(self) -> TrainHistory:
        merges: list[MergeStep] = []
        for index in range(len(self._merge_new)):
            merges.append(self._merge_step(index))
        return TrainHistory(self._algorithm(), self._score_name(), merges=merges)

    def steps_since(self, start: int) -> list[MergeStep | RoundStep]:
        steps: list[MergeStep | RoundStep] = []
        for index in range(max(start, 0), len(self._merge_new)):
            steps.append(self._merge_step(index))
        return steps

    @property
    def merge_count(self) -> int:
        return len(self._merge_new)

    @property
    def initial_vocab_size(self) -> int:
        """Special tokens + alphabet (+ prefixed/suffixed characters): the size before any merge."""
        self._prepare(SilentProgress())
        return self._initial_size

    @property
    def done(self) -> bool:
        """True when `step()` would merge nothing more."""
        if not self._finished:
            self._prepare(SilentProgress())
            self._settle()
        return self._finished

    def release(self) -> None:
        """Drop the words, pair counts and queue (the run is over); vocab and merges stay."""
        self._finished = True
        self._word_counts = {}
        self._words = _no_words()
        self._pair_counts = PairCounts()
        self._clear_queue()
        self._left_pos = vec[vec[i64]]()
        self._right_pos = vec[vec[i64]]()
        self._gained_pos = vec[vec[i64]]()
        self._frequent = vec[i64]()

    # -- driving ---------------------------------------------------------------------------

    def step(self) -> MergeStep | None:
        """Perform the next merge and describe it, or return None when training is over."""
        self._prepare(SilentProgress())
        if self._finished:
            return None
        enabled = gc.isenabled()
        gc.disable()
        try:
            merged = self._merge_next()
        finally:
            if enabled:
                gc.enable()
        if not merged:
            return None
        return self._merge_step(len(self._merge_new) - 1)

    def run_to_end(self, sink: ProgressSink | None = None) -> None:
        """Merge to the end, reporting about every 1% of merges; raises TrainingCancelled."""
        if sink is None:
            sink = SilentProgress()
        self._prepare(sink)
        expected = self._vocab_size - self._initial_size
        if expected < 1:
            expected = 1
        every = report_every(expected)
        report(sink, STAGE_COMPUTE_MERGES, len(self._merge_new), expected, "merges")
        enabled = gc.isenabled()
        gc.disable()
        try:
            while not self._finished:
                target = len(self._merge_new) + every
                while len(self._merge_new) < target and self._merge_next():
                    pass
                done = len(self._merge_new)
                total = done if self._finished or done > expected else expected
                detail = self._vocab.id_to_token[self._merge_new[done - 1]] if done > 0 else ""
                report(sink, STAGE_COMPUTE_MERGES, done, total, "merges", detail)
        finally:
            if enabled:
                gc.enable()

    def segmentations(self, k: int) -> list[tuple[list[str], int]]:
        """The `k` most frequent words (of two symbols or more) as their current tokens.

        {"hug": 10, "pug": 5} after merging (u, g) -> [(["h", "ug"], 10), (["p", "ug"], 5)]
        """
        self._prepare(SilentProgress())
        words = self._words
        if len(self._frequent) < min(k, len(words)):
            ranked = [(-int(words.count(o)), int(o)) for o in words.offsets]
            ranked.sort()
            self._frequent = vec[i64]([o for _, o in ranked[: max(k, 256)]])
        tokens = self._vocab.id_to_token
        result: list[tuple[list[str], int]] = []
        for o in self._frequent[: max(k, 0)]:
            result.append(([tokens[symbol] for symbol in words.symbols(o)], int(words.count(o))))
        return result

    # -- preparation: HF's steps 1-4 ------------------------------------------------------

    def _prepare(self, sink: ProgressSink) -> None:
        if self._prepared:
            return
        self._started = time.perf_counter()
        enabled = gc.isenabled()
        gc.disable()
        try:
            # (a cancelled preparation starts again from the words, or from nothing)
            self._pair_counts = PairCounts()
            self._clear_queue()
            self._prepare_words(sink)
            # Every id the run can make fits in `shift` bits (new ids stop at vocab_size).
            self._shift = max(self._initial_size, self._vocab_size).bit_length()
            self._id_mask = (1 << self._shift) - 1
            id_space = 1 << self._shift
            self._left_lost = vec[i64]([0] * id_space)
            self._left_gain = vec[i64]([0] * id_space)
            self._left_pos = empty_lists(id_space)
            self._right_lost = vec[i64]([0] * id_space)
            self._right_gain = vec[i64]([0] * id_space)
            self._right_pos = empty_lists(id_space)
            self._count_pairs(sink)
        finally:
            if enabled:
                gc.enable()
        self._prepared = True
        # The words live on as symbol strings: the counts (their strings) are not needed again.
        if self._consume:
            self._word_counts.clear()
        self._word_counts = {}

    def _prepare_words(self, sink: ProgressSink) -> None:
        """HF's steps 1-3: the initial vocabulary (special tokens, alphabet, decorated
        characters) and the words as symbol ids; once (`alphabet_need` may come first)."""
        if self._words_ready:
            return
        enabled = gc.isenabled()
        gc.disable()
        try:
            limited = self._limit_alphabet is not None
            vocab = initial_vocabulary(
                self._word_counts, self._special_tokens, self._limit_alphabet, self._initial_alphabet
            )
            alphabet_end = len(vocab)
            if self._end_of_word_symbol and self._suffix:
                # the end-of-word symbol is one more initial symbol, right after the alphabet
                vocab.add(self._suffix)
            self._words = training_words(
                self._word_counts,
                vocab,
                self._prefix,
                self._suffix,
                limited,
                self._max_length >= 0,
                sink,
                self._end_of_word_symbol,
            )
            self._vocab = vocab
            self._initial_size = len(vocab)
            self._alphabet_end = alphabet_end
            self._words_ready = True
        finally:
            if enabled:
                gc.enable()

    def alphabet_need(self, sink: ProgressSink | None = None) -> AlphabetNeed:
        """The special tokens, the alphabet kept and the decorated characters the words need
        (`initial_vocab_size` of them). {"ab": 1, "b": 1} with ["[UNK]"] and the prefix "##":
        2 characters + 1 continuing form (##b) + 1 special token."""
        self._prepare_words(sink if sink is not None else SilentProgress())
        special = len(dict.fromkeys(self._special_tokens))
        prefix = self._prefix or ""
        suffix = self._suffix or ""
        if self._end_of_word_symbol and suffix:
            forms = f"continuing forms ({prefix}x) and end-of-word symbol ({suffix})" if prefix else f"end-of-word symbol ({suffix})"
        elif prefix and suffix:
            forms = f"continuing and end-of-word forms ({prefix}x, x{suffix})"
        elif suffix:
            forms = f"end-of-word forms (x{suffix})"
        else:
            forms = f"continuing forms ({prefix}x)"
        if self._hint:
            hint = self._hint
        elif self._initial_alphabet:
            hint = ""  # (kept whatever the limit: what it is for)
        elif self._limit_alphabet is not None:
            hint = "lower limit_alphabet"
        else:
            hint = "keep fewer characters with limit_alphabet"
        return AlphabetNeed(self._alphabet_end - special, special, self._initial_size - self._alphabet_end, forms, hint)

    def consume_counts(self) -> None:
        self._consume = True

    def _count_pairs(self, sink: ProgressSink) -> None:
        """Count every adjacent pair with the words it occurs in (HF's step 4), and hand them
        to the subclass's queue.

        Before any merge every symbol id is below `initial_size`, so with a small alphabet the
        counts go to lists indexed by `left * initial_size + right` instead of a dict.
        """
        words = self._words
        total = len(words)
        report(sink, STAGE_COUNT_PAIRS, 0, total, "words")
        size = self._initial_size
        if size <= DENSE_PAIRS_MAX_IDS:
            pairs, counts, positions = count_pairs_dense(words, size, self._shift, sink)
        else:
            pairs, counts, positions = count_pairs_sparse(words, self._shift, sink)
        pair_counts = PairCounts(len(pairs))
        for i in range(len(pairs)):
            pair_counts.set(pairs[i], counts[i])
        self._pair_counts = pair_counts
        self._index_pairs(pairs, counts, positions)
        report(sink, STAGE_COUNT_PAIRS, total, total, "words")

    # -- one merge ----------------------------------------------------------------------------

    def _merge(self, left: int, right: int, count: int, positions: vec[i64]) -> None:
        """Merge (left, right) in the words at `positions` and record it; the pairs it created
        are then in `_gained_pairs`/`_gained_pos` for the subclass to queue."""
        part_b = self._vocab.id_to_token[right]
        prefix = self._prefix
        if prefix is not None and part_b.startswith(prefix):
            part_b = part_b[len(prefix) :]
        new_id = self._vocab.add(self._vocab.id_to_token[left] + part_b)
        self._merge_left.append(left)
        self._merge_right.append(right)
        self._merge_new.append(new_id)
        touched = self._merge_words(left, right, new_id, positions)
        self._apply_changes(left, right, new_id)
        self._hist_counts.append(count)
        self._hist_words.append(touched)
        self._hist_sizes.append(len(self._vocab))
        self._hist_seconds.append(time.perf_counter() - self._started)

    def _merge_words(self, a: i64, b: i64, new_id: i64, positions: vec[i64]) -> int:
        """HF `Word::merge` on the word at each offset; returns how many words changed, and
        leaves the number of occurrences merged (weighted by word count) in `_merged_occurrences`.

        Merging (a, b) -> n in `x a b y`: (x, a) and (b, y) lose the word's count; (x, n) and
        (n, y) gain it unless max_token_length forbids, and the word is queued under them.
        Occurrences are merged left to right without overlap, the word shortened in place.
        Changes are summed per neighbour id (vecs indexed by id: no hashing per occurrence)
        and reach the pair counts once per distinct neighbour, in `_apply_changes`.
        """
        limit: i64 = self._max_length
        limited = limit >= 0
        flat = self._words.flat
        sizes = self._words.sizes
        left_lost = self._left_lost
        left_gain = self._left_gain
        left_pos = self._left_pos
        left_seen = self._left_seen
        right_lost = self._right_lost
        right_gain = self._right_gain
        right_pos = self._right_pos
        right_seen = self._right_seen
        touched = 0
        occurrences: i64 = 0
        for o in positions:
            start = o + 2
            last = start + flat[o] - 1  # the index of the word's last symbol
            i = start
            while i < last and (flat[i] != a or flat[i + 1] != b):
                i += 1
            if i >= last:
                continue  # (merged away by an earlier merge: positions are never pruned)
            touched += 1
            count = flat[o + 1]
            out = i  # where the next symbol of the merged word goes
            merged: i64 = 0
            while i <= last:
                if i == last or flat[i] != a or flat[i + 1] != b:
                    flat[out] = flat[i]
                    if limited:
                        sizes[out] = sizes[i]
                    out += 1
                    i += 1
                    continue
                new_len: i64 = 0
                if limited:
                    new_len = sizes[i] + sizes[i + 1]
                if out > start:
                    # The merged word so far ends with the left neighbour (the new symbol when
                    # an occurrence was merged right before this one).
                    x = flat[out - 1]
                    if left_lost[x] == 0 and len(left_pos[x]) == 0:
                        left_seen.append(x)
                    left_lost[x] += count
                    if not limited or sizes[out - 1] + new_len < limit:
                        if limited:
                            left_gain[x] += count  # (unlimited, the gain is the loss)
                        found = left_pos[x]
                        if len(found) == 0 or found[len(found) - 1] != o:
                            left_pos[x] = append(found, o)
                if i + 2 <= last:
                    # subtle: HF reports the ORIGINAL right neighbour, even when it starts the
                    # next occurrence ("a b a b": (b, a) lost, (n, a) gained, then (n, a) lost).
                    y = flat[i + 2]
                    if right_lost[y] == 0 and len(right_pos[y]) == 0:
                        right_seen.append(y)
                    right_lost[y] += count
                    if not limited or sizes[i + 2] + new_len < limit:
                        if limited:
                            right_gain[y] += count
                        found = right_pos[y]
                        if len(found) == 0 or found[len(found) - 1] != o:
                            right_pos[y] = append(found, o)
                flat[out] = new_id
                if limited:
                    sizes[out] = new_len
                out += 1
                i += 2
                merged += 1
            flat[o] = out - start
            occurrences += count * merged
        self._merged_occurrences = occurrences
        return touched

    def _apply_changes(self, a: int, b: int, new_id: int) -> None:
        """Add the summed changes to the pair counts and list the gaining pairs in
        `_gained_pairs`/`_gained_pos` (HF queues `where_to_update` only after all changes are in)."""
        pair_counts = self._pair_counts
        shift = self._shift
        limited = self._max_length >= 0
        gained_pairs: list[int] = []
        gained_pos = vec[vec[i64]]()
        left_lost = self._left_lost
        left_gain = self._left_gain
        left_pos = self._left_pos
        for x in self._left_seen:
            lost = (x << shift) | a
            # (a pair no word holds is forgotten: a third of them by the end of a run)
            pair_counts.add(lost, -left_lost[x])
            found = left_pos[x]
            if len(found) > 0:
                made = (x << shift) | new_id
                pair_counts.add(made, left_gain[x] if limited else left_lost[x])
                gained_pairs.append(made)
                gained_pos = append(gained_pos, found)
                left_pos[x] = vec[i64]()
            left_lost[x] = 0
            left_gain[x] = 0
        right_lost = self._right_lost
        right_gain = self._right_gain
        right_pos = self._right_pos
        for y in self._right_seen:
            lost = (b << shift) | y
            pair_counts.add(lost, -right_lost[y])
            found = right_pos[y]
            if len(found) > 0:
                made = (new_id << shift) | y
                pair_counts.add(made, right_gain[y] if limited else right_lost[y])
                if y == new_id and made in gained_pairs:
                    # subtle: (n, n) gained on both sides is ONE `where_to_update` entry in HF.
                    both = gained_pairs.index(made)
                    gained_pos[both] = vec[i64](dict.fromkeys(list(gained_pos[both]) + list(found)))
                else:
                    gained_pairs.append(made)
                    gained_pos = append(gained_pos, found)
                right_pos[y] = vec[i64]()
            right_lost[y] = 0
            right_gain[y] = 0
        del self._left_seen[:]
        del self._right_seen[:]
        self._gained_pairs = gained_pairs
        self._gained_pos = gained_pos

    def _merge_step(self, index: int) -> MergeStep:
        """The record of merge number `index` (with its score where a score chose it)."""
        tokens = self._vocab.id_to_token
        new_id = self._merge_new[index]
        scored = index < len(self._hist_scores)
        return MergeStep(
            index=index,
            left=tokens[self._merge_left[index]],
            right=tokens[self._merge_right[index]],
            new_token=tokens[new_id],
            new_id=new_id,
            count=self._hist_counts[index],
            vocab_size=self._hist_sizes[index],
            words_touched=self._hist_words[index],
            score=self._hist_scores[index] if scored else None,
            left_count=self._hist_left_counts[index] if scored else None,
            right_count=self._hist_right_counts[index] if scored else None,
            seconds=self._hist_seconds[index],
        )


def _no_words() -> TrainingWords:
    return TrainingWords(vec[i64](), vec[i64](), vec[i64]())
