"""Loading is as strict as HF's: every hostile tokenizer.json the engine refuses, HF refuses too
(except the padding sizes the engine refuses before allocating, which HF takes), and what the
engine takes at the very edge (ids of 2**32 - 1, 127 levels deep) it writes back for HF to read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tokenizers

from engine import Tokenizer
from hostile_files import HOSTILE_TOKENIZERS, PADDING, WORD_LEVEL, nested_normalizers, tokenizer_json, with_vocab

# The engine refuses these before allocating; HF takes them (and pads that far when asked).
STRICTER_THAN_HF = {"a padding length of 10**12", "a pad_to_multiple_of of 10**12"}


@pytest.mark.parametrize("case", [case for case in HOSTILE_TOKENIZERS if case not in STRICTER_THAN_HF])
def test_hf_refuses_what_the_engine_refuses(case: str) -> None:
    text, _ = HOSTILE_TOKENIZERS[case]
    with pytest.raises(Exception):  # HF raises a bare Exception carrying serde's message
        tokenizers.Tokenizer.from_str(text)


def test_what_the_engine_takes_at_the_edge_hf_reads_back(tmp_path: Path) -> None:
    deepest = nested_normalizers(61)  # 2 levels each, plus the file's object and the normalizer's
    text = tokenizer_json(
        model=with_vocab(b=2**32 - 1),
        padding=dict(PADDING, strategy={"Fixed": 2**20}, pad_id=2**32 - 1),
        normalizer="@",
    ).replace('"@"', deepest)
    ours = Tokenizer.from_str(text)
    path = tmp_path / "edge.json"
    ours.save(str(path))
    theirs = tokenizers.Tokenizer.from_file(str(path))
    assert theirs.get_vocab() == ours.get_vocab() == {"a": 0, "[UNK]": 1, "b": 2**32 - 1}
    assert json.loads(theirs.to_str())["padding"]["pad_id"] == 2**32 - 1
    assert theirs.normalizer is not None
    assert WORD_LEVEL["type"] == "WordLevel"
