"""The native merge of short words (`engine.models.bpe.merge_table`, `BPE._merged_run`) against
the heap merge it stands in for (`encoder.merge_all` through `BPE._merge_word`), on one
hand-checkable case and on random merge tables with every option that shapes the symbols."""

from __future__ import annotations

import random

import pytest
from librt.vecs import vec
from mypy_extensions import i64

from engine.models.base import TokenRun
from engine.models.bpe.merge_table import SHORT_WORD, MergeTable
from engine.models.bpe.model import BPE
from engine.models.bpe.word_run import WordRun


def as_tuples(run: TokenRun | WordRun) -> list[tuple[int, str, int, int]]:
    tokens = run.token_run().tokens() if isinstance(run, WordRun) else run.tokens()
    return [(t.id, t.value, t.start, t.end) for t in tokens]


def heap_run(model: BPE, word: str) -> TokenRun:
    """What `tokenize_run` gave before the native merge: the heap merge, packed."""
    return model._run(model._merge_word(word, 0.0, True))


def test_merge_lowest_rank_first_then_leftmost() -> None:
    # a=0 b=1 c=2 ab=3 bc=4 abc=5: (b, c) rank 0, (a, b) rank 1, (a, bc) rank 2
    tokens = {0: "a", 1: "b", 2: "c", 3: "ab", 4: "bc", 5: "abc"}
    table = MergeTable({1 * 6 + 2: 0, 0 * 6 + 1: 1, 0 * 6 + 4: 2}, [4, 3, 5], 6, tokens)
    assert table.tokens == ["a", "b", "c", "ab", "bc", "abc"]
    ids = vec[i64]([0, 1, 2, 0, 1, 0, 1])
    starts = vec[i64]([0, 1, 2, 3, 4, 5, 6])
    n = table.merge(ids, starts)
    # a b c a b a b -> a bc a b a b -> abc a b a b -> abc ab a b -> abc ab ab
    assert [ids[k] for k in range(n)] == [5, 3, 3]
    assert [starts[k] for k in range(n)] == [0, 3, 5]


def test_minbpe_reference_case() -> None:
    vocab = {"a": 0, "b": 1, "c": 2, "d": 3, "aa": 4, "ab": 5, "aaab": 6}
    model = BPE(vocab, [("a", "a"), ("a", "b"), ("aa", "ab")])
    run = model._merged_run("aaabdaaabac")
    assert run is not None
    # (a, a) leftmost first: aa a b d aa a b a c; (a, b): aa ab d aa ab a c; (aa, ab)
    assert as_tuples(run) == [(6, "aaab", 0, 4), (3, "d", 4, 5), (6, "aaab", 5, 9), (0, "a", 9, 10), (2, "c", 10, 11)]
    assert as_tuples(run) == as_tuples(heap_run(model, "aaabdaaabac"))


def test_words_it_leaves_to_the_heap_merge() -> None:
    vocab = {"<unk>": 0, "a": 1, "b": 2, "ab": 3, "<0x63>": 4}
    model = BPE(vocab, [("a", "b")], unk_token="<unk>", byte_fallback=True)
    assert model._merged_run("abx") is None  # an unknown char
    assert model._merged_run("abc") is None  # a byte-fallback char
    assert model._merged_run("a" * (SHORT_WORD + 1)) is None  # too long
    assert model._merged_run("") is None
    run = model._merged_run("a" * SHORT_WORD)
    assert run is not None and as_tuples(run) == as_tuples(heap_run(model, "a" * SHORT_WORD))
    # two tokens with one id: the native merge cannot tell their merges apart
    twice = BPE({"a": 0, "b": 1, "ab": 2, "B": 1}, [("a", "b")])
    assert twice._merged_run("ab") is None
    assert [t.value for t in twice.tokenize_run("ab").tokens()] == ["ab"]


def _random_model(rng: random.Random, prefix: str | None, suffix: str | None, separate: bool) -> BPE:
    """A vocabulary of a, b, c (with the prefix and suffix forms the model looks up) and random
    merges over it, as a trainer could make them: several pairs may make one token, a pair may
    come twice, a merge may never apply."""
    p = prefix or ""
    glued = suffix if suffix is not None and not separate else ""
    tokens: list[str] = []
    for ch in "abc":
        for form in (ch, p + ch, ch + glued, p + ch + glued):
            if form not in tokens:
                tokens.append(form)
    if separate and suffix is not None:
        tokens.append(suffix)
    merges: list[tuple[str, str]] = []
    for _ in range(rng.randint(0, 40)):
        if merges and rng.random() < 0.1:
            merges.append(rng.choice(merges))
            continue
        left = rng.choice(tokens)
        right = rng.choice(tokens)
        if glued and left.endswith(glued):
            continue
        if separate and suffix is not None and right == suffix:
            made = left + right
        elif p and right.startswith(p):
            made = left + right[len(p):]
        else:
            continue
        if made not in tokens:
            tokens.append(made)
        merges.append((left, right))
    vocab = {token: id for id, token in enumerate(tokens)}
    return BPE(
        vocab, merges, continuing_subword_prefix=prefix, end_of_word_suffix=suffix,
        end_of_word_symbol=separate,
    )


@pytest.mark.parametrize(
    ("prefix", "suffix", "separate"),
    [(None, None, False), ("##", None, False), (None, "</w>", False), ("##", "</w>", False),
     (None, "</w>", True), ("##", "</w>", True)],
)
def test_same_tokens_as_the_heap_merge_on_random_tables(prefix: str | None, suffix: str | None, separate: bool) -> None:
    rng = random.Random(25)
    native = 0
    for _ in range(150):
        model = _random_model(rng, prefix, suffix, separate)
        for _ in range(30):
            word = "".join(rng.choice("abc") for _ in range(rng.randint(1, 12)))
            run = model._merged_run(word)
            assert run is not None
            native += 1
            assert as_tuples(run) == as_tuples(heap_run(model, word)), (model.merges, word)
    assert native == 150 * 30
