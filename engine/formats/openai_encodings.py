"""OpenAI's four published rank files (r50k_base, p50k_base, cl100k_base, o200k_base), known by
the SHA-256 of the file: the split pattern and special tokens each one is used with in tiktoken.

A `.tiktoken` file holds only the ranks; `tiktoken.load` recognizes these files by their hash so
that they encode exactly as tiktoken's encodings of the same name. Data only: no reading here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# The facts below (hashes, patterns, special tokens, vocabulary sizes) are copied as data from
# tiktoken 0.14.0's `tiktoken_ext/openai_public.py` (github.com/openai/tiktoken, MIT licence).
ENDOFTEXT: Final = "<|endoftext|>"
FIM_PREFIX: Final = "<|fim_prefix|>"
FIM_MIDDLE: Final = "<|fim_middle|>"
FIM_SUFFIX: Final = "<|fim_suffix|>"
ENDOFPROMPT: Final = "<|endofprompt|>"

# GPT-2's pattern as tiktoken spells it (possessive quantifiers; it splits as GPT2_PATTERN does).
R50K_PATTERN: Final = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K_PATTERN: Final = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
O200K_PATTERN: Final = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


@dataclass(frozen=True)
class OpenAIEncoding:
    """One of OpenAI's encodings: `tiktoken.Encoding`'s arguments except the ranks, and the
    SHA-256 (hex) of the rank file that holds them. `special_tokens` is shared: copy it to change it."""

    name: str
    sha256: str
    pat_str: str
    special_tokens: dict[str, int]
    explicit_n_vocab: int | None


# subtle: p50k_edit and o200k_harmony read the same rank files as p50k_base and o200k_base with
# other special tokens; a file alone cannot tell them apart, so it is taken as the base encoding.
ENCODINGS: Final[list[OpenAIEncoding]] = [
    OpenAIEncoding(
        "r50k_base",
        "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
        R50K_PATTERN,
        {ENDOFTEXT: 50256},
        50257,
    ),
    OpenAIEncoding(
        "p50k_base",
        "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
        R50K_PATTERN,
        {ENDOFTEXT: 50256},
        50281,
    ),
    OpenAIEncoding(
        "cl100k_base",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        CL100K_PATTERN,
        {ENDOFTEXT: 100257, FIM_PREFIX: 100258, FIM_MIDDLE: 100259, FIM_SUFFIX: 100260, ENDOFPROMPT: 100276},
        None,
    ),
    OpenAIEncoding(
        "o200k_base",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        O200K_PATTERN,
        {ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
        None,
    ),
]


def by_sha256(encodings: list[OpenAIEncoding]) -> dict[str, OpenAIEncoding]:
    """The encodings keyed by their rank file's hash (`KNOWN_RANK_FILES` is this of `ENCODINGS`)."""
    found: dict[str, OpenAIEncoding] = {}
    for encoding in encodings:
        found[encoding.sha256] = encoding
    return found


# What `tiktoken.load` recognizes a rank file by: {SHA-256 of the file: its encoding}.
KNOWN_RANK_FILES: Final[dict[str, OpenAIEncoding]] = by_sha256(ENCODINGS)
