"""BPE encoding of one word: HF's `Word.merge_all` on the word's symbols, and byte/char offset helpers.

Works on plain int lists (symbol ids and lengths) for speed; building the symbols from text
and the vocabulary is `engine.models.bpe.model`'s job, learning merges `engine.models.bpe.trainer`'s.
"""

from __future__ import annotations

import heapq
import random

from engine import unicode_chars as uc


def merge_all(
    ids: list[int],
    lens: list[int],
    ranks: dict[int, int],
    new_ids: list[int],
    stride: int,
    dropout: float,
    thresholds: list[int] | None = None,
    applied: list[int] | None = None,
) -> None:
    """Apply merges lowest rank first, leftmost first, in place; merged-away symbols get length 0.

    `ranks` maps a packed pair (left * stride + right) to its rank, `new_ids[rank]` is the merged
    token. [a, b, c] with ranks {(b, c): 0, (a, bc): 1} -> [abc], lengths [3, 0, 0].
    Faithful to HF's Word.merge_all: a heap of (rank, position) entries, stale entries
    checked against the merge's new id, and dropout skipping a merge with probability p.

    `thresholds`, when given, gets for each merge applied, in order, the highest rank popped so
    far (stale entries included): with only the first k merges the loop pops the same entries
    while their ranks are below k, so that merge happens iff k > its threshold
    (`engine.analysis.size_curve`'s one-pass curve). [a, b, c] above -> [0, 1].

    `applied`, when given, gets each merge applied, in order, as three numbers: the position of
    its left symbol, of its right symbol, and the rank of the pair merged (the Encode tab's
    stepper replays them: `engine.analysis.encode_steps`). [a, b, c] above -> [1, 2, 0, 0, 1, 1].
    """
    n = len(ids)
    prev: list[int] = list(range(-1, n - 1))
    nxt: list[int] = list(range(1, n + 1))
    nxt[n - 1] = -1
    heap: list[int] = []
    for i in range(n - 1):
        rank = ranks.get(ids[i] * stride + ids[i + 1])
        if rank is not None:
            heap.append(rank * n + i)
    if not heap:
        return
    heapq.heapify(heap)
    skipped: list[int] = []
    highest = -1
    while heap:
        top = heapq.heappop(heap)
        if dropout > 0.0 and random.random() < dropout:
            skipped.append(top)
            continue
        for entry in skipped:
            heapq.heappush(heap, entry)
        skipped.clear()
        rank = top // n
        pos = top - rank * n
        if thresholds is not None and rank > highest:
            highest = rank
        if lens[pos] == 0:
            continue
        right = nxt[pos]
        if right == -1:
            continue
        new_id = new_ids[rank]
        # Make sure the entry is not stale: the pair there must still make the same token.
        current = ranks.get(ids[pos] * stride + ids[right])
        if current is None or new_ids[current] != new_id:
            continue
        if thresholds is not None:
            if current > highest:
                # subtle: a stale entry may apply a pair of another rank that makes the same
                # token; the first k merges apply it only if they hold that pair too.
                highest = current
            thresholds.append(highest)
        if applied is not None:
            applied.append(pos)
            applied.append(right)
            applied.append(current)
        ids[pos] = new_id
        lens[pos] += lens[right]
        lens[right] = 0
        after = nxt[right]
        nxt[pos] = after
        if after != -1:
            prev[after] = pos
        before = prev[pos]
        if before >= 0:
            found = ranks.get(ids[before] * stride + new_id)
            if found is not None:
                heapq.heappush(heap, found * n + before)
        if after != -1:
            found = ranks.get(new_id * stride + ids[after])
            if found is not None:
                heapq.heappush(heap, found * n + pos)


def utf8_len(code: int) -> int:
    if code < 0x80:
        return 1
    if code < 0x800:
        return 2
    if code < 0x10000:
        return 3
    return 4


def char_offsets_from_bytes(packed: list[int], word: str) -> None:
    """Turn the packed byte offsets into char offsets in place, as HF's pipeline does.

    A token spanning bytes [s, e) covers the chars holding byte s through byte e-1, so each
    byte-fallback token of "é" ((0, 1) and (1, 2) in bytes) covers the whole char: (0, 1).
    """
    char_at = uc.char_of_byte(word)
    total = len(char_at)
    n_chars = len(word)
    i = 0
    n = len(packed)
    while i < n:
        start = packed[i + 1]
        end = packed[i + 2]
        packed[i + 1] = char_at[start] if start < total else n_chars
        packed[i + 2] = char_at[end - 1] + 1 if 0 < end <= total else n_chars
        i += 3
