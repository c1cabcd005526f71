"""GPT-2's `vocab.json` + `merges.txt`: read them, load a BPE tokenizer from them, write a BPE's.

`vocab.json` is {token: id}; `merges.txt` is `#version: 0.2` then `a b` per merge, in rank order
(HF's `BPE.from_file` rules). They hold no pipeline: `load` rebuilds GPT-2's byte-level one (as HF's
`ByteLevelBPETokenizer`) when the vocabulary is byte-level, and `write` lists what the files lose.
"""

from __future__ import annotations

from typing import Final

from engine import byte_level, decoders, pre_tokenizers, processors
from engine.models.bpe.model import BPE
from engine.errors import TokenizerFileError
from engine.formats.export_notes import lost_parts, separate_end_of_word
from engine.formats.files import write_texts_atomically
from engine.formats.vocab_files import (
    check_merges,
    dump_merges_txt,
    dump_vocab_json,
    read_merges_txt_with_lines,
    read_vocab_json,
)
from engine.schema import JsonValue
from engine.tokenizer import Tokenizer

# The BPE options the files keep nothing of (load's defaults stand in for them).
MODEL_OPTIONS: Final[list[str]] = [
    "dropout",
    "unk_token",
    "continuing_subword_prefix",
    "end_of_word_suffix",
    "fuse_unk",
    "byte_fallback",
    "ignore_merges",
]


def read(vocab_path: str, merges_path: str) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """The vocabulary and the merges, each merge checked to name two vocabulary tokens.

    Errors name the file and the token (vocab.json) or the line (merges.txt).
    """
    vocab = read_vocab_json(vocab_path)
    merges, numbers = read_merges_txt_with_lines(merges_path)
    check_merges(merges, numbers, vocab, merges_path)
    return vocab, merges


def is_byte_level(vocab: dict[str, int]) -> bool:
    """Whether every token is made of GPT-2's byte chars, with the space char `Ġ` or all 256 bytes
    among them (so a plain ASCII vocabulary is not taken for a byte-level one)."""
    singles = 0
    spaced = False
    for token in vocab:
        if byte_level.to_bytes(token) is None:
            return False
        if len(token) == 1:
            singles += 1
        if byte_level.SPACE in token:
            spaced = True
    return spaced or singles == 256


def gpt2_tokenizer(vocab: dict[str, int], merges: list[tuple[str, str]], byte_level_pipeline: bool) -> Tokenizer:
    """The tokenizer `load` builds (HF's ByteLevelBPETokenizer defaults when byte-level)."""
    if not byte_level_pipeline:
        return Tokenizer(BPE(vocab, merges))
    tokenizer = Tokenizer(BPE(vocab, merges, continuing_subword_prefix="", end_of_word_suffix=""))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    return tokenizer


def load(vocab_path: str, merges_path: str, byte_level_pipeline: bool | None = None) -> Tokenizer:
    """A BPE tokenizer from the two files: GPT-2's byte-level pipeline when the vocabulary is
    byte-level (or `byte_level_pipeline=True`), a bare BPE model otherwise."""
    vocab, merges = read(vocab_path, merges_path)
    wanted = is_byte_level(vocab) if byte_level_pipeline is None else byte_level_pipeline
    try:
        return gpt2_tokenizer(vocab, merges, wanted)
    except ValueError as error:
        # the merged token of a merge is missing from the vocabulary
        raise TokenizerFileError(merges_path, f"does not fit {vocab_path}: {error}") from None


def write(tokenizer: Tokenizer, vocab_path: str, merges_path: str) -> list[str]:
    """Write the BPE model's vocab.json and merges.txt (both or neither); returns what they lose."""
    model = tokenizer.model
    if not isinstance(model, BPE):
        raise TokenizerFileError(
            vocab_path,
            f"cannot be written: vocab.json + merges.txt hold a BPE model, and this tokenizer's model is {type(model).__name__}",
        )
    refused = separate_end_of_word(tokenizer, "vocab.json + merges.txt (HF's BPE)")
    if refused:
        raise TokenizerFileError(vocab_path, f"cannot be written: {refused}")
    vocab = model.get_vocab()
    merges = model.merges
    notes: list[str] = []
    for token in vocab:
        if " " in token or "\n" in token or "\r" in token:
            notes.append(f"the token {token!r} holds a space or a line break, which merges.txt cannot keep apart")
            break
    rebuilt = gpt2_tokenizer(vocab, merges, is_byte_level(vocab))
    options: dict[str, JsonValue] = model.to_dict()
    defaults: dict[str, JsonValue] = rebuilt.model.to_dict()
    for option in MODEL_OPTIONS:
        if options.get(option) != defaults.get(option) and not _both_empty(options.get(option), defaults.get(option)):
            notes.append(f"the BPE option {option}={options.get(option)!r} is not stored; load gives {defaults.get(option)!r}")
    notes += lost_parts(tokenizer, rebuilt, "vocab.json + merges.txt", "gpt2.load")
    write_texts_atomically([(vocab_path, dump_vocab_json(_ids_to_tokens(vocab))), (merges_path, dump_merges_txt(merges))])
    return notes


def _both_empty(a: JsonValue, b: JsonValue) -> bool:
    """None and "" mean the same for the prefix and suffix options."""
    return (a is None or a == "") and (b is None or b == "")


def _ids_to_tokens(vocab: dict[str, int]) -> dict[int, str]:
    result: dict[int, str] = {}
    for token, id in vocab.items():
        result[id] = token
    return result

