"""Every table in `engine.unicode_tables` equals what HF `tokenizers` does, on every code point.

The measurement is the tool that writes the module, .ci/unicode_tables.py (`--write` rewrites it,
`--check` says where it is stale); here it runs against the installed engine, one test per table.
"""

from __future__ import annotations

import importlib.util
from types import ModuleType

import pytest
import tokenizers

from engine import unicode_tables
from support import ROOT


def _tool() -> ModuleType:
    """.ci/unicode_tables.py, loaded by path (.ci is not a package)."""
    spec = importlib.util.spec_from_file_location("ci_unicode_tables", ROOT / ".ci" / "unicode_tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL = _tool()


@pytest.mark.parametrize("name", list(TOOL.TABLES))
def test_table_matches_reference(name: str) -> None:
    engine = getattr(unicode_tables, name)
    measured = TOOL.measure(name)
    assert engine == measured, TOOL.difference(name, engine, measured)


def test_a_stale_table_is_reported_by_its_first_differing_code_points() -> None:
    message = TOOL.difference("WHITESPACE", "9-d 20", "9-c 20 85")
    assert message.splitlines() == [
        f"WHITESPACE: 2 code points differ (- engine/unicode_tables.py, + tokenizers {tokenizers.__version__})",
        "- U+000D",
        "+ U+0085",
    ]
    assert TOOL.difference("SCRIPTS", "41-42:0", "41:0 42:1").splitlines()[1:] == [
        "- U+0042 class 0",
        "+ U+0042 class 1",
    ]
    assert TOOL.difference("LOWER_EXTRA", {0x1E9E: "ß"}, {}).splitlines()[1:] == ["- U+1E9E 'ß'"]
    assert TOOL.difference("NUMERIC", "30-39", "30-39") == ""
