"""Vocabulary formats against the reference libraries: our exports read by HF `tokenizers` and by
tiktoken encode like the engine, and their files read by us encode like them."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load as tiktoken_load
import tokenizers

import engine
from engine.formats import bert_vocab, gpt2
from engine.formats import tiktoken as tiktoken_format
from support import bert_tokens, corpus_path, train_byte_level


def corpus_lines(name: str, limit: int | None = None) -> list[str]:
    lines = [line for line in corpus_path(name).read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines if limit is None else lines[:limit]


@pytest.fixture(scope="module")
def byte_level_tokenizer() -> engine.Tokenizer:
    """A byte-level BPE trained by the engine on shakespeare.txt, with GPT-2's end-of-text special."""
    tokenizer = train_byte_level(corpus_lines("shakespeare.txt"), 2000)
    tokenizer.add_special_tokens(["<|endoftext|>"])
    return tokenizer


# -- BERT vocab.txt -----------------------------------------------------------------------------


def test_our_bert_vocab_txt_loads_in_hf(tmp_path: Path) -> None:
    ours = engine.Tokenizer.from_file(str(corpus_path("bert_uncased_tokenizer.json")))
    path = str(tmp_path / "vocab.txt")
    notes = bert_vocab.write(ours, path)
    assert any(note.startswith("the normalizer (BertNormalizer") for note in notes)
    assert any(note.startswith("the padding settings are not stored") for note in notes) == (ours.padding is not None)
    ours.no_padding()
    ours.no_truncation()
    hf = tokenizers.BertWordPieceTokenizer(path)
    again = bert_vocab.load(path)
    for line in corpus_lines("botchan.txt", 1500):
        expected = ours.encode(line).ids
        assert hf.encode(line).ids == expected, line
        assert again.encode(line).ids == expected, line


def test_hf_bert_vocab_txt_loads_in_ours(tmp_path: Path) -> None:
    hf = tokenizers.BertWordPieceTokenizer(str(corpus_path("bert_uncased_vocab.txt")))
    [path] = hf.save_model(str(tmp_path))
    ours = bert_vocab.load(path)
    assert ours.get_vocab() == hf.get_vocab()
    pair = ("Botchan went to Shikoku.", "He taught mathematics there.")
    assert ours.encode(*pair).ids == hf.encode(*pair).ids
    assert ours.encode(*pair).type_ids == hf.encode(*pair).type_ids
    for line in corpus_lines("botchan.txt", 1500):
        assert ours.encode(line).ids == hf.encode(line).ids, line


CAPITALISED = ["Hello", "World", "The", "Paris", "##Ing", "London", "Berlin", "Anna", "John", "Mary", "USA", "##S"]
ACCENTED = ["café", "naïve", "é", "##é", "über", "ñ", "##ñ", "à", "résumé", "ü", "ö", "##ö"]
CASE_TEXTS = ["Hello World, said John in Paris.", "THE USA", "Café naïve résumé über", "ÉCOLE à Berlin", "hello world"]


@pytest.mark.parametrize(
    ("extra", "options"),
    [(CAPITALISED, {"lowercase": False}), (ACCENTED, {"lowercase": True, "strip_accents": False}), ([], {})],
    ids=["cased", "accented", "uncased"],
)
def test_a_vocab_txt_loads_cased_or_not_as_hf_is_told(tmp_path: Path, extra: list[str], options: dict[str, bool]) -> None:
    """HF's BertWordPieceTokenizer must be told (lowercase=False...); the engine reads it off the vocabulary."""
    path = tmp_path / "vocab.txt"
    path.write_text(corpus_path("bert_uncased_vocab.txt").read_text(encoding="utf-8") + "".join(t + "\n" for t in extra), encoding="utf-8")
    ours = bert_vocab.load(str(path))
    hf = tokenizers.BertWordPieceTokenizer(str(path), **options)
    for line in CASE_TEXTS + corpus_lines("botchan.txt", 300):
        assert ours.encode(line).ids == hf.encode(line).ids, line
    # cased: "Hello" is its own token, the first one added (30522 after the real vocab); else "hello" (7592)
    vocab = bert_tokens()
    assert ours.encode("Hello").ids == [101, len(vocab) if extra is CAPITALISED else vocab.index("hello"), 102]


# -- GPT-2 vocab.json + merges.txt --------------------------------------------------------------


def test_our_gpt2_files_load_in_hf(tmp_path: Path, byte_level_tokenizer: engine.Tokenizer) -> None:
    vocab_path, merges_path = str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt")
    gpt2.write(byte_level_tokenizer, vocab_path, merges_path)
    hf = tokenizers.ByteLevelBPETokenizer(vocab_path, merges_path)
    ours = gpt2.load(vocab_path, merges_path)
    assert json.loads(ours.to_str()) == json.loads(hf._tokenizer.to_str())
    for line in corpus_lines("shakespeare.txt", 3000) + corpus_lines("botchan.txt", 1000):
        expected = byte_level_tokenizer.encode(line).ids
        assert hf.encode(line).ids == expected, line
        assert ours.encode(line).ids == expected, line


def test_hf_gpt2_files_load_in_ours(tmp_path: Path) -> None:
    hf = tokenizers.ByteLevelBPETokenizer()
    hf.train_from_iterator(corpus_lines("shakespeare.txt"), vocab_size=1500, show_progress=False)
    vocab_path, merges_path = hf.save_model(str(tmp_path))
    vocab, merges = gpt2.read(vocab_path, merges_path)
    hf_vocab, hf_merges = tokenizers.models.BPE.read_file(vocab_path, merges_path)
    assert vocab == hf_vocab and merges == hf_merges
    ours = gpt2.load(vocab_path, merges_path)
    for line in corpus_lines("shakespeare.txt", 3000) + corpus_lines("botchan.txt", 1000):
        assert ours.encode(line).ids == hf.encode(line).ids, line


# -- tiktoken -----------------------------------------------------------------------------------


def both_corpora() -> list[str]:
    return corpus_lines("shakespeare.txt") + corpus_lines("botchan.txt")


def dump_ranks_like_tiktoken(ranks: dict[bytes, int], path: str) -> None:
    """tiktoken.load.dump_tiktoken_bpe, which needs the optional `blobfile` package; the same lines otherwise."""
    try:
        tiktoken_load.dump_tiktoken_bpe(ranks, path)
    except ImportError:
        with open(path, "wb") as handle:
            for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
                handle.write(base64.b64encode(token) + b" " + str(rank).encode() + b"\n")


def tiktoken_encoding(arguments: tiktoken_format.EncodingArguments) -> tiktoken.Encoding:
    """tiktoken's Encoding made with the arguments `encoding_arguments` gives."""
    return tiktoken.Encoding(**arguments)


def test_tiktoken_encoding_from_our_tokenizer(byte_level_tokenizer: engine.Tokenizer) -> None:
    encoding = tiktoken_encoding(tiktoken_format.encoding_arguments(byte_level_tokenizer))
    assert encoding.n_vocab == 2001 and encoding.eot_token == 2000
    for line in both_corpora():
        assert encoding.encode_ordinary(line) == byte_level_tokenizer.encode(line, add_special_tokens=False).ids, line
    assert encoding.encode("the end<|endoftext|>", allowed_special="all") == byte_level_tokenizer.encode("the end<|endoftext|>").ids


def test_tiktoken_encoding_from_our_files(
    tmp_path: Path, byte_level_tokenizer: engine.Tokenizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tiktoken.load import load_tiktoken_bpe

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken caches files by path otherwise
    path = str(tmp_path / "shakespeare.tiktoken")
    assert tiktoken_format.write(byte_level_tokenizer, path) == []
    sidecar = json.loads(Path(path + ".json").read_text(encoding="utf-8"))
    encoding = tiktoken.Encoding(mergeable_ranks=load_tiktoken_bpe(path), **sidecar)
    for line in both_corpora():
        assert encoding.encode_ordinary(line) == byte_level_tokenizer.encode(line, add_special_tokens=False).ids, line


def test_tiktoken_file_from_tiktoken_loads_in_ours(tmp_path: Path, byte_level_tokenizer: engine.Tokenizer) -> None:
    arguments = tiktoken_format.encoding_arguments(byte_level_tokenizer)
    encoding = tiktoken_encoding(arguments)
    path = str(tmp_path / "theirs.tiktoken")
    dump_ranks_like_tiktoken(encoding._mergeable_ranks, path)
    ours = tiktoken_format.load(path, encoding._pat_str, encoding._special_tokens)
    assert ours.encode("x<|endoftext|>").ids[-1] == encoding.eot_token
    for line in both_corpora():
        assert ours.encode(line, add_special_tokens=False).ids == encoding.encode_ordinary(line), line


def test_tiktoken_split_pattern_matches_tiktoken(tmp_path: Path, byte_level_tokenizer: engine.Tokenizer) -> None:
    """A cl100k-style pattern (possessive quantifiers, (?i:...)) splits alike in both engines."""
    pattern = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
    arguments = tiktoken_format.encoding_arguments(byte_level_tokenizer)
    arguments["pat_str"] = pattern
    encoding = tiktoken_encoding(arguments)
    path = str(tmp_path / "cl.tiktoken")
    dump_ranks_like_tiktoken(encoding._mergeable_ranks, path)
    ours = tiktoken_format.load(path, pattern, encoding._special_tokens)
    for line in both_corpora() + corpus_lines("wagahaiwa_nekodearu.txt", 300) + ["a  b\n\n  c 1234567 don't DON'T"]:
        assert ours.encode(line, add_special_tokens=False).ids == encoding.encode_ordinary(line), line
