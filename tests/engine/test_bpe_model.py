"""BPE model: one hand-checkable merge sequence, then every option, the files and the JSON form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.models.bpe.model import BPE
from engine.errors import EngineError, SchemaError, TokenizerFileError
from engine.models.base import Token

# minbpe's "aaabdaaabac": merges (a, a) -> Z, (a, b) -> Y, (Z, Y) -> X
VOCAB = {"a": 0, "b": 1, "c": 2, "d": 3, "aa": 4, "ab": 5, "aaab": 6}
MERGES = [("a", "a"), ("a", "b"), ("aa", "ab")]


def pieces(model: BPE, text: str) -> list[tuple[str, int, int]]:
    """Tokens with the CHARACTER offsets the pipeline uses (`tokenize` counts bytes, as HF)."""
    return [(t.value, t.start, t.end) for t in model.tokenize_run(text).tokens()]


def test_tokenize_counts_bytes_like_hf() -> None:
    vocab = {"<unk>": 0, "a": 1, "<0xC3>": 2, "<0xA9>": 3, "<0x78>": 4}
    model = BPE(vocab, [], unk_token="<unk>", byte_fallback=True)
    assert [(t.value, t.offsets) for t in model.tokenize("aé€")] == [
        ("a", (0, 1)), ("<0xC3>", (1, 2)), ("<0xA9>", (2, 3)), ("<unk>", (3, 6))
    ]


def test_hand_checkable_merges() -> None:
    model = BPE(VOCAB, MERGES)
    # a a a b d a a a b a c: (a,a) merges leftmost first -> aa a b ..., then (a,b), then (aa,ab).
    assert pieces(model, "aaabdaaabac") == [
        ("aaab", 0, 4),
        ("d", 4, 5),
        ("aaab", 5, 9),
        ("a", 9, 10),
        ("c", 10, 11),
    ]
    assert [t.id for t in model.tokenize("aaab")] == [6]
    assert model.tokenize("") == []


def test_lower_rank_wins_over_position() -> None:
    # "abc": (b, c) has rank 0, so it merges before (a, b) even though (a, b) is further left.
    model = BPE({"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4}, [("b", "c"), ("a", "b")])
    assert pieces(model, "abc") == [("a", 0, 1), ("bc", 1, 3)]


def test_vocab_accessors() -> None:
    model = BPE(VOCAB, MERGES)
    assert model.get_vocab() == VOCAB
    assert model.get_vocab_size() == 7
    assert model.token_to_id("ab") == 5
    assert model.token_to_id("zz") is None
    assert model.id_to_token(6) == "aaab"
    assert model.id_to_token(60) is None
    assert model.merges == MERGES


def test_unknown_chars_are_dropped_without_unk_token() -> None:
    model = BPE(VOCAB, MERGES)
    # HF drops them from the symbols: "a" and "b" become neighbours, merge, and the offsets
    # do not count the dropped char.
    assert pieces(model, "axb") == [("ab", 0, 2)]
    assert pieces(model, "xd") == [("d", 0, 1)]


def test_unk_and_fuse_unk() -> None:
    vocab = {"<unk>": 0, "a": 1, "b": 2, "ab": 3}
    plain = BPE(vocab, [("a", "b")], unk_token="<unk>")
    assert pieces(plain, "xyab") == [("<unk>", 0, 1), ("<unk>", 1, 2), ("ab", 2, 4)]
    fused = BPE(vocab, [("a", "b")], unk_token="<unk>", fuse_unk=True)
    assert pieces(fused, "xyabz") == [("<unk>", 0, 2), ("ab", 2, 4), ("<unk>", 4, 5)]
    missing = BPE({"a": 0}, [], unk_token="<unk>")
    with pytest.raises(EngineError, match="Unk token `<unk>` not found"):
        missing.tokenize("b")


def test_byte_fallback_tokens_cover_their_char() -> None:
    vocab = {"<unk>": 0, "a": 1, "<0xC3>": 2, "<0xA9>": 3, "<0x78>": 4}
    model = BPE(vocab, [], unk_token="<unk>", byte_fallback=True)
    # "é" is two bytes: both tokens cover the one char. "€" lacks byte tokens -> unk.
    assert pieces(model, "aé€") == [("a", 0, 1), ("<0xC3>", 1, 2), ("<0xA9>", 1, 2), ("<unk>", 2, 3)]
    # subtle: HF emits "x"'s byte token before the pending unk of "€", and its byte arithmetic
    # then gives these offsets (checked against tokenizers 0.23.3).
    assert pieces(model, "aé€x") == [
        ("a", 0, 1),
        ("<0xC3>", 1, 2),
        ("<0xA9>", 1, 2),
        ("<0x78>", 2, 3),
        ("<unk>", 2, 4),
    ]


def test_continuing_prefix_and_end_of_word_suffix() -> None:
    prefixed = BPE({"h": 0, "##u": 1, "##g": 2, "hu": 3, "hug": 4}, [("h", "##u"), ("hu", "##g")], continuing_subword_prefix="##")
    assert pieces(prefixed, "hug") == [("hug", 0, 3)]
    suffixed = BPE({"h": 0, "u": 1, "g</w>": 2, "hu": 3, "hug</w>": 4}, [("h", "u"), ("hu", "g</w>")], end_of_word_suffix="</w>")
    assert pieces(suffixed, "hug") == [("hug</w>", 0, 3)]
    assert pieces(suffixed, "ug") == [("u", 0, 1), ("g</w>", 1, 2)]


def test_ignore_merges_takes_whole_words_first() -> None:
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4}
    model = BPE(vocab, [("a", "b")], ignore_merges=True)
    assert pieces(model, "abc") == [("abc", 0, 3)]
    assert pieces(BPE(vocab, [("a", "b")]), "abc") == [("ab", 0, 2), ("c", 2, 3)]


def test_dropout_extremes() -> None:
    always = BPE(VOCAB, MERGES, dropout=1.0)
    assert [t.value for t in always.tokenize("aaab")] == ["a", "a", "a", "b"]
    never = BPE(VOCAB, MERGES, dropout=0.0)
    assert [t.value for t in never.tokenize("aaab")] == ["aaab"]
    with pytest.raises(ValueError, match="Dropout"):
        BPE(VOCAB, MERGES, dropout=1.5)


def test_changing_an_option_clears_the_cache() -> None:
    vocab = {"<unk>": 0, "a": 1}
    model = BPE(vocab, [])
    assert pieces(model, "ax") == [("a", 0, 1)]
    model.unk_token = "<unk>"
    assert pieces(model, "ax") == [("a", 0, 1), ("<unk>", 1, 2)]


def test_tokens_are_fresh_objects() -> None:
    model = BPE(VOCAB, MERGES)
    first = model.tokenize("aaab")
    first[0].start = 99
    assert model.tokenize("aaab") == [Token(6, "aaab", 0, 4)]


def test_constructor_errors() -> None:
    with pytest.raises(ValueError, match="both specified"):
        BPE(VOCAB, None)
    with pytest.raises(ValueError, match="Token `zz` out of vocabulary"):
        BPE(VOCAB, [("zz", "a")])
    with pytest.raises(ValueError, match="Token `cd` out of vocabulary"):
        BPE(VOCAB, [("c", "d")])


def test_set_vocab_and_merges_builds_with_the_prefix_set_later() -> None:
    model = BPE()
    model.set_vocab_and_merges({"h": 0, "##u": 1, "hu": 2}, [("h", "##u")])
    model.continuing_subword_prefix = "##"
    assert pieces(model, "hu") == [("hu", 0, 2)]


def test_duplicate_merge_keeps_its_last_rank() -> None:
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4}
    model = BPE(vocab, [("a", "b"), ("b", "c"), ("a", "b")])
    assert model.merges == [("b", "c"), ("a", "b")]
    assert pieces(model, "abc") == [("a", 0, 1), ("bc", 1, 3)]


def test_to_dict_matches_hf_layout() -> None:
    # models/bpe/serialization.rs test value.
    model = BPE({"<unk>": 0, "a": 1, "b": 2, "ab": 3}, [("a", "b")], unk_token="<unk>", ignore_merges=True)
    data = model.to_dict()
    assert json.dumps(data, separators=(",", ":")) == (
        '{"type":"BPE","dropout":null,"unk_token":"<unk>","continuing_subword_prefix":null,'
        '"end_of_word_suffix":null,"fuse_unk":false,"byte_fallback":false,"ignore_merges":true,'
        '"vocab":{"<unk>":0,"a":1,"b":2,"ab":3},"merges":[["a","b"]]}'
    )
    again = BPE.from_dict(data)
    assert again.to_dict() == data


def test_from_dict_reads_legacy_merges_and_reports_errors() -> None:
    legacy = {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["#version: 0.2", "a b"]}
    assert BPE.from_dict(legacy).merges == [("a", "b")]
    with pytest.raises(SchemaError, match="missing field 'merges'"):
        BPE.from_dict({"type": "BPE", "vocab": {}})
    with pytest.raises(SchemaError, match="out of vocabulary"):
        BPE.from_dict({"vocab": {"a": 0}, "merges": [["a", "b"]]})
    with pytest.raises(SchemaError, match="invalid at line 1"):
        BPE.from_dict({"vocab": {"a": 0}, "merges": ["a b c"]})
    with pytest.raises(SchemaError, match="must be a string"):
        BPE.from_dict({"vocab": {"a": 0}, "merges": [], "unk_token": 3})
    with pytest.raises(SchemaError, match="non-negative integer"):
        BPE.from_dict({"vocab": {"a": -1}, "merges": []})


def test_save_and_read_files(tmp_path: Path) -> None:
    model = BPE(VOCAB, MERGES)
    paths = model.save(str(tmp_path), "tiny")
    assert [Path(p).name for p in paths] == ["tiny-vocab.json", "tiny-merges.txt"]
    assert (tmp_path / "tiny-merges.txt").read_text(encoding="utf-8") == "#version: 0.2\na a\na b\naa ab\n"
    assert json.loads((tmp_path / "tiny-vocab.json").read_text(encoding="utf-8")) == VOCAB
    vocab, merges = BPE.read_file(paths[0], paths[1])
    assert vocab == VOCAB and merges == MERGES
    again = BPE.from_file(paths[0], paths[1], unk_token="a")
    assert again.unk_token == "a" and again.merges == MERGES
    assert BPE(paths[0], paths[1]).get_vocab() == VOCAB


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    vocab_path = tmp_path / "vocab.json"
    vocab_path.write_text('{"a": 0, "b": 1, "note": "skipped"}', encoding="utf-8")
    merges_path = tmp_path / "merges.txt"
    merges_path.write_text("#version: 0.2\r\na b c\n", encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="merges.txt: Merges text file invalid at line 1"):
        BPE.read_file(str(vocab_path), str(merges_path))
    with pytest.raises(TokenizerFileError, match="missing.json"):
        BPE.read_file(str(tmp_path / "missing.json"), str(merges_path))
    merges_path.write_bytes(b"a \xff\n")
    with pytest.raises(TokenizerFileError, match="not UTF-8"):
        BPE.read_file(str(vocab_path), str(merges_path))
    merges_path.write_text("a b\r\n", encoding="utf-8")
    vocab, merges = BPE.read_file(str(vocab_path), str(merges_path))
    assert vocab == {"a": 0, "b": 1} and merges == [("a", "b")]


PROPERTY_VOCAB = {"<unk>": 0, "a": 1, "b": 2, "é": 3, "ab": 4, "bé": 5, "abé": 6, "aa": 7, "éé": 8}
PROPERTY_MERGES = [("a", "b"), ("b", "é"), ("ab", "é"), ("a", "a"), ("é", "é")]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abéx€", max_size=30), st.booleans())
def test_tokens_tile_the_word(word: str, fuse_unk: bool) -> None:
    model = BPE(PROPERTY_VOCAB, PROPERTY_MERGES, unk_token="<unk>", fuse_unk=fuse_unk)
    tokens = model.tokenize_run(word).tokens()
    # Every char ends up in exactly one token, in order: the offsets tile [0, len(word)).
    assert [t.start for t in tokens] == [0, *[t.end for t in tokens[:-1]]][: len(tokens)]
    assert (tokens[-1].end if tokens else 0) == len(word)
    for token in tokens:
        if token.value != "<unk>":
            assert word[token.start : token.end] == token.value
        else:
            assert set(word[token.start : token.end]) <= {"x", "€"}


def test_the_cache_keeps_one_word_run_and_tokenize_run_copies_it() -> None:
    model = BPE(VOCAB, MERGES)
    run = model.word_run("aaabd")
    assert model.word_run("aaabd") is run  # the cached one, shared
    assert (run.ids, run.values, list(run.spans)) == ((6, 3), ("aaab", "d"), [0, 4, 4, 5])
    first = model.tokenize_run("aaabd")
    first.ids.append(99)
    first.starts[0] = 7
    again = model.tokenize_run("aaabd")
    assert (again.ids, again.values, again.starts, again.ends) == ([6, 3], ["aaab", "d"], [0, 4], [4, 5])
