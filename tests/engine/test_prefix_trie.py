"""`PrefixTrie`: what WordPiece's longest match and Unigram's lattices walk, against the plain
answer (every prefix of every piece as a string) on hand-made and random vocabularies."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.models.prefix_trie import NO_NODE, NO_PIECE, ROOT, PrefixTrie


def walk(trie: PrefixTrie, text: str) -> int:
    """The node `text` leads to from the root, or NO_NODE."""
    node = ROOT
    for char in text:
        node = int(trie.child(node, ord(char)))
        if node == NO_NODE:
            return NO_NODE
    return node


def plain_index(pieces: dict[str, int]) -> dict[str, int]:
    """Every prefix of every non-empty piece -> its id, or NO_PIECE when only a prefix."""
    index: dict[str, int] = {}
    for piece, id in pieces.items():
        for end in range(1, len(piece)):
            index.setdefault(piece[:end], NO_PIECE)
        if piece:
            index[piece] = id
    return index


def test_a_hand_made_vocabulary() -> None:
    trie = PrefixTrie()
    for id, piece in enumerate(["un", "unaff", "able", "", "\U0001f600x"]):
        trie.add(piece, id)
    assert trie.piece(walk(trie, "un")) == 0 and trie.piece(walk(trie, "unaff")) == 1
    assert trie.piece(walk(trie, "una")) == NO_PIECE  # (a prefix of "unaff", no piece)
    assert walk(trie, "unab") == NO_NODE and walk(trie, "b") == NO_NODE
    assert trie.piece(ROOT) == NO_PIECE  # (the empty piece is left out, as HF's tries leave it)
    assert trie.piece(walk(trie, "\U0001f600x")) == 4 and trie.longest == 5
    trie.add("un", 9)  # (a later add of the same piece wins, as a dict's would)
    assert trie.piece(walk(trie, "un")) == 9


# (a small alphabet makes shared prefixes; the wide chars, far code points and surrogates)
CHARS = st.sampled_from(list("abc") + ["\u00e9", "\u4e00", "\U0010ffff", "\U0001f600", "\ud800", "\x00"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(CHARS, max_size=6), max_size=60), st.lists(st.text(CHARS, max_size=7), max_size=30))
def test_every_prefix_and_nothing_else_is_found(pieces: list[str], probes: list[str]) -> None:
    """Hundreds of edges (the table grows several times): every prefix of every piece leads
    to a node with the right id; any other string leads nowhere."""
    vocabulary = {piece: id for id, piece in enumerate(pieces)}
    trie = PrefixTrie()
    for piece, id in vocabulary.items():
        trie.add(piece, id)
    index = plain_index(vocabulary)
    for text in list(index) + probes:
        node = walk(trie, text)
        if text in index:
            assert node != NO_NODE and trie.piece(node) == index[text]
        elif text:
            assert node == NO_NODE
    assert trie.longest == max((len(piece) for piece in vocabulary), default=0)
