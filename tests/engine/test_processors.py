"""Post-processors: templates, Bert/Roberta special tokens, offset trimming, Sequence, JSON forms."""

from __future__ import annotations

import pytest

from engine import processors
from engine.encoding import Encoding
from engine.errors import SchemaError
from engine.processors import (
    BertProcessing,
    ByteLevel,
    RobertaProcessing,
    Sequence,
    TemplateProcessing,
    default_process,
    trim_offsets,
)


def words(tokens: list[str], type_id: int = 0) -> Encoding:
    """One encoding, a token per word, offsets as if the words were joined by spaces."""
    offsets: list[tuple[int, int]] = []
    position = 0
    for token in tokens:
        offsets.append((position, position + len(token)))
        position += len(token) + 1
    n = len(tokens)
    return Encoding(
        ids=[10 + i for i in range(n)],
        type_ids=[type_id] * n,
        tokens=list(tokens),
        words=list[int | None](range(n)),
        offsets=offsets,
        special_tokens_mask=[0] * n,
        attention_mask=[1] * n,
    )


BERT_TEMPLATE = TemplateProcessing(
    single="[CLS] $A [SEP]",
    pair="[CLS] $A [SEP] $B:1 [SEP]:1",
    special_tokens=[("[CLS]", 1), ("[SEP]", 2)],
)


def test_template_single_hand_checked() -> None:
    result = BERT_TEMPLATE.process(words(["hello", "world"]))
    assert result.tokens == ["[CLS]", "hello", "world", "[SEP]"]
    assert result.ids == [1, 10, 11, 2]
    assert result.type_ids == [0, 0, 0, 0]
    assert result.offsets == [(0, 0), (0, 5), (6, 11), (0, 0)]
    assert result.special_tokens_mask == [1, 0, 0, 1]
    assert result.attention_mask == [1, 1, 1, 1]
    assert result.word_ids == [None, 0, 1, None]
    assert result.sequence_ids == [None, 0, 0, None]


def test_template_pair_hand_checked() -> None:
    result = BERT_TEMPLATE.process(words(["a", "b"]), words(["c"]))
    assert result.tokens == ["[CLS]", "a", "b", "[SEP]", "c", "[SEP]"]
    assert result.type_ids == [0, 0, 0, 0, 1, 1]
    assert result.sequence_ids == [None, 0, 0, None, 1, None]
    assert result.offsets == [(0, 0), (0, 1), (2, 3), (0, 0), (0, 1), (0, 0)]
    assert result.n_sequences == 2
    assert result.char_to_token(0, 1) == 4
    assert BERT_TEMPLATE.num_special_tokens_to_add(False) == 2
    assert BERT_TEMPLATE.num_special_tokens_to_add(True) == 3


def test_template_without_special_tokens_and_untouched_inputs() -> None:
    first = words(["a", "b"])
    result = BERT_TEMPLATE.process(first, None, add_special_tokens=False)
    assert result.tokens == ["a", "b"]
    assert result.sequence_ids == [0, 0]
    assert first.sequence_ranges == {}


def test_template_syntax_variants() -> None:
    processor = TemplateProcessing(
        single=["<s>", "$0", "</s>"],
        pair="<s> $ </s> $b:2 </s>:2",
        special_tokens=[(0, "<s>"), {"id": "</s>", "ids": [2, 3], "tokens": ["</", "s>"]}],
    )
    single = processor.process(words(["x"]))
    assert single.tokens == ["<s>", "x", "</", "s>"]
    pair = processor.process(words(["x"]), words(["y"]))
    assert pair.tokens == ["<s>", "x", "</", "s>", "y", "</", "s>"]
    assert pair.type_ids == [0, 0, 0, 0, 2, 2, 2]
    assert processor.num_special_tokens_to_add(True) == 5
    assert processor.single == (
        'Template([SpecialToken { id: "<s>", type_id: 0 }, Sequence { id: A, type_id: 0 }, '
        'SpecialToken { id: "</s>", type_id: 0 }])'
    )
    defaults = TemplateProcessing()
    assert defaults.process(words(["a"]), words(["b"])).type_ids == [0, 1]


def test_template_sequence_used_twice() -> None:
    processor = TemplateProcessing(single="$A:0 $A:1", pair="$A $B", special_tokens=[])
    result = processor.process(words(["a", "b"]))
    assert result.tokens == ["a", "b", "a", "b"]
    assert result.type_ids == [0, 0, 1, 1]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"single": "$C"}, ValueError, 'Cannot build Piece from string "\\$C"'),
        ({"single": "$A:x"}, ValueError, "Cannot build Piece"),
        ({"single": "a:b:c", "special_tokens": [("a", 1)]}, ValueError, "Cannot build Piece"),
        ({"pair": "$A $A"}, ValueError, "must use both sequences"),
        ({"single": "[X] $A [Y]"}, ValueError, "Missing SpecialToken\\(s\\) with id\\(s\\) `\\[X\\], \\[Y\\]`"),
        # The compiled build words this TypeError its own way, so only the type is checked.
        ({"single": 3}, TypeError, None),
        ({"special_tokens": [("a", "b")]}, TypeError, "Expected Union"),
        ({"special_tokens": [{"id": "a", "ids": [1]}]}, ValueError, "`tokens` must be specified"),
        ({"special_tokens": [{"id": "a", "ids": [1], "tokens": []}]}, ValueError, "same length"),
    ],
)
def test_template_errors(kwargs: dict[str, object], error: type[Exception], message: str | None) -> None:
    with pytest.raises(error, match=message):
        TemplateProcessing(**kwargs)  # type: ignore[arg-type]  # (each case is a bad template on purpose)


def test_template_single_setter() -> None:
    processor = TemplateProcessing(special_tokens=[("[CLS]", 1)])
    processor.single = "[CLS] $A"
    assert processor.process(words(["a"])).tokens == ["[CLS]", "a"]


def test_bert_processing() -> None:
    processor = BertProcessing(("[SEP]", 102), ("[CLS]", 101))
    result = processor.process(words(["a"]), words(["b", "c"]))
    assert result.ids == [101, 10, 102, 10, 11, 102]
    assert result.type_ids == [0, 0, 0, 1, 1, 1]
    assert result.special_tokens_mask == [1, 0, 1, 0, 0, 1]
    assert result.sequence_ids == [None, 0, None, 1, 1, None]
    assert processor.num_special_tokens_to_add(False) == 2
    assert processor.sep == ("[SEP]", 102) and processor.cls == ("[CLS]", 101)


def test_roberta_processing_trims_and_zeroes_type_ids() -> None:
    processor = RobertaProcessing(("</s>", 2), ("<s>", 0))
    first = Encoding([5, 6], [0, 0], ["Ġhi", "Ġyou"], [0, 1], [(0, 3), (3, 7)], [0, 0], [1, 1])
    second = Encoding([7], [1], ["Ġok"], [0], [(0, 3)], [0], [1])
    result = processor.process(first, second)
    assert result.tokens == ["<s>", "Ġhi", "Ġyou", "</s>", "</s>", "Ġok", "</s>"]
    assert result.type_ids == [0] * 7
    # The first token keeps its prefix space (add_prefix_space); later ones lose it.
    assert result.offsets == [(0, 0), (0, 3), (4, 7), (0, 0), (0, 0), (0, 3), (0, 0)]
    assert result.sequence_ids == [None, 0, 0, None, None, 1, None]
    assert processor.num_special_tokens_to_add(True) == 4


def test_byte_level_trims_offsets_like_hf() -> None:
    # HF byte_level.rs processor_trims_offsets.
    tokens = ["Ġ", "ĠĠĠĠHelloĠĠ", "ĠĠHello", "HelloĠĠ", "ĠĠĠĠ"]
    start = Encoding([0] * 5, [0] * 5, tokens, [None] * 5, [(0, 1), (0, 11), (11, 18), (18, 25), (25, 29)], [0] * 5, [1] * 5)
    result = ByteLevel(trim_offsets=True).process(start, None, False)
    assert result.offsets == [(0, 0), (4, 9), (13, 18), (18, 23), (29, 29)]
    pair = ByteLevel().process(start, start, False)
    assert pair.offsets == [(0, 0), (4, 9), (13, 18), (18, 23), (29, 29)] * 2
    assert pair.type_ids == [0] * 5 + [1] * 5
    assert pair.sequence_ids == [0] * 5 + [1] * 5
    untouched = ByteLevel(trim_offsets=False).process(start)
    assert untouched.offsets == start.offsets


def test_trim_offsets_without_prefix_space_and_unicode_whitespace() -> None:
    encoding = Encoding([0, 0], [0, 0], ["Ġa", "b\u3000"], [0, 1], [(0, 2), (2, 4)], [0, 0], [1, 1])
    trim_offsets(encoding, add_prefix_space=False)
    assert encoding.offsets == [(1, 2), (2, 3)]


def test_sequence_chains_and_flattens() -> None:
    bert = BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    inner = Sequence([ByteLevel()])
    processor = Sequence([inner, bert])
    assert len(processor) == 2
    assert isinstance(processor[0], ByteLevel)
    assert processor.num_special_tokens_to_add(True) == 3
    result = processor.process(Encoding([5, 6], [0, 0], ["a", "Ġx"], [0, 1], [(0, 1), (3, 5)], [0, 0], [1, 1]))
    assert result.tokens == ["[CLS]", "a", "Ġx", "[SEP]"]
    assert result.offsets == [(0, 0), (0, 1), (4, 5), (0, 0)]
    with pytest.raises(TypeError):
        processor[0] = Sequence([])


def test_default_process() -> None:
    single = words(["a"])
    assert default_process(single, None) is single
    result = default_process(words(["a", "b"]), words(["c"]))
    assert result.tokens == ["a", "b", "c"]
    assert result.sequence_ids == [0, 0, 1]
    assert result.offsets == [(0, 1), (2, 3), (0, 1)]
    assert result.type_ids == [0, 0, 0]


ALL = [
    BERT_TEMPLATE,
    BertProcessing(("[SEP]", 102), ("[CLS]", 101)),
    RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=False),
    ByteLevel(add_prefix_space=False),
    Sequence([ByteLevel(), BertProcessing(("b", 1), ("a", 0))]),
]


@pytest.mark.parametrize("processor", ALL, ids=lambda p: type(p).__name__)
def test_to_dict_round_trip(processor: processors.PostProcessor) -> None:
    data = processor.to_dict()
    again = processors.from_dict(data)
    assert type(again) is type(processor)
    assert again.to_dict() == data


def test_to_dict_layouts() -> None:
    assert BertProcessing(("[SEP]", 102), ("[CLS]", 101)).to_dict() == {
        "type": "BertProcessing",
        "sep": ["[SEP]", 102],
        "cls": ["[CLS]", 101],
    }
    template = TemplateProcessing(single="[CLS] $0", pair="$A $B:1", special_tokens=[("[CLS]", 101)]).to_dict()
    assert template == {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [101], "tokens": ["[CLS]"]}},
    }


def test_from_dict_legacy_and_errors() -> None:
    assert isinstance(processors.from_dict({"sep": ["[SEP]", 1], "cls": ["[CLS]", 2]}), BertProcessing)
    legacy_roberta = {"sep": ["</s>", 2], "cls": ["<s>", 0], "trim_offsets": True, "add_prefix_space": True}
    assert isinstance(processors.from_dict(legacy_roberta), RobertaProcessing)
    with pytest.raises(SchemaError, match="missing field 'cls'"):
        processors.from_dict({"type": "RobertaProcessing", "sep": ["</s>", 2]})
    with pytest.raises(SchemaError, match="missing field 'add_prefix_space'"):
        processors.from_dict({"type": "ByteLevel"})
    with pytest.raises(SchemaError, match="unknown post-processor type 'Nope'"):
        processors.from_dict({"type": "Nope"})
    with pytest.raises(SchemaError, match="missing field 'type'"):
        processors.from_dict({"add_prefix_space": True, "trim_offsets": False, "use_regex": False})
    with pytest.raises(SchemaError, match="\\[token, id\\] pair"):
        processors.from_dict({"type": "BertProcessing", "sep": "[SEP]", "cls": ["[CLS]", 1]})
    with pytest.raises(SchemaError, match="expected an object"):
        processors.from_dict([])
    with pytest.raises(SchemaError, match="a piece must be"):
        processors.from_dict({"type": "TemplateProcessing", "single": [{"Nope": {}}], "pair": [], "special_tokens": {}})
