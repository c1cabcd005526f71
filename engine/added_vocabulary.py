"""Added and special tokens: `AddedToken`, and the vocabulary that finds them in raw text.

The model never sees an added token: they are cut out of the input before normalization (or
after, for `normalized=True` tokens), exactly as HF's `AddedVocabulary` does.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Final

import regex

from engine.schema import JsonValue, expect_object, get_bool, get_str
from engine.models.base import NO_ID, Model, Token
from engine.normalizers import Normalizer
from engine.pre_tokenizers.pretokenized import PreTokenizedString, SplitPiece


class AddedToken:
    """A token added on top of the model's vocabulary, with HF's matching options."""

    content: str
    single_word: bool
    lstrip: bool
    rstrip: bool
    special: bool
    # None = not given: follows `special` (HF's PyAddedToken resolves it when the token is used)
    _normalized: bool | None

    def __init__(
        self,
        content: str,
        single_word: bool = False,
        lstrip: bool = False,
        rstrip: bool = False,
        normalized: bool | None = None,
        special: bool = False,
    ) -> None:
        if not content.isascii():
            # a lone surrogate raises UnicodeEncodeError, as HF's AddedToken does: no file could hold it
            content.encode("utf-8")
        self.content = content
        self.single_word = single_word
        self.lstrip = lstrip
        self.rstrip = rstrip
        self._normalized = normalized
        self.special = special

    @property
    def normalized(self) -> bool:
        """Whether the token matches the normalized text; by default only non-special tokens do."""
        return (not self.special) if self._normalized is None else self._normalized

    @normalized.setter
    def normalized(self, value: bool) -> None:
        self._normalized = value

    def as_special(self) -> AddedToken:
        """A copy marked special; a `normalized` left unset follows, as HF's does."""
        return AddedToken(self.content, self.single_word, self.lstrip, self.rstrip, self._normalized, True)

    def to_dict(self, id: int | None = None) -> dict[str, JsonValue]:
        """HF's JSON object for the token: with its `id` as in tokenizer.json's "added_tokens",
        without it as in a trainer's special tokens. `normalized` is always written resolved."""
        data: dict[str, JsonValue] = {} if id is None else {"id": id}
        data["content"] = self.content
        data["single_word"] = self.single_word
        data["lstrip"] = self.lstrip
        data["rstrip"] = self.rstrip
        data["normalized"] = self.normalized
        data["special"] = self.special
        return data

    @staticmethod
    def from_dict(data: object) -> AddedToken:
        """The token of a `to_dict()` object (an "id" field is ignored: the caller reads it).

        HF writes every field; a file that leaves one out gets the constructor's default: False,
        and for `normalized`, "not special" (`{"content": "<s>", "special": true}` is not normalized).
        """
        obj = expect_object(data, "added token")
        content = get_str(obj, "content", "added token")
        where = f"added token {content!r}"
        return AddedToken(
            content,
            single_word=get_bool(obj, "single_word", where, False),
            lstrip=get_bool(obj, "lstrip", where, False),
            rstrip=get_bool(obj, "rstrip", where, False),
            normalized=get_bool(obj, "normalized", where) if "normalized" in obj else None,
            special=get_bool(obj, "special", where, False),
        )

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickling and deep copies rebuild the token from its fields (a compiled native class
        whose constructor takes arguments has no default way to)."""
        return (AddedToken, (self.content, self.single_word, self.lstrip, self.rstrip, self._normalized, self.special))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return self.content == other
        if not isinstance(other, AddedToken):
            return NotImplemented
        return self.content == other.content

    def __hash__(self) -> int:
        return hash(self.content)

    def __str__(self) -> str:
        return self.content

    def __repr__(self) -> str:
        return (
            f'AddedToken("{self.content}", rstrip={self.rstrip}, lstrip={self.lstrip}, '
            f"single_word={self.single_word}, normalized={self.normalized}, special={self.special})"
        )


def as_added_tokens(tokens: Sequence[object], special: bool) -> list[AddedToken]:
    """HF's conversion of `add_tokens` / `add_special_tokens` / trainer `special_tokens` arguments.

    A str becomes `AddedToken(s, special=special)`; an AddedToken given as special is marked
    special (HF flips the flag on the caller's object; we copy instead).
    """
    result: list[AddedToken] = []
    for token in tokens:
        if isinstance(token, str):
            result.append(AddedToken(token, special=special))
        elif isinstance(token, AddedToken):
            result.append(token.as_special() if special and not token.special else token)
        else:
            raise TypeError("Input must be a List[Union[str, AddedToken]]")
    return result


class TokenFinder(ABC):
    """Finds added tokens in a text leftmost-longest, like HF's Aho-Corasick automaton: at the
    leftmost position where a token starts, the longest one; then on after it.

    ["a", "ab"] in "xaby" -> [(1, 3)].
    """

    @abstractmethod
    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of every token found, in order."""

    @abstractmethod
    def occurs_in(self, text: str) -> bool:
        """Whether a token occurs anywhere in `text`."""


def token_finder(contents: list[str]) -> TokenFinder | None:
    """The finder for `contents`: one regex for up to REGEX_MAX_TOKENS of them (fast to run),
    a lookup by first char for more (a regex of 200,000 tokens took 32 s to compile)."""
    if not contents:
        return None
    if len(contents) <= REGEX_MAX_TOKENS:
        return AlternationFinder(contents)
    return PrefixFinder(contents)


class AlternationFinder(TokenFinder):
    """One regex alternation of the tokens, longest first: ["a", "ab"] -> r"ab|a"."""

    pattern: regex.Pattern[str]

    def __init__(self, contents: list[str]) -> None:
        # subtle: regex alternation tries branches in order, so longer contents must come first;
        # equal lengths are sorted to keep the pattern deterministic.
        ordered = sorted(contents, key=_length_then_text, reverse=True)
        self.pattern = regex.compile("|".join(regex.escape(c) for c in ordered))

    def spans(self, text: str) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for match in self.pattern.finditer(text):
            out.append(match.span())
        return out

    def occurs_in(self, text: str) -> bool:
        return self.pattern.search(text) is not None


class PrefixFinder(TokenFinder):
    """The tokens in a set, found from where one can start: a class of their first chars jumps
    to the candidates (in C), where the lengths of the tokens starting with that char are tried,
    longest first. Built in linear time; slower to run than a regex on text full of candidates.
    """

    known: set[str]
    # first char -> the distinct lengths of the tokens starting with it, longest first
    lengths: dict[str, list[int]]
    starts: re.Pattern[str]

    def __init__(self, contents: list[str]) -> None:
        known: set[str] = set()
        by_first: dict[str, set[int]] = {}
        for content in contents:
            if not content:
                continue
            known.add(content)
            first = content[0]
            found = by_first.get(first)
            if found is None:
                found = set()
                by_first[first] = found
            found.add(len(content))
        lengths: dict[str, list[int]] = {}
        escaped: list[str] = []
        for first in sorted(by_first):
            lengths[first] = sorted(by_first[first], reverse=True)
            escaped.append(re.escape(first))
        self.known = known
        self.lengths = lengths
        self.starts = re.compile("[" + "".join(escaped) + "]")

    def spans(self, text: str) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        n = len(text)
        pos = 0
        while pos < n:
            candidate = self.starts.search(text, pos)
            if candidate is None:
                break
            start = candidate.start()
            end = start
            for length in self.lengths[text[start]]:
                if start + length <= n and text[start : start + length] in self.known:
                    end = start + length
                    break
            if end > start:
                out.append((start, end))
                pos = end
            else:
                pos = start + 1
        return out

    def occurs_in(self, text: str) -> bool:
        n = len(text)
        pos = 0
        while pos < n:
            candidate = self.starts.search(text, pos)
            if candidate is None:
                return False
            start = candidate.start()
            for length in self.lengths[text[start]]:
                if start + length <= n and text[start : start + length] in self.known:
                    return True
            pos = start + 1
        return False


def _length_then_text(content: str) -> tuple[int, str]:
    return (len(content), content)


# subtle: these are used with pos/endpos arguments; `^` would never match at a `pos` > 0, so the
# "starts with" patterns are unanchored and used with .match(text, pos); `$` does match at endpos.
_STARTS_WITH_WORD: Final = regex.compile(r"\w")
_ENDS_WITH_WORD: Final = regex.compile(r"\w$")
_LEADING_SPACES: Final = regex.compile(r"\s*")
_TRAILING_SPACES: Final = regex.compile(r"\s*$")
# Up to this many added tokens, `may_match` looks for each with `in` (C speed); above, one scan.
MAY_MATCH_SCANS: Final = 12
# Up to this many, the tokens are found with one regex (compiled in about 0.1 s); above, by prefix.
REGEX_MAX_TOKENS: Final = 1000


class AddedVocabulary:
    """The tokens added on top of a model, and how to cut them out of raw text before the model.

    Ids: an added token already in the model keeps the model's id; a new one gets the next id
    after the model vocabulary (or after the largest added id). Matching is leftmost-longest,
    first on the raw text for `normalized=False` tokens, then on the normalized remainder.
    """

    added_tokens_map: dict[str, int]
    added_tokens_map_r: dict[int, AddedToken]
    special_tokens_set: set[str]
    normalized_cache: dict[int, str]
    encode_special_tokens: bool
    _raw_pattern: TokenFinder | None
    _raw_ids: dict[str, int]
    _normalized_pattern: TokenFinder | None
    _normalized_ids: dict[str, int]
    # the raw and the normalized tokens' contents (`may_match` looks for each when few)
    _raw_contents: list[str]
    _normalized_contents: list[str]

    def __init__(self) -> None:
        self.added_tokens_map = {}
        self.added_tokens_map_r = {}
        self.special_tokens_set = set()
        self.normalized_cache = {}
        self.encode_special_tokens = False
        self._raw_pattern = None
        self._raw_ids = {}
        self._normalized_pattern = None
        self._normalized_ids = {}
        self._raw_contents = []
        self._normalized_contents = []

    def __len__(self) -> int:
        return len(self.added_tokens_map)

    def is_empty(self) -> bool:
        return not self.added_tokens_map

    def get_vocab(self) -> dict[str, int]:
        return dict(self.added_tokens_map)

    def get_added_tokens_decoder(self) -> dict[int, AddedToken]:
        return dict(self.added_tokens_map_r)

    def token_to_id(self, token: str, model: Model) -> int | None:
        found = self.added_tokens_map.get(token)
        if found is not None:
            return found
        return model.token_to_id(token)

    def simple_id_to_token(self, id: int) -> str | None:
        """The string the decoder sees for an added id: its normalized form when it has one."""
        token = self.added_tokens_map_r.get(id)
        if token is None:
            return None
        cached = self.normalized_cache.get(id)
        return cached if cached is not None else token.content

    def is_special_token(self, token: str) -> bool:
        return token in self.special_tokens_set

    def add_tokens(
        self, tokens: list[AddedToken], model: Model, normalizer: Normalizer | None
    ) -> int:
        """Add tokens, returning how many were new or changed (HF's count)."""
        ignored = 0
        next_id = self._next_id(model)
        for token in tokens:
            if not token.content:
                ignored += 1
                continue
            existing = self.added_tokens_map.get(token.content)
            if existing is not None and _same_options(self.added_tokens_map_r.get(existing), token):
                ignored += 1
                continue
            new_id = self.token_to_id(token.content, model)
            if new_id is None:
                new_id = next_id
                next_id += 1
            if token.normalized and normalizer is not None:
                normed = normalizer.normalize_str(token.content)
                if normed != token.content:
                    self.normalized_cache[new_id] = normed
            self.added_tokens_map[token.content] = new_id
            if token.special:
                self.special_tokens_set.add(token.content)
            self.added_tokens_map_r[new_id] = token
        self._refresh_patterns()
        return len(tokens) - ignored

    def refresh_normalized_tokens(self, normalizer: Normalizer | None) -> None:
        """Re-normalize `normalized=True` tokens after the tokenizer's normalizer changed."""
        self.normalized_cache = {}
        if normalizer is not None:
            for id, token in self.added_tokens_map_r.items():
                if token.normalized:
                    normed = normalizer.normalize_str(token.content)
                    if normed != token.content:
                        self.normalized_cache[id] = normed
        self._refresh_patterns()

    def _next_id(self, model: Model) -> int:
        model_size = model.get_vocab_size()
        if not self.added_tokens_map_r:
            return model_size
        largest = max(self.added_tokens_map_r)
        if largest >= model_size or model_size == 0:
            return largest + 1
        return model_size

    def _refresh_patterns(self) -> None:
        raw: dict[str, int] = {}
        normalized: dict[str, int] = {}
        # subtle: iterate in id order so that two tokens with the same pattern resolve the same
        # way on every run (HF leaves this to hash order).
        for id in sorted(self.added_tokens_map_r):
            token = self.added_tokens_map_r[id]
            if token.normalized:
                cached = self.normalized_cache.get(id)
                normalized[cached if cached is not None else token.content] = id
            else:
                raw[token.content] = id
        self._raw_ids = raw
        self._raw_pattern = token_finder(list(raw))
        self._normalized_ids = normalized
        self._normalized_pattern = token_finder(list(normalized))
        self._raw_contents = list(raw)
        self._normalized_contents = list(normalized)

    def may_match(self, text: str, normalized: bool) -> bool:
        """Whether an added token (of the raw ones, or of the normalized ones) occurs in `text`;
        when not, `find_matches` gives it back whole. The encode fast path's check."""
        contents = self._normalized_contents if normalized else self._raw_contents
        if len(contents) > MAY_MATCH_SCANS:
            pattern = self._normalized_pattern if normalized else self._raw_pattern
            return pattern is not None and pattern.occurs_in(text)
        for content in contents:
            if content in text:
                return True
        return False

    def find_matches(self, sentence: str, normalized: bool) -> list[tuple[int, int, int]]:
        """Cut `sentence` into (id or NO_ID, start, end) spans covering all of it.

        "a [MASK] b" with [MASK]=4 and lstrip -> [(-1, 0, 1), (4, 1, 8), (-1, 8, 10)]
        """
        if not sentence:
            return [(NO_ID, 0, 0)]
        pattern = self._normalized_pattern if normalized else self._raw_pattern
        if pattern is None:
            return [(NO_ID, 0, len(sentence))]
        ids = self._normalized_ids if normalized else self._raw_ids
        splits: list[tuple[int, int, int]] = []
        start_offset = 0
        for start, stop in pattern.spans(sentence):
            id = ids[sentence[start:stop]]
            token = self.added_tokens_map_r[id]
            if self.encode_special_tokens and token.content in self.special_tokens_set:
                continue
            if token.single_word:
                start_space = start == 0 or _ENDS_WITH_WORD.search(sentence, 0, start) is None
                stop_space = (
                    stop == len(sentence)
                    or _STARTS_WITH_WORD.match(sentence, stop) is None
                )
                if not (start_space and stop_space):
                    continue
            if token.lstrip:
                trailing = _TRAILING_SPACES.search(sentence, 0, start)
                new_start = trailing.start() if trailing is not None else start
                start = max(new_start, start_offset)
            if token.rstrip:
                leading = _LEADING_SPACES.match(sentence, stop)
                if leading is not None:
                    stop = leading.end()
            if start_offset < start:
                splits.append((NO_ID, start_offset, start))
            splits.append((id, start, stop))
            start_offset = stop
        if start_offset != len(sentence):
            splits.append((NO_ID, start_offset, len(sentence)))
        return splits

    def extract_and_normalize(
        self, normalizer: Normalizer | None, sequence: str
    ) -> PreTokenizedString:
        """Cut added tokens out of `sequence` and normalize what is left, as HF does.

        1. `normalized=False` tokens are found in the raw text; 2. every other piece is
        normalized, then `normalized=True` tokens are found in it. Found tokens become splits
        that already carry their one token, so no later stage touches them.
        """
        pretokenized = PreTokenizedString(sequence)
        self._split_out(pretokenized, None, False)
        self._split_out(pretokenized, normalizer, True)
        return pretokenized

    def _split_out(
        self, pretokenized: PreTokenizedString, normalizer: Normalizer | None, normalized: bool
    ) -> None:
        new_splits: list[SplitPiece] = []
        for split in pretokenized.splits:
            if split.tokens is not None:
                new_splits.append(split)
                continue
            piece = split.normalized
            if normalizer is not None:
                normalizer.normalize(piece)
            for id, start, end in self.find_matches(piece.get(), normalized):
                sliced = piece.slice_normalized(start, end)
                if sliced is None or sliced.is_empty():
                    continue
                if id == NO_ID:
                    new_splits.append(SplitPiece(sliced, None))
                else:
                    value = sliced.get()
                    new_splits.append(SplitPiece(sliced, [Token(id, value, 0, len(value))]))
        pretokenized.splits = new_splits


def _same_options(known: AddedToken | None, token: AddedToken) -> bool:
    return (
        known is not None
        and known.content == token.content
        and known.single_word == token.single_word
        and known.lstrip == token.lstrip
        and known.rstrip == token.rstrip
        and known.normalized == token.normalized
        and known.special == token.special
    )
