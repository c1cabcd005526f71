"""Every tokenizer file format behind one door: `detect` a file's format, `load` any of them into
a `Tokenizer`, `save` a tokenizer in any of them. What the CLI's `convert`, `inspect` and
`encode` and the window's open and export menus use; the formats themselves live in their own
modules.

    load("t5/spiece.model")                     # SentencePiece
    save(tokenizer, "gpt2", "out/")             # out/vocab.json + out/merges.txt
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Final

from engine.errors import TokenizerFileError
from engine.formats import bert_vocab, gpt2, sentencepiece, tiktoken
from engine.formats.export_notes import separate_end_of_word
from engine.tokenizer import Tokenizer

HF: Final = "hf"
SENTENCEPIECE: Final = "sentencepiece"
TIKTOKEN: Final = "tiktoken"
BERT_VOCAB: Final = "bert-vocab"
GPT2: Final = "gpt2"
FORMATS: Final = (HF, SENTENCEPIECE, TIKTOKEN, BERT_VOCAB, GPT2)
DESCRIPTIONS: Final[dict[str, str]] = {
    HF: "HF tokenizer.json: the whole pipeline",
    SENTENCEPIECE: "SentencePiece .model (+ .vocab): Unigram or BPE with SentencePiece's normalization",
    TIKTOKEN: "tiktoken .tiktoken rank file (+ .json sidecar with the pattern and special tokens): byte-level BPE",
    BERT_VOCAB: "BERT vocab.txt: a WordPiece vocabulary, one token per line",
    GPT2: "GPT-2 vocab.json + merges.txt (a folder, or the vocab.json path): BPE",
}
# What a file dialog offers for each format.
SUFFIXES: Final[dict[str, str]] = {
    HF: ".json",
    SENTENCEPIECE: ".model",
    TIKTOKEN: ".tiktoken",
    BERT_VOCAB: ".txt",
    GPT2: ".json",
}


def detect(path: str) -> str:
    """The format of the file (or folder) at `path`, from its name and, for JSON, its content.

    "x.model" -> sentencepiece; "x.tiktoken" -> tiktoken; "merges.txt" or "vocab.json" -> gpt2;
    another ".txt" -> bert-vocab; other JSON -> hf; a folder -> what it holds.
    """
    if os.path.isdir(path):
        for name, kind in (("tokenizer.json", HF), ("vocab.json", GPT2), ("vocab.txt", BERT_VOCAB)):
            if os.path.isfile(os.path.join(path, name)):
                return kind
        models = sorted(name for name in os.listdir(path) if name.endswith(".model"))
        if models:
            return SENTENCEPIECE
        raise TokenizerFileError(
            path, "is a folder without tokenizer.json, vocab.json + merges.txt, vocab.txt or a .model file"
        )
    name = os.path.basename(path).lower()
    if name.endswith(".model"):
        return SENTENCEPIECE
    if name.endswith(".tiktoken"):
        return TIKTOKEN
    if name.endswith(".txt"):
        return GPT2 if name.endswith("merges.txt") else BERT_VOCAB
    if name.endswith("vocab.json") and _is_plain_vocab(path):
        return GPT2
    return HF


class Loaded:
    """A tokenizer read from a file, and what the reader chose that the file does not say
    (`notes`: "cased vocabulary (9,149 tokens with capitals): lowercase off, accents kept")."""

    tokenizer: Tokenizer
    notes: list[str]

    def __init__(self, tokenizer: Tokenizer, notes: list[str]) -> None:
        self.tokenizer = tokenizer
        self.notes = notes


def load(path: str) -> Tokenizer:
    """The tokenizer in the file (or folder) at `path`, whatever its format; raises
    TokenizerFileError naming the file when it is not one of them or is damaged."""
    return load_noted(path).tokenizer


def load_noted(path: str) -> Loaded:
    """`load`, with what was inferred from the file: for a BERT vocab.txt, whether it is cased
    (see `bert_vocab.guess_case`); for a .tiktoken file without a sidecar, the pattern and
    special tokens chosen (see `tiktoken.load_noted`); nothing for the formats that hold their
    whole pipeline."""
    kind = detect(path)
    if os.path.isdir(path):
        return load_noted(_inside(path, kind))
    if kind == BERT_VOCAB:
        vocab = bert_vocab.read(path)
        guess = bert_vocab.guess_case(vocab)
        return Loaded(bert_vocab.bert_tokenizer(vocab, guess.lowercase, guess.strip_accents), [guess.note])
    if kind == TIKTOKEN:
        tokenizer, notes = tiktoken.load_noted(path)
        return Loaded(tokenizer, notes)
    return Loaded(_load_whole(path, kind), [])


def _load_whole(path: str, kind: str) -> Tokenizer:
    if kind == SENTENCEPIECE:
        return sentencepiece.load(path)
    if kind == TIKTOKEN:
        return tiktoken.load(path)
    if kind == GPT2:
        vocab_path, merges_path = _gpt2_paths(path)
        for needed in (vocab_path, merges_path):
            if not os.path.isfile(needed):
                raise TokenizerFileError(needed, "not found: a GPT-2 vocabulary is vocab.json and merges.txt side by side")
        return gpt2.load(vocab_path, merges_path)
    return Tokenizer.from_file(path)


def save(tokenizer: Tokenizer, kind: str, path: str) -> list[str]:
    """Write `tokenizer` as `kind` at `path` (for gpt2, a folder or the vocab.json path; the
    files beside, such as a SentencePiece .vocab, are named after it). Returns what the format
    cannot hold; raises TokenizerFileError when it cannot hold this tokenizer at all, and then
    writes nothing."""
    if kind == HF:
        tokenizer.save(path, pretty=True)
        # subtle: written all the same (this app reads "end_of_word_symbol" back as it was), and
        # flagged: HF's tokenizers ignores the key and loads the file without complaint.
        lost = separate_end_of_word(tokenizer, "HF tokenizers (which ignores \"end_of_word_symbol\")")
        return [lost] if lost else []
    if kind == SENTENCEPIECE:
        return sentencepiece.write(tokenizer, path)
    if kind == TIKTOKEN:
        return tiktoken.write(tokenizer, path)
    if kind == BERT_VOCAB:
        return bert_vocab.write(tokenizer, path)
    if kind == GPT2:
        if not path.lower().endswith(".json"):
            os.makedirs(path, exist_ok=True)
        vocab_path, merges_path = _gpt2_paths(path)
        return gpt2.write(tokenizer, vocab_path, merges_path)
    raise ValueError(f"unknown format {kind!r}; choose one of {', '.join(FORMATS)}")


def check(tokenizer: Tokenizer, kind: str) -> list[str]:
    """What `save(tokenizer, kind, ...)` would return, or the TokenizerFileError it would raise,
    writing nothing where the user can see it: a SentencePiece model is only built (its charsmap
    is not compiled), the other formats are written into a throw-away folder."""
    if kind == SENTENCEPIECE:
        return sentencepiece.check(tokenizer)
    with tempfile.TemporaryDirectory(prefix="tokenizer-check-") as folder:
        name = "out" + SUFFIXES[kind] if kind != GPT2 else "gpt2"
        return save(tokenizer, kind, os.path.join(folder, name))


def written_paths(kind: str, path: str) -> list[str]:
    """The files `save(tokenizer, kind, path)` writes (for messages: "wrote a and b")."""
    if kind == GPT2:
        vocab_path, merges_path = _gpt2_paths(path)
        return [vocab_path, merges_path]
    if kind == SENTENCEPIECE:
        return [path, os.path.splitext(path)[0] + ".vocab"]
    if kind == TIKTOKEN:
        return [path, tiktoken.sidecar_path(path)]
    return [path]


def _gpt2_paths(path: str) -> tuple[str, str]:
    """(vocab.json, merges.txt) for a folder, a vocab.json or a merges.txt path: "x/a-vocab.json"
    pairs with "x/a-merges.txt", as `BPE.save(folder, "a")` names them."""
    if os.path.isdir(path) or not path.lower().endswith((".json", ".txt")):
        return os.path.join(path, "vocab.json"), os.path.join(path, "merges.txt")
    folder, name = os.path.split(path)
    lower = name.lower()
    if lower.endswith("merges.txt"):
        stem = name[: len(name) - len("merges.txt")]
        return os.path.join(folder, stem + "vocab.json"), path
    stem = name[: len(name) - len("vocab.json")] if lower.endswith("vocab.json") else ""
    return path, os.path.join(folder, stem + "merges.txt")


def _inside(folder: str, kind: str) -> str:
    if kind == HF:
        return os.path.join(folder, "tokenizer.json")
    if kind == GPT2:
        return os.path.join(folder, "vocab.json")
    if kind == BERT_VOCAB:
        return os.path.join(folder, "vocab.txt")
    models = sorted(name for name in os.listdir(folder) if name.endswith(".model"))
    return os.path.join(folder, models[0])


def _is_plain_vocab(path: str) -> bool:
    """True when the JSON file is a flat {token: id} object (not a tokenizer.json)."""
    try:
        with open(path, encoding="utf-8") as stream:
            start = stream.read(4096)
    except (OSError, UnicodeDecodeError):
        return False
    # A tokenizer.json's first key is "version" (or "model" somewhere): a vocab's values are ids.
    stripped = start.lstrip()
    if not stripped.startswith("{"):
        return False
    try:
        data = json.loads(start)
    except (ValueError, RecursionError):  # cut short, or hostile (nested deep, a huge number)
        return '"model"' not in start and '"version"' not in start
    return isinstance(data, dict) and "model" not in data
