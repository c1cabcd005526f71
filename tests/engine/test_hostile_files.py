"""Files are data, never code: hostile tokenizer files end in one error naming the file and what is
wrong, never in a hang, a traceback or a file that HF (or the engine) cannot read back.

A regex that backtracks without end is bounded in time (encode, count, train, the command line);
JSON nested too deep, numbers too long, ids past u32, NaN scores, lone surrogates, huge declared
sizes and incomplete .tiktoken files are refused when loading, as HF's serde refuses them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Regex, Tokenizer, models, normalizers, pre_tokenizers, trainers
from engine.errors import EngineError, RegexTimeoutError
from engine.pattern import find_matches_compiled, is_linear

# -- hostile regexes ------------------------------------------------------------------------------

HOSTILE = "(a|a)+$"
# 5,000 "a" and a "b": `(a|a)+$` would try 2**5000 ways before giving up.
HOSTILE_TEXT = "a" * 5000 + "b"
SPLIT_MESSAGE = (
    "Split pattern '(a|a)+$' took more than 2.02 s on the text "
    "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\u2026' (5,001 characters): the pattern backtracks catastrophically"
)


def hostile_tokenizer(where: str) -> Tokenizer:
    tokenizer = Tokenizer(models.WordLevel({"a": 0, "b": 1, "[UNK]": 2}, unk_token="[UNK]"))
    if where == "Split":
        tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(HOSTILE), "isolated")
    else:
        tokenizer.normalizer = normalizers.Replace(Regex(HOSTILE), "x")
    return tokenizer


def test_a_hostile_split_pattern_ends_encode_with_a_message_naming_it() -> None:
    with pytest.raises(RegexTimeoutError) as caught:
        hostile_tokenizer("Split").encode(HOSTILE_TEXT)
    assert str(caught.value) == SPLIT_MESSAGE


def test_a_hostile_replace_pattern_ends_encode_with_a_message_naming_it() -> None:
    with pytest.raises(RegexTimeoutError) as caught:
        hostile_tokenizer("Replace").encode(HOSTILE_TEXT)
    assert str(caught.value) == SPLIT_MESSAGE.replace("Split", "Replace", 1)


def test_a_hostile_pattern_ends_counting_and_training(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    # the hostile line near the end: in the share a forked child counts
    corpus.write_text("a b\n" * 6000 + HOSTILE_TEXT + "\n", encoding="utf-8")
    tokenizer = hostile_tokenizer("Split")
    message = SPLIT_MESSAGE.replace("(5,001 characters)", "(5,002 characters)")  # the line's "\n" too
    with pytest.raises(RegexTimeoutError) as caught:
        tokenizer.train([str(corpus)], trainers.WordLevelTrainer(show_progress=False))
    assert str(caught.value) == message
    # counted in a child process: the parent says so, and why
    with pytest.raises(EngineError) as counted:
        tokenizer.count_words([str(corpus)], processes=2)
    assert str(counted.value) == "a word-counting process failed: RegexTimeoutError: " + message
    assert tokenizer.get_vocab() == {"a": 0, "b": 1, "[UNK]": 2}


def test_a_hostile_tokenizer_file_on_the_command_line_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "hostile.json"
    hostile_tokenizer("Split").save(str(path))
    result = subprocess.run(
        [sys.executable, "-P", "-m", "workbench.cli", "encode", "-t", str(path), "--text", HOSTILE_TEXT],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,  # a guard against the hang this test is about, not a time limit
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr == f"tokenizer-workbench: error: {SPLIT_MESSAGE}\n"
    assert result.stdout == ""


# The pre-tokenizer patterns of real tokenizers, run under the bound on adversarial 1 MB lines.
GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
CL100K = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
O200K = (
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"""
    r"""|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"""
    r"""|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
MEGABYTE = 1_000_000


@pytest.mark.parametrize("pattern", [GPT2, CL100K, O200K], ids=["gpt2", "cl100k", "o200k"])
@pytest.mark.parametrize(
    "text",
    [
        ("The quick brown fox, 1234 times! " * 40_000)[:MEGABYTE],
        " " * (MEGABYTE - 1) + "x",  # a run a pattern like `\s*[\r\n]+` alone takes quadratic time on
        ("AB\u00e9\u3042 \t\n7" * 200_000)[:MEGABYTE],
    ],
    ids=["prose", "spaces", "mixed"],
)
def test_real_patterns_stay_within_the_bound_on_a_megabyte_line(pattern: str, text: str) -> None:
    spans = Regex(pattern).find_matches(text, "Split")
    assert spans[0][0] == 0 and spans[-1][1] == MEGABYTE


@pytest.mark.parametrize(
    "pattern",
    [GPT2, CL100K, r"\s+", r"a*", r"\b", r"(?=a)", r"x?", r"(\w)\1", r"\G\w", r"(?i)th", r"$", r"^", r" +\z",
     r"\A +| +\z", r"[\p{P}]+", r"(?x) a b # comment"],
)
def test_the_bounded_search_finds_what_an_unbounded_one_finds(pattern: str) -> None:
    texts = ["", " ", "\t\n", "baab", "the theme, that  thing ", "a  b\n\nc ", "x" + " " * 300 + "y",
             "caf\u00e9 na\u00efve \u00b2\u00b3 12", "\U0001f469\u200d\U0001f469\u200d\U0001f467 ok", "aab  ", "  "]
    regex = Regex(pattern)
    for text in texts + texts:  # twice: the way chosen depends on the texts before
        assert regex.find_matches(text, "Split") == find_matches_compiled(regex.for_text(text), text), text


@pytest.mark.parametrize(
    ("pattern", "linear"),
    [(" {2,}", True), (r"\s+", True), ("[ab]*", True), ("``", True), ("\u2581+", True), (r"\p{L}+", True),
     (r" +\z", True), (r"\A +| +\z", True), ("(a|a)+$", False), ("a{100,}", False), ("a+?", False),
     ("ab+", False), ("a|b", False), (r"(\w)\1", False), ("", False)],
)
def test_which_patterns_run_without_a_bound(pattern: str, linear: bool) -> None:
    assert is_linear(pattern) is linear
