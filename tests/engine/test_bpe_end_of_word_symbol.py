"""BPE's end-of-word marker as a symbol of its own (`end_of_word_symbol`): `l o w </w>`, as
Sennrich et al. (2016), subword-nmt and the textbooks write it, next to HF's `l o w</w>`.

The hand-checkable case is the guide's corpus {low: 5, lower: 2, newest: 6, widest: 3}.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import Tokenizer, decoders, pre_tokenizers
from engine.analysis.encode_steps import bpe_trace
from engine.errors import EngineError, SchemaError
from engine.formats import convert
from engine.models.bpe.model import BPE
from engine.models.bpe.trainer import BpeTrainer
from engine.trainers import from_dict as trainer_from_dict

CORPUS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}

# The guide's merges (Jurafsky & Martin's order, which takes `es t` before `t </w>`), enough for
# its example: lowest -> low est</w>, lowestest -> low est est</w>.
GUIDE_MERGES = [
    ("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w"), ("n", "e"), ("ne", "w"),
    ("new", "est</w>"), ("low", "</w>"), ("w", "i"), ("wi", "d"), ("wid", "est</w>"),
]  # fmt: skip


def guide_model() -> BPE:
    vocab: dict[str, int] = {}
    for token in ["</w>", "d", "e", "i", "l", "n", "o", "r", "s", "t", "w"]:
        vocab[token] = len(vocab)
    for a, b in GUIDE_MERGES:
        vocab[a + b] = len(vocab)
    return BPE(vocab, GUIDE_MERGES, end_of_word_suffix="</w>", end_of_word_symbol=True)


def trained(separate: bool) -> tuple[BPE, list[tuple[str, str, int]]]:
    trainer = BpeTrainer(vocab_size=1000, show_progress=False, end_of_word_suffix="</w>", end_of_word_symbol=separate)
    run = trainer.start(CORPUS)
    run.run_to_end()
    model = BPE()
    trainer.apply(run, model)
    return model, [(step.left, step.right, step.count) for step in run.history.merges]


def values(model: BPE, word: str) -> list[str]:
    return model.tokenize_run(word).values


def spans(model: BPE, word: str) -> list[tuple[str, int, int]]:
    return [(t.value, t.start, t.end) for t in model.tokenize_run(word).tokens()]


# -- training: the guide's corpus, by hand ----------------------------------------------------


def test_the_guides_corpus_trains_with_a_separate_end_of_word_symbol() -> None:
    """Initial ids: the chars in code-point order d e i l n o r s t w (0-9), then `</w>` (10).

    First counts: e s, s t and t </w> 9 (newest 6 + widest 3), w e 8, l o and o w 7, ...
    Ties go to the lower pair ids, as HF's queue does ((left, right) compared as numbers):
    e s (1, 7) first; then es t (11, 8) and t </w> (8, 10) tie at 9 and t </w> goes first;
    at 7 l o (3, 5) before lo w; at 6 e w (1, 9) before n e (4, 1), so `n ew` and not the
    guide's `ne w`; at 3 d est</w> (0, 13) first, so `w idest</w>` and not `wid est</w>`.
    """
    model, merges = trained(True)
    assert merges == [
        ("e", "s", 9), ("t", "</w>", 9), ("es", "t</w>", 9), ("l", "o", 7), ("lo", "w", 7),
        ("e", "w", 6), ("n", "ew", 6), ("new", "est</w>", 6), ("low", "</w>", 5),
        ("d", "est</w>", 3), ("i", "dest</w>", 3), ("w", "idest</w>", 3),
        ("e", "r", 2), ("low", "er", 2), ("lower", "</w>", 2),
    ]  # fmt: skip
    vocab = model.get_vocab()
    assert vocab["</w>"] == 10  # an initial symbol, right after the alphabet
    assert "t</w>" not in list(vocab)[:11]  # no glued initial symbol
    assert model.end_of_word_symbol and model.end_of_word_suffix == "</w>"
    assert values(model, "lowest") == ["low", "est</w>"]
    assert values(model, "lowestest") == ["low", "es", "t", "est</w>"]
    assert values(model, "newer") == ["new", "er", "</w>"]


def test_the_same_corpus_without_it_glues_the_suffix_to_the_last_char_as_hf() -> None:
    """HF's way: `t</w>`, `r</w>`, `w</w>` are initial symbols (ids 10-12, after the alphabet),
    so no merge ever has `</w>` on its own, `lo + w</w>` makes `low</w>`, and `low` is no token:
    lowest comes out `lo w est</w>`, the guide's lowestest `lo w es t est</w>`."""
    model, merges = trained(False)
    assert merges == [
        ("e", "s", 9), ("es", "t</w>", 9), ("l", "o", 7), ("e", "w", 6), ("n", "ew", 6),
        ("new", "est</w>", 6), ("lo", "w</w>", 5), ("d", "est</w>", 3), ("i", "dest</w>", 3),
        ("w", "idest</w>", 3), ("e", "r</w>", 2), ("w", "er</w>", 2), ("lo", "wer</w>", 2),
    ]  # fmt: skip
    vocab = model.get_vocab()
    assert [token for token, id in vocab.items() if 10 <= id <= 12] == ["r</w>", "t</w>", "w</w>"]
    assert "</w>" not in vocab and "low" not in vocab
    assert not model.end_of_word_symbol
    assert values(model, "lowest") == ["lo", "w", "est</w>"]
    assert values(model, "lowestest") == ["lo", "w", "es", "t", "est</w>"]


def test_the_guides_own_merges_give_its_example() -> None:
    model = guide_model()
    assert values(model, "lowest") == ["low", "est</w>"]
    assert values(model, "lowestest") == ["low", "est", "est</w>"]
    assert values(model, "low") == ["low</w>"]
    assert values(model, "newest") == ["newest</w>"]
    assert values(model, "widest") == ["widest</w>"]
    assert values(model, "lower") == ["low", "e", "r", "</w>"]


def test_a_word_of_one_char_takes_part_in_training() -> None:
    """`a </w>` has a pair (HF leaves one-char words out: `a</w>` alone has none)."""
    trainer = BpeTrainer(vocab_size=100, show_progress=False, end_of_word_suffix="</w>", end_of_word_symbol=True)
    run = trainer.start({"a": 4, "ab": 1})
    run.run_to_end()
    assert run.merges == [("a", "</w>"), ("a", "b"), ("ab", "</w>")]
    glued = BpeTrainer(vocab_size=100, show_progress=False, end_of_word_suffix="</w>").start({"a": 4, "ab": 1})
    glued.run_to_end()
    assert glued.merges == [("a", "b</w>")]


def test_the_alphabet_need_counts_the_symbol_apart() -> None:
    trainer = BpeTrainer(vocab_size=5, show_progress=False, end_of_word_suffix="</w>", end_of_word_symbol=True)
    need = trainer.start(CORPUS).alphabet_need()
    assert need.detail() == "10 characters + 1 end-of-word symbol (</w>)"
    assert need.required == 11


def test_max_token_length_counts_no_char_for_the_symbol() -> None:
    """As a glued suffix adds no char (`b</w>` is 1 long), the pair (ab, </w>) is 2 long here.

    (a b) ties (b </w>) and goes first (lower ids); the pair it makes, (ab </w>), is then
    checked against the limit (HF checks only the pairs a merge makes), which lets it through
    at 3; were `</w>` a char, it would be 3 long and kept out."""
    trainer = BpeTrainer(
        vocab_size=100, show_progress=False, end_of_word_suffix="</w>", end_of_word_symbol=True, max_token_length=3
    )
    run = trainer.start({"ab": 5})
    run.run_to_end()
    assert run.merges == [("a", "b"), ("ab", "</w>")]


def test_a_continuing_prefix_stays_off_the_symbol() -> None:
    trainer = BpeTrainer(
        vocab_size=100, show_progress=False, continuing_subword_prefix="##", end_of_word_suffix="</w>",
        end_of_word_symbol=True,
    )  # fmt: skip
    run = trainer.start({"ab": 3})
    run.run_to_end()
    # ids a 0, b 1, </w> 2, ##b 3: (a, ##b) and (##b, </w>) tie, (0, 3) goes first
    assert run.merges == [("a", "##b"), ("ab", "</w>")]
    model = BPE()
    trainer.apply(run, model)
    assert values(model, "ab") == ["ab</w>"]
    assert values(model, "b") == ["b", "</w>"]


# -- encoding: offsets, unknowns, options -----------------------------------------------------


def test_offsets_stay_inside_the_word_and_a_lone_symbol_is_zero_width_at_its_end() -> None:
    model = guide_model()
    assert spans(model, "lowest") == [("low", 0, 3), ("est</w>", 3, 6)]
    assert spans(model, "lower") == [("low", 0, 3), ("e", 3, 4), ("r", 4, 5), ("</w>", 5, 5)]
    # tokenize reports UTF-8 bytes, as HF's Model.tokenize
    assert [(t.value, t.offsets) for t in model.tokenize("lower")][-1] == ("</w>", (5, 5))


def test_non_ascii_words_clamp_in_bytes_and_in_chars() -> None:
    vocab = {"</w>": 0, "é": 1, "t": 2, "<0xC3>": 3, "<0xA9>": 4, "t</w>": 5, "<unk>": 6}
    model = BPE(vocab, [("t", "</w>")], end_of_word_suffix="</w>", end_of_word_symbol=True, unk_token="<unk>")
    assert spans(model, "été") == [("é", 0, 1), ("t", 1, 2), ("é", 2, 3), ("</w>", 3, 3)]
    assert spans(model, "ét") == [("é", 0, 1), ("t</w>", 1, 2)]
    assert [(t.value, t.offsets) for t in model.tokenize("ét")] == [("é", (0, 2)), ("t</w>", (2, 3))]
    fallback = BPE(
        {k: v for k, v in vocab.items() if k != "é"}, [("t", "</w>")], end_of_word_suffix="</w>",
        end_of_word_symbol=True, byte_fallback=True,
    )  # fmt: skip
    assert spans(fallback, "té") == [("t", 0, 1), ("<0xC3>", 1, 2), ("<0xA9>", 1, 2), ("</w>", 2, 2)]
    assert [(t.value, t.offsets) for t in fallback.tokenize("té")] == [
        ("t", (0, 1)), ("<0xC3>", (1, 2)), ("<0xA9>", (2, 3)), ("</w>", (3, 3))
    ]  # fmt: skip
    fused = BPE(vocab, [], end_of_word_suffix="</w>", end_of_word_symbol=True, unk_token="<unk>", fuse_unk=True)
    assert spans(fused, "xyt") == [("<unk>", 0, 2), ("t", 2, 3), ("</w>", 3, 3)]
    assert spans(fused, "txy") == [("t", 0, 1), ("<unk>", 1, 3), ("</w>", 3, 3)]


def test_a_dropped_char_leaves_the_symbol_at_the_words_end() -> None:
    """A token holding `</w>` ends at the word's end even when a char before it was left out."""
    model = guide_model()  # no unk token: `x` is left out, as HF does
    assert spans(model, "x") == [("</w>", 1, 1)]
    assert spans(model, "lowx") == [("low</w>", 0, 4)]  # w and </w> neighbours once x is out


def test_ignore_merges_takes_the_whole_word_with_its_end() -> None:
    model = guide_model()
    model.ignore_merges = True
    assert spans(model, "low") == [("low</w>", 0, 3)]
    assert values(model, "lowest") == ["low", "est</w>"]  # `lowest</w>` is no token


def test_dropout_one_leaves_the_symbol_on_its_own() -> None:
    model = guide_model()
    model.dropout = 1.0
    assert spans(model, "low") == [("l", 0, 1), ("o", 1, 2), ("w", 2, 3), ("</w>", 3, 3)]


def test_the_cache_follows_the_flag() -> None:
    model = guide_model()
    assert values(model, "low") == ["low</w>"]
    model.end_of_word_symbol = False  # `w</w>` is no token: w is left out of the end
    assert values(model, "low") == ["lo"]
    model.end_of_word_symbol = True
    assert values(model, "low") == ["low</w>"]


def test_the_flag_needs_a_suffix_and_the_suffix_token() -> None:
    with pytest.raises(ValueError, match="end_of_word_symbol needs an end_of_word_suffix"):
        BPE({"a": 0}, [], end_of_word_symbol=True)
    with pytest.raises(ValueError, match="end_of_word_symbol needs an end_of_word_suffix"):
        BpeTrainer(end_of_word_symbol=True)
    model = guide_model()
    with pytest.raises(ValueError, match="end_of_word_symbol needs an end_of_word_suffix"):
        model.end_of_word_suffix = None
    with pytest.raises(SchemaError, match="end_of_word_symbol needs an end_of_word_suffix"):
        BPE.from_dict({"type": "BPE", "vocab": {}, "merges": [], "end_of_word_symbol": True})
    # a vocabulary without `</w>` (an untrained model's) leaves it out, as any symbol it lacks
    missing = BPE({"a": 0}, [], end_of_word_suffix="</w>", end_of_word_symbol=True, unk_token="a")
    assert spans(missing, "a") == [("a", 0, 1)]
    assert BPE(end_of_word_suffix="</w>", end_of_word_symbol=True).tokenize_run("low").ids == []


# -- the pipeline: decoding, JSON -------------------------------------------------------------


def pipeline() -> Tokenizer:
    tokenizer = Tokenizer(guide_model())
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.decoder = decoders.BPEDecoder(suffix="</w>")
    return tokenizer


def test_decode_gives_the_text_back_a_lone_symbol_standing_for_the_space() -> None:
    tokenizer = pipeline()
    text = "lower lowest newest lowestest widest low"
    encoding = tokenizer.encode(text)
    assert encoding.tokens == [
        "low", "e", "r", "</w>", "low", "est</w>", "newest</w>", "low", "est", "est</w>", "widest</w>", "low</w>"
    ]  # fmt: skip
    for token, (start, end) in zip(encoding.tokens, encoding.offsets):
        if token == "</w>":
            assert start == end and text[end] == " "
        else:
            assert text[start:end] == token.removesuffix("</w>")
    assert tokenizer.decode(encoding.ids) == text


def test_json_round_trip_of_model_and_trainer(tmp_path: Path) -> None:
    model = guide_model()
    data = model.to_dict()
    assert data["end_of_word_symbol"] is True
    again = BPE.from_dict(json.loads(json.dumps(data)))
    assert again.end_of_word_symbol and values(again, "lowestest") == ["low", "est", "est</w>"]
    path = tmp_path / "tokenizer.json"
    pipeline().save(str(path))
    assert Tokenizer.from_file(str(path)).encode("lower").tokens == ["low", "e", "r", "</w>"]
    # off: the key is not written, so the file stays HF's
    assert "end_of_word_symbol" not in BPE({"a": 0}, [], end_of_word_suffix="</w>").to_dict()
    trainer = BpeTrainer(end_of_word_suffix="</w>", end_of_word_symbol=True)
    written = trainer.to_dict()
    assert written["end_of_word_symbol"] is True
    read = trainer_from_dict(json.loads(json.dumps(written)))
    assert isinstance(read, BpeTrainer) and read.end_of_word_symbol
    assert BpeTrainer.from_dict({"type": "BpeTrainer"}).end_of_word_symbol is False


# -- exports ----------------------------------------------------------------------------------

REASON = "has no separate end-of-word symbol"


def test_gpt2_tiktoken_and_sentencepiece_exports_refuse_it(tmp_path: Path) -> None:
    tokenizer = pipeline()
    for kind in (convert.GPT2, convert.TIKTOKEN, convert.SENTENCEPIECE):
        with pytest.raises(EngineError, match=REASON) as caught:
            convert.check(tokenizer, kind)
        assert "it would encode these words differently" in str(caught.value)
        with pytest.raises(EngineError, match=REASON):
            convert.save(tokenizer, kind, str(tmp_path / ("out" + convert.SUFFIXES[kind])))
    assert list(tmp_path.iterdir()) == []


def test_an_hf_export_is_written_and_flagged(tmp_path: Path) -> None:
    """HF's tokenizers ignores the key and would glue the suffix: the note says so."""
    notes = convert.save(pipeline(), convert.HF, str(tmp_path / "tokenizer.json"))
    assert len(notes) == 1
    assert notes[0].startswith('HF tokenizers (which ignores "end_of_word_symbol") has no separate end-of-word symbol')
    assert notes[0].endswith("it would encode these words differently")
    glued = Tokenizer(BPE({"a": 0, "a</w>": 1}, [], end_of_word_suffix="</w>"))
    assert convert.save(glued, convert.HF, str(tmp_path / "glued.json")) == []


# -- the Encode tab's stepper -----------------------------------------------------------------


def test_the_stepper_shows_the_symbol_on_its_own_and_its_merges() -> None:
    trace = bpe_trace(guide_model(), "lowest")
    assert [symbol[1] for symbol in trace.symbols] == ["l", "o", "w", "e", "s", "t", "</w>"]
    assert trace.symbols[-1][2:] == (6, 6)
    assert [(step.left, step.right, step.made) for step in trace.merges] == [
        ("e", "s", "es"), ("es", "t", "est"), ("est", "</w>", "est</w>"), ("l", "o", "lo"), ("lo", "w", "low")
    ]  # fmt: skip
    assert [(t[1], t[2], t[3]) for t in trace.tokens] == [("low", 0, 3), ("est</w>", 3, 6)]
    assert any("a symbol of its own" in note for note in trace.notes)
