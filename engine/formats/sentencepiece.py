"""SentencePiece `.model` files: read them into an engine `Tokenizer` that encodes as
`sentencepiece` does, and write a Unigram or BPE tokenizer back as `.model` + `.vocab`.

`to_tokenizer` builds the pipeline that reproduces `SentencePieceProcessor.encode` ids (and
`decode`); `from_tokenizer` goes the other way (an NFKC normalizer is written as sentencepiece's
"nfkc" / "nmt_nfkc" charsmap, compiled by `engine.formats.charsmap`). The message classes and the wire code live in
`engine.formats.sentencepiece_proto` / `engine.formats.protobuf`. No training, no sampling.
"""

from __future__ import annotations

import os
from typing import Final

from engine import decoders, normalizers, pre_tokenizers
from engine.added_vocabulary import AddedToken
from engine.models.bpe.model import BPE
from engine.errors import EngineError, SchemaError, TokenizerFileError
from engine.formats.export_notes import separate_end_of_word
from engine.formats.charsmap import nfkc_charsmap
from engine.formats.files import write_files_atomically
from engine.formats.sentencepiece_proto import (
    BPE_TYPE,
    BYTE,
    CONTROL,
    MODEL_TYPE_NAMES,
    N_ADD_DUMMY_PREFIX,
    N_ESCAPE_WHITESPACES,
    N_NAME,
    N_PRECOMPILED_CHARSMAP,
    N_REMOVE_EXTRA_WHITESPACES,
    NORMAL,
    T_BOS_ID,
    T_BOS_PIECE,
    T_BYTE_FALLBACK,
    T_CONTROL_SYMBOLS,
    T_EOS_ID,
    T_EOS_PIECE,
    T_MODEL_TYPE,
    T_PAD_ID,
    T_PAD_PIECE,
    T_UNK_ID,
    T_UNK_PIECE,
    T_USER_DEFINED_SYMBOLS,
    T_VOCAB_SIZE,
    UNIGRAM,
    UNKNOWN,
    UNUSED,
    USER_DEFINED,
    NormalizerSpec,
    SentencePiece,
    SentencePieceModel,
    TrainerSpec,
    float_bits,
    parse,
    read,
    serialize,
)
from engine.metaspace import FIRST, NEVER, REPLACEMENT
from engine.pattern import Regex
from engine.tokenizer import Tokenizer
from engine.models.unigram.lattice import float32
from engine.models.unigram.model import Unigram

__all__ = [
    "NormalizerSpec",
    "SentencePiece",
    "SentencePieceModel",
    "TrainerSpec",
    "from_tokenizer",
    "load",
    "parse",
    "read",
    "serialize",
    "to_tokenizer",
    "vocab_text",
    "write",
]

# -- SentencePieceModel -> Tokenizer -------------------------------------------------------------

# sentencepiece's remove_extra_whitespaces: spaces (only " ", after the charsmap) go at both ends,
# and runs of them inside become one.
STRIP_SPACES: Final = "\\A +| +\\z"
STRIP_TRAILING_SPACES: Final = " +\\z"
COLLAPSE_SPACES: Final = " {2,}"
# normalizer_spec.name of the rule tables the writer compiles (sentencepiece's built-in names)
NFKC: Final = "nfkc"
NMT_NFKC: Final = "nmt_nfkc"


def load(path: str) -> Tokenizer:
    """The engine tokenizer of a `.model` file, encoding as `sentencepiece` does (no bos/eos)."""
    return to_tokenizer(read(path))


def to_tokenizer(model: SentencePieceModel) -> Tokenizer:
    """The pipeline that reproduces `SentencePieceProcessor.encode` (ids) and `decode`.

    Charsmap -> strip/collapse spaces -> user-defined symbols (added tokens) -> Metaspace ("▁",
    dummy prefix on the first split) -> Unigram or BPE. Options the pipeline cannot express raise
    TokenizerFileError naming the option.
    """
    try:
        return _to_tokenizer(model)
    except (SchemaError, ValueError) as error:
        raise TokenizerFileError(model.source, str(error)) from None


def _to_tokenizer(model: SentencePieceModel) -> Tokenizer:
    trainer = model.trainer_spec
    spec = model.normalizer_spec
    if trainer.treat_whitespace_as_suffix:
        raise SchemaError("trainer_spec.treat_whitespace_as_suffix (24) = true is not supported by the engine pipeline")
    if not spec.escape_whitespaces:
        raise SchemaError("normalizer_spec.escape_whitespaces (5) = false is not supported by the engine pipeline")
    unk_id = -1
    seen: dict[str, int] = {}
    control: list[str] = []
    user_defined: list[str] = []
    inner_space = False
    for index in range(len(model.pieces)):
        piece = model.pieces[index]
        where = f"pieces[{index}] {piece.piece!r}"
        if piece.piece in seen:
            raise SchemaError(f"{where}: duplicate of piece {seen[piece.piece]}")
        if piece.score - piece.score != 0.0:
            # (NaN or infinite: a tokenizer.json cannot hold it, and sorting by it means nothing)
            raise SchemaError(f"{where}: the score {piece.score} is not a finite number")
        seen[piece.piece] = index
        if piece.type == UNKNOWN:
            if unk_id >= 0:
                raise SchemaError(f"{where}: a second UNKNOWN piece (the first is {unk_id})")
            unk_id = index
        elif piece.type == CONTROL:
            control.append(piece.piece)
        elif piece.type == USER_DEFINED:
            user_defined.append(piece.piece)
        elif piece.type == UNUSED:
            raise SchemaError(f"{where}: pieces of type UNUSED are not supported by the engine pipeline")
        elif piece.type == BYTE and not trainer.byte_fallback:
            raise SchemaError(f"{where}: a BYTE piece, but trainer_spec.byte_fallback (35) is false")
        if piece.type == NORMAL and REPLACEMENT in piece.piece[1:]:
            inner_space = True
    if unk_id < 0:
        raise SchemaError("pieces: no piece of type UNKNOWN (sentencepiece requires one)")
    vocab: list[tuple[str, float]] = [(p.piece, p.score) for p in model.pieces]
    model_type = trainer.model_type
    if model_type == UNIGRAM:
        tokenizer = Tokenizer(Unigram(vocab, unk_id, trainer.byte_fallback))
    elif model_type == BPE_TYPE:
        tokenizer = Tokenizer(_bpe_of(model, unk_id))
    else:
        name = MODEL_TYPE_NAMES.get(model_type, str(model_type))
        raise SchemaError(f"trainer_spec.model_type (3) = {name} is not supported (only UNIGRAM and BPE)")
    set_pipeline(
        tokenizer, spec.precompiled_charsmap, spec.add_dummy_prefix, spec.remove_extra_whitespaces, not inner_space,
        model.pieces[unk_id].piece, trainer.unk_surface, trainer.byte_fallback,
    )  # fmt: skip
    if control:
        tokenizer.add_special_tokens([AddedToken(c, normalized=False, special=True) for c in control])
    if user_defined:
        tokenizer.add_tokens([AddedToken(u, normalized=True, special=False) for u in user_defined])
    return tokenizer


def set_pipeline(
    tokenizer: Tokenizer, charsmap: bytes, add_dummy_prefix: bool, remove_extra_whitespaces: bool, split: bool,
    unk_piece: str, unk_surface: str, byte_fallback: bool,
) -> None:
    """Give `tokenizer` the normalizer, pre-tokenizer and decoder that do what `sentencepiece`
    does with a normalizer spec of these options: the charsmap's rules, then leading, trailing
    and repeated spaces removed, then "▁" for each space and as the dummy prefix (`split`: cut
    at each "▁", when no piece holds one past its start); decoding gives `unk_surface` for the
    unknown piece. What a `.model` file reads into, and what the SentencePiece presets train with."""
    steps: list[normalizers.Normalizer] = []
    if charsmap:
        steps.append(normalizers.Precompiled(charsmap))
    if remove_extra_whitespaces:
        # subtle: with a dummy prefix, one leading space is kept: Metaspace turns it into the
        # prefix itself, and a stripped text would start past offset 0, where "first" adds none.
        strip = STRIP_TRAILING_SPACES if add_dummy_prefix else STRIP_SPACES
        steps.append(normalizers.Replace(Regex(strip), ""))
        steps.append(normalizers.Replace(Regex(COLLAPSE_SPACES), " "))
    if len(steps) == 1:
        tokenizer.normalizer = steps[0]
    elif steps:
        tokenizer.normalizer = normalizers.Sequence(steps)
    # subtle: "first" puts the dummy "▁" only on the split that starts the text, so a piece
    # after a user-defined symbol gets none, as in sentencepiece; split=False when some piece
    # holds "▁" past its start (whitespace-only or split_by_whitespace=false models).
    scheme = FIRST if add_dummy_prefix else NEVER
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(REPLACEMENT, scheme, split)
    steps_out: list[decoders.Decoder] = []
    steps_out.append(decoders.Replace(unk_piece, unk_surface))
    steps_out.append(decoders.Replace(REPLACEMENT, " "))
    if byte_fallback:
        steps_out.append(decoders.ByteFallback())
    steps_out.append(decoders.Fuse())
    if add_dummy_prefix:
        steps_out.append(decoders.Strip(" ", 1, 0))
    tokenizer.decoder = decoders.Sequence(steps_out)


def _bpe_of(model: SentencePieceModel, unk_id: int) -> BPE:
    """sentencepiece BPE as an engine BPE: merges rebuilt from scores (higher score = earlier merge).

    Every split of a NORMAL piece into two known pieces is a merge, ranked by the piece's score,
    so the engine merges the same pair sentencepiece picks (the best-scoring concatenation).
    """
    vocab: dict[str, int] = {}
    for index in range(len(model.pieces)):
        vocab[model.pieces[index].piece] = index
    order: list[int] = [
        index for index in range(len(model.pieces))
        if model.pieces[index].type == NORMAL and len(model.pieces[index].piece) > 1
    ]
    scores: list[float] = [p.score for p in model.pieces]
    # subtle: stable sort by score, best first; equal scores keep id order.
    order.sort(key=scores.__getitem__, reverse=True)
    mergeable: set[str] = {p.piece for p in model.pieces if p.type == NORMAL}
    merges: list[tuple[str, str]] = []
    for index in order:
        piece = model.pieces[index].piece
        for cut in range(1, len(piece)):
            left = piece[:cut]
            right = piece[cut:]
            if left in mergeable and right in mergeable:
                merges.append((left, right))
    return BPE(
        vocab,
        merges,
        unk_token=model.pieces[unk_id].piece,
        fuse_unk=True,
        byte_fallback=model.trainer_spec.byte_fallback,
    )


# -- Tokenizer -> SentencePieceModel -------------------------------------------------------------


class _Layout:
    """What a tokenizer's normalizer and pre-tokenizer say in NormalizerSpec terms."""

    charsmap: bytes
    name: str
    add_dummy_prefix: bool
    remove_extra_whitespaces: bool
    escaped: bool

    def __init__(self) -> None:
        self.charsmap = b""
        self.name = ""
        self.add_dummy_prefix = False
        self.remove_extra_whitespaces = False
        self.escaped = False


def from_tokenizer(tokenizer: Tokenizer, base: SentencePieceModel | None = None) -> SentencePieceModel:
    """The `ModelProto` of an engine Unigram or BPE tokenizer with a SentencePiece-style pipeline.

    Ids become piece positions; special added tokens become CONTROL pieces, other added tokens
    USER_DEFINED, `<0xNN>` (with byte_fallback) BYTE. What a .model cannot hold raises EngineError.
    `base` (the model the tokenizer was loaded from) supplies what a tokenizer does not carry:
    training options, the normalizer's name, unchanged pieces' exact bytes.
    """
    return _from_tokenizer(tokenizer, base, [])


def check(tokenizer: Tokenizer) -> list[str]:
    """What `write` would return (its notes), or the TokenizerFileError it would raise, without
    writing or compiling a charsmap: for menus that say which formats can hold a tokenizer."""
    warnings: list[str] = []
    try:
        _from_tokenizer(tokenizer, None, warnings, compile_charsmap=False)
    except EngineError as error:
        raise TokenizerFileError("<.model>", f"cannot be written as a SentencePiece model: {error}") from None
    return warnings


def _from_tokenizer(
    tokenizer: Tokenizer, base: SentencePieceModel | None, warnings: list[str], compile_charsmap: bool = True
) -> SentencePieceModel:
    model = tokenizer.model
    if isinstance(model, Unigram):
        model_type = UNIGRAM
        byte_fallback = model.byte_fallback
        unk_id = model.unk_id if model.unk_id is not None else -1
    elif isinstance(model, BPE):
        model_type = BPE_TYPE
        byte_fallback = model.byte_fallback
        refused = separate_end_of_word(tokenizer, "a SentencePiece .model")
        if refused:
            raise EngineError(refused)
        if model.continuing_subword_prefix or model.end_of_word_suffix:
            raise EngineError(
                "a BPE continuing_subword_prefix or end_of_word_suffix cannot be stored in a .model"
            )
        if model.dropout:
            warnings.append("BPE dropout is not stored in a .model (sentencepiece takes alpha at encode time)")
        unk = model.unk_token
        found = model.token_to_id(unk) if unk is not None else None
        unk_id = found if found is not None else -1
        if unk_id >= 0 and not model.fuse_unk and not byte_fallback:
            warnings.append(
                "BPE fuse_unk=false is not stored: sentencepiece gives a run of unknown chars one unknown piece"
            )
    else:
        raise EngineError(f"a {type(model).__name__} model cannot be stored in a .model (only Unigram and BPE)")
    layout = _layout(tokenizer, warnings, compile_charsmap)
    if tokenizer.post_processor is not None:
        warnings.append("the post-processor is not stored: sentencepiece adds <s>/</s> only when asked (add_bos/add_eos)")
    vocab = tokenizer.get_vocab(True)
    size = len(vocab)
    tokens: list[str] = [""] * size
    for token, id in vocab.items():
        if id < 0 or id >= size or tokens[id]:
            raise EngineError(f"the ids are not 0..{size - 1} without gaps (token {token!r} has id {id})")
        tokens[id] = token
    added = tokenizer.get_added_tokens_decoder()
    pieces: list[SentencePiece] = []
    for id in range(size):
        token = tokens[id]
        kind = NORMAL
        extra = added.get(id)
        if id == unk_id:
            kind = UNKNOWN
        elif byte_fallback and _is_byte_piece(token):
            kind = BYTE
        elif extra is not None:
            kind = CONTROL if extra.special else USER_DEFINED
        pieces.append(SentencePiece(token, 0.0, kind))
    if unk_id < 0:
        unk_id = len(pieces)
        unk_name = "<unk>" if "<unk>" not in vocab else "<unk_sp>"
        pieces.append(SentencePiece(unk_name, 0.0, UNKNOWN))
        warnings.append(f"the model has no unknown token; added {unk_name!r} at id {unk_id} (sentencepiece requires one)")
    if byte_fallback:
        missing = [f"<0x{b:02X}>" for b in range(256) if f"<0x{b:02X}>" not in vocab]
        if missing:
            raise EngineError(f"byte_fallback needs all 256 byte pieces; missing {', '.join(missing[:4])}...")
    if isinstance(model, Unigram):
        for id in range(model.get_vocab_size()):
            if pieces[id].type == NORMAL:
                pieces[id].score = model.get_score(id)
    else:
        _set_bpe_scores(pieces, tokenizer, model)
    result = SentencePieceModel("<tokenizer>")
    same_pieces = base is not None and len(base.pieces) == len(pieces)
    if base is not None:
        # BPE scores are ranks: the base's scores give the same order when the pieces are the same.
        same_order = model_type == BPE_TYPE and _same_strings(base, pieces)
        for id in range(len(pieces)):
            if id < len(base.pieces):
                old = base.pieces[id]
                new = pieces[id]
                # subtle: the base keeps its exact bytes (a missing score field, extensions).
                if old.piece == new.piece and old.type == new.type and (
                    new.type != NORMAL or same_order or float_bits(old.score) == float_bits(new.score)
                ):
                    pieces[id] = old
                    continue
            same_pieces = False
        result.trainer_spec.fields = list(base.trainer_spec.fields)
        result.trainer_spec.present = base.trainer_spec.present
        result.normalizer_spec.fields = list(base.normalizer_spec.fields)
        result.normalizer_spec.present = base.normalizer_spec.present
        result.denormalizer_spec.fields = list(base.denormalizer_spec.fields)
        result.denormalizer_spec.present = base.denormalizer_spec.present
        if same_pieces:
            result.other = list(base.other)
        elif base.other:
            warnings.append("the base model's self-test data and extensions were dropped: the pieces changed")
    result.pieces = pieces
    _fill_trainer_spec(result, model_type, byte_fallback, unk_id)
    _fill_normalizer_spec(result.normalizer_spec, layout, base is not None)
    return result


def _same_strings(base: SentencePieceModel, pieces: list[SentencePiece]) -> bool:
    if len(base.pieces) != len(pieces):
        return False
    for k in range(len(pieces)):
        if base.pieces[k].piece != pieces[k].piece:
            return False
    return True


def _is_byte_piece(token: str) -> bool:
    """"<0x41>" -> True; sentencepiece's byte pieces are upper-case hex."""
    return len(token) == 6 and token.startswith("<0x") and token.endswith(">") and all(
        [c in "0123456789ABCDEF" for c in token[3:5]]
    )


def _set_bpe_scores(pieces: list[SentencePiece], tokenizer: Tokenizer, model: BPE) -> None:
    """sentencepiece BPE scores: a merged piece scores -(rank of its first merge); the rest
    (alphabet) score below every merge, in id order, as sentencepiece's trainer writes them."""
    vocab = model.get_vocab()
    ranks: dict[int, int] = {}
    merges = model.merges
    for rank in range(len(merges)):
        a, b = merges[rank]
        id = vocab.get(a + b)
        if id is not None and id not in ranks:
            ranks[id] = rank
    below = len(merges)
    for id in range(len(pieces)):
        if pieces[id].type != NORMAL:
            continue
        found = ranks.get(id)
        if found is not None:
            pieces[id].score = float(-found)
        else:
            pieces[id].score = float(-below)
            below += 1


def _layout(tokenizer: Tokenizer, warnings: list[str], compile_charsmap: bool = True) -> _Layout:
    """Read the normalizer and pre-tokenizer as NormalizerSpec options, or raise EngineError."""
    layout = _Layout()
    steps: list[normalizers.Normalizer] = []
    if tokenizer.normalizer is not None:
        _flatten(tokenizer.normalizer, steps)
    prepended = False
    start = _nfkc_steps(steps)
    if start:
        # NFKC (with Nmt's cleanups) is what sentencepiece's "nfkc" ("nmt_nfkc") rule table does:
        # stored as that table, compiled here (engine.formats.charsmap), with its name.
        nmt = start == 2
        layout.charsmap = nfkc_charsmap(nmt) if compile_charsmap else b""
        layout.name = NMT_NFKC if nmt else NFKC
        if nmt:
            warnings.append(
                "Nmt + NFKC is stored as sentencepiece's nmt_nfkc rules, which keep U+200D (zero width joiner) "
                "and U+FF5E (fullwidth tilde) where Nmt + NFKC make them ' ' and '~', and make U+061C "
                "(Arabic letter mark) ' ' where Nmt keeps it"
            )
    for index in range(start, len(steps)):
        step = steps[index]
        if isinstance(step, normalizers.Precompiled) and index == 0:
            layout.charsmap = step.precompiled_charsmap
        elif isinstance(step, normalizers.Replace) and _is_space_rule(step):
            layout.remove_extra_whitespaces = True
        elif isinstance(step, normalizers.Strip) and step.left and step.right:
            layout.remove_extra_whitespaces = True
        elif isinstance(step, normalizers.Prepend) and step.prepend == REPLACEMENT:
            prepended = True
        elif isinstance(step, normalizers.Replace) and _pattern_text(step) == " " and step.replacement.content == REPLACEMENT:
            layout.escaped = True
        else:
            raise EngineError(
                f"the normalizer {type(step).__name__} cannot be stored in a .model "
                "(only a Precompiled charsmap, NFKC (optionally with Nmt) first, and SentencePiece's "
                "whitespace rules can)"
            )
    pre = tokenizer.pre_tokenizer
    if isinstance(pre, pre_tokenizers.Metaspace):
        if pre.replacement != REPLACEMENT:
            raise EngineError(f"a Metaspace replacement {pre.replacement!r} cannot be stored in a .model (only '▁')")
        layout.escaped = True
        layout.add_dummy_prefix = prepended or pre.prepend_scheme != NEVER
    elif pre is None:
        layout.add_dummy_prefix = prepended
    else:
        raise EngineError(
            f"the pre-tokenizer {type(pre).__name__} cannot be stored in a .model "
            "(sentencepiece only escapes spaces as '▁': a Metaspace pre-tokenizer)"
        )
    if layout.add_dummy_prefix and not prepended and not layout.remove_extra_whitespaces:
        warnings.append(
            "a text that starts with a space: Metaspace adds no '▁' then, sentencepiece's add_dummy_prefix does"
        )
    if not layout.escaped:
        raise EngineError("spaces are not escaped as '▁' (no Metaspace pre-tokenizer): a .model cannot say so")
    return layout


def _nfkc_steps(steps: list[normalizers.Normalizer]) -> int:
    """How many leading steps are NFKC as sentencepiece names it: 1 for [NFKC, ...], 2 for
    [Nmt, NFKC, ...] or [NFKC, Nmt, ...] (nmt_nfkc), 0 otherwise."""
    if not steps:
        return 0
    first = steps[0]
    second = steps[1] if len(steps) > 1 else None
    if isinstance(first, normalizers.NFKC):
        return 2 if isinstance(second, normalizers.Nmt) else 1
    if isinstance(first, normalizers.Nmt) and isinstance(second, normalizers.NFKC):
        return 2
    return 0


def _flatten(normalizer: normalizers.Normalizer, out: list[normalizers.Normalizer]) -> None:
    if isinstance(normalizer, normalizers.Sequence):
        for inner in normalizer.normalizers:
            _flatten(inner, out)
    else:
        out.append(normalizer)


def _pattern_text(step: normalizers.Replace) -> str:
    pattern = step.replacement.pattern
    return pattern if isinstance(pattern, str) else pattern.pattern


def _is_space_rule(step: normalizers.Replace) -> bool:
    text = _pattern_text(step)
    content = step.replacement.content
    return (text == COLLAPSE_SPACES and content == " ") or (
        (text == STRIP_SPACES or text == STRIP_TRAILING_SPACES) and content == ""
    )


def _fill_trainer_spec(model: SentencePieceModel, model_type: int, byte_fallback: bool, unk_id: int) -> None:
    spec = model.trainer_spec
    spec.set_int(T_MODEL_TYPE, model_type, UNIGRAM)
    spec.set_int(T_VOCAB_SIZE, len(model.pieces), 8000)
    spec.set_bool(T_BYTE_FALLBACK, byte_fallback, False)
    control: list[str] = []
    user: list[str] = []
    ids: dict[str, int] = {}
    for id in range(len(model.pieces)):
        piece = model.pieces[id]
        ids[piece.piece] = id
        if piece.type == USER_DEFINED:
            user.append(piece.piece)
    spec.set_int(T_UNK_ID, unk_id, 0)
    spec.set_str(T_UNK_PIECE, model.pieces[unk_id].piece, "<unk>")
    meta = [T_UNK_ID]
    for number, piece_number, default_id, default_piece in (
        (T_BOS_ID, T_BOS_PIECE, 1, "<s>"), (T_EOS_ID, T_EOS_PIECE, 2, "</s>"), (T_PAD_ID, T_PAD_PIECE, -1, "<pad>")
    ):
        name = spec.get_str(piece_number, default_piece)
        found = ids.get(name, -1)
        if found >= 0 and model.pieces[found].type != CONTROL:
            found = -1
        spec.set_int(number, found, default_id)
        meta.append(found)
    for id in range(len(model.pieces)):
        if model.pieces[id].type == CONTROL and id not in meta:
            control.append(model.pieces[id].piece)
    spec.set_strings(T_CONTROL_SYMBOLS, control)
    spec.set_strings(T_USER_DEFINED_SYMBOLS, user)


def _fill_normalizer_spec(spec: NormalizerSpec, layout: _Layout, has_base: bool) -> None:
    if layout.name:
        spec.set_str(N_NAME, layout.name, "")
    elif not layout.charsmap:
        spec.set_str(N_NAME, "identity", "")
    elif not has_base:
        spec.set_str(N_NAME, "user_defined", "")
    spec.set_bytes(N_PRECOMPILED_CHARSMAP, layout.charsmap)
    spec.set_bool(N_ADD_DUMMY_PREFIX, layout.add_dummy_prefix, True)
    spec.set_bool(N_REMOVE_EXTRA_WHITESPACES, layout.remove_extra_whitespaces, True)
    spec.set_bool(N_ESCAPE_WHITESPACES, True, True)
    spec.present = True


def vocab_text(model: SentencePieceModel) -> str:
    """The `.vocab` file: `piece<TAB>score` per line in id order (scores as C++ streams print them)."""
    lines: list[str] = []
    for piece in model.pieces:
        lines.append(f"{piece.piece}\t{_score_text(piece.score)}\n")
    return "".join(lines)


def _score_text(score: float) -> str:
    # C++ `ostream << float`: 6 significant digits, like "%g"; the float goes through single precision.
    return f"{float32(score):g}"


def write(tokenizer: Tokenizer, path: str, base: SentencePieceModel | None = None) -> list[str]:
    """Write PATH (.model) and PATH minus its suffix + ".vocab", both or neither; return warnings
    (what the format does not carry). A pipeline a .model cannot express raises TokenizerFileError
    before any file is touched."""
    root, suffix = os.path.splitext(path)
    vocab_path = (root if suffix else path) + ".vocab"
    if os.path.abspath(vocab_path) == os.path.abspath(path):
        raise TokenizerFileError(path, "a .model file cannot be named .vocab (its .vocab file goes beside it)")
    warnings: list[str] = []
    try:
        model = _from_tokenizer(tokenizer, base, warnings)
    except EngineError as error:
        raise TokenizerFileError(path, f"cannot be written as a SentencePiece model: {error}") from None
    for piece in model.pieces:
        if any([c in piece.piece for c in " \t\n"]):
            warnings.append(f"piece {piece.piece!r} holds a space, tab or newline: the .vocab line is ambiguous")
            break
    write_files_atomically([(path, serialize(model)), (vocab_path, vocab_text(model))])
    return warnings
