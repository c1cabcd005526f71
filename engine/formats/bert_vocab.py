"""BERT's `vocab.txt`: read it, load it with the BERT pipeline around it, write a WordPiece vocabulary.

The file is one token per line, the id being the line index (HF's `WordPiece.read_file` rules).
It holds no normalizer, pre-tokenizer, post-processor or decoder: `load` rebuilds BERT's, as HF's
`BertWordPieceTokenizer` does, cased or uncased as the vocabulary shows (`guess_case`), and
`write` lists what the file cannot carry. Not tokenizer.json.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from engine import decoders, normalizers, pre_tokenizers, processors
from engine.added_vocabulary import AddedToken
from engine.errors import TokenizerFileError
from engine.formats.export_notes import lost_parts
from engine.formats.files import write_text_atomically
from engine.formats.vocab_files import dump_vocab_txt, read_vocab_txt
from engine.tokenizer import Tokenizer
from engine.models.wordpiece.model import WordPiece

UNK: Final = "[UNK]"
SEP: Final = "[SEP]"
CLS: Final = "[CLS]"
PAD: Final = "[PAD]"
MASK: Final = "[MASK]"
SPECIALS: Final[list[str]] = [UNK, SEP, CLS, PAD, MASK]
PREFIX: Final = "##"
# A case guess needs this many tokens with capitals (or accents), fewer in a small vocabulary.
CASE_EVIDENCE: Final = 10


class CaseGuess:
    """What a vocabulary tells of the normalizer its model was trained behind: a lowercasing
    model has no token with a capital (it could never be produced), one that strips accents no
    token with an accent. `note` says it in one line, for `inspect` and the window."""

    lowercase: bool
    # BertNormalizer's: None follows `lowercase` (HF's BertWordPieceTokenizer default), False keeps accents
    strip_accents: bool | None
    capitals: int
    accented: int

    def __init__(self, lowercase: bool, strip_accents: bool | None, capitals: int, accented: int) -> None:
        self.lowercase = lowercase
        self.strip_accents = strip_accents
        self.capitals = capitals
        self.accented = accented

    @property
    def note(self) -> str:
        """"cased vocabulary (9,149 tokens with capitals): lowercase off, accents kept", or
        "lowercase vocabulary (no tokens with capitals): lowercase on, accents stripped"."""
        capitals = f"{_tokens(self.capitals)} with capitals" if self.capitals else "no tokens with capitals"
        if self.lowercase:
            found = f"lowercase vocabulary ({capitals})"
            if self.strip_accents is False:
                return f"{found} with accented letters ({_tokens(self.accented)}): lowercase on, accents kept"
            return f"{found}: lowercase on, accents stripped"
        return f"cased vocabulary ({capitals}): lowercase off, accents kept"

    def __repr__(self) -> str:
        return f"CaseGuess(lowercase={self.lowercase}, strip_accents={self.strip_accents}, capitals={self.capitals}, accented={self.accented})"


def guess_case(vocab: dict[str, int]) -> CaseGuess:
    """Cased when enough word tokens hold a capital, accents kept when enough hold an accent
    (a letter with a combining mark after NFD, or a mark alone): `significant` of them, so a
    few stray tokens do not decide. The [bracketed] specials do not count.

    bert-base-uncased: no capitals, no accents -> lowercase on, accents stripped (HF's default);
    bert-base-cased: 9,149 tokens with capitals -> lowercase off (HF's `lowercase=False`).
    """
    capitals = 0
    accented = 0
    for token in vocab:
        if token.startswith("[") and token.endswith("]"):
            continue
        if token != token.lower():
            capitals += 1
        if not token.isascii() and _has_accent(token):
            accented += 1
    needed = significant(len(vocab))
    if capitals >= needed:
        return CaseGuess(False, None, capitals, accented)
    if accented >= needed:
        return CaseGuess(True, False, capitals, accented)
    return CaseGuess(True, None, capitals, accented)


def _tokens(count: int) -> str:
    return "1 token" if count == 1 else f"{count:,} tokens"


def significant(size: int) -> int:
    """How many tokens decide a case guess for a vocabulary of `size`: 1 in 100, from 1 up to 10."""
    return min(CASE_EVIDENCE, max(1, size // 100))


def _has_accent(token: str) -> bool:
    """Whether BertNormalizer's strip_accents would change `token` (NFD, then drop marks Mn)."""
    for c in unicodedata.normalize("NFD", token):
        if unicodedata.category(c) == "Mn":
            return True
    return False


def detect_case(path: str) -> CaseGuess:
    """`guess_case` of the vocab.txt at `path` (what `load` chooses for it)."""
    return guess_case(read(path))


def read(path: str) -> dict[str, int]:
    """{token: id} from a vocab.txt (`"[PAD]\\n[UNK]\\n"` -> `{"[PAD]": 0, "[UNK]": 1}`)."""
    return read_vocab_txt(path)


def bert_tokenizer(vocab: dict[str, int], lowercase: bool = True, strip_accents: bool | None = None) -> Tokenizer:
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
    tokenizer.normalizer = normalizers.BertNormalizer(strip_accents=strip_accents, lowercase=lowercase)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    sep = vocab.get(SEP)
    cls = vocab.get(CLS)
    if sep is not None and cls is not None:
        tokenizer.post_processor = processors.BertProcessing((SEP, sep), (CLS, cls))
    tokenizer.decoder = decoders.WordPiece(prefix=PREFIX)
    return tokenizer


def load(path: str, lowercase: bool | None = None, strip_accents: bool | None = None) -> Tokenizer:
    """A BERT tokenizer from a vocab.txt, cased or uncased as `guess_case` reads the vocabulary
    unless `lowercase` says (and then `strip_accents` as given, None following `lowercase`).

    Unlike HF, a vocabulary without [CLS] or [SEP] gets no post-processor instead of an error.
    """
    vocab = read(path)
    if lowercase is None:
        guess = guess_case(vocab)
        return bert_tokenizer(vocab, guess.lowercase, guess.strip_accents)
    return bert_tokenizer(vocab, lowercase, strip_accents)


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
    ordered = read_ordered(vocab)
    guess = guess_case(ordered)
    rebuilt = bert_tokenizer(ordered, guess.lowercase, guess.strip_accents)
    notes += lost_parts(tokenizer, rebuilt, "vocab.txt", "bert_vocab.load(path)")
    notes.append(f"bert_vocab.load(path) will find a {guess.note}")
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
