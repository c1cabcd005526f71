"""What a tokenizer does to one text, stage by stage, and whether decoding gives it back.

`trace(tokenizer, text)` follows the text through each component on its own (the normalizer's
`normalize_str` with its alignment to the original, the pre-tokenizer's `pre_tokenize_str`, the
model's tokens), then the whole `encode` and `decode`; `round_trip` lines the decoded text up
with the original and says why the pieces differ. `counts`, `shared_spans` and
`unshared_boundaries` feed the Encode and Compare views. Nothing here draws.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.analysis import baselines
from engine.models.bpe.model import BPE
from engine.encoding import Encoding
from engine.normalizers.normalized import NormalizedString
from engine.schema import JsonValue
from engine.tokenizer import Tokenizer
from engine.models.unigram.model import Unigram
from engine.models.wordlevel.model import WordLevel
from engine.models.wordpiece.model import WordPiece

CAUSE_UNKNOWN: Final = "unknown characters became the unknown token"
CAUSE_UNKNOWN_SKIPPED: Final = "unknown characters became the unknown token, which decoding leaves out (a special token)"
CAUSE_LOWERCASE: Final = "lowercased by the normalizer"
CAUSE_ACCENTS: Final = "accents stripped by the normalizer"
CAUSE_CANONICAL: Final = "composed or decomposed by the normalizer (NFC/NFD): the same text for Unicode"
CAUSE_COMPATIBILITY: Final = "compatibility characters replaced by the normalizer (NFKC/NFKD)"
CAUSE_SPACES: Final = "spaces added or removed by the decoder"
CAUSE_JOINED: Final = "no decoder: decoding joins the tokens with spaces"
CAUSE_SPECIAL: Final = "special tokens are left out when decoding"
CAUSE_OTHER: Final = "changed by the pipeline"

_EVERY_CHARACTER: Final = (
    "give every character a token: a larger alphabet (limit_alphabet, initial_alphabet), byte_fallback, "
    "or a byte-level pipeline"
)
# What to do about each cause, for the people who see it.
ADVICE: Final[dict[str, str]] = {
    CAUSE_UNKNOWN: _EVERY_CHARACTER,
    CAUSE_UNKNOWN_SKIPPED: _EVERY_CHARACTER,
    CAUSE_JOINED: "choose the decoder that undoes the pre-tokenizer (ByteLevel, Metaspace, WordPiece); a "
    "Whitespace pre-tokenizer keeps no record of the spaces, so only a ByteLevel or Metaspace pipeline gives them back",
    CAUSE_SPACES: "this decoder puts spaces back by rule; a ByteLevel or Metaspace pipeline keeps them exactly",
    CAUSE_LOWERCASE: "remove Lowercase (or BertNormalizer's lowercase) from the normalizers to keep case",
    CAUSE_ACCENTS: "remove StripAccents (or BertNormalizer's strip_accents) to keep accents",
    CAUSE_CANONICAL: "nothing is lost (the texts are canonically equivalent); to get the very code points back, "
    "remove the NFC/NFD normalizer",
    CAUSE_COMPATIBILITY: "use NFC, or no Unicode normalizer, instead of NFKC/NFKD to keep these characters",
    CAUSE_SPECIAL: "decode with skip_special_tokens=False to keep them",
}


class Difference:
    """Where the decoded text differs: `original[start:end]` became `decoded[decoded_start:decoded_end]`."""

    start: int
    end: int
    decoded_start: int
    decoded_end: int
    cause: str

    def __init__(self, start: int, end: int, decoded_start: int, decoded_end: int, cause: str) -> None:
        self.start = start
        self.end = end
        self.decoded_start = decoded_start
        self.decoded_end = decoded_end
        self.cause = cause

    def to_tuple(self) -> tuple[int, int, int, int, str]:
        return (self.start, self.end, self.decoded_start, self.decoded_end, self.cause)

    def __repr__(self) -> str:
        return f"Difference({self.start}, {self.end}, {self.decoded_start}, {self.decoded_end}, {self.cause!r})"


class RoundTrip:
    """`decode(encode(text))` and how it compares with `text`: exact, or the differing spans
    with a cause each (and the distinct causes, most frequent first)."""

    decoded: str
    differences: list[Difference]

    def __init__(self, decoded: str, differences: list[Difference]) -> None:
        self.decoded = decoded
        self.differences = differences

    @property
    def exact(self) -> bool:
        return not self.differences

    @property
    def causes(self) -> list[str]:
        seen: dict[str, int] = {}
        for difference in self.differences:
            seen[difference.cause] = seen.get(difference.cause, 0) + 1
        ranked = sorted([(-count, cause) for cause, count in seen.items()])
        return [cause for _, cause in ranked]

    def to_dict(self) -> dict[str, JsonValue]:
        return {"decoded": self.decoded, "differences": [list[JsonValue](d.to_tuple()) for d in self.differences]}


def round_trip(tokenizer: Tokenizer, text: str, encoding: Encoding) -> RoundTrip:
    """Decode `encoding` (of `text`, without a pair) and line the result up with `text`.

    Causes are told from the pieces themselves: the unknown token in the tokens there, the
    original lowercased or with its accents stripped giving the decoded piece, white space only,
    a special token's text left out.
    """
    decoded = tokenizer.decode(encoding.ids)
    if decoded == text:
        return RoundTrip(decoded, [])
    unknown_spans = [encoding.offset(index) for index in unknown_positions(tokenizer, encoding, text)]
    specials: list[str] = []
    skipped = False
    unk = unknown_id(tokenizer)
    for id, token in tokenizer.get_added_tokens_decoder().items():
        if token.special:
            specials.append(token.content)
            skipped = skipped or id == unk
    # (decoding leaves special tokens out: an unknown token that is one vanishes)
    unknown_cause = CAUSE_UNKNOWN_SKIPPED if skipped else CAUSE_UNKNOWN
    spaces_cause = CAUSE_JOINED if tokenizer.decoder is None else CAUSE_SPACES
    differences: list[Difference] = []
    for tag, i1, i2, j1, j2 in opcodes(text, decoded):
        if tag == "equal":
            continue
        cause = _cause(text[i1:i2], decoded[j1:j2], i1, i2, unknown_spans, specials)
        if cause == CAUSE_UNKNOWN:
            cause = unknown_cause
        elif cause == CAUSE_SPACES:
            cause = spaces_cause
        differences.append(Difference(i1, i2, j1, j2, cause))
    return RoundTrip(decoded, _merge_neighbours(differences))


def opcodes(a: str, b: str) -> list[tuple[str, int, int, int, int]]:
    """`difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()`, the same steps
    typed (compiled, several times faster than the interpreted difflib):
    ("qabxcd", "abycdf") -> delete 0:1, equal 1:3 0:2, replace 3:4 2:3, equal 4:6 3:5, insert 6:6 5:6."""
    b2j: dict[str, list[int]] = {}
    for index in range(len(b)):
        found = b2j.get(b[index])
        if found is None:
            b2j[b[index]] = [index]
        else:
            found.append(index)
    # each char of `a`'s positions in `b`, looked up once (every longest match reads them)
    in_b: list[list[int]] = []
    for index in range(len(a)):
        found = b2j.get(a[index])
        in_b.append(found if found is not None else NO_POSITIONS)
    row = vec[i64]([0] * (len(b) + 1))
    next_row = vec[i64]([0] * (len(b) + 1))
    # difflib's get_matching_blocks: the longest match, then the same on each side of it
    queue: list[int] = [0, len(a), 0, len(b)]
    block_j: dict[int, int] = {}
    block_k: dict[int, int] = {}
    while queue:
        bhi = queue.pop()
        blo = queue.pop()
        ahi = queue.pop()
        alo = queue.pop()
        i, j, k = _longest_match(a, b, in_b, alo, ahi, blo, bhi, row, next_row)
        if k:
            # (the blocks never share an `a` position: sorted by it as difflib sorts them)
            block_j[i] = j
            block_k[i] = k
            if alo < i and blo < j:
                queue += [alo, i, blo, j]
            if i + k < ahi and j + k < bhi:
                queue += [i + k, ahi, j + k, bhi]
    blocks: list[int] = []
    i1 = 0
    j1 = 0
    k1 = 0
    for i2 in sorted(block_j):
        j2 = block_j[i2]
        k2 = block_k[i2]
        if i1 + k1 == i2 and j1 + k1 == j2:
            k1 += k2
        else:
            if k1:
                blocks += [i1, j1, k1]
            i1 = i2
            j1 = j2
            k1 = k2
    if k1:
        blocks += [i1, j1, k1]
    blocks += [len(a), len(b), 0]
    answer: list[tuple[str, int, int, int, int]] = []
    i = 0
    j = 0
    for index in range(0, len(blocks), 3):
        ai = blocks[index]
        bj = blocks[index + 1]
        size = blocks[index + 2]
        tag = ""
        if i < ai and j < bj:
            tag = "replace"
        elif i < ai:
            tag = "delete"
        elif j < bj:
            tag = "insert"
        if tag:
            answer.append((tag, i, ai, j, bj))
        i = ai + size
        j = bj + size
        if size:
            answer.append(("equal", ai, i, bj, j))
    return answer


NO_POSITIONS: Final[list[int]] = []


def _longest_match(
    a: str, b: str, in_b: list[list[int]], alo: int, ahi: int, blo: int, bhi: int, row: vec[i64], next_row: vec[i64]
) -> tuple[int, int, int]:
    """difflib's find_longest_match without junk: (i, j, size) of the longest a[i:i+size] ==
    b[j:j+size] in the ranges, the earliest in `a`, then in `b`, of the longest. `in_b[i]`:
    the positions of a[i] in `b`, in order.

    `row` and `next_row` are len(b) + 1 zeros, and are zeros again after: `row[j + 1]` is the
    length of the match that ends at a[i - 1] and b[j] (difflib's j2len dict, a dict per row;
    unboxed vecs indexed by position, cleared where written, took a third of the time)."""
    besti: i64 = alo
    bestj: i64 = blo
    bestsize: i64 = 0
    written = vec[i64]()
    writing = vec[i64]()
    for i in range(alo, ahi):
        writing = vec[i64]()
        for j in in_b[i]:
            if j < blo:
                continue
            if j >= bhi:
                break
            k = row[j] + 1
            next_row[j + 1] = k
            writing = append(writing, j + 1)
            if k > bestsize:
                besti = i - k + 1
                bestj = j - k + 1
                bestsize = k
        for position in written:
            row[position] = 0
        row, next_row = next_row, row
        written = writing
    for position in written:
        row[position] = 0
    # (difflib's extensions over equal non-junk chars; with no junk, its junk passes do nothing)
    while besti > alo and bestj > blo and a[besti - 1] == b[bestj - 1]:
        besti -= 1
        bestj -= 1
        bestsize += 1
    while besti + bestsize < ahi and bestj + bestsize < bhi and a[besti + bestsize] == b[bestj + bestsize]:
        bestsize += 1
    return (int(besti), int(bestj), int(bestsize))


def _cause(
    original: str, decoded: str, start: int, end: int, unknown: list[tuple[int, int]], specials: list[str]
) -> str:
    for span in unknown:
        if span[0] < max(end, start + 1) and start < span[1]:
            return CAUSE_UNKNOWN
    if (not original or original.isspace()) and (not decoded or decoded.isspace()):
        return CAUSE_SPACES
    if original in specials and not decoded:
        return CAUSE_SPECIAL
    if original.lower() == decoded or _lower_char(original) == decoded:
        return CAUSE_LOWERCASE
    if _strip_accents(original) == decoded:
        return CAUSE_ACCENTS
    if _strip_accents(original).lower() == decoded:
        return CAUSE_ACCENTS
    if unicodedata.normalize("NFC", original) == unicodedata.normalize("NFC", decoded):
        return CAUSE_CANONICAL
    if unicodedata.normalize("NFKC", original) == decoded or unicodedata.normalize("NFKC", original).lower() == decoded:
        return CAUSE_COMPATIBILITY
    if original.strip() == decoded.strip():
        return CAUSE_SPACES
    return CAUSE_OTHER


def _lower_char(text: str) -> str:
    return "".join(c.lower() for c in text)


def _strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if unicodedata.category(c) != "Mn")


def _merge_neighbours(differences: list[Difference]) -> list[Difference]:
    """Join differences of the same cause that touch, so "Hello"->"hello" stays one span."""
    merged: list[Difference] = []
    for difference in differences:
        if merged:
            last = merged[len(merged) - 1]
            if last.cause == difference.cause and last.end == difference.start and last.decoded_end == difference.decoded_start:
                last.end = difference.end
                last.decoded_end = difference.decoded_end
                continue
        merged.append(difference)
    return merged


def unknown_id(tokenizer: Tokenizer) -> int:
    """The id the model gives characters it has no token for (Unigram's `unk_id`, the id of
    BPE's, WordPiece's or WordLevel's `unk_token`), or -1 when it has none: a byte-level or
    byte_fallback model without one spells every character in tokens."""
    model = tokenizer.model
    if isinstance(model, Unigram):
        return model.unk_id if model.unk_id is not None else -1
    name: str | None = None
    if isinstance(model, BPE):
        name = model.unk_token
    elif isinstance(model, (WordPiece, WordLevel)):
        name = model.unk_token
    if name is None:
        return -1
    found = model.token_to_id(name)
    return found if found is not None else -1


def unknown_token(tokenizer: Tokenizer) -> str:
    """The model's unknown token as the vocabulary writes it ("[UNK]", "<unk>"), or ""."""
    unk = unknown_id(tokenizer)
    found = tokenizer.id_to_token(unk) if unk >= 0 else None
    return found if found is not None else ""


def unknown_positions(tokenizer: Tokenizer, encoding: Encoding, text: str, pair: str | None = None) -> list[int]:
    """The indexes of the tokens that stand for characters the model has no token for.

    Told by id, not by string: HF's token string for a Unigram unknown is the text itself ("é"),
    for the other models the unknown token ("[UNK]"). The unknown token typed as text ("[UNK]"
    where it is an added token) is that added token, not an unknown: ids [101, 100, 102] of
    "😀" -> [1]; of "[UNK]" -> [].
    """
    unk = unknown_id(tokenizer)
    if unk < 0:
        return []
    added = tokenizer.get_added_tokens_decoder().get(unk)
    content = added.content if added is not None else ""
    second = pair if pair is not None else ""
    ids = encoding.ids
    tokens = encoding.tokens
    spans = encoding.spans()
    # (made when first needed: most encodings have no unknown token that is the added token)
    sequences: list[int | None] | None = None
    found: list[int] = []
    for index in range(len(ids)):
        if ids[index] != unk:
            continue
        if added is not None and tokens[index] == content:
            # subtle: read one token's offsets, not `encoding.offsets` (a new list at each read)
            start = int(spans[2 * index])
            end = int(spans[2 * index + 1])
            if sequences is None:
                sequences = encoding.sequence_ids
            # subtle: a template's tokens have no sequence (and no characters)
            source = second if index < len(sequences) and sequences[index] == 1 else text
            if source[start:end] == content or start == end:
                continue  # the added token itself, matched in the text (or put there by a template)
        found.append(index)
    return found


class Trace:
    """One text through the pipeline, stage by stage, every offset in characters of `text`.

    `normalized` with `alignments` (for each normalized character, the original span it came
    from); `pieces`: the pre-tokenizer's pieces of the normalized text (text, start, end);
    `model_tokens`: per piece, the model's tokens (id, token, start, end); then the whole
    `encoding` (post-processed) and the round trip.
    """

    text: str
    normalized: str
    alignments: list[tuple[int, int]]
    pieces: list[tuple[str, int, int]]
    model_tokens: list[list[tuple[int, str, int, int]]]
    encoding: Encoding
    round_trip: RoundTrip

    def __init__(self, text: str) -> None:
        self.text = text
        self.normalized = text
        self.alignments = []
        self.pieces = []
        self.model_tokens = []
        self.encoding = Encoding()
        self.round_trip = RoundTrip(text, [])


def trace(tokenizer: Tokenizer, text: str, add_special_tokens: bool = True) -> Trace:
    """Follow `text` through each stage of `tokenizer` (see `Trace`).

    The stages before the model run each component on the whole text, as their own
    `normalize_str` / `pre_tokenize_str` do; the final encoding is `tokenizer.encode`, where
    added tokens are cut out first, and decoding is `tokenizer.decode`.
    """
    result = Trace(text)
    normalizer = tokenizer.normalizer
    normalized = NormalizedString(text)
    if normalizer is not None:
        normalizer.normalize(normalized)
    result.normalized = normalized.normalized
    result.alignments = normalized.alignments()
    pre_tokenizer = tokenizer.pre_tokenizer
    if pre_tokenizer is not None:
        found = pre_tokenizer.pre_tokenize_str(result.normalized)
    else:
        found = [(result.normalized, (0, len(result.normalized)))] if result.normalized else []
    model = tokenizer.model
    for piece, (start, end) in found:
        original = _original_span(result.alignments, start, end)
        result.pieces.append((piece, original[0], original[1]))
        tokens: list[tuple[int, str, int, int]] = []
        for token in model.tokenize_run(piece).tokens():
            # a model token's offsets are in the piece; the piece is at `start` in the normalized text
            span = _original_span(result.alignments, start + token.start, start + token.end) if _plain_piece(piece, result.normalized, start, end) else original
            tokens.append((token.id, token.value, span[0], span[1]))
        result.model_tokens.append(tokens)
    result.encoding = tokenizer.encode(text, add_special_tokens=add_special_tokens)
    result.round_trip = round_trip(tokenizer, text, result.encoding)
    return result


def _plain_piece(piece: str, normalized: str, start: int, end: int) -> bool:
    """Whether the piece is a slice of the normalized text (ByteLevel and Metaspace pieces are
    rewritten, so their tokens cannot be placed inside the piece: they get its span)."""
    return normalized[start:end] == piece


def _original_span(alignments: list[tuple[int, int]], start: int, end: int) -> tuple[int, int]:
    """The original span of normalized characters [start, end)."""
    if not alignments or start >= len(alignments):
        last = alignments[len(alignments) - 1][1] if alignments else 0
        return (last, last)
    end = max(min(end, len(alignments)), start + 1)
    return (alignments[start][0], alignments[end - 1][1])


class Counts:
    """How long a text is in characters, bytes and words, and in tokens of one encoding."""

    characters: int
    bytes: int
    words: int
    tokens: int

    def __init__(self, characters: int, byte_count: int, words: int, tokens: int) -> None:
        self.characters = characters
        self.bytes = byte_count
        self.words = words
        self.tokens = tokens

    @property
    def characters_per_token(self) -> float:
        return self.characters / self.tokens if self.tokens else 0.0

    @property
    def tokens_per_word(self) -> float:
        return self.tokens / self.words if self.words else 0.0


def counts(text: str, tokens: int) -> Counts:
    """The counts of `text` with `tokens` tokens (words as `baselines.words` cuts them)."""
    return Counts(len(text), len(text.encode("utf-8", "surrogatepass")), len(baselines.words(text)), tokens)


def content_tokens(encoding: Encoding) -> int:
    """The tokens of an encoding that stand for text (the post-processor's specials left out)."""
    total = 0
    for index in range(len(encoding.ids)):
        if encoding.special_tokens_mask[index] == 0:
            total += 1
    return total


def padding_tokens(encoding: Encoding) -> int:
    """The padding of an encoding: the tokens its attention mask leaves out."""
    total = 0
    for mask in encoding.attention_mask:
        if mask == 0:
            total += 1
    return total


def shared_spans(offsets: list[tuple[int, int]]) -> list[tuple[int, int, list[int]]]:
    """Character spans that more than one token covers (the byte-level pieces of one emoji), with
    the tokens' indices: [(0, 1), (0, 1), (1, 2)] -> [(0, 1, [0, 1])]."""
    by_span: dict[tuple[int, int], list[int]] = {}
    order: list[tuple[int, int]] = []
    for index in range(len(offsets)):
        span = offsets[index]
        if span[0] >= span[1]:
            continue
        found = by_span.get(span)
        if found is None:
            by_span[span] = [index]
            order.append(span)
        else:
            found.append(index)
    return [(span[0], span[1], by_span[span]) for span in order if len(by_span[span]) > 1]


def unshared_boundaries(columns: list[list[tuple[int, int]]]) -> list[list[int]]:
    """For each column of spans, the token starts that at least one other column does not have
    (sorted): where the columns cut the text differently.

    [[(0, 2), (2, 4)], [(0, 1), (1, 4)]] -> [[2], [1]]
    """
    starts: list[set[int]] = []
    for spans in columns:
        found: set[int] = set()
        for start, end in spans:
            if start < end:
                found.add(start)
        starts.append(found)
    result: list[list[int]] = []
    for index in range(len(starts)):
        others = [starts[j] for j in range(len(starts)) if j != index]
        unshared = [start for start in starts[index] if any(start not in other for other in others)]
        result.append(sorted(unshared))
    return result

