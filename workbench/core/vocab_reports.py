"""The vocabulary audits in plain form and as report sections (Qt-free): a tokenizer's vocabulary
health (`engine.analysis.vocab_health`), two vocabularies side by side, and the vocabulary-size
curves (`engine.analysis.size_curve`), as the Audit tab lists them (plain lists and dicts, the
form that crosses from the child processes), as the command line prints them, and as sections
of the HTML report. Nothing is measured here.
"""

from __future__ import annotations

from html import escape
from typing import Final

from engine import Tokenizer
from engine.analysis.vocab_compare import VocabularyComparison
from engine.analysis.vocab_health import VocabularyHealth
from engine.analysis.vocabulary import TokenStyle, readable
from workbench.core.audit_report import CHART_HEIGHT, CHART_WIDTH, MARGIN, SERIES_COLOURS, html_table, svg_axes, svg_legend, svg_open
from workbench.core.formatting import human_size

# The categories of `VocabularyHealth`, in the order the tab shows them, with their headings.
CATEGORIES: Final = (
    ("dead", "dead"), ("rare", "rare"), ("unreachable", "unreachable"), ("invalid_utf8", "not UTF-8 alone"),
    ("intermediate_only", "intermediate only"), ("unformable", "never formed"), ("collisions", "collide"),
    ("longest", "longest"), ("unchecked", "unchecked"), ("special", "special"),
)  # fmt: skip
# A category lists at most this many tokens (the count says how many there are).
LISTED: Final = 20_000


def health_wire(name: str, tokenizer: Tokenizer, health: VocabularyHealth, label: str) -> dict[str, object]:
    """A tokenizer's health in plain form: its "name", the "text" checked on, the "tokens" it
    produced there, "rare_below", per category (`CATEGORIES`) the "counts" and the "rows"
    (id, readable token, frequency, group: a collision's group number, else 0), at most
    `LISTED` a category."""
    style = TokenStyle.of(tokenizer)
    by_id = {number: token for token, number in tokenizer.get_vocab(True).items()}
    counts: dict[str, int] = {}
    rows: dict[str, list[tuple[int, str, int, int]]] = {}
    for key, _ in CATEGORIES:
        if key == "collisions":
            listed = [(number, group + 1) for group, members in enumerate(health.collisions) for number in members]
            counts[key] = len(listed)
        else:
            ids: list[int] = getattr(health, key)
            listed = [(number, 0) for number in ids]
            counts[key] = len(ids)
        rows[key] = [
            (number, readable(by_id.get(number, ""), style), health.frequencies[number] if number < len(health.frequencies) else 0, group)
            for number, group in listed[:LISTED]
        ]
    return {
        "name": name, "text": label, "tokens": health.tokens, "size": health.size, "rare_below": health.rare_below,
        "counts": counts, "rows": rows,
    }  # fmt: skip


def comparison_wire(name_a: str, name_b: str, comparison: VocabularyComparison, label: str) -> dict[str, object]:
    """Two vocabularies side by side in plain form: "names", the "text" cut, the boundary
    "agreement" and "f1", "boundaries" (agreed, only a's, only b's), and the lists (at most
    `LISTED` each) "both" and "different_ids" as (form, id in a, id in b), "only_a" and
    "only_b" as (id, form), with their "counts"."""
    return {
        "names": (name_a, name_b),
        "text": label,
        "agreement": comparison.boundary_agreement,
        "f1": comparison.boundary_f1,
        "boundaries": (comparison.agreed, comparison.only_a_boundaries, comparison.only_b_boundaries),
        "counts": {
            "both": len(comparison.both), "only_a": len(comparison.only_a), "only_b": len(comparison.only_b),
            "different_ids": len(comparison.different_ids),
        },  # fmt: skip
        "both": comparison.both[:LISTED],
        "different_ids": comparison.different_ids[:LISTED],
        "only_a": comparison.only_a[:LISTED],
        "only_b": comparison.only_b[:LISTED],
    }


def curve_wire(
    name: str, text: str, size: int, algorithm: str, sizes: list[int], per_character: list[float], knee: int, exact: bool, characters: int
) -> dict[str, object]:
    """A curve in plain form: the tokenizer's name, what it was measured on, its vocabulary's
    size, the model ("BPE"...), the sizes and tokens per character at each, the knee's index,
    whether each point is exact (False: Unigram's top pieces), the held-out characters."""
    return {
        "name": name, "text": text, "size": size, "algorithm": algorithm, "sizes": list(sizes),
        "per_character": list(per_character), "knee": knee, "exact": exact, "characters": characters,
    }  # fmt: skip


# -- as tables, lines and report sections ---------------------------------------------------------

HEALTH_HEADERS: Final = ("tokenizer", "tokens produced", *(title for _, title in CATEGORIES))
CURVE_HEADERS: Final = (
    "tokenizer", "held-out text", "model", "vocabulary", "tokens per character", "knee", "at the knee",
    "more tokens at the knee", "embedding", "embedding at the knee", "points",
)  # fmt: skip
CURVE_NOTE: Final = (
    "BPE: every merge count, exact (a prefix of the merges is the smaller tokenizer). WordPiece: the "
    "vocabulary's first entries in creation order, exact at each point. Unigram: the pieces that score "
    "highest, an approximation (its pruning rounds only pass through sizes above the trained one). The knee "
    "(Kneedle) is where a larger vocabulary starts to buy little."
)
# How many tokens of each category a report lists.
REPORTED: Final = 25


def health_table(healths: list[dict[str, object]]) -> list[list[str]]:
    """One row of `HEALTH_HEADERS` per tokenizer (`health_wire`'s)."""
    rows: list[list[str]] = []
    for health in healths:
        counts = health["counts"]
        assert isinstance(counts, dict)
        rows.append([str(health["name"]), f"{_whole(health['tokens']):,}"] + [f"{_whole(counts[key]):,}" for key, _ in CATEGORIES])
    return rows


def health_tokens(health: dict[str, object], key: str, count: int = REPORTED) -> list[str]:
    """The first `count` tokens of category `key`, as "token (id)"."""
    rows = health["rows"]
    assert isinstance(rows, dict)
    return [f"{token} ({number})" for number, token, _, _ in rows[key][:count]]


def health_section(healths: list[dict[str, object]]) -> str:
    """The report's vocabulary health: the counts, and each tokenizer's first tokens of each kind."""
    if not healths:
        return ""
    parts = [
        "<h2>Vocabulary health</h2>",
        f"<p>Counted on {escape(str(healths[0]['text']))}; rare: produced fewer than {_whole(healths[0]['rare_below'])} times. "
        "Unreachable: encoding the token's own string never gives it. Intermediate only (BPE): made by a merge, never "
        "produced here, used by a later merge. Never formed (BPE): no text can form it.</p>",
        html_table(list(HEALTH_HEADERS), health_table(healths), "health"),
    ]
    for health in healths:
        counts = health["counts"]
        assert isinstance(counts, dict)
        listed = [
            f"<li><b>{escape(title)}</b> ({_whole(counts[key]):,}): {escape(', '.join(health_tokens(health, key)))}"
            + (" …" if _whole(counts[key]) > REPORTED else "") + "</li>"
            for key, title in CATEGORIES if _whole(counts[key]) and key != "special"
        ]  # fmt: skip
        parts.append(f"<h3>{escape(str(health['name']))}</h3><ul>{''.join(listed)}</ul>")
    return "\n".join(parts)


def comparison_lines(comparison: dict[str, object]) -> list[str]:
    """Two vocabularies side by side, as lines of text."""
    names = comparison["names"]
    counts = comparison["counts"]
    agreed, only_a, only_b = _triple(comparison["boundaries"])
    assert isinstance(names, tuple) and isinstance(counts, dict)
    return [
        f"A {names[0]}, B {names[1]}: {_whole(counts['both']):,} tokens in both, {_whole(counts['only_a']):,} only in A, "
        f"{_whole(counts['only_b']):,} only in B, {_whole(counts['different_ids']):,} with the same string under different ids",
        f"cutting {comparison['text']}, they agree on {_fraction(comparison['agreement']):.1%} of the token boundaries "
        f"({agreed:,} shared, {only_a:,} only A's, {only_b:,} only B's; F1 {_fraction(comparison['f1']):.3f})",
    ]


def comparison_section(comparison: dict[str, object] | None) -> str:
    """The report's two vocabularies side by side, with the first tokens only in each."""
    if comparison is None:
        return ""
    parts = ["<h2>Two vocabularies</h2>"] + [f"<p>{escape(line)}.</p>" for line in comparison_lines(comparison)]
    for key, title in (("only_a", "Only in A"), ("only_b", "Only in B")):
        listed = comparison[key]
        assert isinstance(listed, list)
        parts.append(f"<p><b>{title}</b>: {escape(', '.join(f'{form!r} ({number})' for number, form in listed[:REPORTED]))}</p>")
    return "\n".join(parts)


def curve_table(curves: list[dict[str, object]], entry_bytes: int) -> list[list[str]]:
    """One row of `CURVE_HEADERS` per curve (`curve_wire`'s); `entry_bytes`: one vocabulary
    entry's embedding."""
    rows: list[list[str]] = []
    for curve in curves:
        sizes, values, knee = curve_points(curve)
        full, at_knee = values[-1], values[knee]
        rows.append([
            str(curve["name"]), str(curve["text"]), str(curve["algorithm"]), f"{sizes[-1]:,}", f"{full:.3f}",
            f"{sizes[knee]:,}", f"{at_knee:.3f}", f"{at_knee / full - 1:+.1%}" if full > 0 else "—",
            human_size(sizes[-1] * entry_bytes), human_size(sizes[knee] * entry_bytes),
            f"{len(sizes):,}" + ("" if curve["exact"] else " (approximate)"),
        ])  # fmt: skip
    return rows


def curve_points(curve: dict[str, object]) -> tuple[list[int], list[float], int]:
    """A curve's sizes, tokens per character at each, and its knee's index."""
    sizes = curve["sizes"]
    values = curve["per_character"]
    assert isinstance(sizes, list) and isinstance(values, list)
    return [_whole(size) for size in sizes], [_fraction(value) for value in values], _whole(curve["knee"])


def curves_section(curves: list[dict[str, object]], entry_bytes: int, note: str) -> str:
    """The report's "Which vocabulary size?": the curves as a chart, each knee marked, and their table."""
    if not curves:
        return ""
    drawn = [curve_points(curve) for curve in curves]
    largest = max(sizes[-1] for sizes, _, _ in drawn) or 1
    top = max(max(values) for _, values, _ in drawn) * 1.05 or 1.0
    width, height = CHART_WIDTH - 2 * MARGIN, CHART_HEIGHT - 2 * MARGIN
    parts = [svg_open("Tokens per character by vocabulary size"), svg_axes(top, "tokens per character")]
    for index, ((sizes, values, knee), curve) in enumerate(zip(drawn, curves)):
        colour = SERIES_COLOURS[index % len(SERIES_COLOURS)]
        step = max(1, len(sizes) // 600)  # (a point per merge of a 32k run is more than the pixels)
        chosen = list(range(0, len(sizes), step)) + [len(sizes) - 1]
        points = " ".join(
            f"{MARGIN + width * sizes[i] / largest:.1f},{CHART_HEIGHT - MARGIN - height * values[i] / top:.1f}" for i in chosen
        )
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{points}"/>')
        x, y = MARGIN + width * sizes[knee] / largest, CHART_HEIGHT - MARGIN - height * values[knee] / top
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="none" stroke="{colour}" stroke-width="2">'
            f"<title>{escape(str(curve['name']))}: knee at {sizes[knee]:,}</title></circle>"
        )
        parts.append(svg_legend(index, f"{curve['name']} (knee {sizes[knee]:,})", colour))
    parts.append(
        f'<text x="{CHART_WIDTH / 2:.0f}" y="{CHART_HEIGHT - 10}" text-anchor="middle" font-size="12">vocabulary size, 0 to {largest:,}</text></svg>'
    )
    return "\n".join(
        ["<h2>Which vocabulary size?</h2>", f"<p>{escape(note)}</p>", *parts, html_table(list(CURVE_HEADERS), curve_table(curves, entry_bytes), "size-curves")]
    )


def _whole(value: object) -> int:
    assert isinstance(value, int)
    return value


def _fraction(value: object) -> float:
    assert isinstance(value, (int, float))
    return float(value)


def _triple(value: object) -> tuple[int, int, int]:
    assert isinstance(value, tuple) and len(value) == 3
    return _whole(value[0]), _whole(value[1]), _whole(value[2])
