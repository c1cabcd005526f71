"""Where a command's time goes inside the compiled engine: py-spy samples it with native frames
(mypyc's C functions, `CPyDef_<module>___<Class>___<method>`), and this prints the functions by
their share of the samples, on their own (self) and with what they call (inclusive).

cProfile cannot see inside compiled code; py-spy reads the stacks from outside. Issue 25's
changes were each decided by one of these profiles (benchmarks/peers.md).

    pip install py-spy          # a benchmark dependency (benchmarks/requirements-peers.txt)
    python benchmarks/native_profile.py -- python benchmarks/profile_peers.py --parts stages
    python benchmarks/native_profile.py --rate 400 --top 30 -- python my_training.py

py-spy needs permission to read the child's memory (root, or ptrace allowed for the user).
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tempfile
from pathlib import Path

# mypyc's name of a compiled function: CPyDef_<module path with ___>___<Class>___<method>
_COMPILED = re.compile(r"^CPyDef_(.*)$")


def readable(frame: str) -> str:
    """`CPyDef_pair_table___PairCounts___get (…)` -> `pair_table.PairCounts.get [compiled]`."""
    name = frame.split(" (", 1)[0]
    found = _COMPILED.match(name)
    if found is None:
        return name
    return found.group(1).replace("___", ".") + " [compiled]"


def shares(raw: str) -> tuple[int, collections.Counter[str], collections.Counter[str]]:
    """(samples, self samples by function, inclusive samples by function) of py-spy's raw
    (collapsed stacks) output: one "frame;frame;... count" line a distinct stack."""
    own: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        if not stack or not count.isdigit():
            continue
        samples = int(count)
        total += samples
        names = [readable(frame) for frame in stack.split(";")]
        own[names[-1]] += samples
        for name in set(names):
            inclusive[name] += samples
    return total, own, inclusive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=int, default=250, help="samples a second (default 250)")
    parser.add_argument("--top", type=int, default=25, help="functions to print in each list")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the command to profile")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to profile after --")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "stacks.txt"
        beside = Path(sys.executable).parent / "py-spy"  # (installed in this Python's environment)
        spy = str(beside) if beside.exists() else "py-spy"
        record = [spy, "record", "--native", "--rate", str(args.rate), "--format", "raw", "-o", str(out), "--", *command]
        try:
            done = subprocess.run(record, check=False)
        except FileNotFoundError:
            sys.exit("py-spy is not installed: pip install py-spy")
        if done.returncode != 0 or not out.exists():
            sys.exit(f"py-spy failed (exit {done.returncode})")
        total, own, inclusive = shares(out.read_text(encoding="utf-8"))
    print(f"{total} samples at {args.rate}/s")
    print("\nself (the function's own code):")
    for name, samples in own.most_common(args.top):
        print(f"  {samples / total:6.1%}  {name}")
    print("\ninclusive (with what it calls), compiled functions:")
    compiled = [(name, samples) for name, samples in inclusive.most_common() if name.endswith("[compiled]")]
    for name, samples in compiled[: args.top]:
        print(f"  {samples / total:6.1%}  {name}")


if __name__ == "__main__":
    main()
