"""Hostile tokenizer.json files, shared by tests/engine/test_hostile_files.py (the engine refuses
each, naming the file and the field) and tests/parity/test_hostile_files_parity.py (HF refuses them too)."""

from __future__ import annotations

import json

WORD_LEVEL = {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"}
UNIGRAM = {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", -1.5]], "byte_fallback": False}
PADDING = {"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": None, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}
ADDED = {"id": 2, "content": "<x>", "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
LOWERCASE = '{"type":"Lowercase"}'


def tokenizer_json(**parts: object) -> str:
    data: dict[str, object] = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
                               "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
                               "model": WORD_LEVEL}
    data.update(parts)
    return json.dumps(data)


def with_vocab(**extra: object) -> dict[str, object]:
    return dict(WORD_LEVEL, vocab={"a": 0, "[UNK]": 1, **extra})


def nested_normalizers(depth: int) -> str:
    return '{"type":"Sequence","normalizers":[' * depth + LOWERCASE + "]}" * depth


HOSTILE_TOKENIZERS = {
    "1,000 nested arrays": (
        '{"version":"1.0","model":' + "[" * 1000 + "]" * 1000 + "}",
        "is nested more than 127 levels deep (arrays and objects inside one another; HF refuses it too)",
    ),
    "Sequence in Sequence 100 deep": (
        tokenizer_json(normalizer="@").replace('"@"', nested_normalizers(100)),
        "is nested more than 127 levels deep (arrays and objects inside one another; HF refuses it too)",
    ),
    "a 5,000-digit id": (
        tokenizer_json(model=with_vocab(b=7)).replace('"b": 7', '"b": ' + "9" * 5000),
        "is not valid JSON: a number of 5,000 digits at line 1 column 227 is out of range"
        " (no 64-bit float holds it; HF refuses it too)",
    ),
    "an id of 2**32": (
        tokenizer_json(model=with_vocab(b=2**32)),
        "model: WordLevel: the id of vocab token 'b' must be at most 4294967295 (ids are 32-bit in HF), got 4294967296",
    ),
    "an id of 2**64": (
        tokenizer_json(model=with_vocab(b=2**64)),
        "model: WordLevel: the id of vocab token 'b' must be at most 4294967295 (ids are 32-bit in HF),"
        " got 18446744073709551616",
    ),
    "an added token id of 2**32": (
        tokenizer_json(added_tokens=[dict(ADDED, id=2**32)]),
        'added_tokens: entry 0: "id" must be at most 4294967295 (ids are 32-bit in HF), got 4294967296',
    ),
    "a processor id of 2**32": (
        tokenizer_json(post_processor={"type": "BertProcessing", "sep": ["[SEP]", 2**32], "cls": ["[CLS]", 1]}),
        "post_processor: BertProcessing: the id in 'sep' must be at most 4294967295 (ids are 32-bit in HF), got 4294967296",
    ),
    "a NaN score": (
        tokenizer_json(model=dict(UNIGRAM, vocab=[["<unk>", 0.0], ["a", float("nan")]])),
        "is not valid JSON: NaN at line 1 column 235 is not a JSON number (HF refuses it too)",
    ),
    "an infinite score": (
        tokenizer_json(model=dict(UNIGRAM, vocab=[["<unk>", 0.0], ["a", float("-inf")]])),
        "is not valid JSON: -Infinity at line 1 column 235 is not a JSON number (HF refuses it too)",
    ),
    "a score past f64": (
        tokenizer_json(model=UNIGRAM).replace("-1.5", "-1e400"),
        "is not valid JSON: -1e400 at line 1 column 235 is out of range (no 64-bit float holds it; HF refuses it too)",
    ),
    "a 400-digit score": (
        tokenizer_json(model=UNIGRAM).replace("-1.5", "-" + "9" * 400),
        "model: Unigram: the score of vocab item 1 must be a finite number, got a number of 400 digits",
    ),
    "a lone surrogate in a token": (
        tokenizer_json(model=with_vocab(**{"\ud800": 2})),
        "the key '\\ud800' in model.vocab holds a lone surrogate (U+D800), which is not Unicode text:"
        " no UTF-8 file can hold it (HF refuses it too)",
    ),
    "a lone surrogate in an added token": (
        tokenizer_json(added_tokens=[dict(ADDED, content="<\udfff>")]),
        "the string '<\\udfff>' in added_tokens[0].content holds a lone surrogate (U+DFFF), which is not Unicode"
        " text: no UTF-8 file can hold it (HF refuses it too)",
    ),
    "a padding length of 10**12": (
        tokenizer_json(padding=dict(PADDING, strategy={"Fixed": 10**12})),
        "padding: the 'Fixed' length 1,000,000,000,000 is larger than 1,048,576: every encoding would be padded"
        " to that many tokens (refused before allocating them)",
    ),
    "a pad_to_multiple_of of 10**12": (
        tokenizer_json(padding=dict(PADDING, pad_to_multiple_of=10**12)),
        "padding: field 'pad_to_multiple_of' 1,000,000,000,000 is larger than 1,048,576: every encoding would be"
        " padded to that many tokens (refused before allocating them)",
    ),
    "a pad_id of 2**32": (
        tokenizer_json(padding=dict(PADDING, pad_id=2**32)),
        "padding: field 'pad_id' must be at most 4294967295 (ids are 32-bit in HF), got 4294967296",
    ),
    "a pad_id of -1": (
        tokenizer_json(padding=dict(PADDING, pad_id=-1)),
        "padding: padding: field 'pad_id' must be a non-negative integer, got -1",
    ),
}
