"""What a tokenizer costs over a set of texts: the Audit's figures, one row per tokenizer and text,
and their summaries over languages.

For each text (a language's declaration, article by article, a code sample, a user's file):
tokens; tokens per word (fertility); characters and UTF-8 bytes per token; the share of words
cut into several tokens; the unknown-token and byte-fallback rates; whether decoding gives the
text back; the premium over English on the same articles (Petrov et al. 2023, "Language Model
Tokenizers Introduce Unfairness Between Languages"); and the Rényi efficiency of the tokens'
distribution (Zouhar et al. 2023, "Tokenization and the Noiseless Channel", alpha 2.5).

Fewer tokens is not by itself a better model: these figures measure cost and coverage, not what
a model learns from the tokens (`COMPRESSION_NOTE`).

A word is a run of letters, marks and digits, or any other non-space character
(`baselines.words`); in scripts written without spaces between words (Han, Japanese, Thai, Lao,
Khmer, Myanmar) each letter counts as a word, so their tokens per word is tokens per character
(`word_unit`). The premium, on the same articles, compares every language fairly.

Nothing here reads files or draws: the texts come from the caller (the shipped declarations are
`workbench.core.parallel_text`'s).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Final

import regex

from engine.analysis import baselines
from engine.analysis.inspection import round_trip, unknown_positions
from engine.collector import PausedCollector
from engine.encoding import Encoding
from engine.models.bpe.model import BPE
from engine.models.unigram.model import Unigram
from engine.schema import JsonValue
from engine.tokenizer import Tokenizer

COMPRESSION_NOTE: Final = (
    "Fewer tokens is not by itself a better model: these figures say what text costs and how "
    "the vocabulary covers it, not how well a model learns from the tokens."
)
# Scripts (ISO 15924) written without spaces between words: a letter counts as a word.
UNSPACED_SCRIPTS: Final = frozenset(("Hani", "Hans", "Hant", "Hira", "Kana", "Jpan", "Thai", "Laoo", "Khmr", "Mymr"))
# The language every premium is relative to (ISO 639-3).
BASELINE_LANGUAGE: Final = "eng"
# Bytes per number of each dtype an embedding may be stored in.
DTYPE_BYTES: Final = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1}
# The vocabulary sizes an embedding's cost is shown for besides a tokenizer's own.
COMMON_SIZES: Final = (8_000, 16_000, 32_000, 50_257, 65_536, 100_277, 128_256, 256_000)
# Zouhar et al. (2023) found alpha = 2.5 to track downstream quality best.
RENYI_ALPHA: Final = 2.5
BYTE_TOKEN_RE: Final = re.compile(r"<0x[0-9A-F]{2}>")
# How long a piece `round_trip_causes` lines up with its decoding, at most.
CAUSE_SAMPLE_CHARACTERS: Final = 300
# How much of a text `dominant_script` looks at.
SCRIPT_SAMPLE_CHARACTERS: Final = 20_000
CSV_COLUMNS: Final = (
    "tokenizer", "text", "language", "iso639_3", "script", "kind", "articles", "tokens", "words", "word_unit",
    "characters", "bytes", "tokens_per_word", "characters_per_token", "bytes_per_token", "split_word_share",
    "unknown_rate", "byte_fallback_rate", "round_trip", "premium_over_english", "renyi_efficiency",
)  # fmt: skip


class AuditText:
    """A text to measure: `articles` maps an article's number to its text (a declaration's
    preamble is 0, its articles 1-30; a file or code sample is one article, 0). `kind`:
    "language", "code" or "file". `iso639_3` names the language ("" for code and files), and
    `script` its ISO 15924 script."""

    name: str
    iso639_3: str
    script: str
    kind: str
    articles: dict[int, str]

    def __init__(self, name: str, iso639_3: str, script: str, kind: str, articles: Mapping[int, str]) -> None:
        self.name = name
        self.iso639_3 = iso639_3
        self.script = script
        self.kind = kind
        self.articles = dict(articles)

    def __repr__(self) -> str:
        return f"AuditText({self.name!r}, {self.iso639_3!r}, {self.script!r}, {self.kind!r}, {len(self.articles)} articles)"


class TextCost:
    """One tokenizer on one text (its articles encoded one by one, without the post-processor's
    special tokens)."""

    tokenizer: str
    text: AuditText
    tokens: int
    characters: int
    bytes: int
    words: int
    split_words: int
    unknown: int
    byte_fallback: int
    round_trip: bool
    # why decoding does not give the text back (`inspection`'s causes), most frequent first
    round_trip_causes: list[str]
    article_tokens: dict[int, int]
    renyi_efficiency: float
    # tokens over English's on the articles both have; None for code, files, or without English
    premium: float | None

    def __init__(self, tokenizer: str, text: AuditText) -> None:
        self.tokenizer = tokenizer
        self.text = text
        self.tokens = 0
        self.characters = 0
        self.bytes = 0
        self.words = 0
        self.split_words = 0
        self.unknown = 0
        self.byte_fallback = 0
        self.round_trip = True
        self.round_trip_causes = []
        self.article_tokens = {}
        self.renyi_efficiency = 0.0
        self.premium = None

    @property
    def word_unit(self) -> str:
        return word_unit(self.text.script)

    @property
    def tokens_per_word(self) -> float:
        return self.tokens / self.words if self.words else 0.0

    @property
    def characters_per_token(self) -> float:
        return self.characters / self.tokens if self.tokens else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def split_word_share(self) -> float:
        return self.split_words / self.words if self.words else 0.0

    @property
    def unknown_rate(self) -> float:
        return self.unknown / self.tokens if self.tokens else 0.0

    @property
    def byte_fallback_rate(self) -> float:
        return self.byte_fallback / self.tokens if self.tokens else 0.0

    def values(self) -> list[str | int | float | None]:
        """The row of `CSV_COLUMNS` as values: numbers as numbers, the round trip as "yes" or
        "no", None for a premium there is none of (what a table sorts by)."""
        text = self.text
        return [
            self.tokenizer, text.name, text.name if text.kind == "language" else "", text.iso639_3, text.script,
            text.kind, len(text.articles), self.tokens, self.words, self.word_unit, self.characters, self.bytes,
            self.tokens_per_word, self.characters_per_token, self.bytes_per_token, self.split_word_share,
            self.unknown_rate, self.byte_fallback_rate, "yes" if self.round_trip else "no", self.premium,
            self.renyi_efficiency,
        ]  # fmt: skip

    def csv_row(self) -> list[str]:
        """The row of `CSV_COLUMNS` as text (figures rounded to 4 decimals; an empty premium where
        there is none)."""
        return [cell_text(value) for value in self.values()]


class Summary:
    """One tokenizer's premiums over the languages that have one: their median, 90th percentile,
    the worst language, and the Gini coefficient of the tokens each language spends on the
    articles it shares with English (0: every language costs the same; towards 1: a few
    languages cost nearly everything)."""

    tokenizer: str
    languages: int
    median: float
    p90: float
    worst: str
    worst_premium: float
    gini: float

    def __init__(self, tokenizer: str, premiums: Sequence[tuple[str, float]]) -> None:
        self.tokenizer = tokenizer
        self.languages = len(premiums)
        values = sorted(value for _, value in premiums)
        self.median = percentile(values, 50.0)
        self.p90 = percentile(values, 90.0)
        self.worst, self.worst_premium = max(premiums, key=lambda item: item[1]) if premiums else ("", 0.0)
        self.gini = gini(values)


class EmbeddingCost:
    """What a vocabulary costs a model: `vocabulary` rows of `hidden` numbers of `dtype`, for the
    input embedding, and as many again for the output projection unless the two are `tied`."""

    vocabulary: int
    hidden: int
    dtype: str
    tied: bool

    def __init__(self, vocabulary: int, hidden: int, dtype: str = "bf16", tied: bool = True) -> None:
        if dtype not in DTYPE_BYTES:
            raise ValueError(f"unknown dtype {dtype!r}: one of {', '.join(DTYPE_BYTES)}")
        if vocabulary < 0 or hidden <= 0:
            raise ValueError(f"a vocabulary of {vocabulary} and a hidden size of {hidden}: both must be positive")
        self.vocabulary = vocabulary
        self.hidden = hidden
        self.dtype = dtype
        self.tied = tied

    @property
    def input_parameters(self) -> int:
        return self.vocabulary * self.hidden

    @property
    def output_parameters(self) -> int:
        """The output projection's own parameters (0 when tied: it is the input embedding)."""
        return 0 if self.tied else self.vocabulary * self.hidden

    @property
    def parameters(self) -> int:
        return self.input_parameters + self.output_parameters

    @property
    def bytes(self) -> int:
        return self.parameters * DTYPE_BYTES[self.dtype]


def word_unit(script: str) -> str:
    """What a "word" is in `script`: "character" where words are not separated by spaces."""
    return "character" if script in UNSPACED_SCRIPTS else "word"


# The scripts `dominant_script` tells apart (ISO 15924 code -> Unicode's script name), the
# unspaced ones first; letters of any other script count as "Zyyy" (undetermined).
SCRIPT_NAMES: Final = (
    ("Hani", "Han"), ("Hira", "Hiragana"), ("Kana", "Katakana"), ("Thai", "Thai"), ("Laoo", "Lao"),
    ("Khmr", "Khmer"), ("Mymr", "Myanmar"), ("Latn", "Latin"), ("Cyrl", "Cyrillic"), ("Grek", "Greek"),
    ("Arab", "Arabic"), ("Hebr", "Hebrew"), ("Deva", "Devanagari"), ("Beng", "Bengali"), ("Taml", "Tamil"),
    ("Ethi", "Ethiopic"), ("Hang", "Hangul"), ("Geor", "Georgian"), ("Armn", "Armenian"),
)  # fmt: skip
SCRIPT_RES: Final = tuple((code, regex.compile(rf"\p{{Script={name}}}")) for code, name in SCRIPT_NAMES)
LETTER_RE: Final = regex.compile(r"\p{L}")


def dominant_script(text: str) -> str:
    """The ISO 15924 code of the script most of `text`'s letters are in ("Jpan" for Japanese:
    Han with kana), "Zyyy" when it has no letters or they are in none of `SCRIPT_NAMES`:
    "Hello, мир!" -> Latn; "吾輩は猫である" -> Jpan; "1 + 2" -> Zyyy."""
    letters = LETTER_RE.findall(text[:SCRIPT_SAMPLE_CHARACTERS])
    if not letters:
        return "Zyyy"
    joined = "".join(letters)
    counts = {code: len(pattern.findall(joined)) for code, pattern in SCRIPT_RES}
    best = max(counts, key=lambda code: counts[code])
    if counts[best] == 0:
        return "Zyyy"
    if best in ("Hani", "Hira", "Kana") and counts["Hira"] + counts["Kana"] > 0:
        return "Jpan"
    return best


def word_spans(text: str, script: str) -> list[tuple[int, int]]:
    """The words of `text` (`baselines.words`), each letter on its own in scripts written
    without spaces: "猫が好き" -> 猫|が|好|き; "I'm" -> I|'|m."""
    spans = baselines.words(text)
    if script not in UNSPACED_SCRIPTS:
        return spans
    letters: list[tuple[int, int]] = []
    for start, end in spans:
        begin = start
        for index in range(start + 1, end):
            # (a combining mark stays with its letter: Thai vowels and tone marks)
            if not _is_mark(text[index]):
                letters.append((begin, index))
                begin = index
        letters.append((begin, end))
    return letters


def _is_mark(character: str) -> bool:
    return unicodedata.category(character).startswith("M")


def byte_fallback_ids(tokenizer: Tokenizer) -> frozenset[int]:
    """The ids of the `<0xNN>` tokens a byte_fallback model spells unknown characters with (none
    for other models: a byte-level pipeline's tokens are its ordinary vocabulary)."""
    model = tokenizer.model
    if not isinstance(model, (BPE, Unigram)) or not model.byte_fallback:
        return frozenset()
    found: list[int] = []
    for token, number in model.get_vocab().items():
        if BYTE_TOKEN_RE.fullmatch(token):
            found.append(number)
    return frozenset(found)


def measure(name: str, tokenizer: Tokenizer, text: AuditText, fallback: frozenset[int] | None = None) -> TextCost:
    """`tokenizer` (called `name` in the results) on every article of `text`: whole (its
    truncation and padding are switched off meanwhile, then put back). `fallback`: its
    `byte_fallback_ids`, when the caller has them (they take a pass over the vocabulary)."""
    if fallback is None:
        fallback = byte_fallback_ids(tokenizer)
    return _measure(name, tokenizer, text, fallback, TextWords(text))


class TextWords:
    """What `measure` counts in a text whatever the tokenizer: its articles in number order,
    their words (`word_spans`), characters and UTF-8 bytes; `audit` finds them once per text
    for all its tokenizers."""

    numbers: list[int]
    bodies: list[str]
    words: list[list[tuple[int, int]]]
    characters: int
    bytes: int

    def __init__(self, text: AuditText) -> None:
        self.numbers = sorted(text.articles)
        self.bodies = []
        self.words = []
        self.characters = 0
        self.bytes = 0
        for number in self.numbers:
            body = text.articles[number]
            self.bodies.append(body)
            self.words.append(word_spans(body, text.script))
            self.characters += len(body)
            self.bytes += len(body.encode("utf-8", "surrogatepass"))


class Tally:
    """How often each token id occurs in one text, in a list by id kept from text to text (the
    ids met are zeroed after `take`): a dict's lookup and store per token took longer."""

    counts: list[int]
    # the ids met, in the order first met (the order `take` gives their counts in)
    met: list[int]

    def __init__(self) -> None:
        self.counts = []
        self.met = []

    def add(self, ids: list[int]) -> None:
        counts = self.counts
        for token_id in ids:
            if token_id >= len(counts):
                counts.extend([0] * (token_id + 1 - len(counts)))
            count = counts[token_id]
            if count == 0:
                self.met.append(token_id)
            counts[token_id] = count + 1

    def take(self) -> list[int]:
        """The counts of the ids met (in the order first met), then all back to zero."""
        counts = self.counts
        out: list[int] = []
        for token_id in self.met:
            out.append(counts[token_id])
            counts[token_id] = 0
        self.met = []
        return out


def _measure(
    name: str, tokenizer: Tokenizer, text: AuditText, fallback: frozenset[int], found: TextWords, tally: Tally | None = None
) -> TextCost:
    cost = TextCost(name, text)
    if tally is None:
        tally = Tally()
    bodies = found.bodies
    with Unbounded(tokenizer):
        encodings = tokenizer.encode_batch(bodies, add_special_tokens=False)
    cost.characters = found.characters
    cost.bytes = found.bytes
    for index in range(len(bodies)):
        body = bodies[index]
        encoding = encodings[index]
        words = found.words[index]
        ids = encoding.ids
        cost.article_tokens[found.numbers[index]] = len(ids)
        cost.tokens += len(ids)
        cost.words += len(words)
        cost.split_words += _split_words_of(words, encoding)
        cost.unknown += len(unknown_positions(tokenizer, encoding, body))
        tally.add(ids)
        if fallback:
            for token_id in ids:
                if token_id in fallback:
                    cost.byte_fallback += 1
        if cost.round_trip and tokenizer.decode(ids, skip_special_tokens=True) != body:
            cost.round_trip = False
            cost.round_trip_causes = round_trip_causes(tokenizer, body)
    cost.renyi_efficiency = renyi_efficiency(tally.take(), tokenizer.get_vocab_size(True))
    return cost


def round_trip_causes(tokenizer: Tokenizer, body: str) -> list[str]:
    """Why `body` does not come back from decoding (`inspection.round_trip`'s causes), found on
    a short piece of it: the first paragraph that does not come back on its own (cut to
    `CAUSE_SAMPLE_CHARACTERS`), else the first two paragraphs together (the line break between
    them is what changed). Lining a whole article up with its decoding (difflib, quadratic
    where they differ throughout, as a lowercased text does) took longer than encoding it."""
    paragraphs = [paragraph for paragraph in body.split("\n") if paragraph.strip()]
    for paragraph in paragraphs:
        piece = _cut(paragraph)
        encoding = tokenizer.encode(piece, add_special_tokens=False)
        if tokenizer.decode(encoding.ids, skip_special_tokens=True) != piece:
            return round_trip(tokenizer, piece, encoding).causes
    piece = _cut("\n".join(paragraphs[:2])) if len(paragraphs) > 1 else _cut(body)
    return round_trip(tokenizer, piece, tokenizer.encode(piece, add_special_tokens=False)).causes


def _cut(text: str) -> str:
    """`text`, or its start to the last space before `CAUSE_SAMPLE_CHARACTERS`."""
    if len(text) <= CAUSE_SAMPLE_CHARACTERS:
        return text
    space = text.rfind(" ", 0, CAUSE_SAMPLE_CHARACTERS)
    return text[: space if space > 0 else CAUSE_SAMPLE_CHARACTERS]


class Unbounded:
    """`with Unbounded(tokenizer):` encodes whole texts, without the truncation and padding the
    tokenizer's file may set (a BERT file truncating at 512 tokens would hide the cost of every
    long article); both are put back after."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self.truncation = tokenizer.truncation
        self.padding = tokenizer.padding

    def __enter__(self) -> Tokenizer:
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        return self.tokenizer

    def __exit__(self, *exception: object) -> None:
        truncation, padding = self.truncation, self.padding
        if truncation is not None:
            self.tokenizer.enable_truncation(
                _whole(truncation["max_length"]), _whole(truncation["stride"]),
                str(truncation["strategy"]), str(truncation["direction"]),
            )  # fmt: skip
        if padding is not None:
            length, multiple = padding["length"], padding["pad_to_multiple_of"]
            self.tokenizer.enable_padding(
                str(padding["direction"]), _whole(padding["pad_id"]), _whole(padding["pad_type_id"]),
                str(padding["pad_token"]), None if length is None else _whole(length),
                None if multiple is None else _whole(multiple),
            )  # fmt: skip


def _whole(value: JsonValue) -> int:
    assert isinstance(value, int)
    return value


def split_words(words: Sequence[tuple[int, int]], offsets: Sequence[tuple[int, int]]) -> int:
    """How many of `words` (character spans, in order) overlap more than one token (offsets in
    the same characters; tokens with no characters, such as a lone "▁", are left out)."""
    spans = sorted((start, end) for start, end in offsets if end > start)
    found = 0
    first = 0
    for start, end in words:
        while first < len(spans) and spans[first][1] <= start:
            first += 1
        covering = 0
        index = first
        while index < len(spans) and spans[index][0] < end:
            if spans[index][1] > start:
                covering += 1
                if covering > 1:
                    found += 1
                    break
            index += 1
    return found


def _split_words_of(words: Sequence[tuple[int, int]], encoding: Encoding) -> int:
    """`split_words(words, encoding.offsets)` read straight from the encoding's flat offsets
    (when its tokens with characters are in (start, end) order, as they are but for a
    post-processor's edits; else `split_words` sorts them). Tokens with no characters are
    passed over where met."""
    spans = encoding.spans()
    n = len(spans)
    last_start = -1
    last_end = -1
    for index in range(0, n, 2):
        start = int(spans[index])
        end = int(spans[index + 1])
        if end <= start:
            continue
        if start < last_start or (start == last_start and end < last_end):
            return split_words(words, encoding.offsets)
        last_start = start
        last_end = end
    found = 0
    first = 0
    for start, end in words:
        while first < n and spans[first + 1] <= start:
            first += 2
        covering = 0
        index = first
        while index < n:
            token_start = spans[index]
            token_end = spans[index + 1]
            if token_end > token_start:  # (one with no characters may stand anywhere)
                if token_start >= end:
                    break
                if token_end > start:
                    covering += 1
                    if covering > 1:
                        found += 1
                        break
            index += 2
    return found


def add_premiums(costs: Sequence[TextCost]) -> None:
    """Set each language's premium: its tokens over English's (same tokenizer) on the articles
    both texts have. Code, files and a tokenizer with no English text get none."""
    english: dict[str, TextCost] = {}
    for cost in costs:
        if cost.text.kind == "language" and cost.text.iso639_3 == BASELINE_LANGUAGE:
            english.setdefault(cost.tokenizer, cost)
    for cost in costs:
        base = english.get(cost.tokenizer)
        if base is None or cost.text.kind != "language":
            continue
        shared = [number for number in cost.article_tokens if number in base.article_tokens]
        ours = sum(cost.article_tokens[number] for number in shared)
        theirs = sum(base.article_tokens[number] for number in shared)
        cost.premium = ours / theirs if theirs else None


def summaries(costs: Sequence[TextCost]) -> list[Summary]:
    """One `Summary` per tokenizer, in the order they first appear."""
    by_tokenizer: dict[str, list[tuple[str, float]]] = {}
    for cost in costs:
        by_tokenizer.setdefault(cost.tokenizer, [])
        if cost.premium is not None:
            by_tokenizer[cost.tokenizer].append((cost.text.name, cost.premium))
    return [Summary(name, premiums) for name, premiums in by_tokenizer.items()]


def audit(
    tokenizers: Sequence[tuple[str, Tokenizer]], texts: Sequence[AuditText], progress: Callable[[int], None] | None = None
) -> list[TextCost]:
    """Every tokenizer on every text, premiums set: one row per tokenizer and text, tokenizer
    by tokenizer, texts in the order given. `progress(n)`, when given, hears after each text
    how many texts are done."""
    rows: list[list[TextCost]] = [[] for _ in tokenizers]
    # (the collector paused: an audit makes its encodings' lists by the million, and no cycles)
    with PausedCollector():
        auditor = Auditor(tokenizers)
        done = 0
        for text in texts:
            costs = auditor.measure(text)
            for index in range(len(rows)):
                rows[index].append(costs[index])
            done += 1
            if progress is not None:
                progress(done)
    costs = []
    for row in rows:
        costs += row
    add_premiums(costs)
    return costs


class Auditor:
    """Every tokenizer on one text at a time (`measure`), what they need from text to text
    kept: each one's byte-fallback ids and its `Tally`. Texts may come in any order and from
    several processes (each its own `Auditor`): no figure of a text depends on another."""

    def __init__(self, tokenizers: Sequence[tuple[str, Tokenizer]]) -> None:
        self.tokenizers = list(tokenizers)
        self.fallbacks = [byte_fallback_ids(tokenizer) for _, tokenizer in tokenizers]
        self.tallies = [Tally() for _ in tokenizers]

    def measure(self, text: AuditText) -> list[TextCost]:
        """Each tokenizer's costs on `text`, in the tokenizers' order (premiums not set); the
        text's words are found once for all of them."""
        found = TextWords(text)
        costs: list[TextCost] = []
        for index in range(len(self.tokenizers)):
            name, tokenizer = self.tokenizers[index]
            costs.append(_measure(name, tokenizer, text, self.fallbacks[index], found, self.tallies[index]))
        return costs


def renyi_efficiency(frequencies: Sequence[int], vocabulary_size: int, alpha: float = RENYI_ALPHA) -> float:
    """The Rényi entropy of order `alpha` of the tokens' distribution over the log of the
    vocabulary's size: 1 when every token of the vocabulary is used equally often.
    [1, 1] over a vocabulary of 2 -> 1.0; [1, 1] over 4 -> 0.5."""
    total = sum(frequencies)
    if total == 0 or vocabulary_size < 2:
        return 0.0
    power = 0.0
    for count in frequencies:
        power += (count / total) ** alpha
    entropy = math.log(power) / (1.0 - alpha)
    return entropy / math.log(vocabulary_size)


def percentile(values: Sequence[float], rank: float) -> float:
    """The `rank` percentile of sorted `values`, interpolated linearly between the two nearest
    (numpy's default): [1, 2, 3, 4] -> 50: 2.5, 90: 3.7."""
    if not values:
        return 0.0
    where = (len(values) - 1) * rank / 100.0
    low = math.floor(where)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (where - low)


def gini(values: Sequence[float]) -> float:
    """The Gini coefficient of `values` (all 0 or more): 0 when they are equal; [0, 0, 0, 1] ->
    0.75. The mean absolute difference over every pair, over twice the mean."""
    ordered = sorted(values)
    n = len(ordered)
    total = sum(ordered)
    if n == 0 or total == 0:
        return 0.0
    weighted = 0.0
    for index, value in enumerate(ordered):
        weighted += (2 * (index + 1) - n - 1) * value
    return weighted / (n * total)


def cell_text(value: str | int | float | None) -> str:
    """A value of `TextCost.values` as the CSV writes it: a figure to 4 decimals, a count whole,
    nothing for None."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)
