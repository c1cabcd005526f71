"""What an export to a vocabulary-only format loses: the pipeline parts the file cannot hold.

Each exporter builds, in memory, the tokenizer its own `load` would rebuild from the file, and
`lost_parts` lists every part that differs, or that the file holds nowhere. No I/O here.
"""

from __future__ import annotations

from typing import Final

from engine.models.bpe.model import BPE
from engine.schema import JsonValue
from engine.tokenizer import Tokenizer

PARTS: Final[list[str]] = ["normalizer", "pre_tokenizer", "post_processor", "decoder"]


def separate_end_of_word(tokenizer: Tokenizer, format: str) -> str:
    """Why `format` cannot hold a BPE whose end-of-word suffix is a symbol of its own
    (`BPE.end_of_word_symbol`), or "" when the model has none."""
    model = tokenizer.model
    if not isinstance(model, BPE) or not model.end_of_word_symbol:
        return ""
    suffix = model.end_of_word_suffix
    return (
        f"{format} has no separate end-of-word symbol (this BPE splits `low` as `l o w {suffix}`; "
        f"HF's BPE glues the suffix to the last char, `l o w{suffix}`): it would encode these words differently"
    )


def describe(data: dict[str, JsonValue]) -> str:
    """A one-line summary of a component's tokenizer.json object (scalars only).

    `{"type": "BertNormalizer", "lowercase": True}` -> `"BertNormalizer lowercase=True"`
    """
    words: list[str] = [str(data.get("type", "?"))]
    for key, value in data.items():
        if key == "type" or isinstance(value, (dict, list)):
            continue
        words.append(f"{key}={value!r}" if isinstance(value, str) else f"{key}={value}")
    return " ".join(words)


def part_dict(tokenizer: Tokenizer, part: str) -> dict[str, JsonValue] | None:
    if part == "normalizer":
        found = tokenizer.normalizer
        return found.to_dict() if found is not None else None
    if part == "pre_tokenizer":
        pre = tokenizer.pre_tokenizer
        return pre.to_dict() if pre is not None else None
    if part == "post_processor":
        post = tokenizer.post_processor
        return post.to_dict() if post is not None else None
    decoder = tokenizer.decoder
    return decoder.to_dict() if decoder is not None else None


def lost_parts(
    original: Tokenizer, rebuilt: Tokenizer, file_kind: str, load_call: str, report_rebuilt: bool = True
) -> list[str]:
    """One sentence per pipeline part and added token the file does not carry.

    A part that `load_call` rebuilds identically is still reported when `report_rebuilt` (the
    file does not hold it), with that reassurance; a part it rebuilds differently, or not at
    all, is reported as lost.
    """
    notes: list[str] = []
    for part in PARTS:
        ours = part_dict(original, part)
        theirs = part_dict(rebuilt, part)
        name = part.replace("_", "-")
        if ours is None:
            if theirs is not None:
                notes.append(f"there is no {name}, but {load_call} adds one ({describe(theirs)})")
            continue
        if ours == theirs:
            if not report_rebuilt:
                continue
            notes.append(f"the {name} ({describe(ours)}) is not stored in {file_kind}; {load_call} rebuilds it")
        elif theirs is None:
            notes.append(f"the {name} ({describe(ours)}) is not stored in {file_kind} and is lost")
        else:
            notes.append(
                f"the {name} ({describe(ours)}) is not stored in {file_kind}; {load_call} builds "
                f"{describe(theirs)} instead"
            )
    if original.truncation is not None:
        notes.append(f"the truncation settings are not stored in {file_kind} and are lost")
    if original.padding is not None:
        notes.append(f"the padding settings are not stored in {file_kind} and are lost")
    kept = rebuilt.get_added_tokens_decoder()
    for id, token in sorted(original.get_added_tokens_decoder().items()):
        again = kept.get(id)
        if again is not None and again.content == token.content and again.special == token.special:
            continue
        kind = "special token" if token.special else "added token"
        in_vocab = rebuilt.model.token_to_id(token.content) == id
        if in_vocab:
            notes.append(f"the {kind} {token.content!r} (id {id}) is kept as a plain vocabulary entry only")
        else:
            notes.append(f"the {kind} {token.content!r} (id {id}) is not in the model's vocabulary and is lost")
    return notes
