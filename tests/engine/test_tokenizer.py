"""The Tokenizer pipeline: encode/decode, training (cancel leaves it untouched), files and errors."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

import engine
from engine import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from engine.errors import CorpusError, EngineError, TokenizerFileError, TrainingCancelled
from engine.progress import ProgressSink, TrainProgress

TEXT = "aaabdaaabac aaabdaaabac\nthe cat sat on the mat\n"


def trained_bpe(vocab_size: int = 30) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(
        [TEXT], trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["[UNK]", "[CLS]", "[SEP]"], show_progress=False)
    )
    return tokenizer


def test_hand_checked_training_and_encoding() -> None:
    """minbpe's reference string, worked by hand with HF's tie rule.

    Ids: 3 specials, then the alphabet a=3 b=4 c=5 d=6 e=7 h=8 m=9 n=10 o=11 s=12 t=13.
    (a,a) occurs 8 times (4 per "aaabdaaabac", twice) and merges first -> "aa a b d aa a b a c";
    then (a,b) and (aa,a) both count 4 and the smaller pair of ids, (3,4) = (a,b), wins;
    then (aa,ab) = 4; then (a,t) = 3 from cat/sat/mat.
    """
    tokenizer = trained_bpe()
    model = tokenizer.model
    assert isinstance(model, models.BPE)
    assert model.merges[:4] == [("a", "a"), ("a", "b"), ("aa", "ab"), ("a", "t")]
    assert tokenizer.token_to_id("aa") == 14 and tokenizer.token_to_id("ab") == 15
    encoding = tokenizer.encode("aaabdaaabac the mat")
    assert encoding.tokens == ["aaabdaaabac", "the", "mat"]
    assert encoding.offsets == [(0, 11), (12, 15), (16, 19)]
    assert encoding.word_ids == [0, 1, 2]
    assert tokenizer.encode("xab").tokens == ["[UNK]", "ab"]


def test_offsets_point_into_the_original_text_through_normalization() -> None:
    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "cafe": 1, "naive": 2}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(), normalizers.Lowercase()])
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    text = "  CAFÉ  Naïve!"
    encoding = tokenizer.encode(text)
    assert encoding.tokens == ["cafe", "naive", "[UNK]"]
    assert [text[s:e] for s, e in encoding.offsets] == ["CAFÉ", "Naïve", "!"]


def test_pair_and_template_processing() -> None:
    tokenizer = trained_bpe()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]
    )
    encoding = tokenizer.encode("the cat", "the mat")
    assert encoding.tokens[0] == "[CLS]" and encoding.tokens[-1] == "[SEP]"
    assert encoding.sequence_ids[0] is None and 0 in encoding.sequence_ids and 1 in encoding.sequence_ids
    assert encoding.type_ids[-1] == 1 and encoding.special_tokens_mask[0] == 1
    assert tokenizer.num_special_tokens_to_add(True) == 3
    assert tokenizer.decode(encoding.ids) == " ".join(t for t in encoding.tokens if t not in ("[CLS]", "[SEP]"))
    assert "[CLS]" in tokenizer.decode(encoding.ids, skip_special_tokens=False)


def test_truncation_and_padding() -> None:
    tokenizer = trained_bpe()
    tokenizer.enable_truncation(4, stride=1)
    tokenizer.enable_padding(pad_id=3, pad_token="[PAD]", length=6)
    # (read into locals: an assert on `tokenizer.padding` itself would narrow it for mypy past
    # no_padding() below)
    truncation, padding = tokenizer.truncation, tokenizer.padding
    assert truncation == {"max_length": 4, "stride": 1, "strategy": "longest_first", "direction": "right"}
    assert padding is not None and padding["length"] == 6
    encoding = tokenizer.encode("the cat sat on the mat")
    assert len(encoding.ids) == 6 and encoding.attention_mask == [1, 1, 1, 1, 0, 0]
    assert encoding.overflowing, "the rest goes to overflowing windows"
    tokenizer.no_truncation()
    tokenizer.no_padding()
    assert tokenizer.truncation is None and tokenizer.padding is None
    with pytest.raises(EngineError, match="stride"):
        tokenizer.enable_truncation(2, stride=3)


def test_batch_padding_pads_to_the_longest() -> None:
    tokenizer = trained_bpe()
    tokenizer.enable_padding(pad_id=0)
    batch = tokenizer.encode_batch(["the cat", "the cat sat on the mat", ("the", "mat")])
    assert len({len(e.ids) for e in batch}) == 1


def test_pretokenized_input_keeps_word_ids() -> None:
    tokenizer = trained_bpe()
    encoding = tokenizer.encode(["the", "cat", "sat"], is_pretokenized=True)
    assert set(encoding.word_ids) == {0, 1, 2}
    with pytest.raises(TypeError):
        tokenizer.encode("the cat", is_pretokenized=True)


def test_save_and_reload_round_trip(tmp_path: Path) -> None:
    tokenizer = trained_bpe()
    tokenizer.add_tokens([AddedToken("mat", single_word=True)])
    path = tmp_path / "tok.json"
    tokenizer.save(str(path))
    again = Tokenizer.from_file(str(path))
    assert again.to_str() == tokenizer.to_str()
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == "1.0"
    assert Tokenizer.from_buffer(path.read_bytes()).to_str() == tokenizer.to_str()
    for text in ["the mat", "aaabdaaabac", "", "zzz"]:
        assert again.encode(text).ids == tokenizer.encode(text).ids


def test_byte_level_round_trip_decodes_exactly() -> None:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(
        [TEXT, "naïve café 東京 👩‍👩‍👧"],
        trainers.BpeTrainer(vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False),
    )
    for text in ["naïve café", "東京 is 👩‍👩‍👧!", "\t\r\n", ""]:
        assert tokenizer.decode(tokenizer.encode(text).ids) == text


class StopAfter(ProgressSink):
    def __init__(self, stage: str) -> None:
        self.stage = stage
        self.seen: list[str] = []

    def report(self, event: TrainProgress) -> bool:
        self.seen.append(event.stage)
        return event.stage != self.stage


def test_cancelled_training_leaves_the_tokenizer_untouched(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text(TEXT * 50, encoding="utf-8")
    tokenizer = trained_bpe()
    before = tokenizer.to_str()
    sink = StopAfter("Compute merges")
    with pytest.raises(TrainingCancelled):
        tokenizer.train([str(corpus)], trainers.BpeTrainer(vocab_size=60, show_progress=False), progress=sink)
    assert "Compute merges" in sink.seen
    assert tokenizer.to_str() == before


def test_training_reports_what_it_read(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    report = tokenizer.train([str(corpus)], trainers.BpeTrainer(vocab_size=30, show_progress=False))
    assert report.files == 1 and report.total_words == 8 and report.unique_words == 6


def test_default_trainer_follows_the_model() -> None:
    tokenizer = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator([TEXT], trainers.WordLevelTrainer(special_tokens=["[UNK]"], show_progress=False))
    assert tokenizer.encode("the cat").tokens == ["the", "cat"]


def test_training_with_added_tokens_cuts_them_out_of_the_corpus() -> None:
    tokenizer = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tokenizer.add_special_tokens(["<sep>"])
    tokenizer.train_from_iterator(["one<sep>two<sep>two"], trainers.WordLevelTrainer(special_tokens=["[UNK]"], show_progress=False))
    vocab = tokenizer.get_vocab()
    assert "one" in vocab and "two" in vocab and "one<sep>two<sep>two" not in vocab


def test_bad_training_inputs_raise_corpus_errors(tmp_path: Path) -> None:
    tokenizer = trained_bpe()
    before = tokenizer.to_str()
    trainer = trainers.BpeTrainer(vocab_size=40, show_progress=False)
    with pytest.raises(CorpusError, match="nope.txt"):
        tokenizer.train([str(tmp_path / "nope.txt")], trainer)
    with pytest.raises(CorpusError, match="directory"):
        tokenizer.train([str(tmp_path)], trainer)
    assert tokenizer.to_str() == before


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "not valid JSON"),
        ('{"version": "1.0", "model": {"type": "BPE", "vocab": {', "truncated"),
        ('{"version": "1.0"}', 'no "model"'),
        ('{"version": "9.9", "model": {}}', "version '9.9'"),
        ('{"version": "1.0", "model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "zz"]]}}', "model"),
        ('{"version": "1.0", "normalizer": {"type": "Nope"}, "model": {"type": "WordLevel", "vocab": {}, "unk_token": "x"}}', "normalizer"),
        ('{"version": "1.0", "added_tokens": [{"id": -1}], "model": {"type": "WordLevel", "vocab": {}, "unk_token": "x"}}', "added_tokens"),
    ],
)
def test_bad_tokenizer_files_name_the_file_and_the_problem(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TokenizerFileError) as caught:
        Tokenizer.from_file(str(path))
    message = str(caught.value)
    assert message.startswith(str(path)) and fragment in message, message


def test_unreadable_tokenizer_files(tmp_path: Path) -> None:
    with pytest.raises(TokenizerFileError, match="no such file"):
        Tokenizer.from_file(str(tmp_path / "missing.json"))
    with pytest.raises(TokenizerFileError, match="directory"):
        Tokenizer.from_file(str(tmp_path))
    binary = tmp_path / "model.bin"
    binary.write_bytes(b"\x80\x81\x82")
    with pytest.raises(TokenizerFileError, match="not UTF-8"):
        Tokenizer.from_file(str(binary))


def test_failed_save_keeps_the_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "tok.json"
    path.write_text("previous", encoding="utf-8")
    with pytest.raises(TokenizerFileError):
        trained_bpe().save(str(tmp_path / "missing-folder" / "tok.json"))
    assert path.read_text(encoding="utf-8") == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["tok.json"], "no temporary file left behind"


def test_saved_files_get_ordinary_permissions_and_keep_existing_ones(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.json"
    umask = os.umask(0o022)
    try:
        trained_bpe().save(str(fresh))
    finally:
        os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
    existing = tmp_path / "existing.json"
    existing.write_text("old", encoding="utf-8")
    existing.chmod(0o640)
    trained_bpe().save(str(existing))
    assert stat.S_IMODE(existing.stat().st_mode) == 0o640
    assert json.loads(existing.read_text(encoding="utf-8"))["version"] == "1.0"


def test_engine_is_a_drop_in_for_the_tokenizers_namespace() -> None:
    for name in ("Tokenizer", "Encoding", "AddedToken", "NormalizedString", "PreTokenizedString", "Regex"):
        assert hasattr(engine, name), name
    for module in ("normalizers", "pre_tokenizers", "models", "trainers", "processors", "decoders"):
        assert hasattr(engine, module), module
