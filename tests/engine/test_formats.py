"""The vocabulary formats of engine/formats/: BERT vocab.txt, GPT-2 vocab.json + merges.txt, tiktoken
rank files. Round trips, what an export says it loses, bad input (one clear error naming the file and
the line or field, nothing overwritten), and hypothesis fuzzing of every reader."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Tokenizer, decoders, normalizers, pre_tokenizers, processors
from engine.errors import EngineError, TokenizerFileError
from engine.formats import bert_vocab, convert, gpt2
from engine.formats import tiktoken as tiktoken_format
from engine.formats.files import write_texts_atomically
from engine.models import BPE, WordLevel, WordPiece
from support import corpus_path, train_byte_level

WORDPIECE_VOCAB = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "un": 5, "##aff": 6, "##able": 7, "hello": 8, "!": 9}
LINES = ["aaabdaaabac", "the cat sat on the mat", "hello world, hello there!", "café  naïve 12345"]


def wordpiece_tokenizer() -> Tokenizer:
    return bert_vocab.bert_tokenizer(dict(WORDPIECE_VOCAB))


def small_byte_level() -> Tokenizer:
    return train_byte_level(LINES * 3, 290)


def merges_of(tokenizer: Tokenizer) -> list[tuple[str, str]]:
    model = tokenizer.model
    assert isinstance(model, BPE)
    return model.merges


# -- BERT vocab.txt -----------------------------------------------------------------------------


def test_bert_vocab_round_trip_and_pipeline(tmp_path: Path) -> None:
    path = str(tmp_path / "vocab.txt")
    notes = bert_vocab.write(wordpiece_tokenizer(), path)
    assert Path(path).read_text(encoding="utf-8").split("\n")[:3] == ["[PAD]", "[UNK]", "[CLS]"]
    assert bert_vocab.read(path) == WORDPIECE_VOCAB
    loaded = bert_vocab.load(path)
    encoding = loaded.encode("Unaffable HELLO!")
    assert encoding.tokens == ["[CLS]", "un", "##aff", "##able", "hello", "!", "[SEP]"]
    assert encoding.ids == [2, 5, 6, 7, 8, 9, 3]
    assert loaded.decode(encoding.ids) == "unaffable hello!"
    assert bert_vocab.load(path, lowercase=False).encode("HELLO").tokens == ["[CLS]", "[UNK]", "[SEP]"]
    # every part the file does not hold is named, with whether load rebuilds it
    assert any("the normalizer (BertNormalizer" in note and "lowercase=True" in note and "rebuilds it" in note for note in notes)
    assert len([note for note in notes if "is not stored in vocab.txt" in note]) == 4


def test_bert_vocab_write_says_what_is_lost(tmp_path: Path) -> None:
    tokenizer = Tokenizer(WordPiece(WORDPIECE_VOCAB, unk_token="[UNK]", max_input_chars_per_word=7))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.add_tokens(["<extra>"])
    notes = bert_vocab.write(tokenizer, str(tmp_path / "vocab.txt"))
    text = "\n".join(notes)
    assert "the normalizer (Lowercase) is not stored in vocab.txt; bert_vocab.load(path) builds BertNormalizer" in text
    assert "the pre-tokenizer (Whitespace)" in text
    assert "max_input_chars_per_word=7 is not stored" in text
    assert "there is no post-processor, but bert_vocab.load(path) adds one (BertProcessing" in text
    assert notes[-1] == "bert_vocab.load(path) will find a lowercase vocabulary (no tokens with capitals): lowercase on, accents stripped"
    assert "the added token '<extra>' (id 10) is not in the model's vocabulary and is lost" in text


def test_bert_vocab_write_refuses_other_models_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "vocab.txt"
    path.write_text("precious\n", encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="vocab.txt: cannot be written: vocab.txt holds a WordPiece vocabulary.*BPE"):
        bert_vocab.write(Tokenizer(BPE({"a": 0}, [])), str(path))
    assert path.read_text(encoding="utf-8") == "precious\n"
    with pytest.raises(TokenizerFileError, match="is a directory"):
        bert_vocab.write(wordpiece_tokenizer(), str(tmp_path))


def test_bert_vocab_holes_are_reported(tmp_path: Path) -> None:
    notes = bert_vocab.write(Tokenizer(WordPiece({"[UNK]": 0, "a": 5})), str(tmp_path / "vocab.txt"))
    assert any("the ids have holes (largest id 5, 2 tokens)" in note for note in notes)
    assert bert_vocab.read(str(tmp_path / "vocab.txt")) == {"[UNK]": 0, "a": 1}


# -- GPT-2 vocab.json + merges.txt --------------------------------------------------------------


def test_gpt2_round_trip_byte_level(tmp_path: Path) -> None:
    tokenizer = small_byte_level()
    vocab_path, merges_path = str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt")
    notes = gpt2.write(tokenizer, vocab_path, merges_path)
    assert Path(merges_path).read_text(encoding="utf-8").startswith("#version: 0.2\n")
    vocab, merges = gpt2.read(vocab_path, merges_path)
    assert vocab == tokenizer.model.get_vocab() and merges == merges_of(tokenizer)
    loaded = gpt2.load(vocab_path, merges_path)
    assert isinstance(loaded.pre_tokenizer, pre_tokenizers.ByteLevel) and not loaded.pre_tokenizer.add_prefix_space
    assert isinstance(loaded.decoder, decoders.ByteLevel)
    assert isinstance(loaded.post_processor, processors.ByteLevel)
    for line in LINES:
        assert loaded.encode(line).ids == tokenizer.encode(line).ids
        assert loaded.decode(loaded.encode(line).ids) == line
    assert all("rebuilds it" in note for note in notes)


def test_gpt2_plain_bpe_and_the_options_it_loses(tmp_path: Path) -> None:
    model = BPE({"a": 0, "b": 1, "ab": 2, "<unk>": 3}, [("a", "b")], unk_token="<unk>", dropout=0.5)
    tokenizer = Tokenizer(model)
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    vocab_path, merges_path = str(tmp_path / "v.json"), str(tmp_path / "m.txt")
    notes = gpt2.write(tokenizer, vocab_path, merges_path)
    assert "the BPE option dropout=0.5 is not stored; load gives None" in notes
    assert "the BPE option unk_token='<unk>' is not stored; load gives None" in notes
    assert any(note.startswith("the pre-tokenizer (Whitespace) is not stored") and note.endswith("is lost") for note in notes)
    loaded = gpt2.load(vocab_path, merges_path)
    assert loaded.pre_tokenizer is None and loaded.decoder is None
    assert loaded.encode("aab").tokens == ["a", "ab"]
    assert gpt2.is_byte_level({"a": 0}) is False


def test_gpt2_write_refuses_other_models(tmp_path: Path) -> None:
    with pytest.raises(TokenizerFileError, match="hold a BPE model, and this tokenizer's model is WordLevel"):
        gpt2.write(Tokenizer(WordLevel({"a": 0}, "a")), str(tmp_path / "v.json"), str(tmp_path / "m.txt"))
    assert os.listdir(tmp_path) == []


def test_gpt2_two_files_are_written_both_or_neither(tmp_path: Path) -> None:
    vocab_path, merges_path = tmp_path / "vocab.json", tmp_path / "merges.txt"
    vocab_path.write_text("old vocab", encoding="utf-8")
    merges_path.mkdir()  # the second target cannot be written
    with pytest.raises(TokenizerFileError, match="merges.txt: is a directory"):
        gpt2.write(small_byte_level(), str(vocab_path), str(merges_path))
    assert vocab_path.read_text(encoding="utf-8") == "old vocab"
    assert sorted(os.listdir(tmp_path)) == ["merges.txt", "vocab.json"]  # no temporaries left
    with pytest.raises(TokenizerFileError, match="does not exist"):
        gpt2.write(small_byte_level(), str(vocab_path), str(tmp_path / "missing" / "merges.txt"))
    assert vocab_path.read_text(encoding="utf-8") == "old vocab"


def test_write_texts_atomically_replaces_all(tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("old a", encoding="utf-8")
    os.chmod(a, 0o640)
    write_texts_atomically([(str(a), "new a"), (str(b), "new b")])
    assert a.read_text(encoding="utf-8") == "new a" and b.read_text(encoding="utf-8") == "new b"
    assert a.stat().st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.txt"]


def gpt2_files(tmp_path: Path, vocab: str, merges: str) -> tuple[str, str]:
    (tmp_path / "vocab.json").write_text(vocab, encoding="utf-8")
    (tmp_path / "merges.txt").write_text(merges, encoding="utf-8")
    return str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt")


@pytest.mark.parametrize(
    ("vocab", "merges", "message"),
    [
        ('{"a": 0, "b": 0}', "", r"vocab.json: Bad vocabulary json file: token 'b': id 0 is already the id of 'a'"),
        ('{"a": 0, "b": -1}', "", r"vocab.json: Bad vocabulary json file: token 'b': id -1 is not an integer in 0..4294967295"),
        ('{"a": 0, "b": 4294967296}', "", r"token 'b': id 4294967296 is not an integer"),
        ('{"a": 0, "b": 1.5}', "", r"token 'b': id 1.5 is not an integer"),
        ('["a"]', "", r"vocab.json: Bad vocabulary json file: expected an object"),
        ('{"a": 0,', "", r"vocab.json: is not valid JSON: Expecting property name enclosed in double quotes at line 1 column 9 \(the file looks truncated\)"),
        ('{"a": 0, "b": 1}', "#version: 0.2\na b\nzz b\n", r"merges.txt: line 3: merge 'zz' 'b' names the token 'zz', which is not in the vocabulary"),
        ('{"a": 0, "b": 1}', "#version: 0.2\na b c\n", r"merges.txt: Merges text file invalid at line 1 \(line 2: 'a b c' is not two tokens"),
    ],
)
def test_gpt2_bad_input_is_one_clear_error(tmp_path: Path, vocab: str, merges: str, message: str) -> None:
    vocab_path, merges_path = gpt2_files(tmp_path, vocab, merges)
    with pytest.raises(TokenizerFileError, match=message):
        gpt2.read(vocab_path, merges_path)
    with pytest.raises(TokenizerFileError, match=message):
        gpt2.load(vocab_path, merges_path)


def test_gpt2_load_names_a_merge_whose_result_is_missing(tmp_path: Path) -> None:
    vocab_path, merges_path = gpt2_files(tmp_path, '{"a": 0, "b": 1}', "a b\n")
    assert gpt2.read(vocab_path, merges_path) == ({"a": 0, "b": 1}, [("a", "b")])
    with pytest.raises(TokenizerFileError, match="merges.txt: does not fit .*vocab.json: .*Token `ab` out of vocabulary"):
        gpt2.load(vocab_path, merges_path)


def test_models_read_file_use_the_same_readers(tmp_path: Path) -> None:
    vocab_path, merges_path = gpt2_files(tmp_path, '{"a": 0, "b": 0}', "")
    with pytest.raises(TokenizerFileError, match="id 0 is already the id of 'a'"):
        BPE.read_file(vocab_path, merges_path)
    with pytest.raises(TokenizerFileError, match="id 0 is already the id of 'a'"):
        WordLevel.read_file(vocab_path)
    (tmp_path / "vocab.txt").write_text("a\nb \n", encoding="utf-8")
    assert WordPiece.read_file(str(tmp_path / "vocab.txt")) == bert_vocab.read(str(tmp_path / "vocab.txt")) == {"a": 0, "b": 1}


# -- tiktoken rank files ------------------------------------------------------------------------


def rank_line(token: bytes, rank: int) -> str:
    return base64.b64encode(token).decode("ascii") + f" {rank}\n"


def reference_ranks() -> dict[bytes, int]:
    """All bytes in byte order, then "aa" "ab" "aab" "ac": a hand-checkable rank table."""
    ranks = {bytes([b]): b for b in range(256)}
    for token in (b"aa", b"ab", b"aab", b"ac"):
        ranks[token] = len(ranks)
    return ranks


def test_merges_are_rebuilt_from_the_ranks() -> None:
    ranks = reference_ranks()
    # "aab": merging by rank gives aa (256) + b, since aa ranks before ab.
    assert tiktoken_format.bpe_pieces(b"aab", ranks, ranks[b"aab"]) == [b"aa", b"b"]
    merges, orphans = tiktoken_format.merges_from_ranks(ranks)
    assert merges == [(b"a", b"a"), (b"a", b"b"), (b"aa", b"b"), (b"a", b"c")] and orphans == []
    ranks[b"abc"] = 300  # a, b, c: only "ab" is a token, so ab + c
    assert tiktoken_format.merges_from_ranks(ranks)[0][-1] == (b"ab", b"c")
    ranks[b"xyz"] = 301  # no lower-ranked pair: merging stops at three pieces
    assert tiktoken_format.merges_from_ranks(ranks)[1] == [b"xyz"]


def test_tiktoken_load_reference_case(tmp_path: Path) -> None:
    path = tmp_path / "ref.tiktoken"
    path.write_text("".join(rank_line(t, r) for t, r in reference_ranks().items()), encoding="utf-8")
    assert tiktoken_format.read(str(path)) == reference_ranks()
    tokenizer = tiktoken_format.load(str(path), special_tokens={"<|end|>": 300})
    # minbpe's "aaabdaaabac": a+a first (rank 256) leaves "aa a b", then a+b (257); aa+ab is no token.
    assert tokenizer.encode("aaabdaaabac").ids == [256, 257, 100, 256, 257, 259]
    assert tokenizer.encode("aaabdaaabac").tokens == ["aa", "ab", "d", "aa", "ab", "ac"]
    assert tokenizer.encode("ab<|end|>").ids == [257, 300]
    assert tokenizer.decode([257, 300], skip_special_tokens=False) == "ab<|end|>"


def test_tiktoken_round_trip_with_sidecar(tmp_path: Path) -> None:
    tokenizer = small_byte_level()
    tokenizer.add_special_tokens(["<|endoftext|>"])
    path = str(tmp_path / "small.tiktoken")
    assert tiktoken_format.write(tokenizer, path) == []
    sidecar = json.loads(Path(path + ".json").read_text(encoding="utf-8"))
    assert sidecar == {
        "name": "small",
        "pat_str": tiktoken_format.GPT2_PATTERN,
        "special_tokens": {"<|endoftext|>": 290},
        "explicit_n_vocab": 291,
    }
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    assert [int(line.split()[1]) for line in lines] == list(range(290))
    loaded = tiktoken_format.load(path)
    assert merges_of(loaded) == merges_of(tokenizer)
    assert loaded.get_vocab() == tokenizer.get_vocab()
    for line in LINES + ["x<|endoftext|>y"]:
        assert loaded.encode(line).ids == tokenizer.encode(line).ids
    arguments = tiktoken_format.encoding_arguments(tokenizer, "small")
    assert arguments["mergeable_ranks"] == tiktoken_format.read(path)
    assert arguments["special_tokens"] == {"<|endoftext|>": 290}


def test_tiktoken_split_pattern_round_trip(tmp_path: Path) -> None:
    tokenizer = small_byte_level()
    pattern = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
    path = str(tmp_path / "cl.tiktoken")
    tiktoken_format.write(tokenizer, path)
    loaded = tiktoken_format.load(path, pattern=pattern)
    assert loaded.pre_tokenizer is not None
    assert [piece for piece, _ in loaded.pre_tokenizer.pre_tokenize_str("hello 12345")] == ["hello", "Ġ", "123", "45"]
    assert tiktoken_format.write(loaded, str(tmp_path / "again.tiktoken")) == []
    assert json.loads(Path(tmp_path / "again.tiktoken.json").read_text(encoding="utf-8"))["pat_str"] == pattern


def test_tiktoken_write_refuses_what_tiktoken_cannot_do(tmp_path: Path) -> None:
    path = str(tmp_path / "x.tiktoken")
    with pytest.raises(TokenizerFileError, match="x.tiktoken: cannot be written as a tiktoken file: .*model is WordPiece"):
        tiktoken_format.write(wordpiece_tokenizer(), path)
    plain = Tokenizer(BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
    plain.pre_tokenizer = pre_tokenizers.ByteLevel()
    with pytest.raises(TokenizerFileError, match="every single byte as a token; 254 are missing"):
        tiktoken_format.write(plain, path)
    shuffled = small_byte_level()
    vocab = shuffled.model.get_vocab()
    merges = merges_of(shuffled)
    first, second = merges[0], merges[1]
    # swap the ids of the first two merged tokens: ranks no longer follow the merge order
    a, b = first[0] + first[1], second[0] + second[1]
    vocab[a], vocab[b] = vocab[b], vocab[a]
    shuffled.model = BPE(vocab, merges)
    with pytest.raises(TokenizerFileError, match="not consistent with the merge order: merge 1 of the model"):
        tiktoken_format.write(shuffled, path)
    whitespace = small_byte_level()
    whitespace.pre_tokenizer = pre_tokenizers.Whitespace()
    with pytest.raises(TokenizerFileError, match=r"pre-tokenizer \(Whitespace\) has no tiktoken pattern"):
        tiktoken_format.write(whitespace, path)
    with pytest.raises(EngineError, match="has no tiktoken pattern"):
        tiktoken_format.encoding_arguments(whitespace)
    assert os.listdir(tmp_path) == []


def test_tiktoken_write_notes(tmp_path: Path) -> None:
    tokenizer = small_byte_level()
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.add_tokens(["plain"])
    notes = "\n".join(tiktoken_format.write(tokenizer, str(tmp_path / "x.tiktoken")))
    assert "add_prefix_space=True is lost" in notes
    assert "the normalizer (NFC) is not stored" in notes
    assert "the added token 'plain' (id 290) is not in the model's vocabulary and is lost" in notes


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("IQ== 0\nnot-base64! 1\n", r"x.tiktoken: line 2: 'not-base64!' is not base64"),
        ("IQ== 0\nIg==\n", r"line 2: expected `<base64 token> <rank>`"),
        ("IQ== 0\nIg== one\n", r"line 2: the rank 'one' is not a non-negative integer"),
        ("IQ== 0\nIg== -1\n", r"line 2: the rank '-1' is not"),
        ("IQ== 0\n\nIQ== 1\n", r"line 3: the token b'!' is already on line 1"),
        ("IQ== 0\nIg== 0\n", r"line 2: the rank 0 is already on line 1"),
        ("IQ== 0\n 1\n", r"line 2: expected"),
        ("IQ== 0\n= 1\n", r"line 2: '=' is not base64"),
    ],
)
def test_tiktoken_bad_lines(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "x.tiktoken"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=message):
        tiktoken_format.read(str(path))
    with pytest.raises(TokenizerFileError, match=message):
        tiktoken_format.load(str(path))


def test_tiktoken_load_names_a_token_no_merge_builds(tmp_path: Path) -> None:
    path = tmp_path / "x.tiktoken"
    path.write_text(rank_line(b"a", 0) + rank_line(b"b", 1) + rank_line(b"c", 2) + rank_line(b"abc", 3), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"line 4: the token b'abc' \(rank 3\) is not two tokens of lower rank merged"):
        tiktoken_format.load(str(path))


def test_tiktoken_bad_sidecar_and_special_collisions(tmp_path: Path) -> None:
    path = tmp_path / "x.tiktoken"
    path.write_text("".join(rank_line(bytes([b]), b) for b in range(256)) + rank_line(b"ab", 256), encoding="utf-8")
    sidecar = tmp_path / "x.tiktoken.json"
    sidecar.write_text('{"pat_str": 3}', encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"x.tiktoken.json: field 'pat_str': expected a string"):
        tiktoken_format.load(str(path))
    sidecar.write_text('{"pat_str": "\\\\S+", "special_tokens": {"<s>": -2}}', encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"field 'special_tokens': the id of '<s>'"):
        tiktoken_format.load(str(path))
    sidecar.write_text('{"pat_str": "\\\\S+", "special_tokens": {"<s>": 98}}', encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"x.tiktoken: cannot be loaded with .*x.tiktoken.json: special token '<s>': id 98 is already the rank of 'b'"):
        tiktoken_format.load(str(path))
    # explicit arguments win over the sidecar
    loaded = tiktoken_format.load(str(path), pattern=r"\S+", special_tokens={"<s>": 257})
    assert loaded.encode("ab<s>").ids == [256, 257]


# -- fuzzing: every reader raises only the engine's documented errors ---------------------------

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
json_ids = st.one_of(st.integers(-3, 2**33), st.floats(allow_nan=False), st.text(max_size=3), st.booleans(), st.none())


def _write(folder: str, name: str, data: bytes) -> str:
    path = os.path.join(folder, name)
    with open(path, "wb") as handle:
        handle.write(data)
    return path


@FUZZ
@given(data=st.binary(max_size=300), text=st.text(max_size=200))
def test_fuzz_bert_vocab(data: bytes, text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for raw in (data, text.encode("utf-8")):
            path = _write(folder, "vocab.txt", raw)
            try:
                vocab = bert_vocab.read(path)
                tokenizer = bert_vocab.load(path)
            except TokenizerFileError as error:
                assert "vocab.txt" in str(error)
                continue
            assert sorted(vocab.values()) == sorted(set(vocab.values()))
            try:
                tokenizer.encode(text)
            except EngineError as error:
                assert "Missing [UNK]" in str(error)


@FUZZ
@given(
    vocab=st.one_of(st.dictionaries(st.text(max_size=4), json_ids, max_size=8), st.binary(max_size=80).map(lambda b: b.decode("latin-1"))),
    merges=st.lists(st.text(alphabet="ab c#\r\nversion", max_size=8), max_size=6),
    text=st.text(max_size=30),
)
def test_fuzz_gpt2(vocab: dict[str, object] | str, merges: list[str], text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        vocab_text = vocab if isinstance(vocab, str) else json.dumps(vocab)
        vocab_path = _write(folder, "vocab.json", vocab_text.encode("utf-8"))
        merges_path = _write(folder, "merges.txt", "\n".join(merges).encode("utf-8"))
        try:
            tokenizer = gpt2.load(vocab_path, merges_path)
        except TokenizerFileError as error:
            assert "vocab.json" in str(error) or "merges.txt" in str(error)
            return
        try:
            tokenizer.encode(text)
        except EngineError:
            pass  # a vocabulary without the text's characters and no unk: the model's own error


@FUZZ
@given(
    lines=st.lists(
        st.one_of(
            st.tuples(st.binary(min_size=1, max_size=4), st.integers(0, 400)).map(lambda t: rank_line(t[0], t[1])),
            st.text(alphabet="QWE=+/ 0123456789\t-x", max_size=12).map(lambda s: s + "\n"),
        ),
        max_size=12,
    ),
    extra=st.binary(max_size=20),
    text=st.text(max_size=20),
)
def test_fuzz_tiktoken(lines: list[str], extra: bytes, text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for raw in ("".join(lines).encode("utf-8"), extra):
            path = _write(folder, "x.tiktoken", raw)
            try:
                tokenizer = tiktoken_format.load(path)
            except TokenizerFileError as error:
                assert "x.tiktoken" in str(error)
                continue
            try:
                tokenizer.encode(text)
            except EngineError:
                pass


def test_json_floats_are_read_as_serde_json_reads_them() -> None:
    from engine.formats.safe_json import serde_float

    # what HF holds after reading these (its serde_json is not correctly rounded)
    assert serde_float("-3.6136524666377596") == -3.61365246663776
    assert serde_float("-4.2057790664793036") == -4.205779066479304
    assert serde_float("0.1") == 0.1
    assert serde_float("-12.5") == -12.5
    assert serde_float("1e-3") == 0.001
    assert serde_float("2.5E2") == 250.0
    assert serde_float("123456789012345678901234.5") == 1.2345678901234567e23  # digits past u64 dropped


# -- BERT vocab.txt: cased or uncased, as the vocabulary shows ----------------------------------

CAPITALISED = ["Hello", "World", "The", "Paris", "##Ing", "London", "Berlin", "Anna", "John", "Mary", "USA", "##S"]
ACCENTED = ["café", "naïve", "é", "##é", "über", "ñ", "##ñ", "à", "résumé", "ü", "ö", "##ö"]


def test_case_is_guessed_from_the_vocabulary() -> None:
    lowercase = {"[PAD]": 0, "[UNK]": 1, "hello": 2, "world": 3}
    guess = bert_vocab.guess_case(lowercase)
    assert (guess.lowercase, guess.strip_accents, guess.capitals, guess.accented) == (True, None, 0, 0)
    assert guess.note == "lowercase vocabulary (no tokens with capitals): lowercase on, accents stripped"
    # one capital in four tokens is enough in a vocabulary this small; [UNK] never counts
    guess = bert_vocab.guess_case({**lowercase, "Hello": 4})
    assert (guess.lowercase, guess.strip_accents, guess.capitals) == (False, None, 1)
    assert guess.note == "cased vocabulary (1 token with capitals): lowercase off, accents kept"
    guess = bert_vocab.guess_case({**lowercase, "café": 4})
    assert (guess.lowercase, guess.strip_accents, guess.accented) == (True, False, 1)
    assert guess.note == (
        "lowercase vocabulary (no tokens with capitals) with accented letters (1 token): lowercase on, accents kept"
    )
    # in a large vocabulary, a few stray tokens do not decide
    large = {f"w{i}": i for i in range(5000)}
    assert bert_vocab.guess_case({**large, **{t: 5000 + i for i, t in enumerate(CAPITALISED[:9])}}).lowercase is True
    assert bert_vocab.guess_case({**large, **{t: 5000 + i for i, t in enumerate(CAPITALISED[:10])}}).lowercase is False
    assert bert_vocab.significant(5010) == 10 and bert_vocab.significant(250) == 2 and bert_vocab.significant(3) == 1


def test_a_cased_vocab_txt_loads_cased_and_says_so(tmp_path: Path) -> None:
    uncased = corpus_path("bert_uncased_vocab.txt").read_text(encoding="utf-8")
    path = tmp_path / "vocab.txt"
    path.write_text(uncased + "".join(token + "\n" for token in CAPITALISED), encoding="utf-8")
    assert bert_vocab.detect_case(str(path)).note == "cased vocabulary (12 tokens with capitals): lowercase off, accents kept"
    loaded = convert.load_noted(str(path))
    assert loaded.notes == ["cased vocabulary (12 tokens with capitals): lowercase off, accents kept"]
    # "Hello" is its own token, the first one added (30522 after the real vocab; "world" is 2088 there)
    vocab = uncased.splitlines()
    assert loaded.tokenizer.encode("Hello world").ids == [101, len(vocab), vocab.index("world"), 102]
    # asked for, the old behaviour: lowercased, "Hello" is "hello" (7592)
    assert bert_vocab.load(str(path), lowercase=True).encode("Hello world").ids == [101, vocab.index("hello"), vocab.index("world"), 102]


def test_the_uncased_vocab_txt_still_loads_lowercasing() -> None:
    loaded = convert.load_noted(str(corpus_path("bert_uncased_vocab.txt")))
    assert loaded.notes == ["lowercase vocabulary (no tokens with capitals): lowercase on, accents stripped"]
    assert loaded.tokenizer.encode("Hello Café").tokens == ["[CLS]", "hello", "cafe", "[SEP]"]


def test_inspect_says_what_was_detected(tmp_path: Path) -> None:
    path = tmp_path / "vocab.txt"
    path.write_text(corpus_path("bert_uncased_vocab.txt").read_text(encoding="utf-8") + "".join(t + "\n" for t in CAPITALISED), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-P", "-m", "workbench.cli", "inspect", str(path)],
        capture_output=True, text=True, encoding="utf-8", timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "\ndetected:        cased vocabulary (12 tokens with capitals): lowercase off, accents kept\n" in result.stdout
    assert "BertNormalizer(clean_text=true, handle_chinese_chars=true, strip_accents=null, lowercase=false)" in result.stdout
