"""Every table in `engine.unicode_tables` equals what HF `tokenizers` does, on every code point.

The tables were measured from the reference library (its Rust std, `regex` crate, Oniguruma and the
`unicode_categories` / `unicode_normalization_alignments` crates, each at its own Unicode version) by
the probes below. Run this file as a script to re-measure and rewrite the module:
`python tests/parity/test_unicode_tables_parity.py --write engine/unicode_tables.py`.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import tokenizers
from tokenizers import Regex, normalizers, pre_tokenizers

ALL: list[str] = [chr(i) for i in range(0x110000) if not 0xD800 <= i < 0xE000]


def _covered(pieces: list[tuple[str, tuple[int, int]]], length: int) -> bytearray:
    kept = bytearray(length)
    for _, (start, end) in pieces:
        kept[start:end] = b"\x01" * (end - start)
    return kept


def removed_by(pre_tokenizer: object, filler: str) -> set[int]:
    """Chars c that `pre_tokenizer` drops from `filler c filler c ... filler`."""
    text = filler + filler.join(ALL) + filler
    kept = _covered(pre_tokenizer.pre_tokenize_str(text), len(text))  # type: ignore[attr-defined]
    return {ord(text[i]) for i in range(len(text)) if not kept[i]}


def isolated_by(pre_tokenizer: object, filler: str) -> set[int]:
    """Chars c that `pre_tokenizer` puts in a piece of their own inside `filler c filler ...`."""
    text = filler + filler.join(ALL) + filler
    out: set[int] = set()
    for _, (start, end) in pre_tokenizer.pre_tokenize_str(text):  # type: ignore[attr-defined]
        if end - start == 1 and text[start] != filler:
            out.add(ord(text[start]))
    return out


def per_char(normalizer: object, chars: list[str], sep: str) -> list[str]:
    out: list[str] = normalizer.normalize_str(sep.join(chars)).split(sep)  # type: ignore[attr-defined]
    assert len(out) == len(chars)
    return out


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
    out = per_char(normalizers.StripAccents(), chars, "\n")
    return {ord(c) for c, o in zip(chars, out) if o == ""}


def measure_bert_clean_removed() -> set[int]:
    chars = [c for c in ALL if c != "a"]
    bert = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=False
    )
    out = per_char(bert, chars, "a")
    return {ord(c) for c, o in zip(chars, out) if o == ""}


def hf_nfd_fixed_points() -> list[str]:
    chars = [c for c in ALL if c != "\n"]
    out = per_char(normalizers.NFD(), chars, "\n")
    return [c for c, o in zip(chars, out) if o == c]


def measure_nonspacing_mark() -> set[int]:
    # BertNormalizer strips accents as NFD + filter(is_mark_nonspacing); only chars that survive
    # HF's NFD ever reach the filter.
    chars = hf_nfd_fixed_points()
    bert = normalizers.BertNormalizer(
        clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=False
    )
    out = per_char(bert, chars, "\n")
    return {ord(c) for c, o in zip(chars, out) if o == ""}


def measure_norm_unknown() -> set[int]:
    """Chars that HF's Unicode 9.0 normalization tables do not know but Python's unicodedata does."""
    unknown: set[int] = set()
    chars = [c for c in ALL if c != "\n"]
    for form in ("NFD", "NFKD"):
        out = per_char(getattr(normalizers, form)(), chars, "\n")
        for c, o in zip(chars, out):
            if o != unicodedata.normalize(form, c):
                assert o == c, (hex(ord(c)), form)
                unknown.add(ord(c))
    nfd = normalizers.NFD()
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
    if upper:
        ns = tokenizers.NormalizedString("\n".join(chars))
        ns.uppercase()
        out = ns.normalized.split("\n")
    else:
        out = per_char(normalizers.Lowercase(), chars, "\n")
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
    ranges: list[list[int]] = []
    for cp in sorted(cps):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return " ".join(f"{a:x}" if a == b else f"{a:x}-{b:x}" for a, b in ranges)


def measure_all() -> dict[str, object]:
    return {
        "WHITESPACE": ranges_spec(measure_whitespace()),
        "RUST_WORD": ranges_spec(measure_rust_word()),
        "ONIG_LETTER": ranges_spec(measure_onig(r"\p{L}")),
        "ONIG_NUMBER": ranges_spec(measure_onig(r"\p{N}")),
        "ONIG_WORD": ranges_spec(measure_onig(r"\w")),
        "ONIG_DIGIT": ranges_spec(measure_onig(r"\d")),
        "PUNCTUATION": ranges_spec(isolated_by(pre_tokenizers.Punctuation(), "a")),
        "NUMERIC": ranges_spec(isolated_by(pre_tokenizers.Digits(individual_digits=True), "a")),
        "COMBINING_MARK": ranges_spec(measure_combining_mark()),
        "BERT_CLEAN_REMOVED": ranges_spec(measure_bert_clean_removed()),
        "NONSPACING_MARK": ranges_spec(measure_nonspacing_mark()),
        "NORM_UNKNOWN": ranges_spec(measure_norm_unknown()),
        "LOWER_EXTRA": measure_case(upper=False),
        "UPPER_EXTRA": measure_case(upper=True),
        "SCRIPTS": " ".join(
            (f"{a:x}" if a == b else f"{a:x}-{b:x}") + f":{k}" for a, b, k in measure_scripts()
        ),
    }


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


DOCS: dict[str, str] = {
    "WHITESPACE": "Rust `char::is_whitespace` = Rust regex `\\s` = Oniguruma `\\s` (White_Space).",
    "RUST_WORD": "Rust `regex` crate `\\w` (Whitespace pre-tokenizer).",
    "ONIG_LETTER": "Oniguruma `\\p{L}` (ByteLevel's GPT-2 pattern, Split/Replace regexes).",
    "ONIG_NUMBER": "Oniguruma `\\p{N}`.",
    "ONIG_WORD": "Oniguruma `\\w` (user regexes).",
    "ONIG_DIGIT": "Oniguruma `\\d` (user regexes).",
    "PUNCTUATION": "ASCII punctuation or `unicode_categories` is_punctuation (Bert, Punctuation).",
    "NUMERIC": "Rust `char::is_numeric` (Digits).",
    "COMBINING_MARK": "`unicode_normalization_alignments` is_combining_mark, Unicode 9.0 (StripAccents).",
    "BERT_CLEAN_REMOVED": "What BertNormalizer(clean_text) deletes: NUL, U+FFFD, is_other minus \\t\\n\\r.",
    "NONSPACING_MARK": "`unicode_categories` is_mark_nonspacing, on chars that survive HF's NFD.",
    "NORM_UNKNOWN": "Chars Python's unicodedata normalizes but HF's Unicode 9.0 tables do not know.",
    "LOWER_EXTRA": "Rust `char::to_lowercase` where Python 3.11's `str.lower` (Unicode 14) has none.",
    "UPPER_EXTRA": "Rust `char::to_uppercase` where Python 3.11's `str.upper` (Unicode 14) has none.",
    "SCRIPTS": "UnicodeScripts classes (`start-end:class`); chars absent are `Any`.",
}


def render(tables: dict[str, object]) -> str:
    out = [
        '"""Character tables measured from HF `tokenizers` 0.23.3, one per predicate the pipeline uses.',
        "",
        "Generated by tests/parity/test_unicode_tables_parity.py (do not edit by hand); ranges are hex",
        "code points `a-b` separated by spaces. No logic here beyond parsing (see `engine.normalized`).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Final",
        "",
    ]
    for name, value in tables.items():
        out.append(f"# {DOCS[name]}")
        if isinstance(value, dict):
            out.append(f"{name}: Final[dict[int, str]] = {{")
            for cp, mapped in sorted(value.items()):
                out.append(f"    0x{cp:X}: {mapped!r},")
            out.append("}")
        else:
            assert isinstance(value, str)
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


def test_tables_match_reference() -> None:
    from engine import unicode_tables as t

    measured = measure_all()
    for name, value in measured.items():
        assert getattr(t, name) == value if isinstance(value, dict) else " ".join(
            getattr(t, name).split()
        ) == value, name


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--write":
        sys.exit(f"usage: {sys.argv[0]} --write engine/unicode_tables.py")
    Path(sys.argv[2]).write_text(render(measure_all()), encoding="utf-8")
