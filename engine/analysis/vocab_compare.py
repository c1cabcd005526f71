"""Two vocabularies side by side, without model weights: the tokens both have, those only one has,
the same string under different ids (each token written in a form that makes byte-level, Metaspace
and WordPiece vocabularies comparable), and how alike the two cut the same texts (the share of
token boundaries they agree on).

Nothing here trains, reads files or draws; the texts come from the caller.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.analysis.audit import Unbounded
from engine.analysis.vocab_health import BATCH
from engine.analysis.vocabulary import TokenStyle, byte_fallback_value, token_bytes
from engine.models.wordpiece.model import WordPiece
from engine.tokenizer import Tokenizer


def comparable_form(token: str, style: TokenStyle, wordpiece: bool) -> str:
    """A token written so that vocabularies of different kinds compare: a word-start mark is a
    leading space, a continuation is bare text.

    byte-level "Ġhello" -> " hello" (bytes that are not whole UTF-8 as `\\xNN`); Metaspace
    "▁hello" -> " hello"; WordPiece "hello" -> " hello" (a whole WordPiece token starts a word)
    and "##ing" -> "ing"; `<0xNN>`, BPE's continuing prefix and end-of-word suffix, and any
    other token stay as written.
    """
    if byte_fallback_value(token) >= 0:
        return token
    if style.byte_level:
        return token_bytes(token, style).decode("utf-8", "backslashreplace")
    if wordpiece:
        if style.prefix and token.startswith(style.prefix) and len(token) > len(style.prefix):
            return token[len(style.prefix) :]
        return " " + token
    if style.metaspace:
        return token.replace(style.metaspace, " ")
    return token


def comparable_vocabulary(tokenizer: Tokenizer) -> dict[str, int]:
    """Each token's `comparable_form` -> its id (added tokens as written); where two tokens of
    one vocabulary share a form, the smaller id."""
    style = TokenStyle.of(tokenizer)
    wordpiece = isinstance(tokenizer.model, WordPiece)
    added = tokenizer.get_added_tokens_decoder()
    pairs: list[tuple[int, str]] = []
    for token, id in tokenizer.get_vocab(True).items():
        pairs.append((id, token))
    pairs.sort()
    forms: dict[str, int] = {}
    for id, token in pairs:
        form = token if id in added else comparable_form(token, style, wordpiece)
        if form not in forms:
            forms[form] = id
    return forms


class VocabularyComparison:
    """Two vocabularies side by side, by `comparable_form`, and how alike they cut the texts.

    `both`: (form, id in a, id in b), by a's id; `only_a`, `only_b`: (id, form), by id;
    `different_ids`: the entries of `both` whose ids differ. Boundaries are the character
    offsets (in the original texts) where a token ends, strictly inside a text (its end and
    start are every tokenizer's): `agreed` both have, `only_a_boundaries`/`only_b_boundaries`
    one has; `boundary_agreement` is |A ∩ B| / |A ∪ B| over all texts (1.0 when neither cuts
    anything), `boundary_f1` is 2|A ∩ B| / (|A| + |B|).
    """

    both: list[tuple[str, int, int]]
    only_a: list[tuple[int, str]]
    only_b: list[tuple[int, str]]
    different_ids: list[tuple[str, int, int]]
    agreed: int
    only_a_boundaries: int
    only_b_boundaries: int

    def __init__(self) -> None:
        self.both = []
        self.only_a = []
        self.only_b = []
        self.different_ids = []
        self.agreed = 0
        self.only_a_boundaries = 0
        self.only_b_boundaries = 0

    @property
    def boundary_agreement(self) -> float:
        union = self.agreed + self.only_a_boundaries + self.only_b_boundaries
        return self.agreed / union if union else 1.0

    @property
    def boundary_f1(self) -> float:
        total = 2 * self.agreed + self.only_a_boundaries + self.only_b_boundaries
        return 2 * self.agreed / total if total else 1.0

    def __repr__(self) -> str:
        return (
            f"VocabularyComparison(both {len(self.both)}, only a {len(self.only_a)}, only b {len(self.only_b)}, "
            f"different ids {len(self.different_ids)}, boundary agreement {self.boundary_agreement:.3f})"
        )


def compare_vocabularies(a: Tokenizer, b: Tokenizer, texts: Sequence[str]) -> VocabularyComparison:
    """Tokens in both vocabularies, in one only, the same form under different ids, and the
    share of token boundaries the two agree on over `texts` (see `VocabularyComparison`)."""
    comparison = VocabularyComparison()
    forms_a = comparable_vocabulary(a)
    forms_b = comparable_vocabulary(b)
    both: list[tuple[int, str, int]] = []
    for form, id_a in forms_a.items():
        id_b = forms_b.get(form)
        if id_b is None:
            comparison.only_a.append((id_a, form))
        else:
            both.append((id_a, form, id_b))
    for form, id_b in forms_b.items():
        if form not in forms_a:
            comparison.only_b.append((id_b, form))
    both.sort()
    comparison.only_a.sort()
    comparison.only_b.sort()
    for id_a, form, id_b in both:
        comparison.both.append((form, id_a, id_b))
        if id_a != id_b:
            comparison.different_ids.append((form, id_a, id_b))
    for start in range(0, len(texts), BATCH):
        chunk = list(texts[start : start + BATCH])
        with Unbounded(a):
            encodings_a = a.encode_batch(chunk, add_special_tokens=False)
        with Unbounded(b):
            encodings_b = b.encode_batch(chunk, add_special_tokens=False)
        for i in range(len(chunk)):
            ends_a = token_ends(encodings_a[i].offsets, len(chunk[i]))
            ends_b = token_ends(encodings_b[i].offsets, len(chunk[i]))
            shared = len(ends_a & ends_b)
            comparison.agreed += shared
            comparison.only_a_boundaries += len(ends_a) - shared
            comparison.only_b_boundaries += len(ends_b) - shared
    return comparison


def token_ends(offsets: list[tuple[int, int]], length: int) -> set[int]:
    """Where tokens end, strictly inside a text of `length` characters (empty tokens left out).

    [(0, 5), (5, 11)], 11 -> {5}; [(0, 2), (2, 8), (8, 12)], 12 -> {2, 8}
    """
    ends: set[int] = set()
    for start, end in offsets:
        if start < end and 0 < end < length:
            ends.add(end)
    return ends
