"""The project file (`*.tokproj`): corpus file references, tokenizer configurations, their trained
results and training histories, in one versioned JSON file written atomically.

A project reopens with no retraining: each tokenizer keeps its tokenizer.json, its history
(what the plots are drawn from) and what the vocabulary view needs (token frequencies and
example words). Corpus paths are kept relative to the project's folder where they can be, so a
project folder can move. Nothing here trains or draws.
"""

from __future__ import annotations

import json
import os
from typing import Final

from engine.errors import CorpusError, ProjectFileError, SchemaError, TokenizerFileError
from engine.formats.files import read_text, write_text_atomically
from engine.formats.safe_json import parse_json
from engine.schema import (
    JsonValue,
    as_count,
    expect_object,
    get_count,
    get_counts,
    get_list,
    get_str,
)
from engine.sources import DEFAULT_FIELD, FORMAT_ARROW, FORMAT_JSONL, source_of
from engine.tokenizer import Tokenizer
from engine.trainers.records import TrainReport

FORMAT: Final = "tokenizer-workbench project"
FORMAT_VERSION: Final = 1
SUFFIX: Final = ".tokproj"


class CorpusFile:
    """A training file as the project knows it: where it is (`path`, absolute), what it was
    when added (size, line count, SHA-256, and the check's problem, "" when none), and `field`,
    the text field of its records (JSON Lines, Parquet/Arrow; ignored for other kinds).

    `CorpusFile("a.jsonl", field="content")` trains on each record's "content" string.
    """

    path: str
    size: int
    lines: int
    sha256: str
    problem: str
    field: str

    def __init__(
        self, path: str, size: int = 0, lines: int = 0, sha256: str = "", problem: str = "", field: str = DEFAULT_FIELD
    ) -> None:
        self.path = os.path.abspath(path)
        self.size = size
        self.lines = lines
        self.sha256 = sha256
        self.problem = problem
        self.field = field

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

    def to_dict(self, folder: str) -> dict[str, JsonValue]:
        return {
            "path": self.path,
            "relative": _relative(self.path, folder),
            "size": self.size,
            "lines": self.lines,
            "sha256": self.sha256,
            "problem": self.problem,
            "field": self.field,
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
        )


class TokenizerEntry:
    """One tokenizer of the project: its configuration (`pipeline`, the tokenizer.json of the
    untrained pipeline, and `trainer`, the trainer's settings; None for an imported tokenizer
    that keeps its own vocabulary) and, once trained or imported, its result.

    `preset` names what it was made from ("bpe", "gpt2", ... or "imported"); `source` is the
    imported file. The result is kept as tokenizer.json text (`trained_json`): building the
    engine tokenizer is left to whoever needs it. `frequencies[id]` and `examples[id]` (words
    containing the token) feed the vocabulary view; `evaluations` are (merges done, characters
    per token on the held-out text).

    `counts_file` is the word-counts table a BPE training kept (for continuing it to a larger
    vocabulary without recounting; "" when none), valid only while `counts_key` (a digest of
    the corpus files' sizes and SHA-256, the pipeline and the held-out share it was counted
    with) still matches; `counts_held_out` is that share.
    """

    name: str
    preset: str
    source: str
    pipeline: dict[str, JsonValue]
    trainer: dict[str, JsonValue] | None
    trained_json: str | None
    report: TrainReport | None
    frequencies: list[int]
    examples: dict[int, list[tuple[str, int]]]
    evaluations: list[tuple[int, float]]
    counts_file: str
    counts_key: str
    counts_held_out: float

    def __init__(
        self,
        name: str,
        preset: str,
        pipeline: dict[str, JsonValue],
        trainer: dict[str, JsonValue] | None,
        source: str = "",
    ) -> None:
        self.name = name
        self.preset = preset
        self.source = source
        self.pipeline = pipeline
        self.trainer = trainer
        self.trained_json = None
        self.report = None
        self.frequencies = []
        self.examples = {}
        self.evaluations = []
        self.counts_file = ""
        self.counts_key = ""
        self.counts_held_out = 0.0

    @property
    def is_trained(self) -> bool:
        return self.trained_json is not None

    @property
    def trained(self) -> dict[str, JsonValue] | None:
        """The trained tokenizer's tokenizer.json object (parsed on each call)."""
        if self.trained_json is None:
            return None
        data: dict[str, JsonValue] = json.loads(self.trained_json)
        return data

    def tokenizer(self) -> Tokenizer:
        """The trained tokenizer, or the untrained pipeline when there is no result yet."""
        if self.trained_json is not None:
            return Tokenizer.from_str(self.trained_json)
        return Tokenizer.from_str(json.dumps(self.pipeline))

    def forget_result(self) -> None:
        """Back to an untrained configuration (its settings changed)."""
        self.trained_json = None
        self.report = None
        self.frequencies = []
        self.examples = {}
        self.evaluations = []
        self.counts_file = ""
        self.counts_key = ""
        self.counts_held_out = 0.0

    def to_dict(self) -> dict[str, JsonValue]:
        examples: dict[str, JsonValue] = {}
        for id, words in sorted(self.examples.items()):
            examples[str(id)] = [[word, count] for word, count in words]
        return {
            "name": self.name,
            "preset": self.preset,
            "source": self.source,
            "pipeline": self.pipeline,
            "trainer": self.trainer,
            "trained": self.trained,
            "report": self.report.to_dict() if self.report is not None else None,
            "frequencies": list[JsonValue](self.frequencies),
            "examples": examples,
            "evaluations": [[done, value] for done, value in self.evaluations],
            "counts_file": self.counts_file,
            "counts_key": self.counts_key,
            "counts_held_out": self.counts_held_out,
        }

    @staticmethod
    def from_dict(data: object) -> TokenizerEntry:
        where = "tokenizer"
        obj = expect_object(data, where)
        name = get_str(obj, "name", where)
        where = f"tokenizer {name!r}"
        pipeline = expect_object(obj.get("pipeline"), f"{where}: pipeline")
        trainer = obj.get("trainer")
        entry = TokenizerEntry(
            name,
            get_str(obj, "preset", where, "custom"),
            _json_object(pipeline),
            _json_object(expect_object(trainer, f"{where}: trainer")) if trainer is not None else None,
            get_str(obj, "source", where, ""),
        )
        trained = obj.get("trained")
        if trained is not None:
            entry.trained_json = json.dumps(expect_object(trained, f"{where}: trained"), ensure_ascii=False)
        report = obj.get("report")
        if report is not None:
            entry.report = TrainReport.from_dict(report)
        if "frequencies" in obj:
            entry.frequencies = get_counts(obj, "frequencies", where)
        examples = expect_object(obj.get("examples", {}), f"{where}: examples")
        for key, words in examples.items():
            if not key.isdigit() or not isinstance(words, list):
                raise SchemaError(f"{where}: examples must map token ids to lists of [word, count]")
            pairs: list[tuple[str, int]] = []
            for item in words:
                if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str):
                    raise SchemaError(f"{where}: an example must be [word, count]")
                pairs.append((item[0], as_count(item[1], f"{where}: an example's count")))
            entry.examples[int(key)] = pairs
        for item in get_list(obj, "evaluations", where) if "evaluations" in obj else []:
            if not isinstance(item, list) or len(item) != 2:
                raise SchemaError(f"{where}: an evaluation must be [merges, characters per token]")
            done, value = item[0], item[1]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise SchemaError(f"{where}: an evaluation's value must be a number")
            entry.evaluations.append((as_count(done, f"{where}: an evaluation's merges"), float(value)))
        entry.counts_file = get_str(obj, "counts_file", where, "")
        entry.counts_key = get_str(obj, "counts_key", where, "")
        held_out = obj.get("counts_held_out", 0.0)
        if isinstance(held_out, bool) or not isinstance(held_out, (int, float)):
            raise SchemaError(f"{where}: 'counts_held_out' must be a number")
        entry.counts_held_out = float(held_out)
        return entry


class Project:
    """Corpus files and tokenizers; `active` is the index of the tokenizer every view shows."""

    name: str
    corpus: list[CorpusFile]
    tokenizers: list[TokenizerEntry]
    active: int

    def __init__(self, name: str = "Untitled") -> None:
        self.name = name
        self.corpus = []
        self.tokenizers = []
        self.active = -1

    @property
    def active_entry(self) -> TokenizerEntry | None:
        if 0 <= self.active < len(self.tokenizers):
            return self.tokenizers[self.active]
        return None

    def missing_files(self) -> list[CorpusFile]:
        return [item for item in self.corpus if not item.exists()]

    def unique_name(self, wanted: str) -> str:
        """`wanted`, or `wanted (2)`, `wanted (3)`... whichever no tokenizer has yet."""
        names = [entry.name for entry in self.tokenizers]
        if wanted not in names:
            return wanted
        n = 2
        while f"{wanted} ({n})" in names:
            n += 1
        return f"{wanted} ({n})"

    def to_dict(self, folder: str) -> dict[str, JsonValue]:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "name": self.name,
            "corpus": [item.to_dict(folder) for item in self.corpus],
            "tokenizers": [entry.to_dict() for entry in self.tokenizers],
            "active": self.active,
        }

    @staticmethod
    def from_dict(data: object, folder: str) -> Project:
        obj = expect_object(data, "project")
        project = Project(get_str(obj, "name", "project", "Untitled"))
        project.corpus = [CorpusFile.from_dict(item, folder) for item in get_list(obj, "corpus", "project")]
        project.tokenizers = [TokenizerEntry.from_dict(item) for item in get_list(obj, "tokenizers", "project")]
        active = obj.get("active", -1)
        if isinstance(active, bool) or not isinstance(active, int):
            raise SchemaError("project: 'active' must be an integer")
        project.active = active if -1 <= active < len(project.tokenizers) else -1
        return project

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickling and deep copies go through the project file's object. subtle: with the folder
        "" no path is made relative (relpath refuses it), so every corpus path stays absolute."""
        return (Project.from_dict, (self.to_dict(""), ""))

    def to_json(self, folder: str) -> str:
        return json.dumps(self.to_dict(folder), ensure_ascii=False, indent=1)

    def save(self, path: str) -> None:
        """Write the project atomically: a failure never leaves a half-written file at `path`."""
        folder = os.path.dirname(os.path.abspath(path))
        write_text_atomically(path, self.to_json(folder))

    @staticmethod
    def load(path: str) -> Project:
        """Read a project file; ProjectFileError names the file and the problem."""
        try:
            text = read_text(path, "project")
        except TokenizerFileError as error:
            raise ProjectFileError(path, error.reason) from None
        return Project.parse(text, path)

    @staticmethod
    def parse(text: str, path: str) -> Project:
        try:
            data = parse_json(text, path)
        except TokenizerFileError as error:
            raise ProjectFileError(path, error.reason) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ProjectFileError(path, f"is not a Tokenizer Workbench project (no \"format\": \"{FORMAT}\")")
        version = data.get("format_version")
        if isinstance(version, bool) or not isinstance(version, int):
            raise ProjectFileError(path, "has no valid format_version")
        if version > FORMAT_VERSION:
            raise ProjectFileError(
                path, f"was written by a newer Tokenizer Workbench (project format {version}; this one reads up to {FORMAT_VERSION})"
            )
        try:
            return Project.from_dict(data, os.path.dirname(os.path.abspath(path)))
        except SchemaError as error:
            raise ProjectFileError(path, str(error)) from None


def _relative(path: str, folder: str) -> str:
    """`path` relative to `folder`, or "" when they are on different drives."""
    try:
        return os.path.relpath(path, folder)
    except ValueError:
        return ""


def _json_object(data: dict[str, object]) -> dict[str, JsonValue]:
    result: dict[str, JsonValue] = {}
    for key, value in data.items():
        result[key] = value
    return result
