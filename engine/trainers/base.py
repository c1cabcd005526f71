"""The trainer stage's contract: a `Trainer` starts a `TrainingRun` over word counts; the run is
stepped (one merge or one round at a time) or run to the end, then applied to a `Model`.

One contract for every algorithm, so batch training, live progress, cancel and the window's step
mode are the same code. Counting words is `engine.corpus.counting`'s job; the algorithms live in their
packages (`engine.models.bpe.trainer`, `engine.models.wordlevel.trainer`). Nothing here touches files.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from engine.added_vocabulary import AddedToken, as_added_tokens
from engine.collector import PausedCollector
from engine.errors import TrainerMismatchError, VocabularyTooSmallError
from engine.models.base import Model
from engine.pre_tokenizers import PreTokenizer
from engine.progress import ProgressSink
from engine.schema import JsonValue
from engine.trainers.records import MergeStep, PairCandidate, RoundStep, TrainHistory

# HF's default `vocab_size` for every trainer.
DEFAULT_VOCAB_SIZE: Final = 30000


@dataclass(frozen=True)
class AlphabetNeed:
    """The tokens a run's vocabulary holds before it learns anything, as its trainer counts them
    once it has read the words: `characters` (the alphabet it keeps: the words' characters and
    the initial alphabet, limit_alphabet applied), `forms` of them with the continuing prefix or
    end-of-word suffix the words need (`forms_name` says which: "continuing forms (##x)"), and
    `special` tokens (the unk token among them). A smaller vocab_size gets a larger vocabulary
    from HF's BPE and WordPiece trainers, and an error from the Unigram trainer when it is
    smaller than `characters`; `hint` is another way out than a larger vocab_size ("" when none).

    AlphabetNeed(13, 1).required -> 14; .detail() -> "13 characters + 1 special token".
    """

    characters: int
    special: int
    forms: int = 0
    forms_name: str = ""
    hint: str = ""

    @property
    def required(self) -> int:
        """The smallest vocab_size that holds them all."""
        return self.characters + self.forms + self.special

    def detail(self) -> str:
        """What the tokens are: "3,086 characters + 1,200 continuing forms (##x) + 5 special tokens"."""
        parts = [_counted(self.characters, "character", "characters")]
        if self.forms > 0:
            parts.append(f"{self.forms:,} {self.forms_name}")
        if self.special > 0:
            parts.append(_counted(self.special, "special token", "special tokens"))
        return " + ".join(parts)

    def error(self, requested: int) -> VocabularyTooSmallError:
        """The error for a vocab_size of `requested` (smaller than `required`)."""
        return VocabularyTooSmallError(requested, self.required, self.detail(), self.hint)


def _counted(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


class TrainingRun(ABC):
    """One training over word counts, advanced one step at a time or to the end.

    A step is one merge (BPE) or one round that reshapes the whole vocabulary (WordLevel's
    selection; Unigram's EM and pruning rounds). Nothing is computed until the run is stepped,
    run, or asked for candidates. A run that stops early (cancel, or stepping by hand) still
    holds a valid vocabulary: `Trainer.apply` fills a model with what it has made so far.
    """

    @abstractmethod
    def step(self) -> MergeStep | RoundStep | None:
        """Make the next step and describe it, or return None when training is over."""

    @abstractmethod
    def run_to_end(self, sink: ProgressSink | None = None) -> None:
        """Step until done, reporting to `sink` about every 1% of the work; raises
        TrainingCancelled when the sink asks to stop (the run keeps what it made)."""

    @abstractmethod
    def top_candidates(self, k: int) -> list[PairCandidate]:
        """The `k` pairs competing for the next step, best first (empty when no pairs compete)."""

    @abstractmethod
    def segmentations(self, k: int) -> list[tuple[list[str], int]]:
        """The `k` most frequent words as the pieces they are made of now, with their counts:
        the view every tokenizer tutorial draws by hand."""

    @abstractmethod
    def steps_since(self, start: int) -> list[MergeStep | RoundStep]:
        """The steps made after the first `start` ones, in order (`history` has them all):
        what a live view asks for between two progress reports."""

    @property
    @abstractmethod
    def done(self) -> bool:
        """True when `step()` would make nothing more."""

    @property
    @abstractmethod
    def history(self) -> TrainHistory:
        """Every step made so far."""

    @property
    @abstractmethod
    def vocab(self) -> dict[str, int]:
        """The vocabulary made so far: token -> id."""

    def alphabet_need(self, sink: ProgressSink | None = None) -> AlphabetNeed | None:
        """What the vocabulary must hold whatever it learns (its alphabet and special tokens),
        worked out from the words as the run's first step would (and kept for it, so nothing
        is done twice; `sink` hears that stage's progress); None for a run without an alphabet
        (WordLevel's). What to do with a vocab_size below it is the caller's choice: HF's BPE
        and WordPiece trainers go on and return a larger vocabulary."""
        return None

    def release(self) -> None:
        """Drop the working data (the run is over); the vocabulary and history stay."""

    def consume_counts(self) -> None:
        """Let the run empty its word counts dict once it has read them: the caller made the
        dict for this run alone. (BPE and WordPiece then merge without the words' strings in
        memory; the others keep the dict as it is.)"""


class Trainer(ABC):
    """Options for one training algorithm, and the runs that apply them.

    `start(word_counts)` gives a run; `apply(run, model)` fills `model` with what the run made
    (its vocabulary and merges), keeping the model's own options such as `unk_token` or
    `dropout`, like HF's `Trainer::train(&mut model)`, and returns the special tokens the
    tokenizer must add. `TrainerMismatchError` for a model or run of another kind.
    """

    vocab_size: int
    special_tokens: list[AddedToken]
    show_progress: bool

    @abstractmethod
    def start(self, word_counts: dict[str, int]) -> TrainingRun:
        """A run over these word counts; nothing is computed until it is stepped or run."""

    @abstractmethod
    def apply(self, run: TrainingRun, model: Model) -> list[AddedToken]:
        """Fill `model` with what `run` has made so far; return the special tokens to add."""

    @abstractmethod
    def check_model(self, model: Model) -> None:
        """Raise TrainerMismatchError unless this trainer can train `model`."""

    @abstractmethod
    def to_dict(self) -> dict[str, JsonValue]:
        """The trainer's settings, as a project file keeps them (tokenizer.json does not)."""

    def check_pipeline(self, pre_tokenizer: PreTokenizer | None) -> None:
        """Raise TrainerMismatchError when this trainer cannot train under `pre_tokenizer`
        (HF's trainers train under any)."""

    def counts_sentences(self) -> bool:
        """Whether this trainer reads whole lines (`Tokenizer.count_words(..., sentences=True)`)
        rather than words: sentencepiece's does; HF's trainers read words."""
        return False

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickling and deep copies go through `to_dict`, as HF's trainers go through serde
        (a compiled native class has no default way to rebuild itself)."""
        return (_trainer_from_dict, (type(self), self.to_dict()))

    def train(self, word_counts: dict[str, int], model: Model, sink: ProgressSink) -> list[AddedToken]:
        """Run to the end and fill `model` (HF's `Trainer::train`); returns the special tokens.

        Raises TrainingCancelled when the sink asks to stop; then `model` is untouched.
        """
        special, _ = self.train_and_record(word_counts, model, sink)
        return special

    def train_and_record(
        self, word_counts: dict[str, int], model: Model, sink: ProgressSink, consume: bool = False
    ) -> tuple[list[AddedToken], TrainHistory]:
        """`train`, also returning the run's history; `consume`: see `TrainingRun.consume_counts`."""
        self.check_model(model)
        # subtle: the cyclic GC stays off until the run's millions of objects are released:
        # turned on earlier, its first pass would walk all of them for nothing.
        with PausedCollector():
            run = self.start(word_counts)
            if consume:
                run.consume_counts()
            run.run_to_end(sink)
            special = self.apply(run, model)
            history = run.history
            run.release()
        return special, history


# -- argument and settings checks shared by the trainers ----------------------------------------


def model_mismatch(trainer: str, model_kind: str, model: Model) -> TrainerMismatchError:
    """The error for a trainer given a model of another kind."""
    return TrainerMismatchError(f"{trainer} can only train a {model_kind} model, not {type(model).__name__}")


def run_mismatch(trainer: str, run: TrainingRun) -> TrainerMismatchError:
    """The error for a trainer asked to apply another trainer's run."""
    return TrainerMismatchError(f"{trainer} cannot apply a {type(run).__name__}")


def non_negative(name: str, value: object) -> int:
    """An integer option that must be >= 0, or a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, not {value!r}")
    return value


def optional_non_negative(name: str, value: object) -> int | None:
    return None if value is None else non_negative(name, value)


def share_argument(name: str, value: object, above_zero: bool) -> float:
    """A number in (0, 1] (`above_zero`) or [0, 1], or a ValueError naming the option (a NaN is
    out of range)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, not {value!r}")
    low_ok = value > 0.0 if above_zero else value >= 0.0
    if not low_ok or not value <= 1.0:
        raise ValueError(f"{name} must be in {'(0' if above_zero else '[0'}, 1], not {value!r}")
    return float(value)


def special_tokens_argument(tokens: Sequence[str | AddedToken] | None) -> list[AddedToken]:
    """HF: a str becomes a special AddedToken; a given AddedToken is marked special."""
    return as_added_tokens(tokens if tokens is not None else [], True)


def initial_alphabet_argument(alphabet: Sequence[str] | None) -> list[str]:
    """HF keeps the first char of each string (skipping empty ones) as a set; sorted here.

    `["ab", "c", ""]` -> `["a", "c"]`.
    """
    chars: set[str] = set()
    for item in alphabet if alphabet is not None else []:
        if not isinstance(item, str):
            raise TypeError("initial_alphabet must be a List[str]")
        if item:
            chars.add(item[0])
    return sorted(chars)


def _trainer_from_dict(kind: type[Trainer], data: dict[str, JsonValue]) -> Trainer:
    """A trainer of class `kind` from its `to_dict()` object: how a pickled trainer comes back
    (each trainer class reads its own settings; this module does not know the four of them)."""
    made: Trainer = getattr(kind, "from_dict")(data)
    return made
