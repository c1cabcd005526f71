"""The workbench's analyses of a tokenizer: what a training will cost (`estimate`), a text
followed stage by stage and decoded back (`inspection`), rule-based baselines (`baselines`), and
the vocabulary as a table with each token's frequency and origin (`vocabulary`, `token_counts`),
what text costs over many texts and languages (`audit`), tokens per character at every
vocabulary size a training passed through (`size_curve`), the vocabulary's health (`vocab_health`)
and two vocabularies side by side (`vocab_compare`), and what a text is made of in Unicode terms,
with the ids each normal form of it gets (`unicode_report`, on the character facts of
`unicode_characters`), and an export's certificate: the written file read by the library that
owns its format, encoding a suite of texts as the exported tokenizer does (`certificate`, on the
two sides of `certificate_readers`), and how a model cuts one word, step by step: WordPiece's
lookups and BPE's merges (`encode_steps`), Unigram's lattice (`lattice_steps`), on the records
they share (`steps`).

The library never imports this package: training, loading and encoding work without it
(`tests/test_import_contracts.py`).
"""
