"""Vocabulary health, without model weights: which tokens a text never produces (dead) or rarely
produces (rare), which no text can give as themselves (unreachable), which are not whole UTF-8
characters, which merges only ever consume (intermediate-only), which the normalizer folds
together (collisions), and the longest. Two vocabularies side by side are `vocab_compare`'s.

Nothing here trains, reads files or draws; the texts come from the caller.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Final

from engine import normalizers, pre_tokenizers
from engine.analysis.audit import Unbounded
from engine.analysis.vocabulary import TokenStyle, byte_fallback_value, token_bytes
from engine.metaspace import NEVER
from engine.models.bpe.model import BPE
from engine.models.unigram.model import Unigram
from engine.models.wordpiece.model import WordPiece
from engine.tokenizer import Tokenizer

# How many of the longest tokens `vocabulary_health` lists.
LONGEST: Final = 20
# Texts encoded per `encode_batch` call (bounds the encodings held at once).
BATCH: Final = 2_000

# How many hosts of each group a "##x" probe tries, to find one the pre-tokenizer keeps joined to x.
HOST_TRIES: Final = 4

# How `token_surface` says where a token stands in a word.
WHOLE: Final = 0  # at the start of a word (or a whole word): probed as its surface text alone
INSIDE: Final = 1  # only inside a word (after another piece): probed behind a host
UNCHECKED: Final = 2  # bytes, byte-fallback pieces, or a marker no probe here covers


class TokenSurface:
    """What a token stands for in text. `text`: its surface (see `token_surface`); `marker`: the
    word-start or continuation mark it carries, as written ("Ġ"/"▁" kept as " ", "##", or "");
    `body`: the surface without that mark; `place`: WHOLE, INSIDE or UNCHECKED; `is_text`: False
    for a token that stands for bytes (`<0xNN>`, or byte-level bytes that are not whole UTF-8)."""

    text: str
    marker: str
    body: str
    place: int
    is_text: bool

    def __init__(self, text: str, marker: str, body: str, place: int, is_text: bool = True) -> None:
        self.text = text
        self.marker = marker
        self.body = body
        self.place = place
        self.is_text = is_text


def adds_word_start(tokenizer: Tokenizer) -> bool:
    """Whether the pre-tokenizer puts a word-start mark before every word (ByteLevel with
    `add_prefix_space`, Metaspace with a prepend scheme): then a token without one is only ever
    found inside a word."""
    pending: list[object] = [tokenizer.pre_tokenizer]
    while pending:
        part = pending.pop()
        if isinstance(part, pre_tokenizers.Sequence):
            pending.extend(part.pre_tokenizers)
        elif isinstance(part, pre_tokenizers.ByteLevel) and part.add_prefix_space:
            return True
        elif isinstance(part, pre_tokenizers.Metaspace) and part.prepend_scheme != NEVER:
            return True
    return False


def token_surface(token: str, style: TokenStyle, word_start: bool, wordpiece: bool) -> TokenSurface:
    """The text a token stands for, and where in a word it can stand.

    byte-level: its bytes decoded ("Ġhello" -> " hello"; bytes that are not whole UTF-8 characters
    are UNCHECKED, shown with `\\xNN`); `<0xNN>` byte-fallback pieces: UNCHECKED (they stand for a
    byte, not for text); Metaspace: "▁" as a space ("▁hello" -> " hello"; "▁" alone is
    UNCHECKED: whether it comes out depends on what follows it); WordPiece: "##ing" is
    "ing" INSIDE a word, any other token is WHOLE; a BPE end-of-word suffix ("low</w>" -> "low")
    marks a word's end, and a token without it (or with BPE's continuing prefix) is UNCHECKED.
    With `word_start` (the pre-tokenizer marks every word's start), a token without the mark is
    INSIDE; otherwise every other token is WHOLE.
    """
    if byte_fallback_value(token) >= 0:
        return TokenSurface(token, "", token, UNCHECKED, False)
    if style.byte_level:
        raw = token_bytes(token, style)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            shown = raw.decode("utf-8", "backslashreplace")
            return TokenSurface(shown, "", shown, UNCHECKED, False)
        if text.startswith(" ") and len(text) > 1:
            return TokenSurface(text, " ", text[1:], WHOLE)
        return TokenSurface(text, "", text, INSIDE if word_start else WHOLE)
    if style.prefix and token.startswith(style.prefix) and len(token) > len(style.prefix):
        body = token[len(style.prefix) :]
        return TokenSurface(body, style.prefix, body, INSIDE if wordpiece else UNCHECKED)
    text = token
    place = WHOLE
    if style.suffix:
        if text.endswith(style.suffix) and len(text) > len(style.suffix):
            text = text[: len(text) - len(style.suffix)]
        else:
            place = UNCHECKED
    if style.metaspace:
        if text == style.metaspace:
            return TokenSurface(" ", " ", "", UNCHECKED)  # the mark alone: what follows decides
        text = text.replace(style.metaspace, " ")
        if text.startswith(" ") and len(text) > 1:
            return TokenSurface(text, " ", text[1:], place)
        if word_start and place == WHOLE:
            place = INSIDE
    return TokenSurface(text, "", text, place)


def token_frequencies(tokenizer: Tokenizer, texts: Sequence[str]) -> list[int]:
    """How often encoding `texts` (whole: no truncation or padding, no special tokens added)
    produces each token: `result[id]`, for every id of the vocabulary with added tokens.

    WordPiece {[UNK], the, cat, ##s} on ["the cats", "the"] -> [0, 2, 1, 1]
    """
    size = 0
    for id in tokenizer.get_vocab(True).values():
        if id >= size:
            size = id + 1
    frequencies = [0] * size
    with Unbounded(tokenizer):
        for start in range(0, len(texts), BATCH):
            for encoding in tokenizer.encode_batch(list(texts[start : start + BATCH]), add_special_tokens=False):
                for id in encoding.ids:
                    if 0 <= id < size:
                        frequencies[id] += 1
    return frequencies


class VocabularyHealth:
    """A vocabulary's health on some texts (see `vocabulary_health` for each list's definition).

    Lists hold token ids. `special`: added tokens and the unknown token, kept out of every other
    list. `frequencies[id]`: what `token_frequencies` gives on the texts; `tokens`: their sum.
    """

    size: int
    tokens: int
    rare_below: int
    frequencies: list[int]
    special: list[int]
    dead: list[int]
    rare: list[int]
    unreachable: list[int]
    unchecked: list[int]
    invalid_utf8: list[int]
    intermediate_only: list[int]
    unformable: list[int]
    collisions: list[list[int]]
    longest: list[int]
    surfaces: dict[int, str]

    def __init__(self, size: int, frequencies: list[int], rare_below: int) -> None:
        self.size = size
        self.frequencies = frequencies
        total = 0
        for count in frequencies:
            total += count
        self.tokens = total
        self.rare_below = rare_below
        self.special = []
        self.dead = []
        self.rare = []
        self.unreachable = []
        self.unchecked = []
        self.invalid_utf8 = []
        self.intermediate_only = []
        self.unformable = []
        self.collisions = []
        self.longest = []
        self.surfaces = {}

    def counts(self) -> dict[str, int]:
        """How many tokens each list holds (collisions: groups)."""
        return {
            "special": len(self.special), "dead": len(self.dead), "rare": len(self.rare),
            "unreachable": len(self.unreachable), "unchecked": len(self.unchecked),
            "invalid_utf8": len(self.invalid_utf8), "intermediate_only": len(self.intermediate_only),
            "unformable": len(self.unformable), "collisions": len(self.collisions), "longest": len(self.longest),
        }  # fmt: skip

    def __repr__(self) -> str:
        parts = ", ".join(f"{name} {count}" for name, count in self.counts().items())
        return f"VocabularyHealth({self.size} tokens, {self.tokens} produced; {parts})"


def vocabulary_health(
    tokenizer: Tokenizer, texts: Sequence[str], rare_below: int = 10, longest: int = LONGEST
) -> VocabularyHealth:
    """The health of `tokenizer`'s vocabulary on `texts`. Every list but `special` leaves out the
    added tokens and the model's unknown token (`special`, by id).

    - `dead`: tokens encoding the texts never produces, by id (for a trained vocabulary, creation order).
    - `rare`: tokens produced 1 to `rare_below` - 1 times, fewest first, then by id.
    - `unreachable`: tokens whose own surface (`token_surface`), encoded, does not give exactly
      that token, by id. A WHOLE token: its surface encoded alone must be that one token. A
      WordPiece "##x" is "x" after a host: c + x must encode to [c, ##x], where c is a whole
      token that encodes to itself and no whole token is c + x[:k] (so greedy longest match
      stops after c). Hosts are tried in groups by their last character: x[0]'s Unicode
      category, its class, then each other class (L, N, P, ...); within each, shortest first
      (`_Hosts`); the first (of at most `HOST_TRIES` a group) that the normalizer and
      pre-tokenizer keep in one word with x is taken, else the first found. (Greedy longest
      match itself never makes a WordPiece token unreachable: after a host it stops at, "x"
      is the whole rest of the word, and the longest match of a whole word is itself. What
      does is the pipeline: the normalizer, the pre-tokenizer, added tokens,
      `max_input_chars_per_word`.) Any other INSIDE token (a word-start mark is added to every word): the model
      alone on the token must give it, and the normalizer and pre-tokenizer must hand x[0] + x
      to the model as one word ending in the token.
    - `unchecked`: tokens no probe covers (UNCHECKED in `token_surface`), by id.
    - `invalid_utf8`: byte-level and `<0xNN>` tokens whose bytes alone are not valid UTF-8, by id.
    - `intermediate_only` (BPE): tokens a merge makes, never produced on the texts, that are the
      left or right part of a merge ranked after the first one that makes them, by that rank.
    - `unformable` (BPE, text-independent, sound): tokens a merge makes that the model, on the
      token's own string as a word, does not give. A token that forms inside a longer word
      formed by the same merges as on its own string (a merge across the span's edge would
      have taken one of its symbols), and on its own string nothing can merge with it: so a
      token that does not come out of its own string never forms in any text, and every merge
      using it is dead. (The converse is why no text-independent intermediate-only list is
      sound at the model level: a token that forms is produced on its own string.)
    - `collisions`: groups of two or more tokens of the same mark whose bodies the tokenizer's
      normalizer makes equal ("Café"/"café" under Lowercase): from normalized text at most one
      of each group can be produced. Each group by id, groups by their first id.
    - `longest`: the `longest` tokens with the most characters in their surface text, then by id.
    """
    frequencies = token_frequencies(tokenizer, texts)
    size = len(frequencies)
    health = VocabularyHealth(size, frequencies, rare_below)
    style = TokenStyle.of(tokenizer)
    model = tokenizer.model
    word_start = adds_word_start(tokenizer)
    wordpiece = isinstance(model, WordPiece)
    special = _special_ids(tokenizer)
    vocab = tokenizer.get_vocab(True)
    by_id: list[str] = [""] * size
    present = [False] * size
    for token, id in vocab.items():
        by_id[id] = token
        present[id] = True
    surfaces: list[TokenSurface | None] = [None] * size
    rare_pairs: list[tuple[int, int]] = []
    for id in range(size):
        if not present[id]:
            continue
        if id in special:
            health.special.append(id)
            continue
        surface = token_surface(by_id[id], style, word_start, wordpiece)
        surfaces[id] = surface
        health.surfaces[id] = surface.text
        count = frequencies[id]
        if count == 0:
            health.dead.append(id)
        elif count < rare_below:
            rare_pairs.append((count, id))
        if _invalid_utf8(by_id[id], style):
            health.invalid_utf8.append(id)
        if surface.place == UNCHECKED:
            health.unchecked.append(id)
    rare_pairs.sort()
    for _, id in rare_pairs:
        health.rare.append(id)
    health.unreachable = unreachable_tokens(tokenizer, surfaces, by_id)
    if isinstance(model, BPE):
        health.intermediate_only = intermediate_only(model, frequencies, special)
        health.unformable = unformable_tokens(model, special)
    health.collisions = collisions(tokenizer, surfaces)
    health.longest = longest_tokens(surfaces, longest)
    return health


def _special_ids(tokenizer: Tokenizer) -> set[int]:
    """The added tokens' ids and the model's unknown token's."""
    special = set(tokenizer.get_added_tokens_decoder())
    model = tokenizer.model
    unk: str | None = None
    if isinstance(model, (BPE, WordPiece)):
        unk = model.unk_token
    elif isinstance(model, Unigram) and model.unk_id is not None:
        special.add(model.unk_id)
    if unk is not None:
        found = model.token_to_id(unk)
        if found is not None:
            special.add(found)
    return special


def _invalid_utf8(token: str, style: TokenStyle) -> bool:
    if not style.byte_level and byte_fallback_value(token) < 0:
        return False
    try:
        token_bytes(token, style).decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def unreachable_tokens(tokenizer: Tokenizer, surfaces: list[TokenSurface | None], by_id: list[str]) -> list[int]:
    """The ids whose surface does not encode to them (the rule is `vocabulary_health`'s), by id.
    Every probe text is encoded once, in batches: the WHOLE tokens first, then (WordPiece) each
    "##x" behind a WHOLE token found reachable."""
    texts: list[str] = []
    expected: list[list[int]] = []
    inside: list[tuple[int, str]] = []
    unreachable: list[int] = []
    wordpiece = isinstance(tokenizer.model, WordPiece)
    for id in range(len(surfaces)):
        surface = surfaces[id]
        if surface is None or surface.place == UNCHECKED:
            continue
        if surface.place == WHOLE:
            texts.append(surface.text)
            expected.append([id])
        elif wordpiece:
            inside.append((id, surface.body))
        elif not _inside_reachable(tokenizer, by_id[id], id, surface.body):
            unreachable.append(id)
    reachable_whole = _probe(tokenizer, texts, expected, unreachable)
    if inside:
        hosts = _Hosts(tokenizer, reachable_whole, by_id)
        texts = []
        expected = []
        for id, body in inside:
            host = hosts.host_for(body)
            if host < 0:
                unreachable.append(id)  # greedy longest match takes part of the body after any host
            else:
                texts.append(by_id[host] + body)
                expected.append([host, id])
        _probe(tokenizer, texts, expected, unreachable)
    unreachable.sort()
    return unreachable


def _probe(tokenizer: Tokenizer, texts: list[str], expected: list[list[int]], unreachable: list[int]) -> list[int]:
    """Encode each text; where its ids are not `expected`, its last expected id goes to
    `unreachable`. Returns the ids whose probe passed."""
    passed: list[int] = []
    with Unbounded(tokenizer):
        for start in range(0, len(texts), BATCH):
            encodings = tokenizer.encode_batch(texts[start : start + BATCH], add_special_tokens=False)
            for i in range(len(encodings)):
                wanted = expected[start + i]
                if encodings[i].ids == wanted:
                    passed.append(wanted[len(wanted) - 1])
                else:
                    unreachable.append(wanted[len(wanted) - 1])
    return passed


def _inside_reachable(tokenizer: Tokenizer, token: str, id: int, body: str) -> bool:
    """An INSIDE token of a word-start-marking tokenizer: the model alone on the token gives it,
    and x[0] + x reaches the model as one word that ends with the token."""
    if tokenizer.model.tokenize_run(token).ids != [id] or not body:
        return False
    text = body[0] + body
    normalizer = tokenizer.normalizer
    if normalizer is not None:
        text = normalizer.normalize_str(text)
    pre_tokenizer = tokenizer.pre_tokenizer
    words = [text] if pre_tokenizer is None else pre_tokenizer.split_words(text)
    return len(words) == 1 and len(words[0]) > len(token) and words[0].endswith(token)


class _Hosts:
    """The WordPiece whole tokens that may stand before a "##x" (each encodes to itself alone),
    grouped by the Unicode category ("Ll") and class ("L") of their last character, each group
    ordered by length, then by how few whole tokens start with their first character, then by
    text."""

    tokenizer: Tokenizer
    whole: set[str]
    by_category: dict[str, list[tuple[str, int]]]
    by_class: dict[str, list[tuple[str, int]]]

    def __init__(self, tokenizer: Tokenizer, reachable_whole: list[int], by_id: list[str]) -> None:
        self.tokenizer = tokenizer
        self.whole = set()
        starts: dict[str, int] = {}
        for id in reachable_whole:
            token = by_id[id]
            self.whole.add(token)
            if token:
                starts[token[0]] = starts.get(token[0], 0) + 1
        ordered: list[tuple[int, int, str, int]] = []
        for id in reachable_whole:
            token = by_id[id]
            if token:
                ordered.append((len(token), starts.get(token[0], 0), token, id))
        ordered.sort()
        self.by_category = {}
        self.by_class = {}
        for _, _, token, id in ordered:
            category = unicodedata.category(token[len(token) - 1])
            _group(self.by_category, category).append((token, id))
            _group(self.by_class, category[0]).append((token, id))

    def host_for(self, body: str) -> int:
        """The id of the host to put before `body`, or -1 when greedy matching never stops
        after a host (see `vocabulary_health`)."""
        if not body:
            return -1
        category = unicodedata.category(body[0])
        groups = [self.by_category.get(category, []), self.by_class.get(category[0], [])]
        for kind, hosts in self.by_class.items():
            if kind != category[0]:
                groups.append(hosts)
        first = -1
        for candidates in groups:
            tries = 0
            for token, id in candidates:
                if tries >= HOST_TRIES:
                    break
                if not self._stops(token, body):
                    continue
                if first < 0:
                    first = id
                if self._one_word(token + body):
                    return id
                tries += 1
        return first

    def _stops(self, host: str, body: str) -> bool:
        for k in range(1, len(body) + 1):
            if host + body[:k] in self.whole:
                return False
        return True

    def _one_word(self, text: str) -> bool:
        normalizer = self.tokenizer.normalizer
        if normalizer is not None:
            text = normalizer.normalize_str(text)
        pre_tokenizer = self.tokenizer.pre_tokenizer
        return pre_tokenizer is None or len(pre_tokenizer.split_words(text)) == 1


def _group(groups: dict[str, list[tuple[str, int]]], key: str) -> list[tuple[str, int]]:
    found = groups.get(key)
    if found is None:
        found = []
        groups[key] = found
    return found


def intermediate_only(model: BPE, frequencies: list[int], special: set[int]) -> list[int]:
    """Tokens a merge makes, never produced (frequency 0), that are a part of a merge ranked
    after the first one making them; ordered by that first rank.

    merges a+b, ab+c; produced abc only -> [ab]
    """
    merges = model.merges
    made = model.merged_ids
    n = len(merges)
    vocab = model.get_vocab()
    first: dict[int, int] = {}
    for rank in range(n):
        if made[rank] not in first:
            first[made[rank]] = rank
    last_use: dict[int, int] = {}
    for rank in range(n):
        for part in merges[rank]:
            found = vocab.get(part)
            if found is not None:
                last_use[found] = rank
    found_ids: list[tuple[int, int]] = []
    for id, rank in first.items():
        if id in special or (id < len(frequencies) and frequencies[id] > 0):
            continue
        used = last_use.get(id, -1)
        if used > rank:
            found_ids.append((rank, id))
    found_ids.sort()
    return [id for _, id in found_ids]


def unformable_tokens(model: BPE, special: set[int]) -> list[int]:
    """Tokens a merge makes that the model does not give on their own string (the proof that
    they then never form is `vocabulary_health`'s), by id. Tokens with a continuing prefix or
    without the end-of-word suffix are left out: no word is their own string."""
    prefix = model.continuing_subword_prefix or ""
    suffix = model.end_of_word_suffix or ""
    found: list[int] = []
    seen: set[int] = set()
    for id in model.merged_ids:
        if id in seen or id in special:
            continue
        seen.add(id)
        token = model.id_to_token(id)
        if token is None:
            continue
        if prefix and token.startswith(prefix):
            continue
        word = token
        if suffix:
            if not token.endswith(suffix):
                continue
            word = token[: len(token) - len(suffix)]
        if model.tokenize_run(word).ids != [id]:
            found.append(id)
    found.sort()
    return found


def collisions(tokenizer: Tokenizer, surfaces: list[TokenSurface | None]) -> list[list[int]]:
    """Groups of tokens with the same mark whose bodies normalize to the same text (the
    tokenizer's own normalizer; none: no groups). Bytes that are not UTF-8 are left out."""
    normalizer = tokenizer.normalizer
    if normalizer is None:
        return []
    groups: dict[str, list[int]] = {}
    for id in range(len(surfaces)):
        surface = surfaces[id]
        if surface is None or not surface.body or not surface.is_text:
            continue
        key = surface.marker + "\x00" + _normalized(normalizer, surface.body)
        found = groups.get(key)
        if found is None:
            found = []
            groups[key] = found
        found.append(id)
    result: list[list[int]] = []
    for group in groups.values():
        if len(group) > 1:
            result.append(group)
    result.sort()
    return result


def _normalized(normalizer: normalizers.Normalizer, text: str) -> str:
    return normalizer.normalize_str(text)


def longest_tokens(surfaces: list[TokenSurface | None], k: int) -> list[int]:
    """The `k` tokens with the longest surface text (characters), longest first, then by id."""
    ranked: list[tuple[int, int]] = []
    for id in range(len(surfaces)):
        surface = surfaces[id]
        if surface is not None:
            ranked.append((-len(surface.text), id))
    ranked.sort()
    return [id for _, id in ranked[:k]]
