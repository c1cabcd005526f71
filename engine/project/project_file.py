"""The project file (`*.tokproj`): corpus file references, tokenizer configurations, their trained
results with what each was trained on, and their training histories, written atomically.

Format 2 (written now) is a zip archive, so that a project with several trained tokenizers stays
a few MB and opens at once: `project.json` holds the corpus references, every tokenizer's
settings and a summary of its result; each trained tokenizer's big parts are members of their
own (`tokenizers/<n>/tokenizer.json`, `history.json`, `vocabulary.json`), compressed, read only
when a view asks for them, and written from bytes made once per result. Format 1 (one JSON file
holding everything, what `Project.to_json` gives) is still read. Corpus paths are kept relative
to the project's folder where they can be, so a project folder can move. Nothing here trains or
draws.
"""

from __future__ import annotations

import json
import os
from typing import Final

from engine.project.archive import ZIP_MAGIC, Part, pack, unpack
from engine.errors import CorpusError, ProjectFileError, SchemaError, TokenizerFileError
from engine.formats.files import read_bytes, write_files_atomically
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
from engine.corpus.sources import DEFAULT_FIELD, FORMAT_ARROW, FORMAT_JSONL, source_of
from engine.tokenizer import Tokenizer
from engine.trainers.records import TrainHistory, TrainReport

FORMAT: Final = "tokenizer-workbench project"
FORMAT_VERSION: Final = 2
SUFFIX: Final = ".tokproj"
BACKUP_SUFFIX: Final = ".bak"
# The archive's index, and where each trained tokenizer's parts go (`<n>`: its place in the list).
INDEX_MEMBER: Final = "project.json"
# History columns written as differences (see `compact_history`).
DELTA_COLUMNS: Final = ("index", "new_id", "vocab_size")
TOKENIZER_MEMBER: Final = "tokenizers/{}/tokenizer.json"
HISTORY_MEMBER: Final = "tokenizers/{}/history.json"
VOCABULARY_MEMBER: Final = "tokenizers/{}/vocabulary.json"
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
            "relative": _relative(self.path, folder),
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
            _get_number(obj, "mtime", where, 0.0),
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
            _get_number(obj, "held_out", where, 0.0),
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


class TrainedResult:
    """A trained (or imported) tokenizer as the project keeps it, never changed once made: an
    edit makes a new one, so that undo can put the old one back.

    `tokenizer_json` is the tokenizer; `report` (with the training's history), `frequencies[id]`
    and `examples[id]` (the most frequent training words holding the token, cut to
    MAX_EXAMPLE_CHARS) feed the views; `evaluations` are (steps done, characters per token on
    the held-out text). `counts_file` is the word-counts table a BPE training kept (for
    continuing it without recounting; "" when none), valid while `counts_key` (a digest of the
    corpus and the pipeline it was counted with) still matches; `counts_held_out` is the share
    it was counted without. `trained_on` is what it was trained on (None: imported, or an older
    project that did not keep it).

    A result read from a project file parses its history and vocabulary parts when first asked
    for (a part that cannot be read is left out and `problem` says why); `history_data()` and
    `vocabulary_data()` give them back as the file's bytes.
    """

    tokenizer_json: str
    evaluations: list[tuple[int, float]]
    counts_file: str
    counts_key: str
    counts_held_out: float
    trained_on: TrainedOn | None
    _summary: dict[str, object] | None
    _report: TrainReport | None
    _history: Part | None
    _frequencies: list[int] | None
    _examples: dict[int, list[tuple[str, int]]] | None
    _vocabulary: Part | None
    _tokenizer: Part | None
    _where: str
    # What could not be read of a stored result's parts ("" when everything could).
    problem: str
    # The vocabulary's size, known without parsing the tokenizer (0: not known; see `size`).
    vocab_size: int

    def __init__(
        self,
        tokenizer_json: str,
        report: TrainReport | None = None,
        frequencies: list[int] | None = None,
        examples: dict[int, list[tuple[str, int]]] | None = None,
        evaluations: list[tuple[int, float]] | None = None,
        counts_file: str = "",
        counts_key: str = "",
        counts_held_out: float = 0.0,
        trained_on: TrainedOn | None = None,
    ) -> None:
        self.tokenizer_json = tokenizer_json
        self.evaluations = evaluations if evaluations is not None else []
        self.counts_file = counts_file
        self.counts_key = counts_key
        self.counts_held_out = counts_held_out
        self.trained_on = trained_on
        self._summary = None
        self._report = report
        self._history = None
        self._frequencies = frequencies if frequencies is not None else []
        self._examples = bounded_examples(examples) if examples is not None else {}
        self._vocabulary = None
        self._tokenizer = None
        self._where = "result"
        self.problem = ""
        self.vocab_size = 0

    @staticmethod
    def stored(
        tokenizer: Part,
        summary: dict[str, object] | None,
        history: Part | None,
        vocabulary: Part | None,
        evaluations: list[tuple[int, float]],
        counts: tuple[str, str, float],
        trained_on: TrainedOn | None,
        where: str,
    ) -> TrainedResult:
        """A result read from a project file, its history and vocabulary parsed when first needed
        (`where` names it in the messages of a damaged part); its parts are written back as read."""
        try:
            tokenizer_json = tokenizer.content.decode("utf-8")
        except UnicodeDecodeError:
            raise SchemaError(f"{where}: its tokenizer.json is not UTF-8") from None
        result = TrainedResult(tokenizer_json, None, None, None, evaluations, counts[0], counts[1], counts[2], trained_on)
        result._tokenizer = tokenizer
        result._summary = summary
        result._history = history
        result._frequencies = None
        result._examples = None
        result._vocabulary = vocabulary
        result._where = where
        return result

    @staticmethod
    def made(
        tokenizer: Part,
        report: TrainReport,
        history: Part,
        vocabulary: Part,
        evaluations: list[tuple[int, float]],
        counts: tuple[str, str, float],
        trained_on: TrainedOn | None,
    ) -> TrainedResult:
        """A training's result whose parts a training process made already (packed, even):
        they are kept as they are, and the vocabulary part is parsed only if a view asks."""
        result = TrainedResult.stored(tokenizer, None, history, vocabulary, evaluations, counts, trained_on, "result")
        result._report = report
        return result

    def with_counts(self, counts_file: str, counts_key: str, counts_held_out: float) -> TrainedResult:
        """This result with other kept word counts (the same parts, shared)."""
        copy = TrainedResult.stored(
            self.tokenizer_part(), self._summary, self._history, self._vocabulary, self.evaluations,
            (counts_file, counts_key, counts_held_out), self.trained_on, self._where,
        )  # fmt: skip
        copy._report = self._report
        copy._frequencies = self._frequencies
        copy._examples = self._examples
        copy.vocab_size = self.vocab_size
        return copy

    @property
    def report(self) -> TrainReport | None:
        """The training's report with its history (None for an imported tokenizer)."""
        if self._report is None and self._summary is not None:
            summary = dict(self._summary)
            history: object = {"algorithm": "unknown"}
            if self._history is not None:
                try:
                    history = _expanded_history(_parse_part(self._history.content, f"{self._where}: history"))
                except SchemaError as error:
                    self._summary = None
                    self.problem = f"its training history cannot be read: {error}"
                    return None
            summary["history"] = history
            try:
                self._report = TrainReport.from_dict(summary)
            except SchemaError as error:
                self._summary = None  # shown as a result without a history, the problem said
                self.problem = f"its training history cannot be read: {error}"
        return self._report

    @property
    def frequencies(self) -> list[int]:
        if self._frequencies is None:
            self._read_vocabulary()
        frequencies = self._frequencies
        assert frequencies is not None
        return frequencies

    @property
    def examples(self) -> dict[int, list[tuple[str, int]]]:
        if self._examples is None:
            self._read_vocabulary()
        examples = self._examples
        assert examples is not None
        return examples

    def _read_vocabulary(self) -> None:
        if self._vocabulary is None:
            self._frequencies, self._examples = [], {}
            return
        where = f"{self._where}: vocabulary"
        try:
            self._frequencies, self._examples = vocabulary_from_dict(_parse_part(self._vocabulary.content, where), where)
        except SchemaError as error:
            self._frequencies, self._examples = [], {}
            self.problem = f"its token frequencies cannot be read: {error}"

    def size(self) -> int:
        """The vocabulary's size as far as it is known without parsing the tokenizer: as kept,
        else the training's last step's (0 when neither says)."""
        if self.vocab_size > 0:
            return self.vocab_size
        report = self.report
        if report is not None:
            history = report.history
            if history.merges and (not history.rounds or history.merges[-1].index > history.rounds[-1].index):
                return history.merges[-1].vocab_size
            if history.rounds:
                return history.rounds[-1].vocab_size
        return 0

    def tokenizer_part(self) -> Part:
        """The tokenizer.json as the project file's member holds it."""
        if self._tokenizer is None:
            self._tokenizer = Part(self.tokenizer_json.encode("utf-8"))
        return self._tokenizer

    def history_part(self) -> Part | None:
        """The history as the project file's member holds it (None when there is no report)."""
        if self._history is None:
            report = self.report
            if report is not None:
                self._history = Part(_compact(compact_history(report.history.to_dict())))
        return self._history

    def vocabulary_part(self) -> Part:
        """The frequencies and example words as the project file's member holds them."""
        if self._vocabulary is None:
            self._vocabulary = Part(_compact(vocabulary_to_dict(self.frequencies, self.examples)))
        return self._vocabulary

    def history_data(self) -> bytes:
        history = self.history_part()
        return history.content if history is not None else b""

    def vocabulary_data(self) -> bytes:
        return self.vocabulary_part().content

    def summary(self) -> dict[str, JsonValue] | None:
        """The report without its history, with its step counts (None when there is no report)."""
        if self._summary is not None and isinstance(self._summary.get("steps"), dict):
            return dict(self._summary)
        report = self.report
        if report is None:
            return None
        data = report.to_dict()
        del data["history"]
        data["steps"] = ResultFacts(report).steps_dict()
        return data

    def parsed_report(self) -> TrainReport | None:
        """The report if it is in memory already (a training's, or parsed before); never parses."""
        return self._report

    def facts(self) -> ResultFacts | None:
        """What the report says, without parsing the history when the project file kept the
        step counts (None when there is no report)."""
        if self._report is None and self._summary is not None:
            try:
                facts = ResultFacts.from_summary(self._summary, self._where)
            except SchemaError:
                facts = None
            if facts is not None:
                return facts
        report = self.report
        return ResultFacts(report) if report is not None else None


# What a tokenizer entry can change, to put back (`TokenizerEntry.state`): name, preset, source,
# pipeline, trainer settings and result.
EntryState = tuple[str, str, str, dict[str, JsonValue], dict[str, JsonValue] | None, TrainedResult | None]


class TokenizerEntry:
    """One tokenizer of the project: its name, its configuration (`pipeline`, the tokenizer.json
    of the untrained pipeline, and `trainer`, the trainer's settings; None for an imported
    tokenizer that keeps its own vocabulary) and, once trained or imported, its `result`.

    `preset` names what it was made from ("bpe", "gpt2", ... or "imported"); `source` is the
    imported file. The result's parts are also readable here (`trained_json`, `report`, ...).
    """

    name: str
    preset: str
    source: str
    pipeline: dict[str, JsonValue]
    trainer: dict[str, JsonValue] | None
    result: TrainedResult | None

    def __init__(
        self,
        name: str,
        preset: str,
        pipeline: dict[str, JsonValue],
        trainer: dict[str, JsonValue] | None,
        source: str = "",
        result: TrainedResult | None = None,
    ) -> None:
        self.name = name
        self.preset = preset
        self.source = source
        self.pipeline = pipeline
        self.trainer = trainer
        self.result = result

    def state(self) -> EntryState:
        """Everything that can change, to put back later (`restore`): the values are never
        changed in place, so keeping them is cheap."""
        return (self.name, self.preset, self.source, self.pipeline, self.trainer, self.result)

    def restore(self, state: EntryState) -> None:
        self.name, self.preset, self.source, self.pipeline, self.trainer, self.result = state

    @property
    def is_trained(self) -> bool:
        return self.result is not None

    @property
    def trained_json(self) -> str | None:
        return self.result.tokenizer_json if self.result is not None else None

    @property
    def report(self) -> TrainReport | None:
        return self.result.report if self.result is not None else None

    @property
    def frequencies(self) -> list[int]:
        return self.result.frequencies if self.result is not None else []

    @property
    def examples(self) -> dict[int, list[tuple[str, int]]]:
        return self.result.examples if self.result is not None else {}

    @property
    def evaluations(self) -> list[tuple[int, float]]:
        return self.result.evaluations if self.result is not None else []

    @property
    def counts_file(self) -> str:
        return self.result.counts_file if self.result is not None else ""

    @property
    def counts_key(self) -> str:
        return self.result.counts_key if self.result is not None else ""

    @property
    def counts_held_out(self) -> float:
        return self.result.counts_held_out if self.result is not None else 0.0

    @property
    def trained_on(self) -> TrainedOn | None:
        return self.result.trained_on if self.result is not None else None

    @property
    def trained(self) -> dict[str, JsonValue] | None:
        """The trained tokenizer's tokenizer.json object (parsed on each call)."""
        if self.result is None:
            return None
        data: dict[str, JsonValue] = json.loads(self.result.tokenizer_json)
        return data

    def tokenizer(self) -> Tokenizer:
        """The trained tokenizer, or the untrained pipeline when there is no result yet."""
        if self.result is not None:
            return Tokenizer.from_str(self.result.tokenizer_json)
        return Tokenizer.from_str(json.dumps(self.pipeline))

    def forget_result(self) -> None:
        """Back to an untrained configuration (its settings changed)."""
        self.result = None

    def _settings_dict(self) -> dict[str, JsonValue]:
        return {
            "name": self.name,
            "preset": self.preset,
            "source": self.source,
            "pipeline": self.pipeline,
            "trainer": self.trainer,
        }

    def to_dict(self, folder: str = "") -> dict[str, JsonValue]:
        """Everything in one JSON object (format 1's layout, parts inline)."""
        data = self._settings_dict()
        result = self.result
        data["trained"] = self.trained
        report = result.report if result is not None else None
        data["report"] = report.to_dict() if report is not None else None
        frequencies = self.frequencies
        data["frequencies"] = list[JsonValue](frequencies)
        data["examples"] = _examples_dict(self.examples)
        data["evaluations"] = [[done, value] for done, value in self.evaluations]
        data["counts_file"] = self.counts_file
        data["counts_key"] = self.counts_key
        data["counts_held_out"] = self.counts_held_out
        trained_on = self.trained_on
        data["trained_on"] = trained_on.to_dict(folder) if trained_on is not None else None
        return data

    def index_dict(self, folder: str, number: int) -> dict[str, JsonValue]:
        """Its entry in an archive's project.json: the settings and the result's summary, the
        big parts named as members (`number`: its place in the project's list)."""
        data = self._settings_dict()
        result = self.result
        if result is None:
            data["result"] = None
            return data
        parts: dict[str, JsonValue] = {"tokenizer": TOKENIZER_MEMBER.format(number)}
        if result.history_part() is not None:
            parts["history"] = HISTORY_MEMBER.format(number)
        parts["vocabulary"] = VOCABULARY_MEMBER.format(number)
        trained_on = result.trained_on
        data["result"] = {
            "parts": parts,
            "report": result.summary(),
            "evaluations": [[done, value] for done, value in result.evaluations],
            "counts_file": result.counts_file,
            "counts_key": result.counts_key,
            "counts_held_out": result.counts_held_out,
            "trained_on": trained_on.to_dict(folder) if trained_on is not None else None,
            "vocab_size": result.vocab_size,
        }
        return data

    def members(self, number: int) -> list[tuple[str, Part]]:
        """The archive members of its result: (name, part), as `index_dict` names them."""
        result = self.result
        if result is None:
            return []
        found = [(TOKENIZER_MEMBER.format(number), result.tokenizer_part())]
        history = result.history_part()
        if history is not None:
            found.append((HISTORY_MEMBER.format(number), history))
        found.append((VOCABULARY_MEMBER.format(number), result.vocabulary_part()))
        return found

    @staticmethod
    def _settings_from_dict(obj: dict[str, object]) -> TokenizerEntry:
        where = "tokenizer"
        name = get_str(obj, "name", where)
        where = f"tokenizer {name!r}"
        pipeline = expect_object(obj.get("pipeline"), f"{where}: pipeline")
        trainer = obj.get("trainer")
        return TokenizerEntry(
            name,
            get_str(obj, "preset", where, "custom"),
            _json_object(pipeline),
            _json_object(expect_object(trainer, f"{where}: trainer")) if trainer is not None else None,
            get_str(obj, "source", where, ""),
        )

    @staticmethod
    def from_dict(data: object, folder: str = "") -> TokenizerEntry:
        """An entry of format 1's layout (parts inline)."""
        obj = expect_object(data, "tokenizer")
        entry = TokenizerEntry._settings_from_dict(obj)
        where = f"tokenizer {entry.name!r}"
        trained = obj.get("trained")
        if trained is None:
            return entry
        tokenizer_json = json.dumps(expect_object(trained, f"{where}: trained"), ensure_ascii=False)
        report_data = obj.get("report")
        report = TrainReport.from_dict(report_data) if report_data is not None else None
        frequencies = vocabulary_frequencies(obj, where)
        examples = _examples_from_dict(obj.get("examples", {}), where)
        held_out = _get_number(obj, "counts_held_out", where, 0.0)
        trained_on_data = obj.get("trained_on")
        entry.result = TrainedResult(
            tokenizer_json,
            report,
            frequencies,
            examples,
            _evaluations(obj, where),
            get_str(obj, "counts_file", where, ""),
            get_str(obj, "counts_key", where, ""),
            held_out,
            TrainedOn.from_dict(trained_on_data, folder) if trained_on_data is not None else None,
        )
        return entry

    @staticmethod
    def from_index(data: object, folder: str, members: dict[str, Part]) -> TokenizerEntry:
        """An entry of an archive's project.json, its parts taken from `members`."""
        obj = expect_object(data, "tokenizer")
        entry = TokenizerEntry._settings_from_dict(obj)
        where = f"tokenizer {entry.name!r}"
        result = obj.get("result")
        if result is None:
            return entry
        robj = expect_object(result, f"{where}: result")
        parts = expect_object(robj.get("parts"), f"{where}: result parts")
        tokenizer = _member(parts, "tokenizer", members, where, True)
        assert tokenizer is not None
        summary = robj.get("report")
        trained_on_data = robj.get("trained_on")
        entry.result = TrainedResult.stored(
            tokenizer,
            expect_object(summary, f"{where}: report") if summary is not None else None,
            _member(parts, "history", members, where, False),
            _member(parts, "vocabulary", members, where, False),
            _evaluations(robj, where),
            (
                get_str(robj, "counts_file", where, ""),
                get_str(robj, "counts_key", where, ""),
                _get_number(robj, "counts_held_out", where, 0.0),
            ),
            TrainedOn.from_dict(trained_on_data, folder) if trained_on_data is not None else None,
            where,
        )
        entry.result.vocab_size = get_count(robj, "vocab_size", where, 0)
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
        """Everything in one JSON object: format 1's layout (what `to_json` writes)."""
        return {
            "format": FORMAT,
            "format_version": 1,
            "name": self.name,
            "corpus": [item.to_dict(folder) for item in self.corpus],
            "tokenizers": [entry.to_dict(folder) for entry in self.tokenizers],
            "active": self.active,
        }

    def to_json(self, folder: str) -> str:
        """The whole project as one JSON text (format 1, which `parse` reads): for comparing
        two states, and for reading with the eyes."""
        return json.dumps(self.to_dict(folder), ensure_ascii=False, indent=1)

    def index(self, folder: str) -> dict[str, JsonValue]:
        """The archive's project.json: everything but the trained tokenizers' big parts."""
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "name": self.name,
            "corpus": [item.to_dict(folder) for item in self.corpus],
            "tokenizers": [self.tokenizers[i].index_dict(folder, i) for i in range(len(self.tokenizers))],
            "active": self.active,
        }

    def snapshot(self, folder: str) -> list[tuple[str, Part]]:
        """The archive's members as (name, part), the index first. Cheap: a result's parts are
        made once and kept (packed, once packed); what is left, packing the rest, can run on any
        thread (`engine.project.archive.pack`)."""
        members = [(INDEX_MEMBER, Part(json.dumps(self.index(folder), ensure_ascii=False, indent=1).encode("utf-8")))]
        for i in range(len(self.tokenizers)):
            members.extend(self.tokenizers[i].members(i))
        return members

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickling and deep copies go through the archive's members. subtle: with the folder ""
        no path is made relative (relpath refuses it), so every corpus path stays absolute."""
        return (_from_snapshot, (self.snapshot(""),))

    def save(self, path: str, backup: bool = True) -> None:
        """Write the project atomically, keeping the previous file as `<path>.bak` (`backup`):
        a failure never leaves a half-written file at `path`."""
        write_archive(path, pack(self.snapshot(os.path.dirname(os.path.abspath(path)))), backup)

    @staticmethod
    def load(path: str) -> Project:
        """Read a project file (an archive, or format 1's JSON); ProjectFileError names the file
        and the problem."""
        try:
            data = read_bytes(path, "project")
        except TokenizerFileError as error:
            raise ProjectFileError(path, error.reason) from None
        return Project.from_bytes(data, path)

    @staticmethod
    def from_bytes(data: bytes, path: str) -> Project:
        """The project in `data`, the content of the file `path` (which messages name)."""
        if data.startswith(ZIP_MAGIC):
            return Project.unpack(data, path)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ProjectFileError(path, f"is neither a project archive nor UTF-8 JSON (byte {error.start})") from None
        return Project.parse(text, path)

    @staticmethod
    def parse(text: str, path: str) -> Project:
        """A project in format 1's layout (one JSON text)."""
        data = _load_json(text, path)
        _check_header(data, path)
        try:
            obj = expect_object(data, "project")
            project = Project(get_str(obj, "name", "project", "Untitled"))
            folder = os.path.dirname(os.path.abspath(path))
            project.corpus = [CorpusFile.from_dict(item, folder) for item in get_list(obj, "corpus", "project")]
            project.tokenizers = [TokenizerEntry.from_dict(item, folder) for item in get_list(obj, "tokenizers", "project")]
            project.active = _active(obj, len(project.tokenizers))
        except SchemaError as error:
            raise ProjectFileError(path, str(error)) from None
        return project

    @staticmethod
    def unpack(data: bytes, path: str) -> Project:
        """A project archive (format 2)."""
        return Project.from_members(unpack(data, path), path)

    @staticmethod
    def from_members(members: dict[str, Part], path: str) -> Project:
        """A project from an archive's members (as `snapshot` makes them), read from `path`."""
        index = members.get(INDEX_MEMBER)
        if index is None:
            raise ProjectFileError(path, f"is a zip archive without {INDEX_MEMBER}: not a Tokenizer Workbench project")
        try:
            text = index.content.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ProjectFileError(path, f"{INDEX_MEMBER} is not UTF-8 (byte {error.start})") from None
        obj_data = _load_json(text, path)
        _check_header(obj_data, path)
        try:
            obj = expect_object(obj_data, "project")
            project = Project(get_str(obj, "name", "project", "Untitled"))
            folder = os.path.dirname(os.path.abspath(path))
            project.corpus = [CorpusFile.from_dict(item, folder) for item in get_list(obj, "corpus", "project")]
            project.tokenizers = [
                TokenizerEntry.from_index(item, folder, members) for item in get_list(obj, "tokenizers", "project")
            ]
            project.active = _active(obj, len(project.tokenizers))
        except SchemaError as error:
            raise ProjectFileError(path, str(error)) from None
        return project


def _from_snapshot(members: list[tuple[str, Part]]) -> Project:
    """The project `Project.snapshot("")` gave (unpickling)."""
    return Project.from_members(dict(members), os.path.join(os.getcwd(), "pickled.tokproj"))


def write_archive(path: str, data: bytes, backup: bool = True) -> None:
    """Write a packed project to `path` atomically (temporary file, flush, fsync, rename), the
    file it replaces kept as `<path>.bak` when `backup`; raises ProjectFileError naming `path`."""
    try:
        if backup and os.path.isfile(path):
            keep_backup(path)
        write_files_atomically([(path, data)])
    except TokenizerFileError as error:
        raise ProjectFileError(path, error.reason) from None
    except OSError as error:
        raise ProjectFileError(path, f"cannot be written ({error.strerror or error})") from None
    remove_stale_temporaries(path)


def keep_backup(path: str) -> None:
    """`path`'s content, kept as `<path>.bak` (one backup: the previous one is replaced)."""
    backup = path + BACKUP_SUFFIX
    spare = f"{backup}.{os.getpid()}.tmp"
    try:
        os.unlink(spare)
    except OSError:
        pass
    try:
        os.link(path, spare)
    except OSError:
        with open(path, "rb") as source, open(spare, "wb") as copy:
            copy.write(source.read())
    os.replace(spare, backup)


def remove_stale_temporaries(path: str) -> list[str]:
    """Remove what a killed writer of `path` left beside it: `.<name>.<pid>.<hex>.part` (and
    `.old`) files whose process is gone, as `engine.formats.files` names its temporaries.
    Returns the paths removed."""
    folder, name = os.path.split(os.path.abspath(path))
    prefix = f".{name}."
    removed: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for candidate in names:
        if not candidate.startswith(prefix) or not (candidate.endswith(".part") or candidate.endswith(".old")):
            continue
        pieces = candidate[len(prefix) :].split(".")
        if len(pieces) != 3 or not pieces[0].isascii() or not pieces[0].isdigit():
            continue
        pid = int(pieces[0])
        if pid == os.getpid() or process_alive(pid):
            continue  # a write under way (ours may run on another thread)
        try:
            os.unlink(os.path.join(folder, candidate))
            removed.append(os.path.join(folder, candidate))
        except OSError:
            pass
    return removed


def process_alive(pid: int) -> bool:
    """Whether a process `pid` exists on this machine (a pid of another user's counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def bounded_examples(examples: dict[int, list[tuple[str, int]]]) -> dict[int, list[tuple[str, int]]]:
    """`examples` with every word cut to MAX_EXAMPLE_CHARS characters (ending "…")."""
    result: dict[int, list[tuple[str, int]]] = {}
    for id, words in examples.items():
        kept: list[tuple[str, int]] = []
        for word, count in words:
            if len(word) > MAX_EXAMPLE_CHARS:
                word = word[: MAX_EXAMPLE_CHARS - 1] + "…"
            kept.append((word, count))
        result[id] = kept
    return result


# How a vocabulary part opens (`vocabulary_to_dict` through `_compact`; see `part_frequencies`).
FREQUENCIES_OPENING: Final = b'{"frequencies":'


def vocabulary_to_dict(frequencies: list[int], examples: dict[int, list[tuple[str, int]]]) -> dict[str, JsonValue]:
    """The vocabulary part: frequencies by id, and the example words once each with the ids
    that show them: {"frequencies": [...], "words": [["·low", 12]], "examples": {"5": [0]}}."""
    words: list[JsonValue] = []
    numbered: dict[tuple[str, int], int] = {}
    shown: dict[str, JsonValue] = {}
    for id in sorted(examples):
        indexes: list[JsonValue] = []
        for item in examples[id]:
            number = numbered.get(item)
            if number is None:
                number = len(words)
                numbered[item] = number
                words.append([item[0], item[1]])
            indexes.append(number)
        shown[str(id)] = indexes
    return {"frequencies": list[JsonValue](frequencies), "words": words, "examples": shown}


def vocabulary_frequencies(data: object, where: str) -> list[int]:
    """A vocabulary part's token frequencies alone, its example words not read (a table needs
    only the frequencies: reading the examples of a 32k vocabulary took 190 ms)."""
    obj = expect_object(data, where)
    return get_counts(obj, "frequencies", where) if "frequencies" in obj else []


def part_frequencies(content: bytes, where: str) -> list[int]:
    """`vocabulary_frequencies` of a vocabulary part's bytes. subtle: a part opens with its
    frequencies, a flat list of numbers, as `vocabulary_to_dict` and `_compact` write it; then
    only that list is parsed (a 32k part: 5 ms, where parsing it whole took 120). A part that
    opens otherwise is parsed whole, as every part is (`_parse_part`), with the same errors."""
    if content.startswith(FREQUENCIES_OPENING):
        end = content.find(b"]", len(FREQUENCIES_OPENING))
        if end > 0:
            try:
                listed = json.loads(content[len(FREQUENCIES_OPENING) : end + 1])
            except ValueError:
                listed = None
            if isinstance(listed, list):
                return vocabulary_frequencies({"frequencies": listed}, where)
    return vocabulary_frequencies(_parse_part(content, where), where)


def vocabulary_from_dict(data: object, where: str) -> tuple[list[int], dict[int, list[tuple[str, int]]]]:
    obj = expect_object(data, where)
    frequencies = vocabulary_frequencies(obj, where)
    words: list[tuple[str, int]] = []
    for item in get_list(obj, "words", where) if "words" in obj else []:
        if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str):
            raise SchemaError(f"{where}: a word must be [word, count]")
        words.append((item[0], as_count(item[1], f"{where}: a word's count")))
    examples: dict[int, list[tuple[str, int]]] = {}
    for key, indexes in expect_object(obj.get("examples", {}), f"{where}: examples").items():
        id = _id_key(key, where)
        if not isinstance(indexes, list):
            raise SchemaError(f"{where}: examples must map token ids to lists of word numbers")
        picked: list[tuple[str, int]] = []
        for number in indexes:
            if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < len(words):
                raise SchemaError(f"{where}: example word number {number!r} is not one of its {len(words):,} words")
            picked.append(words[number])
        examples[id] = picked
    return frequencies, examples


def _member(parts: dict[str, object], key: str, members: dict[str, Part], where: str, required: bool) -> Part | None:
    """The archive member a result's `parts` name for `key` (None when absent and not `required`)."""
    name = parts.get(key)
    if name is None and not required:
        return None
    if not isinstance(name, str) or name not in members:
        raise SchemaError(f"{where}: the archive has no {key} part ({name!r})")
    return members[name]


def _examples_dict(examples: dict[int, list[tuple[str, int]]]) -> dict[str, JsonValue]:
    shown: dict[str, JsonValue] = {}
    for id, words in sorted(examples.items()):
        shown[str(id)] = [[word, count] for word, count in words]
    return shown


def _examples_from_dict(data: object, where: str) -> dict[int, list[tuple[str, int]]]:
    examples: dict[int, list[tuple[str, int]]] = {}
    for key, words in expect_object(data, f"{where}: examples").items():
        if not isinstance(words, list):
            raise SchemaError(f"{where}: examples must map token ids to lists of [word, count]")
        pairs: list[tuple[str, int]] = []
        for item in words:
            if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str):
                raise SchemaError(f"{where}: an example must be [word, count]")
            pairs.append((item[0], as_count(item[1], f"{where}: an example's count")))
        examples[_id_key(key, where)] = pairs
    return examples


def _id_key(key: str, where: str) -> int:
    """A token id written as an object key: ASCII digits only ("²".isdigit() is true), and small."""
    if not key.isascii() or not key.isdigit() or len(key) > 10:
        raise SchemaError(f"{where}: {key[:20]!r} is not a token id")
    return int(key)


def _evaluations(obj: dict[str, object], where: str) -> list[tuple[int, float]]:
    found: list[tuple[int, float]] = []
    for item in get_list(obj, "evaluations", where) if "evaluations" in obj else []:
        if not isinstance(item, list) or len(item) != 2:
            raise SchemaError(f"{where}: an evaluation must be [merges, characters per token]")
        done, value = item[0], item[1]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise SchemaError(f"{where}: an evaluation's value must be a number")
        found.append((as_count(done, f"{where}: an evaluation's merges"), float(value)))
    return found


def _get_number(obj: dict[str, object], key: str, where: str, default: float) -> float:
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise SchemaError(f"{where}: '{key}' must be a number")
    return float(value)


def _active(obj: dict[str, object], count: int) -> int:
    active = obj.get("active", -1)
    if isinstance(active, bool) or not isinstance(active, int):
        raise SchemaError("project: 'active' must be an integer")
    return active if -1 <= active < count else -1


def _check_header(data: object, path: str) -> None:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ProjectFileError(path, f"is not a Tokenizer Workbench project (no \"format\": \"{FORMAT}\")")
    version = data.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ProjectFileError(path, "has no valid format_version")
    if version > FORMAT_VERSION:
        raise ProjectFileError(
            path, f"was written by a newer Tokenizer Workbench (project format {version}; this one reads up to {FORMAT_VERSION})"
        )


def _load_json(text: str, path: str) -> object:
    """JSON from a project file, read as strictly as every other file (`safe_json`): every way
    it can be wrong (truncated, nested too deep, a number of 5,000 digits, NaN, a lone
    surrogate) is a ProjectFileError naming `path`."""
    try:
        return parse_json(text, path)
    except TokenizerFileError as error:
        raise ProjectFileError(path, error.reason) from None


def _parse_part(data: bytes, where: str) -> object:
    try:
        return parse_json(data.decode("utf-8"), where)
    except UnicodeDecodeError as error:
        raise SchemaError(f"{where} is not UTF-8 (byte {error.start})") from None
    except TokenizerFileError as error:
        raise SchemaError(f"{where} cannot be read: {error.reason}") from None


def compact_history(history: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """A history's wire form as a project keeps it: times to the millisecond (what a plot can
    show; the full float of each of 30,000 steps made a third of a project's size), and the
    columns that climb one by one as differences ("index" [0, 1, 2] -> "index~" [0, 1, 1]),
    which compress to almost nothing. `_expanded_history` undoes the second."""
    for kind in ("merges", "rounds"):
        columns = history.get(kind)
        if not isinstance(columns, dict):
            continue
        seconds = columns.get("seconds")
        if isinstance(seconds, list):
            columns["seconds"] = [round(value, 3) if isinstance(value, float) else value for value in seconds]
        for name in DELTA_COLUMNS:
            values = columns.get(name)
            if isinstance(values, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                columns[name + "~"] = _differences(values)
                del columns[name]
    return history


def history_columns(data: bytes, where: str) -> dict[str, JsonValue]:
    """A history part (as `history_part` holds it) as its wire form, one list per field, checked
    as `TrainHistory.from_dict` checks it; SchemaError when it cannot be read."""
    found = _expanded_history(_parse_part(data, where))
    TrainHistory.from_dict(found)
    assert isinstance(found, dict)
    return found


def _expanded_history(data: object) -> object:
    """A history as `compact_history` wrote it, its differences summed back."""
    if not isinstance(data, dict):
        return data
    for kind in ("merges", "rounds"):
        columns = data.get(kind)
        if not isinstance(columns, dict):
            continue
        for name in DELTA_COLUMNS:
            deltas = columns.pop(name + "~", None)
            if deltas is None:
                continue
            if not isinstance(deltas, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in deltas):
                raise SchemaError(f"training history: '{name}~' must be a list of integers")
            total = 0
            values: list[JsonValue] = []
            for delta in deltas:
                total += delta
                values.append(total)
            columns[name] = values
    return data


def _differences(values: list[JsonValue]) -> list[JsonValue]:
    """[5, 6, 8] -> [5, 1, 2]."""
    found: list[JsonValue] = []
    previous = 0
    for value in values:
        assert isinstance(value, int)
        found.append(value - previous)
        previous = value
    return found


def _compact(data: dict[str, JsonValue]) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _relative(path: str, folder: str) -> str:
    """`path` relative to `folder`, or "" when they are on different drives."""
    if not folder:
        return ""
    try:
        return os.path.relpath(path, folder)
    except ValueError:
        return ""


def _json_object(data: dict[str, object]) -> dict[str, JsonValue]:
    result: dict[str, JsonValue] = {}
    for key, value in data.items():
        result[key] = value
    return result
