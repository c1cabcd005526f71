"""WordLevel: a plain word -> id model (`model.py`) and its trainer (`trainer.py`)."""
