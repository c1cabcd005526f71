"""`python -m workbench`: the same as the `tokenizer-workbench` command (the window, with no arguments)."""

from __future__ import annotations

import sys

from workbench.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
