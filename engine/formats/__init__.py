"""Readers and writers for tokenizer files, one module per format; every write is atomic (`files`).

- `files`: safe I/O shared by all: `read_text` (regular files only, at most 1 GiB),
  `write_text_atomically`, `write_texts_atomically` (several files as one change: all or none).
- `safe_json`: the one JSON reader: what serde_json refuses (too deep, NaN, out of range, lone
  surrogates) is an error naming the file.
- `tokenizer_json`: HF `tokenizer.json`, the whole pipeline.
- `vocab_files`: the plain files the models read and write (`vocab.json`, `vocab.txt`, `merges.txt`):
  one reader per file kind, errors naming the file and the line or token.
- `bert_vocab`: BERT `vocab.txt`, loaded with the BERT pipeline around it (HF's BertWordPieceTokenizer).
- `gpt2`: GPT-2 `vocab.json` + `merges.txt`, loaded with the byte-level pipeline when the vocabulary is
  byte-level (HF's ByteLevelBPETokenizer).
- `tiktoken`: tiktoken `.tiktoken` rank files and their JSON sidecar (pattern, special tokens), merges
  rebuilt from the ranks; `encoding_arguments` gives a `tiktoken.Encoding` equal to a tokenizer.
- `openai_encodings`: OpenAI's four rank files by SHA-256, with tiktoken's pattern and special tokens
  for each (what `tiktoken.load` uses for such a file without a sidecar).
- `sentencepiece` (with `protobuf`, `sentencepiece_proto`): SentencePiece `.model` files.
- `export_notes`: what a vocabulary-only export loses (the `write` functions return these notes).

Exporters return a list of notes (what the file cannot hold) and raise `TokenizerFileError` when
the tokenizer cannot be written in that format at all; nothing is written then.
"""
