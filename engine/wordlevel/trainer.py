"""WordLevel training: `WordLevelTrainer` keeps the most frequent words, as HF's does.

Ties go to the smaller word (code-point order), so the result never depends on counting order.
Counting the words is `engine.corpus`'s job; looking words up is `engine.wordlevel.model`'s.
"""

from __future__ import annotations

from typing import Final

from engine.added_vocabulary import AddedToken
from engine.errors import TrainerMismatchError
from engine.model import JsonValue, Model
from engine.progress import ProgressSink
from engine.trainer import Trainer
from engine.trainer_options import (
    TrainerFields,
    as_special_tokens,
    non_negative,
    report,
    special_tokens_to_json,
)
from engine.wordlevel.model import WordLevel

STAGE_SORT_WORDS: Final = "Sort words"


class WordLevelTrainer(Trainer):
    """Trainer capable of training a WordLevel model (HF `tokenizers.trainers.WordLevelTrainer`)."""

    vocab_size: int
    min_frequency: int
    show_progress: bool
    special_tokens: list[AddedToken]

    def __init__(
        self,
        vocab_size: int = 30000,
        min_frequency: int = 0,
        show_progress: bool = True,
        special_tokens: list[str | AddedToken] | None = None,
    ) -> None:
        self.vocab_size = non_negative("vocab_size", vocab_size)
        self.min_frequency = non_negative("min_frequency", min_frequency)
        self.show_progress = show_progress
        self.special_tokens = as_special_tokens(special_tokens if special_tokens is not None else [])

    def build_vocab(self, word_counts: dict[str, int]) -> dict[str, int]:
        """Special tokens, then words by count descending (ties: smaller word first) with at least
        `min_frequency` occurrences; `vocab_size` entries in all, ids in that order.

        subtle: HF collects (token, id) pairs into a map, so a word equal to a special token keeps
        its later id and the earlier id is left unused; the same happens here.
        """
        ranked = [(-count, word) for word, count in word_counts.items() if count >= self.min_frequency]
        ranked.sort()
        vocab: dict[str, int] = {}
        next_id = 0
        for token in self.special_tokens:
            if next_id >= self.vocab_size:
                return vocab
            vocab[token.content] = next_id
            next_id += 1
        for _, word in ranked:
            if next_id >= self.vocab_size:
                break
            vocab[word] = next_id
            next_id += 1
        return vocab

    def train(self, word_counts: dict[str, int], model: Model, sink: ProgressSink) -> list[AddedToken]:
        if not isinstance(model, WordLevel):
            raise TrainerMismatchError(
                f"WordLevelTrainer can only train a WordLevel model, not {type(model).__name__}"
            )
        total = len(word_counts)
        report(sink, STAGE_SORT_WORDS, 0, total, "words")
        vocab = self.build_vocab(word_counts)
        report(sink, STAGE_SORT_WORDS, total, total, "words")
        model.set_vocab(vocab)
        return list(self.special_tokens)

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "type": "WordLevelTrainer",
            "vocab_size": self.vocab_size,
            "min_frequency": self.min_frequency,
            "show_progress": self.show_progress,
            "special_tokens": special_tokens_to_json(self.special_tokens),
        }

    @staticmethod
    def from_dict(data: object) -> WordLevelTrainer:
        fields = TrainerFields(data, "WordLevelTrainer")
        return WordLevelTrainer(
            vocab_size=fields.integer("vocab_size", 30000),
            min_frequency=fields.integer("min_frequency", 0),
            show_progress=fields.boolean("show_progress", True),
            special_tokens=fields.special_tokens(),
        )

    def __repr__(self) -> str:
        specials = [token.content for token in self.special_tokens]
        return f"WordLevelTrainer(vocab_size={self.vocab_size}, min_frequency={self.min_frequency}, special_tokens={specials!r})"
