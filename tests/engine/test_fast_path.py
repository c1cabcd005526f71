"""The encode fast path (`engine.fast_path`) gives exactly what the full pipeline gives.

Every pipeline below is encoded both ways on random texts mixing ASCII, accents (precomposed and
combining), Hangul, compatibility characters (ﬁ, ①), characters whose case mapping changes length
or UTF-8 width, CJK, emoji, controls, spaces and added tokens; ids, tokens, offsets and word ids
must be equal, and `encode_ids` must equal `encode(...).ids`.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from librt.vecs import vec
from mypy_extensions import i64

from engine import Tokenizer, decoders, fast_path, models, normalizers, pre_tokenizers, processors, trainers
from engine import unicode_tables as tables
from engine.byte_splits import (
    CL100K_PATTERN,
    DIGIT,
    GPT2_CLASSES,
    LETTER,
    OTHER,
    QWEN2_PATTERN,
    SPACE,
    UNICODE_CLASSES,
    bounds_room,
    cl100k_bounds,
    gpt2_utf8_bounds,
)
from engine.formats import charsmap
from engine.input_sequence import encode_piece, encode_piece_in_full
from engine.pattern import Regex
from engine.pre_tokenizers.scanners import GPT2_RE

LINES = [
    "The quick brown fox jumps over the lazy dog, doesn't it? 1234 and 56.",
    "Über café naïve résumé straße ẞ İstanbul ΣΊΣΥΦΟΣ — «quotes»",
    "日本語のテキストも少し。中文也有。 emoji 😀🎉 tabs\tand  double  spaces",
    "GPT-2's regex: 's 't 're 've 'm 'll 'd   trailing   ",
]
ALPHABET = "abcXYZ 019 ,.'!-\t\néßẞİΣ中日😀\x01\u00a0\u3000\u0301\u0323한ﬁ①Σ"
TEXTS = st.lists(
    st.one_of(st.text(alphabet=ALPHABET, max_size=12), st.sampled_from(["[UNK]", "<s>", " hello", "Don't", "ẞig"])),
    max_size=8,
).map("".join)


def _bpe(pre_tokenizer: pre_tokenizers.PreTokenizer, normalizer: normalizers.Normalizer | None = None) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizer
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["[UNK]", "<s>"], show_progress=False)
    tokenizer.train_from_iterator(LINES * 3, trainer)
    return tokenizer


def _byte_level(pre_tokenizer: pre_tokenizers.PreTokenizer, normalizer: normalizers.Normalizer | None = None) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizer
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=True)
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    trainer = trainers.BpeTrainer(vocab_size=500, initial_alphabet=alphabet, special_tokens=["<s>"], show_progress=False)
    tokenizer.train_from_iterator(LINES * 3, trainer)
    return tokenizer


def _wordpiece() -> Tokenizer:
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=300, special_tokens=["[UNK]", "[CLS]", "[SEP]"], show_progress=False)
    tokenizer.train_from_iterator(LINES * 3, trainer)
    tokenizer.post_processor = processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    return tokenizer


def _unigram(normalizer: normalizers.Normalizer, pre_tokenizer: pre_tokenizers.PreTokenizer) -> Tokenizer:
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizer
    trainer = trainers.UnigramTrainer(vocab_size=120, special_tokens=["<unk>", "<s>"], unk_token="<unk>", show_progress=False)
    tokenizer.train_from_iterator(LINES * 3, trainer)
    return tokenizer


PIPELINES = {
    "metaspace-unigram": lambda: _unigram(
        normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]), pre_tokenizers.Metaspace()
    ),
    # T5's pipeline: SentencePiece's nmt_nfkc rules, "first" as HF converts legacy=False files
    "precompiled-metaspace-first": lambda: _unigram(
        normalizers.Sequence(
            [normalizers.Precompiled(charsmap.nfkc_charsmap(True)), normalizers.Replace(Regex(" {2,}"), " ")]
        ),
        pre_tokenizers.Metaspace(prepend_scheme="first"),
    ),
    "metaspace-never-whole": lambda: _unigram(normalizers.Lowercase(), pre_tokenizers.Metaspace(prepend_scheme="never", split=False)),
    "whitespace-then-metaspace": lambda: _unigram(
        normalizers.NFC(), pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace()])
    ),
    "whitespace": lambda: _bpe(pre_tokenizers.Whitespace()),
    "whitespace-split-lowercase": lambda: _bpe(pre_tokenizers.WhitespaceSplit(), normalizers.Lowercase()),
    "nfc-punctuation-digits": lambda: _bpe(
        pre_tokenizers.Sequence(
            [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation("contiguous"), pre_tokenizers.Digits(True)]
        ),
        normalizers.Sequence([normalizers.NFC(), normalizers.Lowercase()]),
    ),
    "scripts-delimiter-fixed": lambda: _bpe(
        pre_tokenizers.Sequence(
            [pre_tokenizers.CharDelimiterSplit(" "), pre_tokenizers.UnicodeScripts(), pre_tokenizers.FixedLength(4)]
        )
    ),
    "split-removed": lambda: _bpe(pre_tokenizers.Split(Regex(r"[,.!?]+|\s+"), "removed")),
    "byte-level": lambda: _byte_level(pre_tokenizers.ByteLevel(add_prefix_space=False)),
    # "ẞ" lowers to "ß": one char for one, but 2 UTF-8 bytes instead of 3
    "byte-level-lowercase": lambda: _byte_level(pre_tokenizers.ByteLevel(add_prefix_space=False), normalizers.Lowercase()),
    "byte-level-prefix-space": lambda: _byte_level(pre_tokenizers.ByteLevel(add_prefix_space=True)),
    "split-then-bytes": lambda: _byte_level(
        pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(r"\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+"), "isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    ),
    # GPT-4's and Llama 3's split (Qwen2's: numbers one by one), scanned on bytes too
    "cl100k-then-bytes": lambda: _byte_level(
        pre_tokenizers.Sequence(
            [pre_tokenizers.Split(Regex(CL100K_PATTERN), "isolated"), pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
        )
    ),
    "qwen2-then-bytes": lambda: _byte_level(
        pre_tokenizers.Sequence(
            [pre_tokenizers.Split(Regex(QWEN2_PATTERN), "isolated"), pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
        )
    ),
    "bert-wordpiece": _wordpiece,
}


@functools.lru_cache(maxsize=None)
def tokenizer_for(name: str) -> Tokenizer:
    return PIPELINES[name]()


def assert_same(tokenizer: Tokenizer, text: str) -> None:
    parts = (tokenizer._added, tokenizer.normalizer, tokenizer.pre_tokenizer, tokenizer.model)
    fast = encode_piece(text, 0, -1, False, *parts)
    full = encode_piece_in_full(text, 0, -1, *parts)
    assert (fast.ids, fast.tokens, fast.offsets, fast.word_ids) == (full.ids, full.tokens, full.offsets, full.word_ids)
    for add_special_tokens in (True, False):
        assert tokenizer.encode_ids(text, add_special_tokens) == tokenizer.encode(text, add_special_tokens=add_special_tokens).ids


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_the_fast_path_runs_on_plain_text(name: str) -> None:
    tokenizer = tokenizer_for(name)
    if name == "byte-level-prefix-space":
        text = " a plain line"  # a prefix space to insert sends other lines through the full pipeline
    else:
        text = "a plain line, with 12 words"
    parts = (tokenizer._added, tokenizer.normalizer, tokenizer.pre_tokenizer)
    if name != "whitespace-then-metaspace":  # a "▁" inserted in every word: only encode_ids is fast
        assert fast_path.cut(text, *parts) is not None
    assert fast_path.ids_only(text, *parts, tokenizer.model) is not None
    assert_same(tokenizer, text)


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_fast_and_full_agree_on_the_lines(name: str) -> None:
    tokenizer = tokenizer_for(name)
    for line in LINES + [line.upper() for line in LINES] + ["", " ", "[UNK]", "a <s> b", "\x01x\x02"]:
        assert_same(tokenizer, line)


@pytest.mark.parametrize("name", sorted(PIPELINES))
@settings(max_examples=150, deadline=None)
@given(text=TEXTS)
def test_fast_and_full_agree_on_random_texts(name: str, text: str) -> None:
    assert_same(tokenizer_for(name), text)


def test_added_tokens_take_the_full_pipeline_and_moved_chars_their_alignments() -> None:
    tokenizer = tokenizer_for("bert-wordpiece")
    parts = (tokenizer._added, tokenizer.normalizer, tokenizer.pre_tokenizer)
    assert fast_path.cut("hello [CLS] world", *parts) is None
    # BertNormalizer removes a control, a combining accent, and puts spaces around a CJK
    # ideograph: the chars move, and the cut carries where each normalized char comes from
    for text, normalized, starts in (
        ("bell\x07 here", "bell here", [0, 1, 2, 3, 5, 6, 7, 8, 9]),
        ("cafe\u0301", "cafe", [0, 1, 2, 3]),
        ("猫 here", " 猫  here", [0, 0, 0, 1, 2, 3, 4, 5]),
    ):
        found = fast_path.cut(text, *parts)
        assert found is not None and found.text == normalized and found.align_start == starts
    # a precomposed accent stripped, or a capital lowercased, is char for char: no alignments
    for text in ("hello [world]", "Café ΟΔΟΣ"):
        found = fast_path.cut(text, *parts)
        assert found is not None and found.align_start is None
    for text in ("Café ΟΔΟΣ", "cafe\u0301", "İstanbul ǅ", "猫 here", "bell\x07 here"):
        assert_same(tokenizer, text)


def test_the_word_cache_follows_option_changes() -> None:
    wordpiece = models.WordPiece({"[UNK]": 0, "a": 1, "##b": 2, "<unk>": 3}, unk_token="[UNK]")
    tokenizer = Tokenizer(wordpiece)
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    assert tokenizer.encode("ab ac").tokens == ["a", "##b", "[UNK]"]
    wordpiece.unk_token = "<unk>"  # a plain attribute: the cached words must not survive it
    assert tokenizer.encode("ab ac").tokens == ["a", "##b", "<unk>"]
    unigram = models.Unigram([("<unk>", 0.0), ("a", -1.0), ("<0x62>", -5.0)], 0)
    tokenizer = Tokenizer(unigram)
    assert tokenizer.encode("ab").tokens == ["a", "b"]
    unigram.byte_fallback = True
    assert tokenizer.encode("ab").tokens == ["a", "<0x62>"]


# -- lines on their UTF-8 bytes (`fast_path.byte_level_encoding`) -----------------------------

# Letters, numbers, spaces and the rest of GPT-2's pattern past ASCII too: two-, three- and
# four-byte chars, marks, spaces that are not " ", numbers that are not digits.
UNICODE_CHARS = "éßжΩ日本語\u0301²٣Ⅻ\u00a0\u2003\u3000\x85—“’€🙂𝒜"
LINE_TEXTS = st.lists(
    st.one_of(
        st.text(alphabet="abcXYZ 019 ,.'!-\t\n\r\x0b\x0c\x01~", max_size=12),
        st.text(alphabet="ab 1 '.\t" + UNICODE_CHARS, max_size=12),
        st.sampled_from(["'s", "'T", "'re", "'VE", "'ll", "'d", "'m", " don't", "   ", "<s>", "x" * 300, " " + "ab" * 200, "é" * 200]),
    ),
    max_size=8,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(LINE_TEXTS, st.text(st.characters(exclude_categories=["Cs"]), max_size=20)))
def test_gpt2_split_on_utf8_bytes_is_the_patterns(text: str) -> None:
    data = text.encode("utf-8")
    bounds = bounds_room(vec[i64](), len(data))
    n = gpt2_utf8_bounds(data, 0, len(data), False, bounds)
    assert [data[bounds[k] : bounds[k + 1]].decode("utf-8") for k in range(0, n, 2)] == GPT2_RE.findall(text)
    # with the prefix space HF's ByteLevel inserts before a text not starting with one
    n = gpt2_utf8_bounds(data, 0, len(data), True, bounds)
    found = [data[bounds[k] : bounds[k + 1]].decode("utf-8") for k in range(0, n, 2)]
    if found and not text.startswith(" "):
        found[0] = " " + found[0]
    assert found == GPT2_RE.findall(text if text.startswith(" ") or not text else " " + text)


@pytest.mark.parametrize("pattern, numbers", [(CL100K_PATTERN, fast_path.CL100K_SPLIT), (QWEN2_PATTERN, fast_path.QWEN2_SPLIT)])
@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(
        LINE_TEXTS,
        st.text(alphabet="aZé日 \t\n\r.,'$12²\u00a0\u3000🙂sStTrReEvVmMlLdD\u0301\x85", max_size=16),
        st.text(st.characters(exclude_categories=["Cs"]), max_size=20),
    )
)
def test_cl100k_split_on_utf8_bytes_is_the_patterns(pattern: str, numbers: int, text: str) -> None:
    data = text.encode("utf-8")
    bounds = bounds_room(vec[i64](), len(data))
    n = cl100k_bounds(data, 0, len(data), numbers, bounds)
    pieces = [text[start:end] for start, end, _ in Regex(pattern).find_matches(text, "Split") if end > start]
    assert [data[bounds[k] : bounds[k + 1]].decode("utf-8") for k in range(0, n, 2)] == pieces


def test_cl100k_split_folds_the_long_s_into_a_contraction_as_hf_does() -> None:
    # (HF's Oniguruma, checked over every code point: "'ſ" is its only contraction past ASCII)
    data = "'ſx'Sx'ſ".encode("utf-8")
    bounds = bounds_room(vec[i64](), len(data))
    n = cl100k_bounds(data, 0, len(data), 3, bounds)
    assert [data[bounds[k] : bounds[k + 1]].decode("utf-8") for k in range(0, n, 2)] == ["'ſ", "x", "'S", "x", "'ſ"]


def test_the_byte_path_knows_the_splits_of_gpt2_and_cl100k_only() -> None:
    after = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    assert fast_path.byte_split(pre_tokenizers.ByteLevel()) == fast_path.GPT2_SPLIT
    assert fast_path.byte_split(pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(CL100K_PATTERN), "isolated"), after])) == 3
    assert fast_path.byte_split(pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(QWEN2_PATTERN), "isolated"), after])) == 1
    # another pattern, behaviour, or ByteLevel: the str path
    assert fast_path.byte_split(tokenizer_for("split-then-bytes").pre_tokenizer) == fast_path.NO_SPLIT
    removed = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(CL100K_PATTERN), "removed"), after])
    assert fast_path.byte_split(removed) == fast_path.NO_SPLIT
    prefixed = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(CL100K_PATTERN), "isolated"), pre_tokenizers.ByteLevel(use_regex=False)])
    assert fast_path.byte_split(prefixed) == fast_path.NO_SPLIT
    assert fast_path.byte_split(pre_tokenizers.ByteLevel(use_regex=False)) == fast_path.NO_SPLIT
    cl100k = tokenizer_for("cl100k-then-bytes")
    assert fast_path.byte_level_split("Hi there", cl100k._added, None, cl100k.pre_tokenizer, cl100k.model) == fast_path.CL100K_SPLIT


@pytest.mark.parametrize("add_prefix_space", [False, True])
@settings(max_examples=100, deadline=None)
@given(text=LINE_TEXTS)
def test_offsets_trimmed_by_id_are_those_trimmed_by_token(add_prefix_space: bool, text: str) -> None:
    # (the fast path's encoding makes its tokens when read: ByteLevel's trimming reads a table
    # of its vocabulary's tokens by id instead)
    tokenizer = tokenizer_for("byte-level")
    tokenizer.post_processor = processors.ByteLevel(add_prefix_space=add_prefix_space, trim_offsets=True)
    full = encode_piece_in_full(text, 0, -1, tokenizer._added, None, tokenizer.pre_tokenizer, tokenizer.model)
    assert tokenizer.encode(text) == tokenizer.post_processor.process(full)


def test_the_unicode_classes_are_the_patterns_tables_and_agree_on_ascii() -> None:
    classes = UNICODE_CLASSES.get()
    assert [classes[b] for b in range(128)] == list(GPT2_CLASSES[:128])
    kinds: dict[int, int] = {}
    for spec, kind in ((tables.ONIG_NUMBER, DIGIT), (tables.ONIG_LETTER, LETTER), (tables.WHITESPACE, SPACE)):
        for low, high in tables.parse_ranges(spec):
            for code in range(low, high + 1):
                assert kinds.setdefault(code, kind) == kind  # no char in two of them
                assert classes[code] == kind
    assert classes[ord("日")] == LETTER and classes[ord("²")] == DIGIT and classes[0x3000] == SPACE
    assert classes[ord("—")] == OTHER and len(classes) == 0x110000


def _byte_level_with_cache(capacity: int) -> Tokenizer:
    tokenizer = Tokenizer.from_str(tokenizer_for("byte-level").to_str())
    _bpe_of(tokenizer)._resize_cache(capacity)
    return tokenizer


def _bpe_of(tokenizer: Tokenizer) -> models.BPE:
    model = tokenizer.model
    assert isinstance(model, models.BPE)
    return model


def _held_words(tokenizer: Tokenizer) -> int:
    runs = _bpe_of(tokenizer).byte_runs()
    return len(runs) if runs is not None else 0


def test_a_line_is_encoded_on_its_bytes() -> None:
    tokenizer = tokenizer_for("byte-level")
    parts = (tokenizer._added, tokenizer.normalizer, tokenizer.pre_tokenizer, tokenizer.model)
    text = "The fox doesn't  jump,\tit's 1234 tabs   "
    assert fast_path.byte_level_split(text, *parts) == fast_path.GPT2_SPLIT
    bpe = _bpe_of(tokenizer)
    found = fast_path.byte_level_encoding(text, bpe, -1, 0)
    assert found is not None
    assert found == encode_piece_in_full(text, 0, -1, *parts)
    fast_path.byte_level_encoding(text, bpe, -1, 0)
    assert _held_words(tokenizer) > 0  # its words, missed twice, are held by their bytes now
    unicode = "Née  à 東京, ２０２４\u3000年 🙂 l'été"
    assert fast_path.byte_level_split(unicode, *parts) == fast_path.GPT2_SPLIT  # past ASCII too
    found = fast_path.byte_level_encoding(unicode, bpe, -1, 0)
    assert found is not None and found == encode_piece_in_full(unicode, 0, -1, *parts)
    # the cases it leaves to the other paths
    assert fast_path.byte_level_split("a <s> b", *parts) == fast_path.NO_SPLIT  # an added token
    prefixed = tokenizer_for("byte-level-prefix-space")
    prefix_parts = (prefixed._added, prefixed.normalizer, prefixed.pre_tokenizer, prefixed.model)
    assert fast_path.byte_level_split("a b", *prefix_parts) == fast_path.NO_SPLIT  # a space to insert
    assert fast_path.byte_level_split(" a b", *prefix_parts) == fast_path.GPT2_SPLIT
    lowercase = tokenizer_for("byte-level-lowercase")
    assert fast_path.byte_level_split("a b", lowercase._added, lowercase.normalizer, lowercase.pre_tokenizer, lowercase.model) == fast_path.NO_SPLIT


@pytest.mark.parametrize("capacity", [100_000, 3, 1, 0])
@settings(max_examples=100, deadline=None)
@given(texts=st.lists(LINE_TEXTS, min_size=1, max_size=4))
def test_lines_agree_with_the_full_pipeline_whatever_the_cache_holds(capacity: int, texts: list[str]) -> None:
    # (a capacity of 3 or 1 clears the byte-keyed cache within a line; 0 caches nothing, and
    # the lines go the str way)
    tokenizer = _byte_level_with_cache(capacity)
    for text in texts:
        assert_same(tokenizer, text)
    assert _held_words(tokenizer) <= capacity


def test_dropout_leaves_lines_to_the_str_path() -> None:
    tokenizer = _byte_level_with_cache(100)
    _bpe_of(tokenizer).dropout = 1.0  # every merge dropped: chars only
    assert _bpe_of(tokenizer).byte_runs() is None
    assert tokenizer.encode("hello hello").tokens == ["h", "e", "l", "l", "o", "Ġ", "h", "e", "l", "l", "o"]
    _bpe_of(tokenizer).dropout = None
    assert tokenizer.encode("hello hello").ids == _byte_level_with_cache(100).encode("hello hello").ids


def test_an_option_change_clears_the_byte_keyed_cache_too() -> None:
    tokenizer = _byte_level_with_cache(100)
    tokenizer.encode("the theme")
    before = tokenizer.encode("the theme").tokens  # (a word goes in when missed twice)
    assert _held_words(tokenizer) == 2
    _bpe_of(tokenizer).ignore_merges = True
    assert _held_words(tokenizer) == 0
    assert tokenizer.encode("the theme").tokens == encode_piece_in_full(
        "the theme", 0, -1, tokenizer._added, None, tokenizer.pre_tokenizer, tokenizer.model
    ).tokens
    assert before  # (the words were cached before the change)


def test_tokens_read_later_are_those_of_the_vocabulary_it_was_encoded_with() -> None:
    tokenizer = _byte_level_with_cache(100)
    text = "the theme of the thesis"
    expected = encode_piece_in_full(text, 0, -1, tokenizer._added, None, tokenizer.pre_tokenizer, tokenizer.model)
    unread = tokenizer.encode(text)  # (its tokens are made from the ids when first read)
    bpe = _bpe_of(tokenizer)
    renamed = {token + "_" if len(token) > 1 else token: id for token, id in bpe.get_vocab().items()}
    bpe.set_vocab_and_merges(renamed, [])
    assert unread.tokens == expected.tokens
    assert tokenizer.encode(text).tokens == list(text.replace(" ", "Ġ"))  # the new vocabulary's


@pytest.mark.parametrize(
    "options",
    [
        {"unk_token": "[UNK]"},
        {"unk_token": "[UNK]", "fuse_unk": True},
        {"continuing_subword_prefix": "##"},
        {"end_of_word_suffix": "</w>"},
        {"end_of_word_suffix": "</w>", "end_of_word_symbol": True},
        {"ignore_merges": True},
    ],
)
def test_lines_agree_with_the_full_pipeline_whatever_the_bpe_options(options: dict[str, Any]) -> None:
    # trained without "z" or "!": words holding them leave the native merge (unknown chars)
    model_options = {key: options[key] for key in ("unk_token", "fuse_unk", "ignore_merges") if key in options}
    bpe = models.BPE(**model_options)
    tokenizer = Tokenizer(bpe)
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer_options = {key: value for key, value in options.items() if key not in model_options}
    trainer = trainers.BpeTrainer(vocab_size=120, special_tokens=["[UNK]"], show_progress=False, **trainer_options)
    tokenizer.train_from_iterator(["the them theme then other these thesis 'the' them's"] * 5, trainer)
    for text in ["the them theme", " them z zz az! the", "Them 'the' them's", "the them theme", "thesisthesis", "thé thé ß"]:
        assert fast_path.byte_level_split(text, tokenizer._added, None, tokenizer.pre_tokenizer, bpe) == fast_path.GPT2_SPLIT
        assert_same(tokenizer, text)


def test_lines_encode_alike_from_several_threads() -> None:
    # threads sharing the model's byte-keyed cache (async_encode's executor): one at a time
    # holds it, the others take the str path (without the lock, this broke the tables)
    import concurrent.futures

    tokenizer = _byte_level_with_cache(50)  # small: generations turn over while they run
    lines = [f"line {i} of the {i % 7} threads don't share {i * 31 % 97} words{' é' * (i % 2)}" for i in range(300)]
    expected = [encode_piece_in_full(line, 0, -1, tokenizer._added, None, tokenizer.pre_tokenizer, tokenizer.model).ids for line in lines]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            assert list(pool.map(lambda line: tokenizer.encode(line).ids, lines)) == expected
