"""Toy vocabularies a learner types for the Encode tab's Step Through page: a few lines make a
WordPiece, a Unigram or a BPE tokenizer to step through a word with. No Qt here; the encoding
process builds them (`workbench.jobs.children.encoding`).

The syntax, one kind per model (`SYNTAX` says it to the user; blank lines are skipped and a
line's spaces at either end do not count):
- WordPiece: one token per line; a token that goes on inside a word starts with `##`.
- Unigram: one piece per line, then a tab (or spaces), then its score, a log probability
  (`▁cat<TAB>-2.0`: higher is likelier). Pieces that start with `▁` mark a word's start, as in
  SentencePiece; when some piece has `▁`, each word is read with `▁` in front.
- BPE: one merge per line, in the order they were learned, two tokens with a space between
  (`l o`, then `lo w`); each token is one character or made by a merge above it. The
  vocabulary is the characters, then what each merge makes. (`#version` lines are skipped, so
  a GPT-2 merges.txt can be pasted.)
Each gets its unknown token (`[UNK]`, `<unk>`) as id 0 when it is not listed; the others follow
in line order. A word is the text between spaces, as typed. A line that does not fit raises
`ToyError` naming it: "line 3: ...".
"""

from __future__ import annotations

import math
from typing import Final

from engine import Tokenizer, models, pre_tokenizers

WORDPIECE: Final = "wordpiece"
UNIGRAM: Final = "unigram"
BPE: Final = "bpe"
# (kind, what the user reads), in the order the page offers them
KINDS: Final = ((WORDPIECE, "WordPiece"), (UNIGRAM, "Unigram"), (BPE, "BPE"))
WORDPIECE_UNK: Final = "[UNK]"
UNIGRAM_UNK: Final = "<unk>"
BPE_UNK: Final = "[UNK]"
WORD_START: Final = "▁"

SYNTAX: Final = {
    WORDPIECE: (
        "One token per line; a token that goes on inside a word starts with ##. [UNK] is added "
        "as id 0 unless you list it."
    ),
    UNIGRAM: (
        "One piece per line, a tab (or spaces), then its score: a log probability, higher is "
        "likelier (▁cat<TAB>-2.0). Pieces with ▁ mark a word's start, as in SentencePiece: with "
        "them, each word is read with ▁ in front. <unk> is added as id 0 unless you list it."
    ),
    BPE: (
        "One merge per line, in the order learned: two tokens with a space between (l o, then "
        "lo w); each is one character or made by a merge above. The vocabulary is the "
        "characters, then what each merge makes; other characters become [UNK]."
    ),
}
# What each kind shows first: a vocabulary and the word to step through with it (the textbook
# cases: playing -> play ##ing; ▁cats -> ▁cat s; lowest -> low est).
EXAMPLES: Final = {
    WORDPIECE: ("play\n##ing\n##ed\n##er\n##s\nun\n##aff\n##able\n", "playing"),
    UNIGRAM: (
        "▁\t-3.0\n▁c\t-5.0\n▁ca\t-6.0\n▁cat\t-2.0\nc\t-4.0\na\t-3.0\nt\t-3.5\ns\t-2.5\nat\t-4.0\nts\t-6.0\n",
        "cats",
    ),
    BPE: ("e s\nes t\nl o\nlo w\nn e\nne w\nnew est\nw i\nwi d\n", "lowest"),
}


class ToyError(ValueError):
    """A toy vocabulary that cannot be read; the message names the line."""


def toy_tokenizer(kind: str, text: str) -> Tokenizer:
    """The tokenizer a toy vocabulary makes (see the module for the syntax): its model, and a
    pre-tokenizer that cuts at spaces (Metaspace for a Unigram whose pieces mark word starts)."""
    if kind == WORDPIECE:
        tokenizer = Tokenizer(wordpiece(text))
    elif kind == UNIGRAM:
        model = unigram(text)
        tokenizer = Tokenizer(model)
        if any(piece.startswith(WORD_START) for piece, _ in model.pieces):
            tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
            return tokenizer
    elif kind == BPE:
        tokenizer = Tokenizer(bpe(text))
    else:
        raise ToyError(f"no toy vocabulary of kind {kind!r}: {', '.join(name for _, name in KINDS)}")
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return tokenizer


def lines(text: str) -> list[tuple[int, str]]:
    """The lines that count, with their numbers from 1: "a\\n\\n b \\n" -> [(1, "a"), (3, "b")]."""
    found: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped:
            found.append((number, stripped))
    return found


def wordpiece(text: str) -> models.WordPiece:
    """"play\\n##ing" -> WordPiece {[UNK]: 0, play: 1, ##ing: 2}."""
    seen: dict[str, int] = {}
    for number, token in lines(text):
        if len(token.split()) > 1:
            raise ToyError(f"line {number}: {token!r} holds a space; a WordPiece toy has one token per line")
        _check_new(token, number, seen, "token")
        seen[token] = number
    if not seen:
        raise ToyError("no token yet: type one token per line (play, then ##ing)")
    vocab = _with_unknown(WORDPIECE_UNK, list(seen))
    return models.WordPiece(vocab, unk_token=WORDPIECE_UNK)


def unigram(text: str) -> models.Unigram:
    """"▁cat\\t-2.0\\ns\\t-2.5" -> Unigram [(<unk>, 0.0), (▁cat, -2.0), (s, -2.5)], unk_id 0."""
    seen: dict[str, int] = {}
    pieces: list[tuple[str, float]] = []
    for number, line in lines(text):
        fields = line.rsplit(None, 1)
        if len(fields) != 2:
            raise ToyError(f"line {number}: {line!r} needs a score after the piece: piece<TAB>score, as ▁cat<TAB>-2.0")
        piece, written = fields[0].strip(), fields[1]
        if len(piece.split()) > 1:
            raise ToyError(f"line {number}: the piece {piece!r} holds a space; write piece<TAB>score, one a line")
        try:
            score = float(written)
        except ValueError:
            raise ToyError(f"line {number}: the score {written!r} of {piece!r} is not a number (a log probability, as -2.0)") from None
        if not math.isfinite(score):
            raise ToyError(f"line {number}: the score of {piece!r} must be a finite number, not {written!r}")
        _check_new(piece, number, seen, "piece")
        seen[piece] = number
        pieces.append((piece, score))
    if not pieces:
        raise ToyError("no piece yet: type one piece and its score per line (▁cat<TAB>-2.0)")
    if UNIGRAM_UNK not in seen:
        pieces.insert(0, (UNIGRAM_UNK, 0.0))
    unk_id = 0
    for index in range(len(pieces)):
        if pieces[index][0] == UNIGRAM_UNK:
            unk_id = index
    return models.Unigram(pieces, unk_id=unk_id)


def bpe(text: str) -> models.BPE:
    """"l o\\nlo w" -> BPE {[UNK]: 0, l: 1, o: 2, w: 3, lo: 4, low: 5} with merges (l, o), (lo, w)."""
    alphabet: dict[str, None] = {}
    made: dict[str, None] = {}
    merges: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for number, line in lines(text):
        if line.startswith("#version"):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ToyError(f"line {number}: {line!r} is not a merge: two tokens with a space between, as l o")
        for part in parts:
            if len(part) == 1:
                alphabet[part] = None
            elif part not in made:
                raise ToyError(f"line {number}: {part!r} is neither one character nor made by a merge above it")
        pair = f"{parts[0]} {parts[1]}"
        if pair in seen:
            raise ToyError(f"line {number}: the merge {pair!r} is already on line {seen[pair]}")
        seen[pair] = number
        merges.append((parts[0], parts[1]))
        made[parts[0] + parts[1]] = None
    if not merges:
        raise ToyError("no merge yet: type one merge per line (l o, then lo w)")
    tokens = list(alphabet)
    for token in made:
        if token not in alphabet:
            tokens.append(token)
    return models.BPE(_with_unknown(BPE_UNK, tokens), merges, unk_token=BPE_UNK)


def _check_new(token: str, number: int, seen: dict[str, int], thing: str) -> None:
    if token in seen:
        raise ToyError(f"line {number}: the {thing} {token!r} is already on line {seen[token]}")


def _with_unknown(unk: str, tokens: list[str]) -> dict[str, int]:
    """{unk: 0, then the tokens in order} (the tokens' order kept when they list `unk` themselves)."""
    ordered = tokens if unk in tokens else [unk, *tokens]
    return {token: index for index, token in enumerate(ordered)}
