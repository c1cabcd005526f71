"""Tokenizer engine: HuggingFace-`tokenizers`-compatible pipeline, trainers and file formats.

Typed Python compiled with mypyc. No GUI, no Qt: `workbench` imports `engine`, never the reverse.
`from engine import Tokenizer, models, ...` works where `from tokenizers import ...` did.
"""

from __future__ import annotations

from engine import decoders, models, normalizers, pre_tokenizers, processors, trainers
from engine.added_vocabulary import AddedToken
from engine.encoding import Encoding
from engine.errors import (
    CorpusError,
    EngineError,
    SchemaError,
    TokenizerFileError,
    TrainerMismatchError,
    TrainingCancelled,
)
from engine.normalizers.normalized import NormalizedString
from engine.pattern import Regex
from engine.pre_tokenizers.pretokenized import PreTokenizedString
from engine.tokenizer import Tokenizer
from engine.trainers.records import TrainReport

__version__ = "0.1.0"


def _is_compiled() -> bool:
    # subtle: look at a module that mypyc compiles; this __init__ always stays Python.
    from engine import errors

    return not errors.__file__.endswith(".py")


COMPILED: bool = _is_compiled()

__all__ = [
    "COMPILED",
    "AddedToken",
    "CorpusError",
    "Encoding",
    "EngineError",
    "NormalizedString",
    "PreTokenizedString",
    "Regex",
    "SchemaError",
    "Tokenizer",
    "TokenizerFileError",
    "TrainReport",
    "TrainerMismatchError",
    "TrainingCancelled",
    "__version__",
    "decoders",
    "models",
    "normalizers",
    "pre_tokenizers",
    "processors",
    "trainers",
]
