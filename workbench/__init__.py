"""The Tokenizer Workbench application: the command line now, the PySide6 window later."""
