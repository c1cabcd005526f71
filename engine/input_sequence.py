"""One input sequence of `encode` (HF's InputSequence: a str, or a pre-tokenized list of words),
checked as HF's binding checks it and encoded to an `Encoding` through the pipeline.

The added tokens are cut out, the rest normalized, pre-tokenized and run through the model (HF's
`encode_single_sequence`), by the fast path (`engine.fast_path`) where the pipeline allows. No
special tokens, truncation or padding here: the `Tokenizer` post-processes what this gives.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, cast

from librt.vecs import vec
from mypy_extensions import i64

from engine import fast_path
from engine.added_vocabulary import AddedVocabulary
from engine.encoding import Encoding, zero_spans
from engine.models.base import Model
from engine.models.bpe.model import BPE
from engine.normalizers import Normalizer
from engine.pre_tokenizers import PreTokenizer
from engine.pre_tokenizers.pretokenized import PreTokenizedString

# HF's messages for inputs it cannot take (a wrong type, or a str that is not valid Unicode).
TEXT_INPUT_ERROR: Final = "TextInputSequence must be str"
PRETOKENIZED_INPUT_ERROR: Final = "PreTokenizedInputSequence must be Union[List[str], Tuple[str]]"
BATCH_INPUT_ERROR: Final = "TextEncodeInput must be Union[TextInputSequence, Tuple[InputSequence, InputSequence]]"
PRETOKENIZED_BATCH_ERROR: Final = (
    "PreTokenizedEncodeInput must be Union[PreTokenizedInputSequence, "
    "Tuple[PreTokenizedInputSequence, PreTokenizedInputSequence]]"
)
# (chr: mypyc takes no surrogates in string literals)
SURROGATE_RE: Final = re.compile("[" + chr(0xD800) + "-" + chr(0xDFFF) + "]")


def utf8_encodable(text: str) -> bool:
    """False for a str holding a lone surrogate (U+D800..U+DFFF), which has no UTF-8 form."""
    return text.isascii() or SURROGATE_RE.search(text) is None


def batch_item(item: object, is_pretokenized: bool) -> tuple[str | Sequence[str], str | Sequence[str] | None]:
    """One `encode_batch` input as (sequence, pair or None), HF's way of telling them apart."""
    if isinstance(item, str):
        if is_pretokenized:
            raise TypeError(PRETOKENIZED_BATCH_ERROR)
        return item, None
    if not isinstance(item, (list, tuple)):
        raise TypeError(PRETOKENIZED_BATCH_ERROR if is_pretokenized else BATCH_INPUT_ERROR)
    if is_pretokenized:
        if len(item) == 2 and isinstance(item[0], (list, tuple)) and isinstance(item[1], (list, tuple)):
            return list(item[0]), list(item[1])
        return list(item), None
    if len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], str):
        return item[0], item[1]
    raise TypeError(BATCH_INPUT_ERROR)


def encode_sequence(
    sequence: str | Sequence[str],
    type_id: int,
    is_pretokenized: bool,
    fast: bool,
    added: AddedVocabulary,
    normalizer: Normalizer | None,
    pre_tokenizer: PreTokenizer | None,
    model: Model,
) -> Encoding:
    """One input sequence's Encoding: a text, or (`is_pretokenized`) a list of words, each
    encoded apart with its index as word id. TypeError as HF for anything else."""
    if is_pretokenized:
        if isinstance(sequence, str) or not isinstance(sequence, (list, tuple)):
            raise TypeError(PRETOKENIZED_INPUT_ERROR)
        words: list[Encoding] = []
        for index in range(len(sequence)):
            word = sequence[index]
            if not isinstance(word, str) or not utf8_encodable(word):
                raise TypeError(PRETOKENIZED_INPUT_ERROR)
            words.append(encode_piece(word, type_id, index, fast, added, normalizer, pre_tokenizer, model))
        return Encoding.merge(words, False)
    if not isinstance(sequence, str) or not utf8_encodable(sequence):
        raise TypeError(TEXT_INPUT_ERROR)
    return encode_piece(sequence, type_id, -1, fast, added, normalizer, pre_tokenizer, model)


def pre_tokenized(
    text: str, added: AddedVocabulary, normalizer: Normalizer | None, pre_tokenizer: PreTokenizer | None
) -> PreTokenizedString:
    """`text` with added tokens cut out, the rest normalized and pre-tokenized (HF's order)."""
    pretokenized = added.extract_and_normalize(normalizer, text)
    if pre_tokenizer is not None:
        pre_tokenizer.pre_tokenize(pretokenized)
    return pretokenized


def encode_piece(
    text: str,
    type_id: int,
    word_index: int,
    fast: bool,
    added: AddedVocabulary,
    normalizer: Normalizer | None,
    pre_tokenizer: PreTokenizer | None,
    model: Model,
) -> Encoding:
    """normalize + pre-tokenize + model for one text; `word_index` >= 0 forces the word id.
    `fast`: HF's encode_fast, no offsets (tokens "", offsets (0, 0), no word ids)."""
    if fast:
        ids = fast_path.ids_only(text, added, normalizer, pre_tokenizer, model)
        if ids is None:
            ids = encode_piece(text, type_id, word_index, False, added, normalizer, pre_tokenizer, model).ids
        n = len(ids)
        # subtle: HF's encode_fast leaves every type id 0; only a post-processor sets them.
        words: list[int | None] = [None] * n
        return Encoding(ids, tokens=[""] * n, words=words, spans=zero_spans(n), type_id=0)
    split = fast_path.byte_level_split(text, added, normalizer, pre_tokenizer, model)
    if split != fast_path.NO_SPLIT:
        found = fast_path.byte_level_encoding(text, cast(BPE, model), word_index, type_id, split)
        if found is not None:
            return found
    pieces = fast_path.cut(text, added, normalizer, pre_tokenizer)
    lists = fast_path.token_lists(pieces, model, word_index) if pieces is not None else None
    if lists is not None:
        return _lists_encoding(lists.ids, lists.tokens, lists.spans, lists.words, type_id)
    return encode_piece_in_full(text, type_id, word_index, added, normalizer, pre_tokenizer, model)


def encode_piece_in_full(
    text: str,
    type_id: int,
    word_index: int,
    added: AddedVocabulary,
    normalizer: Normalizer | None,
    pre_tokenizer: PreTokenizer | None,
    model: Model,
) -> Encoding:
    """`encode_piece` through the whole pipeline (NormalizedStrings, Splits, Tokens)."""
    pretokenized = pre_tokenized(text, added, normalizer, pre_tokenizer)
    pretokenized.tokenize(model)
    ids, tokens, spans, words = pretokenized.token_lists(word_index if word_index >= 0 else None)
    return _lists_encoding(ids, tokens, spans, list[int | None](words), type_id)


def _lists_encoding(ids: list[int], tokens: list[str], spans: vec[i64], words: list[int | None], type_id: int) -> Encoding:
    """One sequence's Encoding from its token lists (HF into_encoding); it owns `spans`."""
    return Encoding(ids=ids, tokens=tokens, words=words, spans=spans, type_id=type_id)
