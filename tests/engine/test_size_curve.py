"""engine.analysis.size_curve: the curve at each size equals what encoding with the smaller
tokenizer gives (BPE with merges[:k], WordPiece with a vocabulary prefix, a Unigram run's pieces
after each round), on hand-checked cases, on tokenizers the engine's trainers make here, and on
random merge lists; and the knee."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Tokenizer, decoders, pre_tokenizers
from engine.analysis.size_curve import (
    RoundPoint,
    SizeCurve,
    bpe_curve,
    held_out_words,
    knee,
    round_point,
    rounds_curve,
    size_curve,
    spaced_sizes,
    unigram_curve,
    wordpiece_curve,
)
from engine.models.bpe.model import BPE
from engine.models.bpe.trainer import BpeTrainer
from engine.models.unigram.model import Unigram
from engine.models.unigram.trainer import UnigramTrainer
from engine.models.wordpiece.model import WordPiece
from engine.models.wordpiece.trainer import WordPieceTrainer
from engine.trainers.records import RoundStep

TRAINING = [
    "the lower lowest low newer newest wider widest",
    "a slow flower grows lower than the tallest tower",
    "she knows the newest songs and sings them slowly",
    "lowly towers, newer flowers: the widest rivers flow",
] * 5
# held out: words never seen, characters never seen (é, ü, 😀), a special token, a long word
HELD_OUT = [
    "the slowest grower knows lower towers",
    "café über 😀 flowering towerlessness",
    "",
    "new <|endoftext|> newt",
]
SPECIAL = "<|endoftext|>"


def encoded_tokens(tokenizer: Tokenizer, texts: list[str]) -> int:
    """Tokens of `texts` encoded one by one, less the added tokens written in them (the curve
    leaves those out; an unk token the model makes stays in)."""
    contents = [token.content for token in tokenizer.get_added_tokens_decoder().values()]
    total = 0
    for text in texts:
        total += len(tokenizer.encode(text, add_special_tokens=False).ids)
        for content in contents:
            total -= text.count(content)
    return total


def with_merges(tokenizer: Tokenizer, k: int) -> Tokenizer:
    """`tokenizer` with only its first k merges and the vocabulary they need."""
    model = tokenizer.model
    assert isinstance(model, BPE)
    made_later = set(model.merged_ids[k:]) - set(model.merged_ids[:k])
    vocab = {token: id for token, id in model.get_vocab().items() if id not in made_later}
    smaller = Tokenizer.from_str(tokenizer.to_str())
    smaller.model = BPE(
        vocab,
        model.merges[:k],
        unk_token=model.unk_token,
        continuing_subword_prefix=model.continuing_subword_prefix,
        end_of_word_suffix=model.end_of_word_suffix,
        fuse_unk=model.fuse_unk,
        byte_fallback=model.byte_fallback,
        ignore_merges=model.ignore_merges,
        end_of_word_symbol=model.end_of_word_symbol,
    )
    return smaller


def check_bpe_curve(tokenizer: Tokenizer, every: bool) -> SizeCurve:
    counts, characters = held_out_words(tokenizer, HELD_OUT)
    curve = bpe_curve(tokenizer, counts, characters)
    model = tokenizer.model
    assert isinstance(model, BPE)
    n = len(model.merges)
    assert n > 20
    assert len(curve.sizes) == n + 1
    ks = list(range(n + 1)) if every else sorted({0, 1, 2, 5, 10, n // 3, n // 2, n - 1, n})
    for k in ks:
        smaller = with_merges(tokenizer, k)
        assert curve.tokens[k] == encoded_tokens(smaller, HELD_OUT), f"k={k}"
        assert curve.sizes[k] == smaller.get_vocab_size(True), f"k={k}"
    assert curve.tokens[n] == encoded_tokens(tokenizer, HELD_OUT)
    assert all(a >= b for a, b in zip(curve.tokens, curve.tokens[1:])), "BPE's curve never rises"
    assert all(a < b for a, b in zip(curve.sizes, curve.sizes[1:]))
    assert curve.characters == sum(len(text) for text in HELD_OUT)
    assert curve.tokens_per_character[k] == curve.tokens[k] / curve.characters
    assert curve.exact
    return curve


# -- BPE: hand-checked ------------------------------------------------------------------------


def toy_bpe(
    merges: list[tuple[str, str]], alphabet: str, unk_token: str | None = None, ignore_merges: bool = False
) -> Tokenizer:
    """A BPE of these merges over `alphabet` (ids: the alphabet, the unk token, each new token)."""
    vocab: dict[str, int] = {}
    for ch in alphabet:
        vocab[ch] = len(vocab)
    if unk_token is not None:
        vocab[unk_token] = len(vocab)
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    tokenizer = Tokenizer(BPE(vocab, merges, unk_token=unk_token, ignore_merges=ignore_merges))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return tokenizer


def test_low_lower_lowest_by_hand() -> None:
    # low: l o w; lower: l o w e r; lowest: l o w e s t -> 14 tokens; lo and low each save one
    # a word, er one in lower, es and est one each in lowest.
    merges = [("l", "o"), ("lo", "w"), ("e", "r"), ("e", "s"), ("es", "t")]
    tokenizer = toy_bpe(merges, "elorstw")
    counts, characters = held_out_words(tokenizer, ["low lower lowest"])
    assert counts == {"low": 1, "lower": 1, "lowest": 1}
    curve = bpe_curve(tokenizer, counts, characters)
    assert curve.tokens == [14, 11, 8, 7, 6, 5]
    assert curve.sizes == [7, 8, 9, 10, 11, 12]
    assert curve.characters == 16
    assert curve.tokens_per_character == [14 / 16, 11 / 16, 8 / 16, 7 / 16, 6 / 16, 5 / 16]
    assert size_curve(tokenizer, counts, characters).tokens == curve.tokens


def test_overlapping_pairs_merge_left_to_right() -> None:
    # aaa -> aa a -> aaa; aaaaa -> aa aa a (leftmost first) -> aaaa a -> aaaaa: (aa, a) ranks
    # after (aa, aa), so it never sees the "aa a" of "aa aa a"
    merges = [("a", "a"), ("aa", "aa"), ("aa", "a"), ("aaaa", "a")]
    tokenizer = toy_bpe(merges, "a")
    counts, characters = held_out_words(tokenizer, ["aaa aaaaa"])
    curve = bpe_curve(tokenizer, counts, characters)
    # k=0: 3 + 5; k=1: aa a + aa aa a; k=2: aa a + aaaa a; k=3: aaa + aaaa a; k=4: aaa + aaaaa
    assert curve.tokens == [8, 5, 4, 3, 2]
    for k in range(5):
        assert curve.tokens[k] == encoded_tokens(with_merges(tokenizer, k), ["aaa aaaaa"])


def test_a_token_made_twice_is_not_global_rank_order() -> None:
    # "abcd": (b, c) first -> a bc d; (a, bc) at rank 4 makes abc, whose pair (abc, d) ranks 3:
    # the encoder still applies it, so the ranks applied are 0, 4, 3 and abcd is one token with
    # all five merges, three tokens with fewer than five.
    merges = [("b", "c"), ("a", "b"), ("ab", "c"), ("abc", "d"), ("a", "bc")]
    tokenizer = toy_bpe(merges, "abcd")
    counts, characters = held_out_words(tokenizer, ["abcd"])
    curve = bpe_curve(tokenizer, counts, characters)
    assert curve.tokens == [4, 3, 3, 3, 3, 1]
    assert curve.sizes == [4, 5, 6, 7, 8, 8]  # abc is in the vocabulary from k=3 on
    for k in range(6):
        assert curve.tokens[k] == encoded_tokens(with_merges(tokenizer, k), ["abcd"])
    # Applying each merge to the word in global rank order (as training does) gives 2 at k=5.
    assert global_rank_order(["a", "b", "c", "d"], merges) == ["abc", "d"]


def global_rank_order(symbols: list[str], merges: list[tuple[str, str]]) -> list[str]:
    for a, b in merges:
        out: list[str] = []
        i = 0
        while i < len(symbols):
            if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        symbols = out
    return symbols


@st.composite
def merge_lists(draw: st.DrawFn) -> list[tuple[str, str]]:
    """Merges of tokens that exist when they are made; a token may be made by two pairs."""
    tokens = ["a", "b", "c"]
    merges: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(0, 14))):
        a = draw(st.sampled_from(tokens))
        b = draw(st.sampled_from(tokens))
        if (a, b) in merges or len(a + b) > 6:
            continue
        merges.append((a, b))
        if a + b not in tokens:
            tokens.append(a + b)
    return merges


@settings(max_examples=150, deadline=None)
@given(merge_lists(), st.lists(st.text("abcx", min_size=1, max_size=9), min_size=1, max_size=6))
def test_random_merges_match_encoding_with_a_prefix(merges: list[tuple[str, str]], words: list[str]) -> None:
    tokenizer = toy_bpe(merges, "abc", unk_token="<unk>")  # x is unknown
    text = " ".join(words)
    counts, characters = held_out_words(tokenizer, [text])
    curve = bpe_curve(tokenizer, counts, characters)
    for k in range(len(merges) + 1):
        smaller = with_merges(tokenizer, k)
        assert curve.tokens[k] == encoded_tokens(smaller, [text]), f"k={k}"
        assert curve.sizes[k] == smaller.get_vocab_size(True)


def test_ignore_merges_counts_a_vocabulary_word_once_it_is_in_the_vocabulary() -> None:
    # low: (o, w) first -> l ow, and (l, ow) is no merge; ignore_merges makes it one token from
    # k=3, when low is in the vocabulary. lo: l o -> lo at k=2.
    merges = [("o", "w"), ("l", "o"), ("lo", "w")]
    tokenizer = toy_bpe(merges, "low", ignore_merges=True)
    counts, characters = held_out_words(tokenizer, ["low lo"])
    curve = bpe_curve(tokenizer, counts, characters)
    assert curve.tokens == [5, 4, 3, 2]
    for k in range(len(merges) + 1):
        assert curve.tokens[k] == encoded_tokens(with_merges(tokenizer, k), ["low lo"]), f"k={k}"
    tokenizer.model = BPE(tokenizer.model.get_vocab(), merges)
    assert bpe_curve(tokenizer, counts, characters).tokens == [5, 4, 3, 3]  # low stays l ow


# -- BPE: trained by the engine ---------------------------------------------------------------


def trained_bpe(
    pre_tokenizer: pre_tokenizers.PreTokenizer,
    model: BPE,
    trainer: BpeTrainer,
) -> Tokenizer:
    tokenizer = Tokenizer(model)
    tokenizer.pre_tokenizer = pre_tokenizer
    tokenizer.train_from_iterator(TRAINING, trainer)
    return tokenizer


def test_plain_bpe_every_k() -> None:
    tokenizer = trained_bpe(
        pre_tokenizers.Whitespace(),
        BPE(unk_token="[UNK]"),
        BpeTrainer(vocab_size=120, show_progress=False, special_tokens=["[UNK]", SPECIAL]),
    )
    curve = check_bpe_curve(tokenizer, every=True)
    model = tokenizer.model
    assert isinstance(model, BPE)
    assert curve.sizes[0] == tokenizer.get_vocab_size(True) - len(model.merges)


def test_byte_level_bpe() -> None:
    tokenizer = trained_bpe(
        pre_tokenizers.ByteLevel(add_prefix_space=False),
        BPE(),
        BpeTrainer(
            vocab_size=330,
            show_progress=False,
            special_tokens=[SPECIAL],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        ),
    )
    tokenizer.decoder = decoders.ByteLevel()
    curve = check_bpe_curve(tokenizer, every=False)
    assert curve.sizes[0] == 257  # the 256 bytes and the special token


def test_bpe_with_continuing_subword_prefix() -> None:
    tokenizer = trained_bpe(
        pre_tokenizers.Whitespace(),
        BPE(unk_token="[UNK]", continuing_subword_prefix="##"),
        BpeTrainer(vocab_size=150, show_progress=False, special_tokens=["[UNK]"], continuing_subword_prefix="##"),
    )
    check_bpe_curve(tokenizer, every=True)


def test_bpe_with_end_of_word_suffix() -> None:
    tokenizer = trained_bpe(
        pre_tokenizers.Whitespace(),
        BPE(unk_token="[UNK]", end_of_word_suffix="</w>"),
        BpeTrainer(vocab_size=150, show_progress=False, special_tokens=["[UNK]"], end_of_word_suffix="</w>"),
    )
    check_bpe_curve(tokenizer, every=True)


@pytest.mark.parametrize("ignore_merges", [False, True])
def test_bpe_with_a_separate_end_of_word_symbol(ignore_merges: bool) -> None:
    """`l o w </w>`: the curve replays `</w>` as a symbol of its own, as the model does."""
    tokenizer = trained_bpe(
        pre_tokenizers.Whitespace(),
        BPE(unk_token="[UNK]", end_of_word_suffix="</w>", ignore_merges=ignore_merges),
        BpeTrainer(
            vocab_size=150, show_progress=False, special_tokens=["[UNK]"], end_of_word_suffix="</w>",
            end_of_word_symbol=True,
        ),
    )
    model = tokenizer.model
    assert isinstance(model, BPE) and model.end_of_word_symbol
    assert any(right == "</w>" for _, right in model.merges)
    check_bpe_curve(tokenizer, every=True)


def test_sentencepiece_style_bpe_with_byte_fallback() -> None:
    trained = trained_bpe(
        pre_tokenizers.Metaspace(),
        BPE(unk_token="<unk>", fuse_unk=True, byte_fallback=True),
        BpeTrainer(vocab_size=140, show_progress=False, special_tokens=["<unk>"]),
    )
    model = trained.model
    assert isinstance(model, BPE)
    vocab = model.get_vocab()
    for byte in range(256):
        vocab[f"<0x{byte:02X}>"] = len(vocab)
    trained.model = BPE(vocab, model.merges, unk_token="<unk>", fuse_unk=True, byte_fallback=True)
    curve = check_bpe_curve(trained, every=False)
    # é, ü and 😀 fall back to their bytes at every size
    counts, characters = held_out_words(trained, ["😀"])
    assert bpe_curve(trained, counts, characters).tokens == [5] * len(curve.sizes)  # ▁ and four bytes


# -- WordPiece --------------------------------------------------------------------------------


def test_wordpiece_prefixes() -> None:
    tokenizer = Tokenizer(WordPiece(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(
        TRAINING, WordPieceTrainer(vocab_size=150, show_progress=False, special_tokens=["[UNK]", SPECIAL])
    )
    model = tokenizer.model
    assert isinstance(model, WordPiece)
    counts, characters = held_out_words(tokenizer, HELD_OUT)
    curve = wordpiece_curve(tokenizer, counts, characters, points=12)
    full = model.get_vocab_size()
    assert curve.sizes[-1] == full
    assert len(curve.sizes) == 12
    by_id = sorted(model.get_vocab().items(), key=lambda item: item[1])
    singles = [i for i, (token, _) in enumerate(by_id) if len(token.removeprefix("##")) == 1]
    assert curve.sizes[0] == max(singles) + 1  # the alphabet's end
    for size, tokens in zip(curve.sizes, curve.tokens):
        smaller = Tokenizer.from_str(tokenizer.to_str())
        smaller.model = WordPiece(dict(by_id[:size]), unk_token="[UNK]")
        assert tokens == encoded_tokens(smaller, HELD_OUT), f"size={size}"
    assert curve.tokens[-1] == encoded_tokens(tokenizer, HELD_OUT)
    assert curve.exact
    assert size_curve(tokenizer, counts, characters, points=12).tokens == curve.tokens


# -- Unigram ----------------------------------------------------------------------------------


def syllable_lines() -> list[str]:
    """300 lines of made-up words of 1-4 syllables: enough for Unigram's pruning to run."""
    rng = random.Random(0)
    syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "so", "vi", "der", "ing", "est", "pre", "un"]
    lines: list[str] = []
    for _ in range(300):
        words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(12)]
        lines.append(" ".join(words))
    return lines


def test_unigram_top_pieces() -> None:
    tokenizer = Tokenizer(Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.train_from_iterator(
        syllable_lines(),
        UnigramTrainer(vocab_size=60, show_progress=False, special_tokens=["<unk>"], unk_token="<unk>"),
    )
    model = tokenizer.model
    assert isinstance(model, Unigram)
    counts, characters = held_out_words(tokenizer, HELD_OUT)
    curve = unigram_curve(tokenizer, counts, characters, points=8)
    required = [piece for piece, _ in model.pieces if len(piece) == 1 or piece == "<unk>"]
    full = model.get_vocab_size()
    assert curve.sizes[0] == len(required)
    assert curve.sizes[-1] == full
    assert full == 60
    assert curve.tokens[-1] == encoded_tokens(tokenizer, HELD_OUT)
    assert not curve.exact
    assert curve.tokens[0] > curve.tokens[-1]
    chosen = unigram_curve(tokenizer, counts, characters, sizes=[40, 30, 30, 5, 1000])
    assert chosen.sizes == [30, 40, 60]  # below the required pieces or past the full size: left out
    assert chosen.tokens[-1] == curve.tokens[-1]
    # a point is the top pieces by score, encoded: check the size-40 one by hand
    pieces = model.pieces
    others = sorted((-score, i) for i, (piece, score) in enumerate(pieces) if piece not in required)
    kept_ids = {i for i, (piece, _) in enumerate(pieces) if piece in required}
    kept_ids |= {i for _, i in others[: 40 - len(required)]}
    kept = [pieces[i] for i in sorted(kept_ids)]
    smaller = Tokenizer.from_str(tokenizer.to_str())
    smaller.model = Unigram(kept, kept.index(("<unk>", pieces[model.unk_id or 0][1])))
    assert chosen.tokens[1] == encoded_tokens(smaller, HELD_OUT)


def round_steps(*phases: str) -> list[RoundStep]:
    """A run's rounds, numbered from 0 (only their numbers and phases matter to `rounds_curve`)."""
    return [RoundStep(index, phase, 0, 0, None) for index, phase in enumerate(phases)]


def test_unigram_rounds_by_hand() -> None:
    rounds = round_steps("seed", "EM", "prune", "finalize")
    # the EM round dropped no piece and the prune ten; round 2 is the latest at size 21
    points = [(0, 31, 90, 100), (1, 21, 95, 100), (2, 21, 94, 100), (3, 12, 120, 100)]
    curve = rounds_curve(rounds, points)
    assert curve is not None and curve.exact and curve.algorithm == "Unigram"
    assert (curve.sizes, curve.tokens, curve.rounds) == ([12, 21, 31], [120, 94, 90], [3, 2, 0])
    assert curve.tokens_per_character == [1.2, 0.94, 0.9]
    assert (curve.trained_index, curve.trained_size, curve.characters) == (0, 12, 100)
    # scaled: (0, 1), (9/19, 2/15), (1, 0); the middle point is .39 below the chord
    assert curve.knee_index == 1
    # a round left out for time is no gap in the curve, only a point fewer
    assert rounds_curve(rounds, [points[0], points[3]]) is not None


@pytest.mark.parametrize(
    "points",
    [
        [],
        [(0, 31, 90, 100), (2, 21, 94, 100)],  # the last round, the trained size, not measured
        [(0, 31, 90, 100), (4, 12, 120, 100)],  # a round the run did not make
        [(0, 31, 90, 100), (3, 12, 120, 99)],  # measured on another text
    ],
)
def test_unigram_rounds_that_make_no_curve(points: list[RoundPoint]) -> None:
    assert rounds_curve(round_steps("seed", "EM", "prune", "finalize"), points) is None


def test_unigram_rounds_measured_as_a_run_trains() -> None:
    """Each round's point is the held-out text encoded with the pieces the run holds then,
    uncut: its present pieces, the characters back in, the unk token; the last is the trained
    tokenizer's, and the curve runs from the trained size up through every size measured."""
    tokenizer = Tokenizer(Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    trainer = UnigramTrainer(vocab_size=60, show_progress=False, special_tokens=["<unk>"], unk_token="<unk>")
    counts = tokenizer.count_words_from_iterator(syllable_lines())
    characters_trained = {c for word in counts for c in word}
    run = trainer.start(counts)
    points: list[RoundPoint] = []
    held_counts: dict[str, int] = {}
    held_characters = 0
    while (step := run.step()) is not None:
        if not points:
            tokenizer.apply_training(trainer, run)  # (the special tokens added, as the training child does)
            held_counts, held_characters = held_out_words(tokenizer, HELD_OUT)
        size, tokens = round_point(tokenizer, run, held_counts)
        points.append((step.index, size, tokens, held_characters))
        # the tokenizer of that round, made by hand: every piece the run holds, the unk token, every character
        present = dict(run.pieces)
        pieces = run.round_pieces()
        assert {piece for piece, _ in pieces} == set(present) | characters_trained | {"<unk>"}
        assert all(score == present[piece] for piece, score in pieces if piece in present and piece != "<unk>")
        that_round = Tokenizer.from_str(tokenizer.to_str())
        that_round.model = Unigram(pieces, pieces.index(("<unk>", 0.0)))
        assert tokens == encoded_tokens(that_round, HELD_OUT)
        assert size == that_round.get_vocab_size(True) == len(pieces)
        if step.phase != "finalize":
            missing = characters_trained - set(present)
            assert size == step.vocab_size + 1 + len(missing)  # (the unk token and the characters the rounds dropped)
    trained = Tokenizer.from_str(tokenizer.to_str())
    history = trained.apply_training(trainer, run)
    assert points[-1][1] == history.rounds[-1].vocab_size == trained.get_vocab_size(True) == 60
    assert points[-1][2] == encoded_tokens(trained, HELD_OUT)
    assert held_characters == sum(len(text) for text in HELD_OUT)

    curve = rounds_curve(history.rounds, points)
    assert curve is not None and curve.exact
    assert curve.sizes == sorted({size for _, size, _, _ in points}) and curve.sizes[0] == 60
    assert curve.trained_index == 0 and curve.rounds[0] == history.rounds[-1].index
    assert curve.sizes[-1] == points[0][1] > 3 * 60  # the seed's pieces
    # at each size, the latest round there
    assert all(max(i for i, size, _, _ in points if size == curve.sizes[k]) == curve.rounds[k] for k in range(len(curve.sizes)))
    # the trained point is the approximate curve's full size: the same tokenizer
    approximate = unigram_curve(trained, *held_out_words(trained, HELD_OUT))
    assert (approximate.sizes[-1], approximate.tokens[-1]) == (curve.trained_size, curve.tokens[0])
    assert curve.tokens[-1] < curve.tokens[0]  # the seed's many pieces cut the text into fewer tokens


# -- the knee and the sizes -------------------------------------------------------------------


def test_knee_by_hand() -> None:
    # chord from (0, 1) to (1, 0) after scaling; gaps below it: 0, .35, .3, .15, 0
    assert knee([0, 1, 2, 3, 4], [10.0, 4.0, 2.0, 1.0, 0.0]) == 1
    # falls straight to x = 30, then flat: the corner
    assert knee(list(range(0, 110, 10)), [1.0, 2 / 3, 1 / 3] + [0.0] * 8) == 3
    # 1/x on 1..100: the knee is where the curve turns, near sqrt(100)
    sizes = list(range(1, 101))
    assert 7 <= sizes[knee(sizes, [1.0 / x for x in sizes])] <= 13
    # the knee does not move when either axis is scaled
    assert knee([s * 1000 for s in sizes], [50.0 / x for x in sizes]) == knee(sizes, [1.0 / x for x in sizes])


@pytest.mark.parametrize(
    ("sizes", "values"),
    [
        ([5], [1.0]),
        ([5, 6], [1.0, 0.5]),
        ([1, 2, 3, 4], [4.0, 3.0, 2.0, 1.0]),  # straight
        ([1, 2, 3, 4], [4.0, 3.9, 3.5, 1.0]),  # falls faster and faster
        ([1, 2, 3], [2.0, 2.0, 2.0]),  # flat
    ],
)
def test_no_knee_short_of_the_end(sizes: list[int], values: list[float]) -> None:
    assert knee(sizes, values) == len(sizes) - 1


def test_knee_needs_matching_lists() -> None:
    with pytest.raises(ValueError):
        knee([1, 2], [1.0])
    with pytest.raises(ValueError):
        knee([], [])


def test_spaced_sizes() -> None:
    assert spaced_sizes(10, 20, 3) == [10, 15, 20]
    assert spaced_sizes(5, 5, 60) == [5]
    assert spaced_sizes(7, 9, 60) == [7, 8, 9]
    assert spaced_sizes(100, 30_000, 60)[-1] == 30_000
    assert len(spaced_sizes(100, 30_000, 60)) == 60


def test_a_curve_s_trained_point() -> None:
    assert SizeCurve("BPE", [100, 200], [50, 40], 100, True).trained_index == 1
    assert SizeCurve("Unigram", [100, 200], [50, 40], 100, True, 0, [5, 0]).trained_size == 100
    with pytest.raises(ValueError):
        SizeCurve("Unigram", [100, 200], [50, 40], 100, True, 2)
    with pytest.raises(ValueError):
        SizeCurve("Unigram", [100, 200], [50, 40], 100, True, 0, [5])


def test_embedding_costs_follow_the_sizes() -> None:
    curve = SizeCurve("BPE", [100, 200], [50, 40], 100, True)
    costs = curve.embedding_costs(768, "fp32", tied=False)
    assert [cost.parameters for cost in costs] == [2 * 100 * 768, 2 * 200 * 768]
    assert [cost.bytes for cost in costs] == [4 * 2 * 100 * 768, 4 * 2 * 200 * 768]
    assert curve.tokens_per_character == [0.5, 0.4]
    assert curve.knee_index == 1
    assert curve.knee_size == 200


def test_held_out_text_without_words() -> None:
    tokenizer = toy_bpe([("a", "b")], "ab")
    counts, characters = held_out_words(tokenizer, ["", "   "])
    assert (counts, characters) == ({}, 3)
    curve = bpe_curve(tokenizer, counts, characters)
    assert curve.tokens == [0, 0]
    assert curve.tokens_per_character == [0.0, 0.0]
    assert curve.knee_index == 1


def test_a_model_without_a_curve() -> None:
    from engine.models.wordlevel.model import WordLevel

    tokenizer = Tokenizer(WordLevel({"a": 0, "[UNK]": 1}, unk_token="[UNK]"))
    with pytest.raises(ValueError, match="WordLevel"):
        size_curve(tokenizer, {"a": 1}, 1)
