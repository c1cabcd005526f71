"""Byte-pair encoding: the model (`model.py`) and its trainer (`trainer.py`)."""
