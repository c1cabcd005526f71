"""`SentencePieceTrainer`: training as `sentencepiece`'s `spm_train` does, with its option names
and defaults, for a Unigram (its default) or a BPE model.

The words it gets are what the tokenizer's pipeline counted: for the SentencePiece presets, the
normalized lines cut at each "▁" (sentencepiece's SplitSentencesByWhitespace); with the
Metaspace pre-tokenizer's `split` off, whole normalized lines, which this trainer cuts itself
when `split_by_whitespace` is on. Before training it keeps the characters that cover
`character_coverage` of the text (`piece_rules.covered_chars`; the others are cut out of the
words, as sentencepiece turns them into ▅ that no piece may hold) and lets only the pieces
sentencepiece allows be made (`piece_rules.PieceRules`): Unigram seeds only those, BPE merges
only into those. `byte_fallback` puts the 256 `<0xXX>` pieces right after the special tokens,
as sentencepiece does.

The runs are the engine's Unigram and BPE runs (`engine.models.unigram.training_run`,
`engine.models.bpe.training_run`). What still differs from sentencepiece (its seeds come from
whole sentences, its BPE breaks ties by piece length and text) is measured by
`benchmarks/bench_sentencepiece_presets.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.added_vocabulary import AddedToken
from engine.errors import TrainerMismatchError, VocabularyTooSmallError
from engine.models.base import Model
from engine.models.bpe.model import BPE
from engine.models.bpe.training_run import BpeTrainingRun
from engine.models.unigram.lattice import float32
from engine.models.unigram.model import Unigram
from engine.models.unigram.seeds import char_counts
from engine.models.unigram.training_run import UnigramTrainingRun
from engine.pre_tokenizers import PreTokenizer, words_of
from engine.schema import JsonValue
from engine.trainers.base import (
    AlphabetNeed,
    Trainer,
    TrainingRun,
    model_mismatch,
    non_negative,
    run_mismatch,
    share_argument,
    special_tokens_argument,
)
from engine.trainers.options import COUNT, FLAG, NUMBER, SPECIAL_TOKENS, TEXT, Option, TrainerOptions
from engine.trainers.piece_rules import (
    DEFAULT_CHARACTER_COVERAGE,
    DEFAULT_MAX_SENTENCEPIECE_LENGTH,
    WS_CHAR,
    PieceRules,
    covered_chars,
    kept_parts,
    kept_table,
    split_words,
)

__all__ = ["MODEL_TYPES", "SentencePieceTrainer", "byte_pieces"]

# sentencepiece's defaults (`trainer_spec.proto`).
MODEL_TYPES: Final = ("unigram", "bpe")
DEFAULT_SP_VOCAB_SIZE: Final = 8000
DEFAULT_SEED_SENTENCEPIECE_SIZE: Final = 1_000_000
DEFAULT_SP_SHRINKING_FACTOR: Final = 0.75
DEFAULT_NUM_SUB_ITERATIONS: Final = 2
DEFAULT_UNK_PIECE: Final = "<unk>"
DEFAULT_MAX_SENTENCE_LENGTH: Final = 4192  # bytes
# The way out of a too-small vocabulary sentencepiece names.
COVERAGE_HINT: Final = "lower character_coverage"

OPTIONS: Final = TrainerOptions(
    "SentencePieceTrainer",
    [
        Option("model_type", TEXT, "unigram", shown=True),
        Option("vocab_size", COUNT, DEFAULT_SP_VOCAB_SIZE, shown=True),
        Option("show_progress", FLAG, True),
        Option("special_tokens", SPECIAL_TOKENS, shown=True),
        Option("unk_piece", TEXT, DEFAULT_UNK_PIECE),
        Option("character_coverage", NUMBER, DEFAULT_CHARACTER_COVERAGE, shown=True),
        Option("split_by_unicode_script", FLAG, True),
        Option("split_by_number", FLAG, True),
        Option("split_by_whitespace", FLAG, True),
        Option("split_digits", FLAG, False),
        Option("max_sentencepiece_length", COUNT, DEFAULT_MAX_SENTENCEPIECE_LENGTH),
        Option("byte_fallback", FLAG, False),
        Option("input_sentence_size", COUNT, 0),
        Option("max_sentence_length", COUNT, DEFAULT_MAX_SENTENCE_LENGTH),
        Option("seed_sentencepiece_size", COUNT, DEFAULT_SEED_SENTENCEPIECE_SIZE),
        Option("shrinking_factor", NUMBER, DEFAULT_SP_SHRINKING_FACTOR),
        Option("num_sub_iterations", COUNT, DEFAULT_NUM_SUB_ITERATIONS),
    ],
)


def byte_pieces() -> list[str]:
    """sentencepiece's byte pieces, `<0x00>` to `<0xFF>`."""
    return [f"<0x{b:02X}>" for b in range(256)]


class SentencePieceTrainer(Trainer):
    """sentencepiece's trainer (`spm_train`), its options by its names:

    `model_type` "unigram" or "bpe"; `character_coverage` the share of the text's characters the
    alphabet must cover (rarer ones are unknown); `split_by_unicode_script`,
    `split_by_number`, `split_by_whitespace`, `split_digits` and `max_sentencepiece_length`
    the pieces allowed; `byte_fallback` the 256 byte pieces; `input_sentence_size` how many
    lines training samples (0: all; the counting step does it); `max_sentence_length` the
    longest line trained on, in UTF-8 bytes (longer ones are skipped; sentencepiece measures
    them before normalizing, this trainer after); `seed_sentencepiece_size`,
    `shrinking_factor` and `num_sub_iterations` Unigram's seed and EM. `unk_piece` is the
    unknown piece, first unless one of `special_tokens`.
    """

    model_type: str
    vocab_size: int
    show_progress: bool
    special_tokens: list[AddedToken]
    unk_piece: str
    character_coverage: float
    split_by_unicode_script: bool
    split_by_number: bool
    split_by_whitespace: bool
    split_digits: bool
    max_sentencepiece_length: int
    byte_fallback: bool
    input_sentence_size: int
    max_sentence_length: int
    seed_sentencepiece_size: int
    shrinking_factor: float
    num_sub_iterations: int

    def __init__(
        self,
        model_type: str = "unigram",
        vocab_size: int = DEFAULT_SP_VOCAB_SIZE,
        show_progress: bool = True,
        special_tokens: Sequence[str | AddedToken] | None = None,
        unk_piece: str = DEFAULT_UNK_PIECE,
        character_coverage: float = DEFAULT_CHARACTER_COVERAGE,
        split_by_unicode_script: bool = True,
        split_by_number: bool = True,
        split_by_whitespace: bool = True,
        split_digits: bool = False,
        max_sentencepiece_length: int = DEFAULT_MAX_SENTENCEPIECE_LENGTH,
        byte_fallback: bool = False,
        input_sentence_size: int = 0,
        max_sentence_length: int = DEFAULT_MAX_SENTENCE_LENGTH,
        seed_sentencepiece_size: int = DEFAULT_SEED_SENTENCEPIECE_SIZE,
        shrinking_factor: float = DEFAULT_SP_SHRINKING_FACTOR,
        num_sub_iterations: int = DEFAULT_NUM_SUB_ITERATIONS,
    ) -> None:
        if model_type not in MODEL_TYPES:
            raise ValueError(f"model_type must be one of {', '.join(MODEL_TYPES)}, not {model_type!r}")
        self.model_type = model_type
        self.vocab_size = non_negative("vocab_size", vocab_size)
        self.show_progress = show_progress
        self.special_tokens = special_tokens_argument(special_tokens)
        if not isinstance(unk_piece, str) or not unk_piece:
            raise ValueError(f"unk_piece must be a non-empty string, not {unk_piece!r}")
        self.unk_piece = unk_piece
        self.character_coverage = share_argument("character_coverage", character_coverage, False)
        self.split_by_unicode_script = split_by_unicode_script
        self.split_by_number = split_by_number
        self.split_by_whitespace = split_by_whitespace
        self.split_digits = split_digits
        self.max_sentencepiece_length = non_negative("max_sentencepiece_length", max_sentencepiece_length)
        if self.max_sentencepiece_length < 1:
            raise ValueError("max_sentencepiece_length must be at least 1")
        self.byte_fallback = byte_fallback
        self.input_sentence_size = non_negative("input_sentence_size", input_sentence_size)
        self.max_sentence_length = non_negative("max_sentence_length", max_sentence_length)
        self.seed_sentencepiece_size = non_negative("seed_sentencepiece_size", seed_sentencepiece_size)
        self.shrinking_factor = share_argument("shrinking_factor", shrinking_factor, True)
        self.num_sub_iterations = non_negative("num_sub_iterations", num_sub_iterations)

    def rules(self) -> PieceRules:
        """The pieces these options allow."""
        return PieceRules(
            self.max_sentencepiece_length,
            self.split_by_unicode_script,
            self.split_by_number,
            self.split_by_whitespace,
            self.split_digits,
        )

    def meta_pieces(self) -> list[str]:
        """The pieces before any learned one: the unk piece (unless a special token), the special
        tokens, and with byte_fallback the 256 byte pieces."""
        named = self._named_pieces()
        return named if self.unk_piece in named else [self.unk_piece, *named]

    def _named_pieces(self) -> list[str]:
        """The special tokens, then (byte_fallback) the byte pieces none of them is."""
        pieces = [token.content for token in self.special_tokens]
        if self.byte_fallback:
            pieces.extend(piece for piece in byte_pieces() if piece not in pieces)
        return pieces

    def training_words(self, sentence_counts: dict[str, int]) -> tuple[dict[str, int], list[str], dict[str, int]]:
        """The words training reads, the characters kept (`character_coverage`), and the
        sentences the seeds come from.

        The counts are of whole normalized lines (`counts_sentences`); those longer than
        `max_sentence_length` bytes are left out (a line over a quarter of it is measured in
        UTF-8). Their words are cut
        before every "▁" past the start when `split_by_whitespace`. Words and sentences are cut
        at every character not kept: {"▁ab▁a": 3, "▁é": 1}, coverage 0.9 -> ({"▁ab": 3, "▁a": 3,
        "▁": 1}, ["▁", "a", "b"], {"▁ab▁a": 3, "▁": 1})."""
        lines: list[str] = []
        counts: list[int] = []
        limit = self.max_sentence_length
        for line, count in sentence_counts.items():
            if count > 0 and line and (4 * len(line) <= limit or len(line.encode("utf-8")) <= limit):
                lines.append(line)
                counts.append(count)
        kept = covered_chars(char_counts(lines, counts), self.character_coverage)
        table = kept_table(kept)
        words: dict[str, int] = {}
        sentences: dict[str, int] = {}
        for k in range(len(lines)):
            count = counts[k]
            for part in kept_parts(lines[k], table):  # (split_words(line, set(kept), False))
                sentences[part] = sentences.get(part, 0) + count
                if self.split_by_whitespace and part.find(WS_CHAR, 1) >= 0:
                    for word in split_words(part, None, True):
                        words[word] = words.get(word, 0) + count
                else:
                    words[part] = words.get(part, 0) + count
        return words, kept, sentences

    def start(self, word_counts: dict[str, int]) -> TrainingRun:
        """A run over the training words of these counts (`training_words`); raises
        VocabularyTooSmallError, as sentencepiece does, when vocab_size cannot hold the kept
        characters and the meta pieces."""
        words, kept, sentences = self.training_words(word_counts)
        meta = self.meta_pieces()
        need = AlphabetNeed(len(kept), len(meta), hint=COVERAGE_HINT)
        if need.required > self.vocab_size:
            raise VocabularyTooSmallError(self.vocab_size, need.required, need.detail(), need.hint)
        if self.model_type == "unigram":
            # (the run puts the unk piece first itself when it is not one of these)
            return UnigramTrainingRun(
                words,
                vocab_size=self.vocab_size,
                special_tokens=self._named_pieces(),
                unk_token=self.unk_piece,
                shrinking_factor=self.shrinking_factor,
                max_piece_length=self.max_sentencepiece_length,
                n_sub_iterations=self.num_sub_iterations,
                seed_size=self.seed_sentencepiece_size,
                initial_alphabet=[],
                rules=self.rules(),
                hint=COVERAGE_HINT,
                sentences=sentences,
            )
        return BpeTrainingRun(
            words, vocab_size=self.vocab_size, special_tokens=meta, rules=self.rules(), hint=COVERAGE_HINT
        )

    def check_pipeline(self, pre_tokenizer: PreTokenizer | None) -> None:
        """With split_by_whitespace off, pieces may hold "▁" inside ("▁of▁the"): a
        pre-tokenizer that cuts the text at spaces would never let them be used, so it is
        refused, with what to change."""
        if self.split_by_whitespace or pre_tokenizer is None:
            return
        if len(words_of(pre_tokenizer, "a b")) > 1:
            raise TrainerMismatchError(
                "SentencePieceTrainer: split_by_whitespace is off, so pieces may span spaces, but the "
                "pre-tokenizer cuts the text at every space: turn the Metaspace pre-tokenizer's split off "
                "(sentencepiece does not cut either), or turn split_by_whitespace on"
            )

    def counts_sentences(self) -> bool:
        """True: sentencepiece seeds from whole lines (the words are cut from them here)."""
        return True

    def check_model(self, model: Model) -> None:
        if self.model_type == "unigram" and not isinstance(model, Unigram):
            raise model_mismatch("SentencePieceTrainer (model_type unigram)", "Unigram", model)
        if self.model_type == "bpe" and not isinstance(model, BPE):
            raise model_mismatch("SentencePieceTrainer (model_type bpe)", "BPE", model)

    def apply(self, run: TrainingRun, model: Model) -> list[AddedToken]:
        """Fill `model` with what `run` made so far, `byte_fallback` as set here; returns the
        special tokens to add (the unk piece and the byte pieces are the model's own)."""
        self.check_model(model)
        if isinstance(run, UnigramTrainingRun) and isinstance(model, Unigram):
            # sentencepiece keeps a piece's score as a float (ModelProto's `float score`), so the
            # model its trainer makes holds float32 scores: the same here, or a tie between two
            # segmentations could go one way in this tokenizer and the other in its .model.
            model.set_pieces([(piece, float32(score)) for piece, score in run.final_pieces()], run.unk_id())
            model.byte_fallback = self.byte_fallback
        elif isinstance(run, BpeTrainingRun) and isinstance(model, BPE):
            model.set_vocab_and_merges(run.vocab, run.model_merges())
            model.unk_token = self.unk_piece
            model.byte_fallback = self.byte_fallback
        else:
            raise run_mismatch("SentencePieceTrainer", run)
        return list(self.special_tokens)

    def to_dict(self) -> dict[str, JsonValue]:
        return OPTIONS.write(self)

    @staticmethod
    def from_dict(data: object) -> SentencePieceTrainer:
        return SentencePieceTrainer(**OPTIONS.read(data))

    def __repr__(self) -> str:
        return OPTIONS.describe(self)

