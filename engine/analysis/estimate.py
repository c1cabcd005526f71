"""How long a training will take and how much memory it will need, measured before it starts.

`estimate_training` counts the words of a small sample (slices spread over the plain text files;
the first part of each compressed, JSON Lines or Parquet/Arrow input the sample reaches; word-count
tables whole), split by the tokenizer's real word splitter (whole lines for a trainer that reads
them, `Trainer.counts_sentences`), fits the growth of distinct words
with the text read (Heaps' law, V = K * n^beta) to extrapolate the distinct words of the whole
input, and turns that into seconds and peak bytes with constants measured on this machine
(below). It does not train, and it is an estimate: within about a factor of 2 on ordinary text.
Where the sample is taken and how its words are counted is `engine.analysis.estimate_sample`.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from typing import Final

from engine import COMPILED
from engine.analysis.estimate_sample import SAMPLE_PIECES, Sample, spread
from engine.models.bpe.trainer import BpeTrainer
from engine.corpus.sources import DEFAULT_FIELD, FORMAT_COUNTS, CorpusSource
from engine.corpus.units import FileSlice, training_inputs
from engine.corpus.word_counts import read_counts
from engine.errors import CorpusError
from engine.tokenizer import Tokenizer
from engine.trainers.base import Trainer
from engine.trainers.sentencepiece import SentencePieceTrainer
from engine.models.unigram.trainer import UnigramTrainer
from engine.models.wordlevel.trainer import WordLevelTrainer
from engine.models.wordpiece.trainer import LIKELIHOOD_GAIN, WordPieceTrainer

# The sample is about this many bytes, in SAMPLE_PIECES slices spread evenly over the inputs.
SAMPLE_BYTES: Final = 4 << 20

# Calibration (`benchmarks/bench_estimate.py` prints these rows: compiled engine, 2-core machine,
# one counting process, vocab_size 30,000 unless said; C = characters of all distinct words
# together, M = merges made; train s = the training run from the counts; RSS = peak resident set):
#   corpus          preset   D (distinct) C          M       count s  train s  peak RSS
#   gcide 40 MB     bpe      284,747      2,302,274  29,905  0.96     0.73     183 MB
#   gcide 40 MB     bpe 5k   284,747      2,302,274   4,905  1.02     0.42     156 MB
#   gcide 40 MB     gpt2     331,270      2,820,578  29,743  1.72     0.84     226 MB
#   gcide 40 MB     bert     219,216      1,789,373  29,891  1.43     1.88     132 MB
#   shakespeare 1MB bpe       13,355         88,684  18,083  0.02     0.08      52 MB
#   shakespeare 1MB bpe 8k    13,355         88,684   7,936  0.03     0.05      44 MB
#   shakespeare 1MB gpt2      15,057        109,449  21,271  0.03     0.10      52 MB
#   wagahaiwa 1MB   bpe       29,558        305,150  26,899  0.03     0.30      96 MB
#   gcide 40 MB     unigram 32k 738,292     8,169,348     -   2.13    24.74   1,488 MB
#   wagahaiwa 1MB   unigram 8k    2,367       378,955     -   0.05     0.89     102 MB
#   shakespeare 1MB unigram 8k   30,411       252,314     -   0.05     0.33      77 MB
# A process that imported the engine has a peak RSS of 46 MB. A BPE run costs about 2.7 us per
# merge (the model and history it makes) plus, per character, a cost growing with the log of
# the merges: 0.18 us/char at 5k merges, 0.28 at 30k (MERGE_BASE_US + MERGE_LOG_US * ln M);
# Japanese text split at whitespace only (long words, big alphabet) costs about twice that.
# Its memory is about 45 bytes per character plus 0.5 more per thousand merges (the pair
# index and the history). A run cannot make many more merges than there are distinct words
# (1.35-1.41 * D when it runs out).
BASE_BYTES: Final = 48 << 20
MERGE_FIXED_US: Final = 2.7
MERGE_BASE_US: Final = -0.32
MERGE_LOG_US: Final = 0.058
MERGE_MIN_US: Final = 0.1
BYTES_PER_CHAR: Final = 45.0
BYTES_PER_CHAR_PER_KMERGE: Final = 0.5
MERGES_PER_WORD: Final = 1.4
# WordPiece's ratio scoring ("likelihood") costs about 3.2x BPE's, its likelihood gain 2.4 times
# the ratio (gcide at 30k, compiled: 13.1 s against 5.4 s from counts; 1.5 times on shakespeare
# at 8k); Unigram's EM about 2.7 us per character
# on a big corpus (3.0 on gcide, 2.3 on wagahaiwa, 1.3 on shakespeare) and about 180 bytes;
# WordLevel only sorts.
WORDPIECE_FACTOR: Final = 3.2
WORDPIECE_GAIN_FACTOR: Final = 7.7
UNIGRAM_US_PER_CHAR: Final = 2.7
UNIGRAM_BYTES_PER_CHAR: Final = 180.0
WORDLEVEL_US_PER_WORD: Final = 1.0
# A SentencePieceTrainer counts whole lines and cuts its words out of them: per character of the
# distinct lines, its Unigram took 0.43-0.51 of the time the Unigram above takes per character
# of distinct words (and about as many bytes: 118-207), its BPE 0.30-0.38 of BPE's time (and
# its bytes); the shipped shakespeare (245,622 characters of lines, 87,659 of words) and
# wagahaiwa samples, 8k vocabularies, against the hf-sentencepiece presets, pure build.
SENTENCE_UNIGRAM_FACTOR: Final = 0.5
SENTENCE_BPE_FACTOR: Final = 0.35
# The pure-Python engine's run is this much slower than the compiled one's (bpe 30k: gcide
# 5.01 s vs 0.72 s, shakespeare 0.59 s vs 0.08 s; the counting speed is measured on the
# sample either way).
PURE_FACTOR: Final = 7.0
# Heaps' exponent is kept in this range (natural text: 0.4-0.8).
BETA_MIN: Final = 0.3
BETA_MAX: Final = 1.0
# --input-sentence-size (`sample_lines`): training offers every line (and record) to a random
# sample and counts only the sample's words. Offering costs about this much per line, compiled
# or pure alike (gcide 16 MB, 506,676 lines, a sample of 1,000 lines: 0.136 s compiled, 0.150 s
# pure; counting every line took 0.68 s and 1.14 s). The sample's lines stay in memory until
# counted: each about its text plus SAMPLE_LINE_BYTES (sys.getsizeof of an ASCII str is 49 + its
# length, plus the list's 8-byte slot).
SAMPLE_OFFER_US_PER_LINE: Final = 0.27
SAMPLE_LINE_BYTES: Final = 57


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
    inputs: Sequence[str | FileSlice | CorpusSource],
    trainer: Trainer,
    processes: int = 1,
    sample_bytes: int = SAMPLE_BYTES,
    compiled: bool | None = None,
    field: str = DEFAULT_FIELD,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    sample_lines: int = 0,
    seed: int = 0,
) -> TrainingEstimate:
    """Estimate `tokenizer.train(inputs, trainer, processes=processes, field=field, include=include,
    exclude=exclude, sample_lines=sample_lines, seed=seed)`: time and peak memory.

    Reads about `sample_bytes` of text: slices spread over the plain text files, and the first
    part of each compressed, JSON Lines or Parquet/Arrow input the slices would fall in (all of
    inputs smaller than `sample_bytes` together, compressed ones included); word-count tables
    are read whole. `sample_lines` > 0: the training counts a random sample of that many lines,
    so the estimate is for the text of that sample. Raises CorpusError for an input that
    training would reject (missing, a folder with no file, bad UTF-8 or a bad record inside
    what is read, no words at all in inputs read whole). `compiled`: whether the engine that
    trains is the compiled one (None: this one's `engine.COMPILED`).
    """
    if not inputs:
        raise CorpusError("<no files>", "no training files given")
    units = training_inputs(inputs, field, include, exclude)
    texts: list[FileSlice | CorpusSource] = []
    tables: list[CorpusSource] = []
    total = 0
    table_bytes = 0
    longest = 0
    for unit in units:
        if isinstance(unit, CorpusSource) and unit.format == FORMAT_COUNTS:
            tables.append(unit)
            table_bytes += unit.size
            continue
        texts.append(unit)
        total += unit.size
        if isinstance(unit, CorpusSource):
            longest = max(longest, unit.size)
    if total <= sample_bytes:
        return _estimate_whole(tokenizer, units, trainer, processes, compiled, sample_lines, seed, total, longest)
    pieces = spread(texts, total, sample_bytes, SAMPLE_PIECES)
    sentences = trainer.counts_sentences()
    sample = Sample(tokenizer._word_splitter(sentences), sample_lines > 0, sentences)
    began = time.perf_counter()
    for piece in pieces:
        if isinstance(piece, FileSlice):
            sample.add_slice(tokenizer, piece)
        else:
            sample.add_prefix(piece)
    counting = time.perf_counter() - began
    words = len(sample.counts)
    # per byte of text: splitting it into words (plain files' reading included), and reading
    # (decompressing, parsing) the inputs that are not plain text
    split_cost = (counting - sample.read_seconds) / sample.text if sample.text > 0 else 0.0
    read_cost = sample.read_seconds / sample.prefix_seen if sample.prefix_seen > 0 else 0.0
    beta = _heaps_beta(sample.sizes, sample.distinct)
    # the text of every input: plain files' bytes, the others' as their first part showed
    whole_text = 0.0
    other_text = 0.0
    longest_text = 0.0
    for index in range(len(texts)):
        unit = texts[index]
        if isinstance(unit, FileSlice):
            whole_text += unit.size
            continue
        text = sample.text_of(index, unit)
        whole_text += text
        other_text += text
        longest_text = max(longest_text, text)
    # sampled lines: training counts the words of that share of the text only
    trained_text = whole_text
    all_lines = 0.0
    if sample_lines > 0 and sample.lines > 0 and sample.text > 0:
        all_lines = sample.lines * whole_text / sample.text
        if sample_lines < all_lines:
            trained_text = whole_text * sample_lines / all_lines
    if sample.text > 0 and words > 0:
        words = int(words * (trained_text / sample.text) ** beta)
    reading = other_text * read_cost
    if sample_lines > 0:
        # one process reads every line, offers it to the sample, then counts the sample's words
        count_seconds = reading + all_lines * SAMPLE_OFFER_US_PER_LINE * 1e-6 + trained_text * split_cost
    else:
        # each input that is not plain text is read whole by one process
        serial = reading + whole_text * split_cost
        count_seconds = max(serial / max(1, processes), longest_text * (read_cost + split_cost))
    # word-count tables: read whole, their words added as they are
    began = time.perf_counter()
    table_words: dict[str, int] = {}
    for table in tables:
        for word, count in read_counts(table.path).items():
            if word not in sample.counts:
                table_words[word] = count
    count_seconds += time.perf_counter() - began
    words += len(table_words)
    chars = 0
    for word in sample.counts:
        chars += len(word)
    for word in table_words:
        chars += len(word)
    known = len(sample.counts) + len(table_words)
    mean_length = chars / known if known else 0.0
    extra = 0.0
    if sample_lines > 0:
        extra = trained_text + SAMPLE_LINE_BYTES * min(float(sample_lines), all_lines)
    train_seconds, peak = _training_cost(trainer, words, words * mean_length)
    if not (COMPILED if compiled is None else compiled):
        train_seconds *= PURE_FACTOR
    method = f"Heaps' law (beta {beta:.2f}) fitted on {_sample_read(sample)}, {_size(sample.raw)} in all"
    if tables:
        method += f"; {len(tables)} word-count table{'s' if len(tables) != 1 else ''} read whole"
    if sample_lines > 0:
        method += f"; training samples {sample_lines:,} of about {_number(int(all_lines))} lines"
    return TrainingEstimate(
        total + table_bytes,
        sample.raw + table_bytes,
        known,
        words,
        beta,
        BASE_BYTES + int(peak + extra),
        count_seconds,
        train_seconds,
        method,
    )


def _estimate_whole(
    tokenizer: Tokenizer,
    units: list[FileSlice | CorpusSource],
    trainer: Trainer,
    processes: int,
    compiled: bool | None,
    sample_lines: int,
    seed: int,
    total: int,
    longest: int,
) -> TrainingEstimate:
    """The estimate of inputs smaller than the sample: their words counted as training counts
    them (the same sample of lines too), its time measured."""
    extra = 0.0
    sentences = trainer.counts_sentences()
    began = time.perf_counter()
    if sample_lines > 0:
        sampled = tokenizer.count_sampled_words(units, sample_lines, None, seed, sentences=sentences)
        counts = sampled.counts
        count_seconds = time.perf_counter() - began
        kept_text = total * sampled.kept / sampled.seen if sampled.seen else 0.0
        extra = kept_text + SAMPLE_LINE_BYTES * sampled.kept
    else:
        counts = tokenizer.count_words(units, None, 1, sentences=sentences)
        count_seconds = time.perf_counter() - began
        if total > 0:
            count_seconds *= max(1.0 / max(1, processes), longest / total)
    input_bytes = 0
    for unit in units:
        input_bytes += unit.size
    chars = 0
    for word in counts:
        chars += len(word)
    train_seconds, peak = _training_cost(trainer, len(counts), float(chars))
    if not (COMPILED if compiled is None else compiled):
        train_seconds *= PURE_FACTOR
    method = "counted the whole input"
    if sample_lines > 0:
        method += f" (the training's sample of {sample_lines:,} lines)"
    return TrainingEstimate(
        input_bytes,
        input_bytes,
        len(counts),
        len(counts),
        1.0,
        BASE_BYTES + int(peak + extra),
        count_seconds,
        train_seconds,
        method,
    )


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
    """(seconds, bytes above the base) of the run on `words` distinct words of `characters`
    (for a SentencePieceTrainer, distinct lines and their characters: what it counts)."""
    if isinstance(trainer, SentencePieceTrainer):
        if trainer.model_type == "unigram":
            seconds = characters * UNIGRAM_US_PER_CHAR * SENTENCE_UNIGRAM_FACTOR * 1e-6
            return seconds, characters * UNIGRAM_BYTES_PER_CHAR
        seconds, memory = _merge_cost(trainer.vocab_size, words, characters)
        return seconds * SENTENCE_BPE_FACTOR, memory
    if isinstance(trainer, UnigramTrainer):
        return characters * UNIGRAM_US_PER_CHAR * 1e-6, characters * UNIGRAM_BYTES_PER_CHAR
    if isinstance(trainer, WordLevelTrainer):
        return words * WORDLEVEL_US_PER_WORD * 1e-6, characters * BYTES_PER_CHAR * 0.5
    seconds, memory = _merge_cost(trainer.vocab_size, words, characters)
    if isinstance(trainer, WordPieceTrainer):
        seconds *= WORDPIECE_GAIN_FACTOR if trainer.scoring == LIKELIHOOD_GAIN else WORDPIECE_FACTOR
    elif not isinstance(trainer, BpeTrainer):
        seconds *= WORDPIECE_FACTOR  # an unknown trainer: assume the slower kind
    return seconds, memory


def _merge_cost(vocab_size: int, words: int, characters: float) -> tuple[float, float]:
    """(seconds, bytes) of a BPE run to `vocab_size` on `words` distinct words of `characters`."""
    merges = float(max(1, min(vocab_size, int(MERGES_PER_WORD * words))))
    per_char = max(MERGE_MIN_US, MERGE_BASE_US + MERGE_LOG_US * math.log(merges))
    seconds = (characters * per_char + merges * MERGE_FIXED_US) * 1e-6
    memory = characters * (BYTES_PER_CHAR + BYTES_PER_CHAR_PER_KMERGE * merges / 1000.0)
    return seconds, memory


def _sample_read(sample: Sample) -> str:
    """What the sample read, for the method: "8 slices and a prefix sample of 2 inputs (1 MB of text from their starts)"."""
    parts: list[str] = []
    if sample.slices:
        parts.append(f"{sample.slices} slice{'s' if sample.slices != 1 else ''}")
    if sample.prefixes:
        whose = "its start" if sample.prefixes == 1 else "their starts"
        parts.append(
            f"a prefix sample of {sample.prefixes} input{'s' if sample.prefixes != 1 else ''} "
            f"({_size(sample.prefix_text)} of text from {whose})"
        )
    return " and ".join(parts) if parts else "nothing"


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
    if sys.platform.startswith("linux"):
        # subtle: not ru_maxrss, which keeps the peak from before exec: a process spawned by the
        # window reported the window's own size (130 MB for a 50 MB training). VmHWM is this
        # program's own.
        try:
            with open("/proc/self/status", "rb") as status:
                for line in status:
                    if line.startswith(b"VmHWM:"):
                        return int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # subtle: Linux reports kilobytes, macOS bytes.
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024
