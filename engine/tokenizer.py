"""The `Tokenizer`: normalizer -> pre-tokenizer -> model -> post-processor, plus decode, train and save.

Same API and semantics as HF `tokenizers.Tokenizer` (0.23), offsets in characters of the original
input. The components do the work; this module wires them together and owns no algorithm. Each
input sequence goes through the pipeline in `engine.input_sequence`; what a training does around
its trainer is `engine.tokenizer_training`'s.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Final, TypeVar

from engine import fast_path, tokenizer_training
from engine.added_vocabulary import AddedToken, AddedVocabulary, as_added_tokens
from engine.collector import PausedCollector
from engine.corpus import counting
from engine.corpus.counting import AddedTokenWords, PipelineWords, SentenceWords, WordSplitter
from engine.corpus.sources import DEFAULT_FIELD, CorpusSource
from engine.corpus.units import FileSlice
from engine.decoders import Decoder
from engine.encoding import Encoding
from engine.errors import EngineError, TruncationError
from engine.formats import tokenizer_json
from engine.formats.files import read_text, write_json_atomically, write_text_atomically
from engine.input_sequence import (
    BATCH_INPUT_ERROR,
    PRETOKENIZED_BATCH_ERROR,
    TEXT_INPUT_ERROR,
    batch_item,
    encode_sequence,
    utf8_encodable,
)
from engine.models.base import Model
from engine.normalizers import Normalizer
from engine.padding import PaddingParams, pad_encodings
from engine.pre_tokenizers import PreTokenizer
from engine.processors import PostProcessor, default_process
from engine.progress import ProgressSink, SilentProgress
from engine.schema import JsonValue
from engine.trainers.base import Trainer, TrainingRun
from engine.trainers.records import TrainHistory, TrainReport
from engine.truncation import TruncationParams, truncate_encodings

# Encoding a text this long makes enough objects that pausing the cyclic collector pays.
LONG_TEXT: Final = 10_000
# Ids are u32 in HF: others overflow before any lookup.
MAX_ID: Final = 2**32 - 1


def _check_id(id: int) -> None:
    if id < 0:
        raise OverflowError("number too small to fit in target type")
    if id > MAX_ID:
        raise OverflowError("number too large to fit in target type")


class Tokenizer:
    """A tokenization pipeline. Only the model is required."""

    _model: Model
    _normalizer: Normalizer | None
    _pre_tokenizer: PreTokenizer | None
    _post_processor: PostProcessor | None
    _decoder: Decoder | None
    _added: AddedVocabulary
    _truncation: TruncationParams | None
    _padding: PaddingParams | None

    def __init__(self, model: Model) -> None:
        self._model = model
        self._normalizer = None
        self._pre_tokenizer = None
        self._post_processor = None
        self._decoder = None
        self._added = AddedVocabulary()
        self._truncation = None
        self._padding = None

    # -- pipeline parts ---------------------------------------------------------------------

    @property
    def model(self) -> Model:
        return self._model

    @model.setter
    def model(self, model: Model) -> None:
        self._model = model

    @property
    def normalizer(self) -> Normalizer | None:
        return self._normalizer

    @normalizer.setter
    def normalizer(self, normalizer: Normalizer | None) -> None:
        self._normalizer = normalizer
        # subtle: normalized added tokens are matched in their normalized form, which changed.
        self._added.refresh_normalized_tokens(normalizer)

    @property
    def pre_tokenizer(self) -> PreTokenizer | None:
        return self._pre_tokenizer

    @pre_tokenizer.setter
    def pre_tokenizer(self, pre_tokenizer: PreTokenizer | None) -> None:
        self._pre_tokenizer = pre_tokenizer

    @property
    def post_processor(self) -> PostProcessor | None:
        return self._post_processor

    @post_processor.setter
    def post_processor(self, post_processor: PostProcessor | None) -> None:
        self._post_processor = post_processor

    @property
    def decoder(self) -> Decoder | None:
        return self._decoder

    @decoder.setter
    def decoder(self, decoder: Decoder | None) -> None:
        self._decoder = decoder

    @property
    def encode_special_tokens(self) -> bool:
        return self._added.encode_special_tokens

    @encode_special_tokens.setter
    def encode_special_tokens(self, value: bool) -> None:
        self._added.encode_special_tokens = value

    # -- vocabulary -------------------------------------------------------------------------

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        vocab = self._model.get_vocab()
        if with_added_tokens:
            vocab.update(self._added.added_tokens_map)
        return vocab

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        size = self._model.get_vocab_size()
        if with_added_tokens:
            for token in self._added.added_tokens_map:
                if self._model.token_to_id(token) is None:
                    size += 1
        return size

    def get_added_tokens_decoder(self) -> dict[int, AddedToken]:
        return self._added.get_added_tokens_decoder()

    def token_to_id(self, token: str) -> int | None:
        return self._added.token_to_id(token, self._model)

    def id_to_token(self, id: int) -> str | None:
        _check_id(id)
        found = self._added.simple_id_to_token(id)
        return found if found is not None else self._model.id_to_token(id)

    def add_tokens(self, tokens: Sequence[str | AddedToken]) -> int:
        """Add plain tokens (strings become `AddedToken(s, special=False)`); returns how many were added."""
        return self._added.add_tokens(as_added_tokens(tokens, False), self._model, self._normalizer)

    def add_special_tokens(self, tokens: Sequence[str | AddedToken]) -> int:
        """Add special tokens (strings become `AddedToken(s, special=True)`), skipped by decode."""
        return self._added.add_tokens(as_added_tokens(tokens, True), self._model, self._normalizer)

    # -- truncation and padding -------------------------------------------------------------

    def enable_truncation(
        self, max_length: int, stride: int = 0, strategy: str = "longest_first", direction: str = "right"
    ) -> None:
        params = TruncationParams(max_length=max_length, stride=stride, strategy=strategy, direction=direction)
        added = self.num_special_tokens_to_add(False)
        effective = max_length - added
        if effective < stride:
            raise TruncationError(
                f"tokenizer stride set to {stride}, which is greater than or equal to its effective max "
                f"length of {effective} (= {max_length} original max length - {added} added special tokens)"
            )
        self._truncation = params

    def no_truncation(self) -> None:
        self._truncation = None

    @property
    def truncation(self) -> dict[str, JsonValue] | None:
        return self._truncation.to_python_dict() if self._truncation is not None else None

    def enable_padding(
        self,
        direction: str = "right",
        pad_id: int = 0,
        pad_type_id: int = 0,
        pad_token: str = "[PAD]",
        length: int | None = None,
        pad_to_multiple_of: int | None = None,
    ) -> None:
        """HF's enable_padding. Ids past u32 and negative sizes raise OverflowError as in HF; a
        length (or multiple) past `tokenizer_json.MAX_PAD_LENGTH` raises ValueError, before any
        encoding is padded to it."""
        for id in (pad_id, pad_type_id):
            _check_id(id)
        for size in (length, pad_to_multiple_of):
            if size is not None and size < 0:
                raise OverflowError("can't convert negative int to unsigned")
            if size is not None and size > tokenizer_json.MAX_PAD_LENGTH:
                raise ValueError(
                    f"padding to {size:,} tokens is refused: more than {tokenizer_json.MAX_PAD_LENGTH:,}"
                )
        self._padding = PaddingParams(
            direction=direction,
            pad_id=pad_id,
            pad_type_id=pad_type_id,
            pad_token=pad_token,
            length=length,
            pad_to_multiple_of=pad_to_multiple_of,
        )

    def no_padding(self) -> None:
        self._padding = None

    @property
    def padding(self) -> dict[str, JsonValue] | None:
        return self._padding.to_python_dict() if self._padding is not None else None

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        if self._post_processor is None:
            return 0
        return self._post_processor.num_special_tokens_to_add(is_pair)

    # -- encode -----------------------------------------------------------------------------

    def encode(
        self,
        sequence: str | Sequence[str],
        pair: str | Sequence[str] | None = None,
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
    ) -> Encoding:
        """Encode one sequence (or a pair); offsets are character offsets into each input.

        Like HF: with `is_pretokenized`, each input is a list (or tuple) of words; a str
        holding a lone surrogate (not encodable as UTF-8) is refused with TypeError."""
        if isinstance(sequence, str) and len(sequence) >= LONG_TEXT:
            with PausedCollector():
                return self._encode(sequence, pair, is_pretokenized, add_special_tokens)
        return self._encode(sequence, pair, is_pretokenized, add_special_tokens)

    def _encode(
        self,
        sequence: str | Sequence[str],
        pair: str | Sequence[str] | None,
        is_pretokenized: bool,
        add_special_tokens: bool,
    ) -> Encoding:
        encoding = self._encode_input(sequence, 0, is_pretokenized)
        pair_encoding = self._encode_input(pair, 1, is_pretokenized) if pair is not None else None
        return self.post_process(encoding, pair_encoding, add_special_tokens)

    def encode_batch(
        self, input: Sequence[object], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> list[Encoding]:
        """Encode many inputs, as HF: each is a sequence or a pair, the pair a tuple or a list
        of two (`["a b", "c d"]` is a pair; pre-tokenized, a pair is two word lists). Batch
        padding applies."""
        with PausedCollector():
            return self._encode_batch(input, is_pretokenized, add_special_tokens, False)

    def encode_batch_fast(
        self, input: Sequence[object], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> list[Encoding]:
        """HF's `encode_batch_fast`: `encode_batch` without offsets. The tokens the input gives
        are "" with offsets (0, 0) and no word ids; special tokens the post-processor adds and
        padding keep their strings."""
        with PausedCollector():
            return self._encode_batch(input, is_pretokenized, add_special_tokens, True)

    def _encode_batch(
        self, input: Sequence[object], is_pretokenized: bool, add_special_tokens: bool, fast: bool
    ) -> list[Encoding]:
        encodings: list[Encoding] = []
        for item in input:
            first, second = batch_item(item, is_pretokenized)
            try:
                encoding = self._encode_input(first, 0, is_pretokenized, fast)
                pair = self._encode_input(second, 1, is_pretokenized, fast) if second is not None else None
            except TypeError:
                raise TypeError(BATCH_INPUT_ERROR if not is_pretokenized else PRETOKENIZED_BATCH_ERROR) from None
            encodings.append(self._process(encoding, pair, add_special_tokens, False))
        if self._padding is not None:
            pad_encodings(encodings, self._padding)
        return encodings

    def async_encode(
        self,
        sequence: str | Sequence[str],
        pair: str | Sequence[str] | None = None,
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
    ) -> Awaitable[Encoding]:
        """`encode` run in the event loop's executor: `await tokenizer.async_encode(text)` inside
        a running loop (outside one, RuntimeError as in HF)."""
        call = functools.partial(self.encode, sequence, pair, is_pretokenized, add_special_tokens)
        return _in_executor(call)

    def async_encode_batch(
        self, input: Sequence[object], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> Awaitable[list[Encoding]]:
        """`encode_batch` run in the event loop's executor (await it inside a running loop)."""
        call = functools.partial(self.encode_batch, input, is_pretokenized, add_special_tokens)
        return _in_executor(call)

    def async_encode_batch_fast(
        self, input: Sequence[object], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> Awaitable[list[Encoding]]:
        """`encode_batch_fast` run in the event loop's executor (await it inside a running loop)."""
        call = functools.partial(self.encode_batch_fast, input, is_pretokenized, add_special_tokens)
        return _in_executor(call)

    def async_decode_batch(
        self, sequences: Sequence[Sequence[int]], skip_special_tokens: bool = True
    ) -> Awaitable[list[str]]:
        """`decode_batch` run in the event loop's executor (await it inside a running loop)."""
        call = functools.partial(self.decode_batch, sequences, skip_special_tokens)
        return _in_executor(call)

    def encode_ids(self, sequence: str, add_special_tokens: bool = True) -> list[int]:
        """`encode(sequence, add_special_tokens=...).ids`, made the fastest way: the bulk path for
        whole corpora (no tokens, offsets or Encoding are built when the pipeline allows it)."""
        if not isinstance(sequence, str) or not utf8_encodable(sequence):
            raise TypeError(TEXT_INPUT_ERROR)
        plain = self._truncation is None and self._padding is None
        if plain and (not add_special_tokens or self.num_special_tokens_to_add(False) == 0):
            ids = fast_path.ids_only(sequence, self._added, self._normalizer, self._pre_tokenizer, self._model)
            if ids is not None:
                return ids
        return self.encode(sequence, add_special_tokens=add_special_tokens).ids

    def post_process(
        self, encoding: Encoding, pair: Encoding | None = None, add_special_tokens: bool = True
    ) -> Encoding:
        """Truncate, add special tokens, pad: HF's post-processing of already encoded sequences."""
        return self._process(encoding, pair, add_special_tokens, True)

    def _process(
        self, encoding: Encoding, pair: Encoding | None, add_special_tokens: bool, pad: bool
    ) -> Encoding:
        if self._truncation is not None:
            params = self._truncation
            added = self.num_special_tokens_to_add(pair is not None)
            if add_special_tokens and added > 0:
                params = params.with_max_length(params.max_length - added)
            encoding, pair = truncate_encodings(encoding, pair, params)
        if self._post_processor is not None:
            final = self._post_processor.process_owned(encoding, pair, add_special_tokens)
        else:
            final = default_process(encoding, pair, add_special_tokens)
        if pad and self._padding is not None:
            pad_encodings([final], self._padding)
        return final

    def _encode_input(
        self, sequence: str | Sequence[str], type_id: int, is_pretokenized: bool, fast: bool = False
    ) -> Encoding:
        """One input sequence through this pipeline (`engine.input_sequence`)."""
        return encode_sequence(
            sequence, type_id, is_pretokenized, fast, self._added, self._normalizer, self._pre_tokenizer, self._model
        )

    # -- decode -----------------------------------------------------------------------------

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        tokens: list[str] = []
        for id in ids:
            token = self.id_to_token(int(id))
            if token is None:
                continue
            if skip_special_tokens and self._added.is_special_token(token):
                continue
            tokens.append(token)
        if self._decoder is not None:
            return self._decoder.decode(tokens)
        return " ".join(tokens)

    def decode_batch(self, sequences: Sequence[Sequence[int]], skip_special_tokens: bool = True) -> list[str]:
        return [self.decode(ids, skip_special_tokens) for ids in sequences]

    # -- train ------------------------------------------------------------------------------
    # files -> `count_words` -> word counts -> `train_from_counts` -> a trained model; `train`
    # does both. A run stepped by hand (`trainer.start(counts)`) is applied with `apply_training`.
    # The functions of the same names in `engine.tokenizer_training` do the work.

    def train(
        self,
        files: Sequence[str | FileSlice | CorpusSource],
        trainer: Trainer | None = None,
        progress: ProgressSink | None = None,
        processes: int = 0,
        field: str = DEFAULT_FIELD,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        sample_lines: int = 0,
        seed: int = 0,
    ) -> TrainReport:
        """Train the model on text files, read line by line; `progress` receives stage reports.

        Also folders, compressed text, JSON Lines, Parquet/Arrow and word-count tables, and a
        random sample of `sample_lines` lines: see `engine.corpus.counting.count_words`. Raises
        CorpusError for an unusable file and TrainingCancelled when `progress` asks to stop; in
        both cases the tokenizer is left as it was. `processes` is `count_words`'s.
        """
        sentences = self._check_trainer(trainer)
        return tokenizer_training.train(
            self._model, self._added, self._normalizer, self._word_splitter(sentences),
            files, trainer, progress, processes, field, include, exclude, sample_lines, seed,
        )  # fmt: skip

    def train_from_iterator(
        self,
        iterator: Iterable[str] | Iterable[list[str]],
        trainer: Trainer | None = None,
        length: int | None = None,
        progress: ProgressSink | None = None,
    ) -> TrainReport:
        """Train on texts from any iterable (or iterable of batches of texts); `length` feeds progress."""
        sentences = self._check_trainer(trainer)
        return tokenizer_training.train_from_iterator(
            self._model, self._added, self._normalizer, self._word_splitter(sentences), iterator, trainer, length, progress
        )

    def count_words(
        self,
        files: Sequence[str | FileSlice | CorpusSource],
        progress: ProgressSink | None = None,
        processes: int = 0,
        field: str = DEFAULT_FIELD,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        sample_lines: int = 0,
        seed: int = 0,
        sentences: bool = False,
    ) -> dict[str, int]:
        """word -> count over every line of the files (or `FileSlice`s of them), split by this
        tokenizer's added tokens, normalizer and pre-tokenizer exactly as `train` splits them;
        the other inputs (folders, compressed, JSON Lines, ...) as `engine.corpus.counting.count_words`.
        `sentences`: count whole lines instead, as a trainer whose `counts_sentences()` reads them.

        `processes`: 1 counts here only, N forks N counting processes (Linux; never from a
        process that runs native threads), 0 chooses by input size. Raises CorpusError.
        """
        sink = progress if progress is not None else SilentProgress()
        return counting.count_words(
            files, self._word_splitter(sentences), sink, processes, field, include, exclude, sample_lines, seed
        )

    def count_sampled_words(
        self,
        files: Sequence[str | FileSlice | CorpusSource],
        sample_lines: int,
        progress: ProgressSink | None = None,
        seed: int = 0,
        field: str = DEFAULT_FIELD,
        sentences: bool = False,
    ) -> counting.SampledCounts:
        """`count_words` over a uniform random sample of `sample_lines` lines and records
        (SentencePiece's `input_sentence_size`; the same sample for the same `seed`), with how
        many lines it kept of how many it read. One process. Raises CorpusError."""
        sink = progress if progress is not None else SilentProgress()
        return counting.count_sampled_words(files, self._word_splitter(sentences), sink, sample_lines, seed, field)

    def count_words_from_iterator(
        self,
        iterator: Iterable[str] | Iterable[list[str]],
        length: int | None = None,
        progress: ProgressSink | None = None,
        sentences: bool = False,
    ) -> dict[str, int]:
        """`count_words` over texts (or batches of texts), each split whole, as `train_from_iterator`."""
        sink = progress if progress is not None else SilentProgress()
        return counting.count_words_from_iterator(
            counting.flatten(iterator), self._word_splitter(sentences), sink, length
        )

    def train_from_counts(
        self, word_counts: dict[str, int], trainer: Trainer | None = None, progress: ProgressSink | None = None
    ) -> TrainReport:
        """Train the model on word counts (from `count_words`, or a counts table); the report
        carries the run's history. TrainingCancelled leaves the tokenizer as it was."""
        self._check_trainer(trainer)
        return tokenizer_training.train_from_counts(self._model, self._added, self._normalizer, word_counts, trainer, progress)

    def apply_training(self, trainer: Trainer, run: TrainingRun) -> TrainHistory:
        """Fill the model with what `run` (started by `trainer`, stepped by hand) has made so
        far, add the trainer's special tokens, and return the run's history."""
        return tokenizer_training.apply_training(self._model, self._added, self._normalizer, trainer, run)

    def _check_trainer(self, trainer: Trainer | None) -> bool:
        """Raise TrainerMismatchError when `trainer` cannot train under this pipeline; returns
        whether it reads whole lines (`Trainer.counts_sentences`)."""
        if trainer is None:
            return False
        trainer.check_pipeline(self._pre_tokenizer)
        return trainer.counts_sentences()

    def _word_splitter(self, sentences: bool = False) -> WordSplitter:
        """What counting counts: words, or whole lines (`sentences`; `SentenceWords`)."""
        if sentences:
            return SentenceWords(None if self._added.is_empty() else self._added, self._normalizer, self._pre_tokenizer)
        if self._added.is_empty():
            return PipelineWords(self._normalizer, self._pre_tokenizer)
        return AddedTokenWords(self._added, self._normalizer, self._pre_tokenizer)

    # -- files ------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, JsonValue]:
        """The tokenizer.json object, keys in HF's order."""
        added: list[JsonValue] = [
            token.to_dict(id) for id, token in sorted(self._added.added_tokens_map_r.items())
        ]
        return {
            "version": tokenizer_json.FORMAT_VERSION,
            "truncation": self._truncation.to_dict() if self._truncation is not None else None,
            "padding": self._padding.to_dict() if self._padding is not None else None,
            "added_tokens": added,
            "normalizer": self._normalizer.to_dict() if self._normalizer is not None else None,
            "pre_tokenizer": self._pre_tokenizer.to_dict() if self._pre_tokenizer is not None else None,
            "post_processor": self._post_processor.to_dict() if self._post_processor is not None else None,
            "decoder": self._decoder.to_dict() if self._decoder is not None else None,
            "model": self._model.to_dict(),
        }

    def to_str(self, pretty: bool = False) -> str:
        return tokenizer_json.dumps(self.to_dict(), pretty)

    def save(self, path: str, pretty: bool = True) -> None:
        """Write tokenizer.json atomically: a failure never leaves a half-written file at `path`.
        Pretty, the text is streamed to the file, never held whole (`write_json_atomically`);
        compact, json's C encoder makes it ten times faster, as one string."""
        if pretty:
            write_json_atomically(path, self.to_dict(), True)
        else:
            write_text_atomically(path, self.to_str(False))

    @staticmethod
    def from_str(json: str) -> Tokenizer:
        return Tokenizer._from_parts(tokenizer_json.parse(json, "<string>"))

    @staticmethod
    def from_file(path: str) -> Tokenizer:
        return Tokenizer._from_parts(tokenizer_json.parse(read_text(path, "tokenizer.json"), path))

    @staticmethod
    def from_buffer(buffer: bytes) -> Tokenizer:
        try:
            text = buffer.decode("utf-8")
        except UnicodeDecodeError as error:
            raise EngineError(f"<buffer>: is not UTF-8 text (invalid byte at {error.start})") from None
        return Tokenizer._from_parts(tokenizer_json.parse(text, "<buffer>"))

    @staticmethod
    def _from_parts(parts: tokenizer_json.TokenizerParts) -> Tokenizer:
        tokenizer = Tokenizer(parts.model)
        tokenizer._normalizer = parts.normalizer
        tokenizer._pre_tokenizer = parts.pre_tokenizer
        tokenizer._post_processor = parts.post_processor
        tokenizer._decoder = parts.decoder
        tokenizer._truncation = parts.truncation
        tokenizer._padding = parts.padding
        # HF re-adds the saved tokens in file order; an id mismatch only warns there, and the
        # model's own id wins here too.
        tokenizer._added.add_tokens([token for _, token in parts.added_tokens], parts.model, parts.normalizer)
        return tokenizer

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickling and deep copies go through the tokenizer.json form, as HF's Tokenizer does
        (multiprocessing, data loaders and the window's training process rely on it)."""
        return (Tokenizer.from_str, (self.to_str(),))

    def __repr__(self) -> str:
        return f"Tokenizer(vocabulary_size={self.get_vocab_size()}, model={type(self._model).__name__})"


_T = TypeVar("_T")


def _in_executor(call: Callable[[], _T]) -> Awaitable[_T]:
    """`call` run in the running event loop's default executor (RuntimeError outside a loop)."""
    # asyncio is imported here, not at the top: with ssl it is 5 MB that only the async_*
    # methods need, in every training and counting process.
    import asyncio

    return asyncio.get_running_loop().run_in_executor(None, call)
