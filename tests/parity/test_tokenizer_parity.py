"""Whole-tokenizer parity with HF `tokenizers`: the same file gives the same encodings, both ways.

HF trains and writes tokenizer.json files (Whitespace BPE, byte-level BPE) and we load them; we
train and write files and HF loads them; the real BERT uncased tokenizer loads in both. Every
line of the shared corpora, and a set of nasty strings, must give identical ids, tokens and
(character) offsets.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import tokenizers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from support import CORPORA, corpus_path


NASTY = [
    "",
    " ",
    "   ",
    "\t\n",
    "\r\n",
    "line one\r\nline two\n",
    "Hello, world!",
    "  leading and trailing  ",
    "東京は日本の首都です。",
    "吾輩は猫である。名前はまだ無い。",
    "👩‍👩‍👧‍👦 family, 👍🏽 thumbs",
    "e\u0301 vs \u00e9, A\u030a vs \u00c5",
    "ﬁne ﬂour, Ⅻ, ①, ㎏",
    "Ελληνικά ΟΔΟΣ ΣΊΣΥΦΟΣ",
    "İstanbul ıi ẞ straße",
    "مرحبا بالعالم",
    "שלום עולם",
    "control\x00chars\x07\x1b[31m\x7f\u200b\u200d\ufeff",
    "numbers 123 4,567.89 ٣٤٥",
    "don't can't I'm we'll they've she'd",
    "[UNK] [CLS] [SEP] [MASK]",
    "a" * 300,
    "tab\there\u00a0nbsp\u2003em-space\u3000ideographic",
    "mixed日本語English混在text",
]

# Lines per corpus file: every line of the literary corpora; gcide is sampled (1.2 M lines).
CORPUS_FILES = {"shakespeare.txt": 1, "botchan.txt": 1, "wagahaiwa_nekodearu.txt": 1, "gcide.txt": 97}


def corpus_lines() -> Iterator[tuple[str, list[str]]]:
    for name, every in CORPUS_FILES.items():
        path = CORPORA / name
        if not path.is_file():
            continue
        with open(path, encoding="utf-8", newline="\n") as handle:
            lines = [line.rstrip("\n") for index, line in enumerate(handle) if index % every == 0]
        yield name, lines


def assert_same_encodings(ours: engine.Tokenizer, theirs: tokenizers.Tokenizer, texts: list[str], label: str) -> None:
    """Both sides encode the texts as one batch (so batch padding, if any, applies to both)."""
    their_encodings = theirs.encode_batch(texts)
    our_encodings = ours.encode_batch(list[str | tuple[str, str] | list[str]](texts))
    for text, expected, got in zip(texts, their_encodings, our_encodings, strict=True):
        if (got.ids, got.tokens, got.offsets) != (expected.ids, expected.tokens, expected.offsets):
            pytest.fail(
                f"{label}: encodings differ for {text!r}\n"
                f"  ours:   {list(zip(got.tokens, got.ids, got.offsets))[:40]}\n"
                f"  theirs: {list(zip(expected.tokens, expected.ids, expected.offsets))[:40]}"
            )


def hf_whitespace_bpe(files: list[str], vocab_size: int) -> tokenizers.Tokenizer:
    tok = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"], show_progress=False
    )
    tok.train(files, trainer)
    tok.post_processor = tokenizers.processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]
    )
    return tok


def hf_byte_level_bpe(files: list[str], vocab_size: int) -> tokenizers.Tokenizer:
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = tokenizers.decoders.ByteLevel()
    tok.post_processor = tokenizers.processors.ByteLevel(trim_offsets=True)
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train(files, trainer)
    return tok


def hf_cl100k_bpe(files: list[str], vocab_size: int, numbers: str = "{1,3}") -> tokenizers.Tokenizer:
    """GPT-4's, Llama 3's pre-tokenizer (Qwen2's with single numbers): cl100k's pattern split,
    then a ByteLevel without its regex; Llama 3's BPE ignores merges for whole-word tokens."""
    pattern = (
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}" + numbers
        + r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
    )
    tok = tokenizers.Tokenizer(tokenizers.models.BPE(ignore_merges=numbers == "{1,3}"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Sequence(
        [
            tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), behavior="isolated"),
            tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = tokenizers.decoders.ByteLevel()
    tok.post_processor = tokenizers.processors.ByteLevel(trim_offsets=True)
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size, initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train(files, trainer)
    return tok


def hf_qwen2_bpe(files: list[str], vocab_size: int) -> tokenizers.Tokenizer:
    return hf_cl100k_bpe(files, vocab_size, "")


CONFIGS = {
    ("whitespace-bpe", "shakespeare.txt"): (hf_whitespace_bpe, 5000),
    ("whitespace-bpe", "botchan.txt"): (hf_whitespace_bpe, 3000),
    ("byte-level-bpe", "shakespeare.txt"): (hf_byte_level_bpe, 5000),
    ("byte-level-bpe", "botchan.txt"): (hf_byte_level_bpe, 3000),
    ("cl100k-bpe", "botchan.txt"): (hf_cl100k_bpe, 3000),
    ("qwen2-bpe", "shakespeare.txt"): (hf_qwen2_bpe, 3000),
}


@pytest.fixture(scope="module")
def hf_written(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """tokenizer.json files written by HF after training each configuration on each corpus."""
    folder = tmp_path_factory.mktemp("hf-written")
    written: dict[tuple[str, str], Path] = {}
    for (config, corpus), (build, vocab_size) in CONFIGS.items():
        source = corpus_path(corpus)
        tok = build([str(source)], vocab_size)
        path = folder / f"{config}-{corpus}.json"
        tok.save(str(path))
        written[(config, corpus)] = path
    return written


@pytest.mark.parametrize("key", list(CONFIGS), ids=lambda k: f"{k[0]}-{k[1]}")
def test_hf_written_tokenizer_encodes_identically(hf_written: dict[tuple[str, str], Path], key: tuple[str, str]) -> None:
    path = hf_written[key]
    ours = engine.Tokenizer.from_file(str(path))
    theirs = tokenizers.Tokenizer.from_file(str(path))
    assert_same_encodings(ours, theirs, NASTY, f"{key} nasty strings")
    for name, lines in corpus_lines():
        assert_same_encodings(ours, theirs, lines, f"{key} on {name}")


@pytest.mark.parametrize("key", list(CONFIGS), ids=lambda k: f"{k[0]}-{k[1]}")
def test_hf_written_tokenizer_round_trips_through_our_writer(hf_written: dict[tuple[str, str], Path], key: tuple[str, str]) -> None:
    """Loading and saving again gives the same JSON document HF wrote."""
    path = hf_written[key]
    ours = engine.Tokenizer.from_file(str(path))
    assert json.loads(ours.to_str()) == json.loads(path.read_text(encoding="utf-8"))


def test_real_bert_uncased_tokenizer(corpora: Path) -> None:
    path = corpora / "bert_uncased_tokenizer.json"
    ours = engine.Tokenizer.from_file(str(path))
    theirs = tokenizers.Tokenizer.from_file(str(path))
    assert_same_encodings(ours, theirs, NASTY, "bert nasty strings")
    for name, lines in corpus_lines():
        assert_same_encodings(ours, theirs, lines, f"bert on {name}")
    pair_ours = ours.encode("How are you?", "Fine, thanks.")
    pair_theirs = theirs.encode("How are you?", "Fine, thanks.")
    for field in ("ids", "tokens", "offsets", "type_ids", "special_tokens_mask", "attention_mask", "word_ids", "sequence_ids"):
        assert getattr(pair_ours, field) == getattr(pair_theirs, field), field
    # the raw file predates some fields; compare with what HF itself writes for it
    assert json.loads(ours.to_str()) == json.loads(theirs.to_str())


@pytest.fixture(scope="module")
def engine_written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """tokenizer.json files trained and written by the engine."""
    folder = tmp_path_factory.mktemp("engine-written")
    source = str(corpus_path("shakespeare.txt"))
    written: dict[str, Path] = {}

    bpe = engine.Tokenizer(engine.models.BPE(unk_token="[UNK]"))
    bpe.pre_tokenizer = engine.pre_tokenizers.Whitespace()
    bpe.train([source], engine.trainers.BpeTrainer(vocab_size=4000, special_tokens=["[UNK]", "[PAD]"], show_progress=False))
    bpe.enable_truncation(64)
    bpe.enable_padding(pad_id=1, pad_token="[PAD]")
    written["whitespace-bpe"] = folder / "whitespace-bpe.json"
    bpe.save(str(written["whitespace-bpe"]))

    byte_level = engine.Tokenizer(engine.models.BPE())
    byte_level.pre_tokenizer = engine.pre_tokenizers.ByteLevel(add_prefix_space=False)
    byte_level.decoder = engine.decoders.ByteLevel()
    byte_level.post_processor = engine.processors.ByteLevel(trim_offsets=False)
    byte_level.train(
        [source],
        engine.trainers.BpeTrainer(
            vocab_size=4000, special_tokens=["<|endoftext|>"], initial_alphabet=engine.pre_tokenizers.ByteLevel.alphabet(), show_progress=False
        ),
    )
    written["byte-level-bpe"] = folder / "byte-level-bpe.json"
    byte_level.save(str(written["byte-level-bpe"]))

    word_level = engine.Tokenizer(engine.models.WordLevel(unk_token="[UNK]"))
    word_level.pre_tokenizer = engine.pre_tokenizers.Whitespace()
    word_level.train([source], engine.trainers.WordLevelTrainer(vocab_size=3000, special_tokens=["[UNK]"], show_progress=False))
    written["word-level"] = folder / "word-level.json"
    word_level.save(str(written["word-level"]))
    return written


@pytest.mark.parametrize("name", ["whitespace-bpe", "byte-level-bpe", "word-level"])
def test_engine_written_tokenizer_loads_in_hf_with_identical_encodings(engine_written: dict[str, Path], name: str) -> None:
    path = engine_written[name]
    ours = engine.Tokenizer.from_file(str(path))
    theirs = tokenizers.Tokenizer.from_file(str(path))
    assert_same_encodings(ours, theirs, NASTY, f"{name} nasty strings")
    for corpus, lines in corpus_lines():
        assert_same_encodings(ours, theirs, lines[:3000], f"{name} on {corpus}")
    # what HF writes back is what we wrote
    assert json.loads(theirs.to_str()) == json.loads(path.read_text(encoding="utf-8"))


# -- properties --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def byte_level_tokenizer(engine_written: dict[str, Path]) -> engine.Tokenizer:
    return engine.Tokenizer.from_file(str(engine_written["byte-level-bpe"]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text())
def test_byte_level_decode_inverts_encode(byte_level_tokenizer: engine.Tokenizer, text: str) -> None:
    encoding = byte_level_tokenizer.encode(text)
    assert byte_level_tokenizer.decode(encoding.ids) == text


def gpt2_unicode_to_byte() -> dict[str, int]:
    """The inverse of GPT-2's byte -> printable character map, written out independently."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    chars = list(printable)
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(printable, chars, strict=True)}


UNICODE_TO_BYTE = gpt2_unicode_to_byte()


@pytest.fixture(scope="module")
def untruncated(engine_written: dict[str, Path]) -> dict[str, engine.Tokenizer]:
    loaded: dict[str, engine.Tokenizer] = {}
    for name, path in engine_written.items():
        tokenizer = engine.Tokenizer.from_file(str(path))
        tokenizer.no_truncation()
        tokenizer.no_padding()
        loaded[name] = tokenizer
    return loaded


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text())
def test_offsets_slice_the_source_text_of_each_token(untruncated: dict[str, engine.Tokenizer], text: str) -> None:
    for name, tokenizer in untruncated.items():
        encoding = tokenizer.encode(text, add_special_tokens=False)
        for token, (start, end) in zip(encoding.tokens, encoding.offsets, strict=True):
            assert 0 <= start < end <= len(text), (name, token, start, end)
            if name == "byte-level-bpe":
                # a byte-level token may be part of a character: its span is the whole character(s)
                token_bytes = bytes(UNICODE_TO_BYTE[c] for c in token)
                assert token_bytes in text[start:end].encode("utf-8"), (token, text[start:end])
            elif token != "[UNK]":
                assert text[start:end] == token
