"""Export certificates against the reference libraries: every format written from a small trained
tokenizer and from the shared real files is read by the library that owns it (tokenizers,
sentencepiece, tiktoken) with the workbench's ids on the whole suite; a broken export gets
mismatches with a named cause; and hypothesis texts go through the certificate's two encoders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from engine.analysis import certificate
from engine.analysis.certificate_readers import EngineSide, Side, library_side
from engine.formats import convert
from support import corpus_path, train_byte_level
from workbench.core.export_certificate import suite_texts

SUITE = list(suite_texts())


def lines(name: str, limit: int = 3000) -> list[str]:
    return corpus_path(name).read_text(encoding="utf-8").splitlines()[:limit]


@pytest.fixture(scope="module")
def byte_level() -> Tokenizer:
    tokenizer = train_byte_level(lines("shakespeare.txt"), 800)
    tokenizer.add_special_tokens(["<|endoftext|>"])
    return tokenizer


def sentencepiece_style() -> Tokenizer:
    """A Unigram as HF's SentencePiece-style preset makes it: NFKC, Metaspace."""
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.normalizer = normalizers.NFKC()
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    unigram = trainers.UnigramTrainer(vocab_size=400, special_tokens=["<unk>"], unk_token="<unk>", show_progress=False)
    tokenizer.train_from_iterator(lines("shakespeare.txt"), unigram)
    return tokenizer


def wordpiece(post_processor: bool) -> Tokenizer:
    """A BERT-style WordPiece trained on the sample; with [CLS] ... [SEP] when `post_processor`."""
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer()
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokenizer.train_from_iterator(lines("shakespeare.txt"), trainers.WordPieceTrainer(vocab_size=600, special_tokens=specials, show_progress=False))
    if post_processor:
        cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
        assert cls is not None and sep is not None
        tokenizer.post_processor = processors.BertProcessing(("[SEP]", sep), ("[CLS]", cls))
    return tokenizer


def certified(tokenizer: Tokenizer, kind: str, path: Path, texts: list[tuple[str, str]] = SUITE) -> certificate.Certificate:
    convert.save(tokenizer, kind, str(path))
    return certificate.certify(tokenizer, kind, str(path), texts)


def assert_identical(found: certificate.Certificate, library: str) -> None:
    assert found.identical, "\n".join(found.lines())
    assert found.reader.startswith(library + " ") and not found.own_reader
    assert found.texts == len(SUITE) and found.tokens > found.texts


def test_a_byte_level_bpe_in_every_format_it_fits(tmp_path: Path, byte_level: Tokenizer) -> None:
    for kind, name in ((convert.HF, "t.json"), (convert.GPT2, "gpt2"), (convert.TIKTOKEN, "t.tiktoken")):
        found = certified(byte_level, kind, tmp_path / name)
        assert_identical(found, "tiktoken" if kind == convert.TIKTOKEN else "tokenizers")
        written = convert.written_paths(kind, str(tmp_path / name))
        assert [path for path, _ in found.files] == written
        assert found.files[0][1] == certificate.sha256_of(written[0])
    gpt2 = certificate.certify(byte_level, convert.GPT2, str(tmp_path / "gpt2"), SUITE)
    assert gpt2.loader == "tokenizers.ByteLevelBPETokenizer('vocab.json', 'merges.txt')" and not gpt2.special_tokens


def test_a_wordpiece_as_tokenizer_json_and_vocab_txt(tmp_path: Path) -> None:
    tokenizer = wordpiece(post_processor=True)
    assert_identical(certified(tokenizer, convert.HF, tmp_path / "wp.json"), "tokenizers")
    found = certified(tokenizer, convert.BERT_VOCAB, tmp_path / "vocab.txt")
    assert_identical(found, "tokenizers")
    assert found.special_tokens and "BertWordPieceTokenizer('vocab.txt', lowercase=True" in found.loader


def test_a_sentencepiece_style_unigram_differs_only_where_its_notes_say(tmp_path: Path) -> None:
    """The export's notes: a text that starts with a space is encoded differently (Metaspace adds
    no "▁" then, sentencepiece's dummy prefix does). The certificate finds exactly those."""
    tokenizer = sentencepiece_style()
    found = certified(tokenizer, convert.SENTENCEPIECE, tmp_path / "u.model")
    assert found.reader.startswith("sentencepiece ") and not found.special_tokens
    assert found.differing > 0 and found.causes == {"whitespace": found.differing}, found.lines()
    starting_with_space = [name for name, text in SUITE if text[:1].isspace()]
    assert {mismatch.text for mismatch in found.mismatches} <= set(starting_with_space)
    assert found.differing <= len(starting_with_space)
    assert_identical(certified(tokenizer, convert.HF, tmp_path / "u.json"), "tokenizers")


def test_the_shared_real_files(tmp_path: Path) -> None:
    bert = Tokenizer.from_file(str(corpus_path("bert_uncased_tokenizer.json")))
    assert_identical(certified(bert, convert.HF, tmp_path / "bert.json"), "tokenizers")
    assert_identical(certified(bert, convert.BERT_VOCAB, tmp_path / "vocab.txt"), "tokenizers")
    model = convert.load(str(corpus_path("sp_test_model.model")))
    assert_identical(certified(model, convert.SENTENCEPIECE, tmp_path / "sp.model"), "sentencepiece")
    assert_identical(certified(model, convert.HF, tmp_path / "sp.json"), "tokenizers")


def test_a_broken_export_names_its_causes(tmp_path: Path, byte_level: Tokenizer) -> None:
    # a .model written, then our tokenizer's normalizer changed: it lowercases, the file does not
    model = convert.load(str(corpus_path("sp_test_model.model")))
    path = tmp_path / "sp.model"
    convert.save(model, convert.SENTENCEPIECE, str(path))
    assert model.normalizer is not None
    model.normalizer = normalizers.Sequence([normalizers.Lowercase(), model.normalizer])
    found = certificate.certify(model, convert.SENTENCEPIECE, str(path), SUITE)
    assert not found.identical and found.causes.get("normalization", 0) > 0, found.lines()
    first = found.mismatches[0]
    assert first.ours_ids != first.theirs_ids and first.explains.startswith("normalization differs: ours normalizes to")
    # a tokenizer.json written, then our BPE given fewer merges: the same text, split differently
    path = tmp_path / "bl.json"
    convert.save(byte_level, convert.HF, str(path))
    data = json.loads(byte_level.to_str())
    data["model"]["merges"] = data["model"]["merges"][:300]
    found = certificate.certify(Tokenizer.from_str(json.dumps(data)), convert.HF, str(path), SUITE)
    assert found.causes.get("split", 0) == found.differing > 0, found.lines()
    assert "different split of the same text" in found.verdict()
    # a WordPiece without BERT's post-processor: a BERT user's [CLS] ... [SEP] are not ours
    found = certified(wordpiece(post_processor=False), convert.BERT_VOCAB, tmp_path / "vocab.txt")
    assert found.differing == found.texts and found.causes == {"special tokens": found.texts}
    assert found.mismatches[0].theirs_tokens[0] == "[CLS]"


def test_without_the_library_the_own_reader_is_used_and_named(tmp_path: Path, byte_level: Tokenizer) -> None:
    convert.save(byte_level, convert.TIKTOKEN, str(tmp_path / "t.tiktoken"))
    found = certificate.certify(byte_level, convert.TIKTOKEN, str(tmp_path / "t.tiktoken"), SUITE, libraries=())
    assert found.identical and found.own_reader
    assert found.reader == "the workbench's own reader: tiktoken was not asked for"
    assert found.verdict().endswith("read back by the workbench's own reader: tiktoken was not asked for")


def test_a_file_the_library_cannot_read_is_a_failed_certificate(tmp_path: Path, byte_level: Tokenizer) -> None:
    path = tmp_path / "t.json"
    convert.save(byte_level, convert.HF, str(path))
    path.write_text('{"version": "1.0", "model": {"type": "Nothing"}}', encoding="utf-8")
    found = certificate.certify(byte_level, convert.HF, str(path), SUITE)
    assert not found.identical and found.failure and found.texts == 0
    assert found.verdict().startswith(f"not checked: tokenizers 0.23.3 could not read {path}: ")


# -- the certificate's encoders on generated texts ---------------------------------------------

TEXTS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60) | st.text(
    st.sampled_from(" \t\r\n\u00a0\u200d\u0301aé東😀🇯🇵ب\x00\x1b"), max_size=30
)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory, byte_level: Tokenizer) -> list[tuple[EngineSide, Side]]:
    folder = tmp_path_factory.mktemp("certificate-encoders")
    bert = Tokenizer.from_file(str(corpus_path("bert_uncased_tokenizer.json")))
    pairs: list[tuple[EngineSide, Side]] = []
    for name, tokenizer in (("byte-level.json", byte_level), ("bert.json", bert), ("unigram.json", convert.load(str(corpus_path("sp_test_model.model"))))):
        path = str(folder / name)
        convert.save(tokenizer, convert.HF, path)
        pairs.append((EngineSide(tokenizer, True), library_side(convert.HF, path, tokenizer)))
    return pairs


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXTS)
def test_generated_texts_get_the_same_ids_from_both_encoders_of_a_tokenizer_json(
    exported: list[tuple[EngineSide, Side]], text: str
) -> None:
    for ours, theirs in exported:
        assert not isinstance(theirs, EngineSide)  # (the library itself, not our reader)
        mine, other = ours.read(text), theirs.read(text)
        assert not mine.error and not other.error
        assert mine.ids == other.ids, (theirs.loader, text, mine.tokens, other.tokens)


def test_the_engine_that_made_them_is_named(tmp_path: Path, byte_level: Tokenizer) -> None:
    found = certified(byte_level, convert.HF, tmp_path / "t.json", SUITE[:3])
    assert found.version == engine.__version__ and found.to_dict()["workbench"] == engine.__version__
