"""The post-processing stage, as HF's `tokenizers.processors`: special tokens and offset trimming.

The contract is `base.PostProcessor`; each processor has its module (`bert`, `roberta`,
`byte_level`, `sequence`, `template`), as in HF's Rust crate. This module gathers them and reads
the tokenizer.json "post_processor" object. Truncation and padding live in `engine.truncation` and
`engine.padding`.
"""

from __future__ import annotations

from engine.errors import SchemaError
from engine.processors.base import PostProcessor, default_process, merge_encodings, token_pair_from_dict
from engine.processors.bert import BertProcessing
from engine.processors.byte_level import ByteLevel, trim_offsets
from engine.processors.roberta import RobertaProcessing
from engine.processors.sequence import Sequence
from engine.processors.template import Piece, SpecialToken, TemplateProcessing, template_from_dict
from engine import byte_level
from engine.schema import check_nesting, expect_object, get_bool, get_list, type_tag

__all__ = [
    "BertProcessing",
    "ByteLevel",
    "Piece",
    "PostProcessor",
    "RobertaProcessing",
    "Sequence",
    "SpecialToken",
    "TemplateProcessing",
    "default_process",
    "from_dict",
    "merge_encodings",
    "trim_offsets",
]


def from_dict(data: object) -> PostProcessor:
    """A post-processor from its tokenizer.json object (Bert/Roberta objects may omit "type", as in HF)."""
    obj = expect_object(data, "post_processor")
    check_nesting(obj, "post_processor")
    tag = type_tag(obj, "post_processor")
    if tag is None:
        if all(key in obj for key in ("sep", "cls", "trim_offsets", "add_prefix_space")):
            tag = "RobertaProcessing"
        elif "sep" in obj and "cls" in obj:
            tag = "BertProcessing"
        else:
            raise SchemaError("post_processor: missing field 'type'")
    if tag == "BertProcessing":
        return BertProcessing(token_pair_from_dict(obj, "sep", tag), token_pair_from_dict(obj, "cls", tag))
    if tag == "RobertaProcessing":
        return RobertaProcessing(
            token_pair_from_dict(obj, "sep", tag),
            token_pair_from_dict(obj, "cls", tag),
            get_bool(obj, "trim_offsets", tag),
            get_bool(obj, "add_prefix_space", tag),
        )
    if tag == "ByteLevel":
        add_prefix_space, trim, use_regex = byte_level.options_from_dict(obj)
        return ByteLevel(add_prefix_space, trim, use_regex)
    if tag == "TemplateProcessing":
        return template_from_dict(obj)
    if tag == "Sequence":
        processors: list[PostProcessor] = []
        for item in get_list(obj, "processors", tag):
            processors.append(from_dict(item))
        return Sequence(processors)
    raise SchemaError(f"unknown post-processor type {tag!r}")
