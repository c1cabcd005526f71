"""The Tokenizer Workbench application: the PySide6 window (`tokenizer-workbench [FILE]`), the
command line (`tokenizer-workbench train|count|encode|inspect|convert|screenshots`) and the
child processes they start. The tokenizers themselves are the engine's (`engine/`)."""
