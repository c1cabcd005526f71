"""Parity with HF `tokenizers` for the pieces helper D owns: models, processors, decoders, Encoding.

Models: HF trains on the shared corpora, both sides load the same "model" object, and every
pre-tokenized word of a corpus must give the same ids, tokens and character offsets (HF's side
runs through its own pipeline, which turns its byte offsets into characters). Processors,
decoders and Encoding edits are compared on the same inputs, field by field, overflowing too.
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import Required, TypedDict

import pytest
import tokenizers

from engine import decoders as our_decoders
from engine import models as our_models
from engine import processors as our_processors
from engine.models.bpe.model import BPE
from engine.encoding import Encoding
from engine.padding import PaddingParams, pad_encodings
from engine.truncation import TruncationParams, truncate_encodings
from engine.pattern import Regex
from engine.processors.template import SpecialTokenSpec
from engine.models.wordlevel.model import WordLevel
from engine.models.wordpiece.model import WordPiece

hf_models = tokenizers.models
hf_pre = tokenizers.pre_tokenizers
hf_trainers = tokenizers.trainers
hf_decoders = tokenizers.decoders
hf_processors = tokenizers.processors


# -- helpers ----------------------------------------------------------------------------------


def hf_json(tokenizer: tokenizers.Tokenizer) -> dict[str, object]:
    data = json.loads(tokenizer.to_str())
    assert isinstance(data, dict)
    return data


def hf_tokenizer(model: dict[str, object]) -> tokenizers.Tokenizer:
    """An HF tokenizer made of `model` only, so encode() runs the model on the whole input."""
    document: dict[str, object] = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": None,
        "model": model,
    }
    return tokenizers.Tokenizer.from_str(json.dumps(document))


def hf_pieces(tokenizer: tokenizers.Tokenizer, words: list[str]) -> list[list[tuple[int, str, tuple[int, int]]]]:
    encodings = tokenizer.encode_batch(words, add_special_tokens=False)
    return [list(zip(e.ids, e.tokens, e.offsets)) for e in encodings]


def our_pieces(model: our_models.Model, words: list[str]) -> list[list[tuple[int, str, tuple[int, int]]]]:
    result: list[list[tuple[int, str, tuple[int, int]]]] = []
    for word in words:
        result.append([(t.id, t.value, (t.start, t.end)) for t in model.tokenize_run(word).tokens()])
    return result


def assert_same_pieces(model: our_models.Model, hf_model_dict: dict[str, object], words: list[str]) -> None:
    """Char offsets as both pipelines give them, and HF's `model.tokenize` (byte offsets) too."""
    theirs_tokenizer = hf_tokenizer(hf_model_dict)
    ours = our_pieces(model, words)
    theirs = hf_pieces(theirs_tokenizer, words)
    mismatches = [(w, o, t) for w, o, t in zip(words, ours, theirs) if o != t]
    assert not mismatches, f"{len(mismatches)} of {len(words)} words differ, first: {mismatches[:3]}"
    hf_model = theirs_tokenizer.model
    for word in words[:3000]:
        mine = [(t.id, t.value, t.offsets) for t in model.tokenize(word)]
        expected = [(t.id, t.value, t.offsets) for t in hf_model.tokenize(word)]
        assert mine == expected, f"model.tokenize({word!r}) differs from HF's (byte offsets)"


def corpus_words(path: Path, pre_tokenizer: hf_pre.PreTokenizer, limit: int = 0) -> list[str]:
    """Distinct pre-tokenized pieces of a corpus, in order of first appearance."""
    seen: dict[str, None] = {}
    with open(path, encoding="utf-8", newline="\n") as handle:
        for line in handle:
            for piece, _ in pre_tokenizer.pre_tokenize_str(line):
                seen.setdefault(piece, None)
            if limit and len(seen) >= limit:
                break
    return list(seen)


@functools.lru_cache(maxsize=None)
def trained(corpora: Path, kind: str) -> dict[str, object]:
    """The tokenizer.json of an HF-trained tokenizer (cached per kind)."""
    trainer: hf_trainers.Trainer
    if kind == "whitespace":
        tokenizer = tokenizers.Tokenizer(hf_models.BPE(unk_token="[UNK]"))
        tokenizer.pre_tokenizer = hf_pre.Whitespace()
        trainer = hf_trainers.BpeTrainer(vocab_size=3000, special_tokens=["[UNK]"], show_progress=False)
    elif kind == "bytelevel":
        tokenizer = tokenizers.Tokenizer(hf_models.BPE())
        tokenizer.pre_tokenizer = hf_pre.ByteLevel(add_prefix_space=False)
        trainer = hf_trainers.BpeTrainer(
            vocab_size=4000, initial_alphabet=hf_pre.ByteLevel.alphabet(), show_progress=False
        )
    elif kind == "prefix":
        tokenizer = tokenizers.Tokenizer(hf_models.BPE(unk_token="[UNK]"))
        tokenizer.pre_tokenizer = hf_pre.Whitespace()
        trainer = hf_trainers.BpeTrainer(
            vocab_size=2500, special_tokens=["[UNK]"], continuing_subword_prefix="##", show_progress=False
        )
    elif kind == "suffix":
        tokenizer = tokenizers.Tokenizer(hf_models.BPE(unk_token="[UNK]", end_of_word_suffix="</w>"))
        tokenizer.pre_tokenizer = hf_pre.Whitespace()
        trainer = hf_trainers.BpeTrainer(
            vocab_size=2500, special_tokens=["[UNK]"], end_of_word_suffix="</w>", show_progress=False
        )
    elif kind == "wordlevel":
        tokenizer = tokenizers.Tokenizer(hf_models.WordLevel(unk_token="[UNK]"))
        tokenizer.pre_tokenizer = hf_pre.Whitespace()
        trainer = hf_trainers.WordLevelTrainer(vocab_size=3000, special_tokens=["[UNK]"], show_progress=False)
    else:
        raise AssertionError(kind)
    corpus = "wagahaiwa_nekodearu.txt" if kind == "bytelevel" else "botchan.txt"
    tokenizer.train([str(corpora / corpus)], trainer)
    return hf_json(tokenizer)


def model_of(corpora: Path, kind: str, **changes: object) -> dict[str, object]:
    model = trained(corpora, kind)["model"]
    assert isinstance(model, dict)
    return {**model, **changes}


def with_byte_tokens(model: dict[str, object], keep: range) -> dict[str, object]:
    """`model` plus "<0xNN>" tokens for the bytes in `keep` (ids after the vocab)."""
    given = model["vocab"]
    assert isinstance(given, dict)
    vocab = dict(given)
    for byte in keep:
        vocab.setdefault(f"<0x{byte:02X}>", len(vocab))
    return {**model, "vocab": vocab, "byte_fallback": True}


@pytest.fixture
def shakespeare_words(corpora: Path) -> list[str]:
    return corpus_words(corpora / "shakespeare.txt", hf_pre.Whitespace())


@pytest.fixture
def japanese_words(corpora: Path) -> list[str]:
    return corpus_words(corpora / "wagahaiwa_nekodearu.txt", hf_pre.Whitespace(), limit=8000)


# -- BPE --------------------------------------------------------------------------------------


def test_bpe_whitespace_model_on_every_word(corpora: Path, shakespeare_words: list[str]) -> None:
    model = model_of(corpora, "whitespace")
    ours = BPE.from_dict(model)
    assert ours.to_dict() == model
    assert_same_pieces(ours, model, shakespeare_words)


def test_bpe_fuse_unk_and_ignore_merges(corpora: Path, shakespeare_words: list[str], japanese_words: list[str]) -> None:
    words = shakespeare_words + japanese_words[:2000]
    for changes in ({"fuse_unk": True}, {"ignore_merges": True}, {"fuse_unk": True, "ignore_merges": True}):
        model = model_of(corpora, "whitespace", **changes)
        ours = BPE.from_dict(model)
        assert ours.to_dict() == model
        assert_same_pieces(ours, model, words)


def test_bpe_byte_level_model(corpora: Path) -> None:
    model = model_of(corpora, "bytelevel")
    ours = BPE.from_dict(model)
    assert ours.to_dict() == model
    pre = hf_pre.ByteLevel(add_prefix_space=True)
    words = corpus_words(corpora / "wagahaiwa_nekodearu.txt", pre) + corpus_words(corpora / "botchan.txt", pre)
    assert_same_pieces(ours, model, words)


@pytest.mark.parametrize("fuse_unk", [False, True])
@pytest.mark.parametrize("keep", [range(256), range(0xE4)], ids=["all-bytes", "some-bytes"])
def test_bpe_byte_fallback(corpora: Path, japanese_words: list[str], shakespeare_words: list[str], keep: range, fuse_unk: bool) -> None:
    # With some byte tokens missing, unknown chars mix unk and byte tokens (HF's ordering quirk).
    model = with_byte_tokens(model_of(corpora, "whitespace", fuse_unk=fuse_unk), keep)
    ours = BPE.from_dict(model)
    assert ours.to_dict() == model
    words = japanese_words + shakespeare_words[:3000] + ["naïve€x", "x€é", "😀a😀"]
    assert_same_pieces(ours, model, words)


def test_bpe_continuing_subword_prefix(corpora: Path, shakespeare_words: list[str], japanese_words: list[str]) -> None:
    model = model_of(corpora, "prefix")
    assert model["continuing_subword_prefix"] == "##"
    ours = BPE.from_dict(model)
    assert ours.to_dict() == model
    assert_same_pieces(ours, model, shakespeare_words + japanese_words[:1000])


def test_bpe_end_of_word_suffix(corpora: Path, shakespeare_words: list[str]) -> None:
    model = model_of(corpora, "suffix")
    assert model["end_of_word_suffix"] == "</w>"
    ours = BPE.from_dict(model)
    assert ours.to_dict() == model
    assert_same_pieces(ours, model, shakespeare_words)


def test_bpe_full_dropout_applies_no_merge(corpora: Path, shakespeare_words: list[str]) -> None:
    model = model_of(corpora, "whitespace", dropout=1.0)
    ours = BPE.from_dict(model)
    assert ours.to_dict() == model
    assert_same_pieces(ours, model, shakespeare_words[:2000])


def test_bpe_partial_dropout_stays_within_the_vocabulary(corpora: Path, shakespeare_words: list[str]) -> None:
    model = model_of(corpora, "whitespace", dropout=0.3)
    ours = BPE.from_dict(model)
    plain = BPE.from_dict(model_of(corpora, "whitespace"))
    random.seed(7)
    changed = 0
    for word in shakespeare_words[:2000]:
        pieces = ours.tokenize(word)
        # Dropout only skips merges: the pieces still spell the word and cover it in order.
        assert "".join(t.value for t in pieces) == word
        assert [t.start for t in pieces[1:]] == [t.end for t in pieces[:-1]]
        changed += [t.value for t in pieces] != [t.value for t in plain.tokenize(word)]
    assert changed > 100


class BpeOptions(TypedDict, total=False):
    """The BPE options both constructors take by keyword."""

    dropout: float
    unk_token: str
    continuing_subword_prefix: str
    end_of_word_suffix: str
    fuse_unk: bool
    byte_fallback: bool
    ignore_merges: bool


PLAIN_VOCAB = {"<unk>": 0, "a": 1, "b": 2, "ab": 3, "c": 4, "ca": 5}
PLAIN_MERGES = [("a", "b"), ("c", "a")]
PREFIX_VOCAB = {"<unk>": 0, "a": 1, "##b": 2, "ab": 3}
PREFIX_MERGES = [("a", "##b")]


@pytest.mark.parametrize(
    ("vocab", "merges", "kwargs"),
    [
        (PLAIN_VOCAB, PLAIN_MERGES, {}),
        (PLAIN_VOCAB, PLAIN_MERGES, {"unk_token": "<unk>", "fuse_unk": True}),
        (PREFIX_VOCAB, PREFIX_MERGES, {"dropout": 0.25, "continuing_subword_prefix": "##", "end_of_word_suffix": "</w>"}),
        (PLAIN_VOCAB, PLAIN_MERGES, {"byte_fallback": True, "ignore_merges": True}),
    ],
)
def test_bpe_to_dict_equals_hf(vocab: dict[str, int], merges: list[tuple[str, str]], kwargs: BpeOptions) -> None:
    hf = tokenizers.Tokenizer(hf_models.BPE(vocab, merges, **kwargs))
    ours = BPE(vocab, merges, **kwargs)
    assert ours.to_dict() == hf_json(hf)["model"]


def test_bpe_files_match_hf(tmp_path: Path, corpora: Path) -> None:
    model = model_of(corpora, "whitespace")
    ours = BPE.from_dict(model)
    hf = hf_tokenizer(model)
    (tmp_path / "ours").mkdir()
    (tmp_path / "hf").mkdir()
    ours.save(str(tmp_path / "ours"), "x")
    hf.model.save(str(tmp_path / "hf"), "x")
    for name in ("x-vocab.json", "x-merges.txt"):
        assert (tmp_path / "ours" / name).read_bytes() == (tmp_path / "hf" / name).read_bytes()
    vocab, merges = BPE.read_file(str(tmp_path / "hf" / "x-vocab.json"), str(tmp_path / "hf" / "x-merges.txt"))
    hf_vocab, hf_merges = hf_models.BPE.read_file(str(tmp_path / "hf" / "x-vocab.json"), str(tmp_path / "hf" / "x-merges.txt"))
    assert vocab == hf_vocab and merges == hf_merges


# -- WordPiece --------------------------------------------------------------------------------


def test_wordpiece_on_the_real_bert_vocab(corpora: Path) -> None:
    vocab_path = str(corpora / "bert_uncased_vocab.txt")
    ours = WordPiece.from_file(vocab_path)
    hf = hf_models.WordPiece.from_file(vocab_path)
    assert WordPiece.read_file(vocab_path) == hf_models.WordPiece.read_file(vocab_path)
    hf_model = hf_json(tokenizers.Tokenizer(hf))["model"]
    assert isinstance(hf_model, dict)
    assert ours.to_dict() == hf_model
    pre = hf_pre.BertPreTokenizer()
    words: dict[str, None] = {}
    for name in ("shakespeare.txt", "botchan.txt"):
        with open(corpora / name, encoding="utf-8") as handle:
            for line in handle:
                for piece, _ in pre.pre_tokenize_str(line.lower()):
                    words.setdefault(piece, None)
    words_list = list(words) + ["ééé" * 40, "unaffable", "東京", "x" * 101]
    assert_same_pieces(ours, hf_model, words_list)


def test_wordpiece_options_and_tokenizer_json(corpora: Path) -> None:
    data = json.loads((corpora / "bert_uncased_tokenizer.json").read_text(encoding="utf-8"))
    model = data["model"]
    ours = our_models.from_dict(model)
    assert isinstance(ours, WordPiece)
    assert ours.to_dict() == model
    small = {**model, "max_input_chars_per_word": 5, "continuing_subword_prefix": "##"}
    words = ["hello", "unbelievable", "tokenization", "abcdef", "abcde", "école"]
    assert_same_pieces(WordPiece.from_dict(small), small, words)


def test_wordpiece_save_matches_hf(tmp_path: Path, corpora: Path) -> None:
    vocab_path = str(corpora / "bert_uncased_vocab.txt")
    (tmp_path / "ours").mkdir()
    (tmp_path / "hf").mkdir()
    WordPiece.from_file(vocab_path).save(str(tmp_path / "ours"))
    hf_models.WordPiece.from_file(vocab_path).save(str(tmp_path / "hf"))
    assert (tmp_path / "ours" / "vocab.txt").read_bytes() == (tmp_path / "hf" / "vocab.txt").read_bytes()


# -- WordLevel --------------------------------------------------------------------------------


def test_wordlevel_model(corpora: Path, shakespeare_words: list[str], tmp_path: Path) -> None:
    model = model_of(corpora, "wordlevel")
    ours = WordLevel.from_dict(model)
    assert ours.to_dict() == model
    assert_same_pieces(ours, model, shakespeare_words)
    (tmp_path / "ours").mkdir()
    (tmp_path / "hf").mkdir()
    ours.save(str(tmp_path / "ours"))
    hf_tokenizer(model).model.save(str(tmp_path / "hf"))
    assert (tmp_path / "ours" / "vocab.json").read_bytes() == (tmp_path / "hf" / "vocab.json").read_bytes()
    hf = tokenizers.Tokenizer(hf_models.WordLevel({"a": 0, "b": 1}, unk_token="b"))
    assert WordLevel({"a": 0, "b": 1}, unk_token="b").to_dict() == hf_json(hf)["model"]


def test_models_from_dict_dispatch(corpora: Path) -> None:
    for kind, cls in (("whitespace", BPE), ("wordlevel", WordLevel)):
        model = model_of(corpora, kind)
        assert isinstance(our_models.from_dict(model), cls)
        untagged = {k: v for k, v in model.items() if k != "type"}
        assert isinstance(our_models.from_dict(untagged), cls)


# -- Encoding views ---------------------------------------------------------------------------


def view(encoding: Encoding | tokenizers.Encoding) -> dict[str, object]:
    """Everything HF's Python Encoding shows, our Encoding or HF's alike (overflowing included)."""
    e = encoding
    n = len(e.ids)
    offsets = e.offsets
    words = e.word_ids
    last_char = max([end for _, end in offsets], default=0) + 1
    last_word = max([w for w in words if w is not None], default=0) + 1
    # Probe every position of short encodings, a spread of them in long ones (both sides pay
    # a linear search per probe).
    chars = range(0, last_char, max(1, last_char // 24))
    word_probes = range(0, last_word, max(1, last_word // 12))
    token_probes = range(0, n + 1, max(1, n // 24))
    return {
        "ids": e.ids,
        "type_ids": e.type_ids,
        "tokens": e.tokens,
        "offsets": offsets,
        "word_ids": words,
        "special_tokens_mask": e.special_tokens_mask,
        "attention_mask": e.attention_mask,
        "sequence_ids": e.sequence_ids,
        "n_sequences": e.n_sequences,
        "token_to_sequence": [e.token_to_sequence(i) for i in token_probes],
        "token_to_word": [e.token_to_word(i) for i in token_probes],
        "token_to_chars": [e.token_to_chars(i) for i in token_probes],
        "end_probes": [(e.token_to_sequence(i), e.token_to_chars(i)) for i in sorted({max(n - 1, 0), n, n + 1})],
        "char_to_token": [[e.char_to_token(c, s) for c in chars] for s in (0, 1)],
        "char_to_word": [[e.char_to_word(c, s) for c in chars] for s in (0, 1)],
        "word_to_tokens": [[e.word_to_tokens(w, s) for w in word_probes] for s in (0, 1)],
        "word_to_chars": [[e.word_to_chars(w, s) for w in word_probes] for s in (0, 1)],
        "overflowing": [view(o) for o in e.overflowing],
    }


def ours_from_hf(encoding: tokenizers.Encoding) -> Encoding:
    """Our copy of an HF encoding straight from `encode` (one sequence: no sequence ranges)."""
    e = encoding
    assert e.n_sequences == 1
    return Encoding(
        list(e.ids),
        list(e.type_ids),
        list(e.tokens),
        list(e.word_ids),
        list(e.offsets),
        list(e.special_tokens_mask),
        list(e.attention_mask),
        [ours_from_hf(o) for o in e.overflowing],
    )


@functools.lru_cache(maxsize=None)
def raw_tokenizer(corpora: Path, add_prefix_space: bool, window: int) -> tokenizers.Tokenizer:
    """Byte-level BPE without post-processor; `window` > 0 truncates with stride (overflowing)."""
    tokenizer = tokenizers.Tokenizer.from_str(json.dumps(trained(corpora, "bytelevel")))
    tokenizer.pre_tokenizer = hf_pre.ByteLevel(add_prefix_space=add_prefix_space)
    if window:
        tokenizer.enable_truncation(window, stride=2)
    return tokenizer


@functools.lru_cache(maxsize=None)
def sample_lines(corpora: Path) -> tuple[str, ...]:
    lines: list[str] = []
    for name in ("botchan.txt", "wagahaiwa_nekodearu.txt"):
        with open(corpora / name, encoding="utf-8") as handle:
            kept = [line.rstrip("\n") for line in handle if line.strip()]
        lines.extend(kept[:: max(1, len(kept) // 40)][:40])
    lines.extend(["", " ", "  Hello  world  ", "a"])
    return tuple(lines)


def raw_inputs(corpora: Path, add_prefix_space: bool = True, window: int = 0) -> list[tuple[tokenizers.Encoding, tokenizers.Encoding]]:
    """(first, second) raw HF encodings of consecutive sample lines."""
    tokenizer = raw_tokenizer(corpora, add_prefix_space, window)
    lines = sample_lines(corpora)
    encodings = tokenizer.encode_batch(list(lines))
    if window:
        # subtle: a pair's overflowing parts combine pairwise, so keep inputs with few windows.
        encodings = [e for e in encodings if len(e.overflowing) <= 4]
    return [(encodings[i], encodings[(i + 1) % len(encodings)]) for i in range(len(encodings))]


# -- processors -------------------------------------------------------------------------------


def processor_pairs() -> list[tuple[str, hf_processors.PostProcessor, our_processors.PostProcessor]]:
    bert_special: list[SpecialTokenSpec] = [("[CLS]", 1), ("[SEP]", 2)]
    multi: dict[str, object] = {"id": "<sep>", "ids": [3, 4], "tokens": ["<", "sep>"]}
    return [
        ("bert", hf_processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1)), our_processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))),
        ("roberta", hf_processors.RobertaProcessing(("</s>", 2), ("<s>", 0)), our_processors.RobertaProcessing(("</s>", 2), ("<s>", 0))),
        (
            "roberta-no-prefix",
            hf_processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True, add_prefix_space=False),
            our_processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True, add_prefix_space=False),
        ),
        (
            "roberta-untrimmed",
            hf_processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=False),
            our_processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=False),
        ),
        ("bytelevel", hf_processors.ByteLevel(), our_processors.ByteLevel()),
        ("bytelevel-no-prefix", hf_processors.ByteLevel(add_prefix_space=False), our_processors.ByteLevel(add_prefix_space=False)),
        ("bytelevel-untrimmed", hf_processors.ByteLevel(trim_offsets=False), our_processors.ByteLevel(trim_offsets=False)),
        (
            "template-bert",
            hf_processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=bert_special),
            our_processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=bert_special),
        ),
        (
            "template-odd",
            hf_processors.TemplateProcessing(single=["$0", "<sep>:3"], pair="$B:2 <sep> $A:1 $B", special_tokens=[multi]),
            our_processors.TemplateProcessing(single=["$0", "<sep>:3"], pair="$B:2 <sep> $A:1 $B", special_tokens=[multi]),
        ),
        ("template-default", hf_processors.TemplateProcessing(), our_processors.TemplateProcessing()),
        (
            "sequence",
            hf_processors.Sequence([hf_processors.ByteLevel(), hf_processors.TemplateProcessing(single="[CLS] $A", pair="[CLS] $A $B:1", special_tokens=bert_special)]),
            our_processors.Sequence([our_processors.ByteLevel(), our_processors.TemplateProcessing(single="[CLS] $A", pair="[CLS] $A $B:1", special_tokens=bert_special)]),
        ),
    ]


PROCESSOR_NAMES = [name for name, _, _ in processor_pairs()]


@pytest.mark.parametrize("name", PROCESSOR_NAMES)
def test_processor_outputs(corpora: Path, name: str) -> None:
    [(hf, ours)] = [(h, o) for n, h, o in processor_pairs() if n == name]
    assert ours.num_special_tokens_to_add(False) == hf.num_special_tokens_to_add(False)
    assert ours.num_special_tokens_to_add(True) == hf.num_special_tokens_to_add(True)
    for add_prefix_space, window in ((True, 0), (False, 0), (True, 6)):
        for first, second in raw_inputs(corpora, add_prefix_space, window):
            for pair in (None, second):
                for add in (True, False):
                    expected = hf.process(first, pair, add)
                    got = ours.process(ours_from_hf(first), ours_from_hf(pair) if pair is not None else None, add)
                    assert view(got) == view(expected), (name, first.tokens, add)


@pytest.mark.parametrize("name", PROCESSOR_NAMES)
def test_processor_to_dict_equals_hf(name: str) -> None:
    [(hf, ours)] = [(h, o) for n, h, o in processor_pairs() if n == name]
    tokenizer = tokenizers.Tokenizer(hf_models.BPE())
    tokenizer.post_processor = hf
    expected = hf_json(tokenizer)["post_processor"]
    assert ours.to_dict() == expected
    assert our_processors.from_dict(expected).to_dict() == expected


# -- truncation + post-processing + padding (HF Tokenizer.post_process) -------------------------


def our_post_process(
    encoding: Encoding,
    pair: Encoding | None,
    add_special_tokens: bool,
    processor: our_processors.PostProcessor | None,
    truncation: TruncationParams | None,
    padding: PaddingParams | None,
) -> Encoding:
    """What HF's `Tokenizer::post_process` does, from our parts (the Tokenizer's recipe)."""
    if truncation is not None:
        added = processor.num_special_tokens_to_add(pair is not None) if processor is not None else 0
        params = truncation.with_max_length(truncation.max_length - added) if add_special_tokens and added > 0 else truncation
        encoding, pair = truncate_encodings(encoding, pair, params)
    if processor is not None:
        final = processor.process_owned(encoding, pair, add_special_tokens)
    else:
        final = our_processors.default_process(encoding, pair, add_special_tokens)
    if padding is not None:
        pad_encodings([final], padding)
    return final


class Truncation(TypedDict, total=False):
    max_length: Required[int]
    stride: int
    strategy: str
    direction: str


class Padding(TypedDict, total=False):
    length: int
    direction: str
    pad_id: int
    pad_type_id: int
    pad_token: str
    pad_to_multiple_of: int


SETTINGS: list[tuple[str | None, Truncation, Padding]] = [
    (None, {"max_length": 12}, {}),
    ("bert", {"max_length": 12, "stride": 3}, {"length": 16, "direction": "left", "pad_id": 7, "pad_token": "<p>"}),
    ("bert", {"max_length": 9, "strategy": "only_first", "direction": "left"}, {"pad_to_multiple_of": 8}),
    ("template-bert", {"max_length": 20, "strategy": "only_second", "stride": 1}, {"pad_type_id": 1}),
    ("roberta", {"max_length": 3}, {}),
    ("sequence", {"max_length": 7, "stride": 2, "direction": "left"}, {"length": 4}),
    (None, {"max_length": 0}, {}),
]


@pytest.mark.parametrize(("processor_name", "truncation", "padding"), SETTINGS)
def test_truncate_process_pad_like_hf_post_process(
    corpora: Path, processor_name: str | None, truncation: Truncation, padding: Padding
) -> None:
    processors_by_name = {n: (h, o) for n, h, o in processor_pairs()}
    hf_tok = tokenizers.Tokenizer(hf_models.BPE())
    ours_processor: our_processors.PostProcessor | None = None
    if processor_name is not None:
        hf_tok.post_processor, ours_processor = processors_by_name[processor_name]
    max_length = truncation["max_length"]
    rest = {k: v for k, v in truncation.items() if k != "max_length"}
    hf_tok.enable_truncation(max_length, **rest)
    hf_tok.enable_padding(**padding)
    ours_truncation = TruncationParams(**truncation)
    ours_padding = PaddingParams(**padding)
    assert ours_truncation.to_python_dict() == hf_tok.truncation
    assert ours_padding.to_python_dict() == hf_tok.padding
    data = hf_json(hf_tok)
    assert ours_truncation.to_dict() == data["truncation"]
    assert ours_padding.to_dict() == data["padding"]
    assert TruncationParams.from_dict(data["truncation"]) == ours_truncation
    assert PaddingParams.from_dict(data["padding"]) == ours_padding
    for first, second in raw_inputs(corpora)[:40]:
        # subtle: a long pair truncated with a stride has windows x windows overflowing parts.
        pairs = (None, second) if len(first.ids) + len(second.ids) <= 80 else (None,)
        for pair in pairs:
            for add in (True, False):
                try:
                    expected = hf_tok.post_process(first, pair, add)
                except Exception as error:  # HF's TruncationError: ours must refuse too
                    with pytest.raises(Exception, match=str(error)[:40].replace("(", ".").replace(")", ".")):
                        our_post_process(ours_from_hf(first), ours_from_hf(pair) if pair is not None else None, add, ours_processor, ours_truncation, ours_padding)
                    continue
                got = our_post_process(
                    ours_from_hf(first), ours_from_hf(pair) if pair is not None else None, add, ours_processor, ours_truncation, ours_padding
                )
                assert view(got) == view(expected), (first.tokens, add)


def test_batch_padding_like_hf(corpora: Path) -> None:
    hf_tok = tokenizers.Tokenizer.from_str(json.dumps(trained(corpora, "bytelevel")))
    hf_tok.pre_tokenizer = hf_pre.ByteLevel()
    lines = list(sample_lines(corpora))[:30]
    raw = hf_tok.encode_batch(lines)
    hf_tok.enable_padding(direction="left", pad_to_multiple_of=5, pad_id=3)
    expected = hf_tok.encode_batch(lines)
    ours = [ours_from_hf(e) for e in raw]
    pad_encodings(ours, PaddingParams(direction="left", pad_to_multiple_of=5, pad_id=3))
    assert [view(e) for e in ours] == [view(e) for e in expected]


# -- Encoding edits ---------------------------------------------------------------------------


@pytest.mark.parametrize("direction", ["right", "left"])
def test_encoding_truncate_like_hf(corpora: Path, direction: str) -> None:
    for first, second in raw_inputs(corpora)[:50]:
        for max_length, stride in ((0, 0), (1, 0), (3, 0), (5, 2), (7, 6), (1000, 0)):
            for source in (first, second):
                ours = ours_from_hf(source)
                expected = tokenizers.Encoding.merge([source], growing_offsets=False)
                expected.truncate(max_length, stride=stride, direction=direction)
                ours.truncate(max_length, stride, direction)
                assert view(ours) == view(expected)


def test_encoding_pad_like_hf(corpora: Path) -> None:
    for first, _ in raw_inputs(corpora, window=6)[:40]:
        for length, direction in ((0, "right"), (12, "right"), (12, "left"), (3, "left")):
            expected = tokenizers.Encoding.merge([first], growing_offsets=False)
            expected.pad(length, direction=direction, pad_id=9, pad_type_id=2, pad_token="<pad>")
            ours = ours_from_hf(first)
            ours.pad(length, direction=direction, pad_id=9, pad_type_id=2, pad_token="<pad>")
            assert view(ours) == view(expected)


@pytest.mark.parametrize("growing_offsets", [True, False])
def test_encoding_merge_like_hf(corpora: Path, growing_offsets: bool) -> None:
    plain = raw_inputs(corpora)
    windowed = raw_inputs(corpora, window=5)
    for index in range(0, 40, 3):
        group = [plain[index][0], windowed[index % len(windowed)][1], plain[index + 1][0], windowed[(index + 2) % len(windowed)][0]]
        expected = tokenizers.Encoding.merge(group, growing_offsets=growing_offsets)
        ours = Encoding.merge([ours_from_hf(e) for e in group], growing_offsets)
        assert view(ours) == view(expected)


def test_default_process_like_hf(corpora: Path) -> None:
    tokenizer = raw_tokenizer(corpora, True, 0)
    lines = sample_lines(corpora)
    for index in range(0, 60, 5):
        expected = tokenizer.encode(lines[index], lines[index + 1])
        first = tokenizer.encode(lines[index])
        second = tokenizer.encode(lines[index + 1])
        second_ours = ours_from_hf(second)
        second_ours.type_ids = [1] * len(second_ours.ids)
        got = our_processors.default_process(ours_from_hf(first), second_ours)
        assert view(got) == view(expected)


# -- decoders ---------------------------------------------------------------------------------


def decoder_pairs() -> list[tuple[str, hf_decoders.Decoder, our_decoders.Decoder]]:
    return [
        ("bytelevel", hf_decoders.ByteLevel(), our_decoders.ByteLevel()),
        ("wordpiece", hf_decoders.WordPiece(), our_decoders.WordPiece()),
        ("wordpiece-raw", hf_decoders.WordPiece(prefix="@@", cleanup=False), our_decoders.WordPiece(prefix="@@", cleanup=False)),
        ("metaspace", hf_decoders.Metaspace(), our_decoders.Metaspace()),
        ("metaspace-never", hf_decoders.Metaspace(replacement="_", prepend_scheme="never"), our_decoders.Metaspace(replacement="_", prepend_scheme="never")),
        ("metaspace-first", hf_decoders.Metaspace(prepend_scheme="first", split=False), our_decoders.Metaspace(prepend_scheme="first", split=False)),
        ("bpe", hf_decoders.BPEDecoder(), our_decoders.BPEDecoder()),
        ("bpe-suffix", hf_decoders.BPEDecoder(suffix="@"), our_decoders.BPEDecoder(suffix="@")),
        ("bytefallback", hf_decoders.ByteFallback(), our_decoders.ByteFallback()),
        ("fuse", hf_decoders.Fuse(), our_decoders.Fuse()),
        ("strip", hf_decoders.Strip(content="a", left=2, right=1), our_decoders.Strip(content="a", left=2, right=1)),
        ("replace", hf_decoders.Replace("▁", " "), our_decoders.Replace("▁", " ")),
        ("replace-regex", hf_decoders.Replace(tokenizers.Regex(r"[0-9]+|x"), "#"), our_decoders.Replace(Regex(r"[0-9]+|x"), "#")),
        ("ctc", hf_decoders.CTC(), our_decoders.CTC()),
        ("ctc-raw", hf_decoders.CTC(pad_token="a", word_delimiter_token="b", cleanup=False), our_decoders.CTC(pad_token="a", word_delimiter_token="b", cleanup=False)),
        (
            "sequence",
            hf_decoders.Sequence([hf_decoders.Replace("▁", " "), hf_decoders.ByteFallback(), hf_decoders.Fuse(), hf_decoders.Strip(" ", 1, 0)]),
            our_decoders.Sequence([our_decoders.Replace("▁", " "), our_decoders.ByteFallback(), our_decoders.Fuse(), our_decoders.Strip(" ", 1, 0)]),
        ),
    ]


DECODER_NAMES = [name for name, _, _ in decoder_pairs()]


@functools.lru_cache(maxsize=None)
def token_lists(corpora: Path) -> tuple[tuple[str, ...], ...]:
    """Real token lists (byte-level, WordPiece, suffixed, byte-fallback) plus random ones."""
    lines = list(sample_lines(corpora))
    lists: list[tuple[str, ...]] = []
    byte_level = raw_tokenizer(corpora, True, 0)
    lists.extend(tuple(e.tokens) for e in byte_level.encode_batch(lines))
    bert = tokenizers.Tokenizer.from_file(str(corpora / "bert_uncased_tokenizer.json"))
    lists.extend(tuple(e.tokens) for e in bert.encode_batch(lines))
    suffix = tokenizers.Tokenizer.from_str(json.dumps(trained(corpora, "suffix")))
    lists.extend(tuple(e.tokens) for e in suffix.encode_batch(lines))
    fallback = hf_tokenizer(with_byte_tokens(model_of(corpora, "whitespace"), range(0xE4)))
    lists.extend(tuple(e.tokens) for e in fallback.encode_batch(lines))
    rng = random.Random(11)
    alphabet = ["▁", "▁a", "a▁b", "##x", "@@y", "</w>", "ab</w>", "@", "<pad>", "|", "a", "b", "aa", " ", "  x", "12", "x9x", ",", " .", "n't", "<0xE3>", "<0x81>", "<0x82>", "<0x41>", "<0xZZ>", "<0x+F>", "Ġ", "é", "€", "Ã", "©"]
    for _ in range(400):
        lists.append(tuple(rng.choice(alphabet) for _ in range(rng.randint(0, 8))))
    byte_chars = sorted(hf_pre.ByteLevel.alphabet())
    for _ in range(300):
        lists.append(tuple("".join(rng.choice(byte_chars) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 6))))
    return tuple(lists)


@pytest.mark.parametrize("name", DECODER_NAMES)
def test_decoder_outputs(corpora: Path, name: str) -> None:
    [(hf, ours)] = [(h, o) for n, h, o in decoder_pairs() if n == name]
    checked = 0
    for tokens in token_lists(corpora):
        if name == "strip" and any(token and set(token) == {"a"} for token in tokens):
            continue  # HF panics when Strip would cut a whole token (ours returns "")
        expected = hf.decode(list(tokens))
        assert ours.decode(list(tokens)) == expected, tokens
        checked += 1
    assert checked > 500


@pytest.mark.parametrize("name", DECODER_NAMES)
def test_decoder_to_dict_equals_hf(name: str) -> None:
    [(hf, ours)] = [(h, o) for n, h, o in decoder_pairs() if n == name]
    tokenizer = tokenizers.Tokenizer(hf_models.BPE())
    tokenizer.decoder = hf
    expected = hf_json(tokenizer)["decoder"]
    assert ours.to_dict() == expected
    assert our_decoders.from_dict(expected).to_dict() == expected
