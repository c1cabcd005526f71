"""The `tokenizer-workbench` command line: the parser (`main`), a module per command, and
counting on a Dask cluster (`cluster`). Qt-free: `train`, `count`, `encode`, `inspect` and
`convert` run on a server with no Qt installed; only `screenshots` and the window load it.
"""
