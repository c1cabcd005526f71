"""Added and special tokens: `AddedToken`, and the vocabulary that finds them in raw text.

The model never sees an added token: they are cut out of the input before normalization (or
after, for `normalized=True` tokens), exactly as HF's `AddedVocabulary` does.
"""

from __future__ import annotations

from engine.model import JsonValue


class AddedToken:
    """A token added on top of the model's vocabulary, with HF's matching options."""

    content: str
    single_word: bool
    lstrip: bool
    rstrip: bool
    normalized: bool
    special: bool

    def __init__(
        self,
        content: str,
        single_word: bool = False,
        lstrip: bool = False,
        rstrip: bool = False,
        normalized: bool | None = None,
        special: bool = False,
    ) -> None:
        self.content = content
        self.single_word = single_word
        self.lstrip = lstrip
        self.rstrip = rstrip
        # HF: a special token defaults to normalized=False, a plain added token to True.
        self.normalized = (not special) if normalized is None else normalized
        self.special = special

    def to_dict(self, id: int) -> dict[str, JsonValue]:
        return {
            "id": id,
            "content": self.content,
            "single_word": self.single_word,
            "lstrip": self.lstrip,
            "rstrip": self.rstrip,
            "normalized": self.normalized,
            "special": self.special,
        }

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
