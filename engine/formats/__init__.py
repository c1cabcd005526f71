"""Readers and writers for tokenizer files (tokenizer.json, vocab.txt, merges.txt...)."""
