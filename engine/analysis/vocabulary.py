"""A vocabulary described for people: each token's readable text, bytes, kind, merge rank and
corpus frequency, and the merge tree it was built by.

`readable("Ġhello", style)` -> `"·hello"`; `readable("<0x0A>", style)` -> `"↵"`. The window draws
these columns; nothing here knows about Qt, and nothing here changes a tokenizer.
"""

from __future__ import annotations

from typing import Final

import regex

from engine import byte_level, decoders, normalizers, pre_tokenizers
from engine.models.bpe.model import BPE
from engine.models.base import Model
from engine.tokenizer import Tokenizer
from engine.trainers.records import TrainHistory
from engine.models.wordpiece.model import WordPiece

# Glyphs that make whitespace visible: the Encode view and the vocabulary use the same ones.
SPACE_GLYPH: Final = "·"
TAB_GLYPH: Final = "→"
NEWLINE_GLYPH: Final = "↵"


def _visible_table() -> dict[int, str]:
    # Other control characters become their Unicode "control pictures" (U+2400 + code): "\x0c" -> "␌".
    table: dict[int, str] = {}
    for cp in range(0x20):
        table[cp] = chr(0x2400 + cp)
    table[0x7F] = "\u2421"
    table[0x20] = SPACE_GLYPH
    table[0x09] = TAB_GLYPH
    table[0x0A] = NEWLINE_GLYPH
    return table


VISIBLE: Final[dict[int, str]] = _visible_table()


def _escaped_table() -> dict[int, str]:
    # Without glyphs: spaces stay spaces, other control characters become escapes ("\n").
    table: dict[int, str] = {}
    for cp in range(0x20):
        table[cp] = f"\\x{cp:02x}"
    table[0x09] = "\\t"
    table[0x0A] = "\\n"
    table[0x0D] = "\\r"
    table[0x7F] = "\\x7f"
    return table


ESCAPED: Final[dict[int, str]] = _escaped_table()

# Characters that draw nothing (or only a space) yet are not a plain space: a token holding one
# shows its name in angle brackets, "\u200d" -> "⟨ZWJ⟩" (others as "⟨U+2061⟩").
INVISIBLE_NAMES: Final[dict[int, str]] = {
    0x00A0: "NBSP", 0x00AD: "SHY", 0x034F: "CGJ", 0x061C: "ALM", 0x115F: "HCF", 0x1160: "HJF",
    0x17B4: "KIV AQ", 0x17B5: "KIV AA", 0x180E: "MVS", 0x200B: "ZWSP", 0x200C: "ZWNJ", 0x200D: "ZWJ",
    0x200E: "LRM", 0x200F: "RLM", 0x2028: "LSEP", 0x2029: "PSEP", 0x202A: "LRE", 0x202B: "RLE",
    0x202C: "PDF", 0x202D: "LRO", 0x202E: "RLO", 0x202F: "NNBSP", 0x205F: "MMSP", 0x2060: "WJ",
    0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI", 0x2069: "PDI", 0x3000: "IDSP", 0x3164: "HF",
    0xFEFF: "BOM", 0xFFA0: "HWHF",
}
# Ranges (first, last) of such characters without a short name of their own.
INVISIBLE_RANGES: Final[list[tuple[int, int]]] = [
    (0x180B, 0x180D), (0x180F, 0x180F), (0x2000, 0x200A), (0x2061, 0x2064), (0x206A, 0x206F),
    (0xFFF0, 0xFFF8), (0xFFF9, 0xFFFB), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE007F),
]


def _named_table(base: dict[int, str]) -> dict[int, str]:
    # `base` plus every invisible character as its name: "\u200d" -> "⟨ZWJ⟩", "\ufe0f" -> "⟨VS16⟩".
    table = dict(base)
    for cp, name in INVISIBLE_NAMES.items():
        table[cp] = f"⟨{name}⟩"
    for first, last in INVISIBLE_RANGES:
        for cp in range(first, last + 1):
            table[cp] = f"⟨U+{cp:04X}⟩"
    for cp in range(0xFE00, 0xFE10):
        table[cp] = f"⟨VS{cp - 0xFE00 + 1}⟩"
    for cp in range(0xE0100, 0xE01F0):
        table[cp] = f"⟨VS{cp - 0xE0100 + 17}⟩"
    return table


VISIBLE_NAMED: Final[dict[int, str]] = _named_table(VISIBLE)
ESCAPED_NAMED: Final[dict[int, str]] = _named_table(ESCAPED)

HEX_DIGITS: Final = "0123456789abcdefABCDEF"

KIND_SPECIAL: Final = "special"
KIND_ADDED: Final = "added"
KIND_BYTE: Final = "byte"
KIND_NORMAL: Final = "normal"


class TokenStyle:
    """How a tokenizer marks things inside its tokens, read off its pipeline.

    `byte_level`: tokens are GPT-2 byte-map chars; `metaspace`: the char standing for a space
    ("▁"), or ""; `prefix`: the continuing-subword prefix ("##"), or ""; `suffix`: the
    end-of-word suffix ("</w>"), or "".
    """

    byte_level: bool
    metaspace: str
    prefix: str
    suffix: str

    def __init__(self, byte_level: bool = False, metaspace: str = "", prefix: str = "", suffix: str = "") -> None:
        self.byte_level = byte_level
        self.metaspace = metaspace
        self.prefix = prefix
        self.suffix = suffix

    @staticmethod
    def of(tokenizer: Tokenizer) -> TokenStyle:
        style = TokenStyle()
        for part in _parts(tokenizer):
            if isinstance(part, (pre_tokenizers.ByteLevel, decoders.ByteLevel, normalizers.ByteLevel)):
                style.byte_level = True
            elif isinstance(part, (pre_tokenizers.Metaspace, decoders.Metaspace)):
                style.metaspace = part.replacement
        model = tokenizer.model
        if isinstance(model, WordPiece):
            style.prefix = model.continuing_subword_prefix
        elif isinstance(model, BPE):
            style.prefix = model.continuing_subword_prefix or ""
            style.suffix = model.end_of_word_suffix or ""
        return style


def _parts(tokenizer: Tokenizer) -> list[object]:
    """The normalizer, pre-tokenizer and decoder, with Sequences flattened."""
    found: list[object] = []
    pending: list[object] = [tokenizer.normalizer, tokenizer.pre_tokenizer, tokenizer.decoder]
    while pending:
        part = pending.pop()
        if isinstance(part, normalizers.Sequence):
            pending.extend(part.normalizers)
        elif isinstance(part, pre_tokenizers.Sequence):
            pending.extend(part.pre_tokenizers)
        elif isinstance(part, decoders.Sequence):
            pending.extend(part.decoders)
        elif part is not None:
            found.append(part)
    return found


def byte_fallback_value(token: str) -> int:
    """The byte a `<0xNN>` token stands for, or -1: `"<0x0A>"` -> 10."""
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
        if token[3] in HEX_DIGITS and token[4] in HEX_DIGITS:
            return int(token[3:5], 16)
    return -1


def _byte_token(token: str, style: TokenStyle) -> bytes | None:
    """The bytes of a token that stands for bytes (`<0xNN>`, or a byte-level token), else None."""
    value = byte_fallback_value(token)
    if value >= 0:
        return bytes([value])
    return byte_level.to_bytes(token) if style.byte_level else None


def token_bytes(token: str, style: TokenStyle) -> bytes:
    """The bytes a token stands for: the byte of `<0xNN>`, the byte map reversed for a byte-level
    token, otherwise the UTF-8 of the token (markers included: they are part of the string)."""
    raw = _byte_token(token, style)
    return raw if raw is not None else token.encode("utf-8")


# One extended grapheme cluster: what a reader sees as one character.
GRAPHEME: Final = regex.compile(r"\X")


def visible_text(text: str, glyphs: bool = True, names: bool = False) -> str:
    """`text` with spaces, tabs, line breaks and other control chars as glyphs: `"a b\\n"` ->
    `"a·b↵"`; without `glyphs`, spaces stay and the others become escapes: `"a b\\\\n"`. With
    `names` (for a token or a piece of text on its own), characters that draw nothing are named
    too: `"\\u200d"` -> `"⟨ZWJ⟩"`, `"👩\\u200d"` -> `"👩⟨ZWJ⟩"`; one that joins the characters
    of a grapheme cluster stays, so the cluster is drawn whole (the family emoji 👩‍👩‍👧)."""
    table = VISIBLE if glyphs else ESCAPED
    plain = text.translate(table)
    if not names:
        return plain
    named_table = VISIBLE_NAMED if glyphs else ESCAPED_NAMED
    named = text.translate(named_table)
    if named == plain:
        return plain
    # subtle: only a cluster's inner characters join it; at its ends they join nothing
    parts: list[str] = []
    for found in GRAPHEME.finditer(text):
        cluster: str = found.group()
        if len(cluster) > 2:
            parts.append(cluster[0].translate(named_table) + cluster[1:-1].translate(table) + cluster[-1].translate(named_table))
        else:
            parts.append(cluster.translate(named_table))
    return "".join(parts)


def readable(token: str, style: TokenStyle, glyphs: bool = True) -> str:
    """The token as a person reads it: the byte map and byte tokens decoded (bytes that are not
    whole UTF-8 characters as `\\xNN`), an end-of-word suffix as a space, whitespace as glyphs
    (or, without `glyphs`, as spaces and escapes) and characters that draw nothing by name
    ("⟨ZWJ⟩"). A continuing prefix stays as it is written ("##ing"): it is the token's name in
    every file and library that has it."""
    raw = _byte_token(token, style)
    if raw is not None:
        return _bytes_text(raw, glyphs)
    text = token
    space = SPACE_GLYPH if glyphs else " "
    if style.suffix and text.endswith(style.suffix) and len(text) > len(style.suffix):
        text = text[: len(text) - len(style.suffix)] + space
    if style.metaspace:
        text = text.replace(style.metaspace, space)
    return visible_text(text, glyphs, True)


def _bytes_text(raw: bytes, glyphs: bool) -> str:
    """UTF-8 bytes as text, each byte of an incomplete or invalid sequence as `\\xNN`."""
    return visible_text(raw.decode("utf-8", "backslashreplace"), glyphs, True)


class VocabularyTable:
    """One list per column, one row per token in id order: fast to sort and filter at 250,000 rows.

    `merge_ranks[i]` is -1 for a token no merge made; `frequencies[i]` is -1 when unknown.
    """

    ids: list[int]
    tokens: list[str]
    shown: list[str]
    char_lengths: list[int]
    byte_lengths: list[int]
    kinds: list[str]
    merge_ranks: list[int]
    frequencies: list[int]

    def __init__(self) -> None:
        self.ids = []
        self.tokens = []
        self.shown = []
        self.char_lengths = []
        self.byte_lengths = []
        self.kinds = []
        self.merge_ranks = []
        self.frequencies = []

    def __len__(self) -> int:
        return len(self.ids)

    @staticmethod
    def of(tokenizer: Tokenizer, frequencies: list[int] | None = None, glyphs: bool = True) -> VocabularyTable:
        """The table of `tokenizer`'s whole vocabulary (added tokens included).

        `frequencies[id]` (from `token_frequencies`) fills the frequency column when given;
        `glyphs` chooses how whitespace is shown (see `readable`).
        """
        style = TokenStyle.of(tokenizer)
        added = tokenizer.get_added_tokens_decoder()
        ranks = merge_ranks(tokenizer.model)
        vocab = tokenizer.get_vocab(True)
        by_id = sorted([(id, token) for token, id in vocab.items()])
        table = VocabularyTable()
        for id, token in by_id:
            table.ids.append(id)
            table.tokens.append(token)
            table.shown.append(token if id in added else readable(token, style, glyphs))
            raw = token.encode("utf-8") if id in added else token_bytes(token, style)
            table.char_lengths.append(len(token) if id in added else _char_length(raw))
            table.byte_lengths.append(len(raw))
            found = added.get(id)
            if found is not None:
                table.kinds.append(KIND_SPECIAL if found.special else KIND_ADDED)
            elif byte_fallback_value(token) >= 0 or (style.byte_level and len(token) == 1):
                table.kinds.append(KIND_BYTE)
            else:
                table.kinds.append(KIND_NORMAL)
            table.merge_ranks.append(ranks.get(id, -1))
            if frequencies is not None and id < len(frequencies):
                table.frequencies.append(frequencies[id])
            else:
                table.frequencies.append(-1)
        return table


def _char_length(raw: bytes) -> int:
    """Characters the bytes stand for (an incomplete sequence counts as one per byte)."""
    return len(raw.decode("utf-8", "replace"))


def merge_ranks(model: Model) -> dict[int, int]:
    """id -> rank of the merge that made the token (BPE only; empty for other models)."""
    if not isinstance(model, BPE):
        return {}
    ranks: dict[int, int] = {}
    merged = model.merged_ids
    for rank in range(len(merged)):
        ranks[merged[rank]] = rank
    return ranks


class MergeNode:
    """How a token was built: `token` = `left` + `right` by merge `rank` (seen `count` times when
    the training history is known, else -1); a token no merge made has no children."""

    token: str
    rank: int
    count: int
    left: MergeNode | None
    right: MergeNode | None

    def __init__(self, token: str, rank: int = -1, count: int = -1) -> None:
        self.token = token
        self.rank = rank
        self.count = count
        self.left = None
        self.right = None

    def depth(self) -> int:
        below = 0
        if self.left is not None:
            below = self.left.depth()
        if self.right is not None:
            below = max(below, self.right.depth())
        return below + 1 if self.left is not None else 0


def merge_tree(model: Model, token: str, history: TrainHistory | None = None) -> MergeNode:
    """The merge tree of `token` under a BPE model: `"low"` -> low = (lo = l + o) + w.

    The counts come from `history` (the last merge that made each token); a model that is not
    BPE, or a token no merge made, gives a leaf.
    """
    return tree_of(token, merges_made(model), merge_counts(history))


def merges_made(model: Model) -> dict[str, tuple[int, str, str]]:
    """How each token a BPE model merged was made: token -> (rank, left, right) ({} for other
    models). {"lo": (0, "l", "o"), "low": (1, "lo", "w")}"""
    made: dict[str, tuple[int, str, str]] = {}
    if isinstance(model, BPE):
        merges = model.merges
        merged = model.merged_ids
        for rank in range(len(merges)):
            token_made = model.id_to_token(merged[rank])
            if token_made is not None:
                made[token_made] = (rank, merges[rank][0], merges[rank][1])
    return made


def merge_counts(history: TrainHistory | None) -> dict[str, int]:
    """How often the pair that made each token occurred when it was merged (the last merge that
    made it), from a training's history ({} without one)."""
    counts: dict[str, int] = {}
    if history is not None:
        for step in history.merges:
            counts[step.new_token] = step.count
    return counts


def tree_of(token: str, made: dict[str, tuple[int, str, str]], counts: dict[str, int]) -> MergeNode:
    """The merge tree of `token` from `merges_made` and `merge_counts` (see `merge_tree`)."""
    return _node(token, made, counts, 0)


def _node(token: str, made: dict[str, tuple[int, str, str]], counts: dict[str, int], depth: int) -> MergeNode:
    found = made.get(token)
    if found is None or depth > 256:
        return MergeNode(token)
    rank, left, right = found
    node = MergeNode(token, rank, counts.get(token, -1))
    node.left = _node(left, made, counts, depth + 1)
    node.right = _node(right, made, counts, depth + 1)
    return node


def token_frequencies(tokenizer: Tokenizer, word_counts: dict[str, int]) -> list[int]:
    """How often each token id occurs when the training words are tokenized: `result[id]`.

    The words are already normalized and pre-tokenized (as `Tokenizer.count_words` gives
    them), so only the model runs; a word that is an added token counts for that token.
    """
    model = tokenizer.model
    size = 0
    for id in tokenizer.get_vocab(True).values():
        if id >= size:
            size = id + 1
    frequencies = [0] * size
    added = _added_ids(tokenizer)
    for word, count in word_counts.items():
        found = added.get(word)
        if found is not None:
            frequencies[found] += count
            continue
        for id in model.tokenize_run(word).ids:
            if id < size:
                frequencies[id] += count
    return frequencies


def token_examples(
    tokenizer: Tokenizer, word_counts: dict[str, int], per_token: int = 6, max_words: int = 200_000
) -> dict[int, list[tuple[str, int]]]:
    """For each token id, the most frequent training words whose tokens include it, as people
    read them: `{id("ing"): [("·going", 120), ("·thing", 80)]}`. Looks at the `max_words` most
    frequent words only."""
    style = TokenStyle.of(tokenizer)
    word_style = TokenStyle(style.byte_level, style.metaspace)
    model = tokenizer.model
    added = _added_ids(tokenizer)
    ranked = [(-count, word) for word, count in word_counts.items()]
    ranked.sort()
    examples: dict[int, list[tuple[str, int]]] = {}
    for neg_count, word in ranked[:max_words]:
        found_added = added.get(word)
        ids = [found_added] if found_added is not None else list(model.tokenize_run(word).ids)
        shown = ""
        for i in range(len(ids)):
            id = ids[i]
            if id in ids[:i]:
                continue  # a word holding a token twice is one example of it
            found = examples.get(id)
            if found is None:
                found = []
                examples[id] = found
            if len(found) < per_token:
                if not shown:
                    shown = readable(word, word_style)
                found.append((shown, -neg_count))
    return examples


def _added_ids(tokenizer: Tokenizer) -> dict[str, int]:
    result: dict[str, int] = {}
    for id, token in tokenizer.get_added_tokens_decoder().items():
        result[token.content] = id
    return result
