"""What a training run reports: `MergeStep` (one merge), `RoundStep` (one round that changes the
whole vocabulary, such as a Unigram EM/prune round), `PairCandidate` (a pair competing for the next
merge), `TrainHistory` (every step, for plots and project files) and `TrainReport` (what a
training read and made).

Each record has a plain wire form, `to_dict()` / `from_dict()` (JSON-ready: it crosses process
boundaries and goes into project files), and pickles. No training here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Final

from engine.errors import SchemaError
from engine.schema import (
    JsonValue,
    as_count,
    expect_object,
    get_count,
    get_counts,
    get_float,
    get_floats,
    get_list,
    get_opt_count,
    get_opt_float,
    get_str,
    get_strings,
)

# What `MergeStep.score` means, per algorithm (TrainHistory.score_name): BPE's count; WordPiece's
# course ratio count(ab) / (count(a) * count(b)) (named "likelihood", as histories have always
# named it), or its likelihood gain (`engine.models.wordpiece.likelihood_gain`).
SCORE_COUNT: Final = "count"
SCORE_LIKELIHOOD: Final = "likelihood"
SCORE_LIKELIHOOD_GAIN: Final = "likelihood gain"


@dataclass(frozen=True)
class MergeStep:
    """One merge: `left` + `right` became `new_token` (id `new_id`).

    `count` is how often the pair occurred, `vocab_size` the size after the merge,
    `words_touched` the distinct words it changed. `score` is what chose the pair where that is
    not the count (WordPiece's ratio or likelihood gain; None for BPE), with the two symbols' own counts
    behind it. `seconds` (time since the run started) is left out of comparisons.
    """

    index: int
    left: str
    right: str
    new_token: str
    new_id: int
    count: int
    vocab_size: int
    words_touched: int
    score: float | None = None
    left_count: int | None = None
    right_count: int | None = None
    seconds: float = field(default=0.0, compare=False)

    @property
    def rank_value(self) -> float:
        """What ranked this merge: its score, or its count where there is no score (BPE)."""
        return self.score if self.score is not None else float(self.count)

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "kind": "merge",
            "index": self.index,
            "left": self.left,
            "right": self.right,
            "new_token": self.new_token,
            "new_id": self.new_id,
            "count": self.count,
            "vocab_size": self.vocab_size,
            "words_touched": self.words_touched,
            "score": self.score,
            "left_count": self.left_count,
            "right_count": self.right_count,
            "seconds": self.seconds,
        }

    @staticmethod
    def from_dict(data: object) -> MergeStep:
        where = "merge step"
        obj = expect_object(data, where)
        return MergeStep(
            index=get_count(obj, "index", where),
            left=get_str(obj, "left", where),
            right=get_str(obj, "right", where),
            new_token=get_str(obj, "new_token", where),
            new_id=get_count(obj, "new_id", where),
            count=get_count(obj, "count", where),
            vocab_size=get_count(obj, "vocab_size", where),
            words_touched=get_count(obj, "words_touched", where),
            score=get_opt_float(obj, "score", where),
            left_count=get_opt_count(obj, "left_count", where),
            right_count=get_opt_count(obj, "right_count", where),
            seconds=get_float(obj, "seconds", where),
        )

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # subtle: mypyc-compiled frozen dataclasses do not unpickle through pickle's default
        # path (it sets fields one by one); rebuilding through the constructor does.
        return (
            MergeStep,
            (
                self.index,
                self.left,
                self.right,
                self.new_token,
                self.new_id,
                self.count,
                self.vocab_size,
                self.words_touched,
                self.score,
                self.left_count,
                self.right_count,
                self.seconds,
            ),
        )


@dataclass(frozen=True)
class RoundStep:
    """One round that reshapes the vocabulary at once: a Unigram EM or pruning round, or
    WordLevel's selection of its words (`phase` names it).

    `vocab_size` is the size after the round, `removed` how many pieces it dropped,
    `log_likelihood` the corpus log-likelihood under the model after it (None where the
    algorithm has none), `seconds` the time since the run started.
    """

    index: int
    phase: str
    vocab_size: int
    removed: int
    log_likelihood: float | None
    seconds: float = field(default=0.0, compare=False)

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "kind": "round",
            "index": self.index,
            "phase": self.phase,
            "vocab_size": self.vocab_size,
            "removed": self.removed,
            "log_likelihood": self.log_likelihood,
            "seconds": self.seconds,
        }

    @staticmethod
    def from_dict(data: object) -> RoundStep:
        where = "round step"
        obj = expect_object(data, where)
        return RoundStep(
            index=get_count(obj, "index", where),
            phase=get_str(obj, "phase", where),
            vocab_size=get_count(obj, "vocab_size", where),
            removed=get_count(obj, "removed", where),
            log_likelihood=get_opt_float(obj, "log_likelihood", where),
            seconds=get_float(obj, "seconds", where),
        )

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (
            RoundStep,
            (self.index, self.phase, self.vocab_size, self.removed, self.log_likelihood, self.seconds),
        )


def step_from_dict(data: object) -> MergeStep | RoundStep:
    """A `MergeStep` or `RoundStep` from its wire form, by its "kind"."""
    obj = expect_object(data, "training step")
    kind = obj.get("kind")
    if kind == "merge":
        return MergeStep.from_dict(obj)
    if kind == "round":
        return RoundStep.from_dict(obj)
    raise SchemaError(f"training step: unknown kind {kind!r} (expected 'merge' or 'round')")


@dataclass(frozen=True)
class PairCandidate:
    """A pair competing for the next merge: its current count, and where the count is not what
    ranks it (WordPiece), its score and the symbols' own counts."""

    left: str
    right: str
    count: int
    score: float | None = None
    left_count: int | None = None
    right_count: int | None = None

    @property
    def rank_value(self) -> float:
        """What ranks this pair: its score, or its count where there is no score (BPE)."""
        return self.score if self.score is not None else float(self.count)

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "left": self.left,
            "right": self.right,
            "count": self.count,
            "score": self.score,
            "left_count": self.left_count,
            "right_count": self.right_count,
        }

    @staticmethod
    def from_dict(data: object) -> PairCandidate:
        where = "pair candidate"
        obj = expect_object(data, where)
        return PairCandidate(
            get_str(obj, "left", where),
            get_str(obj, "right", where),
            get_count(obj, "count", where),
            get_opt_float(obj, "score", where),
            get_opt_count(obj, "left_count", where),
            get_opt_count(obj, "right_count", where),
        )

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (PairCandidate, (self.left, self.right, self.count, self.score, self.left_count, self.right_count))


class TrainHistory:
    """Every step of one training, in order: the merges and the rounds (a run makes one kind or
    the other). `score_name` names what ranked the merges (`rank_values`): "count" for BPE.

    The wire form keeps one list per field ("columns"), so a 30,000-merge history stays small.
    """

    algorithm: str
    score_name: str
    merges: list[MergeStep]
    rounds: list[RoundStep]

    def __init__(
        self,
        algorithm: str,
        score_name: str = SCORE_COUNT,
        merges: list[MergeStep] | None = None,
        rounds: list[RoundStep] | None = None,
    ) -> None:
        self.algorithm = algorithm
        self.score_name = score_name
        self.merges = merges if merges is not None else []
        self.rounds = rounds if rounds is not None else []

    def __len__(self) -> int:
        return len(self.merges) + len(self.rounds)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TrainHistory):
            return NotImplemented
        return (
            self.algorithm == other.algorithm
            and self.score_name == other.score_name
            and self.merges == other.merges
            and self.rounds == other.rounds
        )

    def __repr__(self) -> str:
        return f"TrainHistory({self.algorithm!r}, merges={len(self.merges)}, rounds={len(self.rounds)})"

    def steps(self) -> list[MergeStep | RoundStep]:
        """Merges and rounds together, in the order the run made them."""
        keyed: list[tuple[int, int, MergeStep | RoundStep]] = []
        for i in range(len(self.merges)):
            keyed.append((self.merges[i].index, i, self.merges[i]))
        for i in range(len(self.rounds)):
            keyed.append((self.rounds[i].index, len(self.merges) + i, self.rounds[i]))
        keyed.sort(key=_step_order)
        return [step for _, _, step in keyed]

    # Columns for plots: one value per merge.

    @property
    def counts(self) -> list[int]:
        return [step.count for step in self.merges]

    @property
    def rank_values(self) -> list[float]:
        """Each merge's score, or its count where the algorithm has no score (BPE)."""
        return [step.rank_value for step in self.merges]

    @property
    def words_touched(self) -> list[int]:
        return [step.words_touched for step in self.merges]

    @property
    def vocab_sizes(self) -> list[int]:
        return [step.vocab_size for step in self.merges]

    # Wire form.

    def to_dict(self) -> dict[str, JsonValue]:
        merges = self.merges
        rounds = self.rounds
        return {
            "algorithm": self.algorithm,
            "score_name": self.score_name,
            "merges": {
                "index": [step.index for step in merges],
                "left": [step.left for step in merges],
                "right": [step.right for step in merges],
                "new_token": [step.new_token for step in merges],
                "new_id": [step.new_id for step in merges],
                "count": [step.count for step in merges],
                "vocab_size": [step.vocab_size for step in merges],
                "words_touched": [step.words_touched for step in merges],
                "score": [step.score for step in merges],
                "left_count": [step.left_count for step in merges],
                "right_count": [step.right_count for step in merges],
                "seconds": [step.seconds for step in merges],
            },
            "rounds": {
                "index": [step.index for step in rounds],
                "phase": [step.phase for step in rounds],
                "vocab_size": [step.vocab_size for step in rounds],
                "removed": [step.removed for step in rounds],
                "log_likelihood": [step.log_likelihood for step in rounds],
                "seconds": [step.seconds for step in rounds],
            },
        }

    @staticmethod
    def from_dict(data: object) -> TrainHistory:
        where = "training history"
        obj = expect_object(data, where)
        columns = expect_object(obj.get("merges", {}), f"{where}: merges")
        merges: list[MergeStep] = []
        if columns:
            m = f"{where}: merges"
            index = get_counts(columns, "index", m)
            left = get_strings(columns, "left", m)
            right = get_strings(columns, "right", m)
            new_token = get_strings(columns, "new_token", m)
            new_id = get_counts(columns, "new_id", m)
            count = get_counts(columns, "count", m)
            vocab_size = get_counts(columns, "vocab_size", m)
            words = get_counts(columns, "words_touched", m)
            score = _optional_floats(columns, "score", m)
            left_count = _optional_counts(columns, "left_count", m)
            right_count = _optional_counts(columns, "right_count", m)
            seconds = get_floats(columns, "seconds", m)
            n = len(index)
            _same_lengths(m, n, [left, right, new_token, new_id, count, vocab_size, words, score, left_count, right_count, seconds])
            for i in range(n):
                merges.append(
                    MergeStep(
                        index[i], left[i], right[i], new_token[i], new_id[i], count[i], vocab_size[i],
                        words[i], score[i], left_count[i], right_count[i], seconds[i],
                    )
                )
        columns = expect_object(obj.get("rounds", {}), f"{where}: rounds")
        rounds: list[RoundStep] = []
        if columns:
            r = f"{where}: rounds"
            index = get_counts(columns, "index", r)
            phase = get_strings(columns, "phase", r)
            vocab_size = get_counts(columns, "vocab_size", r)
            removed = get_counts(columns, "removed", r)
            likelihood = _optional_floats(columns, "log_likelihood", r)
            seconds = get_floats(columns, "seconds", r)
            n = len(index)
            _same_lengths(r, n, [phase, vocab_size, removed, likelihood, seconds])
            for i in range(n):
                rounds.append(RoundStep(index[i], phase[i], vocab_size[i], removed[i], likelihood[i], seconds[i]))
        return TrainHistory(
            get_str(obj, "algorithm", where), get_str(obj, "score_name", where, SCORE_COUNT), merges, rounds
        )

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (TrainHistory, (self.algorithm, self.score_name, self.merges, self.rounds))


@dataclass(frozen=True)
class TrainReport:
    """What a training read and made (HF's `train` returns None; scripts may ignore this):
    how many files, word occurrences and distinct words, the wall time, and the run's history;
    with sampling (`input_sentence_size`), how many lines were sampled of how many read (0: all
    lines were used)."""

    files: int
    total_words: int
    unique_words: int
    seconds: float
    history: TrainHistory
    sampled_lines: int = 0
    read_lines: int = 0
    # Where known (the window's trainings): the training process's peak memory, and what was
    # estimated before it started (`engine.analysis.estimate`); None otherwise and in older projects.
    peak_bytes: int | None = None
    estimated_seconds: float | None = None
    estimated_peak_bytes: int | None = None

    @staticmethod
    def of(
        word_counts: dict[str, int],
        files: int,
        seconds: float,
        history: TrainHistory,
        sampled_lines: int = 0,
        read_lines: int = 0,
    ) -> TrainReport:
        """The report of a training on `word_counts` (read from `files` files) that took `seconds`."""
        total = 0
        for count in word_counts.values():
            total += count
        return TrainReport(files, total, len(word_counts), seconds, history, sampled_lines, read_lines)

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "files": self.files,
            "total_words": self.total_words,
            "unique_words": self.unique_words,
            "seconds": self.seconds,
            "history": self.history.to_dict(),
            "sampled_lines": self.sampled_lines,
            "read_lines": self.read_lines,
            "peak_bytes": self.peak_bytes,
            "estimated_seconds": self.estimated_seconds,
            "estimated_peak_bytes": self.estimated_peak_bytes,
        }

    @staticmethod
    def from_dict(data: object) -> TrainReport:
        where = "training report"
        obj = expect_object(data, where)
        return TrainReport(
            get_count(obj, "files", where),
            get_count(obj, "total_words", where),
            get_count(obj, "unique_words", where),
            get_float(obj, "seconds", where),
            TrainHistory.from_dict(obj.get("history")),
            get_count(obj, "sampled_lines", where, 0),
            get_count(obj, "read_lines", where, 0),
            get_opt_count(obj, "peak_bytes", where),
            get_opt_float(obj, "estimated_seconds", where),
            get_opt_count(obj, "estimated_peak_bytes", where),
        )

    def with_costs(
        self, peak_bytes: int | None, estimated_seconds: float | None, estimated_peak_bytes: int | None
    ) -> TrainReport:
        """This report with the measured peak memory and what was estimated before."""
        return replace(
            self, peak_bytes=peak_bytes, estimated_seconds=estimated_seconds, estimated_peak_bytes=estimated_peak_bytes
        )

    def with_seconds(self, seconds: float) -> TrainReport:
        """This report with another wall time (a paused training's, the pauses left out)."""
        return replace(self, seconds=seconds)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (
            TrainReport,
            (
                self.files, self.total_words, self.unique_words, self.seconds, self.history, self.sampled_lines,
                self.read_lines, self.peak_bytes, self.estimated_seconds, self.estimated_peak_bytes,
            ),
        )


def _step_order(item: tuple[int, int, MergeStep | RoundStep]) -> tuple[int, int]:
    return (item[0], item[1])


def _same_lengths(where: str, n: int, columns: list[object]) -> None:
    for column in columns:
        if not isinstance(column, list) or len(column) != n:
            raise SchemaError(f"{where}: columns of different lengths")


def _optional_counts(columns: dict[str, object], key: str, where: str) -> list[int | None]:
    result: list[int | None] = []
    for item in get_list(columns, key, where):
        result.append(None if item is None else as_count(item, f"{where}: an item of '{key}'"))
    return result


def _optional_floats(columns: dict[str, object], key: str, where: str) -> list[float | None]:
    result: list[float | None] = []
    for item in get_list(columns, key, where):
        if item is None:
            result.append(None)
        elif isinstance(item, bool) or not isinstance(item, (int, float)):
            raise SchemaError(f"{where}: an item of '{key}' must be a number or null")
        else:
            result.append(float(item))
    return result
