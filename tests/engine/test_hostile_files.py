"""Files are data, never code: hostile tokenizer files end in one error naming the file and what is
wrong, never in a hang, a traceback or a file that HF (or the engine) cannot read back.

A regex that backtracks without end is bounded in time (encode, count, train, the command line);
JSON nested too deep, numbers too long, ids past u32, NaN scores, lone surrogates, huge declared
sizes and incomplete .tiktoken files are refused when loading, as HF's serde refuses them.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import AddedToken, Regex, Tokenizer, models, normalizers, pre_tokenizers, trainers
from engine.errors import EngineError, ProjectFileError, RegexTimeoutError, SchemaError, TokenizerFileError
from engine.formats import convert
from engine.formats import protobuf as pb
from engine.formats import sentencepiece_proto
from engine.pattern import find_matches_compiled, is_linear
from engine.project.project_file import Project
from hostile_files import HOSTILE_TOKENIZERS, nested_normalizers

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
     r"\A +| +\z", r"[\p{P}]+", r"(?x) a b # comment", r"a\Kb", r"(?:ab){e<=1}", r"(?p)a|ab"],
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


# -- hostile tokenizer.json files (the table is in tests/hostile_files.py) ---------------------------


@pytest.mark.parametrize("case", HOSTILE_TOKENIZERS, ids=list(HOSTILE_TOKENIZERS))
def test_a_hostile_tokenizer_json_is_refused_naming_the_file(tmp_path: Path, case: str) -> None:
    text, message = HOSTILE_TOKENIZERS[case]
    path = tmp_path / "tokenizer.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    with pytest.raises(TokenizerFileError) as caught:
        Tokenizer.from_file(str(path))
    assert str(caught.value) == f"{path}: {message}"
    with pytest.raises(TokenizerFileError) as parsed:
        Tokenizer.from_str(text)
    assert str(parsed.value) == f"<string>: {message}"


def test_a_nested_component_is_refused_before_it_is_built() -> None:
    deep = json.loads(nested_normalizers(70))
    with pytest.raises(SchemaError) as caught:
        normalizers.from_dict(deep)
    assert str(caught.value) == "normalizer: nested more than 127 levels deep (HF refuses it too)"
    assert isinstance(normalizers.from_dict(json.loads(nested_normalizers(60))), normalizers.Sequence)


def test_padding_that_hf_refuses_or_no_one_can_allocate_is_refused_by_the_api() -> None:
    tokenizer = Tokenizer(models.WordLevel({"a": 0}, unk_token="a"))
    with pytest.raises(OverflowError, match="number too small to fit in target type"):
        tokenizer.enable_padding(pad_id=-1)
    with pytest.raises(OverflowError, match="number too large to fit in target type"):
        tokenizer.enable_padding(pad_type_id=2**32)
    with pytest.raises(ValueError) as caught:
        tokenizer.enable_padding(length=10**12)
    assert str(caught.value) == "padding to 1,000,000,000,000 tokens is refused: more than 1,048,576"
    refused = tokenizer.padding  # (a local: mypy would keep `tokenizer.padding` None past enable_padding)
    assert refused is None
    tokenizer.enable_padding(length=2**20, pad_id=2**32 - 1)
    assert tokenizer.padding is not None and tokenizer.padding["length"] == 1_048_576


def test_special_files_and_deep_json_on_the_command_line(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(TokenizerFileError) as caught:
        Tokenizer.from_file(str(fifo))
    assert str(caught.value) == f"{fifo}: is not a regular file (a pipe or a device), so not a tokenizer.json file"
    with pytest.raises(TokenizerFileError) as device:
        Tokenizer.from_file("/dev/zero")
    assert str(device.value) == "/dev/zero: is not a regular file (a pipe or a device), so not a tokenizer.json file"
    deep = tmp_path / "deep.json"
    deep.write_text(HOSTILE_TOKENIZERS["1,000 nested arrays"][0], encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-P", "-m", "workbench.cli", "inspect", str(deep)],
        capture_output=True, text=True, encoding="utf-8", timeout=120,
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr == (
        f"tokenizer-workbench: error: {deep}: is nested more than 127 levels deep"
        " (arrays and objects inside one another; HF refuses it too)\n"
    )


# -- the other readers ------------------------------------------------------------------------------


def rank_lines(ranks: dict[bytes, int]) -> str:
    return "".join(base64.b64encode(token).decode("ascii") + f" {rank}\n" for token, rank in ranks.items())


def sentencepiece_model(score: float) -> bytes:
    pieces = [("<unk>", 0.0, sentencepiece_proto.UNKNOWN), ("a", score, sentencepiece_proto.NORMAL)]
    out = b""
    for piece, value, kind in pieces:
        body = pb.serialize([pb.string_field(1, piece), pb.float_field(2, value)])
        if kind:
            body += pb.varint_field(3, kind).raw
        out += pb.bytes_field(1, body).raw
    return out


EVERY_BYTE = {bytes([b]): b for b in range(256)}

HOSTILE_FILES: dict[str, tuple[str, str | bytes, str]] = {
    "vocab.json with an id of 2**32": (
        "vocab.json", '{"a": 0, "b": 4294967296}',
        "Bad vocabulary json file: token 'b': id 4294967296 is not an integer in 0..4294967295",
    ),
    "vocab.json nested 1,000 deep": (
        "vocab.json", '{"a": ' + "[" * 1000 + "]" * 1000 + "}",
        "is nested more than 127 levels deep (arrays and objects inside one another; HF refuses it too)",
    ),
    "vocab.json with a lone surrogate": (
        "vocab.json", '{"a": 0, "\\udc80b": 1}',
        "the key '\\udc80b' holds a lone surrogate (U+DC80), which is not Unicode text: no UTF-8 file can hold it"
        " (HF refuses it too)",
    ),
    "an empty .tiktoken": (
        "x.tiktoken", "", "holds no tokens (a .tiktoken file has one `<base64 token> <rank>` line per token)",
    ),
    "a .tiktoken without the byte 'b'": (
        "x.tiktoken", rank_lines({token: rank for token, rank in EVERY_BYTE.items() if token != b"b"}),
        "has no rank for the byte 0x62: every single byte must be a token",
    ),
    "a .tiktoken of ASCII letters only": (
        "x.tiktoken", rank_lines({bytes([b]): b for b in range(ord("a"), ord("z") + 1)}),
        "has no rank for the 230 bytes 0x00-0x60, 0x7B-0xFF: every single byte must be a token",
    ),
    "a .tiktoken with a rank of 2**32": (
        "x.tiktoken", rank_lines(EVERY_BYTE) + "YWI= 4294967296\n",
        "line 257: the rank '4294967296' is larger than 4294967295 (ids are 32-bit)",
    ),
    "a .tiktoken with a 5,000-digit rank": (
        "x.tiktoken", "YWI= " + "9" * 5000 + "\n",
        f"line 1: the rank {'9' * 30!r} is larger than 4294967295 (ids are 32-bit)",
    ),
    "a .tiktoken sidecar with a special id of 2**32": (
        "sidecar", '{"pat_str": "\\\\S+", "special_tokens": {"<s>": 4294967296}}',
        "field 'special_tokens': the id of '<s>' is larger than 4294967295 (ids are 32-bit)",
    ),
    "a .tiktoken sidecar with a 5,000-digit id": (
        "sidecar", '{"pat_str": "\\\\S+", "special_tokens": {"<s>": ' + "7" * 5000 + "}}",
        "is not valid JSON: a number of 5,000 digits at line 1 column 47 is out of range (no 64-bit float holds it;"
        " HF refuses it too)",
    ),
    "a SentencePiece model with a NaN score": (
        "x.model", sentencepiece_model(float("nan")), "pieces[1] 'a': the score nan is not a finite number",
    ),
    "a SentencePiece model with an infinite score": (
        "x.model", sentencepiece_model(float("-inf")), "pieces[1] 'a': the score -inf is not a finite number",
    ),
}


@pytest.mark.parametrize("case", HOSTILE_FILES, ids=list(HOSTILE_FILES))
def test_every_reader_refuses_a_hostile_file_naming_it(tmp_path: Path, case: str) -> None:
    name, content, message = HOSTILE_FILES[case]
    if name == "sidecar":
        (tmp_path / "x.tiktoken").write_text(rank_lines(EVERY_BYTE), encoding="utf-8")
        path = tmp_path / "x.tiktoken.json"
        loaded = tmp_path / "x.tiktoken"
    else:
        path = loaded = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", errors="surrogatepass")
    if name == "vocab.json":
        (tmp_path / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    with pytest.raises(TokenizerFileError) as caught:
        convert.load(str(loaded))
    assert str(caught.value) == f"{path}: {message}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": ' + "[" * 1000 + "]" * 1000 + "}",
         "is nested more than 127 levels deep (arrays and objects inside one another; HF refuses it too)"),
        ('{"format": "tokenizer-workbench project", "format_version": ' + "1" * 5000 + "}",
         "is not valid JSON: a number of 5,000 digits at line 1 column 61 is out of range (no 64-bit float holds it;"
         " HF refuses it too)"),
        ('{"format": "tokenizer-workbench project", "x": NaN}', "is not valid JSON: NaN at line 1 column 48 is not a JSON number (HF refuses it too)"),
    ],
    ids=["nested", "digits", "NaN"],
)
def test_a_hostile_project_file_is_refused_naming_it(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "hostile.tokproj"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProjectFileError) as caught:
        Project.load(str(path))
    assert str(caught.value) == f"{path}: {message}"


def test_a_lone_surrogate_from_the_api_is_refused_not_written(tmp_path: Path) -> None:
    with pytest.raises(UnicodeEncodeError, match="surrogates not allowed"):  # as HF's AddedToken
        AddedToken("<\ud800>")
    tokenizer = Tokenizer(models.WordLevel({"\udc00": 0, "a": 1}, unk_token="a"))
    path = tmp_path / "tokenizer.json"
    with pytest.raises(TokenizerFileError) as caught:
        tokenizer.save(str(path))
    assert str(caught.value) == f"{path}: cannot be written: it would hold a lone surrogate (U+DC00), which UTF-8 cannot encode"
    assert list(tmp_path.iterdir()) == []
