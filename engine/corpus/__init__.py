"""Training corpora: what kind of input a path is and how to read it (`sources`), the words of
every line counted as HF counts them (`counting`, with `chunking` and the forked children of
`forked`), the `word<TAB>count` table format (`word_counts`), and whole corpora encoded to ids on
disk (`ids`, with `long_lines` for lines too long to hold whole). No training here.
"""
