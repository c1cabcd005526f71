"""Added and special tokens behave as in HF: matching, stripping, normalization, ids, decode."""

from __future__ import annotations

from types import ModuleType

import pytest
import tokenizers

import engine
from engine import AddedToken


VOCAB = {"[UNK]": 0, "h": 1, "e": 2, "l": 3, "o": 4, "w": 5, "r": 6, "d": 7, "he": 8, "ll": 9, "hell": 10, "hello": 11}
MERGES = [("h", "e"), ("l", "l"), ("he", "ll"), ("hell", "o")]

TEXTS = [
    "hello [MASK] world",
    "hello[MASK]world",
    "  [MASK]  hello  ",
    "<s>hello</s>",
    "hello <s> world </s>",
    "HELLO Hello hello",
    "day yesterday Yesterday YESTERDAY",
    "[MASK][MASK][MASK]",
    "[MAS [MASK [MASK]]",
    "ahello hellob hello",
    "",
    "   ",
    "<|endoftext|>hello<|endoftext|>",
    "mañana Mañana MAÑANA",
]


def build(module: ModuleType, normalizer: bool, encode_special: bool = False) -> engine.Tokenizer | tokenizers.Tokenizer:
    """The same tokenizer made with `module`, engine or tokenizers (their names are the same)."""
    tokenizer = module.Tokenizer(module.models.BPE(dict(VOCAB), list(MERGES), unk_token="[UNK]"))
    if normalizer:
        tokenizer.normalizer = module.normalizers.Sequence([module.normalizers.NFD(), module.normalizers.Lowercase()])
    tokenizer.pre_tokenizer = module.pre_tokenizers.Whitespace()
    added = module.AddedToken
    tokenizer.add_special_tokens(
        [
            added("[MASK]", lstrip=True, rstrip=False),
            added("<s>"),
            added("</s>", rstrip=True),
            "<|endoftext|>",
        ]
    )
    tokenizer.add_tokens(
        [
            added("hello", single_word=True),
            added("Yesterday", normalized=True),
            added("mañana", normalized=True),
            "[MAS",
        ]
    )
    tokenizer.encode_special_tokens = encode_special
    assert isinstance(tokenizer, (engine.Tokenizer, tokenizers.Tokenizer))
    return tokenizer


@pytest.mark.parametrize("normalizer", [False, True], ids=["raw", "nfd-lowercase"])
@pytest.mark.parametrize("encode_special", [False, True], ids=["specials", "specials-as-text"])
def test_added_tokens_encode_like_hf(normalizer: bool, encode_special: bool) -> None:
    ours = build(engine, normalizer, encode_special)
    theirs = build(tokenizers, normalizer, encode_special)
    assert ours.get_vocab() == theirs.get_vocab()
    assert ours.get_vocab_size() == theirs.get_vocab_size()
    for text in TEXTS:
        a = ours.encode(text)
        b = theirs.encode(text)
        assert (a.ids, a.tokens, a.offsets, a.word_ids) == (b.ids, b.tokens, b.offsets, b.word_ids), text
        for skip in (True, False):
            assert ours.decode(a.ids, skip_special_tokens=skip) == theirs.decode(b.ids, skip_special_tokens=skip)


@pytest.mark.parametrize("normalizer", [False, True], ids=["raw", "nfd-lowercase"])
def test_thousands_of_added_tokens_are_found_like_hf(normalizer: bool) -> None:
    """Past REGEX_MAX_TOKENS the engine finds added tokens by prefix, not with one regex."""
    ours = build(engine, normalizer)
    theirs = build(tokenizers, normalizer)
    many = [f"<t{i}>" for i in range(1500)] + [f"w{i}" for i in range(1500)] + ["<t1", "<t12", "hel", "ñ"]
    for tokenizer, module in ((ours, engine), (theirs, tokenizers)):
        tokenizer.add_tokens([module.AddedToken(text, normalized=i % 2 == 0) for i, text in enumerate(many)])
    texts = TEXTS + ["<t1<t12<t123><t1499>w1499w15 hel ñ mañana", "w1w10w100<t10<t100>", "<t<t1><t14>9>"]
    for text in texts:
        a = ours.encode(text)
        b = theirs.encode(text)
        assert (a.ids, a.tokens, a.offsets) == (b.ids, b.tokens, b.offsets), text


def test_added_token_ids_reuse_model_ids_and_count_like_hf() -> None:
    for module in (engine, tokenizers):
        tokenizer = module.Tokenizer(module.models.BPE(dict(VOCAB), list(MERGES), unk_token="[UNK]"))
        assert tokenizer.add_tokens(["hello", "new", "new"]) == 2  # "hello" keeps 11; "new" once
        assert tokenizer.token_to_id("hello") == 11
        assert tokenizer.token_to_id("new") == 12
        assert tokenizer.add_special_tokens(["[UNK]", "<pad>"]) == 2
        assert tokenizer.token_to_id("<pad>") == 13
        assert tokenizer.get_vocab_size() == 14
        assert tokenizer.get_vocab_size(with_added_tokens=False) == 12
        decoder = tokenizer.get_added_tokens_decoder()
        assert sorted(decoder) == [0, 11, 12, 13]
        assert decoder[13].special and not decoder[12].special


def test_saved_added_tokens_match_hf() -> None:
    ours = build(engine, True)
    theirs = build(tokenizers, True)
    import json

    assert json.loads(ours.to_str())["added_tokens"] == json.loads(theirs.to_str())["added_tokens"]
    reloaded = engine.Tokenizer.from_str(theirs.to_str())
    for text in TEXTS:
        assert reloaded.encode(text).ids == theirs.encode(text).ids


def test_added_token_repr_and_equality() -> None:
    token = AddedToken("[X]", special=True)
    assert token == "[X]" and token == AddedToken("[X]")
    assert not token.normalized and AddedToken("x").normalized
    assert "special=True" in repr(token)
