"""`PairCounts` (engine.models.bpe.pair_table) holds what a dict of pair counts would, without
the pairs at 0, through growth and removals."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.models.bpe.pair_table import PairCounts

# pairs as the runs make them: left << shift | right, with ids up to 2 ** 18
pairs = st.tuples(st.integers(0, (1 << 18) - 1), st.integers(0, (1 << 18) - 1)).map(lambda p: p[0] << 18 | p[1])
operations = st.lists(st.tuples(st.sampled_from(["set", "add", "remove"]), pairs, st.integers(-5, 5)), max_size=400)


@settings(max_examples=200, deadline=None)
@given(operations=operations)
def test_operations_match_a_dict(operations: list[tuple[str, int, int]]) -> None:
    table = PairCounts()
    model: dict[int, int] = {}
    for name, pair, value in operations:
        if name == "set":
            table.set(pair, value)
            model[pair] = value
        elif name == "add":
            assert table.add(pair, value) == model.get(pair, 0) + value
            model[pair] = model.get(pair, 0) + value
        else:
            table.remove(pair)
            model.pop(pair, None)
        model = {key: count for key, count in model.items() if count != 0}
        assert table.get(pair) == model.get(pair, 0)
    assert len(table) == len(model)
    for pair, count in model.items():
        assert table.get(pair) == count


def test_many_pairs_grow_and_removals_make_room() -> None:
    table = PairCounts(expected=10)
    for pair in range(0, 300_000, 3):
        table.set(pair, pair + 1)
    assert len(table) == 100_000 and table.get(299_997) == 299_998 and table.get(1) == 0
    for pair in range(0, 300_000, 6):
        table.add(pair, -(pair + 1))  # down to 0: forgotten
    assert len(table) == 50_000 and table.get(6) == 0 and table.get(3) == 4
    # removed slots are reused or rebuilt away: churn does not grow the table without end
    size = table.mask
    for round in range(20):
        for pair in range(1_000_000, 1_040_000):
            table.set(pair, round + 1)
        for pair in range(1_000_000, 1_040_000):
            table.remove(pair)
    assert len(table) == 50_000 and table.mask <= 2 * size + 1
    # the first pair (0, 0) is a pair like any other
    table.set(0, 7)
    assert table.get(0) == 7
