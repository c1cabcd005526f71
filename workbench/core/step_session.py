"""`StepSession`: a training made one step at a time, for the Step by Step panel to draw (Qt-free:
the session lives in the Step by Step process, `workbench.jobs.children.stepping`; the panel
holds the buttons and draws what the process sends).

A session starts from the words counted with the form's pipeline: the trainer's run is made, and
nothing is merged yet. `step(n)` and `step_for(seconds)` make merges (or Unigram rounds);
`candidates()` and `words()` say where the run stands; `characters_per_token()` measures the
training text under the vocabulary made so far; `keep()` turns the run, where it stands, into a
tokenizer result and the settings that make it. `start_record()` and `view()` are what the
window is sent: `StepStart` once, a `StepView` after each request.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass
from typing import Final

from engine import Tokenizer, trainers
from engine.progress import SilentProgress
from engine.schema import JsonValue
from engine.analysis.token_counts import token_statistics
from engine.trainers.base import Trainer, TrainingRun
from engine.trainers.records import SCORE_COUNT, SCORE_LIKELIHOOD, SCORE_LIKELIHOOD_GAIN, MergeStep, PairCandidate, RoundStep, TrainReport
from engine.analysis.vocabulary import TokenStyle
from workbench.core.components import trainer_algorithm
from workbench.core.held_out import characters_per_token
from workbench.core.presets import Configuration
from workbench.core.trainer_counting import counts_sentences
from workbench.core.vocab_size_check import start_checked

# How many competing pairs (or pieces) and how many words a session shows.
CANDIDATES: Final = 12
WORDS: Final = 40
# The compression plot measures the training text at most this often (s).
EVALUATION_INTERVAL: Final = 0.25


def count_typed(pipeline: dict[str, JsonValue], text: str, sentences: bool = False) -> dict[str, int]:
    """The words of a few typed sentences, counted with `pipeline` (EngineError if it cannot);
    their whole lines when `sentences` (a trainer that reads them: `trainer_counting.counts_sentences`).

    A typed `word<TAB>count` table, as textbooks give their corpora ("hug\t10" on each line),
    counts each line's text that many times: "low\t5\nlowest\t2" -> {"low": 5, "lowest": 2}
    under a Whitespace pipeline."""
    tokenizer = Tokenizer.from_str(json.dumps(pipeline))
    table = typed_table(text)
    if table is None:
        return tokenizer.count_words_from_iterator(text.split("\n"), sentences=sentences)
    counts: dict[str, int] = {}
    for line, times in table:
        for word, seen in tokenizer.count_words_from_iterator([line], sentences=sentences).items():
            counts[word] = counts.get(word, 0) + seen * times
    return counts


def typed_table(text: str) -> list[tuple[str, int]] | None:
    """`text` read as a `word<TAB>count` table (every non-blank line a text, a tab and a count
    of 1 or more), or None when it is not one: "hug\t10\npug\t5\n" -> [("hug", 10), ("pug", 5)]."""
    rows: list[tuple[str, int]] = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        word, tab, count = line.rpartition("\t")
        if not tab or not word or not count.strip().isdigit() or int(count) < 1:
            return None
        rows.append((word, int(count)))
    return rows or None


# The rule that orders pairs tied with the next merge, by what ranks them (a run's score_name).
TIE_RULES: Final = {
    SCORE_COUNT: "HF's queue takes the pair whose left token has the smaller id (the one made earlier), "
    "then the smaller right id",
    SCORE_LIKELIHOOD: "the more frequent pair goes first, then the pair of smaller ids (left, then right)",
    SCORE_LIKELIHOOD_GAIN: "the more frequent pair goes first, then the pair of smaller ids (left, then right)",
}


def tied_with_first(candidates: list[PairCandidate], algorithm: str, score_name: str) -> list[int]:
    """The rows of `candidates` after the first that tie with it on what ranks the merge (its
    count, or its score), so that only the tie rule (`TIE_RULES`) put the first one first; none
    for Unigram, whose prune removes many pieces at once.

    Counts [5, 5, 3] -> [1]; scores [0.5, 0.5, 0.4] -> [1]."""
    if algorithm == "Unigram" or len(candidates) < 2 or score_name not in TIE_RULES:
        return []
    first = candidates[0].rank_value
    return [row for row in range(1, len(candidates)) if candidates[row].rank_value == first]


def tie_text(candidates: list[PairCandidate], algorithm: str, score_name: str) -> str:
    """What the step view says of a tie for the next merge ("" when there is none): "tied with
    1 other pair at 5: HF's queue takes the pair whose left token has the smaller id...".
    """
    tied = tied_with_first(candidates, algorithm, score_name)
    if not tied:
        return ""
    first = candidates[0]
    value = f"{first.count:,}" if score_name == SCORE_COUNT else f"{first.rank_value:.6g}"
    others = f"{len(tied)} other pair{'s' if len(tied) != 1 else ''}"
    if len(tied) == len(candidates) - 1 and len(candidates) >= CANDIDATES:
        others = f"at least {others}"  # (every pair shown ties: more may, past the list)
    return f"tied with {others} at {value}: {TIE_RULES[score_name]}"


@dataclass
class KeptRun:
    """A session's run where it stands, made into a tokenizer (`StepSession.keep`): its report
    and token counts, and the settings that make it."""

    tokenizer: Tokenizer
    report: TrainReport
    frequencies: list[int]
    examples: dict[int, list[tuple[str, int]]]
    pipeline: dict[str, JsonValue]
    trainer_settings: dict[str, JsonValue]


@dataclass
class StepStart:
    """What the window learns once, when a session starts: what a step is (`algorithm`,
    `score_name`, `rounds`), how tokens are written (`style`), and what was counted: `distinct`
    words (or whole lines: `units`), `total` occurrences, from a file or not, and how many lines
    of text the compression is measured on."""

    algorithm: str
    score_name: str
    rounds: bool
    style: TokenStyle
    units: str
    distinct: int
    total: int
    from_file: bool
    evaluation_lines: int


@dataclass
class StepView:
    """Where a session stands after one request: the `steps` it made, the vocabulary's size,
    whether the run is done, and the compression measured now (None: not measured this time).
    `candidates` and `words` are None when not looked at this time (a slice of "Run to End"
    between two looks): the last ones sent still stand for them."""

    steps: list[MergeStep | RoundStep]
    vocab_size: int
    done: bool
    candidates: list[PairCandidate] | None
    words: list[tuple[list[str], int]] | None
    compression: float | None


class StepSession:
    """One step-by-step run over `counts` (the words of `sample`, or of a file when `from_file`).
    Making one raises EngineError or OSError when the settings cannot train."""

    configuration: Configuration
    tokenizer: Tokenizer
    trainer: Trainer
    run: TrainingRun
    counts: dict[str, int]
    evaluation_lines: list[str]
    style: TokenStyle
    algorithm: str
    score_name: str

    def __init__(self, configuration: Configuration, counts: dict[str, int], sample: str, from_file: bool) -> None:
        pipeline, trainer_settings = configuration
        self.configuration = configuration
        self.tokenizer = Tokenizer.from_str(json.dumps(pipeline))
        self.trainer = trainers.from_dict(trainer_settings)
        # (a vocabulary smaller than its alphabet is refused, as Train refuses it)
        self.run = start_checked(self.trainer, counts, SilentProgress())
        self._candidates: list[PairCandidate] | None = self.run.top_candidates(CANDIDATES)
        self.counts = counts
        self.from_file = from_file
        self.evaluation_lines = [line for line in sample.split("\n") if line.strip()]
        self.style = TokenStyle.of(self.tokenizer)
        self.algorithm = trainer_algorithm(trainer_settings)
        self.score_name = self.run.history.score_name
        self._evaluator = Tokenizer.from_str(json.dumps(pipeline))
        self._evaluated_at = 0.0
        self._started = time.monotonic()

    @property
    def rounds(self) -> bool:
        """Whether the steps are rounds (Unigram, HF's or sentencepiece's) rather than merges."""
        return self.algorithm == "Unigram"

    @property
    def done(self) -> bool:
        return self.run.done

    def step(self, count: int) -> list[MergeStep | RoundStep]:
        """Make up to `count` steps (fewer when the run ends)."""
        return self._steps(count, math.inf)

    def step_for(self, seconds: float) -> list[MergeStep | RoundStep]:
        """Make steps for about `seconds` (a slice of "Run to End" between two redraws)."""
        return self._steps(sys.maxsize, time.monotonic() + seconds)

    def _steps(self, count: int, deadline: float) -> list[MergeStep | RoundStep]:
        """Steps until `count` are made, the clock passes `deadline` or the run ends."""
        made: list[MergeStep | RoundStep] = []
        while len(made) < count and time.monotonic() < deadline:
            step = self.run.step()
            if step is None:
                break
            made.append(step)
        self._candidates = None
        return made

    def candidates(self) -> list[PairCandidate]:
        """The pairs competing for the next merge (Unigram: the pieces the next prune removes first)."""
        if self._candidates is None:
            self._candidates = self.run.top_candidates(CANDIDATES)
        return self._candidates

    def words(self) -> list[tuple[list[str], int]]:
        """The most frequent words as their current tokens, with their counts."""
        return self.run.segmentations(WORDS)

    def characters_per_token(self, force: bool) -> float | None:
        """Characters per token of the training text under the vocabulary made so far; None
        when there is no text to measure, or (unless `force`) it was measured a moment ago."""
        now = time.monotonic()
        if not self.evaluation_lines or (not force and now - self._evaluated_at < EVALUATION_INTERVAL):
            return None
        self._evaluated_at = now
        self._evaluator.apply_training(self.trainer, self.run)
        value = characters_per_token(self._evaluator, self.evaluation_lines)
        return value if value > 0 else None

    def start_record(self) -> StepStart:
        """What the window needs to know of this session once (`StepStart`)."""
        sentences = counts_sentences(self.configuration[1])
        return StepStart(
            self.algorithm,
            self.score_name,
            self.rounds,
            self.style,
            "lines" if sentences else "words",
            len(self.counts),
            sum(self.counts.values()),
            self.from_file,
            len(self.evaluation_lines),
        )

    def view(self, steps: list[MergeStep | RoundStep], look: bool, measure: bool) -> StepView:
        """Where the session stands after making `steps`: with the candidates and words when
        `look` (or the run is done), and the compression when `measure` (else only when it was
        last measured a while ago: `characters_per_token`)."""
        look = look or self.done
        return StepView(
            steps,
            len(self.run.vocab),
            self.done,
            self.candidates() if look else None,
            self.words() if look else None,
            self.characters_per_token(measure or self.done),
        )

    def keep(self) -> KeptRun:
        """The run, where it stands, as a trained tokenizer with its report and token counts,
        and the pipeline and trainer settings that make it (the trainer's vocab_size set to the
        size kept)."""
        pipeline, trainer_settings = self.configuration
        tokenizer = Tokenizer.from_str(json.dumps(pipeline))
        history = tokenizer.apply_training(self.trainer, self.run)
        report = TrainReport.of(self.counts, 1 if self.from_file else 0, time.monotonic() - self._started, history)
        frequencies, examples = token_statistics(tokenizer, self.counts)
        # subtle: the settings say the size of what is kept, which a run to that size makes.
        kept_settings = dict(trainer_settings)
        kept_settings["vocab_size"] = tokenizer.get_vocab_size()
        return KeptRun(tokenizer, report, frequencies, examples, pipeline, kept_settings)
