"""The protobuf wire code and the SentencePiece `.model` reader/writer, without `sentencepiece`.

Parity with `sentencepiece` itself is in tests/parity/test_sentencepiece_parity.py.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support import corpus_path

from engine import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers
from engine.errors import EngineError, SchemaError, TokenizerFileError
from engine.formats import protobuf as pb
from engine.formats import sentencepiece as spf
from engine.formats import sentencepiece_proto as proto


# -- wire format -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, b"\x00"),
        (1, b"\x01"),
        (127, b"\x7f"),
        (128, b"\x80\x01"),
        (300, b"\xac\x02"),
        (2**63, b"\x80" * 9 + b"\x01"),
        (-1, b"\xff" * 9 + b"\x01"),
        (-2, b"\xfe" + b"\xff" * 8 + b"\x01"),
    ],
)
def test_varints_encode_as_protobuf_does(value: int, encoded: bytes) -> None:
    assert pb.encode_varint(value) == encoded
    field = pb.parse(b"\x08" + encoded)[0]
    assert (field.number, field.wire_type) == (1, pb.VARINT)
    assert pb.as_int32(field.value) == (value if -(2**31) <= value < 2**31 else pb.as_int32(value & pb.MASK64))


def test_a_negative_int32_is_ten_bytes_and_reads_back() -> None:
    field = pb.varint_field(43, -1)  # pad_id = -1
    assert field.raw == b"\xd8\x02" + b"\xff" * 9 + b"\x01"
    assert pb.as_int32(pb.parse(field.raw)[0].value) == -1


def test_every_wire_type_round_trips_byte_for_byte() -> None:
    fields = [
        pb.varint_field(1, 150),
        pb.float_field(2, -3.5),
        pb.string_field(3, "▁hello"),
        pb.bytes_field(4, b"\x00\xff"),
        pb.Field(5, pb.I64, 7, b"", pb.tag(5, pb.I64) + (7).to_bytes(8, "little")),
    ]
    data = pb.serialize(fields)
    parsed = pb.parse(data)
    assert [(f.number, f.wire_type) for f in parsed] == [(1, 0), (2, 5), (3, 2), (4, 2), (5, 1)]
    assert parsed[0].value == 150
    assert pb.as_float(parsed[1].value) == -3.5
    assert pb.as_text(parsed[2], "x") == "▁hello"
    assert parsed[3].data == b"\x00\xff"
    assert pb.serialize(parsed) == data


def test_a_group_is_kept_verbatim() -> None:
    # field 7 as a (deprecated) group holding field 1 = 5, then field 2 = 1
    data = b"\x3b\x08\x05\x3c\x10\x01"
    parsed = pb.parse(data)
    assert [(f.number, f.wire_type) for f in parsed] == [(7, pb.SGROUP), (2, pb.VARINT)]
    assert parsed[0].data == b"\x08\x05"
    assert pb.serialize(parsed) == data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x0a\x05ab", "declared length 5 bytes at byte 2, but only 2 remain"),
        (b"\x0a\xff\xff\xff\xff\x0f", "declared length 4294967295 bytes"),
        (b"\x08", "ends inside a varint"),
        (b"\x08" + b"\xff" * 11, "longer than 10 bytes"),
        (b"\x08" + b"\xff" * 9 + b"\x02", "overflows 64 bits"),
        (b"\x00\x01", "invalid field number 0"),
        (b"\x0e", "unexpected wire type type 6"),
        (b"\x0c", "unexpected wire type group end"),
        (b"\x15\x00\x00", "declared length 4 bytes"),
        (b"\x3b\x08\x05", "group has no end tag"),
    ],
)
def test_bad_wire_data_is_a_schema_error_naming_the_field(data: bytes, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        pb.parse(data, "model")


# -- ModelProto --------------------------------------------------------------------------------


def _tiny_model_bytes() -> bytes:
    pieces = [("<unk>", 0.0, proto.UNKNOWN), ("<s>", 0.0, proto.CONTROL), ("▁", -1.0, 0), ("a", -2.0, 0), ("▁a", -1.5, 0)]
    out = b""
    for piece, score, kind in pieces:
        body = pb.serialize([pb.string_field(1, piece), pb.float_field(2, score)])
        if kind:
            body += pb.varint_field(3, kind).raw
        out += pb.bytes_field(1, body).raw
    trainer = pb.serialize([pb.varint_field(3, 1), pb.varint_field(4, 5), pb.varint_field(43, -1), pb.varint_field(999, 7)])
    normalizer = pb.serialize([pb.string_field(1, "identity"), pb.varint_field(4, 1)])
    return out + pb.bytes_field(2, trainer).raw + pb.bytes_field(3, normalizer).raw + pb.varint_field(300, 9).raw


def test_a_model_parses_into_typed_fields_and_reserializes_identically() -> None:
    data = _tiny_model_bytes()
    model = spf.parse(data, "tiny.model")
    assert [(p.piece, p.score, p.type) for p in model.pieces] == [
        ("<unk>", 0.0, proto.UNKNOWN),
        ("<s>", 0.0, proto.CONTROL),
        ("▁", -1.0, proto.NORMAL),
        ("a", -2.0, proto.NORMAL),
        ("▁a", -1.5, proto.NORMAL),
    ]
    assert model.trainer_spec.model_type == proto.UNIGRAM
    assert model.trainer_spec.vocab_size == 5
    assert model.trainer_spec.get_int(proto.T_PAD_ID, -1) == -1
    assert model.trainer_spec.byte_fallback is False  # default
    assert model.normalizer_spec.name == "identity"
    assert model.normalizer_spec.add_dummy_prefix is True  # default
    assert [f.number for f in model.other] == [300]
    assert spf.serialize(model) == data


def test_a_changed_piece_is_re_encoded_and_the_rest_kept() -> None:
    model = spf.parse(_tiny_model_bytes(), "tiny.model")
    model.pieces[3].score = -4.0
    again = spf.parse(spf.serialize(model), "again")
    assert again.pieces[3].score == -4.0
    assert [f.number for f in again.trainer_spec.fields] == [3, 4, 43, 999]
    assert again.other[0].value == 9


def test_setting_a_spec_field_to_its_current_value_changes_no_byte() -> None:
    model = spf.parse(_tiny_model_bytes(), "tiny.model")
    before = model.trainer_spec.encode()
    model.trainer_spec.set_int(proto.T_PAD_ID, -1, -1)
    model.trainer_spec.set_int(proto.T_UNK_ID, 0, 0)  # absent, and the default
    assert model.trainer_spec.encode() == before
    model.trainer_spec.set_bool(proto.T_BYTE_FALLBACK, True, False)
    assert [f.number for f in model.trainer_spec.fields] == [3, 4, 35, 43, 999]  # inserted in number order


def test_the_real_test_model_reserializes_byte_identically() -> None:
    path = str(corpus_path("sp_test_model.model"))
    model = spf.read(path)
    assert len(model.pieces) == 1000
    assert model.pieces[0].piece == "<unk>" and model.pieces[0].type == proto.UNKNOWN
    assert model.normalizer_spec.name == "nfkc"
    assert len(model.normalizer_spec.precompiled_charsmap) > 1000
    with open(path, "rb") as handle:
        assert spf.serialize(model) == handle.read()


# -- bad files ---------------------------------------------------------------------------------


def _write(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "bad.model"
    path.write_bytes(data)
    return str(path)


def test_a_truncated_model_names_the_file_and_the_field(tmp_path: Path) -> None:
    path = _write(tmp_path, _tiny_model_bytes()[:-20])
    with pytest.raises(TokenizerFileError, match=r"bad\.model: .*normalizer_spec|bad\.model: .*declared length") as info:
        spf.read(path)
    assert path in str(info.value)


def test_a_real_model_cut_anywhere_raises_a_file_error(tmp_path: Path) -> None:
    with open(corpus_path("sp_test_model.model"), "rb") as handle:
        data = handle.read()
    for cut in (1, 2, 3, 100, 5000, len(data) // 2, len(data) - 1):
        with pytest.raises(TokenizerFileError, match="truncated|no pieces|ends inside"):
            spf.parse(data[:cut], "cut.model")


def test_a_json_file_is_not_a_model(tmp_path: Path) -> None:
    path = _write(tmp_path, b'{"version": "1.0", "model": {}}')
    with pytest.raises(TokenizerFileError, match=r"not a valid SentencePiece model \(it looks like a text/JSON file\)"):
        spf.read(path)


def test_a_length_far_beyond_the_file_is_refused_without_allocating(tmp_path: Path) -> None:
    path = _write(tmp_path, b"\x0a\xff\xff\xff\xff\x07" + b"x" * 10)
    with pytest.raises(TokenizerFileError, match=r"declared length 2147483647 bytes.*truncated"):
        spf.read(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x08\x01", r"field pieces\[0\]: expected length-delimited, found varint"),
        (pb.bytes_field(1, b"\x10\x01").raw, r"pieces\[0\]\.score \(2\): expected fixed32, found varint"),
        (pb.bytes_field(1, b"\x0a\x01a\x1d\x00\x00\x00\x00").raw, r"pieces\[0\]\.type \(3\): expected varint"),
        (pb.bytes_field(1, b"\x0a\x01a\x18\x09").raw, r"unknown piece type 9"),
        (pb.bytes_field(1, b"\x0a\x02\xff\xfe").raw, r"pieces\[0\]\.piece \(1\): string is not UTF-8"),
        (pb.bytes_field(1, b"\x15\x00\x00\x00\x00").raw, r"pieces\[0\]\.piece \(1\): empty piece"),
        (pb.bytes_field(1, b"\x0a\x01a").raw + pb.bytes_field(2, b"\x25\x00\x00\x00\x00").raw,
         r"trainer_spec\.vocab_size \(4\): expected varint, found fixed32"),
        (pb.bytes_field(1, b"\x0a\x01a").raw + pb.bytes_field(3, b"\x10\x01").raw,
         r"normalizer_spec\.precompiled_charsmap \(2\): expected length-delimited"),
        (pb.bytes_field(2, b"").raw, r"no pieces"),
    ],
)
def test_wrong_wire_types_name_the_field(data: bytes, message: str) -> None:
    with pytest.raises(TokenizerFileError, match=message):
        spf.parse(data, "x.model")


def test_missing_empty_and_directory_paths(tmp_path: Path) -> None:
    with pytest.raises(TokenizerFileError, match="no such file"):
        spf.read(str(tmp_path / "nope.model"))
    with pytest.raises(TokenizerFileError, match="is empty"):
        spf.read(_write(tmp_path, b""))
    with pytest.raises(TokenizerFileError, match="is a directory"):
        spf.read(str(tmp_path))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_parse_of_random_bytes_raises_only_engine_errors(data: bytes) -> None:
    try:
        model = spf.parse(data, "fuzz.model")
    except EngineError:
        return
    assert spf.parse(spf.serialize(model), "again").pieces[0].piece == model.pieces[0].piece


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=len(_tiny_model_bytes()) - 1), st.integers(min_value=0, max_value=255))
def test_parse_and_load_of_a_corrupted_model_raise_only_engine_errors(at: int, byte: int) -> None:
    data = bytearray(_tiny_model_bytes())
    data[at] = byte
    try:
        model = spf.parse(bytes(data), "fuzz.model")
        spf.to_tokenizer(model).encode("a a", add_special_tokens=False)
    except EngineError:
        pass


# -- pipeline ----------------------------------------------------------------------------------


def test_the_tiny_model_loads_as_a_sentencepiece_pipeline() -> None:
    tokenizer = spf.to_tokenizer(spf.parse(_tiny_model_bytes(), "tiny.model"))
    encoding = tokenizer.encode("  a  a b ", add_special_tokens=False)
    # leading/trailing spaces go, runs become one, "▁" is prefixed, "b" is unknown
    assert encoding.tokens == ["▁a", "▁a", "▁", "b"]
    assert encoding.ids == [4, 4, 2, 0]
    assert tokenizer.encode("", add_special_tokens=False).ids == []
    assert tokenizer.decode([4, 4, 2, 0]) == "a a  \u2047 "
    assert tokenizer.token_to_id("<s>") == 1
    assert tokenizer.post_processor is None


@pytest.mark.parametrize(
    ("spec_field", "message"),
    [
        (pb.bytes_field(2, pb.varint_field(3, 3).raw).raw, r"model_type \(3\) = WORD is not supported"),
        (pb.bytes_field(2, pb.varint_field(24, 1).raw).raw, r"treat_whitespace_as_suffix \(24\)"),
        (pb.bytes_field(3, pb.varint_field(5, 0).raw).raw, r"escape_whitespaces \(5\) = false"),
    ],
)
def test_options_the_pipeline_cannot_express_raise_naming_them(spec_field: bytes, message: str) -> None:
    data = pb.bytes_field(1, pb.serialize([pb.string_field(1, "<unk>"), pb.varint_field(3, proto.UNKNOWN)])).raw
    model = spf.parse(data + spec_field, "opt.model")
    with pytest.raises(TokenizerFileError, match=r"opt\.model: .*" + message):
        spf.to_tokenizer(model)


def test_a_model_without_unknown_piece_or_with_duplicates_is_refused() -> None:
    one = pb.bytes_field(1, pb.string_field(1, "a").raw).raw
    with pytest.raises(TokenizerFileError, match="no piece of type UNKNOWN"):
        spf.to_tokenizer(spf.parse(one, "m"))
    unk = pb.bytes_field(1, pb.serialize([pb.string_field(1, "<unk>"), pb.varint_field(3, 2)])).raw
    with pytest.raises(TokenizerFileError, match=r"pieces\[2\] 'a': duplicate of piece 1"):
        spf.to_tokenizer(spf.parse(unk + one + one, "m"))


def test_bpe_merges_are_rebuilt_from_scores() -> None:
    pieces = [("<unk>", 0.0, proto.UNKNOWN), ("ab", -1.0, 1), ("bc", -0.5, 1), ("a", -3.0, 1), ("b", -4.0, 1), ("c", -5.0, 1)]
    body = b"".join(
        pb.bytes_field(1, pb.serialize([pb.string_field(1, p), pb.float_field(2, s), pb.varint_field(3, t)])).raw
        for p, s, t in pieces
    )
    model = spf.parse(body + pb.bytes_field(2, pb.varint_field(3, 2).raw).raw, "bpe.model")
    tokenizer = spf.to_tokenizer(model)
    bpe = tokenizer.model
    assert isinstance(bpe, models.BPE)
    assert bpe.merges == [("b", "c"), ("a", "b")]  # "bc" scores higher, so it merges first
    # "▁" (the dummy prefix) is no piece here, so it is unknown, as in sentencepiece
    assert tokenizer.encode("abc", add_special_tokens=False).ids == [0, 3, 2]


# -- writing -----------------------------------------------------------------------------------


def _sp_style_unigram() -> Tokenizer:
    vocab = [("<unk>", 0.0), ("<s>", 0.0), ("</s>", 0.0), ("▁", -2.0), ("a", -3.0), ("▁a", -1.0), ("b", -3.5)]
    tokenizer = Tokenizer(models.Unigram(vocab, 0, False))
    tokenizer.normalizer = normalizers.Sequence(
        [normalizers.Replace(Regex(spf.STRIP_TRAILING_SPACES), ""), normalizers.Replace(Regex(spf.COLLAPSE_SPACES), " ")]
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first")
    tokenizer.add_special_tokens(["<s>", "</s>"])
    return tokenizer


def test_write_makes_a_model_and_a_vocab_that_read_back(tmp_path: Path) -> None:
    path = str(tmp_path / "m.model")
    assert spf.write(_sp_style_unigram(), path) == []
    model = spf.read(path)
    assert [(p.piece, p.type) for p in model.pieces] == [
        ("<unk>", proto.UNKNOWN), ("<s>", proto.CONTROL), ("</s>", proto.CONTROL),
        ("▁", proto.NORMAL), ("a", proto.NORMAL), ("▁a", proto.NORMAL), ("b", proto.NORMAL),
    ]
    assert model.trainer_spec.vocab_size == 7
    assert model.trainer_spec.get_int(proto.T_BOS_ID, 1) == 1
    assert model.normalizer_spec.remove_extra_whitespaces is True
    assert (tmp_path / "m.vocab").read_text(encoding="utf-8").splitlines()[3:6] == ["▁\t-2", "a\t-3", "▁a\t-1"]
    again = spf.to_tokenizer(model)
    assert again.encode(" a ab", add_special_tokens=False).ids == [5, 5, 6]


def test_write_refuses_pipelines_a_model_cannot_hold_and_touches_nothing(tmp_path: Path) -> None:
    path = tmp_path / "m.model"
    path.write_bytes(b"old")
    byte_level = _sp_style_unigram()
    byte_level.pre_tokenizer = pre_tokenizers.ByteLevel()
    with pytest.raises(TokenizerFileError, match="pre-tokenizer ByteLevel cannot be stored"):
        spf.write(byte_level, str(path))
    bert = _sp_style_unigram()
    bert.normalizer = normalizers.BertNormalizer()
    with pytest.raises(TokenizerFileError, match="normalizer BertNormalizer cannot be stored"):
        spf.write(bert, str(path))
    wordpiece = Tokenizer(models.WordPiece({"[UNK]": 0}, unk_token="[UNK]"))
    with pytest.raises(TokenizerFileError, match="WordPiece model cannot be stored"):
        spf.write(wordpiece, str(path))
    assert path.read_bytes() == b"old"
    assert not (tmp_path / "m.vocab").exists()
    assert sorted(os.listdir(tmp_path)) == ["m.model"]


def test_write_warns_about_what_the_format_does_not_carry(tmp_path: Path) -> None:
    tokenizer = Tokenizer(models.BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    warnings = spf.write(tokenizer, str(tmp_path / "b.model"))
    assert any("no unknown token" in w for w in warnings)
    assert any("starts with a space" in w for w in warnings)
    model = spf.read(str(tmp_path / "b.model"))
    assert model.pieces[3].piece == "<unk>" and model.pieces[3].type == proto.UNKNOWN
    assert [p.score for p in model.pieces[:3]] == [-1.0, -2.0, 0.0]  # alphabet below the merge
    assert model.trainer_spec.model_type == proto.BPE_TYPE


def test_float_scores_print_like_cpp_streams() -> None:
    assert spf._score_text(-3.7958471775054932) == "-3.79585"
    assert spf._score_text(0.0) == "0"
    assert spf._score_text(-1e-05) == "-1e-05"
    assert struct.pack("<f", -1.5) == struct.pack("<f", spf.parse(_tiny_model_bytes(), "t").pieces[4].score)


@pytest.mark.parametrize(
    ("steps", "name"),
    [
        ([normalizers.NFKC()], "nfkc"),
        ([normalizers.Nmt(), normalizers.NFKC()], "nmt_nfkc"),
        ([normalizers.NFKC(), normalizers.Nmt(), normalizers.Replace(Regex(spf.COLLAPSE_SPACES), " ")], "nmt_nfkc"),
    ],
)
def test_nfkc_is_written_as_sentencepiece_s_compiled_rule_table(
    tmp_path: Path, steps: list[normalizers.Normalizer], name: str
) -> None:
    from engine.formats.charsmap import nfkc_charsmap

    tokenizer = _sp_style_unigram()
    tokenizer.normalizer = normalizers.Sequence(steps)
    path = str(tmp_path / "n.model")
    spf.write(tokenizer, path)
    model = spf.read(path)
    assert model.normalizer_spec.name == name
    assert model.normalizer_spec.precompiled_charsmap == nfkc_charsmap(name == "nmt_nfkc")
    again = spf.to_tokenizer(model)
    assert again.normalizer is not None
    assert again.normalizer.normalize_str("ﬁne ｆｕｌｌ ①") == "fine full 1"


def test_nfkc_after_other_steps_is_still_refused(tmp_path: Path) -> None:
    tokenizer = _sp_style_unigram()
    tokenizer.normalizer = normalizers.Sequence([normalizers.Lowercase(), normalizers.NFKC()])
    with pytest.raises(TokenizerFileError, match="normalizer Lowercase cannot be stored"):
        spf.write(tokenizer, str(tmp_path / "n.model"))
    tokenizer.normalizer = normalizers.Sequence([normalizers.Replace(Regex(spf.COLLAPSE_SPACES), " "), normalizers.NFKC()])
    with pytest.raises(TokenizerFileError, match="normalizer NFKC cannot be stored"):
        spf.write(tokenizer, str(tmp_path / "n.model"))
