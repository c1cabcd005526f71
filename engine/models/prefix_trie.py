"""Every prefix of every piece of a vocabulary, walked one character at a time: WordPiece's
longest match and the pieces a Unigram lattice finds at a position.

A trie: node 0 is the empty prefix; the edge from a node on a character leads to the node of
the prefix one character longer, and each node knows the id of the piece it spells (NO_PIECE
when it is only the start of longer pieces). The edges live in one open-addressing table of
unboxed ints, keyed by node and code point, so a step makes no string and hashes none: the dict
of every prefix as a string it replaces cost a new string, its hash and a lookup per character
walked, most of WordPiece's and Unigram's time.

    trie = PrefixTrie(); trie.add("ab", 7)
    trie.piece(trie.child(trie.child(ROOT, ord("a")), ord("b"))) -> 7
    trie.piece(trie.child(ROOT, ord("a"))) -> NO_PIECE;  trie.child(ROOT, ord("b")) -> NO_NODE
"""

from __future__ import annotations

from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

# The id of a node that spells no piece, only the start of longer ones.
NO_PIECE: Final = -1
# What `child` gives when no piece goes on with that character.
NO_NODE: Final = -1
# The empty prefix, where every walk starts.
ROOT: Final = 0
# Code points there are (0 .. 0x10FFFF): an edge's key is node * CODES + code point.
CODES: Final = 0x110000
# A free slot of the table (keys are never negative).
_FREE: Final = -1
_FIRST_SLOTS: Final = 64


class PrefixTrie:
    """The trie of a vocabulary's pieces (`add` each), read with `child` and `piece`."""

    # the edges: slot -> key (node * CODES + code point), or _FREE; and the child node there
    keys: vec[i64]
    children: vec[i64]
    mask: i64
    edges: i64
    # node -> the id of the piece it spells, or NO_PIECE
    pieces: vec[i64]
    # the longest piece added (in characters)
    longest: i64

    def __init__(self) -> None:
        self.keys = vec[i64]([_FREE] * _FIRST_SLOTS)
        self.children = vec[i64]([0] * _FIRST_SLOTS)
        self.mask = _FIRST_SLOTS - 1
        self.edges = 0
        self.pieces = vec[i64]([NO_PIECE])
        self.longest = 0

    def add(self, piece: str, id: i64) -> None:
        """`piece` spells `id` (a later add of the same piece wins). The empty piece is left
        out (HF's tries never report it)."""
        if not piece:
            return
        node: i64 = ROOT
        for k in range(len(piece)):
            code: i64 = ord(piece[k])
            child = self.child(node, code)
            if child == NO_NODE:
                child = len(self.pieces)
                self.pieces = append(self.pieces, NO_PIECE)
                self._insert(node * CODES + code, child)
            node = child
        self.pieces[node] = id
        if len(piece) > self.longest:
            self.longest = len(piece)

    def child(self, node: i64, code: i64) -> i64:
        """The node of `node`'s prefix followed by the character `code`, or NO_NODE when no
        piece starts so."""
        key = node * CODES + code
        keys = self.keys
        mask = self.mask
        slot = _slot(key) & mask
        while True:
            found = keys[slot]
            if found == key:
                return self.children[slot]
            if found == _FREE:
                return NO_NODE
            slot = (slot + 1) & mask

    def piece(self, node: i64) -> i64:
        """The id of the piece `node` spells, or NO_PIECE."""
        return self.pieces[node]

    def _insert(self, key: i64, child: i64) -> None:
        if (self.edges + 1) * 2 > len(self.keys):
            self._grow()
        keys = self.keys
        slot = _free_slot(keys, key, self.mask)
        keys[slot] = key
        self.children[slot] = child
        self.edges += 1

    def _grow(self) -> None:
        """Twice the slots (kept at most half full), every edge placed again."""
        old_keys = self.keys
        old_children = self.children
        size = len(old_keys) * 2
        keys = vec[i64]([_FREE] * size)
        children = vec[i64]([0] * size)
        mask: i64 = size - 1
        for k in range(len(old_keys)):
            key = old_keys[k]
            if key != _FREE:
                slot = _free_slot(keys, key, mask)
                keys[slot] = key
                children[slot] = old_children[k]
        self.keys = keys
        self.children = children
        self.mask = mask


def _free_slot(keys: vec[i64], key: i64, mask: i64) -> i64:
    """The first free slot of `keys` from where `key` hashes to (linear probing)."""
    slot = _slot(key) & mask
    while keys[slot] != _FREE:
        slot = (slot + 1) & mask
    return slot


def _slot(key: i64) -> i64:
    """`key` mixed so that its low bits spread over the table; never past 2**63 (no wrapping:
    the interpreted build computes the same slots)."""
    mixed = (key & 0xFFFFFFF) * 0x5BD1E995 + (key >> 28) * 0x1B873593
    return mixed ^ (mixed >> 29)
