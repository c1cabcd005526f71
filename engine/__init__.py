"""Tokenizer engine: HuggingFace-`tokenizers`-compatible pipeline, trainers and file formats.

Typed Python compiled with mypyc. No GUI, no Qt: `workbench` imports `engine`, never the reverse.
"""

from __future__ import annotations

__version__ = "0.1.0"


def _is_compiled() -> bool:
    # subtle: look at a module that mypyc compiles; this __init__ always stays Python.
    from engine import errors

    return not errors.__file__.endswith(".py")


COMPILED: bool = _is_compiled()
