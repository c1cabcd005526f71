"""`tokenizer-workbench --self-test`: the installation checks itself headless
(`workbench.window.self_test`; Qt is loaded only when it runs)."""

from __future__ import annotations


def run() -> int:
    """Run the self-test; its exit status (0: every step passed)."""
    from workbench.window.self_test import run_self_test

    return run_self_test()
