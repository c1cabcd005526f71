"""engine.corpus.sources and the corpus paths that use it: compressed text counted exactly as the plain
file, JSON Lines and Parquet/Arrow records counted whole, folders with globs, word-count tables,
several processes over a mix, every bad input's message, bounded blocks, and line sampling."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import zlib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict, Unpack

import pyarrow as pa
import pytest
import zstandard
from support import Recorder, corpus_path

from engine import Tokenizer, models, pre_tokenizers, trainers
from engine.corpus.checks import check_file
from engine.corpus.chunking import SEGMENT_CUTTER, SPACE_CUTTER
from engine.corpus.counting import (
    PipelineWords,
    WordSplitter,
    count_sampled_words,
    count_words,
    count_words_from_iterator,
)
from engine.corpus.records import LineSample
from engine.corpus.sources import CorpusSource, expand_inputs, folder_files, source_of, special_file_kind
from engine.corpus.streams import READ_SIZE, DecompressedStream, FileRange, LineBlocks, OpenStream
from engine.corpus.units import training_inputs
from engine.errors import CorpusError
from engine.pre_tokenizers import Whitespace
from engine.progress import STAGE_READ, SilentProgress
from engine.trainers.records import TrainHistory, TrainReport


class Lines(WordSplitter):
    """Each line (or record) is one word, exactly as received."""

    def words(self, line: str) -> list[str]:
        return [line]


def whitespace() -> PipelineWords:
    return PipelineWords(None, Whitespace())


def compress(kind: str, data: bytes) -> bytes:
    if kind == "gz":
        return gzip.compress(data)
    if kind == "bz2":
        return bz2.compress(data)
    if kind == "xz":
        return lzma.compress(data)
    return bytes(zstandard.ZstdCompressor().compress(data))


KINDS = ["gz", "bz2", "xz", "zst"]


def write(path: Path, data: bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return str(path)


class CountOptions(TypedDict, total=False):
    """count_words's options about what to read, as `error_of` passes them on."""

    field: str
    include: Sequence[str]
    exclude: Sequence[str]


def error_of(
    inputs: list[str], splitter: WordSplitter | None = None, processes: int = 1, **options: Unpack[CountOptions]
) -> CorpusError:
    with pytest.raises(CorpusError) as caught:
        count_words(inputs, splitter or Lines(), SilentProgress(), processes, **options)
    return caught.value


# -- kinds ------------------------------------------------------------------------------------


def test_source_of_reads_the_suffix() -> None:
    assert source_of("a/b.txt") == CorpusSource("a/b.txt", "lines")
    assert source_of("b.TXT.GZ") == CorpusSource("b.TXT.GZ", "lines", "gz")
    assert source_of("c.jsonl.zst", "body") == CorpusSource("c.jsonl.zst", "jsonl", "zst", "body")
    assert source_of("d.parquet").format == "arrow"
    assert source_of("e.feather").format == "arrow"
    assert source_of("f.tsv").format == "counts"
    assert source_of("g").is_plain
    with pytest.raises(CorpusError, match="compressed parquet"):
        source_of("h.parquet.gz")


# -- compressed text --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_compressed_shakespeare_counts_equal_the_plain_file(tmp_path: Path, kind: str) -> None:
    plain = corpus_path("shakespeare.txt")
    packed = write(tmp_path / f"shakespeare.txt.{kind}", compress(kind, plain.read_bytes()))
    expected = count_words([str(plain)], whitespace(), SilentProgress(), 1)
    assert count_words([packed], whitespace(), SilentProgress(), 1) == expected


@pytest.mark.parametrize("kind", KINDS)
def test_compressed_lines_are_the_plain_lines(tmp_path: Path, kind: str) -> None:
    # CRLF stays in the line, a lone CR is no break, a last line without "\n" counts, blank lines count
    data = "a b\r\nc\rd\n\nhéllo 日本\n\na b\r\nlast".encode()
    plain = write(tmp_path / "plain.txt", data)
    packed = write(tmp_path / f"packed.txt.{kind}", compress(kind, data))
    assert count_words([packed], Lines(), SilentProgress(), 1) == count_words([plain], Lines(), SilentProgress(), 1)


def test_multi_member_gzip_and_multi_frame_zstd(tmp_path: Path) -> None:
    gz = write(tmp_path / "two.txt.gz", gzip.compress(b"one\ntw") + gzip.compress(b"o\nthree\n"))
    zst = write(
        tmp_path / "two.txt.zst",
        bytes(zstandard.ZstdCompressor().compress(b"one\ntw")) + bytes(zstandard.ZstdCompressor().compress(b"o\nthree\n")),
    )
    for path in (gz, zst):
        assert count_words([path], Lines(), SilentProgress(), 1) == {"one\n": 1, "two\n": 1, "three\n": 1}


def test_blocks_handed_out_are_bounded(tmp_path: Path) -> None:
    line = b"the quick brown fox jumps over the lazy dog " * 3 + b"\n"
    data = line * (3 * READ_SIZE // len(line) + 7)
    packed = write(tmp_path / "big.txt.gz", gzip.compress(data))
    reader = LineBlocks(packed, DecompressedStream(packed, "gz"))
    sizes: list[int] = []
    try:
        while reader.next_block():
            assert reader.complete
            assert reader.data.endswith(b"\n")
            sizes.append(len(reader.data))
    finally:
        reader.close()
    assert sum(sizes) == len(data)
    assert len(sizes) >= 3
    assert max(sizes) <= 2 * READ_SIZE


def _blocks(reader: LineBlocks) -> list[tuple[bytes, int, bool]]:
    found: list[tuple[bytes, int, bool]] = []
    try:
        while reader.next_block():
            found.append((reader.data, reader.offset, reader.complete))
    finally:
        reader.close()
    return found


def test_a_long_line_is_read_whole_without_a_cutter_and_in_bounded_blocks_with_one(tmp_path: Path) -> None:
    line = ("naïve words, " * (5 * READ_SIZE // 14)).encode() + b"end\n"
    path = write(tmp_path / "long.txt", b"first\n" + line + b"last")
    start = len(b"first\n")
    whole = _blocks(LineBlocks(path, FileRange(path, start, start + len(line)), start))
    assert whole == [(line, start, True)]
    for cutter in (SPACE_CUTTER, SEGMENT_CUTTER):
        blocks = _blocks(LineBlocks(path, FileRange(path, start, start + len(line)), start, cutter))
        assert b"".join(data for data, _, _ in blocks) == line
        assert len(blocks) >= 5
        assert max(len(data) for data, _, _ in blocks) <= 2 * READ_SIZE
        # each block starts where the last one ended; only the last ends the line
        offsets = [offset for _, offset, _ in blocks]
        assert offsets[0] == start
        for (data, offset, _), following in zip(blocks, offsets[1:]):
            assert offset + len(data) == following
        assert [complete for _, _, complete in blocks] == [False] * (len(blocks) - 1) + [True]
        for data, _, _ in blocks:
            data.decode("utf-8")  # never cut inside a char


def test_progress_counts_raw_bytes(tmp_path: Path) -> None:
    plain = corpus_path("shakespeare.txt")
    packed = write(tmp_path / "s.txt.xz", lzma.compress(plain.read_bytes()))
    recorder = Recorder()
    count_words([packed], whitespace(), recorder, 1)
    read = [event for event in recorder.events if event.stage == STAGE_READ]
    assert read[-1].current == read[-1].total == os.path.getsize(packed)
    assert [event.current for event in read] == sorted(event.current for event in read)


# -- JSON Lines -------------------------------------------------------------------------------


def test_jsonl_records_are_counted_whole_like_train_from_iterator(tmp_path: Path) -> None:
    texts = ["Hello world", "two\nlines in one text", "  spaced  out ", "", "日本語 text", "Hello world"]
    body = "".join(json.dumps({"id": i, "text": text}) + "\n" + ("\n" if i == 2 else "") for i, text in enumerate(texts))
    path = write(tmp_path / "data.jsonl", body.encode())
    expected = count_words_from_iterator(texts, whitespace(), SilentProgress())
    assert count_words([path], whitespace(), SilentProgress(), 1) == expected
    # records are never split at "\n"
    assert count_words([path], Lines(), SilentProgress(), 1)["two\nlines in one text"] == 1


def test_jsonl_gz_and_another_field(tmp_path: Path) -> None:
    body = "".join(json.dumps({"body": f"w{i % 3} x"}) + "\r\n" for i in range(30))
    path = write(tmp_path / "data.jsonl.gz", gzip.compress(body.encode()))
    assert count_words([path], whitespace(), SilentProgress(), 1, field="body") == {"w0": 10, "w1": 10, "w2": 10, "x": 30}


@pytest.mark.parametrize(
    ("line", "fragments"),
    [
        ('{"text": "a"', ["line 3", "not JSON", "column"]),
        ('["text"]', ["line 3", "array, not an object"]),
        ('{"title": "t", "body": "b"}', ["line 3", "no field 'text'", "'title', 'body'"]),
        ('{"text": 12}', ["line 3", "field 'text' is a JSON number, not a string"]),
        ('{"text": null}', ["line 3", "null"]),
        # int() refuses more than 4,300 digits with a plain ValueError (was a traceback)
        ('{"text": "a", "n": 1' + "1" * 5000 + "}", ["line 3", "a JSON value cannot be read", "4300 digits"]),
        ('{"text": ' + "[" * 100_000 + "]" * 100_000 + "}", ["line 3", "not JSON (nested too deeply)"]),
    ],
)
def test_bad_jsonl_lines_name_the_file_and_line(tmp_path: Path, line: str, fragments: list[str]) -> None:
    path = write(tmp_path / "bad.jsonl", ('{"text": "ok"}\n\n' + line + "\n").encode())
    error = error_of([path])
    assert error.path == path
    for fragment in fragments:
        assert fragment in str(error), str(error)


# -- Parquet / Arrow --------------------------------------------------------------------------


def test_parquet_and_arrow_columns_equal_the_iterator(tmp_path: Path) -> None:
    import pyarrow.feather as feather
    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq

    texts = [f"row {i} has words {i % 7}" for i in range(20_000)] + ["two\nlines"]
    table = pa.table({"id": list(range(len(texts))), "text": texts})
    parquet = str(tmp_path / "d.parquet")
    pq.write_table(table, parquet, row_group_size=5000)
    arrow_file = str(tmp_path / "d.arrow")
    with ipc.new_file(arrow_file, table.schema) as writer:
        for batch in table.to_batches(max_chunksize=3000):
            writer.write_batch(batch)
    stream_file = str(tmp_path / "stream.arrow")  # HF datasets' cache files are IPC streams
    with ipc.new_stream(stream_file, table.schema) as writer:
        writer.write_table(table, max_chunksize=4000)
    feather_file = str(tmp_path / "d.feather")
    feather.write_feather(table, feather_file)
    expected = count_words_from_iterator(texts, whitespace(), SilentProgress())
    for path in (parquet, arrow_file, stream_file, feather_file):
        assert count_words([path], whitespace(), SilentProgress(), 1) == expected, path


def test_parquet_column_problems(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    path = str(tmp_path / "d.parquet")
    pq.write_table(pa.table({"id": [1, 2], "content": ["a", "b"]}), path)
    error = error_of([path])
    assert error.path == path and "no column 'text'" in error.reason and "'id', 'content'" in error.reason
    error = error_of([path], field="id")
    assert "column 'id' holds int64, not strings" in error.reason
    assert count_words([path], Lines(), SilentProgress(), 1, field="content") == {"a": 1, "b": 1}
    broken = write(tmp_path / "broken.parquet", b"PAR1 not really")
    assert error_of([broken]).path == broken


# -- word-count tables ------------------------------------------------------------------------


def test_tsv_counts_are_added_as_they_are(tmp_path: Path) -> None:
    table = write(tmp_path / "counts.tsv", "Hello\t3\n▁wörld\t2\n".encode())
    text = write(tmp_path / "t.txt", b"Hello there\n")
    assert count_words([table, text], whitespace(), SilentProgress(), 1) == {"Hello": 4, "▁wörld": 2, "there": 1}
    bad = write(tmp_path / "bad.tsv", b"Hello\t3\nno tab here\n")
    error = error_of([bad])
    assert error.path == bad and "line 2" in str(error)


# -- folders ----------------------------------------------------------------------------------


def make_tree(root: Path) -> None:
    write(root / "b.txt", b"b\n")
    write(root / "a.md", b"a\n")
    write(root / "sub" / "c.txt", b"c\n")
    write(root / "build" / "d.txt", b"d\n")
    write(root / ".git" / "e.txt", b"e\n")
    write(root / ".hidden.txt", b"h\n")
    write(root / "z.bin", b"\xff\xfe")


def test_folders_with_globs(tmp_path: Path) -> None:
    make_tree(tmp_path)
    root = str(tmp_path)
    found = expand_inputs([root], include=["*.txt", "*.md"], exclude=["build/*"])
    assert found == [os.path.join(root, name) for name in ("a.md", "b.txt", os.path.join("sub", "c.txt"))]
    everything = expand_inputs([root])
    assert os.path.join(root, "z.bin") in everything and not any(".git" in p or ".hidden" in p for p in everything)
    counts = count_words([root], Lines(), SilentProgress(), 1, include=["*.txt", "*.md"], exclude=["build/*"])
    assert counts == {"a\n": 1, "b\n": 1, "c\n": 1}
    # a folder's files may be of any kind
    write(tmp_path / "sub" / "f.txt.gz", gzip.compress(b"f\n"))
    assert count_words([root], Lines(), SilentProgress(), 1, include=["*.txt", "*.gz"], exclude=["build/*"])["f\n"] == 1


def test_a_leading_double_star_also_matches_files_at_the_top(tmp_path: Path) -> None:
    make_tree(tmp_path)
    root = str(tmp_path)
    found = expand_inputs([root], include=["**/*.txt"], exclude=["**/build/*"])
    assert found == [os.path.join(root, name) for name in ("b.txt", os.path.join("sub", "c.txt"))]
    assert expand_inputs([root], include=["sub/**/*.txt"]) == [os.path.join(root, "sub", "c.txt")]


def test_a_folder_without_matching_files_names_the_folder_and_globs(tmp_path: Path) -> None:
    make_tree(tmp_path)
    error = error_of([str(tmp_path)], include=["*.rst"], exclude=["build/*"])
    assert error.path == str(tmp_path)
    assert "no training file" in error.reason and "'*.rst'" in error.reason and "'build/*'" in error.reason


# -- several processes ------------------------------------------------------------------------


def test_several_processes_over_a_mix_equal_one(tmp_path: Path) -> None:
    plain = corpus_path("shakespeare.txt")
    data = plain.read_bytes()
    inputs = [
        str(plain),
        write(tmp_path / "s.txt.gz", gzip.compress(data)),
        write(tmp_path / "s.txt.zst", compress("zst", data)),
        write(tmp_path / "r.jsonl", "".join(json.dumps({"text": line}) + "\n" for line in data.decode().split("\n\n")).encode()),
        write(tmp_path / "t.tsv", b"extra\t5\n"),
        str(plain),
    ]
    one = count_words(inputs, whitespace(), SilentProgress(), 1)
    recorder = Recorder()
    assert count_words(inputs, whitespace(), recorder, 3) == one
    read = [event for event in recorder.events if event.stage == STAGE_READ]
    assert read[-1].current == read[-1].total == sum(os.path.getsize(p) for p in inputs)
    assert one["extra"] == 5 + Counter(data.decode().split())["extra"] * 4


def test_an_error_in_a_child_process_is_the_same_error(tmp_path: Path) -> None:
    plain = corpus_path("shakespeare.txt")
    data = plain.read_bytes()
    truncated = write(tmp_path / "cut.txt.gz", gzip.compress(data)[:-100])
    error = error_of([str(plain), str(plain), str(plain), truncated], whitespace(), processes=4)
    assert error.path == truncated and "is truncated" in error.reason


# -- bad compressed input ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_truncated_compressed_files(tmp_path: Path, kind: str) -> None:
    data = b"".join(b"line %d with some words\n" % i for i in range(200_000))
    packed = compress(kind, data)
    path = write(tmp_path / f"cut.txt.{kind}", packed[: len(packed) // 2])
    error = error_of([path])
    assert error.path == path
    # where the text breaks off, exactly: what a bare decompressor makes of the cut file
    cut = packed[: len(packed) // 2]
    if kind == "gz":
        text = zlib.decompressobj(31).decompress(cut)
    elif kind == "bz2":
        text = bz2.BZ2Decompressor().decompress(cut)
    elif kind == "xz":
        text = lzma.LZMADecompressor().decompress(cut)
    else:
        text = zstandard.ZstdDecompressor().decompressobj().decompress(cut)
    assert 0 < len(text) < len(data) and data.startswith(text)
    line = text.count(b"\n") + 1
    assert error.reason == (
        f"is truncated: the compressed data ends early (at byte {len(cut):,} of the file), in line "
        f"{line:,} of the text, after {len(text):,} bytes of text; nothing after that can be read"
    )


@pytest.mark.parametrize("kind", KINDS)
def test_corrupt_compressed_files(tmp_path: Path, kind: str) -> None:
    data = b"".join(b"line %d with some words\n" % i for i in range(20_000))
    packed = bytearray(compress(kind, data))
    for i in range(40, 120):
        packed[i] ^= 0x5A
    path = write(tmp_path / f"bad.txt.{kind}", bytes(packed))
    error = error_of([path])
    assert error.path == path and ("is not valid" in error.reason or "truncated" in error.reason), error.reason


def test_not_gzip_at_all(tmp_path: Path) -> None:
    path = write(tmp_path / "plain.txt.gz", b"just text\n")
    error = error_of([path])
    assert error.path == path and "is not valid gzip data" in error.reason


@pytest.mark.parametrize("kind", KINDS)
def test_not_utf8_after_decompression_gives_the_text_offset(tmp_path: Path, kind: str) -> None:
    data = "héllo\n".encode() * 3 + "caf\xe9\n".encode("latin-1")
    path = write(tmp_path / f"latin1.txt.{kind}", compress(kind, data))
    error = error_of([path])
    assert error.path == path and error.byte_offset == 24
    assert "in the decompressed text at byte 24" in str(error)


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs /proc/self/mem to fail a read")
def test_a_read_error_mid_file(tmp_path: Path) -> None:
    # /proc/self/mem opens fine and fails to read at offset 0 (EIO): a disk failing mid-read
    link = tmp_path / "failing.txt.gz"
    link.symlink_to("/proc/self/mem")
    error = error_of([str(link)])
    assert error.path == str(link) and "cannot be read" in error.reason


def test_training_leaves_the_tokenizer_untouched_on_bad_input(tmp_path: Path) -> None:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    before = tokenizer.to_str()
    good = write(tmp_path / "good.txt", b"some good text\n" * 50)
    bad = write(tmp_path / "bad.jsonl", b'{"text": "fine"}\n{"txt": 1}\n')
    with pytest.raises(CorpusError, match="line 2"):
        tokenizer.train([good, bad], trainers.BpeTrainer(vocab_size=60, show_progress=False))
    assert tokenizer.to_str() == before


# -- check_file -------------------------------------------------------------------------------


def test_check_file_on_the_new_kinds(tmp_path: Path) -> None:
    good = check_file(write(tmp_path / "a.txt.bz2", bz2.compress(b"one\ntwo\nthree")))
    assert good.ok and good.lines == 3 and good.size == os.path.getsize(tmp_path / "a.txt.bz2")
    cut = check_file(write(tmp_path / "cut.txt.gz", gzip.compress(b"x\n" * 100_000)[:200]))
    assert "is truncated" in cut.problem
    latin = check_file(write(tmp_path / "l.txt.xz", lzma.compress("ok\ncaf\xe9\n".encode("latin-1"))))
    assert latin.lines == 2 and "in the decompressed text at byte 6" in latin.problem
    records = check_file(write(tmp_path / "r.jsonl", b'{"text": "a"}\n\n{"text": "b"}\n'))
    assert records.ok and records.lines == 2
    assert "line 2: no field 'text'" in check_file(write(tmp_path / "f.jsonl", b'{"text": "a"}\n{"t": 1}\n')).problem
    assert check_file(str(tmp_path / "r.jsonl"), field="body").problem.startswith("line 1: no field 'body'")
    table = check_file(write(tmp_path / "c.tsv", b"a\t1\nb\t2\n"))
    assert table.ok and table.lines == 2
    assert "line 1" in check_file(write(tmp_path / "bad.tsv", b"a 1\n")).problem


# -- sampling ---------------------------------------------------------------------------------


def test_line_sample_is_a_bounded_deterministic_reservoir() -> None:
    first = LineSample(10, 7)
    second = LineSample(10, 7)
    other = LineSample(10, 8)
    for i in range(1000):
        for sample in (first, second, other):
            sample.offer(str(i))
    assert first.kept == second.kept and first.kept != other.kept
    assert len(first.kept) == 10 and first.seen == 1000
    small = LineSample(10, 0)
    for i in range(4):
        small.offer(str(i))
    assert small.kept == ["0", "1", "2", "3"]


def test_sampled_counts(tmp_path: Path) -> None:
    plain = str(corpus_path("shakespeare.txt"))
    with open(plain, "rb") as stream:
        total_lines = stream.read().count(b"\n")
    records = write(tmp_path / "r.jsonl", b'{"text": "r1"}\n{"text": "r2"}\n')
    inputs: list[str] = [plain, records]
    sampled = count_sampled_words(inputs, Lines(), SilentProgress(), 500, seed=3)
    again = count_sampled_words(inputs, Lines(), SilentProgress(), 500, seed=3)
    assert sampled.counts == again.counts
    assert sampled.kept == 500 and sampled.seen == total_lines + 2
    assert sum(sampled.counts.values()) == 500
    full = count_words(inputs, Lines(), SilentProgress(), 1)
    assert all(full[word] >= count for word, count in sampled.counts.items())
    assert count_words(inputs, Lines(), SilentProgress(), sample_lines=500, seed=3) == sampled.counts
    # a sample as big as the input is the input
    everything = count_sampled_words(inputs, Lines(), SilentProgress(), total_lines + 10)
    assert everything.counts == full and everything.kept == everything.seen == total_lines + 2


def test_train_report_says_what_was_sampled(tmp_path: Path) -> None:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    text = write(tmp_path / "t.txt", "".join(f"line {i} words here\n" for i in range(300)).encode())
    report = tokenizer.train([text], trainers.BpeTrainer(vocab_size=50, show_progress=False), sample_lines=40, seed=1)
    assert (report.sampled_lines, report.read_lines) == (40, 300)
    assert TrainReport.from_dict(report.to_dict()) == report
    old = report.to_dict()
    del old["sampled_lines"], old["read_lines"]
    assert TrainReport.from_dict(old).sampled_lines == 0
    plain = Tokenizer(models.BPE()).train([text], trainers.BpeTrainer(vocab_size=50, show_progress=False))
    assert plain.sampled_lines == 0 and plain.files == 1
    assert isinstance(plain.history, TrainHistory)


def test_training_inputs_units(tmp_path: Path) -> None:
    text = write(tmp_path / "a.txt", b"abc\n")
    packed = write(tmp_path / "b.txt.gz", gzip.compress(b"abc\n"))
    units = training_inputs([text, packed])
    assert units[0].size == 4 and not isinstance(units[0], CorpusSource)
    assert isinstance(units[1], CorpusSource) and units[1].size == os.path.getsize(packed)


# -- special files and bounded lines ------------------------------------------------------------


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return str(path)


@pytest.mark.parametrize("name", ["pipe.txt", "pipe.jsonl", "pipe.txt.gz", "pipe.tsv"])
def test_a_fifo_named_as_an_input_is_refused_without_being_opened(tmp_path: Path, name: str) -> None:
    # opened, a FIFO with no writer would block forever: this returns at once
    fifo = _fifo(tmp_path / name)
    with pytest.raises(CorpusError) as caught:
        count_words([fifo], Lines(), SilentProgress(), 1)
    assert str(caught.value) == (
        f"{fifo}: is a named pipe (FIFO), not a regular file; only regular files are read (save the data to a file first)"
    )


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused(device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist here")
    with pytest.raises(CorpusError) as caught:
        training_inputs([device])
    assert caught.value.reason.startswith("is a character device, not a regular file")
    for opened in (lambda: FileRange(device, 0, 10), lambda: DecompressedStream(device, "")):
        with pytest.raises(CorpusError, match="is a character device"):
            opened()


def test_special_file_kind() -> None:
    assert special_file_kind("/dev/null") == "a character device"
    assert special_file_kind(__file__) == ""
    assert special_file_kind(os.path.dirname(__file__)) == ""
    assert special_file_kind("/no/such/file") == ""


def test_special_files_in_a_folder_are_skipped_and_reported(tmp_path: Path) -> None:
    write(tmp_path / "a.txt", b"a b\n")
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub" / "c.txt", b"c\n")
    _fifo(tmp_path / "sub" / "b.txt")
    _fifo(tmp_path / "z.log")
    skipped: list[str] = []
    units = training_inputs([str(tmp_path)], include=["**/*.txt"], skipped=skipped)
    assert [unit.path for unit in units] == [str(tmp_path / "a.txt"), str(tmp_path / "sub" / "c.txt")]
    # z.log is not among the files the globs keep: not reported either
    assert skipped == [str(tmp_path / "sub" / "b.txt")]
    assert count_words([str(tmp_path)], Lines(), SilentProgress(), 1) == {"a b\n": 1, "c\n": 1}
    specials: list[str] = []
    assert folder_files(str(tmp_path), specials) == ["a.txt", "sub/c.txt"]
    assert specials == ["sub/b.txt", "z.log"]


def test_a_folder_of_nothing_but_fifos_has_no_training_file(tmp_path: Path) -> None:
    _fifo(tmp_path / "p.txt")
    skipped: list[str] = []
    with pytest.raises(CorpusError, match="is a directory with no training file in it"):
        expand_inputs([str(tmp_path)], skipped=skipped)
    assert skipped == [str(tmp_path / "p.txt")]


def test_a_line_past_the_bound_names_the_file_and_where_it_starts(tmp_path: Path) -> None:
    bound = READ_SIZE + 100
    head = b"short\n"
    fits = b"x" * bound + b"\n"  # exactly the bound, its "\n" not counted: read
    path = write(tmp_path / "long.txt", head + fits)
    assert _blocks(LineBlocks(path, FileRange(path, 0, len(head + fits)), 0, None, bound))[-1][0] == fits
    path = write(tmp_path / "longer.txt", head + b"x" * (bound + 1) + b"\nafter\n")
    with pytest.raises(CorpusError) as caught:
        _blocks(LineBlocks(path, FileRange(path, 0, os.path.getsize(path)), 0, None, bound))
    assert str(caught.value) == f"{path}: has a line longer than {bound:,} bytes, the longest line read whole; it starts at byte 6"
    assert caught.value.byte_offset == len(head)


def test_a_word_past_the_bound_when_lines_are_cut(tmp_path: Path) -> None:
    bound = 2 * READ_SIZE
    data = b"a few words " * 1000 + b"y" * (bound + 10) + b" more\n"
    path = write(tmp_path / "word.txt", data)
    with pytest.raises(CorpusError) as caught:
        _blocks(LineBlocks(path, FileRange(path, 0, len(data)), 0, SPACE_CUTTER, bound))
    assert caught.value.reason == (
        "has a word longer than 1 MB (no space or line break to cut it at), the longest word read whole; it starts"
    )
    # the word starts after the last space of the block it began in
    assert caught.value.byte_offset == 12 * 1000


def test_a_compressed_bomb_of_one_word_stops_at_the_bound(tmp_path: Path) -> None:
    # 200 MB of "a", no space, no line break: 200 KB compressed; stopped after MAX_LINE_BYTES
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b"a" * (1 << 20)
    packed = b"".join(packer.compress(chunk) for _ in range(200)) + packer.flush()
    path = write(tmp_path / "bomb.txt.gz", packed)
    for splitter in (whitespace(), Lines()):
        with pytest.raises(CorpusError) as caught:
            count_words([path], splitter, SilentProgress(), 1)
        what = "word" if splitter.line_cutter() is not None else "line"
        assert str(caught.value).startswith(f"{path}: has a {what} longer than 64 MB")
        assert str(caught.value).endswith("; it starts in the decompressed text at byte 0")


def test_an_open_stream_is_read_as_it_comes() -> None:
    # (standard input: each read takes what is there, so a line typed at a terminal is encoded at once)
    stream = OpenStream(io.BufferedReader(io.BytesIO(b"one\ntwo\n" + b"x" * (READ_SIZE + 5))))
    blocks = _blocks(LineBlocks("standard input", stream))
    assert blocks == [(b"one\ntwo\n", 0, True), (b"x" * (READ_SIZE + 5), 8, False)]
    assert stream.raw_done == 8 + READ_SIZE + 5
