"""How long a training will take and how much memory it will need, measured before it starts.

`estimate_training` counts the words of a small sample (slices spread over the inputs, split
by the tokenizer's real word splitter), fits the growth of distinct words with input size
(Heaps' law, V = K * n^beta) to extrapolate the distinct words of the whole input, and turns
that into seconds and peak bytes with constants measured on this machine (below). It does not
train, and it is an estimate: within about a factor of 2 on ordinary text.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from typing import Final

from engine import COMPILED
from engine.bpe.trainer import BpeTrainer
from engine.corpus import FileSlice, as_slices, line_start_after
from engine.errors import CorpusError
from engine.tokenizer import Tokenizer
from engine.trainers.base import Trainer
from engine.unigram.trainer import UnigramTrainer
from engine.wordlevel.trainer import WordLevelTrainer
from engine.wordpiece.trainer import WordPieceTrainer

# The sample is about this many bytes, in SAMPLE_PIECES slices spread evenly over the inputs.
SAMPLE_BYTES: Final = 4 << 20
SAMPLE_PIECES: Final = 8

# Calibration (compiled engine, 2-core machine, one counting process, the "bpe" and "gpt2"
# presets at vocab_size 30,000 unless said; C = characters of all distinct words together,
# M = merges made; merge s = the training run after counting; RSS = peak resident set):
#   corpus          preset  D (distinct) C          M       count s  merge s  peak RSS
#   gcide 40 MB     bpe     284,747      2,302,274  29,905  1.18     1.67     260 MB
#   gcide 40 MB     bpe 5k  284,747      2,302,274   4,905  1.10     1.09     198 MB
#   gcide 40 MB     gpt2    331,270      2,820,578  29,743  2.05     1.95     291 MB
#   stdlib .py 31MB bpe     131,564      1,544,870  29,557  0.74     1.13     180 MB
#   stdlib .py 31MB gpt2     95,196        796,887  29,743  1.51     0.54     149 MB
#   shakespeare 1MB bpe      13,355         88,684  18,083  0.03     0.07      53 MB
#   shakespeare 1MB bpe 8k   13,355         88,684   7,936  0.03     0.05      51 MB
#   shakespeare 1MB gpt2     15,057        109,449  21,271  0.06     0.09      57 MB
#   wagahaiwa 1MB   bpe      29,558        305,150  26,899  0.12     0.46     123 MB
#   gcide 40 MB     bert     219,216      1,789,373 29,891  1.72     5.15     171 MB
#   shakespeare     unigram  30,411        252,314      -   0.06     0.68     135 MB
# A process that imported the engine has a peak RSS of 46 MB. A BPE run's time grows with C
# and, per character, with the log of the merges: 0.47 us/char at 5k merges, 0.72 at 30k
# (MERGE_BASE_US + MERGE_LOG_US * ln M); its memory is about 56 bytes per character plus
# 1.1 more per thousand merges (the pair index and the history). A run cannot make many
# more merges than there are distinct words (1.35-1.41 * D when it runs out).
BASE_BYTES: Final = 48 << 20
MERGE_BASE_US: Final = -0.72
MERGE_LOG_US: Final = 0.14
MERGE_MIN_US: Final = 0.2
BYTES_PER_CHAR: Final = 56.0
BYTES_PER_CHAR_PER_KMERGE: Final = 1.1
MERGES_PER_WORD: Final = 1.4
# WordPiece's likelihood scoring costs about 3x BPE's per merge; Unigram's EM about 2.7 us per
# character; WordLevel only sorts.
WORDPIECE_FACTOR: Final = 3.0
UNIGRAM_US_PER_CHAR: Final = 2.7
UNIGRAM_BYTES_PER_CHAR: Final = 350.0
WORDLEVEL_US_PER_WORD: Final = 1.0
# The pure-Python engine's run is this much slower than the compiled one's (shakespeare, bpe
# 30k: 0.19 s vs 0.07 s; the counting speed is measured on the sample either way).
PURE_FACTOR: Final = 3.0
# Heaps' exponent is kept in this range (natural text: 0.4-0.8).
BETA_MIN: Final = 0.3
BETA_MAX: Final = 1.0


class TrainingEstimate:
    """What `estimate_training` found: the input's size, the distinct words expected, the peak
    memory and the seconds expected, and how it was made (`method`, `sample_bytes`).

    `count_seconds` + `train_seconds` = `seconds`.
    """

    input_bytes: int
    sample_bytes: int
    sample_distinct: int
    distinct_words: int
    beta: float
    peak_bytes: int
    count_seconds: float
    train_seconds: float
    method: str

    def __init__(
        self,
        input_bytes: int,
        sample_bytes: int,
        sample_distinct: int,
        distinct_words: int,
        beta: float,
        peak_bytes: int,
        count_seconds: float,
        train_seconds: float,
        method: str,
    ) -> None:
        self.input_bytes = input_bytes
        self.sample_bytes = sample_bytes
        self.sample_distinct = sample_distinct
        self.distinct_words = distinct_words
        self.beta = beta
        self.peak_bytes = peak_bytes
        self.count_seconds = count_seconds
        self.train_seconds = train_seconds
        self.method = method

    @property
    def seconds(self) -> float:
        return self.count_seconds + self.train_seconds

    @property
    def exact_words(self) -> bool:
        """True when the sample was the whole input (the distinct words were counted, not fitted)."""
        return self.sample_bytes >= self.input_bytes

    def describe(self) -> str:
        """e.g. "about 12 s, peak memory about 300 MB (from a 4 MB sample; 1.2M distinct words expected)"."""
        source = "counted the whole input" if self.exact_words else f"from a {_size(self.sample_bytes)} sample"
        return (
            f"{_roughly(self.seconds, 'about ')}, peak memory about {_size(self.peak_bytes)} "
            f"({source}; {_number(self.distinct_words)} distinct words expected)"
        )

    def short(self) -> str:
        """e.g. "~12 s, ~300 MB"; "under 1 s, ~50 MB"."""
        return f"{_roughly(self.seconds, '~')}, ~{_size(self.peak_bytes)}"

    def __repr__(self) -> str:
        return f"TrainingEstimate({self.describe()})"


def estimate_training(
    tokenizer: Tokenizer,
    inputs: Sequence[str | FileSlice],
    trainer: Trainer,
    processes: int = 1,
    sample_bytes: int = SAMPLE_BYTES,
    compiled: bool | None = None,
) -> TrainingEstimate:
    """Estimate `tokenizer.train(inputs, trainer, processes=processes)`: time and peak memory.

    Reads about `sample_bytes` (all of a smaller input). Raises CorpusError for an input that
    training would reject (missing, a directory, bad UTF-8 inside the sample, no words at all
    in an input read whole). `compiled`: whether the engine that trains is the compiled one
    (None: this one's `engine.COMPILED`).
    """
    if not inputs:
        raise CorpusError("<no files>", "no training files given")
    slices = as_slices(inputs)
    total = 0
    for piece in slices:
        total += piece.size
    whole = total <= sample_bytes
    pieces = slices if whole else _spread(slices, total, sample_bytes, SAMPLE_PIECES)
    sizes: list[int] = []
    distinct: list[int] = []
    counts: dict[str, int] = {}
    read = 0
    began = time.perf_counter()
    for piece in pieces:
        for word, count in _count_piece(tokenizer, piece).items():
            counts[word] = counts.get(word, 0) + count
        read += piece.size
        sizes.append(read)
        distinct.append(len(counts))
    counting = time.perf_counter() - began
    if whole and not counts:
        # training would refuse these inputs: say why, as it would
        tokenizer.count_words(slices, None, 1)
    chars = 0
    for word in counts:
        chars += len(word)
    beta = 1.0 if whole else _heaps_beta(sizes, distinct)
    words = len(counts)
    if not whole and read > 0 and words > 0:
        words = int(words * (total / read) ** beta)
    mean_length = chars / len(counts) if counts else 0.0
    characters = words * mean_length
    rate = read / counting if counting > 0 else 0.0
    count_seconds = 0.0 if whole else (total / rate if rate > 0 else 0.0)
    if whole:
        count_seconds = counting
    count_seconds /= max(1, processes)
    train_seconds, peak = _training_cost(trainer, words, characters)
    if not (COMPILED if compiled is None else compiled):
        train_seconds *= PURE_FACTOR
    method = (
        "counted the whole input"
        if whole
        else f"Heaps' law (beta {beta:.2f}) fitted on {len(pieces)} slices, {_size(read)} in all"
    )
    return TrainingEstimate(
        total, read, len(counts), words, beta, BASE_BYTES + int(peak), count_seconds, train_seconds, method
    )


def _count_piece(tokenizer: Tokenizer, piece: FileSlice) -> dict[str, int]:
    """The words of one slice; an empty (or wordless) slice has none instead of an error."""
    if piece.size == 0:
        return {}
    try:
        return tokenizer.count_words([piece], None, 1)
    except CorpusError as error:
        if error.reason.startswith("no words to train on"):
            return {}
        raise


def _spread(slices: list[FileSlice], total: int, sample_bytes: int, parts: int) -> list[FileSlice]:
    """`parts` slices of about sample_bytes / parts each, centred at evenly spaced places of the
    inputs read one after another; both ends cut at line starts."""
    each = max(1, sample_bytes // parts)
    found: list[FileSlice] = []
    for i in range(parts):
        centre = (2 * i + 1) * total // (2 * parts)
        offset = 0
        for piece in slices:
            if centre < offset + piece.size or piece is slices[-1]:
                inside = min(max(centre - offset, 0), piece.size)
                start_at = piece.start + max(0, inside - each // 2)
                end_at = min(piece.end, start_at + each)
                start = line_start_after(piece.path, start_at, piece.end) if start_at > piece.start else piece.start
                end = line_start_after(piece.path, end_at, piece.end) if end_at < piece.end else piece.end
                if end > start:
                    found.append(FileSlice(piece.path, start, end))
                break
            offset += piece.size
    return found


def _heaps_beta(sizes: list[int], distinct: list[int]) -> float:
    """The least-squares slope of log(distinct) over log(bytes read): Heaps' exponent."""
    xs: list[float] = []
    ys: list[float] = []
    for i in range(len(sizes)):
        if sizes[i] > 0 and distinct[i] > 0:
            xs.append(math.log(sizes[i]))
            ys.append(math.log(distinct[i]))
    n = len(xs)
    if n < 2:
        return BETA_MAX
    mean_x = sum(xs) / n
    mean_y = sum(ys) / n
    spread = 0.0
    joint = 0.0
    for i in range(n):
        spread += (xs[i] - mean_x) * (xs[i] - mean_x)
        joint += (xs[i] - mean_x) * (ys[i] - mean_y)
    if spread <= 0.0:
        return BETA_MAX
    return min(BETA_MAX, max(BETA_MIN, joint / spread))


def _training_cost(trainer: Trainer, words: int, characters: float) -> tuple[float, float]:
    """(seconds, bytes above the base) of the run on `words` distinct words of `characters`."""
    if isinstance(trainer, UnigramTrainer):
        return characters * UNIGRAM_US_PER_CHAR * 1e-6, characters * UNIGRAM_BYTES_PER_CHAR
    if isinstance(trainer, WordLevelTrainer):
        return words * WORDLEVEL_US_PER_WORD * 1e-6, characters * BYTES_PER_CHAR * 0.5
    merges = float(max(1, min(trainer.vocab_size, int(MERGES_PER_WORD * words))))
    per_char = max(MERGE_MIN_US, MERGE_BASE_US + MERGE_LOG_US * math.log(merges))
    seconds = characters * per_char * 1e-6
    if isinstance(trainer, WordPieceTrainer):
        seconds *= WORDPIECE_FACTOR
    elif not isinstance(trainer, BpeTrainer):
        seconds *= WORDPIECE_FACTOR  # an unknown trainer: assume the slower kind
    memory = characters * (BYTES_PER_CHAR + BYTES_PER_CHAR_PER_KMERGE * merges / 1000.0)
    return seconds, memory


def _size(count: int) -> str:
    """4194304 -> "4 MB"; 310000000 -> "296 MB"; 2.5 GB -> "2.5 GB"."""
    if count >= 10 << 30:
        return f"{count / (1 << 30):.0f} GB"
    if count >= 1 << 30:
        return f"{count / (1 << 30):.1f} GB"
    if count >= 1 << 20:
        return f"{count / (1 << 20):.0f} MB"
    return f"{max(1, count // 1024)} KB"


def _roughly(value: float, about: str) -> str:
    """A time estimate in words: under a second it is not worth a number ("under 1 s")."""
    return "under 1 s" if value < 1.0 else about + _seconds(value)


def _seconds(value: float) -> str:
    """0.4 -> "0.4 s"; 12.3 -> "12 s"; 125 -> "2 min"; 7300 -> "2.0 h"."""
    if value < 10:
        return f"{value:.1f} s"
    if value < 120:
        return f"{value:.0f} s"
    if value < 7200:
        return f"{value / 60:.0f} min"
    return f"{value / 3600:.1f} h"


def _number(value: int) -> str:
    """950 -> "950"; 13355 -> "13k"; 1234567 -> "1.2M"."""
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    return f"{value:,}"


def peak_rss_bytes() -> int:
    """This process's peak resident set size so far, in bytes (0 where it cannot be known)."""
    if sys.platform == "win32":
        return 0
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # subtle: Linux reports kilobytes, macOS bytes.
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024
