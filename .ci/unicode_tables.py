"""Measures each character table of `engine/unicode_tables.py` from the installed HF `tokenizers`.

Every code point goes through the reference library (its Rust std, `regex` crate, Oniguruma and the
`unicode_categories` / `unicode_normalization_alignments` crates, each at its own Unicode version).
`--write` rewrites engine/unicode_tables.py from the measurement; `--check` exits 1, naming each
table that differs and its first differing code points. It does not look at the engine's own code:
tests/parity/test_unicode_tables_parity.py compares the installed engine's tables with `measure`.

    python .ci/unicode_tables.py --write
    python .ci/unicode_tables.py --check
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Final, Literal, Union

import tokenizers
from tokenizers import Regex, normalizers, pre_tokenizers

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "engine" / "unicode_tables.py"

# A range spec ("9-d 20", or SCRIPTS' "41-5a:0"), or a case table's code point -> mapping.
Table = Union[str, dict[int, str]]

ALL: list[str] = [chr(i) for i in range(0x110000) if not 0xD800 <= i < 0xE000]

# Code points per call. HF keeps an alignment for every byte of a string it normalizes or splits,
# and its time per char grows with the string: ~5 us a char in one string of all of them, ~0.5 us
# in strings of 1024 (256 to 2048 are as fast). With CHUNK = 1, one code point per call, every table
# comes out the same.
CHUNK: Final = 1024


def framed(chars: list[str], filler: str) -> Iterator[tuple[list[str], str]]:
    """`chars` CHUNK at a time, each chunk with its text `filler c filler c ... filler` (so every
    char has the same two neighbours, whatever the chunk): `(["x", "y"], "axaya")` for filler "a"."""
    assert len(filler) == 1  # subtle: char k of a chunk is at index 2k + 1 of its text
    for start in range(0, len(chars), CHUNK):
        chunk = chars[start : start + CHUNK]
        yield chunk, filler + filler.join(chunk) + filler


def _covered(pieces: list[tuple[str, tuple[int, int]]], length: int) -> bytearray:
    kept = bytearray(length)
    for _, (start, end) in pieces:
        kept[start:end] = b"\x01" * (end - start)
    return kept


def removed_by(pre_tokenizer: pre_tokenizers.PreTokenizer, filler: str) -> set[int]:
    """Chars c that `pre_tokenizer` drops from `filler c filler c ... filler`."""
    out: set[int] = set()
    for _, text in framed(ALL, filler):
        kept = _covered(pre_tokenizer.pre_tokenize_str(text), len(text))
        i = kept.find(0)
        while i >= 0:
            out.add(ord(text[i]))
            i = kept.find(0, i + 1)
    return out


def isolated_by(pre_tokenizer: pre_tokenizers.PreTokenizer, filler: str) -> set[int]:
    """Chars c that `pre_tokenizer` puts in a piece of their own inside `filler c filler ...`."""
    out: set[int] = set()
    for _, text in framed(ALL, filler):
        for _, (start, end) in pre_tokenizer.pre_tokenize_str(text):
            if end - start == 1 and text[start] != filler:
                out.add(ord(text[start]))
    return out


def per_char(normalize: Callable[[str], str], chars: list[str], sep: str) -> list[str]:
    """What `normalize` makes of each of `chars` between two `sep`s (which it must keep)."""
    out: list[str] = []
    for chunk, text in framed(chars, sep):
        pieces = normalize(text).split(sep)
        assert len(pieces) == len(chunk) + 2 and pieces[0] == pieces[-1] == "", chunk[0]
        out += pieces[1:-1]
    return out


def _uppercase(text: str) -> str:
    normalized = tokenizers.NormalizedString(text)
    normalized.uppercase()
    return normalized.normalized


def measure_whitespace() -> set[int]:
    found = removed_by(pre_tokenizers.WhitespaceSplit(), "a")
    assert removed_by(pre_tokenizers.Split(Regex(r"\s"), "removed"), "!") == found  # onig \s
    return found


def measure_rust_word() -> set[int]:
    # Whitespace is `\w+|[^\w\s]+` (Rust regex): between '!' a word char stands alone.
    return isolated_by(pre_tokenizers.Whitespace(), "!")


def measure_onig(pattern: str) -> set[int]:
    return removed_by(pre_tokenizers.Split(Regex(pattern), "removed"), "\U000e0001")


def measure_combining_mark() -> set[int]:
    chars = [c for c in ALL if c != "\n"]
    out = per_char(normalizers.StripAccents().normalize_str, chars, "\n")
    return {ord(c) for c, o in zip(chars, out) if o == ""}


def measure_bert_clean_removed() -> set[int]:
    chars = [c for c in ALL if c != "a"]
    bert = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=False
    )
    out = per_char(bert.normalize_str, chars, "a")
    return {ord(c) for c, o in zip(chars, out) if o == ""}


def hf_nfd_fixed_points() -> list[str]:
    chars = [c for c in ALL if c != "\n"]
    out = per_char(normalizers.NFD().normalize_str, chars, "\n")
    return [c for c, o in zip(chars, out) if o == c]


def measure_nonspacing_mark() -> set[int]:
    # BertNormalizer strips accents as NFD + filter(is_mark_nonspacing); only chars that survive
    # HF's NFD ever reach the filter.
    chars = hf_nfd_fixed_points()
    bert = normalizers.BertNormalizer(
        clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=False
    )
    out = per_char(bert.normalize_str, chars, "\n")
    return {ord(c) for c, o in zip(chars, out) if o == ""}


def measure_norm_unknown() -> set[int]:
    """Chars that HF's Unicode 9.0 normalization tables do not know but Python's unicodedata does."""
    unknown: set[int] = set()
    chars = [c for c in ALL if c != "\n"]
    forms: dict[Literal["NFD", "NFKD"], normalizers.Normalizer] = {
        "NFD": normalizers.NFD(),
        "NFKD": normalizers.NFKD(),
    }
    for form, normalizer in forms.items():
        out = per_char(normalizer.normalize_str, chars, "\n")
        for c, o in zip(chars, out):
            if o != unicodedata.normalize(form, c):
                assert o == c, (hex(ord(c)), form)
                unknown.add(ord(c))
    nfd = forms["NFD"]
    for c in chars:
        klass = unicodedata.combining(c)
        if klass == 0:
            continue
        probe = "a" + c + "\u0334" if klass > 1 else "a\u0301" + c
        if nfd.normalize_str(probe) != unicodedata.normalize("NFD", probe):
            unknown.add(ord(c))
    return unknown


def measure_case(upper: bool) -> dict[int, str]:
    chars = [c for c in ALL if c != "\n"]
    out = per_char(_uppercase if upper else normalizers.Lowercase().normalize_str, chars, "\n")
    extra: dict[int, str] = {}
    for c, o in zip(chars, out):
        mine = c.upper() if upper else c.lower()
        if o != mine:
            assert mine == c, (hex(ord(c)), o, mine)  # Python only ever lacks a mapping
            extra[ord(c)] = o
    return extra


def measure_scripts() -> list[tuple[int, int, int]]:
    """(start, end, class) ranges of HF's UnicodeScripts table; chars absent are `Any`."""
    scripts = pre_tokenizers.UnicodeScripts()
    merged_latin = [c for c in ALL if c not in ("a", "\u03b1")]
    not_any: set[int] = set()
    for filler in ("a", "\u03b1"):
        not_any |= isolated_by(scripts, filler)
    known = [c for c in merged_latin if ord(c) in not_any] + ["a", "\u03b1"]
    known.sort()
    # Runs of consecutive known chars that HF does not split.
    text = "".join(known)
    runs: list[list[int]] = []
    for _, (start, end) in scripts.pre_tokenize_str(text):
        runs.append([ord(text[start]), ord(text[end - 1]), start, end])
    assert runs[0][2] == 0 and runs[-1][3] == len(text)
    # Group runs into classes: a representative pair splits iff scripts differ.
    reps = [text[r[2]] for r in runs]
    klass = [-1] * len(runs)
    next_id = 0
    for i in range(len(runs)):
        if klass[i] >= 0:
            continue
        klass[i] = next_id
        todo = [j for j in range(i + 1, len(runs)) if klass[j] < 0]
        if todo:
            probe = "".join(reps[i] + reps[j] for j in todo)
            pieces = scripts.pre_tokenize_str(probe)
            starts = {start for _, (start, _) in pieces}
            for n, j in enumerate(todo):
                if (2 * n + 1) not in starts:
                    klass[j] = next_id
        next_id += 1
    # Expand runs (which cover `known` chars only) back to code point ranges.
    out: list[tuple[int, int, int]] = []
    for r, k in zip(runs, klass):
        for c in text[r[2] : r[3]]:
            cp = ord(c)
            if out and out[-1][1] == cp - 1 and out[-1][2] == k:
                out[-1] = (out[-1][0], cp, k)
            else:
                out.append((cp, cp, k))
    return out


def ranges_spec(cps: set[int]) -> str:
    """`{9, 10, 11, 32}` -> `"9-b 20"`."""
    ranges: list[list[int]] = []
    for cp in sorted(cps):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return " ".join(f"{a:x}" if a == b else f"{a:x}-{b:x}" for a, b in ranges)


def scripts_spec() -> str:
    return " ".join((f"{a:x}" if a == b else f"{a:x}-{b:x}") + f":{k}" for a, b, k in measure_scripts())


# name -> (the comment above it in engine/unicode_tables.py, its measurement), in the module's order.
TABLES: dict[str, tuple[str, Callable[[], Table]]] = {
    "WHITESPACE": (
        "Rust `char::is_whitespace` = Rust regex `\\s` = Oniguruma `\\s` (White_Space).",
        lambda: ranges_spec(measure_whitespace()),
    ),
    "RUST_WORD": (
        "Rust `regex` crate `\\w` (Whitespace pre-tokenizer).",
        lambda: ranges_spec(measure_rust_word()),
    ),
    "ONIG_LETTER": (
        "Oniguruma `\\p{L}` (ByteLevel's GPT-2 pattern, Split/Replace regexes).",
        lambda: ranges_spec(measure_onig(r"\p{L}")),
    ),
    "ONIG_NUMBER": ("Oniguruma `\\p{N}`.", lambda: ranges_spec(measure_onig(r"\p{N}"))),
    "ONIG_WORD": ("Oniguruma `\\w` (user regexes).", lambda: ranges_spec(measure_onig(r"\w"))),
    "ONIG_DIGIT": ("Oniguruma `\\d` (user regexes).", lambda: ranges_spec(measure_onig(r"\d"))),
    "PUNCTUATION": (
        "ASCII punctuation or `unicode_categories` is_punctuation (Bert, Punctuation).",
        lambda: ranges_spec(isolated_by(pre_tokenizers.Punctuation(), "a")),
    ),
    "NUMERIC": (
        "Rust `char::is_numeric` (Digits).",
        lambda: ranges_spec(isolated_by(pre_tokenizers.Digits(individual_digits=True), "a")),
    ),
    "COMBINING_MARK": (
        "`unicode_normalization_alignments` is_combining_mark, Unicode 9.0 (StripAccents).",
        lambda: ranges_spec(measure_combining_mark()),
    ),
    "BERT_CLEAN_REMOVED": (
        "What BertNormalizer(clean_text) deletes: NUL, U+FFFD, is_other minus \\t\\n\\r.",
        lambda: ranges_spec(measure_bert_clean_removed()),
    ),
    "NONSPACING_MARK": (
        "`unicode_categories` is_mark_nonspacing, on chars that survive HF's NFD.",
        lambda: ranges_spec(measure_nonspacing_mark()),
    ),
    "NORM_UNKNOWN": (
        "Chars Python's unicodedata normalizes but HF's Unicode 9.0 tables do not know.",
        lambda: ranges_spec(measure_norm_unknown()),
    ),
    "LOWER_EXTRA": (
        "Rust `char::to_lowercase` where Python 3.11's `str.lower` (Unicode 14) has none.",
        lambda: measure_case(upper=False),
    ),
    "UPPER_EXTRA": (
        "Rust `char::to_uppercase` where Python 3.11's `str.upper` (Unicode 14) has none.",
        lambda: measure_case(upper=True),
    ),
    "SCRIPTS": ("UnicodeScripts classes (`start-end:class`); chars absent are `Any`.", scripts_spec),
}


def measure(name: str) -> Table:
    """Table `name` as the installed `tokenizers` gives it, in the form engine/unicode_tables.py holds."""
    return TABLES[name][1]()


def _points(table: Table) -> dict[int, str]:
    """Each code point a table names, with what it says: `"9-a 20"` -> `{9: "", 10: "", 32: ""}`,
    `"41-42:3"` -> `{65: "class 3", 66: "class 3"}`, `{0x1E9E: "ß"}` -> `{0x1E9E: "'ß'"}`."""
    if isinstance(table, dict):
        return {cp: repr(mapped) for cp, mapped in table.items()}
    out: dict[int, str] = {}
    for word in table.split():
        span, _, klass = word.partition(":")
        first, _, last = span.partition("-")
        for cp in range(int(first, 16), int(last or first, 16) + 1):
            out[cp] = f"class {klass}" if klass else ""
    return out


def difference(name: str, engine: Table, measured: Table, most: int = 10) -> str:
    """"" when the tables are equal; else, as a diff, their first `most` differing code points:
    `-` what engine/unicode_tables.py says of one, `+` what `tokenizers` does."""
    if engine == measured:
        return ""
    ours, theirs = _points(engine), _points(measured)
    differing = sorted(cp for cp in ours.keys() | theirs.keys() if ours.get(cp) != theirs.get(cp))
    sides = f"- {MODULE.relative_to(ROOT)}, + tokenizers {tokenizers.__version__}"
    lines = [f"{name}: {len(differing)} code points differ ({sides})"]
    for cp in differing[:most]:
        if cp in ours:
            lines.append(f"- U+{cp:04X} {ours[cp]}".rstrip())
        if cp in theirs:
            lines.append(f"+ U+{cp:04X} {theirs[cp]}".rstrip())
    if not differing:  # subtle: the same code points, spelled differently (e.g. split ranges)
        lines.append(f"- {engine!r:.200}\n+ {measured!r:.200}")
    return "\n".join(lines)


def _wrap(spec: str, width: int = 96) -> str:
    lines: list[str] = []
    line = ""
    for word in spec.split(" "):
        if line and len(line) + len(word) + 1 > width:
            lines.append(line + " ")
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(f'    "{x}"' for x in lines)


def render(tables: dict[str, Table]) -> str:
    """The text of engine/unicode_tables.py holding `tables`."""
    out = [
        f'"""Character tables measured from HF `tokenizers` {tokenizers.__version__}, one per predicate'
        " the pipeline uses.",
        "",
        "Generated by `python .ci/unicode_tables.py --write` (do not edit by hand); ranges are hex",
        "code points `a-b` separated by spaces. No logic here beyond parsing (see `engine.normalizers.normalized`).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Final",
        "",
    ]
    for name, value in tables.items():
        out.append(f"# {TABLES[name][0]}")
        if isinstance(value, dict):
            out.append(f"{name}: Final[dict[int, str]] = {{")
            for cp, mapped in sorted(value.items()):
                out.append(f"    0x{cp:X}: {mapped!r},")
            out.append("}")
        else:
            out.append(f"{name}: Final = (\n{_wrap(value)}\n)")
        out.append("")
    out += [
        "",
        "def parse_ranges(spec: str) -> list[tuple[int, int]]:",
        '    """`"9-d 20"` -> `[(9, 13), (32, 32)]`."""',
        "    out: list[tuple[int, int]] = []",
        "    for word in spec.split():",
        '        dash = word.find("-")',
        "        if dash < 0:",
        "            cp = int(word, 16)",
        "            out.append((cp, cp))",
        "        else:",
        "            out.append((int(word[:dash], 16), int(word[dash + 1 :], 16)))",
        "    return out",
        "",
        "",
        "def regex_class(spec: str) -> str:",
        '    """The body of a `regex` character class (no brackets) matching the ranges of `spec`."""',
        "    parts: list[str] = []",
        "    for start, end in parse_ranges(spec):",
        "        if start == end:",
        '            parts.append(f"\\\\U{start:08x}")',
        "        else:",
        '            parts.append(f"\\\\U{start:08x}-\\\\U{end:08x}")',
        '    return "".join(parts)',
        "",
    ]
    return "\n".join(out)


def _load_module_file() -> ModuleType:
    """engine/unicode_tables.py as the working tree has it (not whichever engine is installed)."""
    spec = importlib.util.spec_from_file_location("engine_unicode_tables_in_tree", MODULE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(measured: dict[str, Table]) -> list[str]:
    """What differs between engine/unicode_tables.py and `measured`: one message per table."""
    module = _load_module_file()
    problems = [difference(name, getattr(module, name), value) for name, value in measured.items()]
    problems = [p for p in problems if p]
    if not problems and MODULE.read_text(encoding="utf-8") != render(measured):
        problems.append(f"{MODULE.relative_to(ROOT)}: the tables match, but the text is not what --write writes")
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=".ci/unicode_tables.py", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help=f"rewrite {MODULE.relative_to(ROOT)}")
    mode.add_argument("--check", action="store_true", help="exit 1 if it differs from the measurement")
    args = parser.parse_args(argv)
    measured = {name: measure(name) for name in TABLES}
    if args.write:
        MODULE.write_text(render(measured), encoding="utf-8")
        return 0
    problems = check(measured)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print("run `python .ci/unicode_tables.py --write` if the new tokenizers is right", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
