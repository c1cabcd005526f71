"""HF's whole encode API, each call checked against HF on the real BERT file and on byte-level and
byte-fallback tokenizers: pairs given as lists, tuples wherever HF takes a sequence, pre-tokenized
pairs, `encode_batch_fast`, the async variants, `model.tokenize`'s byte offsets, lone surrogates,
and out-of-range ids."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable

import pytest
import tokenizers

from engine import Tokenizer, decoders, models, pre_tokenizers
from engine.encoding import Encoding
from support import corpus_path, train_byte_level


LINES = ["Hello there, how are you?", "Straße und Café — naïve", "a b", "", "日本語 text 😀"]


def fields(encoding: Encoding | tokenizers.Encoding) -> tuple[object, ...]:
    e = encoding
    return (
        e.ids, e.tokens, e.offsets, e.word_ids, e.type_ids,
        e.special_tokens_mask, e.attention_mask,
    )


def byte_fallback_file() -> str:
    vocab = {"<unk>": 0, "a": 1, "b": 2, "ab": 3}
    for byte in range(256):
        vocab[f"<0x{byte:02X}>"] = len(vocab)
    tokenizer = Tokenizer(models.BPE(vocab, [("a", "b")], unk_token="<unk>", byte_fallback=True))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.decoder = decoders.ByteFallback()
    return tokenizer.to_str()


@functools.lru_cache(maxsize=None)
def document_of(name: str) -> str:
    """The tokenizer.json text of `name` (made once: a str no test can change)."""
    if name == "bert":
        return corpus_path("bert_uncased_tokenizer.json").read_text(encoding="utf-8")
    if name == "byte-level":
        return train_byte_level(LINES * 5, 300).to_str()
    return byte_fallback_file()


def pair_of(name: str) -> tuple[Tokenizer, tokenizers.Tokenizer]:
    """Our tokenizer and HF's, both fresh from the same document: a test may add tokens to them."""
    data = document_of(name)
    return Tokenizer.from_str(data), tokenizers.Tokenizer.from_str(data)


NAMES = ["bert", "byte-level", "byte-fallback"]


def same_outcome(ours: Callable[[], object], theirs: Callable[[], object]) -> None:
    """Both give equal results, or both raise the same exception type with the same message."""
    try:
        expected: object = theirs()
    except Exception as error:  # noqa: BLE001 - comparing whatever HF raises
        with pytest.raises(type(error)) as raised:
            ours()
        assert str(raised.value) == str(error)
        return
    got = ours()
    if isinstance(expected, list) and expected and isinstance(expected[0], tokenizers.Encoding):
        assert isinstance(got, list)
        assert [fields(e) for e in got] == [fields(e) for e in expected]
    elif isinstance(expected, tokenizers.Encoding):
        assert isinstance(got, Encoding)
        assert fields(got) == fields(expected)
    else:
        assert got == expected


@pytest.mark.parametrize("name", NAMES)
def test_batch_inputs_as_hf_takes_them(name: str) -> None:
    ours, theirs = pair_of(name)
    cases: list[tuple[object, bool]] = [
        ([["a b", "c d"]], False),  # a list of two strings is a pair
        ([("a b", "c d"), "e"], False),
        (("a", "b"), False),  # a tuple of inputs
        ([["a", "b"]], True),  # one pre-tokenized sequence
        ([("a", "b")], True),
        ([[["a", "b"], ["c"]]], True),  # a pre-tokenized pair
        ([(["a", "b"], ("c",))], True),
        ([["a", "b", "c"]], False),  # three strings: not an input
        ([["a"]], False),
        ([7], False),
        (["a b"], True),  # a str where words are expected
    ]
    for batch, pretokenized in cases:
        same_outcome(
            # (some cases are not inputs, on purpose)
            lambda: ours.encode_batch(batch, is_pretokenized=pretokenized),  # type: ignore[arg-type]
            lambda: theirs.encode_batch(batch, is_pretokenized=pretokenized),  # type: ignore[arg-type]
        )
    same_outcome(lambda: ours.encode(("a", "b"), is_pretokenized=True), lambda: theirs.encode(("a", "b"), is_pretokenized=True))


@pytest.mark.parametrize("name", NAMES)
def test_encode_batch_fast_is_hf_s(name: str) -> None:
    ours, theirs = pair_of(name)
    ours.add_tokens(["hello"])
    theirs.add_tokens(["hello"])
    batch: list[object] = LINES + [("say hello", "there")]
    same_outcome(lambda: ours.encode_batch_fast(batch), lambda: theirs.encode_batch_fast(batch))
    words: list[object] = [["say", "hello"], (["a"], ["b", "c"])]
    same_outcome(
        lambda: ours.encode_batch_fast(words, is_pretokenized=True),
        lambda: theirs.encode_batch_fast(words, is_pretokenized=True),
    )


@pytest.mark.parametrize("name", NAMES)
def test_lone_surrogates_are_refused_like_hf(name: str) -> None:
    ours, theirs = pair_of(name)
    bad = "a\ud800b"
    calls: list[tuple[Callable[[], object], Callable[[], object]]] = [
        (lambda: ours.encode(bad), lambda: theirs.encode(bad)),
        (lambda: ours.encode("a", bad), lambda: theirs.encode("a", bad)),
        (lambda: ours.encode([bad], is_pretokenized=True), lambda: theirs.encode([bad], is_pretokenized=True)),
        (lambda: ours.encode_batch([bad]), lambda: theirs.encode_batch([bad])),
    ]
    for mine, hf in calls:
        same_outcome(mine, hf)
    with pytest.raises(TypeError, match="TextInputSequence must be str"):
        ours.encode_ids(bad)


@pytest.mark.parametrize("name", NAMES)
def test_ids_out_of_range_and_tuples(name: str) -> None:
    ours, theirs = pair_of(name)
    for id in (-1, 2**32, 5):
        same_outcome(lambda: ours.id_to_token(id), lambda: theirs.id_to_token(id))
        same_outcome(lambda: ours.decode([id]), lambda: theirs.decode([id]))
    ids = tuple(theirs.encode("Hello there").ids)
    same_outcome(lambda: ours.decode(ids), lambda: theirs.decode(ids))
    same_outcome(lambda: ours.decode_batch((ids, ids)), lambda: theirs.decode_batch((ids, ids)))


@pytest.mark.parametrize("name", NAMES)
def test_model_tokenize_counts_bytes_like_hf(name: str) -> None:
    ours, theirs = pair_of(name)
    for word in ["straße", "hello", "Ġcafé", "日本", "aé€b", "ab", "😀"]:
        mine = [(t.id, t.value, t.offsets) for t in ours.model.tokenize(word)]
        expected = [(t.id, t.value, t.offsets) for t in theirs.model.tokenize(word)]
        assert mine == expected, word


@pytest.mark.parametrize("name", NAMES)
def test_async_variants_give_what_the_plain_calls_give(name: str) -> None:
    ours, theirs = pair_of(name)

    async def both() -> None:
        assert fields(await ours.async_encode("Hello there")) == fields(await theirs.async_encode("Hello there"))
        mine = await ours.async_encode_batch(LINES)
        expected = await theirs.async_encode_batch(LINES)
        assert [fields(e) for e in mine] == [fields(e) for e in expected]
        mine = await ours.async_encode_batch_fast(LINES)
        expected = await theirs.async_encode_batch_fast(LINES)
        assert [fields(e) for e in mine] == [fields(e) for e in expected]
        ids = [e.ids for e in expected]
        assert await ours.async_decode_batch(ids) == await theirs.async_decode_batch(ids)

    asyncio.run(both())
    # outside a running loop both refuse
    same_outcome(lambda: ours.async_encode("a"), lambda: theirs.async_encode("a"))
