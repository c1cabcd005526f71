"""The engine's pipeline components, as the Train tab's form offers them: each stage's choices
with their default options, and each model's trainer with its fields' defaults, all as the
engine writes them to tokenizer.json (nothing is invented here).

Data only, built once from the engine's own objects: which ones a tokenizer uses, and whether
its settings hold together, the engine says. No Qt here.
"""

from __future__ import annotations

from collections.abc import Callable
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
TRAINER_DEFAULTS: Final[dict[str, dict[str, JsonValue]]] = {
    kind: trainers.from_dict({"type": kind}).to_dict() for kind in TRAINER_OF.values()
}
