"""The model stage, as HF's `tokenizers.models`: BPE, WordPiece, WordLevel, Unigram and `from_dict`.

Each algorithm is a package here, as in HF's crate: `bpe/`, `wordpiece/`, `wordlevel/`, `unigram/`,
each with its model, its trainer and the machinery of its training run; `base` holds the
`Model` contract. This module gathers the models and reads the tokenizer.json "model" object.
"""

from __future__ import annotations

from engine.models.bpe.model import BPE
from engine.errors import SchemaError
from engine.models.base import Model
from engine.schema import expect_object, type_tag
from engine.models.unigram.model import Unigram
from engine.models.wordlevel.model import WordLevel
from engine.models.wordpiece.model import WordPiece

__all__ = ["BPE", "Model", "Unigram", "WordLevel", "WordPiece", "from_dict"]


def from_dict(data: object) -> Model:
    """A model from its tokenizer.json object: by its "type", or for legacy untagged objects,
    the first of BPE, WordPiece, WordLevel, Unigram whose required fields are present (HF's order).
    """
    obj = expect_object(data, "model")
    tag = type_tag(obj, "model")
    if tag == "BPE":
        return BPE.from_dict(obj)
    if tag == "WordPiece":
        return WordPiece.from_dict(obj)
    if tag == "WordLevel":
        return WordLevel.from_dict(obj)
    if tag == "Unigram":
        return Unigram.from_dict(obj)
    if tag is not None:
        raise SchemaError(f"unknown model type {tag!r}")
    if "vocab" in obj and "merges" in obj:
        return BPE.from_dict(obj)
    if all(key in obj for key in ("vocab", "unk_token", "continuing_subword_prefix", "max_input_chars_per_word")):
        return WordPiece.from_dict(obj)
    if "vocab" in obj and "unk_token" in obj:
        return WordLevel.from_dict(obj)
    if isinstance(obj.get("vocab"), list):
        return Unigram.from_dict(obj)
    raise SchemaError("model: missing field 'type' (and not a legacy BPE, WordPiece, WordLevel or Unigram object)")
