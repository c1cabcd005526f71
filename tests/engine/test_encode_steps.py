"""engine.analysis.encode_steps and lattice_steps: each model's steps on one word, by hand on the
textbook cases (WordPiece's lookups of "playing", BPE's merges of "lowest", Unigram's best score
per position of "▁cats"), and ending in the model's own tokens (and HF's) on real text."""

from __future__ import annotations

import math
import pickle
import random
from pathlib import Path

import pytest
import tokenizers

from engine import Tokenizer, models, pre_tokenizers, trainers
from engine.analysis.encode_steps import (
    MAX_WORD_CHARS,
    BpeTrace,
    WordPieceTrace,
    bpe_trace,
    trace_word,
    word_at,
    wordpiece_trace,
)
from engine.analysis.lattice_steps import UnigramTrace, unigram_trace
from engine.analysis.steps import BACK, END, FILL, LOOKUP, MERGE, START
from engine.errors import EngineError
from engine.formats import convert
from engine.input_sequence import pre_tokenized
from engine.pre_tokenizers.pretokenized import CHAR, ORIGINAL
from support import SAMPLE_FOLDER, train_byte_level

# Words for the steppers that are not in English prose: accents, CJK, emoji with a ZWJ, a
# combining accent, RTL, a control character, digits, punctuation
TRICKY = ["naïve", "Café", "日本語", "👩\u200d💻", "e\u0301", "שלום", "a\x07b", "1,234.56", "don't", "x" * 120]


def sample_lines(count: int, name: str = "shakespeare.txt") -> list[str]:
    return (SAMPLE_FOLDER / name).read_text(encoding="utf-8").splitlines()[:count]


def model_words(tokenizer: Tokenizer, lines: list[str], count: int) -> list[str]:
    """The first `count` distinct pieces the model gets from `lines` (the tokenizer's own pipeline)."""
    found: dict[str, None] = {}
    for line in lines:
        pieces = pre_tokenized(line, tokenizer._added, tokenizer.normalizer, tokenizer.pre_tokenizer)
        for piece, _, tokens in pieces.get_splits(ORIGINAL, CHAR):
            if tokens is None:
                found[piece] = None
        if len(found) >= count:
            break
    return list(found)[:count]


def traced_tokens(trace: WordPieceTrace | BpeTrace | UnigramTrace) -> list[tuple[int, str, int, int]]:
    return list(trace.tokens)


def model_tokens(model: models.Model, word: str) -> list[tuple[int, str, int, int]]:
    run = model.tokenize_run(word)
    return [(run.ids[k], run.values[k], run.starts[k], run.ends[k]) for k in range(len(run.ids))]


def assert_ends_in_the_models_tokens(tokenizer: Tokenizer, words: list[str]) -> None:
    """The steps end in the model's own tokens (ids, strings, offsets), and in HF's ids and strings."""
    reference = tokenizers.Tokenizer.from_str(tokenizer.to_str())
    for word in words:
        trace = trace_word(tokenizer.model, word)
        assert traced_tokens(trace) == model_tokens(tokenizer.model, word), word
        theirs = reference.model.tokenize(word)
        assert [(t[0], t[1]) for t in trace.tokens] == [(t.id, t.value) for t in theirs], word
        assert trace.steps[-1].phase == END
        if isinstance(trace, BpeTrace):  # (the rows the page draws, rebuilt from the merges)
            assert trace.row(len(trace.merges)) == trace.tokens


# -- WordPiece -------------------------------------------------------------------------------------


def toy_wordpiece() -> models.WordPiece:
    return models.WordPiece({"[UNK]": 0, "play": 1, "##ing": 2, "p": 3, "##l": 4, "un": 5, "##aff": 6, "##able": 7}, unk_token="[UNK]")


def test_playing_is_looked_up_longest_first_then_with_the_prefix() -> None:
    trace = wordpiece_trace(toy_wordpiece(), "playing")
    assert [(lookup.piece, lookup.start, lookup.end, lookup.id) for lookup in trace.lookups] == [
        ("playing", 0, 7, -1), ("playin", 0, 6, -1), ("playi", 0, 5, -1), ("play", 0, 4, 1), ("##ing", 4, 7, 2),
    ]  # fmt: skip
    assert trace.tokens == [(1, "play", 0, 4), (2, "##ing", 4, 7)]
    assert not trace.unknown
    assert [(step.phase, step.index) for step in trace.steps] == [(START, 0)] + [(LOOKUP, i) for i in range(5)] + [(END, 0)]
    assert trace.steps[1].text == "Look up 'playing' (characters 0–7): not in the vocabulary. One character less from the right, and again."
    assert trace.steps[4].text == "Look up 'play' (characters 0–4): in the vocabulary (id 1). 'play' is a token; the rest, 'ing', is looked up as '##ing'."
    assert trace.steps[-1].text == "Done: 'playing' → play ##ing (2 tokens, ids 1, 2)."


def test_a_missing_continuation_makes_the_whole_word_unknown() -> None:
    # "playx": play is found, then ##x, nothing shorter: the whole word is [UNK], play dropped
    trace = wordpiece_trace(toy_wordpiece(), "playx")
    assert [lookup.piece for lookup in trace.lookups] == ["playx", "play", "##x"]
    assert trace.unknown and not trace.too_long
    assert trace.tokens == [(0, "[UNK]", 0, 5)] == model_tokens(toy_wordpiece(), "playx")
    assert "WordPiece gives up on the whole word: it becomes [UNK]" in trace.steps[-2].text
    assert trace.steps[-1].text == "Done: 'playx' → [UNK] (1 token, id 0)."


def test_a_word_past_max_input_chars_per_word_is_unknown_without_a_lookup() -> None:
    model = toy_wordpiece()
    model.max_input_chars_per_word = 6
    trace = wordpiece_trace(model, "playing")
    assert trace.too_long and trace.unknown and trace.lookups == []
    assert trace.tokens == [(0, "[UNK]", 0, 7)] == model_tokens(model, "playing")
    assert "more than max_input_chars_per_word (6)" in trace.steps[0].text


def test_unaffable_is_the_textbook_cut() -> None:
    trace = wordpiece_trace(toy_wordpiece(), "unaffable")
    assert [token[1] for token in trace.tokens] == ["un", "##aff", "##able"]


def test_a_wordpiece_without_its_unknown_token_fails_as_the_model_does() -> None:
    model = models.WordPiece({"a": 0}, unk_token="[UNK]")
    with pytest.raises(EngineError, match="Missing \\[UNK\\] token"):
        model.tokenize_run("b")
    with pytest.raises(EngineError, match="Missing \\[UNK\\] token"):
        wordpiece_trace(model, "b")


def test_bert_steps_end_in_the_models_tokens_on_real_text(corpora: Path) -> None:
    bert = Tokenizer.from_file(str(corpora / "bert_uncased_tokenizer.json"))
    words = model_words(bert, sample_lines(3000), 400) + [bert.normalizer.normalize_str(w) for w in TRICKY if bert.normalizer is not None]
    assert len(words) >= 400
    assert_ends_in_the_models_tokens(bert, words)
    # every lookup that failed is not in the vocabulary; each found one is
    model = bert.model
    assert isinstance(model, models.WordPiece)
    trace = wordpiece_trace(model, "unbelievably")
    assert len(trace.lookups) > len(trace.tokens)
    assert all((lookup.id >= 0) == (model.token_to_id(lookup.piece) is not None) for lookup in trace.lookups)


# -- BPE -------------------------------------------------------------------------------------------


def lowest_bpe(**options: object) -> models.BPE:
    vocab = {c: i for i, c in enumerate("lowest")}
    merges = [("l", "o"), ("lo", "w"), ("e", "s"), ("es", "t")]
    for a, b in merges:
        vocab[a + b] = len(vocab)
    return models.BPE(vocab, merges, **options)  # type: ignore[arg-type]


def test_lowest_merges_in_rank_order_to_low_est() -> None:
    trace = bpe_trace(lowest_bpe(), "lowest")
    assert [s[1] for s in trace.symbols] == list("lowest")
    assert [(m.left, m.right, m.made, m.rank) for m in trace.merges] == [
        ("l", "o", "lo", 0), ("lo", "w", "low", 1), ("e", "s", "es", 2), ("es", "t", "est", 3),
    ]  # fmt: skip
    assert [[s[1] for s in trace.row(k)] for k in range(1, 5)] == [
        ["lo", "w", "e", "s", "t"], ["low", "e", "s", "t"], ["low", "es", "t"], ["low", "est"],
    ]  # fmt: skip
    # the pairs that had a merge before each one: (position in the row, rank, left, right)
    assert trace.merges[0].present == [(0, 0, "l", "o"), (3, 2, "e", "s")]
    assert trace.merges[2].position == 1 and trace.merges[2].present == [(1, 2, "e", "s")]
    assert trace.tokens == [(7, "low", 0, 3), (9, "est", 3, 6)] == model_tokens(lowest_bpe(), "lowest")
    assert [(step.phase, step.index) for step in trace.steps] == [(START, 0)] + [(MERGE, i) for i in range(4)] + [(END, 0)]
    assert trace.steps[1].text == (
        "Merge 'l' + 'o' → 'lo' (rank 0): the lowest rank of the 2 pairs that have a merge ('l' + 'o' rank 0, 'e' + 's' rank 2)."
    )
    assert trace.steps[3].text == "Merge 'e' + 's' → 'es' (rank 2): the only neighbouring pair that has a merge."
    assert trace.steps[-1].text == "No neighbouring pair has a merge left. Done: 'lowest' → low est (2 tokens, ids 7, 9)."


def test_the_leftmost_of_equal_ranks_merges_first() -> None:
    model = models.BPE({"a": 0, "aa": 1}, [("a", "a")])
    trace = bpe_trace(model, "aaa")
    assert [m.position for m in trace.merges] == [0]
    assert trace.tokens == [(1, "aa", 0, 2), (0, "a", 2, 3)] == model_tokens(model, "aaa")
    assert "leftmost goes first" in trace.steps[1].text


def test_a_bpe_with_prefix_suffix_unknowns_and_byte_fallback_starts_as_the_model() -> None:
    vocab = {"[UNK]": 0, "l": 1, "##o": 2, "##w</w>": 3, "lo": 4, "low</w>": 5, "<0xC3>": 6, "<0xA9>": 7, "##x</w>": 8}
    merges = [("l", "##o"), ("lo", "##w</w>")]
    model = models.BPE(vocab, merges, unk_token="[UNK]", continuing_subword_prefix="##", end_of_word_suffix="</w>")
    trace = bpe_trace(model, "low")
    assert [s[1] for s in trace.symbols] == ["l", "##o", "##w</w>"] and trace.tokens == [(5, "low</w>", 0, 3)]
    assert any("continuing prefix" in note for note in trace.notes) and any("end-of-word suffix" in note for note in trace.notes)
    for word in ["low", "lox", "léw", "l", "xyz"]:
        assert traced_tokens(bpe_trace(model, word)) == model_tokens(model, word), word
    fused = models.BPE(vocab, merges, unk_token="[UNK]", fuse_unk=True, continuing_subword_prefix="##")
    assert traced_tokens(bpe_trace(fused, "lzzo")) == model_tokens(fused, "lzzo")
    fallback = models.BPE({"a": 0, "<0xC3>": 1, "<0xA9>": 2, "ab": 3, "b": 4}, [("a", "b")], byte_fallback=True)
    trace = bpe_trace(fallback, "abé")
    assert trace.tokens == model_tokens(fallback, "abé") == [(3, "ab", 0, 2), (1, "<0xC3>", 2, 3), (2, "<0xA9>", 2, 3)]
    assert any("UTF-8 bytes <0xC3> <0xA9>" in note for note in trace.notes)
    dropped = models.BPE({"a": 0}, [])
    assert bpe_trace(dropped, "aé").tokens == model_tokens(dropped, "aé") == [(0, "a", 0, 1)]
    assert any("left out" in note for note in bpe_trace(dropped, "aé").notes)


def test_ignore_merges_takes_a_vocabulary_word_whole() -> None:
    model = lowest_bpe(ignore_merges=True)
    model_vocab = model.get_vocab()
    trace = bpe_trace(model, "lowest")
    # "lowest" is no token: the merges run; "low" is one: taken whole
    assert len(trace.merges) == 4
    trace = bpe_trace(model, "low")
    assert trace.whole and trace.merges == [] and trace.tokens == [(model_vocab["low"], "low", 0, 3)] == model_tokens(model, "low")


def test_byte_level_bpe_steps_end_in_the_models_tokens_on_real_text() -> None:
    lines = sample_lines(3000) + sample_lines(300, "wagahaiwa_nekodearu.txt")
    tokenizer = train_byte_level(lines, 600)
    words = model_words(tokenizer, lines[:1000], 300) + model_words(tokenizer, lines[3000:], 100) + model_words(tokenizer, TRICKY, 50)
    assert len(words) >= 400 and any(not word.isascii() for word in words)
    assert_ends_in_the_models_tokens(tokenizer, words)


def test_a_bpe_with_prefix_and_suffix_trained_here_ends_in_the_models_tokens() -> None:
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    lines = sample_lines(2000)
    trainer = trainers.BpeTrainer(vocab_size=500, special_tokens=["[UNK]"], continuing_subword_prefix="##", end_of_word_suffix="</w>", show_progress=False)
    tokenizer.train_from_iterator(lines, trainer)
    assert tokenizer.model.continuing_subword_prefix == "##"  # type: ignore[attr-defined]
    assert_ends_in_the_models_tokens(tokenizer, model_words(tokenizer, lines, 300) + TRICKY[:6])


# -- Unigram ---------------------------------------------------------------------------------------

CATS = [("<unk>", 0.0), ("▁", -3.0), ("▁c", -5.0), ("▁ca", -6.0), ("▁cat", -2.0), ("c", -4.0), ("a", -3.0), ("t", -3.5), ("s", -2.5), ("at", -4.0), ("ts", -6.0)]


def test_cats_is_the_textbook_viterbi() -> None:
    model = models.Unigram(CATS, unk_id=0)
    trace = unigram_trace(model, "▁cats")
    # best[p]: 0; ▁ -3; ▁c -5 (not ▁ + c = -7); ▁ca -6 (not ▁c + a = -8); ▁cat -2; ▁cat + s = -4.5
    assert trace.best == [0.0, -3.0, -5.0, -6.0, -2.0, -4.5]
    assert [trace.nodes[node][3] if node >= 0 else None for node in trace.back] == [None, "▁", "▁c", "▁ca", "▁cat", "s"]
    assert trace.pieces(trace.path) == ["▁cat", "s"] and trace.score == -4.5
    assert trace.tokens == [(4, "▁cat", 0, 4), (8, "s", 4, 5)] == model_tokens(model, "▁cats")
    lattice = model.lattice("▁cats")
    assert trace.best == lattice.viterbi_scores() and trace.path == lattice.viterbi()
    assert len(trace.nodes) == len(lattice.ids) == 10
    phases = [(step.phase, step.index) for step in trace.steps]
    assert phases == [(START, 0)] + [(FILL, p) for p in range(1, 6)] + [(BACK, 1), (BACK, 2), (END, 0)]
    assert trace.steps[5].text == (
        "Position 5 (after '▁cats'): best score -4.50, through 's' (4–5): best[4] -2.00 + -2.50; the back-pointer of "
        "position 5 is 's'. Also ending here: 'ts' (3–5): best[3] -6.00 + -6.00 = -12.00."
    )
    assert trace.steps[7].text.endswith("Position 0 is reached: the best path is ▁cat s, score -2.00 + -2.50 = -4.50.")


def test_nbest_is_the_lattices_and_the_probabilities_add_up() -> None:
    model = models.Unigram(CATS, unk_id=0)
    trace = unigram_trace(model, "▁cats", nbest=50, alpha=0.5)
    assert [(path, score) for path, score, _ in trace.nbest] == model.lattice("▁cats").nbest(50)
    assert trace.pieces(trace.nbest[0][0]) == ["▁cat", "s"]
    # every path of the lattice is listed (fewer than 50): their probabilities at alpha sum to 1
    assert math.isclose(sum(probability for _, _, probability in trace.nbest), 1.0)
    assert all(math.isclose(p, math.exp(0.5 * score - trace.log_z)) for _, score, p in trace.nbest)


def test_sampling_with_a_seed_is_reproducible_and_the_models() -> None:
    model = models.Unigram(CATS, unk_id=0)
    first = unigram_trace(model, "▁cats", samples=8, alpha=0.2, seed=7)
    again = unigram_trace(model, "▁cats", samples=8, alpha=0.2, seed=7)
    assert first.samples == again.samples and len(first.samples) == 8
    rng = random.Random(7)
    drawn = [[token.value for token in model.sample("▁cats", 0.2, rng)] for _ in range(8)]
    assert [first.pieces(path) for path, _ in first.samples] == drawn
    assert [score for _, score in first.samples] == [model.lattice("▁cats").path_score(path) for path, _ in first.samples]
    other = unigram_trace(model, "▁cats", samples=8, alpha=0.2, seed=8)
    assert other.samples != first.samples


def test_unknown_characters_fuse_into_one_token_as_the_model() -> None:
    model = models.Unigram([("<unk>", 0.0), ("a", -1.0), ("b", -2.0), ("ab", -1.5)], unk_id=0)
    trace = unigram_trace(model, "abxyb")
    assert [node[5] for node in trace.nodes if node[3] in ("x", "y")] == [True, True]
    assert math.isclose(trace.unk_score, -12.0)
    assert trace.tokens == model_tokens(model, "abxyb") == [(3, "ab", 0, 2), (0, "xy", 2, 4), (2, "b", 4, 5)]
    assert "No piece covers 'x', 'y'" in trace.steps[0].text
    assert "The unknown characters 'xy' next to each other are one token." in trace.steps[-1].text
    fallback = models.Unigram([("<unk>", 0.0), ("a", -1.0), ("<0xC3>", -5.0), ("<0xA9>", -5.0)], unk_id=0, byte_fallback=True)
    assert unigram_trace(fallback, "aé").tokens == model_tokens(fallback, "aé") == [(1, "a", 0, 1), (2, "<0xC3>", 1, 2), (3, "<0xA9>", 1, 2)]


def test_a_tie_goes_to_the_piece_that_starts_first() -> None:
    model = models.Unigram([("<unk>", 0.0), ("a", -1.0), ("b", -1.0), ("ab", -2.0)], unk_id=0)
    trace = unigram_trace(model, "ab")
    assert trace.pieces(trace.path) == ["ab"] == [t[1] for t in model_tokens(model, "ab")]
    assert "A tie" in trace.steps[2].text


def test_sentencepiece_model_steps_end_in_the_models_tokens_on_real_text(corpora: Path) -> None:
    tokenizer = convert.load(str(corpora / "sp_test_model.model"))
    words = model_words(tokenizer, sample_lines(3000), 300) + model_words(tokenizer, TRICKY + sample_lines(200, "wagahaiwa_nekodearu.txt"), 100)
    # (a line of Japanese is one piece: up to MAX_WORD_CHARS it is followed, past it refused)
    longest = max(words, key=len)
    with pytest.raises(ValueError, match="Step Through follows words of up to"):
        trace_word(tokenizer.model, longest)
    words = [word for word in words if len(word) <= MAX_WORD_CHARS]
    assert len(words) >= 350 and max(len(word) for word in words) > 256
    assert_ends_in_the_models_tokens(tokenizer, words)
    for word in words[:50]:
        trace = unigram_trace(tokenizer.model, word, nbest=4)  # type: ignore[arg-type]
        lattice = tokenizer.model.lattice(word)  # type: ignore[attr-defined]
        assert trace.best == lattice.viterbi_scores() and trace.path == lattice.viterbi()
        assert [(path, score) for path, score, _ in trace.nbest] == lattice.nbest(4)


# -- the word under the cursor, and the wire ----------------------------------------------------


def test_the_word_under_the_cursor_is_the_pipelines_piece(corpora: Path) -> None:
    bert = Tokenizer.from_file(str(corpora / "bert_uncased_tokenizer.json"))
    text = "The CATS, [CLS] sat"
    found = word_at(bert, text, 5)
    assert found is not None and (found.word, found.start, found.end, found.added) == ("cats", 4, 8, False)
    assert word_at(bert, text, 8) is not None and word_at(bert, text, 8).word == ","  # type: ignore[union-attr]
    assert word_at(bert, text, 3).word == "the"  # type: ignore[union-attr]  # (right after a word: that word)
    added = word_at(bert, text, 11)
    assert added is not None and added.added and added.word == "[CLS]"
    assert word_at(bert, "   ", 1) is None
    byte_level = train_byte_level(["the cats sat on the mat"] * 5, 300)
    found = word_at(byte_level, "the cats", 5)
    assert found is not None and (found.word, found.start, found.end) == ("Ġcats", 3, 8)


def test_trace_word_refuses_other_models_and_long_words() -> None:
    with pytest.raises(ValueError, match="this model is WordLevel"):
        trace_word(models.WordLevel({"a": 0, "[UNK]": 1}, unk_token="[UNK]"), "a")
    with pytest.raises(ValueError, match=f"up to {MAX_WORD_CHARS}"):
        trace_word(toy_wordpiece(), "a" * (MAX_WORD_CHARS + 1))


@pytest.mark.parametrize("word", ["", " ", "\t", "😀"])
def test_empty_and_odd_words_end_in_the_models_tokens(word: str) -> None:
    model = models.Unigram(CATS, unk_id=0)
    for current in (toy_wordpiece(), lowest_bpe(unk_token=None), model):
        try:
            expected = model_tokens(current, word)
        except EngineError as error:
            with pytest.raises(EngineError, match=str(error)):
                trace_word(current, word)
            continue
        assert traced_tokens(trace_word(current, word)) == expected


def test_the_wire_forms_are_plain_data_that_pickle() -> None:
    for trace in (wordpiece_trace(toy_wordpiece(), "playing"), bpe_trace(lowest_bpe(), "lowest"), unigram_trace(models.Unigram(CATS, unk_id=0), "▁cats")):
        wire = trace.to_wire()
        assert pickle.loads(pickle.dumps(wire)) == wire
        assert wire["steps"] == [step.to_wire() for step in trace.steps]
