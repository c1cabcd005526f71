"""The engine's pipeline components, as the Train tab's form offers them: each stage's choices
with their default options, and each model's trainer with its fields' defaults, all as the
engine writes them to tokenizer.json (nothing is invented here).

Data only, built once from the engine's own objects: which ones a tokenizer uses, and whether
its settings hold together, the engine says. No Qt here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from engine import Regex, decoders, models, normalizers, pre_tokenizers, processors, trainers
from engine.schema import JsonValue


def _json(component: object) -> dict[str, JsonValue]:
    to_dict: Callable[[], dict[str, JsonValue]] = component.to_dict  # type: ignore[attr-defined]
    return to_dict()


# Each stage's components and their default options, as the engine writes them.
NORMALIZERS: Final[dict[str, dict[str, JsonValue]]] = {
    data["type"]: data  # type: ignore[misc]
    for data in (
        _json(normalizers.NFD()), _json(normalizers.NFKD()), _json(normalizers.NFC()), _json(normalizers.NFKC()),
        _json(normalizers.Lowercase()), _json(normalizers.StripAccents()), _json(normalizers.Strip()),
        _json(normalizers.BertNormalizer()), _json(normalizers.Nmt()), _json(normalizers.Replace(" ", "\u2581")),
        _json(normalizers.Prepend()), _json(normalizers.ByteLevel()),
    )
}
PRE_TOKENIZERS: Final[dict[str, dict[str, JsonValue]]] = {
    data["type"]: data  # type: ignore[misc]
    for data in (
        _json(pre_tokenizers.Whitespace()), _json(pre_tokenizers.WhitespaceSplit()),
        _json(pre_tokenizers.BertPreTokenizer()), _json(pre_tokenizers.ByteLevel(add_prefix_space=False)),
        _json(pre_tokenizers.Metaspace()), _json(pre_tokenizers.Punctuation()), _json(pre_tokenizers.Digits()),
        _json(pre_tokenizers.UnicodeScripts()), _json(pre_tokenizers.CharDelimiterSplit(" ")),
        _json(pre_tokenizers.Split(Regex(r"\s+"), "removed")),
    )
}
DECODERS: Final[dict[str, dict[str, JsonValue]]] = {
    data["type"]: data  # type: ignore[misc]
    for data in (
        _json(decoders.ByteLevel()), _json(decoders.Metaspace()), _json(decoders.WordPiece()),
        _json(decoders.BPEDecoder()), _json(decoders.ByteFallback()), _json(decoders.Fuse()),
        _json(decoders.Strip()), _json(decoders.Replace("\u2581", " ")), _json(decoders.CTC()),
    )
}
POST_PROCESSORS: Final[dict[str, dict[str, JsonValue]]] = {"ByteLevel": _json(processors.ByteLevel(trim_offsets=False))}
MODELS: Final[dict[str, dict[str, JsonValue]]] = {
    "BPE": {k: v for k, v in _json(models.BPE(unk_token="[UNK]")).items() if k not in ("vocab", "merges")},
    "WordLevel": {k: v for k, v in _json(models.WordLevel(unk_token="[UNK]")).items() if k != "vocab"},
    "WordPiece": {k: v for k, v in _json(models.WordPiece()).items() if k != "vocab"},
    "Unigram": {"type": "Unigram", "unk_id": 0, "byte_fallback": False},
}
# The trainer of each model, and each trainer's fields with their defaults (as the engine writes them).
TRAINER_OF: Final = {
    "BPE": "BpeTrainer",
    "WordLevel": "WordLevelTrainer",
    "WordPiece": "WordPieceTrainer",
    "Unigram": "UnigramTrainer",
}
# BPE and Unigram models can also be trained as sentencepiece trains them: by a
# SentencePieceTrainer, its model_type the model's.
SENTENCEPIECE_TRAINER: Final = "SentencePieceTrainer"
SENTENCEPIECE_MODEL_TYPE: Final = {"BPE": "bpe", "Unigram": "unigram"}
TRAINER_DEFAULTS: Final[dict[str, dict[str, JsonValue]]] = {
    kind: trainers.from_dict({"type": kind}).to_dict() for kind in (*TRAINER_OF.values(), SENTENCEPIECE_TRAINER)
}
# Whose trainer trains a BPE or Unigram model: HF tokenizers' (BpeTrainer, UnigramTrainer) or
# sentencepiece's (SentencePieceTrainer).
HF_TOKENIZERS: Final = "HF tokenizers"
SENTENCEPIECE: Final = "sentencepiece"
TRAINER_LIBRARIES: Final = (HF_TOKENIZERS, SENTENCEPIECE)
# UnigramTrainer's options that sentencepiece has under another name (the same setting).
SENTENCEPIECE_NAMES: Final = {
    "unk_token": "unk_piece",
    "shrinking_factor": "shrinking_factor",
    "max_piece_length": "max_sentencepiece_length",
    "n_sub_iterations": "num_sub_iterations",
    "seed_size": "seed_sentencepiece_size",
}


def trainer_algorithm(trainer: Mapping[str, JsonValue]) -> str:
    """The model a trainer's JSON trains: "BPE", "Unigram", "WordPiece" or "WordLevel" ("" for a
    trainer the engine does not know). {"type": "UnigramTrainer"} -> "Unigram";
    {"type": "SentencePieceTrainer", "model_type": "bpe"} -> "BPE" (no model_type: "Unigram",
    sentencepiece's default)."""
    kind = trainer.get("type")
    if kind == SENTENCEPIECE_TRAINER:
        model_type = trainer.get("model_type", TRAINER_DEFAULTS[SENTENCEPIECE_TRAINER]["model_type"])
        for algorithm, name in SENTENCEPIECE_MODEL_TYPE.items():
            if name == model_type:
                return algorithm
        return ""
    for algorithm, name in TRAINER_OF.items():
        if name == kind:
            return algorithm
    return ""


def trainer_library(trainer: Mapping[str, JsonValue]) -> str:
    """Whose trainer a trainer's JSON is: SENTENCEPIECE for a SentencePieceTrainer, else HF_TOKENIZERS."""
    return SENTENCEPIECE if trainer.get("type") == SENTENCEPIECE_TRAINER else HF_TOKENIZERS


def trainer_for(current: Mapping[str, JsonValue], algorithm: str, library: str) -> dict[str, JsonValue]:
    """The trainer JSON that trains an `algorithm` model ("BPE"... as in TRAINER_OF) with
    `library`'s trainer (HF tokenizers' for WordPiece and WordLevel, which sentencepiece does not
    train), keeping what `current` has in common with it: its options of the same name
    (vocab_size, special_tokens...), and UnigramTrainer's under sentencepiece's names
    (SENTENCEPIECE_NAMES); the others take the new trainer's defaults.

    {"type": "UnigramTrainer", "vocab_size": 500, "seed_size": 9}, "Unigram", SENTENCEPIECE ->
    SentencePieceTrainer's defaults with model_type "unigram", vocab_size 500 and
    seed_sentencepiece_size 9."""
    sentencepiece = library == SENTENCEPIECE and algorithm in SENTENCEPIECE_MODEL_TYPE
    kind = SENTENCEPIECE_TRAINER if sentencepiece else TRAINER_OF[algorithm]
    given = dict(current)
    if given.get("type") == "UnigramTrainer" and kind == SENTENCEPIECE_TRAINER:
        for name, renamed in SENTENCEPIECE_NAMES.items():
            value = given.pop(name, None)
            # (UnigramTrainer's unk_token may be null; sentencepiece's unk_piece may not)
            if value is not None:
                given[renamed] = value
    elif given.get("type") == SENTENCEPIECE_TRAINER and kind == "UnigramTrainer":
        for name, renamed in SENTENCEPIECE_NAMES.items():
            if renamed in given:
                given[name] = given.pop(renamed)
    data = dict(TRAINER_DEFAULTS[kind])
    for key in data:
        if key != "type" and key in given:
            data[key] = given[key]
    if sentencepiece:
        data["model_type"] = SENTENCEPIECE_MODEL_TYPE[algorithm]
    return data
