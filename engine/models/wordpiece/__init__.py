"""WordPiece: the greedy longest-match model (`model.py`)."""
