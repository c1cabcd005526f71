"""BERT's `vocab.txt`: read it, load it with the BERT pipeline around it, write a WordPiece vocabulary.

The file is one token per line, the id being the line index (HF's `WordPiece.read_file` rules).
It holds no normalizer, pre-tokenizer, post-processor or decoder: `load` rebuilds BERT's, as HF's
`BertWordPieceTokenizer` does, and `write` lists what the file cannot carry. Not tokenizer.json.
"""

from __future__ import annotations

from typing import Final

from engine import decoders, normalizers, pre_tokenizers, processors
from engine.added_vocabulary import AddedToken
from engine.errors import TokenizerFileError
from engine.formats.export_notes import lost_parts
from engine.formats.files import write_text_atomically
from engine.formats.vocab_files import dump_vocab_txt, read_vocab_txt
from engine.tokenizer import Tokenizer
from engine.wordpiece.model import WordPiece

UNK: Final = "[UNK]"
SEP: Final = "[SEP]"
CLS: Final = "[CLS]"
PAD: Final = "[PAD]"
MASK: Final = "[MASK]"
SPECIALS: Final[list[str]] = [UNK, SEP, CLS, PAD, MASK]
PREFIX: Final = "##"


def read(path: str) -> dict[str, int]:
    """{token: id} from a vocab.txt (`"[PAD]\\n[UNK]\\n"` -> `{"[PAD]": 0, "[UNK]": 1}`)."""
    return read_vocab_txt(path)


def bert_tokenizer(vocab: dict[str, int], lowercase: bool = True) -> Tokenizer:
    """HF's BertWordPieceTokenizer around `vocab`: BertNormalizer, BertPreTokenizer, WordPiece
    (unk "[UNK]"), the BERT specials that are in the vocabulary made special, BertProcessing
    when [CLS] and [SEP] are there, and the WordPiece decoder. The model keeps `vocab` itself
    (no copy): the caller must not change it afterwards."""
    tokenizer = Tokenizer(WordPiece.owning(vocab, UNK))
    specials: list[str | AddedToken] = []
    for token in SPECIALS:
        if token in vocab:
            specials.append(token)
    if specials:
        tokenizer.add_special_tokens(specials)
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=lowercase)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    sep = vocab.get(SEP)
    cls = vocab.get(CLS)
    if sep is not None and cls is not None:
        tokenizer.post_processor = processors.BertProcessing((SEP, sep), (CLS, cls))
    tokenizer.decoder = decoders.WordPiece(prefix=PREFIX)
    return tokenizer


def load(path: str, lowercase: bool = True) -> Tokenizer:
    """A BERT tokenizer from a vocab.txt (`lowercase=False` for cased models).

    Unlike HF, a vocabulary without [CLS] or [SEP] gets no post-processor instead of an error.
    """
    return bert_tokenizer(read(path), lowercase)


def write(tokenizer: Tokenizer, path: str) -> list[str]:
    """Write the WordPiece vocabulary of `tokenizer` to `path`; returns what the file does not keep.

    The model must be a WordPiece (a TokenizerFileError says so otherwise, and nothing is written).
    """
    model = tokenizer.model
    if not isinstance(model, WordPiece):
        raise TokenizerFileError(
            path, f"cannot be written: vocab.txt holds a WordPiece vocabulary, and this tokenizer's model is {type(model).__name__}"
        )
    vocab = model.get_vocab()
    notes: list[str] = []
    ids = sorted(vocab.values())
    if ids and ids[-1] != len(ids) - 1:
        notes.append(
            f"the ids have holes (largest id {ids[-1]}, {len(ids)} tokens): vocab.txt numbers tokens by line,"
            " so the tokens after a hole get smaller ids"
        )
    if model.unk_token != UNK:
        notes.append(f"the unknown token {model.unk_token!r} is not stored; load uses {UNK!r}")
    if model.continuing_subword_prefix != PREFIX:
        notes.append(f"the continuing-subword prefix {model.continuing_subword_prefix!r} is not stored; load uses {PREFIX!r}")
    if model.max_input_chars_per_word != 100:
        notes.append(f"max_input_chars_per_word={model.max_input_chars_per_word} is not stored; load uses 100")
    for token in vocab:
        if "\n" in token or "\r" in token or token != token.rstrip():
            notes.append(f"the token {token!r} holds a line break or ends in whitespace, which vocab.txt cannot keep")
            break
    lowercase = True
    normalizer = tokenizer.normalizer
    if isinstance(normalizer, normalizers.BertNormalizer):
        lowercase = normalizer.lowercase
    rebuilt = bert_tokenizer(read_ordered(vocab), lowercase)
    notes += lost_parts(tokenizer, rebuilt, "vocab.txt", f"bert_vocab.load(path, lowercase={lowercase})")
    write_text_atomically(path, dump_vocab_txt(vocab))
    return notes


def read_ordered(vocab: dict[str, int]) -> dict[str, int]:
    """The vocabulary `read` gives back for the file `dump_vocab_txt(vocab)` (ids renumbered by line)."""
    by_id: list[tuple[int, str]] = []
    for token, id in vocab.items():
        by_id.append((id, token))
    by_id.sort()
    result: dict[str, int] = {}
    for index in range(len(by_id)):
        result[by_id[index][1]] = index
    return result
