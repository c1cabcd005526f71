"""The tokenizer presets the command line and the window start from: a pipeline and a trainer
for each well-known kind of tokenizer, built from engine components as a script would.

A preset the engine cannot train says why (`reason`) instead of being hidden or faked (every
preset here can be trained today); `pipeline_json` gives its pipeline as a project keeps it.
No Qt here.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from engine.formats.sentencepiece import set_pipeline
from engine.formats.sentencepiece_proto import DEFAULT_UNK_SURFACE
from engine.schema import JsonValue
from engine.trainers.base import DEFAULT_VOCAB_SIZE, Trainer
from workbench.core.shipped import resource

UNK = "[UNK]"
# sentencepiece's nmt_nfkc rules, in resources/sentencepiece/ (its README says how they are made).
NMT_NFKC_FILE = "nmt_nfkc.charsmap.gz"


@dataclass(frozen=True)
class Preset:
    """A kind of tokenizer: `key` (as `--preset` takes it), a title and a one-line description
    for people, the special tokens it starts with, and `reason` when it cannot be trained yet."""

    key: str
    title: str
    description: str
    special_tokens: tuple[str, ...]
    reason: str = ""

    @property
    def available(self) -> bool:
        return not self.reason


PRESETS: tuple[Preset, ...] = (
    Preset("bpe", "BPE", "Whitespace pre-tokenizer and BPE with [UNK]", (UNK,)),
    Preset(
        "gpt2",
        "GPT-2 byte-level BPE",
        "ByteLevel pre-tokenizer, decoder and post-processor; every byte in the alphabet, so nothing is unknown",
        ("<|endoftext|>",),
    ),
    Preset(
        "sentencepiece-bpe",
        "SentencePiece BPE",
        "What sentencepiece trains with --model_type=bpe: its nmt_nfkc normalization, leading, trailing and "
        "repeated spaces removed, ▁ for spaces and as a prefix, its trainer's options (character_coverage, "
        "split_by_unicode_script...), unknown runs fused into one <unk>",
        ("<unk>",),
    ),
    Preset(
        "bert",
        "BERT WordPiece",
        "BERT normalizer (lowercase) and pre-tokenizer, WordPiece with ## continuations trained by "
        "likelihood gain, [CLS] $A [SEP] template",
        ("[PAD]", UNK, "[CLS]", "[SEP]", "[MASK]"),
    ),
    Preset(
        "sentencepiece-unigram",
        "SentencePiece Unigram",
        "What sentencepiece trains by default: its nmt_nfkc normalization, leading, trailing and repeated "
        "spaces removed, ▁ for spaces and as a prefix, a Unigram model trained by EM and pruning with its "
        "trainer's options (character_coverage, split_by_unicode_script...)",
        ("<unk>",),
    ),
    Preset(
        "hf-sentencepiece-bpe",
        "HF SentencePiece-style BPE",
        "NFKC, Metaspace (▁ for spaces) and BPE with <unk>, as HF's SentencePieceBPETokenizer "
        "(not sentencepiece's normalization or whitespace rules)",
        ("<unk>",),
    ),
    Preset(
        "hf-sentencepiece-unigram",
        "HF SentencePiece-style Unigram",
        "NFKC, Metaspace (▁ for spaces) and a Unigram model, as HF's SentencePieceUnigramTokenizer "
        "(not sentencepiece's normalization or whitespace rules)",
        ("<unk>",),
    ),
    Preset("wordlevel", "WordLevel", "Whitespace pre-tokenizer; every word one token, [UNK] for the rest", (UNK,)),
)


def preset(key: str) -> Preset:
    for item in PRESETS:
        if item.key == key:
            return item
    raise KeyError(f"unknown preset {key!r}; choose one of {', '.join(p.key for p in PRESETS)}")


def build(
    key: str,
    vocab_size: int = DEFAULT_VOCAB_SIZE,
    min_frequency: int = 0,
    special_tokens: Sequence[str] | None = None,
) -> tuple[Tokenizer, Trainer]:
    """The untrained tokenizer and the trainer preset `key` stands for.

    `special_tokens` replaces the preset's own; the model's unknown token is kept among them
    (without it, unknown characters would vanish). Raises KeyError for an unknown preset and
    ValueError for one the engine cannot train yet.
    """
    chosen = preset(key)
    if not chosen.available:
        raise ValueError(f"preset {key!r} cannot be trained yet: {chosen.reason}")
    special = list(special_tokens) if special_tokens is not None else list(chosen.special_tokens)
    builder = _BUILDERS[key]
    return builder(vocab_size, min_frequency, special)


# A tokenizer's settings as the window keeps and trains them: its pipeline (tokenizer.json's
# object, `pipeline_json`) and its trainer's settings (a trainer's `to_dict`).
Configuration = tuple[dict[str, JsonValue], dict[str, JsonValue]]


def pipeline_json(tokenizer: Tokenizer) -> dict[str, JsonValue]:
    """A tokenizer's tokenizer.json object (for an untrained pipeline, its model is empty)."""
    data: dict[str, JsonValue] = json.loads(tokenizer.to_str())
    return data


def _with_unk(special: list[str], unk: str) -> list[str]:
    return special if unk in special else [unk, *special]


def _bpe(vocab_size: int, min_frequency: int, special: list[str]) -> tuple[Tokenizer, Trainer]:
    tokenizer = Tokenizer(models.BPE(unk_token=UNK))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=_with_unk(special, UNK)
    )
    return tokenizer, trainer


def _gpt2(vocab_size: int, min_frequency: int, special: list[str]) -> tuple[Tokenizer, Trainer]:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    return tokenizer, trainer


def _hf_sentencepiece_bpe(vocab_size: int, min_frequency: int, special: list[str]) -> tuple[Tokenizer, Trainer]:
    unk = "<unk>"
    tokenizer = Tokenizer(models.BPE(unk_token=unk))
    tokenizer.normalizer = normalizers.NFKC()
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=_with_unk(special, unk)
    )
    return tokenizer, trainer


def _sentencepiece_bpe(vocab_size: int, min_frequency: int, special: list[str]) -> tuple[Tokenizer, Trainer]:
    unk = "<unk>"
    # (sentencepiece's BPE gives a run of unknown characters one <unk>)
    tokenizer = Tokenizer(models.BPE(unk_token=unk, fuse_unk=True))
    _sentencepiece_pipeline(tokenizer, unk)
    if min_frequency > 0:
        raise ValueError("sentencepiece's BPE has no minimum frequency; leave it at 0")
    trainer = trainers.SentencePieceTrainer("bpe", vocab_size, special_tokens=_with_unk(special, unk), unk_piece=unk)
    return tokenizer, trainer


def _sentencepiece_pipeline(tokenizer: Tokenizer, unk: str) -> None:
    """sentencepiece's defaults: the nmt_nfkc rules, add_dummy_prefix, remove_extra_whitespaces,
    escape_whitespaces; the pipeline a `.model` with them reads into (`set_pipeline`)."""
    set_pipeline(tokenizer, nmt_nfkc_charsmap(), True, True, True, unk, DEFAULT_UNK_SURFACE, False)


def nmt_nfkc_charsmap() -> bytes:
    """sentencepiece's default normalization rules, as shipped (resources/sentencepiece/)."""
    return gzip.decompress(resource("sentencepiece", NMT_NFKC_FILE).read_bytes())


def _bert(vocab_size: int, min_frequency: int, special: list[str]) -> tuple[Tokenizer, Trainer]:
    special = _with_unk(special, UNK)
    tokenizer = Tokenizer(models.WordPiece(unk_token=UNK))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    if "[CLS]" in special and "[SEP]" in special:
        # The trainer puts the special tokens first, in this order: their ids are known now.
        cls, sep = ("[CLS]", special.index("[CLS]")), ("[SEP]", special.index("[SEP]"))
        tokenizer.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[cls, sep]
        )
    # The likelihood gain, as the WordPiece paper trains: held out, within 2 % of the characters
    # per token of HF's trainer (the course's ratio, the trainer's default, gets about half:
    # it merges the rarest pairs first). benchmarks/bench_wordpiece_scoring.py measures the three.
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=special, scoring="likelihood_gain"
    )
    return tokenizer, trainer


def _sentencepiece_unigram(vocab_size: int, min_frequency: int, special: list[str]) -> tuple[Tokenizer, Trainer]:
    return _unigram(vocab_size, min_frequency, special, True)


def _hf_sentencepiece_unigram(vocab_size: int, min_frequency: int, special: list[str]) -> tuple[Tokenizer, Trainer]:
    return _unigram(vocab_size, min_frequency, special, False)


def _unigram(vocab_size: int, min_frequency: int, special: list[str], sentencepiece: bool) -> tuple[Tokenizer, Trainer]:
    unk = "<unk>"
    special = _with_unk(special, unk)
    tokenizer = Tokenizer(models.Unigram())
    if sentencepiece:
        _sentencepiece_pipeline(tokenizer, unk)
    else:
        tokenizer.normalizer = normalizers.NFKC()
        tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
        tokenizer.decoder = decoders.Metaspace()
    if min_frequency > 0:
        raise ValueError("a Unigram vocabulary has no minimum frequency (it prunes by likelihood); leave it at 0")
    trainer: Trainer
    if sentencepiece:
        trainer = trainers.SentencePieceTrainer("unigram", vocab_size, special_tokens=special, unk_piece=unk)
    else:
        trainer = trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=special, unk_token=unk)
    return tokenizer, trainer


def _wordlevel(vocab_size: int, min_frequency: int, special: list[str]) -> tuple[Tokenizer, Trainer]:
    tokenizer = Tokenizer(models.WordLevel(unk_token=UNK))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.WordLevelTrainer(
        vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=_with_unk(special, UNK)
    )
    return tokenizer, trainer


_BUILDERS: dict[str, Callable[[int, int, list[str]], tuple[Tokenizer, Trainer]]] = {
    "bpe": _bpe,
    "gpt2": _gpt2,
    "sentencepiece-bpe": _sentencepiece_bpe,
    "bert": _bert,
    "sentencepiece-unigram": _sentencepiece_unigram,
    "hf-sentencepiece-bpe": _hf_sentencepiece_bpe,
    "hf-sentencepiece-unigram": _hf_sentencepiece_unigram,
    "wordlevel": _wordlevel,
}
