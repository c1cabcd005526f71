"""`TokenizerEntry`: one tokenizer of a project: its name, pipeline and trainer settings, its
result and what it was trained on, and its state (untrained, trained, changed since).
"""

from __future__ import annotations

import json

from engine.project.archive import Part
from engine.project.facts import TrainedOn
from engine.project.fields import (
    HISTORY_MEMBER,
    TOKENIZER_MEMBER,
    VOCABULARY_MEMBER,
    read_evaluations,
    read_round_points,
    get_number,
    json_object,
    member_part,
)
from engine.project.result import TrainedResult, examples_to_dict, examples_from_dict, vocabulary_frequencies
from engine.errors import SchemaError
from engine.schema import JsonValue, expect_object, get_count, get_list, get_str
from engine.tokenizer import Tokenizer
from engine.trainers.records import TrainReport

# What a tokenizer entry can change, to put back (`TokenizerEntry.state`): name, preset, source,
# pipeline, trainer settings, result and the notes of its import.
EntryState = tuple[
    str, str, str, dict[str, JsonValue], dict[str, JsonValue] | None, TrainedResult | None, list[str]
]


class TokenizerEntry:
    """One tokenizer of the project: its name, its configuration (`pipeline`, the tokenizer.json
    of the untrained pipeline, and `trainer`, the trainer's settings; None for an imported
    tokenizer that keeps its own vocabulary) and, once trained or imported, its `result`.

    `preset` names what it was made from ("bpe", "gpt2", ... or "imported"); `source` is the
    imported file, and `notes` what its reading chose that the file does not say (a .tiktoken
    file's pattern: `convert.load_noted`). The result's parts are also readable here
    (`trained_json`, `report`, ...).
    """

    name: str
    preset: str
    source: str
    pipeline: dict[str, JsonValue]
    trainer: dict[str, JsonValue] | None
    result: TrainedResult | None
    notes: list[str]

    def __init__(
        self,
        name: str,
        preset: str,
        pipeline: dict[str, JsonValue],
        trainer: dict[str, JsonValue] | None,
        source: str = "",
        result: TrainedResult | None = None,
        notes: list[str] | None = None,
    ) -> None:
        self.name = name
        self.preset = preset
        self.source = source
        self.pipeline = pipeline
        self.trainer = trainer
        self.result = result
        self.notes = notes if notes is not None else []

    def state(self) -> EntryState:
        """Everything that can change, to put back later (`restore`): the values are never
        changed in place, so keeping them is cheap."""
        return (self.name, self.preset, self.source, self.pipeline, self.trainer, self.result, self.notes)

    def restore(self, state: EntryState) -> None:
        self.name, self.preset, self.source, self.pipeline, self.trainer, self.result, self.notes = state

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
        data: dict[str, JsonValue] = {
            "name": self.name,
            "preset": self.preset,
            "source": self.source,
        }
        if self.notes:
            # (only when there are some: a project without notes is written as before them)
            data["notes"] = list[JsonValue](self.notes)
        data["pipeline"] = self.pipeline
        data["trainer"] = self.trainer
        return data

    def to_dict(self, folder: str = "") -> dict[str, JsonValue]:
        """Everything in one JSON object (format 1's layout, parts inline)."""
        data = self._settings_dict()
        result = self.result
        data["trained"] = self.trained
        report = result.report if result is not None else None
        data["report"] = report.to_dict() if report is not None else None
        frequencies = self.frequencies
        data["frequencies"] = list[JsonValue](frequencies)
        data["examples"] = examples_to_dict(self.examples)
        data["evaluations"] = [[done, value] for done, value in self.evaluations]
        data["round_points"] = _round_points(result)
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
            "round_points": _round_points(result),
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
            json_object(pipeline),
            json_object(expect_object(trainer, f"{where}: trainer")) if trainer is not None else None,
            get_str(obj, "source", where, ""),
            notes=_read_notes(obj, where),
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
        examples = examples_from_dict(obj.get("examples", {}), where)
        held_out = get_number(obj, "counts_held_out", where, 0.0)
        trained_on_data = obj.get("trained_on")
        entry.result = TrainedResult(
            tokenizer_json,
            report,
            frequencies,
            examples,
            read_evaluations(obj, where),
            get_str(obj, "counts_file", where, ""),
            get_str(obj, "counts_key", where, ""),
            held_out,
            TrainedOn.from_dict(trained_on_data, folder) if trained_on_data is not None else None,
            read_round_points(obj, where),
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
        tokenizer = member_part(parts, "tokenizer", members, where, True)
        assert tokenizer is not None
        summary = robj.get("report")
        trained_on_data = robj.get("trained_on")
        entry.result = TrainedResult.stored(
            tokenizer,
            expect_object(summary, f"{where}: report") if summary is not None else None,
            member_part(parts, "history", members, where, False),
            member_part(parts, "vocabulary", members, where, False),
            read_evaluations(robj, where),
            (
                get_str(robj, "counts_file", where, ""),
                get_str(robj, "counts_key", where, ""),
                get_number(robj, "counts_held_out", where, 0.0),
            ),
            TrainedOn.from_dict(trained_on_data, folder) if trained_on_data is not None else None,
            where,
            read_round_points(robj, where),
        )
        entry.result.vocab_size = get_count(robj, "vocab_size", where, 0)
        return entry


def _round_points(result: TrainedResult | None) -> list[JsonValue]:
    """A result's round points as the project file keeps them: [[round, size, tokens, characters], ...]."""
    if result is None:
        return []
    return [[index, size, tokens, characters] for index, size, tokens, characters in result.round_points]


def _read_notes(obj: dict[str, object], where: str) -> list[str]:
    """The entry's optional "notes": a list of strings (absent: none)."""
    if "notes" not in obj:
        return []
    found: list[str] = []
    for note in get_list(obj, "notes", where):
        if not isinstance(note, str):
            raise SchemaError(f"{where}: field 'notes' must be a list of strings")
        found.append(note)
    return found
