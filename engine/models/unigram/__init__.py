"""Unigram (SentencePiece-style): the lattice (`lattice.py`), the model (`model.py`) and its trainer."""
