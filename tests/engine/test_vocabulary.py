"""engine.analysis.vocabulary: tokens made readable, their bytes and kinds, merge trees, and token
frequencies and example words from word counts."""

from __future__ import annotations

import pytest

from engine import Tokenizer, decoders, models, pre_tokenizers, trainers
from engine.analysis.vocabulary import (
    MergeNode,
    TokenStyle,
    VocabularyTable,
    byte_fallback_value,
    merge_ranks,
    merge_tree,
    readable,
    token_bytes,
    token_examples,
    token_frequencies,
    visible_text,
)

BYTE_LEVEL = TokenStyle(byte_level=True)


@pytest.mark.parametrize(
    ("token", "style", "shown"),
    [
        ("Ġhello", BYTE_LEVEL, "·hello"),
        ("ĊĊ", BYTE_LEVEL, "↵↵"),
        ("ĉx", BYTE_LEVEL, "→x"),
        ("Ã©", BYTE_LEVEL, "é"),
        ("ðŁ", BYTE_LEVEL, "\\xf0\\x9f"),  # half an emoji: its bytes, escaped
        ("<0x0A>", TokenStyle(), "↵"),
        ("<0x41>", TokenStyle(), "A"),
        ("▁the", TokenStyle(metaspace="▁"), "·the"),
        ("##ing", TokenStyle(prefix="##"), "##ing"),  # (as every WordPiece file and library names it)
        ("##", TokenStyle(prefix="##"), "##"),
        ("low</w>", TokenStyle(suffix="</w>"), "low·"),
        ("a b", TokenStyle(), "a·b"),
        ("\x0c", TokenStyle(), "␌"),
    ],
)
def test_readable(token: str, style: TokenStyle, shown: str) -> None:
    assert readable(token, style) == shown


def test_without_glyphs_spaces_stay_and_controls_are_escaped() -> None:
    assert readable("Ġhello", BYTE_LEVEL, glyphs=False) == " hello"
    assert visible_text("a\tb\n", glyphs=False) == "a\\tb\\n"


def test_token_bytes_and_byte_tokens() -> None:
    assert token_bytes("Ã©", BYTE_LEVEL) == "é".encode()
    assert token_bytes("<0xFF>", TokenStyle()) == b"\xff"
    assert token_bytes("##a", TokenStyle(prefix="##")) == b"##a"
    assert byte_fallback_value("<0x0a>") == 10 and byte_fallback_value("<0xZZ>") == -1 and byte_fallback_value("0x0A") == -1


def trained_bpe() -> tuple[Tokenizer, dict[str, int]]:
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    lines = ["low lower lowest", "new newer newest", "low low low"]
    counts = tokenizer.count_words_from_iterator(lines)
    tokenizer.train_from_counts(counts, trainers.BpeTrainer(vocab_size=40, special_tokens=["[UNK]"], show_progress=False))
    return tokenizer, counts


def test_the_merge_tree_of_a_token() -> None:
    tokenizer, counts = trained_bpe()
    report = tokenizer.train_from_counts(counts, trainers.BpeTrainer(vocab_size=40, special_tokens=["[UNK]"], show_progress=False))
    tree = merge_tree(tokenizer.model, "lowest", report.history)

    def spell(node: MergeNode) -> str:
        if node.left is None or node.right is None:
            return node.token
        return f"({spell(node.left)} {spell(node.right)})"

    def merges(node: MergeNode) -> list[tuple[str, int, int]]:
        if node.left is None or node.right is None:
            return []
        return [(node.token, node.rank, node.count), *merges(node.left), *merges(node.right)]

    # Worked by hand (and HF's trainer merges the same): l+o (6 times: low x4, lower, lowest), lo+w
    # (6), e+w, n+ew, e+r, e+s (2: lowest, newest), es+t (2), low+er, then low+est (once).
    assert spell(tree) == "(((l o) w) ((e s) t))"
    assert merges(tree) == [("lowest", 8, 1), ("low", 1, 6), ("lo", 0, 6), ("est", 6, 2), ("es", 5, 2)]
    assert tree.depth() == 3 and tree.left is not None and tree.left.depth() == 2
    # without the training history: the same tree, counts unknown
    bare = merge_tree(tokenizer.model, "lowest")
    assert spell(bare) == spell(tree) and [(t, r) for t, r, _ in merges(bare)] == [(t, r) for t, r, _ in merges(tree)]
    assert {count for _, _, count in merges(bare)} == {-1}
    leaf = merge_tree(tokenizer.model, "l", report.history)
    assert (leaf.token, leaf.left, leaf.right, leaf.rank, leaf.depth()) == ("l", None, None, -1, 0)
    assert merge_tree(models.WordLevel({"a": 0}, unk_token="a"), "a").rank == -1


def test_merges_with_a_continuing_prefix_make_the_models_own_tokens() -> None:
    # "a" + "##b" makes "ab": the right part loses its prefix, as the model merges
    vocab = {"a": 0, "##b": 1, "ab": 2, "##c": 3, "abc": 4}
    model = models.BPE(vocab, [("a", "##b"), ("ab", "##c")], continuing_subword_prefix="##")
    assert model.merged_ids == [2, 4]
    assert merge_ranks(model) == {2: 0, 4: 1}
    tree = merge_tree(model, "abc")
    assert (tree.rank, tree.left and tree.left.token, tree.right and tree.right.token) == (1, "ab", "##c")


def test_frequencies_and_examples_come_from_the_word_counts() -> None:
    tokenizer, counts = trained_bpe()
    frequencies = token_frequencies(tokenizer, counts)
    low = tokenizer.token_to_id("low")
    assert low is not None
    assert frequencies[low] == sum(count for word, count in counts.items() if [t.value for t in tokenizer.model.tokenize(word)].count("low"))
    total_tokens = sum(len(tokenizer.model.tokenize(word)) * count for word, count in counts.items())
    assert sum(frequencies) == total_tokens
    examples = token_examples(tokenizer, counts, per_token=2)
    assert examples[low][0] == ("low", 4)


def test_the_table_describes_every_token() -> None:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(
        ["hello world", "hello there"],
        trainers.BpeTrainer(vocab_size=270, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False),
    )
    tokenizer.add_special_tokens(["<|endoftext|>"])
    table = VocabularyTable.of(tokenizer)
    assert len(table) == tokenizer.get_vocab_size()
    assert table.ids == sorted(table.ids)
    row = table.tokens.index("Ġworld")
    assert (table.shown[row], table.char_lengths[row], table.byte_lengths[row], table.kinds[row]) == ("·world", 6, 6, "normal")
    assert table.merge_ranks[row] >= 0 and table.frequencies[row] == -1
    special = table.tokens.index("<|endoftext|>")
    assert table.kinds[special] == "special" and table.merge_ranks[special] == -1
    assert table.kinds.count("byte") == 256


def test_characters_that_draw_nothing_are_named_in_tokens_not_in_texts() -> None:
    assert readable("\u200d", TokenStyle()) == "⟨ZWJ⟩"
    assert readable("👩\u200d", TokenStyle()) == "👩⟨ZWJ⟩"
    assert readable("▁\u00a0x\ufe0f\u2061", TokenStyle(metaspace="▁")) == "·⟨NBSP⟩x⟨VS16⟩⟨U+2061⟩"
    assert readable("<0xE2>", TokenStyle()) == "\\xe2"  # (one backslash: a byte that is no character)
    # the byte-level token of a ZWJ's three bytes
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    token = tokenizer.pre_tokenizer.pre_tokenize_str("\u200d")[0][0]
    assert token == "âĢį" and readable(token, BYTE_LEVEL) == "⟨ZWJ⟩"
    # a whole text keeps them; a piece of it names them, except those that join a cluster
    family = "👩\u200d👩\u200d👧"
    assert visible_text(family) == family and readable(family, TokenStyle()) == family
    assert visible_text("a\u200db", names=True) == "a⟨ZWJ⟩b"
    assert visible_text("❤\ufe0f", names=True) == "❤⟨VS16⟩"
    assert visible_text("a b\u200b", glyphs=False, names=True) == "a b⟨ZWSP⟩"
