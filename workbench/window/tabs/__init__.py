"""The window's tabs, one module each: Train (with Step by Step), Vocabulary, Encode, Compare."""
