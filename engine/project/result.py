"""`TrainedResult`: a trained tokenizer as a project keeps it: its tokenizer.json, history and
vocabulary parts, made into bytes once and parsed only when a view asks; and the compact forms
those parts are stored in (history deltas, vocabulary columns, bounded examples).
"""

from __future__ import annotations

import json
from typing import Final

from engine.errors import SchemaError
from engine.project.archive import Part
from engine.project.facts import MAX_EXAMPLE_CHARS, ResultFacts, TrainedOn
from engine.project.fields import compact_json, id_key, parse_part
from engine.schema import JsonValue, as_count, expect_object, get_counts, get_list
from engine.trainers.records import TrainHistory, TrainReport

# History columns written as differences (see `compact_history`).
DELTA_COLUMNS: Final = ("index", "new_id", "vocab_size")


class TrainedResult:
    """A trained (or imported) tokenizer as the project keeps it, never changed once made: an
    edit makes a new one, so that undo can put the old one back.

    `tokenizer_json` is the tokenizer; `report` (with the training's history), `frequencies[id]`
    and `examples[id]` (the most frequent training words holding the token, cut to
    MAX_EXAMPLE_CHARS) feed the views; `evaluations` are (steps done, characters per token on
    the held-out text); `round_points`, a Unigram training's rounds measured on the held-out
    lines (`engine.analysis.size_curve.RoundPoint`: round, vocabulary size, tokens, characters;
    empty for other trainings and in older projects). `counts_file` is the word-counts table a BPE training kept (for
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
    round_points: list[tuple[int, int, int, int]]
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
        round_points: list[tuple[int, int, int, int]] | None = None,
    ) -> None:
        self.tokenizer_json = tokenizer_json
        self.evaluations = evaluations if evaluations is not None else []
        self.round_points = round_points if round_points is not None else []
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
        round_points: list[tuple[int, int, int, int]] | None = None,
    ) -> TrainedResult:
        """A result read from a project file, its history and vocabulary parsed when first needed
        (`where` names it in the messages of a damaged part); its parts are written back as read."""
        try:
            tokenizer_json = tokenizer.content.decode("utf-8")
        except UnicodeDecodeError:
            raise SchemaError(f"{where}: its tokenizer.json is not UTF-8") from None
        result = TrainedResult(
            tokenizer_json, None, None, None, evaluations, counts[0], counts[1], counts[2], trained_on, round_points
        )
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
        round_points: list[tuple[int, int, int, int]] | None = None,
    ) -> TrainedResult:
        """A training's result whose parts a training process made already (packed, even):
        they are kept as they are, and the vocabulary part is parsed only if a view asks."""
        result = TrainedResult.stored(
            tokenizer, None, history, vocabulary, evaluations, counts, trained_on, "result", round_points
        )
        result._report = report
        return result

    def with_counts(self, counts_file: str, counts_key: str, counts_held_out: float) -> TrainedResult:
        """This result with other kept word counts (the same parts, shared)."""
        copy = TrainedResult.stored(
            self.tokenizer_part(), self._summary, self._history, self._vocabulary, self.evaluations,
            (counts_file, counts_key, counts_held_out), self.trained_on, self._where, self.round_points,
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
                    history = _expanded_history(parse_part(self._history.content, f"{self._where}: history"))
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
            self._frequencies, self._examples = vocabulary_from_dict(parse_part(self._vocabulary.content, where), where)
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
                self._history = Part(compact_json(compact_history(report.history.to_dict())))
        return self._history

    def vocabulary_part(self) -> Part:
        """The frequencies and example words as the project file's member holds them."""
        if self._vocabulary is None:
            self._vocabulary = Part(compact_json(vocabulary_to_dict(self.frequencies, self.examples)))
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


# How a vocabulary part opens (`vocabulary_to_dict` through `compact_json`; see `part_frequencies`).
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
    frequencies, a flat list of numbers, as `vocabulary_to_dict` and `compact_json` write it; then
    only that list is parsed (a 32k part: 5 ms, where parsing it whole took 120). A part that
    opens otherwise is parsed whole, as every part is (`parse_part`), with the same errors."""
    if content.startswith(FREQUENCIES_OPENING):
        end = content.find(b"]", len(FREQUENCIES_OPENING))
        if end > 0:
            try:
                listed = json.loads(content[len(FREQUENCIES_OPENING) : end + 1])
            except ValueError:
                listed = None
            if isinstance(listed, list):
                return vocabulary_frequencies({"frequencies": listed}, where)
    return vocabulary_frequencies(parse_part(content, where), where)


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
        id = id_key(key, where)
        if not isinstance(indexes, list):
            raise SchemaError(f"{where}: examples must map token ids to lists of word numbers")
        picked: list[tuple[str, int]] = []
        for number in indexes:
            if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < len(words):
                raise SchemaError(f"{where}: example word number {number!r} is not one of its {len(words):,} words")
            picked.append(words[number])
        examples[id] = picked
    return frequencies, examples


def examples_to_dict(examples: dict[int, list[tuple[str, int]]]) -> dict[str, JsonValue]:
    shown: dict[str, JsonValue] = {}
    for id, words in sorted(examples.items()):
        shown[str(id)] = [[word, count] for word, count in words]
    return shown


def examples_from_dict(data: object, where: str) -> dict[int, list[tuple[str, int]]]:
    examples: dict[int, list[tuple[str, int]]] = {}
    for key, words in expect_object(data, f"{where}: examples").items():
        if not isinstance(words, list):
            raise SchemaError(f"{where}: examples must map token ids to lists of [word, count]")
        pairs: list[tuple[str, int]] = []
        for item in words:
            if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str):
                raise SchemaError(f"{where}: an example must be [word, count]")
            pairs.append((item[0], as_count(item[1], f"{where}: an example's count")))
        examples[id_key(key, where)] = pairs
    return examples


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
    found = _expanded_history(parse_part(data, where))
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
