"""The two sides of an export's certificate: the tokenizer the workbench exported (`EngineSide`)
and the written file read by the library that owns its format (`library_side`), each turning a
text into ids and tokens. Does not compare them (`certificate` does) and writes nothing.

How each format is read, as its users read it:

    hf            tokenizers.Tokenizer.from_file(tokenizer.json)
    bert-vocab    tokenizers.BertWordPieceTokenizer(vocab.txt, lowercase=..., strip_accents=...),
                  the case read off the vocabulary as the workbench's reader does (the file does
                  not say it); without [CLS] and [SEP] in it (which that class requires), a
                  tokenizers.Tokenizer around models.WordPiece.from_file with BERT's normalizer and
                  pre-tokenizer
    gpt2          tokenizers.ByteLevelBPETokenizer(vocab.json, merges.txt) for a byte-level
                  vocabulary, else tokenizers.Tokenizer(models.BPE.from_file(vocab.json, merges.txt))
    sentencepiece sentencepiece.SentencePieceProcessor(model_file=...)
    tiktoken      tiktoken.Encoding(mergeable_ranks=<the .tiktoken's lines>, **<the sidecar JSON>)

A library that is not installed (they are not the app's dependencies) is replaced by the
workbench's own reader of the format (`convert.load`), and the certificate says so.
"""

from __future__ import annotations

import base64
import importlib.metadata
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Collection
from typing import Final

from engine import byte_level
from engine.formats import bert_vocab, convert, gpt2
from engine.formats import tiktoken as tiktoken_format
from engine.models.bpe.model import BPE
from engine.models.unigram.model import Unigram
from engine.models.wordlevel.model import WordLevel
from engine.models.wordpiece.model import WordPiece
from engine.tokenizer import Tokenizer

# The library that owns each format.
OWNERS: Final[dict[str, str]] = {
    convert.HF: "tokenizers",
    convert.BERT_VOCAB: "tokenizers",
    convert.GPT2: "tokenizers",
    convert.SENTENCEPIECE: "sentencepiece",
    convert.TIKTOKEN: "tiktoken",
}
# Whether each format's users get the post-processor's special tokens when they encode: a
# tokenizer.json's post-processor and BertWordPieceTokenizer's [CLS] ... [SEP] are added by
# default (`encode(text)`); GPT-2's files add none; sentencepiece adds BOS/EOS only when asked
# (`add_bos=True`); tiktoken never adds any.
WITH_SPECIAL_TOKENS: Final[dict[str, bool]] = {
    convert.HF: True,
    convert.BERT_VOCAB: True,
    convert.GPT2: False,
    convert.SENTENCEPIECE: False,
    convert.TIKTOKEN: False,
}


class Reading:
    """One text as one side tokenizes it: ids, tokens (in the engine's spelling: `Ġ` for a
    byte-level space, `▁`, `##`), the normalized text when that side can tell it (None when not),
    and `error`, what the side raised instead ("" when it did not)."""

    ids: list[int]
    tokens: list[str]
    normalized: str | None
    error: str
    # where each token starts in the original text (-1: not known), for excerpts
    starts: list[int]

    def __init__(self, ids: list[int], tokens: list[str], normalized: str | None, error: str = "", starts: list[int] | None = None) -> None:
        self.ids = ids
        self.tokens = tokens
        self.normalized = normalized
        self.error = error
        self.starts = starts if starts is not None else []


class Side(ABC):
    """A tokenizer that reads texts. `reader` says which one ("sentencepiece 0.2.3"), `loader`
    how it was made, `special_ids` and `unk_ids` the ids it calls special or unknown."""

    reader: str
    loader: str
    special_ids: set[int]
    unk_ids: set[int]

    def __init__(self, reader: str, loader: str) -> None:
        self.reader = reader
        self.loader = loader
        self.special_ids = set()
        self.unk_ids = set()

    @abstractmethod
    def read(self, text: str) -> Reading: ...

    def read_all(self, texts: list[str]) -> list[Reading]:
        """`read` of each text (a side may do it in one batch)."""
        return [self.read(text) for text in texts]


class EngineSide(Side):
    """The workbench's own tokenizer, without its padding and truncation (a copy is made when it
    has them), so that every text is compared whole; with the post-processor's special tokens
    when `add_special_tokens`."""

    def __init__(self, tokenizer: Tokenizer, add_special_tokens: bool, reader: str = "the workbench", loader: str = "") -> None:
        super().__init__(reader, loader)
        if tokenizer.padding is not None or tokenizer.truncation is not None:
            tokenizer = Tokenizer.from_str(tokenizer.to_str())
            tokenizer.no_padding()
            tokenizer.no_truncation()
        self.tokenizer = tokenizer
        self.add_special_tokens = add_special_tokens
        for id, token in tokenizer.get_added_tokens_decoder().items():
            if token.special:
                self.special_ids.add(id)
        unk = unk_id(tokenizer)
        if unk is not None:
            self.unk_ids.add(unk)

    def read(self, text: str) -> Reading:
        return self.read_all([text])[0]

    def read_all(self, texts: list[str]) -> list[Reading]:
        try:
            encodings = self.tokenizer.encode_batch(texts, add_special_tokens=self.add_special_tokens)
        except Exception:  # noqa: BLE001 - one text at a time, to say which one failed
            return [self._read_one(text) for text in texts]
        normalizer = self.tokenizer.normalizer
        readings: list[Reading] = []
        for text, encoding in zip(texts, encodings):
            normalized = normalizer.normalize_str(text) if normalizer is not None else text
            starts = [start for start, _ in encoding.offsets]
            readings.append(Reading(list(encoding.ids), list(encoding.tokens), normalized, "", starts))
        return readings

    def _read_one(self, text: str) -> Reading:
        try:
            encoding = self.tokenizer.encode(text, add_special_tokens=self.add_special_tokens)
        except Exception as error:  # noqa: BLE001 - reported in the certificate
            return Reading([], [], None, f"{type(error).__name__}: {error}")
        normalizer = self.tokenizer.normalizer
        normalized = normalizer.normalize_str(text) if normalizer is not None else text
        return Reading(list(encoding.ids), list(encoding.tokens), normalized, "", [start for start, _ in encoding.offsets])


def unk_id(tokenizer: Tokenizer) -> int | None:
    """The id of the model's unknown token, if it has one."""
    model = tokenizer.model
    if isinstance(model, Unigram):
        return model.unk_id
    unk: str | None = None
    if isinstance(model, (WordPiece, WordLevel)):
        unk = model.unk_token
    elif isinstance(model, BPE):
        unk = model.unk_token
    return tokenizer.token_to_id(unk) if unk else None


def library_version(name: str) -> str:
    """`"tokenizers 0.23.3"`; the bare name when the version cannot be read."""
    try:
        return f"{name} {importlib.metadata.version(name)}"
    except importlib.metadata.PackageNotFoundError:
        return name


class LibraryMissing(Exception):
    """The library that owns the format cannot be imported."""


def library_side(kind: str, path: str, ours: Tokenizer, libraries: Collection[str] | None = None) -> Side:
    """The file written as `kind` at `path` (as `convert.save` took it) read by the library
    that owns the format; when that library is not installed, or not among `libraries` (None:
    any), the workbench's own reader of the format, saying why. Raises what the library raises
    when it cannot read the file (the certificate reports it)."""
    owner = OWNERS[kind]
    with_specials = WITH_SPECIAL_TOKENS[kind]
    if libraries is None or owner in libraries:
        try:
            return _library_side(kind, path, ours, with_specials)
        except LibraryMissing:
            why = f"{owner} is not installed"
    else:
        why = f"{owner} was not asked for"
    loaded = convert.load(path)
    return EngineSide(loaded, with_specials, f"the workbench's own reader: {why}", f"engine.formats.convert.load({os.path.basename(path)!r})")


def _library_side(kind: str, path: str, ours: Tokenizer, with_specials: bool) -> Side:
    if kind == convert.SENTENCEPIECE:
        return SentencePieceSide(path)
    if kind == convert.TIKTOKEN:
        return TiktokenSide(path)
    return TokenizersSide(kind, path, with_specials)


class TokenizersSide(Side):
    """HF `tokenizers` reading a tokenizer.json, a BERT vocab.txt or GPT-2's two files (see the
    module docstring), padding and truncation off."""

    def __init__(self, kind: str, path: str, add_special_tokens: bool) -> None:
        try:
            import tokenizers
        except ImportError:
            raise LibraryMissing() from None
        from tokenizers import models, normalizers, pre_tokenizers

        name = os.path.basename(path)
        if kind == convert.BERT_VOCAB:
            vocab = bert_vocab.read(path)
            guess = bert_vocab.guess_case(vocab)
            if bert_vocab.CLS in vocab and bert_vocab.SEP in vocab:
                bert = tokenizers.BertWordPieceTokenizer(path, lowercase=guess.lowercase, strip_accents=guess.strip_accents)
                tokenizer = tokenizers.Tokenizer.from_str(bert.to_str())
                loader = f"BertWordPieceTokenizer({name!r}, lowercase={guess.lowercase}, strip_accents={guess.strip_accents})"
            else:
                tokenizer = tokenizers.Tokenizer(models.WordPiece.from_file(path, unk_token=bert_vocab.UNK))
                tokenizer.normalizer = normalizers.BertNormalizer(lowercase=guess.lowercase, strip_accents=guess.strip_accents)
                tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
                loader = (
                    f"Tokenizer(WordPiece.from_file({name!r})) with BertNormalizer(lowercase={guess.lowercase}, "
                    f"strip_accents={guess.strip_accents}) and BertPreTokenizer (no [CLS] and [SEP] for BertWordPieceTokenizer)"
                )
            loader += f": the case read off the vocabulary ({guess.note})"
        elif kind == convert.GPT2:
            vocab_path, merges_path = convert.written_paths(convert.GPT2, path)
            names = f"{os.path.basename(vocab_path)!r}, {os.path.basename(merges_path)!r}"
            if gpt2.is_byte_level(gpt2.read(vocab_path, merges_path)[0]):
                byte_level_bpe = tokenizers.ByteLevelBPETokenizer(vocab_path, merges_path)
                tokenizer = tokenizers.Tokenizer.from_str(byte_level_bpe.to_str())
                loader = f"ByteLevelBPETokenizer({names})"
            else:
                tokenizer = tokenizers.Tokenizer(models.BPE.from_file(vocab_path, merges_path))
                loader = f"Tokenizer(BPE.from_file({names})): the vocabulary is not byte-level"
        else:
            tokenizer = tokenizers.Tokenizer.from_file(path)
            loader = f"Tokenizer.from_file({name!r})"
        tokenizer.no_padding()
        tokenizer.no_truncation()
        super().__init__(library_version("tokenizers"), "tokenizers." + loader)
        self.tokenizer = tokenizer
        self.add_special_tokens = add_special_tokens
        for id, added in tokenizer.get_added_tokens_decoder().items():
            if added.special:
                self.special_ids.add(id)

    def read(self, text: str) -> Reading:
        try:
            encoding = self.tokenizer.encode(text, add_special_tokens=self.add_special_tokens)
            normalizer = self.tokenizer.normalizer
            normalized = normalizer.normalize_str(text) if normalizer is not None else text
        except Exception as error:  # noqa: BLE001 - reported in the certificate
            return Reading([], [], None, f"{type(error).__name__}: {error}")
        return Reading(list(encoding.ids), list(encoding.tokens), normalized)


class SentencePieceSide(Side):
    """`sentencepiece` reading a .model: `encode(text)` (no BOS or EOS, sentencepiece's default)."""

    def __init__(self, path: str) -> None:
        try:
            import sentencepiece
        except ImportError:
            raise LibraryMissing() from None
        super().__init__(library_version("sentencepiece"), f"sentencepiece.SentencePieceProcessor(model_file={os.path.basename(path)!r})")
        self.processor = sentencepiece.SentencePieceProcessor(model_file=path)
        for id in range(self.processor.get_piece_size()):
            if self.processor.is_control(id):
                self.special_ids.add(id)
        unk = self.processor.unk_id()
        if unk >= 0:
            self.unk_ids.add(unk)

    def read(self, text: str) -> Reading:
        try:
            ids = [int(id) for id in self.processor.encode(text)]
            normalized = str(self.processor.normalize(text))
        except Exception as error:  # noqa: BLE001 - reported in the certificate
            return Reading([], [], None, f"{type(error).__name__}: {error}")
        return Reading(ids, [str(self.processor.id_to_piece(id)) for id in ids], normalized)


class TiktokenSide(Side):
    """`tiktoken` reading a .tiktoken and its sidecar: `encode(text, allowed_special="all")`, so
    that a special token's text in a text is that token, as in HF `tokenizers` (no text of the
    suite holds one). Tokens are shown in the byte-level spelling (`Ġthe`)."""

    def __init__(self, path: str) -> None:
        try:
            import tiktoken
            import tiktoken.load
        except ImportError:
            raise LibraryMissing() from None
        # subtle: load_tiktoken_bpe caches a file's bytes by its path, so a file written again at
        # the same path would be read as it was; these are its lines without the cache.
        contents = tiktoken.load.read_file(path)
        ranks: dict[bytes, int] = {}
        for line in contents.splitlines():
            if line:
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
        with open(tiktoken_format.sidecar_path(path), encoding="utf-8") as stream:
            sidecar = json.load(stream)
        super().__init__(
            library_version("tiktoken"),
            f"tiktoken.Encoding(mergeable_ranks=<{os.path.basename(path)}>, **<{os.path.basename(tiktoken_format.sidecar_path(path))}>)",
        )
        specials = {str(token): int(id) for token, id in dict(sidecar.get("special_tokens", {})).items()}
        self.encoding = tiktoken.Encoding(
            name=str(sidecar.get("name", "")),
            pat_str=str(sidecar["pat_str"]),
            mergeable_ranks=ranks,
            special_tokens=specials,
            explicit_n_vocab=sidecar.get("explicit_n_vocab"),
        )
        self.special_ids.update(specials.values())

    def read(self, text: str) -> Reading:
        try:
            ids = self.encoding.encode(text, allowed_special="all")
            tokens = [byte_chars(self.encoding.decode_single_token_bytes(id)) for id in ids]
        except Exception as error:  # noqa: BLE001 - reported in the certificate
            return Reading([], [], None, f"{type(error).__name__}: {error}")
        return Reading(ids, tokens, text)


def byte_chars(token: bytes) -> str:
    """A token's bytes in the byte-level spelling: `b" the"` -> `"Ġthe"`."""
    return token.decode("latin-1").translate(byte_level.LATIN1_TO_CHARS)
