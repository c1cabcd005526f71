"""Counting training words on a Dask cluster: the same counts `Tokenizer.count_words` gives, when
one machine is not enough.

Plain text files are cut into ~32 MB blocks of whole lines; every other input `engine.corpus.counting`
reads (compressed text, JSON Lines, Parquet/Arrow, word-count tables; folders are expanded) is one
whole block. Each worker rebuilds the tokenizer from its JSON once and counts its blocks with the
engine's own counting code; the dicts are summed in a tree.
Every file must be readable at the same path on this machine (to plan the blocks) and on every
worker. Dask and distributed are imported inside the functions (the optional `cluster` extra).
No training here, and no tables: `engine.corpus.word_counts` writes them.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final

from engine import Tokenizer
from engine.corpus.checks import no_words_reason
from engine.corpus.counting import WordSplitter, _count_slice, _count_unit, _SinkProgress
from engine.corpus.sources import DEFAULT_FIELD, CorpusSource
from engine.corpus.units import line_start_after, training_inputs
from engine.errors import CorpusError
from engine.progress import STAGE_READ, ProgressSink, SilentProgress, report

if TYPE_CHECKING:
    from distributed import Client

# Plain files are cut into blocks of about this many bytes (at line starts).
BLOCK_BYTES: Final = 32 << 20
# Blocks are grouped into about this many partitions per worker (finer progress, better balance).
PARTITIONS_PER_WORKER: Final = 4
INSTALL_HINT: Final = "counting on a Dask cluster needs dask and distributed: pip install 'tokenizer-workbench[cluster]'"

# A block of work: (path, start, end, format, compression, field). format "": bytes [start, end)
# of a plain text file, both ends at line starts; else a whole `CorpusSource` of `end` bytes.
# Tuples, not FileSlice/CorpusSource: they travel to the workers by pickle, which compiled
# classes may not support.
Block = tuple[str, int, int, str, str, str]


class BlockFailed(Exception):
    """A worker's CorpusError on its way back: unlike CorpusError, it pickles (its args are its
    fields), and `as_corpus_error()` turns it back into the same error."""

    def __init__(self, path: str, reason: str, byte_offset: int) -> None:
        super().__init__(path, reason, byte_offset)
        self.path = path
        self.reason = reason
        self.byte_offset = byte_offset

    def as_corpus_error(self) -> CorpusError:
        return CorpusError(self.path, self.reason, self.byte_offset)

    def __str__(self) -> str:
        return str(self.as_corpus_error())


def plan_blocks(
    files: Sequence[str],
    block_bytes: int = BLOCK_BYTES,
    field: str = DEFAULT_FIELD,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> list[Block]:
    """The inputs as blocks of work: plain text cut into ranges of about `block_bytes`, each
    starting and ending at a line start (a 70 MB file -> (f, 0, ~32M), (f, ~32M, ~64M),
    (f, ~64M, 70M)); any other input (`engine.corpus.sources.source_of`, reading `field` of JSON Lines
    and Parquet/Arrow) one whole block; folders expanded (files matching `include`, not
    `exclude`, as `engine.corpus.units.training_inputs`). CorpusError for an input that cannot be read
    here and for a folder with no matching file; an empty file gives no block."""
    if not files:
        raise CorpusError("<no files>", "no training files given")
    blocks: list[Block] = []
    for unit in training_inputs(list(files), field, include, exclude):
        if isinstance(unit, CorpusSource):
            blocks.append((unit.path, 0, unit.size, unit.format, unit.compression, unit.field))
            continue
        start = unit.start
        while start < unit.end:
            cut = unit.end if unit.end - start <= block_bytes else line_start_after(unit.path, start + block_bytes, unit.end)
            blocks.append((unit.path, start, cut, "", "", ""))
            start = cut
    return blocks


# -- on the workers ------------------------------------------------------------------------

# The last tokenizer JSON (and whether whole lines are counted) a worker process was given,
# and the word splitter built from it.
# subtle: a dict, not a global rebound in a function, so the cache survives in each worker
# process between tasks (every task of one run sends the same JSON).
_SPLITTERS: dict[tuple[str, bool], WordSplitter] = {}


def _splitter_for(tokenizer_json: str, sentences: bool) -> WordSplitter:
    """The word splitter (of whole lines: `sentences`) of the tokenizer in `tokenizer_json`,
    built once per worker process."""
    key = (tokenizer_json, sentences)
    splitter = _SPLITTERS.get(key)
    if splitter is None:
        _SPLITTERS.clear()
        splitter = Tokenizer.from_str(tokenizer_json)._word_splitter(sentences)
        _SPLITTERS[key] = splitter
    return splitter


def count_block(block: Block, tokenizer_json: str, sentences: bool = False) -> dict[str, int]:
    """word -> count over the lines of one block, split as `Tokenizer.count_words` splits them
    (whole lines counted when `sentences`, as its `sentences=True`).

    Runs on a worker; a CorpusError comes back as BlockFailed (which pickles)."""
    path, start, end, kind, compression, field = block
    counts: dict[str, int] = {}
    enabled = gc.isenabled()
    gc.disable()
    try:
        splitter = _splitter_for(tokenizer_json, sentences)
        progress = _SinkProgress(SilentProgress(), end - start)
        if kind:
            _count_unit(CorpusSource(path, kind, compression, field, end), splitter, counts, progress)
        else:
            _count_slice(path, start, end, splitter, counts, progress)
    except CorpusError as error:
        raise BlockFailed(error.path, error.reason, error.byte_offset) from None
    finally:
        if enabled:
            gc.enable()
    return counts


def merge_counts(left: dict[str, int], right: dict[str, int]) -> dict[str, int]:
    """The two counts summed: the smaller dict is added into the larger, which is returned.
    {"a": 1} + {"a": 2, "b": 1} -> {"a": 3, "b": 1}."""
    if len(left) < len(right):
        left, right = right, left
    for word, count in right.items():
        left[word] = left.get(word, 0) + count
    return left


def count_group(blocks: list[Block], tokenizer_json: str, sentences: bool = False) -> dict[str, int]:
    """The summed counts of a group of blocks (one bag partition's work)."""
    counts: dict[str, int] = {}
    for block in blocks:
        counts = merge_counts(counts, count_block(block, tokenizer_json, sentences))
    return counts


# -- on the client -------------------------------------------------------------------------


def count_words_on_cluster(
    client: Client,
    tokenizer: Tokenizer,
    files: Sequence[str],
    progress: ProgressSink | None = None,
    block_bytes: int = BLOCK_BYTES,
    field: str = DEFAULT_FIELD,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    sentences: bool = False,
) -> dict[str, int]:
    """word -> count over every line of the files, exactly
    `tokenizer.count_words(files, field=field, include=include, exclude=exclude,
    sentences=sentences)`, counted by the workers of `client`.

    The files are planned here and read by the workers at the same paths. `progress` hears the
    bytes of each finished partition (stage "Pre-processing files"). Raises CorpusError for a
    file that cannot be read (here or on a worker: the same error, file and byte offset) and
    when the files hold no word.
    """
    try:
        import dask.bag
        from distributed import as_completed, futures_of
    except ImportError:
        raise CorpusError(", ".join(files), INSTALL_HINT) from None
    sink = progress if progress is not None else SilentProgress()
    # subtle: a worker's current folder is its own, so a relative path would name another file
    files = [os.path.abspath(path) for path in files]
    blocks = plan_blocks(files, block_bytes, field, include, exclude)
    total = 0
    for block in blocks:
        total += block[2] - block[1]
    report(sink, STAGE_READ, 0, total, "bytes")
    if not blocks:
        raise CorpusError(", ".join(files), no_words_reason(0))
    workers = max(1, len(client.scheduler_info(n_workers=-1).get("workers", {})))
    groups = group_blocks(blocks, workers * PARTITIONS_PER_WORKER)
    bag = dask.bag.from_sequence(groups, npartitions=len(groups))
    # Each partition (one group) counts its blocks into one dict; the dicts are kept on the
    # workers (persist) so progress shows as groups finish, then summed by a tree fold.
    counted = client.persist(bag.map(count_group, tokenizer.to_str(), sentences))
    futures = futures_of(counted)
    try:
        done = 0
        for future in as_completed(futures):
            if future.status == "error":
                future.result()  # raises the worker's error
            done += _group_bytes(groups[_partition_index(future.key)])
            report(sink, STAGE_READ, min(done, total), total, "bytes")
        counts: dict[str, int] = client.compute(counted.fold(merge_counts, split_every=8)).result()
    except BlockFailed as error:
        raise error.as_corpus_error() from None
    finally:
        client.cancel(futures)
    if not counts:
        raise CorpusError(", ".join(files), no_words_reason(total))
    return counts


def group_blocks(blocks: list[Block], parts: int) -> list[list[Block]]:
    """The blocks dealt into at most `parts` groups of neighbours, of about equal bytes."""
    total = 0
    for block in blocks:
        total += block[2] - block[1]
    count = max(1, min(parts, len(blocks)))
    groups: list[list[Block]] = [[] for _ in range(count)]
    used = 0
    for block in blocks:
        index = min(count - 1, used * count // max(total, 1))
        groups[index].append(block)
        used += block[2] - block[1]
    return [group for group in groups if group]


def _group_bytes(group: list[Block]) -> int:
    size = 0
    for block in group:
        size += block[2] - block[1]
    return size


def _partition_index(key: object) -> int:
    """The partition number in a bag key ("name", 3) -> 3 (0 for an unexpected key)."""
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], int):
        return key[1]
    return 0


@contextmanager
def cluster_client(scheduler: str, workers: int = 0) -> Iterator[Client]:
    """A `distributed.Client` for `--dask`: "local" starts a LocalCluster on this machine
    (processes, one thread each, `workers` of them, 0: one per core) for the `with` block;
    anything else is a scheduler address (tcp://host:8786) to connect to."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise CorpusError(scheduler, INSTALL_HINT) from None
    if scheduler == "local":
        count = workers if workers > 0 else _cores()
        with LocalCluster(
            n_workers=count, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster, Client(cluster) as client:
            yield client
    else:
        with Client(scheduler) as client:
            yield client


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
