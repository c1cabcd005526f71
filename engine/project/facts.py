"""What a project knows without reading a trained result: its corpus files (path, size,
checksum, text field), what a training read (`TrainedOn`), and a result's summary (`ResultFacts`).
"""

from __future__ import annotations

import os
from typing import Final

from engine.corpus.sources import DEFAULT_FIELD, FORMAT_ARROW, FORMAT_JSONL, source_of
from engine.errors import CorpusError, SchemaError
from engine.project.fields import get_number, relative_path
from engine.schema import JsonValue, expect_object, get_count, get_list, get_str
from engine.trainers.records import TrainReport

# Example words longer than this are cut (with "…") when a result is made: a Unigram trained on
# text without spaces has whole lines as words, and six of them per token made projects of 100 MB.
MAX_EXAMPLE_CHARS: Final = 40


class CorpusFile:
    """A training file as the project knows it: where it is (`path`, absolute), what it was
    when last checked (size, modification time, line count, SHA-256, and the check's problem,
    "" when none), and `field`, the text field of its records (JSON Lines, Parquet/Arrow;
    ignored for other kinds).

    `CorpusFile("a.jsonl", field="content")` trains on each record's "content" string.
    """

    path: str
    size: int
    lines: int
    sha256: str
    problem: str
    field: str
    mtime: float

    def __init__(
        self,
        path: str,
        size: int = 0,
        lines: int = 0,
        sha256: str = "",
        problem: str = "",
        field: str = DEFAULT_FIELD,
        mtime: float = 0.0,
    ) -> None:
        self.path = os.path.abspath(path)
        self.size = size
        self.lines = lines
        self.sha256 = sha256
        self.problem = problem
        self.field = field
        self.mtime = mtime

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    @property
    def takes_field(self) -> bool:
        """Whether its records have fields to choose from: JSON Lines (also compressed), Parquet/Arrow."""
        try:
            kind = source_of(self.path).format
        except CorpusError:
            return False  # a compressed Parquet file: never read
        return kind == FORMAT_JSONL or kind == FORMAT_ARROW

    def exists(self) -> bool:
        return os.path.isfile(self.path)

    def changed_on_disk(self) -> bool:
        """Whether the file's size or modification time differs from its last check (a file
        never checked, or one that is gone, has not changed here: `exists` says the rest)."""
        if not self.sha256:
            return False
        try:
            found = os.stat(self.path)
        except OSError:
            return False
        return found.st_size != self.size or (self.mtime > 0.0 and found.st_mtime != self.mtime)

    def copy(self) -> CorpusFile:
        return CorpusFile(self.path, self.size, self.lines, self.sha256, self.problem, self.field, self.mtime)

    def same_content(self, other: CorpusFile) -> bool:
        """The same file read the same way with the same bytes (as far as the checks know)."""
        return self.path == other.path and self.sha256 == other.sha256 and self.field == other.field

    def to_dict(self, folder: str) -> dict[str, JsonValue]:
        return {
            "path": self.path,
            "relative": relative_path(self.path, folder),
            "size": self.size,
            "lines": self.lines,
            "sha256": self.sha256,
            "problem": self.problem,
            "field": self.field,
            "mtime": self.mtime,
        }

    @staticmethod
    def from_dict(data: object, folder: str) -> CorpusFile:
        """Where the file is now: beside the project as it was (the relative path), else at its
        absolute path, else the relative place (reported as missing). A project written before
        fields were kept reads as `field` "text"."""
        where = "corpus file"
        obj = expect_object(data, where)
        absolute = get_str(obj, "path", where)
        relative = obj.get("relative")
        path = absolute
        if isinstance(relative, str) and relative:
            beside = os.path.normpath(os.path.join(folder, relative))
            if os.path.isfile(beside) or not os.path.isfile(absolute):
                path = beside
        field = get_str(obj, "field", where, DEFAULT_FIELD)
        if not field:
            raise SchemaError(f"{where} {absolute!r}: 'field' must name a field, got an empty string")
        return CorpusFile(
            path,
            get_count(obj, "size", where, 0),
            get_count(obj, "lines", where, 0),
            get_str(obj, "sha256", where, ""),
            get_str(obj, "problem", where, ""),
            field,
            get_number(obj, "mtime", where, 0.0),
        )


class TrainedOn:
    """What a result was trained on: the corpus files as the project knew them when the training
    started (path, size, SHA-256, text field), the lines sampled (0: every line), the share of the
    corpus held out for the plots, and the word-counts table it continued from ("" when it
    counted the files itself). Kept with the result, so that a project whose files were swapped
    since can say so (`differences`)."""

    files: list[CorpusFile]
    sample_lines: int
    held_out: float
    continued_from: str

    def __init__(
        self, files: list[CorpusFile], sample_lines: int = 0, held_out: float = 0.0, continued_from: str = ""
    ) -> None:
        self.files = [item.copy() for item in files]
        self.sample_lines = sample_lines
        self.held_out = held_out
        self.continued_from = continued_from

    def differences(self, corpus: list[CorpusFile]) -> list[str]:
        """How the project's corpus now differs from what was trained on, one phrase per file:
        ["b.txt added", "a.txt changed since the training", "c.txt removed"] ([] when the same)."""
        now = {item.path: item for item in corpus}
        then = {item.path: item for item in self.files}
        found: list[str] = []
        for item in corpus:
            before = then.get(item.path)
            if before is None:
                found.append(f"{item.name} added")
            elif item.field != before.field:
                found.append(f"{item.name} read from field '{item.field}' (trained on '{before.field}')")
            elif item.sha256 and before.sha256 and item.sha256 != before.sha256:
                found.append(f"{item.name} changed since the training")
        for item in self.files:
            if item.path not in now:
                found.append(f"{item.name} removed")
        return found

    def to_dict(self, folder: str) -> dict[str, JsonValue]:
        return {
            "files": [item.to_dict(folder) for item in self.files],
            "sample_lines": self.sample_lines,
            "held_out": self.held_out,
            "continued_from": self.continued_from,
        }

    @staticmethod
    def from_dict(data: object, folder: str) -> TrainedOn:
        where = "trained_on"
        obj = expect_object(data, where)
        return TrainedOn(
            [CorpusFile.from_dict(item, folder) for item in get_list(obj, "files", where)],
            get_count(obj, "sample_lines", where, 0),
            get_number(obj, "held_out", where, 0.0),
            get_str(obj, "continued_from", where, ""),
        )


class ResultFacts:
    """What a training's report says, without its history's steps: what messages need, known
    without parsing a history (a project file keeps it in its index).

    `algorithm` and `score_name` as the history's; `merges` and `rounds` how many it made;
    `seeded`: its first round is a seed round (Unigram)."""

    files: int
    total_words: int
    unique_words: int
    seconds: float
    sampled_lines: int
    read_lines: int
    peak_bytes: int | None
    estimated_seconds: float | None
    estimated_peak_bytes: int | None
    algorithm: str
    score_name: str
    merges: int
    rounds: int
    seeded: bool

    def __init__(self, report: TrainReport) -> None:
        self.files = report.files
        self.total_words = report.total_words
        self.unique_words = report.unique_words
        self.seconds = report.seconds
        self.sampled_lines = report.sampled_lines
        self.read_lines = report.read_lines
        self.peak_bytes = report.peak_bytes
        self.estimated_seconds = report.estimated_seconds
        self.estimated_peak_bytes = report.estimated_peak_bytes
        history = report.history
        self.algorithm = history.algorithm
        self.score_name = history.score_name
        self.merges = len(history.merges)
        self.rounds = len(history.rounds)
        self.seeded = bool(history.rounds) and history.rounds[0].phase == "seed"

    def steps_dict(self) -> dict[str, JsonValue]:
        return {
            "algorithm": self.algorithm,
            "score_name": self.score_name,
            "merges": self.merges,
            "rounds": self.rounds,
            "seeded": self.seeded,
        }

    @staticmethod
    def from_summary(summary: dict[str, object], where: str) -> ResultFacts | None:
        """The facts of a report's summary as a project index keeps it (None when it lacks the
        step counts: an older file, whose history must be read)."""
        steps = summary.get("steps")
        if not isinstance(steps, dict):
            return None
        report = dict(summary)
        report["history"] = {"algorithm": steps.get("algorithm", "unknown"), "score_name": steps.get("score_name", "count")}
        facts = ResultFacts(TrainReport.from_dict(report))
        facts.merges = get_count(steps, "merges", where, 0)
        facts.rounds = get_count(steps, "rounds", where, 0)
        seeded = steps.get("seeded", False)
        facts.seeded = seeded if isinstance(seeded, bool) else False
        return facts
