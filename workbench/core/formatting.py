"""How numbers read in the window and on the command line: sizes, rates, durations, a
vocabulary size in a name; and the one colour every error message in the window is written in.

`human_size(1_234_567)` -> "1.2 MB"; `duration(75)` -> "1 min 15 s". No Qt here.
"""

from __future__ import annotations

BYTE_UNITS = ("bytes", "B")
# A megabyte, as `human_size` counts them.
MB = 1024 * 1024
ERROR_COLOR = "#c0392b"
ERROR_STYLE = f"color: {ERROR_COLOR};"


def human_size(size: float) -> str:
    """A byte count in B, KB, MB or GB (powers of 1024)."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size:.0f} B"


def short_size(size: int) -> str:
    """A vocabulary size as a tokenizer's name gives it: 8000 -> "8k", 8500 -> "8500"."""
    return f"{size // 1000}k" if size >= 1000 and size % 1000 == 0 else str(size)


def score(value: float) -> str:
    """A merge's score (WordPiece's ratio or likelihood gain) in one format for every row, so a column of
    them scans: 0.0005988 -> "5.988e-04", 6.016e-05 -> "6.016e-05"."""
    return f"{value:.3e}"


def sampled_text(sampled_lines: int, read_lines: int) -> str:
    """", sampled 5,000 of 40,000 lines" for a training that sampled its lines (a report's
    `sampled_lines`/`read_lines`), "" for one that read them all (sampled_lines 0)."""
    if not sampled_lines:
        return ""
    return f", sampled {sampled_lines:,} of {read_lines:,} lines"


def quantity(value: float, unit: str) -> str:
    """A byte count as `human_size`, anything else as a grouped whole number."""
    return human_size(value) if unit in BYTE_UNITS else f"{value:,.0f}"


def duration(seconds: float, tenths: bool = False) -> str:
    """42 -> "42 s"; with `tenths`, below 10 s: 0.64 -> "0.6 s" (a time taken, as the
    summaries give it; a time left is no more precise than whole seconds)."""
    if tenths and seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest:02d} s"
