"""How numbers read in the window and on the command line: sizes, rates, durations; and the
one colour every error message in the window is written in.

`human_size(1_234_567)` -> "1.2 MB"; `duration(75)` -> "1 min 15 s". No Qt here.
"""

from __future__ import annotations

BYTE_UNITS = ("bytes", "B")
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


def quantity(value: float, unit: str) -> str:
    """A byte count as `human_size`, anything else as a grouped whole number."""
    return human_size(value) if unit in BYTE_UNITS else f"{value:,.0f}"


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest:02d} s"
