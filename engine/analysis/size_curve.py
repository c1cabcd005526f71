"""Which vocabulary size? Tokens per character on held-out text at every size a trained tokenizer
passed through, from the one run, beside what each size costs in embeddings, with the knee marked.

BPE: every prefix of the merges, exactly, in one pass over the held-out words. WordPiece: prefixes
of the vocabulary in id order, at up to `points` sizes. Unigram: from a tokenizer alone, the top
pieces by score (an approximation, see `unigram_curve`); from a training measured after each round
(`round_point`), the sizes its rounds passed through, exactly (`rounds_curve`). No training and no
Qt here; the curve is drawn elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.analysis.audit import EmbeddingCost
from engine.errors import CorpusError
from engine.models.bpe.encoder import merge_all
from engine.models.bpe.model import BPE
from engine.models.unigram.model import Unigram
from engine.models.unigram.training_run import UnigramTrainingRun
from engine.models.wordpiece.model import WordPiece
from engine.tokenizer import Tokenizer
from engine.trainers.records import RoundStep

# How many sizes WordPiece and Unigram curves are measured at (each costs one pass over the words).
DEFAULT_POINTS: Final = 60

# A Unigram training's round measured on held-out text (`round_point`): (the round's index, the
# vocabulary size of the tokenizer it held, the tokens that cut the held-out words into, the
# held-out characters).
RoundPoint = tuple[int, int, int, int]


class SizeCurve:
    """The trade-off curve: at `sizes[i]` vocabulary entries, the held-out text takes `tokens[i]`
    tokens, `tokens_per_character[i]` per character of its `characters`.

    `sizes` never fall (a BPE merge that makes a token some earlier merge made adds no entry);
    `knee_index` is the point `knee` picks, `trained_index` the trained tokenizer's own point
    (the last, but for a Unigram run's rounds, which pass through larger sizes: the first).
    `exact` is False where the other tokenizers are an approximation (Unigram's top pieces by
    score), True where each point is what encoding with that tokenizer gives. `rounds`: for a
    Unigram run's rounds (`rounds_curve`), the round each point was measured after; else empty.
    Added tokens (special tokens) found in the text are in no count: they are the same tokens at
    every size.
    """

    algorithm: str
    sizes: list[int]
    tokens: list[int]
    characters: int
    tokens_per_character: list[float]
    knee_index: int
    trained_index: int
    exact: bool
    rounds: list[int]

    def __init__(
        self,
        algorithm: str,
        sizes: list[int],
        tokens: list[int],
        characters: int,
        exact: bool,
        trained_index: int = -1,
        rounds: list[int] | None = None,
    ) -> None:
        if len(sizes) != len(tokens) or not sizes:
            raise ValueError(f"a curve needs as many sizes as token counts, at least one: {len(sizes)}, {len(tokens)}")
        if not -len(sizes) <= trained_index < len(sizes) or (rounds is not None and rounds and len(rounds) != len(sizes)):
            raise ValueError(f"a curve's trained point and rounds must be among its {len(sizes)} sizes")
        self.algorithm = algorithm
        self.sizes = sizes
        self.tokens = tokens
        self.characters = characters
        per_character: list[float] = []
        for count in tokens:
            per_character.append(count / characters if characters > 0 else 0.0)
        self.tokens_per_character = per_character
        self.knee_index = knee(sizes, per_character)
        self.trained_index = trained_index % len(sizes)
        self.exact = exact
        self.rounds = list(rounds) if rounds is not None else []

    @property
    def knee_size(self) -> int:
        return self.sizes[self.knee_index]

    @property
    def trained_size(self) -> int:
        return self.sizes[self.trained_index]

    def embedding_costs(self, hidden: int, dtype: str = "bf16", tied: bool = True) -> list[EmbeddingCost]:
        """What each size's embedding costs a model of `hidden` width (`audit.EmbeddingCost`)."""
        costs: list[EmbeddingCost] = []
        for size in self.sizes:
            costs.append(EmbeddingCost(size, hidden, dtype, tied))
        return costs

    def __repr__(self) -> str:
        return (
            f"SizeCurve({self.algorithm}, {len(self.sizes)} sizes {self.sizes[0]}..{self.sizes[-1]}, "
            f"knee at {self.knee_size}, exact={self.exact})"
        )


def knee(sizes: Sequence[int], values: Sequence[float]) -> int:
    """The index of the knee: Kneedle's point, the one farthest below the chord from the first
    point to the last once both axes are scaled to [0, 1] (for a falling curve that flattens, where
    more vocabulary starts to buy little). A curve never below its chord (straight, or falling
    faster and faster) has no knee short of its end: the last index. Ties go to the smaller size.

    sizes [0, 1, 2, 3, 4], values [10, 4, 2, 1, 0] -> 1 (gaps below the chord 0, .35, .3, .15, 0)
    """
    n = len(sizes)
    if n != len(values) or n == 0:
        raise ValueError(f"knee needs as many sizes as values, at least one: {n}, {len(values)}")
    if n < 3:
        return n - 1
    x0 = float(sizes[0])
    x_span = float(sizes[n - 1]) - x0
    low = values[0]
    high = values[0]
    for value in values:
        if value < low:
            low = value
        if value > high:
            high = value
    y_span = high - low
    if x_span <= 0.0 or y_span <= 0.0:
        return n - 1
    first = (values[0] - low) / y_span
    last = (values[n - 1] - low) / y_span
    best = n - 1
    best_gap = 0.0
    for i in range(n):
        x = (float(sizes[i]) - x0) / x_span
        y = (values[i] - low) / y_span
        # subtle: with the chord fixed, the vertical gap is the distance to it times a constant.
        gap = first + (last - first) * x - y
        if gap > best_gap + 1e-12:
            best_gap = gap
            best = i
    return best


def held_out_words(tokenizer: Tokenizer, texts: Sequence[str]) -> tuple[dict[str, int], int]:
    """(word counts, characters) of held-out texts: each text split whole into words by the
    tokenizer's added tokens, normalizer and pre-tokenizer, as training counts them
    (`Tokenizer.count_words_from_iterator`), and the texts' length in characters.

    Texts without a word give no counts (every curve is then 0 tokens). For files,
    `tokenizer.count_words(files)` gives the counts; the characters are the caller's.
    """
    characters = 0
    for text in texts:
        characters += len(text)
    try:
        return tokenizer.count_words_from_iterator(list(texts)), characters
    except CorpusError:
        # subtle: counting for a training refuses texts without a word; held out, they are no error.
        return {}, characters


def size_curve(
    tokenizer: Tokenizer,
    word_counts: dict[str, int],
    characters: int,
    points: int = DEFAULT_POINTS,
    unigram_sizes: Sequence[int] | None = None,
) -> SizeCurve:
    """The curve for whichever model `tokenizer` has: `bpe_curve`, `wordpiece_curve` or `unigram_curve`."""
    model = tokenizer.model
    if isinstance(model, BPE):
        return bpe_curve(tokenizer, word_counts, characters)
    if isinstance(model, WordPiece):
        return wordpiece_curve(tokenizer, word_counts, characters, points)
    if isinstance(model, Unigram):
        return unigram_curve(tokenizer, word_counts, characters, points, unigram_sizes)
    raise ValueError(f"no size curve for a {type(model).__name__} model: BPE, WordPiece and Unigram have one")


def bpe_curve(tokenizer: Tokenizer, word_counts: dict[str, int], characters: int) -> SizeCurve:
    """Tokens at every k from 0 to len(merges): the held-out words encoded with the model's first
    k merges (`model.merges[:k]`, the distinct merges in rank order), exactly, in one pass.

    The vocabulary at k is the one a tokenizer with `merges[:k]` needs, as HF's
    `get_vocab_size()` counts it: every model token no merge makes (special tokens, the
    alphabet, byte or `<0xNN>` tokens, the unk token), the distinct tokens that the first k
    merges make, and the added tokens outside the model's vocabulary. For a trained model without
    repeated tokens that is `vocab_size - len(merges) + k`.

    How one pass gives every k: BPE encodes a word by applying, again and again, the lowest-ranked
    merge present in it (leftmost first). With only the first k merges it makes the same choices
    for as long as the lowest rank present is below k, then stops. So each word is encoded once
    with all the merges, noting the rank of each merge applied; the j-th merge happens with the
    first k merges iff every rank up to it is below k, i.e. iff k > the running maximum of the
    ranks so far. A word's count drops by one at k = running maximum + 1 for each merge.
    Applying merge k to every word in global rank order (as training does) is NOT the same in
    general: a token made by two merges (HF's trainer makes some) can form, at a late rank, a
    pair whose merge ranks earlier, which the encoder then still applies; the running maximum
    keeps that (tests/engine/test_size_curve.py has the case).

    Dropout is ignored (the curve is of the deterministic encoding). With `ignore_merges`, a
    word that is a vocabulary token is that one token from the first k whose vocabulary has it.
    """
    model = tokenizer.model
    if not isinstance(model, BPE):
        raise ValueError(f"bpe_curve needs a BPE model, not {type(model).__name__}")
    vocab = model.get_vocab()
    merges = model.merges
    made = model.merged_ids
    n_merges = len(merges)
    stride = 1
    for id in vocab.values():
        if id >= stride:
            stride = id + 1
    ranks: dict[int, int] = {}
    for rank in range(n_merges):
        a, b = merges[rank]
        ranks[vocab[a] * stride + vocab[b]] = rank
    # first_made[id]: the first rank that makes token id (n_merges: no merge makes it)
    first_made = [n_merges] * stride
    for rank in range(n_merges):
        id = made[rank]
        if first_made[id] == n_merges:
            first_made[id] = rank
    base = BPE(
        vocab,
        [],
        cache_capacity=0,
        unk_token=model.unk_token,
        continuing_subword_prefix=model.continuing_subword_prefix,
        end_of_word_suffix=model.end_of_word_suffix,
        fuse_unk=model.fuse_unk,
        byte_fallback=model.byte_fallback,
        end_of_word_symbol=model.end_of_word_symbol,
    )
    added = _added_contents(tokenizer)
    prefix = model.continuing_subword_prefix
    suffix = model.end_of_word_suffix
    # with the end-of-word symbol, a word ends in `</w>` on its own (and is whole as `low</w>`)
    separate = model.end_of_word_symbol
    ignore_merges = model.ignore_merges
    # drops[r]: tokens saved from k = r + 1 on
    drops = [0] * (n_merges + 1)
    start_total = 0
    for word, count in word_counts.items():
        if word in added:
            continue
        whole = n_merges + 1  # the first k at which the word is one vocabulary token
        if ignore_merges:
            found = vocab.get(word + suffix if separate and suffix is not None else word)
            if found is not None:
                whole = first_made[found] + 1 if first_made[found] < n_merges else 0
        if whole == 0:
            start_total += count
            continue
        ids = _plain_symbols(word, vocab, prefix, suffix, separate)
        if ids is None:
            ids = base.tokenize_run(word).ids
        start_total += count * len(ids)
        left = len(ids)
        for highest in _merge_thresholds(ids, ranks, made, stride):
            if highest + 1 >= whole:
                break
            drops[highest] += count
            left -= 1
        if whole <= n_merges:
            # from k = whole on the word is one token: its `left` tokens drop to 1
            drops[whole - 1] += count * (left - 1)
    extra = tokenizer.get_vocab_size(True) - len(vocab)
    size = extra
    for id in vocab.values():
        if first_made[id] == n_merges:
            size += 1
    new_at = [0] * (n_merges + 1)
    for id in range(stride):
        if first_made[id] < n_merges:
            new_at[first_made[id]] += 1
    sizes: list[int] = []
    tokens: list[int] = []
    total = start_total
    for k in range(n_merges + 1):
        if k > 0:
            total -= drops[k - 1]
            size += new_at[k - 1]
        sizes.append(size)
        tokens.append(total)
    return SizeCurve("BPE", sizes, tokens, characters, True)


def wordpiece_curve(
    tokenizer: Tokenizer, word_counts: dict[str, int], characters: int, points: int = DEFAULT_POINTS
) -> SizeCurve:
    """Tokens with the first n vocabulary entries in id order, at up to `points` sizes evenly
    spaced from the alphabet's end to the full vocabulary (the full one always among them).

    Id order is creation order for a trained WordPiece (special tokens, the alphabet, the
    ##-characters, then each merge's token), so the first n entries are the vocabulary the
    training had after n minus the alphabet's merges. The alphabet's end is the first n whose
    entries hold every single character and ##-character of the vocabulary; below it, words fall
    to [UNK] and the count says nothing. (A vocab.txt not in creation order, such as BERT's with
    its ##-characters last, has no smaller prefix: its curve is its full size alone.)
    The unk token is kept at every size. Greedy longest match has no shortcut from one size to
    the next: each size encodes the distinct held-out words once.
    The vocabulary size is the entries kept plus the added tokens outside the model's vocabulary.
    """
    model = tokenizer.model
    if not isinstance(model, WordPiece):
        raise ValueError(f"wordpiece_curve needs a WordPiece model, not {type(model).__name__}")
    vocab = model.get_vocab()
    by_id: list[tuple[int, str]] = []
    for token, id in vocab.items():
        by_id.append((id, token))
    by_id.sort()
    prefix = model.continuing_subword_prefix
    alphabet_end = 1
    for i in range(len(by_id)):
        token = by_id[i][1]
        if len(token) == 1 or (len(token) == len(prefix) + 1 and token.startswith(prefix)):
            alphabet_end = i + 1
    words = _model_words(tokenizer, word_counts)
    extra = tokenizer.get_vocab_size(True) - len(vocab)
    unk = model.unk_token
    unk_id = vocab.get(unk)
    sizes: list[int] = []
    tokens: list[int] = []
    for n in spaced_sizes(alphabet_end, len(by_id), points):
        kept: dict[str, int] = {}
        for i in range(n):
            id, token = by_id[i]
            kept[token] = id
        if unk_id is not None:
            kept[unk] = unk_id
        limited = WordPiece.owning(kept, unk, model.max_input_chars_per_word, prefix)
        total = 0
        for word, count in words:
            total += count * len(limited.tokenize_run(word).ids)
        sizes.append(len(kept) + extra)
        tokens.append(total)
    return SizeCurve("WordPiece", sizes, tokens, characters, True)


def unigram_curve(
    tokenizer: Tokenizer,
    word_counts: dict[str, int],
    characters: int,
    points: int = DEFAULT_POINTS,
    sizes: Sequence[int] | None = None,
) -> SizeCurve:
    """Tokens with the pieces that score highest, at `sizes` or at up to `points` sizes evenly
    spaced; the full vocabulary always among them. Not exact (`SizeCurve.exact` False).

    An approximation, said plainly. A Unigram training shrinks a large seed vocabulary down to
    the trained size, so the sizes its pruning rounds pass through are all larger than the
    trained one, and the run records each round's size, not its pieces: the rounds cannot give
    the smaller sizes. Here a point is "this model's top-n pieces by score", scores as trained;
    a training to that size would prune by loss of likelihood, re-scoring with EM between rounds,
    and could keep other pieces.
    Every size keeps the unk piece, the special (added) tokens, every single-character piece and,
    with byte fallback, the `<0xNN>` pieces, as SentencePiece keeps its required characters;
    the smallest size is those alone. The vocabulary size is the pieces kept plus the added
    tokens outside the model's vocabulary.
    """
    model = tokenizer.model
    if not isinstance(model, Unigram):
        raise ValueError(f"unigram_curve needs a Unigram model, not {type(model).__name__}")
    pieces = model.pieces
    added = _added_contents(tokenizer)
    required = [False] * len(pieces)
    ranked: list[tuple[float, int]] = []
    n_required = 0
    for i in range(len(pieces)):
        piece = pieces[i][0]
        if (
            i == model.unk_id
            or piece in added
            or len(piece) == 1
            or (model.byte_fallback and _is_byte_piece(piece))
        ):
            required[i] = True
            n_required += 1
        else:
            ranked.append((-pieces[i][1], i))
    ranked.sort()
    full = len(pieces)
    chosen: list[int] = []
    if sizes is None:
        chosen = spaced_sizes(n_required, full, points)
    else:
        for size in sorted(set(sizes)):
            if n_required <= size < full:
                chosen.append(size)
        chosen.append(full)
    words = _model_words(tokenizer, word_counts)
    extra = tokenizer.get_vocab_size(True) - model.get_vocab_size()
    result_sizes: list[int] = []
    tokens: list[int] = []
    for n in chosen:
        keep = list(required)
        for j in range(n - n_required):
            keep[ranked[j][1]] = True
        kept: list[tuple[str, float]] = []
        unk_id: int | None = None
        for i in range(full):
            if keep[i]:
                if i == model.unk_id:
                    unk_id = len(kept)
                kept.append(pieces[i])
        limited = Unigram(kept, unk_id, model.byte_fallback)
        total = 0
        for word, count in words:
            total += count * len(limited.tokenize_run(word).ids)
        result_sizes.append(len(kept) + extra)
        tokens.append(total)
    return SizeCurve("Unigram", result_sizes, tokens, characters, False)


def round_point(tokenizer: Tokenizer, run: UnigramTrainingRun, word_counts: dict[str, int]) -> tuple[int, int]:
    """(vocabulary size, tokens) of held-out words under the tokenizer `run` holds after its
    latest round: `tokenizer`'s Unigram model filled with `run.round_pieces()` (every piece the
    run holds, not cut to the trained size), its size counted as the other curves count theirs
    (`get_vocab_size(True)`: the pieces and the added tokens outside them), the words encoded as
    `unigram_curve` encodes them (the added tokens cut out of the text left out).

    `tokenizer` is the one the run trains with the trainer's special tokens added (one
    `apply_training` adds them; they cut the text into words: `held_out_words`). Its model is
    left holding the round's pieces. After the last round this is the trained tokenizer's size
    and its tokens: the trained point of `rounds_curve`.
    """
    model = tokenizer.model
    if not isinstance(model, Unigram):
        raise ValueError(f"round_point needs a Unigram model, not {type(model).__name__}")
    model.set_pieces(run.round_pieces(), run.unk_id())
    tokens = 0
    for word, count in _model_words(tokenizer, word_counts):
        tokens += count * len(model.tokenize_run(word).ids)
    return tokenizer.get_vocab_size(True), tokens


def rounds_curve(rounds: Sequence[RoundStep], points: Sequence[RoundPoint]) -> SizeCurve | None:
    """A Unigram run's exact curve: held-out tokens at the vocabulary sizes its rounds passed
    through (`round_point` after each round: the seed's many pieces, pruned round by round, down
    to the trained size, the last round's). A point per distinct size, sorted by size, from the
    latest round measured at that size (an EM round re-scores the pieces without changing their
    number, or drops a few: the latest has the scores the run went on with); `trained_index` is
    the last round's point. Exact: each point is what encoding with the tokenizer of that round
    gives.

    None when the points cannot make that curve: none at the run's last round (the trained size
    unmeasured: a training measured before rounds were, or stepped by hand), a point of a round
    the run did not make, or points measured on different texts.

    rounds seed 0, EM 1, prune 2, finalize 3; points (0, 31, 90, 100), (1, 21, 95, 100),
    (2, 21, 94, 100), (3, 12, 120, 100) -> sizes [12, 21, 31], tokens [120, 94, 90], rounds [3, 2, 0]
    """
    if not rounds or not points:
        return None
    made: set[int] = set()
    for step in rounds:
        made.add(step.index)
    last = rounds[len(rounds) - 1].index
    characters = points[0][3]
    # size -> (round, tokens) of the latest round measured at that size
    latest: dict[int, tuple[int, int]] = {}
    for index, size, tokens, measured in points:
        if index not in made or measured != characters:
            return None
        found = latest.get(size)
        if found is None or found[0] < index:
            latest[size] = (index, tokens)
    sizes = sorted(latest)
    trained = -1
    tokens_at: list[int] = []
    measured_after: list[int] = []
    for i in range(len(sizes)):
        index, tokens = latest[sizes[i]]
        if index == last:
            trained = i
        tokens_at.append(tokens)
        measured_after.append(index)
    if trained < 0:
        return None
    return SizeCurve("Unigram", sizes, tokens_at, characters, True, trained, measured_after)


def spaced_sizes(smallest: int, largest: int, points: int) -> list[int]:
    """Up to `points` sizes from `smallest` to `largest`, evenly spaced, both ends included.

    (10, 20, 3) -> [10, 15, 20]; (5, 5, 60) -> [5]; (7, 9, 60) -> [7, 8, 9]
    """
    if smallest >= largest or points < 2:
        return [largest]
    sizes: list[int] = []
    span = largest - smallest
    for i in range(points):
        size = smallest + span * i // (points - 1)
        if not sizes or size > sizes[-1]:
            sizes.append(size)
    return sizes


def _added_contents(tokenizer: Tokenizer) -> set[str]:
    contents: set[str] = set()
    for token in tokenizer.get_added_tokens_decoder().values():
        contents.add(token.content)
    return contents


def _model_words(tokenizer: Tokenizer, word_counts: dict[str, int]) -> list[tuple[str, int]]:
    """The held-out words the model encodes: all but the added tokens cut out of the text."""
    added = _added_contents(tokenizer)
    words: list[tuple[str, int]] = []
    for word, count in word_counts.items():
        if word not in added:
            words.append((word, count))
    return words


def _is_byte_piece(piece: str) -> bool:
    """"<0x0A>" -> True, "<0xZZ>" and "<0x0A" -> False"""
    if len(piece) != 6 or not piece.startswith("<0x") or not piece.endswith(">"):
        return False
    for ch in piece[3:5]:
        if ch not in "0123456789ABCDEF":
            return False
    return True


def _plain_symbols(
    word: str, vocab: dict[str, int], prefix: str | None, suffix: str | None, separate: bool = False
) -> list[int] | None:
    """The word's initial BPE symbols when every character is in the vocabulary (with the
    continuing prefix after the first, the end-of-word suffix on the last, as the model forms
    them; with `separate`, the suffix as a symbol of its own after the last); None when one is
    not: unknown characters and byte fallback are the model's to split.

    "low" with {l, ##o, ##w} and prefix "##" -> [id(l), id(##o), id(##w)]; "lo!" -> None;
    "low" with {l, o, w, </w>}, suffix "</w>" and `separate` -> [id(l), id(o), id(w), id(</w>)]
    """
    ids: list[int] = []
    last = len(word) - 1
    for i in range(len(word)):
        symbol = word[i]
        if i > 0 and prefix is not None:
            symbol = prefix + symbol
        if i == last and suffix is not None and not separate:
            symbol = symbol + suffix
        found = vocab.get(symbol)
        if found is None:
            return None
        ids.append(found)
    if separate and suffix is not None:
        found = vocab.get(suffix)
        if found is None:
            return None
        ids.append(found)
    return ids


def _merge_thresholds(ids: list[int], ranks: dict[int, int], made: list[int], stride: int) -> list[int]:
    """For each merge BPE applies to `ids`, in order, the least k - 1 with which the first k
    merges still apply it: the model's own merge loop (`merge_all`, without dropout), recording.

    [a, b, c] with ranks {(b, c): 0, (a, bc): 1} -> [0, 1]; [a, a, a] with {(a, a): 0} -> [0]
    """
    thresholds: list[int] = []
    if len(ids) < 2:
        return thresholds
    merge_all(list(ids), [1] * len(ids), ranks, made, stride, 0.0, thresholds)
    return thresholds
