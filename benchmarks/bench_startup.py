"""Start-up: from launching the command to a usable window (shown on the sample project, its
first events handled), for the pip install's `tokenizer-workbench` and for the desktop bundle
built by build_app.py, alternating between them, each run with a fresh settings folder (a new
user's first start: the sample project opens). Prints min / median / max of each and their ratio.

The window is offscreen unless --display is given (then it uses $DISPLAY, e.g. under Xvfb). The
time is stamped by the window itself (`TOKENIZER_WORKBENCH_STARTUP_PROBE`), which then closes.

    python benchmarks/bench_startup.py                         # the pip install beside this Python
    python benchmarks/bench_startup.py --bundle dist/tokenizer-workbench --runs 7
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE = "TOKENIZER_WORKBENCH_STARTUP_PROBE"


def one_start(command: list[str], display: bool) -> float:
    """Seconds from launching `command` to its window's report."""
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as home:
        environment = {**os.environ, PROBE: "1", "TOKENIZER_WORKBENCH_HOME": home}
        if not display:
            environment["QT_QPA_PLATFORM"] = "offscreen"
        began = time.time()
        finished = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=home, timeout=120, check=False)
        if finished.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed ({finished.returncode}): {finished.stderr.strip()[-2000:]}")
        lines = [line for line in finished.stdout.splitlines() if line.strip()]
        return float(lines[-1]) - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--command", default=str(Path(sys.executable).parent / "tokenizer-workbench"),
                        help="the pip install's command (default: %(default)s)")  # fmt: skip
    parser.add_argument("--bundle", type=Path, default=ROOT / "dist" / "tokenizer-workbench",
                        help="the bundle's folder, measured when it exists (default: %(default)s)")  # fmt: skip
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--display", action="store_true", help="use $DISPLAY instead of the offscreen platform")
    args = parser.parse_args()
    sides = {"pip install": [args.command]}
    if (args.bundle / "tokenizer-workbench").is_file():
        sides["desktop bundle"] = [str(args.bundle / "tokenizer-workbench")]
    else:
        print(f"(no bundle at {args.bundle}: build it with `python build_app.py`)")
    for command in sides.values():
        one_start(command, args.display)  # (a first start fills the OS's file cache)
    times: dict[str, list[float]] = {side: [] for side in sides}
    for _ in range(args.runs):
        for side, command in sides.items():
            times[side].append(one_start(command, args.display))
    print(f"load average {os.getloadavg()[0]:.1f}; {args.runs} starts each, alternating; "
          f"platform {'$DISPLAY' if args.display else 'offscreen'}")  # fmt: skip
    for side, seconds in times.items():
        print(f"{side:15} min {min(seconds):.2f} s, median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s")
    if len(times) == 2:
        ratio = statistics.median(times["desktop bundle"]) / statistics.median(times["pip install"])
        print(f"bundle / pip install (medians): {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
