"""`tokenizer-workbench --self-test`: the installed application trains, encodes, exports and
reads back through its real child processes, headless, and says so line by line. (The desktop
bundle runs the same self-test: tests/test_build.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engine import Tokenizer, models, pre_tokenizers
from engine.formats import convert
from workbench.window.self_test import _round_trip_problem


def test_the_self_test_passes_and_reports_every_format(tmp_path: Path) -> None:
    environment = {**os.environ, "TOKENIZER_WORKBENCH_HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"}
    finished = subprocess.run(
        [sys.executable, "-P", "-m", "workbench", "--self-test"],
        capture_output=True, text=True, encoding="utf-8", env=environment, timeout=1800, check=False,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stdout + finished.stderr
    lines = finished.stdout.splitlines()
    assert lines[-1] == "self-test passed"
    assert not [line for line in lines if line.startswith("FAILED")]
    for name in ("BPE 8k", "GPT-2 byte-level BPE 1k", "BERT WordPiece 1k", "SentencePiece Unigram 1k"):
        assert any(line.startswith(f"ok      train “{name}”") for line in lines), name
    for kind in convert.FORMATS:  # every format is written and read back by at least one
        assert any(line.startswith("ok      export") and convert.DESCRIPTIONS[kind] in line for line in lines), kind
    # nothing of the user's was touched: the settings went to a throw-away folder
    assert not (tmp_path / "config").exists()


def test_a_round_trip_that_loses_the_text_is_named() -> None:
    tokenizer = Tokenizer(models.WordLevel({"a": 0, "b": 1, "[UNK]": 2}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    texts = ["a b", "a c"]
    ids = [tokenizer.encode(text).ids for text in texts]
    assert _round_trip_problem(tokenizer, texts, ids, exact=False) == ""
    assert _round_trip_problem(tokenizer, texts, ids, exact=True) == "decoding does not give the text back: 'a c' -> 'a [UNK]'"
    assert _round_trip_problem(tokenizer, ["a"], [[]], exact=False) == "no tokens for 'a'"
    assert _round_trip_problem(tokenizer, ["a"], [[7]], exact=False) == "an id outside the vocabulary for 'a'"


def test_the_self_test_takes_no_other_arguments() -> None:
    finished = subprocess.run(
        [sys.executable, "-P", "-m", "workbench", "--self-test", "train", "--preset", "bpe", "--vocab-size", "10", "x.txt"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert finished.returncode == 2
    assert finished.stderr == (
        "tokenizer-workbench: error: --self-test takes no other arguments; see tokenizer-workbench --help\n"
    )
