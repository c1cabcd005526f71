"""workbench.cli.cluster: counting words on a real Dask cluster (two worker processes) gives exactly
the local counts; a worker's CorpusError comes back as the same error; `count --dask local` end to end."""

from __future__ import annotations

import gzip
import json
import multiprocessing
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.errors import CorpusError
from engine.corpus.word_counts import read_counts
from support import corpus_path
from workbench.core import presets
from workbench.cli.cluster import BlockFailed, count_words_on_cluster, group_blocks, merge_counts, plan_blocks

import distributed  # (a test dependency: the `cluster` extra)

# Small blocks so that even these files are cut into many blocks over several partitions.
SMALL_BLOCKS = 64 << 10


@pytest.fixture(autouse=True)
def no_leftovers() -> Iterator[None]:
    """conftest's guard against leftover processes and threads, except the module's cluster:
    its worker processes and threads rightly run from the first test to the last, and so does
    distributed's process-wide offload thread (started on first use, never stopped)."""
    children_before = set(multiprocessing.active_children())
    threads_before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 10.0
    while True:
        children = [c for c in multiprocessing.active_children() if c not in children_before]
        threads = [
            t for t in threading.enumerate()
            if t not in threads_before and t.is_alive() and not t.name.startswith("Dask-Offload")
        ]
        if not children and not threads:
            return
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    pytest.fail(f"the test left running: processes {children}, threads {threads}")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """One two-worker cluster (separate processes, one thread each) for the whole module."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as connected:
        yield connected


def small_files(folder: Path) -> list[str]:
    first = folder / "a.txt"
    first.write_text("héllo wörld\r\nhello  world\n\n日本語 テキスト\nno newline at the end", encoding="utf-8")
    second = folder / "b.txt"
    second.write_bytes(b"")
    third = folder / "c.txt"
    third.write_text("hello again, world!\n" * 5000 + "last line\n", encoding="utf-8")
    return [str(first), str(second), str(third)]


def other_sources(folder: Path) -> list[str]:
    """A gzip text file and a JSON Lines file: each counted whole by one worker."""
    packed = folder / "packed.txt.gz"
    packed.write_bytes(gzip.compress("gzipped words here\nand more words\n".encode() * 300))
    records = folder / "records.jsonl"
    records.write_text("".join(json.dumps({"text": f"record {i}\nspans lines"}) + "\n" for i in range(200)))
    return [str(packed), str(records)]


@pytest.mark.parametrize("preset", ["bpe", "gpt2", "bert", "sentencepiece-unigram"])
def test_cluster_counts_equal_local_counts(client: Any, tmp_path: Path, preset: str) -> None:
    files = [str(corpus_path("shakespeare.txt")), *small_files(tmp_path), *other_sources(tmp_path)]
    tokenizer, _ = presets.build(preset)
    local = tokenizer.count_words(files, processes=1)
    remote = count_words_on_cluster(client, tokenizer, files, block_bytes=SMALL_BLOCKS)
    assert remote == local
    kinds = {block[3:5] for block in plan_blocks(files, SMALL_BLOCKS)}
    assert kinds == {("", ""), ("lines", "gz"), ("jsonl", "")}


def test_cluster_counts_a_sentencepiece_presets_lines_as_locally(client: Any, tmp_path: Path) -> None:
    # (what its trainer reads: `count --preset sentencepiece-bpe --dask ...` counts these)
    files = [str(corpus_path("shakespeare.txt")), *small_files(tmp_path), *other_sources(tmp_path)]
    tokenizer, _ = presets.build("sentencepiece-bpe")
    local = tokenizer.count_words(files, processes=1, sentences=True)
    remote = count_words_on_cluster(client, tokenizer, files, block_bytes=SMALL_BLOCKS, sentences=True)
    assert remote == local
    assert remote["▁hello▁again,▁world!"] == 5000 and "▁hello" not in remote


def globbed_folder(folder: Path) -> Path:
    """A folder read with --include '*.txt' --include '*.jsonl' --exclude 'build/*' --field body:
    the texts of small_files, and records.jsonl whose text is under "body" (its "text" a decoy);
    build/junk.txt (not UTF-8: it would fail if read) and notes.md are left out."""
    folder.mkdir()
    small_files(folder)
    (folder / "build").mkdir()
    (folder / "build" / "junk.txt").write_bytes(b"\xff not text\n")
    (folder / "notes.md").write_text("qqqnotesqqq\n", encoding="utf-8")
    (folder / "records.jsonl").write_text(
        "".join(json.dumps({"body": f"body {i} words\nover lines", "text": "qqqdecoyqqq"}) + "\n" for i in range(300)),
        encoding="utf-8",
    )
    return folder


FOLDER_GLOBS: dict[str, Any] = {"field": "body", "include": ["*.txt", "*.jsonl"], "exclude": ["build/*"]}


@pytest.mark.parametrize("preset", ["bpe", "bert"])
def test_cluster_counts_equal_local_counts_with_globs_and_field(client: Any, tmp_path: Path, preset: str) -> None:
    data = globbed_folder(tmp_path / "data")
    outside = tmp_path / "outside.jsonl"  # a JSON Lines file given directly, also read by --field
    outside.write_text("".join(json.dumps({"body": f"outside {i}"}) + "\n" for i in range(50)), encoding="utf-8")
    files = [str(data), str(outside)]
    tokenizer, _ = presets.build(preset)
    local = tokenizer.count_words(files, processes=1, **FOLDER_GLOBS)
    remote = count_words_on_cluster(client, tokenizer, files, block_bytes=SMALL_BLOCKS, **FOLDER_GLOBS)
    assert remote == local
    assert "qqqnotesqqq" not in remote and "qqqdecoyqqq" not in remote
    assert remote["outside"] == 50
    blocks = plan_blocks(files, SMALL_BLOCKS, **FOLDER_GLOBS)
    assert sorted({Path(block[0]).name for block in blocks}) == ["a.txt", "c.txt", "outside.jsonl", "records.jsonl"]
    assert {block[5] for block in blocks if block[3] == "jsonl"} == {"body"}


def test_missing_jsonl_field_on_a_worker_names_file_and_line(client: Any, tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps({"body": "fine"}) + "\n" for _ in range(20)) + '{"title": "t"}\n', encoding="utf-8")
    tokenizer, _ = presets.build("bpe")
    with pytest.raises(CorpusError) as locally:
        tokenizer.count_words([str(records)], processes=1, field="body")
    with pytest.raises(CorpusError) as remotely:
        count_words_on_cluster(client, tokenizer, [str(records)], field="body")
    assert str(remotely.value) == str(locally.value)
    assert remotely.value.path == str(records)
    assert "line 21" in str(remotely.value) and "no field 'body'" in str(remotely.value)


def test_added_tokens_split_words_on_the_workers_too(client: Any, tmp_path: Path) -> None:
    tokenizer, _ = presets.build("bpe")
    tokenizer.add_special_tokens(["<sep>"])
    path = tmp_path / "sep.txt"
    path.write_text("one<sep>two\nthree <sep> four\n" * 100, encoding="utf-8")
    remote = count_words_on_cluster(client, tokenizer, [str(path)], block_bytes=64)
    assert remote == tokenizer.count_words([str(path)], processes=1)
    assert remote["one"] == 100
    assert remote["<sep>"] == 200  # cut out whole, as HF's trainer sees it
    assert "one<sep>two" not in remote and "<" not in remote


def test_worker_error_comes_back_with_file_and_offset(client: Any, tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("fine words\n" * 1000, encoding="utf-8")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok line\n" * 1000 + b"caf\xe9\n" + b"more\n" * 10)
    tokenizer, _ = presets.build("bpe")
    with pytest.raises(CorpusError) as raised:
        count_words_on_cluster(client, tokenizer, [str(good), str(bad)], block_bytes=1024)
    assert raised.value.path == str(bad)
    assert raised.value.byte_offset == 8003
    assert str(raised.value) == f"{bad}: is not valid UTF-8 (invalid continuation byte) at byte 8003"


def test_no_words_and_missing_files(client: Any, tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    blank = tmp_path / "blank.txt"
    blank.write_text("   \n\n")
    tokenizer, _ = presets.build("bpe")
    with pytest.raises(CorpusError, match="every input file is empty"):
        count_words_on_cluster(client, tokenizer, [str(empty)])
    with pytest.raises(CorpusError, match="hold no words"):
        count_words_on_cluster(client, tokenizer, [str(blank)])
    with pytest.raises(CorpusError, match="file not found"):
        count_words_on_cluster(client, tokenizer, [str(tmp_path / "missing.txt")])


def test_count_command_on_a_local_cluster(tmp_path: Path) -> None:
    # --include/--exclude/--field reach the cluster (its own LocalCluster, started by the command)
    data = globbed_folder(tmp_path / "data")
    out = tmp_path / "counts.tsv"
    result = subprocess.run(
        [sys.executable, "-P", "-m", "workbench.cli", "count", "--preset", "bpe", "--dask", "local",
         "--processes", "2", "-q", "-o", str(out), "--include", "*.txt", "--include", "*.jsonl",
         "--exclude", "build/*", "--field", "body", str(data)],
        capture_output=True, text=True, encoding="utf-8",
    )
    assert result.returncode == 0, result.stderr
    tokenizer, _ = presets.build("bpe")
    expected = tokenizer.count_words([str(data)], processes=1, **FOLDER_GLOBS)
    assert read_counts(str(out)) == expected
    last = result.stderr.strip().splitlines()[-1]
    # a.txt, b.txt (empty), c.txt and records.jsonl
    assert last.startswith(f"Counted {sum(expected.values()):,} words ({len(expected):,} distinct) in 4 files")
    assert last.endswith(f"-> {out}")


# -- the pieces, without a cluster -------------------------------------------------------


def test_blocks_are_cut_at_line_starts(tmp_path: Path) -> None:
    path = tmp_path / "lines.txt"
    data = b"".join(b"line %d\n" % i for i in range(1000))
    path.write_bytes(data)
    blocks = plan_blocks([str(path)], block_bytes=100)
    assert blocks[0][1] == 0 and blocks[-1][2] == len(data)
    for before, after in zip(blocks, blocks[1:]):
        start = after[1]
        assert before[2] == start and before[3:] == after[3:] == ("", "", "")
        assert data[start - 1 : start] == b"\n"
    assert len(blocks) > 50


def test_no_block_planned_from_a_folder_the_globs_empty(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("text\n", encoding="utf-8")
    with pytest.raises(CorpusError) as raised:
        plan_blocks([str(tmp_path)], include=["*.md"])
    assert str(raised.value) == f"{tmp_path}: is a directory with no training file in it matching '*.md'"


def test_groups_keep_order_and_every_block() -> None:
    blocks = [("f", i * 10, i * 10 + 10, "", "", "") for i in range(10)]
    groups = group_blocks(blocks, 3)
    assert len(groups) == 3
    assert [block for group in groups for block in group] == blocks
    assert group_blocks(blocks[:2], 8) == [[blocks[0]], [blocks[1]]]


def test_merge_adds_the_smaller_into_the_larger() -> None:
    small = {"a": 1}
    large = {"a": 2, "b": 1}
    merged = merge_counts(small, large)
    assert merged is large
    assert merged == {"a": 3, "b": 1}


def test_block_failure_pickles_back_to_the_same_corpus_error() -> None:
    failed = pickle.loads(pickle.dumps(BlockFailed("/data/x.txt", "is not valid UTF-8 (invalid start byte)", 12)))
    error = failed.as_corpus_error()
    assert str(error) == "/data/x.txt: is not valid UTF-8 (invalid start byte) at byte 12"
    assert (error.path, error.byte_offset) == ("/data/x.txt", 12)
