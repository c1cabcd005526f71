"""The BPE merge loop: `BpeTrainingRun`, HF's `BpeTrainer::do_train` as a run that can be stepped.

Count pairs, queue them, merge the best one, update only the words that held it. Reproduces HF
`tokenizers` 0.23 merge for merge. Options and the Trainer API are `engine.bpe.trainer`'s.
"""

from __future__ import annotations

import gc
import heapq
import time
from typing import Final

from engine.bpe.training_words import TrainingWord, Vocabulary, initial_vocabulary, training_words
from engine.progress import (
    STAGE_COMPUTE_MERGES,
    STAGE_COUNT_PAIRS,
    ProgressSink,
    SilentProgress,
    report,
    report_every,
)
from engine.trainers.base import DEFAULT_VOCAB_SIZE, TrainingRun
from engine.trainers.records import MergeStep, PairCandidate, RoundStep, TrainHistory

# HF keeps a queue entry's count as u64 and casts the i32 pair count to it (`count as u64`).
_U64: Final = 1 << 64


class BpeTrainingRun(TrainingRun):
    """One BPE training, advanced one merge at a time (`step`) or to the end (`run_to_end`).

    Layout (DESIGN.md "engine: speed"): a word is a `str` whose characters are symbol ids, so
    finding a pair is `str.find` and merging it `str.replace`; a pair is one int
    (`left << shift | right`); pair counts live in `dict[int, int]`; the queue is a heap of int
    keys (count descending, then pair ids ascending: HF's `Merge` order) with lazy invalidation.
    Like HF, each queue entry carries its own list of word positions, so a pair can be queued
    twice (HF then merges it twice, and so do we).
    """

    # options
    _vocab_size: int
    _min_frequency: int
    _prefix: str | None
    _suffix: str | None
    _max_length: int  # -1: no limit
    _special_tokens: list[str]
    _limit_alphabet: int | None
    _initial_alphabet: list[str]
    _word_counts: dict[str, int]
    # vocabulary and words
    _prepared: bool
    _finished: bool
    _vocab: Vocabulary
    _initial_size: int
    _words: list[TrainingWord]
    # pairs and the queue
    _shift: int
    _id_mask: int
    _key_shift: int
    _pair_mask: int
    _pair_counts: dict[int, int]
    _heap: list[int]
    _entry_pos: dict[int, list[TrainingWord]]
    _extra_pos: dict[int, list[list[TrainingWord]]]
    # per-merge accumulators, indexed by the id of a neighbour of the merged pair
    _left_lost: list[int]
    _left_gain: list[int]
    _left_pos: list[list[TrainingWord]]
    _left_seen: list[int]
    _right_lost: list[int]
    _right_gain: list[int]
    _right_pos: list[list[TrainingWord]]
    _right_seen: list[int]
    _empty: list[TrainingWord]
    # what was merged
    _merge_left: list[int]
    _merge_right: list[int]
    _merge_new: list[int]
    _hist_counts: list[int]
    _hist_words: list[int]
    _hist_sizes: list[int]
    _hist_seconds: list[float]
    _started: float
    # the most frequent words, for `segmentations` (sorted once, on first use)
    _frequent: list[TrainingWord]

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
    ) -> None:
        """Usually made by `BpeTrainer.start`; the options mean what the trainer's do."""
        self._vocab_size = vocab_size
        self._min_frequency = min_frequency
        self._prefix = continuing_subword_prefix
        self._suffix = end_of_word_suffix
        self._max_length = -1 if max_token_length is None else max_token_length
        self._special_tokens = list(special_tokens) if special_tokens is not None else []
        self._limit_alphabet = limit_alphabet
        self._initial_alphabet = list(initial_alphabet) if initial_alphabet is not None else []
        self._word_counts = word_counts
        self._prepared = False
        self._finished = False
        self._vocab = Vocabulary()
        self._initial_size = 0
        self._words = []
        self._shift = 0
        self._id_mask = 0
        self._key_shift = 0
        self._pair_mask = 0
        self._pair_counts = {}
        self._heap = []
        self._entry_pos = {}
        self._extra_pos = {}
        self._left_lost = []
        self._left_gain = []
        self._left_pos = []
        self._left_seen = []
        self._right_lost = []
        self._right_gain = []
        self._right_pos = []
        self._right_seen = []
        self._empty = []
        self._merge_left = []
        self._merge_right = []
        self._merge_new = []
        self._hist_counts = []
        self._hist_words = []
        self._hist_sizes = []
        self._hist_seconds = []
        self._started = time.perf_counter()
        self._frequent = []

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
        return TrainHistory("BPE", merges=merges)

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
        self._words = []
        self._pair_counts = {}
        self._heap = []
        self._entry_pos = {}
        self._extra_pos = {}
        self._left_pos = []
        self._right_pos = []
        self._frequent = []

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

    def top_candidates(self, k: int) -> list[PairCandidate]:
        """The `k` pairs leading the queue: current count descending, then pair ids ascending.

        Unless the run is done, the first one is exactly what the next `step()` merges.
        """
        self._prepare(SilentProgress())
        if not self._finished:
            self._settle()
        pair_mask = self._pair_mask
        pair_counts = self._pair_counts
        best: dict[int, int] = {}
        for key in self._heap:
            pair = key & pair_mask
            count = pair_counts[pair]
            if count > 0:
                best[pair] = count
        ranked = [(-count, pair) for pair, count in best.items()]
        ranked.sort()
        if not self._finished and self._heap:
            # subtle: the settled queue top is what `step` merges, even in HF's rare case where
            # another pair's count grew past the count it was queued with.
            top = self._heap[0] & pair_mask
            ranked = [(-pair_counts[top], top)] + [item for item in ranked if item[1] != top]
        tokens = self._vocab.id_to_token
        result: list[PairCandidate] = []
        for neg_count, pair in ranked[: max(k, 0)]:
            result.append(PairCandidate(tokens[pair >> self._shift], tokens[pair & self._id_mask], -neg_count))
        return result

    def segmentations(self, k: int) -> list[tuple[list[str], int]]:
        """The `k` most frequent words (of two characters or more) as their current tokens.

        {"hug": 10, "pug": 5} after merging (u, g) -> [(["h", "ug"], 10), (["p", "ug"], 5)]
        """
        self._prepare(SilentProgress())
        if len(self._frequent) < min(k, len(self._words)):
            ranked = [(-self._words[i].count, i) for i in range(len(self._words))]
            ranked.sort()
            self._frequent = [self._words[i] for _, i in ranked[: max(k, 256)]]
        tokens = self._vocab.id_to_token
        result: list[tuple[list[str], int]] = []
        for word in self._frequent[: max(k, 0)]:
            result.append(([tokens[ord(symbol)] for symbol in word.symbols], word.count))
        return result

    # -- preparation: HF's steps 1-4 ------------------------------------------------------

    def _prepare(self, sink: ProgressSink) -> None:
        if self._prepared:
            return
        self._started = time.perf_counter()
        enabled = gc.isenabled()
        gc.disable()
        try:
            # (a cancelled preparation starts again from nothing)
            self._pair_counts = {}
            self._heap = []
            self._entry_pos = {}
            self._extra_pos = {}
            limited = self._limit_alphabet is not None
            vocab = initial_vocabulary(
                self._word_counts, self._special_tokens, self._limit_alphabet, self._initial_alphabet
            )
            self._words = training_words(
                self._word_counts, vocab, self._prefix, self._suffix, limited, self._max_length >= 0, sink
            )
            self._vocab = vocab
            self._initial_size = len(vocab)
            # Every id the run can make fits in `shift` bits (new ids stop at vocab_size).
            self._shift = max(self._initial_size, self._vocab_size).bit_length()
            self._id_mask = (1 << self._shift) - 1
            self._key_shift = 2 * self._shift
            self._pair_mask = (1 << self._key_shift) - 1
            id_space = 1 << self._shift
            self._left_lost = [0] * id_space
            self._left_gain = [0] * id_space
            self._left_pos = [self._empty] * id_space
            self._right_lost = [0] * id_space
            self._right_gain = [0] * id_space
            self._right_pos = [self._empty] * id_space
            self._count_pairs(sink)
        finally:
            if enabled:
                gc.enable()
        self._prepared = True

    def _count_pairs(self, sink: ProgressSink) -> None:
        """Count every adjacent pair and queue each with the words it occurs in (HF's step 4).

        Before any merge every symbol id is below `initial_size`, so with a small alphabet the
        counts go to lists indexed by `left * initial_size + right` instead of a dict.
        """
        words = self._words
        total = len(words)
        report(sink, STAGE_COUNT_PAIRS, 0, total, "words")
        size = self._initial_size
        if size <= _DENSE_PAIRS_MAX_IDS:
            pairs, counts, positions = _count_pairs_dense(words, size, self._shift, sink)
        else:
            pairs, counts, positions = _count_pairs_sparse(words, self._shift, sink)
        key_shift = self._key_shift
        pair_counts = self._pair_counts
        heap = self._heap
        entry_pos = self._entry_pos
        for i in range(len(pairs)):
            pair = pairs[i]
            count = counts[i]
            pair_counts[pair] = count
            if count > 0:
                key = (-count << key_shift) | pair
                heap.append(key)
                entry_pos[key] = positions[i]
        heapq.heapify(heap)
        report(sink, STAGE_COUNT_PAIRS, total, total, "words")

    # -- the merge loop: HF's step 5 ------------------------------------------------------

    def _push(self, count: int, pair: int, positions: list[TrainingWord]) -> None:
        key = (-count << self._key_shift) | pair
        if key in self._entry_pos:
            # The same pair queued again with the same count: both entries stay, as in HF. Only
            # a merge that re-creates an existing token (prefix/suffix symbols, special tokens)
            # does this; which of the two HF pops first then varies from run to run.
            extra = self._extra_pos.get(key)
            if extra is None:
                self._extra_pos[key] = [positions]
            else:
                extra.append(positions)
        else:
            self._entry_pos[key] = positions
        heapq.heappush(self._heap, key)

    def _take(self, key: int) -> list[TrainingWord]:
        """The positions of one queue entry with this key, just popped from the heap.

        subtle: entries with equal keys leave in the order they came (HF's d-ary heap mostly
        does the same, but its order also depends on hash-map iteration: see `_push`).
        """
        positions = self._entry_pos.pop(key)
        if self._extra_pos:
            extra = self._extra_pos.get(key)
            if extra is not None:
                self._entry_pos[key] = extra.pop(0)
                if not extra:
                    del self._extra_pos[key]
        return positions

    def _current(self, pair: int) -> int:
        count = self._pair_counts[pair]
        return count if count >= 0 else count + _U64

    def _settle(self) -> None:
        """Re-queue stale entries until the top one is valid, exactly as HF's next pops would,
        and mark the run finished when the next step would stop."""
        heap = self._heap
        while True:
            if len(self._vocab) >= self._vocab_size or not heap:
                self._finished = True
                return
            key = heap[0]
            pair = key & self._pair_mask
            count = -(key >> self._key_shift)
            current = self._current(pair)
            if count == current:
                if count < 1 or self._min_frequency > count:
                    self._finished = True
                return
            heapq.heappop(heap)
            self._push(current, pair, self._take(key))

    def _merge_next(self) -> bool:
        """HF's merge loop until one merge is made; False (and finished) when it stops instead."""
        heap = self._heap
        key_shift = self._key_shift
        pair_mask = self._pair_mask
        while True:
            if len(self._vocab) >= self._vocab_size or not heap:
                self._finished = True
                return False
            key = heapq.heappop(heap)
            positions = self._take(key)
            pair = key & pair_mask
            count = -(key >> key_shift)
            current = self._current(pair)
            if count != current:
                self._push(current, pair, positions)
                continue
            if count < 1 or self._min_frequency > count:
                self._finished = True
                return False
            left = pair >> self._shift
            right = pair & self._id_mask
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
            return True

    def _merge_words(self, a: int, b: int, new_id: int, positions: list[TrainingWord]) -> int:
        """HF `Word::merge` on each listed word; returns how many words changed.

        Merging (a, b) -> n in `x a b y`: (x, a) and (b, y) lose the word's count; (x, n) and
        (n, y) gain it unless max_token_length forbids, and the word is queued under them.
        Changes are summed per neighbour id (lists indexed by id: no hashing per occurrence)
        and reach the pair counts once per distinct neighbour, in `_apply_changes`.
        """
        limit = self._max_length
        limited = limit >= 0
        pattern = chr(a) + chr(b)
        replacement = chr(new_id)
        left_lost = self._left_lost
        left_gain = self._left_gain
        left_pos = self._left_pos
        left_seen = self._left_seen
        right_lost = self._right_lost
        right_gain = self._right_gain
        right_pos = self._right_pos
        right_seen = self._right_seen
        touched = 0
        for item in positions:
            word = item.symbols
            at = word.find(pattern)
            if at < 0:
                continue
            touched += 1
            count = item.count
            sizes = item.sizes
            end = len(word)
            previous_end = -1
            merged = 0
            while at >= 0:
                # `at` indexes the word before this merge; `j` the same symbol in HF's updated
                # word, where the `merged` earlier occurrences already became one symbol each.
                j = at - merged
                new_len = 0
                if limited:
                    new_len = sizes[j] + sizes[j + 1]
                    sizes[j] = new_len
                    sizes.pop(j + 1)
                if at > 0:
                    # subtle: right after an earlier occurrence, the left neighbour is the new symbol.
                    x = new_id if at == previous_end else ord(word[at - 1])
                    if left_lost[x] == 0 and len(left_pos[x]) == 0:
                        left_seen.append(x)
                    left_lost[x] += count
                    if not limited or sizes[j - 1] + new_len < limit:
                        left_gain[x] += count
                        found = left_pos[x]
                        if len(found) == 0:
                            left_pos[x] = [item]
                        elif found[len(found) - 1] is not item:
                            found.append(item)
                if at + 2 < end:
                    # subtle: HF reports the ORIGINAL right neighbour, even when it starts the
                    # next occurrence ("a b a b": (b, a) lost, (n, a) gained, then (n, a) lost).
                    y = ord(word[at + 2])
                    if right_lost[y] == 0 and len(right_pos[y]) == 0:
                        right_seen.append(y)
                    right_lost[y] += count
                    if not limited or sizes[j + 1] + new_len < limit:
                        right_gain[y] += count
                        found = right_pos[y]
                        if len(found) == 0:
                            right_pos[y] = [item]
                        elif found[len(found) - 1] is not item:
                            found.append(item)
                previous_end = at + 2
                merged += 1
                at = word.find(pattern, at + 2)
            item.symbols = word.replace(pattern, replacement)
        return touched

    def _apply_changes(self, a: int, b: int, new_id: int) -> None:
        """Add the summed changes to the pair counts, then queue each gaining pair whose count is
        positive (HF pushes `where_to_update` only after all changes are in)."""
        pair_counts = self._pair_counts
        shift = self._shift
        empty = self._empty
        gained_pairs: list[int] = []
        gained_pos: list[list[TrainingWord]] = []
        left_lost = self._left_lost
        left_gain = self._left_gain
        left_pos = self._left_pos
        for x in self._left_seen:
            lost = (x << shift) | a
            pair_counts[lost] = pair_counts.get(lost, 0) - left_lost[x]
            found = left_pos[x]
            if len(found) > 0:
                made = (x << shift) | new_id
                pair_counts[made] = pair_counts.get(made, 0) + left_gain[x]
                gained_pairs.append(made)
                gained_pos.append(found)
                left_pos[x] = empty
            left_lost[x] = 0
            left_gain[x] = 0
        right_lost = self._right_lost
        right_gain = self._right_gain
        right_pos = self._right_pos
        for y in self._right_seen:
            lost = (b << shift) | y
            pair_counts[lost] = pair_counts.get(lost, 0) - right_lost[y]
            found = right_pos[y]
            if len(found) > 0:
                made = (new_id << shift) | y
                pair_counts[made] = pair_counts.get(made, 0) + right_gain[y]
                if y == new_id and made in gained_pairs:
                    # subtle: (n, n) gained on both sides is ONE `where_to_update` entry in HF.
                    both = gained_pairs.index(made)
                    gained_pos[both] = list(dict.fromkeys(gained_pos[both] + found))
                else:
                    gained_pairs.append(made)
                    gained_pos.append(found)
                right_pos[y] = empty
            right_lost[y] = 0
            right_gain[y] = 0
        del self._left_seen[:]
        del self._right_seen[:]
        for i in range(len(gained_pairs)):
            pair = gained_pairs[i]
            count = pair_counts[pair]
            if count > 0:
                self._push(count, pair, gained_pos[i])

    def _merge_step(self, index: int) -> MergeStep:
        tokens = self._vocab.id_to_token
        new_id = self._merge_new[index]
        return MergeStep(
            index=index,
            left=tokens[self._merge_left[index]],
            right=tokens[self._merge_right[index]],
            new_token=tokens[new_id],
            new_id=new_id,
            count=self._hist_counts[index],
            vocab_size=self._hist_sizes[index],
            words_touched=self._hist_words[index],
            seconds=self._hist_seconds[index],
        )


# Up to this many initial symbols, initial pair counts use flat lists (1024 * 1024 slots).
_DENSE_PAIRS_MAX_IDS: Final = 1024


def _count_pairs_dense(
    words: list[TrainingWord], size: int, shift: int, sink: ProgressSink
) -> tuple[list[int], list[int], list[list[TrainingWord]]]:
    """(pairs, counts, word lists) of every adjacent pair, counted in lists indexed by
    `left * size + right`: `[ab, ba]` words "aba" x2 -> pairs (a,b) (b,a), counts 2 2."""
    slots = size * size
    counts = [0] * slots
    empty: list[TrainingWord] = []
    where = [empty] * slots
    seen: list[int] = []
    total = len(words)
    every = report_every(total)
    for wi in range(total):
        if wi % every == 0 and wi > 0:
            report(sink, STAGE_COUNT_PAIRS, wi, total, "words")
        entry = words[wi]
        word = entry.symbols
        count = entry.count
        prev = ord(word[0]) * size
        for j in range(1, len(word)):
            cur = ord(word[j])
            slot = prev + cur
            found = where[slot]
            if len(found) == 0:
                where[slot] = [entry]
                seen.append(slot)
            elif found[len(found) - 1] is not entry:
                found.append(entry)
            counts[slot] += count
            prev = cur * size
    seen.sort()
    pairs: list[int] = []
    pair_counts: list[int] = []
    positions: list[list[TrainingWord]] = []
    for slot in seen:
        pairs.append(((slot // size) << shift) | (slot % size))
        pair_counts.append(counts[slot])
        positions.append(where[slot])
    return pairs, pair_counts, positions


def _count_pairs_sparse(
    words: list[TrainingWord], shift: int, sink: ProgressSink
) -> tuple[list[int], list[int], list[list[TrainingWord]]]:
    """`_count_pairs_dense` for big alphabets: the same, in a dict keyed by the packed pair."""
    counts: dict[int, int] = {}
    where: dict[int, list[TrainingWord]] = {}
    total = len(words)
    every = report_every(total)
    for wi in range(total):
        if wi % every == 0 and wi > 0:
            report(sink, STAGE_COUNT_PAIRS, wi, total, "words")
        entry = words[wi]
        word = entry.symbols
        count = entry.count
        prev = ord(word[0])
        for j in range(1, len(word)):
            cur = ord(word[j])
            pair = (prev << shift) | cur
            counts[pair] = counts.get(pair, 0) + count
            found = where.get(pair)
            if found is None:
                where[pair] = [entry]
            elif found[len(found) - 1] is not entry:
                found.append(entry)
            prev = cur
    pairs: list[int] = []
    pair_counts: list[int] = []
    positions: list[list[TrainingWord]] = []
    for pair, found in where.items():
        pairs.append(pair)
        pair_counts.append(counts[pair])
        positions.append(found)
    return pairs, pair_counts, positions
