"""`python -m workbench.cli`: the `tokenizer-workbench` command."""

from __future__ import annotations

import sys

from workbench.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
