"""engine.corpus.ids: corpora -> .bin/.npy/.jsonl ids equal to `encode(line).ids`, the same bytes
from one process or several, uint16/uint32, separators, and bad input that leaves nothing behind."""

from __future__ import annotations

import json
import os
import sys
from array import array
from pathlib import Path

import numpy
import pytest
from support import Recorder, corpus_path, train_byte_level

from engine import Tokenizer, models, pre_tokenizers
from engine.corpus.ids import (
    KINDS,
    NPY_HEADER_SIZE,
    STAGE_ENCODE,
    encode_files,
    ids_dtype,
    npy_header,
    output_kind,
    written_paths,
)
from engine.corpus.streams import READ_SIZE
from engine.errors import CorpusError, FileError, TrainingCancelled

MADE_UP = (
    "\n"  # an empty document first
    "naïve café ☃\r\n"  # CRLF: the '\r' is part of the line ending
    "  \n"
    "日本語のテキスト、句読点。\n"
    "\n"
    "👩\u200d👩\u200d👧 emoji and tabs\tinside\n"
    "a lone \r inside a line\n"
    "last line without a newline"
)


@pytest.fixture(scope="module")
def bert() -> Tokenizer:
    """The real BERT tokenizer, without its padding to 128 (a post-processor adds [CLS] ... [SEP])."""
    tokenizer = Tokenizer.from_file(str(corpus_path("bert_uncased_tokenizer.json")))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


@pytest.fixture(scope="module")
def byte_level() -> Tokenizer:
    """A small GPT-2-style byte-level BPE with an <|endoftext|> special token."""
    lines = corpus_path("botchan.txt").read_text(encoding="utf-8").splitlines()[:300]
    tokenizer = train_byte_level(lines, 400)
    tokenizer.add_special_tokens(["<|endoftext|>"])
    return tokenizer


@pytest.fixture(params=["bert", "byte_level"])
def tokenizer(request: pytest.FixtureRequest) -> Tokenizer:
    found: Tokenizer = request.getfixturevalue(request.param)
    return found


@pytest.fixture
def botchan(tmp_path: Path) -> Path:
    """The first 400 lines of botchan.txt (BOM, blank lines and all)."""
    data = corpus_path("botchan.txt").read_bytes()
    cut = 0
    for _ in range(400):
        cut = data.index(b"\n", cut) + 1
    path = tmp_path / "inputs" / "botchan400.txt"
    path.parent.mkdir()
    path.write_bytes(data[:cut])
    return path


def documents(*paths: Path) -> list[str]:
    """The documents of the files as the brief defines them: one per '\\n'-ended line, ending stripped."""
    found: list[str] = []
    for path in paths:
        lines = path.read_bytes().decode("utf-8").split("\n")
        tail = lines.pop()
        found += [line.rstrip("\r") for line in lines]
        if tail:
            found.append(tail.rstrip("\r"))
    return found


def read_ids(path: Path) -> list[int] | list[list[int]]:
    """What a reader gets back: the flat ids (.bin, .npy), or one list per document (.jsonl)."""
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="ascii").splitlines()]
    if path.suffix == ".npy":
        return [int(i) for i in numpy.load(path).tolist()]
    sidecar = json.loads(Path(str(path) + ".json").read_text(encoding="utf-8"))
    ids = array("H" if sidecar["dtype"] == "uint16" else "I")
    ids.frombytes(path.read_bytes())
    if sys.byteorder == "big":
        ids.byteswap()
    return ids.tolist()


def expected(tokenizer: Tokenizer, docs: list[str], kind: str, separator: int | None = None) -> list[int] | list[list[int]]:
    per_document = [tokenizer.encode(doc).ids + ([separator] if separator is not None else []) for doc in docs]
    if kind == ".jsonl":
        return per_document
    return [i for ids in per_document for i in ids]


def listing(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


# -- every format round-trips ---------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_botchan_round_trips_through_every_format(tokenizer: Tokenizer, botchan: Path, tmp_path: Path, kind: str) -> None:
    out = tmp_path / f"ids{kind}"
    summary = encode_files(tokenizer, [str(botchan)], str(out))
    docs = documents(botchan)
    # the byte order mark stays in the first document ("\ufeffProject Gutenberg's Botchan ...")
    assert len(docs) == 400 and docs[0].startswith("\ufeff")
    assert read_ids(out) == expected(tokenizer, docs, kind)
    assert summary.documents == 400
    assert summary.tokens == sum(len(tokenizer.encode(doc).ids) for doc in docs)
    assert summary.dtype == ("json" if kind == ".jsonl" else "uint16")
    assert summary.paths == tuple(written_paths(str(out)))
    assert summary.processes == 1 and summary.bytes_read == botchan.stat().st_size
    assert listing(tmp_path) == sorted(["inputs", *(Path(p).name for p in summary.paths)])


@pytest.mark.parametrize("kind", KINDS)
def test_empty_lines_crlf_and_non_ascii_in_two_files(tokenizer: Tokenizer, tmp_path: Path, kind: str) -> None:
    first = tmp_path / "first.txt"
    first.write_text(MADE_UP, encoding="utf-8", newline="")
    second = tmp_path / "second.txt"
    second.write_text("second file\n\n", encoding="utf-8")
    out = tmp_path / f"made-up{kind}"
    summary = encode_files(tokenizer, [str(first), str(second)], str(out))
    docs = documents(first, second)
    assert docs == ["", "naïve café ☃", "  ", "日本語のテキスト、句読点。", "", "👩\u200d👩\u200d👧 emoji and tabs\tinside",
                    "a lone \r inside a line", "last line without a newline", "second file", ""]
    assert summary.documents == len(docs)
    assert read_ids(out) == expected(tokenizer, docs, kind)


def test_jsonl_is_one_compact_array_per_document_and_nothing_else(byte_level: Tokenizer, tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("ab\n\nab ab\n", encoding="utf-8")
    out = tmp_path / "ids.jsonl"
    encode_files(byte_level, [str(source)], str(out))
    lines = out.read_text(encoding="ascii").split("\n")
    assert lines[-1] == "" and len(lines) == 4
    assert lines[1] == "[]"
    assert lines[0] == json.dumps(byte_level.encode("ab").ids, separators=(",", ":"))


def test_a_tokenizer_that_pads_writes_what_encode_gives(tmp_path: Path) -> None:
    padded = Tokenizer.from_file(str(corpus_path("bert_uncased_tokenizer.json")))
    assert padded.padding is not None
    source = tmp_path / "in.txt"
    source.write_text("hello world\nshort\n", encoding="utf-8")
    out = tmp_path / "ids.jsonl"
    encode_files(padded, [str(source)], str(out))
    assert read_ids(out) == [padded.encode("hello world").ids, padded.encode("short").ids]
    assert all(isinstance(row, list) and len(row) == 128 for row in read_ids(out))


# -- several processes ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_one_and_two_processes_write_identical_bytes(byte_level: Tokenizer, botchan: Path, tmp_path: Path, kind: str) -> None:
    small = tmp_path / "small.txt"
    small.write_text(MADE_UP + "\n" + "one more line\n" * 30, encoding="utf-8")
    files = [str(botchan), str(small)]
    one = encode_files(byte_level, files, str(tmp_path / f"one{kind}"), separator="<|endoftext|>", processes=1)
    two = encode_files(byte_level, files, str(tmp_path / f"two{kind}"), separator="<|endoftext|>", processes=2)
    three = encode_files(byte_level, [str(small)], str(tmp_path / f"three{kind}"), processes=3)
    assert (one.processes, two.processes, three.processes) == (1, 2, 3)
    assert (tmp_path / f"one{kind}").read_bytes() == (tmp_path / f"two{kind}").read_bytes()
    assert (one.documents, one.tokens) == (two.documents, two.tokens)
    if kind == ".bin":
        first = json.loads((tmp_path / "one.bin.json").read_text(encoding="utf-8"))
        second = json.loads((tmp_path / "two.bin.json").read_text(encoding="utf-8"))
        assert first == second
    separator = byte_level.token_to_id("<|endoftext|>")
    assert read_ids(tmp_path / f"two{kind}") == expected(byte_level, documents(botchan, small), kind, separator)
    assert read_ids(tmp_path / f"three{kind}") == expected(byte_level, documents(small), kind)
    assert not [name for name in listing(tmp_path) if name.startswith(".")]


# -- dtype, separator, sidecar, header -------------------------------------------------------


def test_a_vocabulary_past_65536_is_written_as_uint32(tmp_path: Path) -> None:
    vocab = {f"w{i}": i for i in range(70_000)}
    vocab["<unk>"] = 70_000
    big = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    big.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    assert ids_dtype(big) == "uint32"
    source = tmp_path / "in.txt"
    source.write_text("w69999 w1 w65536\nw65535 nope\n", encoding="utf-8")
    for kind in (".bin", ".npy"):
        out = tmp_path / f"big{kind}"
        summary = encode_files(big, [str(source)], str(out))
        assert summary.dtype == "uint32"
        assert read_ids(out) == [69_999, 1, 65_536, 65_535, 70_000]
    assert json.loads((tmp_path / "big.bin.json").read_text(encoding="utf-8"))["dtype"] == "uint32"
    assert (tmp_path / "big.bin").stat().st_size == 5 * 4
    assert numpy.load(tmp_path / "big.npy").dtype == numpy.dtype("<u4")


def test_a_vocabulary_of_exactly_65536_still_fits_uint16() -> None:
    vocab = {f"w{i}": i for i in range(65_536)}
    assert ids_dtype(Tokenizer(models.WordLevel(vocab, unk_token="w0"))) == "uint16"
    vocab["extra"] = 65_536
    assert ids_dtype(Tokenizer(models.WordLevel(vocab, unk_token="w0"))) == "uint32"


def test_bin_sidecar_describes_the_file(byte_level: Tokenizer, tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("ab\n\nab ab\n", encoding="utf-8")
    out = tmp_path / "ids.bin"
    summary = encode_files(byte_level, [str(source)], str(out), separator="<|endoftext|>", tokenizer_path="tok.json")
    separator = byte_level.token_to_id("<|endoftext|>")
    sidecar = json.loads((tmp_path / "ids.bin.json").read_text(encoding="utf-8"))
    assert sidecar == {"dtype": "uint16", "byte_order": "little", "tokens": summary.tokens, "documents": 3,
                       "separator_id": separator, "tokenizer": "tok.json", "files": [str(source)]}
    ids = read_ids(out)
    assert out.stat().st_size == 2 * summary.tokens
    assert ids == byte_level.encode("ab").ids + [separator, separator] + byte_level.encode("ab ab").ids + [separator]

    plain = encode_files(byte_level, [str(source)], str(tmp_path / "plain.bin"))
    sidecar = json.loads((tmp_path / "plain.bin.json").read_text(encoding="utf-8"))
    assert sidecar["separator_id"] is None and sidecar["tokenizer"] is None
    assert plain.tokens == summary.tokens - 3 and plain.separator_id is None


def test_npy_header_is_fixed_width_and_numpy_reads_it() -> None:
    header = npy_header("<u2", 3)
    assert len(header) == NPY_HEADER_SIZE == len(npy_header("<u4", 10**18))
    assert header.startswith(b"\x93NUMPY\x01\x00" + (NPY_HEADER_SIZE - 10).to_bytes(2, "little"))
    assert header.endswith(b" \n")
    assert b"{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }" in header
    import io

    array_back = numpy.load(io.BytesIO(header + b"\x01\x00\x02\x00\xff\xff"))
    assert array_back.tolist() == [1, 2, 65535] and array_back.dtype == numpy.dtype("<u2")


def test_an_empty_file_gives_an_empty_array(byte_level: Tokenizer, tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    summary = encode_files(byte_level, [str(empty)], str(tmp_path / "none.npy"), processes=2)
    assert (summary.documents, summary.tokens) == (0, 0)
    assert read_ids(tmp_path / "none.npy") == []


def test_output_kind_comes_from_the_suffix() -> None:
    assert output_kind("a/ids.BIN") == ".bin"
    assert written_paths("ids.bin") == ["ids.bin", "ids.bin.json"]
    assert written_paths("ids.npy") == ["ids.npy"]
    with pytest.raises(ValueError, match=r"\.bin, \.npy, \.jsonl"):
        output_kind("ids.txt")


def test_progress_counts_bytes_to_the_end(byte_level: Tokenizer, botchan: Path, tmp_path: Path) -> None:
    for processes in (1, 2):
        recorder = Recorder()
        encode_files(byte_level, [str(botchan)], str(tmp_path / f"p{processes}.bin"), processes=processes, progress=recorder)
        size = botchan.stat().st_size
        assert {event.stage for event in recorder.events} == {STAGE_ENCODE}
        assert recorder.events[0].current == 0
        assert (recorder.events[-1].current, recorder.events[-1].total, recorder.events[-1].unit) == (size, size, "bytes")
        currents = [event.current for event in recorder.events]
        assert currents == sorted(currents)


# -- bad input: one clear error, nothing left behind -----------------------------------------


def test_missing_file_and_directory(byte_level: Tokenizer, tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("fine\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="nope.txt: file not found"):
        encode_files(byte_level, [str(good), str(tmp_path / "nope.txt")], str(tmp_path / "ids.bin"))
    with pytest.raises(CorpusError, match="is a directory"):
        encode_files(byte_level, [str(tmp_path)], str(tmp_path / "ids.npy"))
    with pytest.raises(CorpusError, match="no input files"):
        encode_files(byte_level, [], str(tmp_path / "ids.npy"))
    assert listing(tmp_path) == ["good.txt"]


@pytest.mark.parametrize("processes", [1, 2])
def test_a_line_that_is_not_utf8_is_named_by_line_and_byte(byte_level: Tokenizer, tmp_path: Path, processes: int) -> None:
    bad = tmp_path / "latin1.txt"
    # the bad line sits in the second half, so that with two processes a child finds it
    bad.write_bytes("héllo\n".encode() * 200 + "caf\xe9\n".encode("latin-1") + b"more\n" * 5)
    out = tmp_path / "ids.jsonl"
    out.write_text("precious\n", encoding="utf-8")
    with pytest.raises(CorpusError) as caught:
        encode_files(byte_level, [str(bad)], str(out), processes=processes)
    message = str(caught.value)
    assert message.startswith(f"{bad}: line 201: byte 0xe9 is not UTF-8") and message.endswith("at byte 1403")
    assert caught.value.byte_offset == 7 * 200 + 3
    assert out.read_text(encoding="utf-8") == "precious\n"
    assert listing(tmp_path) == ["ids.jsonl", "latin1.txt"]


def test_unknown_separator_or_suffix_fails_before_any_work(byte_level: Tokenizer, tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("x\n", encoding="utf-8")
    recorder = Recorder()
    with pytest.raises(ValueError, match="'<eos>' is not in the tokenizer's vocabulary"):
        encode_files(byte_level, [str(source)], str(tmp_path / "ids.bin"), separator="<eos>", progress=recorder)
    with pytest.raises(ValueError, match="unknown output format"):
        encode_files(byte_level, [str(source)], str(tmp_path / "ids.txt"), progress=recorder)
    assert recorder.events == []
    assert listing(tmp_path) == ["in.txt"]


def test_output_that_is_an_input_or_in_a_missing_folder(byte_level: Tokenizer, tmp_path: Path) -> None:
    source = tmp_path / "corpus.jsonl"
    source.write_text("keep me\n", encoding="utf-8")
    with pytest.raises(FileError, match="is also an input file"):
        encode_files(byte_level, [str(source)], str(source))
    with pytest.raises(FileError, match="does not exist"):
        encode_files(byte_level, [str(source)], str(tmp_path / "no" / "ids.bin"))
    with pytest.raises(FileError, match="is a directory"):
        (tmp_path / "dir.npy").mkdir()
        encode_files(byte_level, [str(source)], str(tmp_path / "dir.npy"))
    assert source.read_text(encoding="utf-8") == "keep me\n"
    assert listing(tmp_path) == ["corpus.jsonl", "dir.npy"]


@pytest.mark.parametrize("processes", [1, 2])
def test_cancel_leaves_nothing_behind(byte_level: Tokenizer, botchan: Path, tmp_path: Path, processes: int) -> None:
    out = tmp_path / "ids.bin"
    with pytest.raises(TrainingCancelled):
        encode_files(byte_level, [str(botchan)] * 3, str(out), processes=processes, progress=Recorder(stop_after=2))
    assert listing(tmp_path) == ["inputs"]


def test_an_existing_output_is_replaced_only_when_complete(byte_level: Tokenizer, tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("ab ab\n", encoding="utf-8")
    out = tmp_path / "ids.bin"
    out.write_bytes(b"old")
    (tmp_path / "ids.bin.json").write_text("{}", encoding="utf-8")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xff\n")
    with pytest.raises(CorpusError, match="line 2"):
        encode_files(byte_level, [str(source), str(bad)], str(out))
    assert out.read_bytes() == b"old" and (tmp_path / "ids.bin.json").read_text(encoding="utf-8") == "{}"
    summary = encode_files(byte_level, [str(source)], str(out))
    assert read_ids(out) == byte_level.encode("ab ab").ids and summary.tokens == len(byte_level.encode("ab ab").ids)
    assert listing(tmp_path) == ["bad.txt", "ids.bin", "ids.bin.json", "in.txt"]


# -- a line longer than a read block --------------------------------------------------------


def test_a_line_of_megabytes_is_encoded_in_pieces_to_the_same_ids(tokenizer: Tokenizer, tmp_path: Path) -> None:
    # (added tokens and accents inside long lines are tested in test_long_lines.py: here they
    # would send the whole line down the pure build's slow full pipeline)
    words = ["naive", "cafe,", "  spaced", "x2", "end.\t", "Words"]
    long_line = " ".join(words[i % len(words)] + str(i % 97) for i in range(150_000))
    assert len(long_line.encode()) > 2 * READ_SIZE  # three blocks at least
    source = tmp_path / "long.txt"
    source.write_text(f"[CLS] before\n{long_line}\r\nafter <|endoftext|>", encoding="utf-8", newline="")
    separator = "[SEP]" if tokenizer.token_to_id("[SEP]") is not None else "<|endoftext|>"
    sep = tokenizer.token_to_id(separator)
    assert sep is not None
    per_document = [tokenizer.encode_ids(doc) + [sep] for doc in ("[CLS] before", long_line, "after <|endoftext|>")]
    for kind in (".bin", ".jsonl"):
        out = tmp_path / f"ids{kind}"
        summary = encode_files(tokenizer, [str(source)], str(out), separator=separator)
        assert read_ids(out) == (per_document if kind == ".jsonl" else [i for ids in per_document for i in ids])
        assert summary.documents == 3


def test_a_fifo_is_never_replaced_by_the_ids(byte_level: Tokenizer, botchan: Path, tmp_path: Path) -> None:
    out = tmp_path / "ids.bin"
    os.mkfifo(out)
    with pytest.raises(FileError, match="is a named pipe \\(FIFO\\); give a regular file to write"):
        encode_files(byte_level, [str(botchan)], str(out))
    assert listing(tmp_path) == ["ids.bin", "inputs"]
    assert not out.is_file()


def test_a_file_name_that_is_not_utf8_is_escaped_in_the_sidecar(byte_level: Tokenizer, tmp_path: Path) -> None:
    # (the sidecar's json.dumps met the name's lone surrogate: a UnicodeEncodeError traceback)
    source = os.fsdecode(bytes(tmp_path) + b"/caf\xe9.txt")
    Path(source).write_text("some text\n", encoding="utf-8")
    out = tmp_path / "ids.bin"
    encode_files(byte_level, [source], str(out), tokenizer_path=os.fsdecode(b"t\xff.json"))
    sidecar = json.loads((tmp_path / "ids.bin.json").read_text(encoding="utf-8"))
    assert sidecar["files"] == [f"{tmp_path}/caf\\xe9.txt"] and sidecar["tokenizer"] == "t\\xff.json"
