"""The vocabulary audits in plain form and as report sections (Qt-free): a tokenizer's vocabulary
health (`engine.analysis.vocab_health`), two vocabularies side by side, and the vocabulary-size
curves (`engine.analysis.size_curve`), as the Audit tab lists them (plain lists and dicts, the
form that crosses from the child processes), as the command line prints them, and as sections
of the HTML report. Nothing is measured here.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Final

from engine import Tokenizer
from engine.analysis.size_curve import SizeCurve
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


def curve_wire(name: str, text: str, size: int, curve: SizeCurve, below: SizeCurve | None = None, note: str = "") -> dict[str, object]:
    """A curve in plain form: the tokenizer's name, what it was measured on, its vocabulary's
    size, the model ("BPE"...), the sizes and tokens per character at each, the knee's index,
    the trained size's index ("trained"), whether each point is exact (False: Unigram's top
    pieces), the round each point was measured after (a Unigram run's rounds; else empty), the
    held-out characters; and where a Unigram run's rounds give the curve from its trained size
    up, `below`'s points up to the trained size ("below_sizes", "below_per_character": its
    top pieces by score, approximate; else empty), with a sentence on what is exact ("note")."""
    below_sizes: list[int] = []
    below_values: list[float] = []
    if below is not None:
        for point_size, value in zip(below.sizes, below.tokens_per_character):
            if point_size <= curve.trained_size:
                below_sizes.append(point_size)
                below_values.append(value)
    return {
        "name": name, "text": text, "size": size, "algorithm": curve.algorithm, "sizes": list(curve.sizes),
        "per_character": list(curve.tokens_per_character), "knee": curve.knee_index, "trained": curve.trained_index,
        "exact": curve.exact, "rounds": list(curve.rounds), "characters": curve.characters,
        "below_sizes": below_sizes, "below_per_character": below_values, "note": note,
    }  # fmt: skip


@dataclass(frozen=True)
class DrawnCurve:
    """A curve as the chart and the report draw it (`drawn_curve`): its name, sizes, tokens per
    character at each, the knee's index and the trained size's, whether the points are exact and
    measured after a Unigram run's rounds, and the approximate points below (empty but there)."""

    name: str
    sizes: list[int]
    values: list[float]
    knee: int
    trained: int
    exact: bool
    rounds: bool
    below_sizes: list[int]
    below_values: list[float]

    @property
    def trained_value(self) -> float:
        return self.values[self.trained]


# -- as tables, lines and report sections ---------------------------------------------------------

HEALTH_HEADERS: Final = ("tokenizer", "tokens produced", *(title for _, title in CATEGORIES))
CURVE_HEADERS: Final = (
    "tokenizer", "held-out text", "model", "vocabulary", "tokens per character", "knee", "at the knee",
    "more tokens at the knee", "embedding", "embedding at the knee", "points",
)  # fmt: skip
CURVE_NOTE: Final = (
    "BPE: every merge count, exact (a prefix of the merges is the smaller tokenizer). WordPiece: the "
    "vocabulary's first entries in creation order, exact. Unigram: exact at the sizes its training rounds "
    "passed through, where this window measured them (on its own held-out lines); below its trained size, "
    "and anywhere else, its top pieces by score, an approximation (dashed). The knee (Kneedle) is where a "
    "larger vocabulary starts to buy little."
)
# How many tokens of each category a report lists.
REPORTED: Final = 25
# The charts show sizes up to this many times the largest trained size at first (`shown_up_to`).
SHOWN_PAST_TRAINED: Final = 2


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
        drawn = drawn_curve(curve)
        sizes, knee, trained = drawn.sizes, drawn.knee, drawn.trained
        full, at_knee = drawn.trained_value, drawn.values[knee]
        rows.append([
            str(curve["name"]), str(curve["text"]), str(curve["algorithm"]), f"{sizes[trained]:,}", f"{full:.3f}",
            f"{sizes[knee]:,}", f"{at_knee:.3f}", f"{at_knee / full - 1:+.1%}" if full > 0 else "—",
            human_size(sizes[trained] * entry_bytes), human_size(sizes[knee] * entry_bytes), points_text(drawn),
        ])  # fmt: skip
    return rows


def points_text(drawn: DrawnCurve) -> str:
    """How many points a curve has and which are exact: "8,001"; "60 (approximate)"; "6 exact
    (its rounds) + 59 approximate below"."""
    count = f"{len(drawn.sizes):,}"
    if not drawn.exact:
        return count + " (approximate)"
    if not drawn.rounds:
        return count
    trained = drawn.sizes[drawn.trained]
    below = sum(1 for size in drawn.below_sizes if size < trained)
    return f"{count} exact (its rounds)" + (f" + {below:,} approximate below" if below > 0 else "")


def drawn_curve(curve: dict[str, object]) -> DrawnCurve:
    """A curve (`curve_wire`'s) as the chart and the report draw it."""
    sizes = curve["sizes"]
    values = curve["per_character"]
    below_sizes = curve.get("below_sizes", [])
    below_values = curve.get("below_per_character", [])
    rounds = curve.get("rounds", [])
    assert isinstance(sizes, list) and isinstance(values, list) and isinstance(rounds, list)
    assert isinstance(below_sizes, list) and isinstance(below_values, list)
    return DrawnCurve(
        str(curve["name"]), [_whole(size) for size in sizes], [_fraction(value) for value in values], _whole(curve["knee"]),
        _whole(curve.get("trained", len(sizes) - 1)), bool(curve["exact"]), bool(rounds),
        [_whole(size) for size in below_sizes], [_fraction(value) for value in below_values],
    )  # fmt: skip


def shown_up_to(curves: list[DrawnCurve]) -> int:
    """The largest size the charts show at first: the largest point of all, unless a Unigram
    run's rounds reach past SHOWN_PAST_TRAINED times the largest trained size and past every
    knee; then that. subtle: the rounds start from the seed's pieces, tens or hundreds of times
    the trained size (up to its seed_size, 1,000,000 by default), which would leave every other
    curve a sliver at the left; the sizes past it are in the table and a zoom away.

    trained sizes 8,000 and 2,000, knees at 1,127 and 12,000, a seed at 1,000,000 -> 16,000
    """
    largest = max(curve.sizes[-1] for curve in curves)
    limit = SHOWN_PAST_TRAINED * max(curve.sizes[curve.trained] for curve in curves)
    for curve in curves:
        limit = max(limit, curve.sizes[curve.knee] * 11 // 10)
    return min(largest, limit)


def curve_notes(curves: list[dict[str, object]]) -> list[str]:
    """Each curve's sentence on what in it is exact ("name: ..."), where it has one."""
    return [f"{curve['name']}: {curve['note']}" for curve in curves if curve.get("note")]


def curves_section(curves: list[dict[str, object]], entry_bytes: int, note: str) -> str:
    """The report's "Which vocabulary size?": the curves as a chart, each knee marked, and their table."""
    if not curves:
        return ""
    drawn = [drawn_curve(curve) for curve in curves]
    largest = shown_up_to(drawn) or 1
    beyond = max(curve.sizes[-1] for curve in drawn)
    top = max(max(curve.values + curve.below_values) for curve in drawn) * 1.05 or 1.0
    width, height = CHART_WIDTH - 2 * MARGIN, CHART_HEIGHT - 2 * MARGIN

    def at(size: int, value: float) -> tuple[float, float]:
        return MARGIN + width * size / largest, CHART_HEIGHT - MARGIN - height * value / top

    parts = [svg_open("Tokens per character by vocabulary size"), svg_axes(top, "tokens per character")]
    for index, curve in enumerate(drawn):
        colour = SERIES_COLOURS[index % len(SERIES_COLOURS)]
        sizes, values, knee = curve.sizes, curve.values, curve.knee
        shown = [i for i in _spread(len(sizes)) if sizes[i] <= largest]
        parts.append(_svg_line(colour, [at(sizes[i], values[i]) for i in shown], dashed=not curve.exact))
        if curve.below_sizes:
            below = [at(curve.below_sizes[i], curve.below_values[i]) for i in _spread(len(curve.below_sizes))]
            parts.append(_svg_line(colour, below, dashed=True))
        if curve.rounds:
            for i in shown:
                x, y = at(sizes[i], values[i])
                parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>')
        x, y = at(sizes[knee], values[knee])
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="none" stroke="{colour}" stroke-width="2">'
            f"<title>{escape(curve.name)}: knee at {sizes[knee]:,}</title></circle>"
        )
        parts.append(svg_legend(index, f"{curve.name} (knee {sizes[knee]:,}{'' if curve.exact else ', approximate'})", colour))
    past = f"; beyond it, up to {beyond:,}, in the table" if beyond > largest else ""
    parts.append(
        f'<text x="{CHART_WIDTH / 2:.0f}" y="{CHART_HEIGHT - 10}" text-anchor="middle" font-size="12">vocabulary size, 0 to {largest:,}{past}; '
        "dashed: approximate</text></svg>"
    )
    notes = "".join(f"<li>{escape(line)}</li>" for line in curve_notes(curves))
    return "\n".join(
        [
            "<h2>Which vocabulary size?</h2>", f"<p>{escape(note)}</p>", *([f"<ul>{notes}</ul>"] if notes else []), *parts,
            html_table(list(CURVE_HEADERS), curve_table(curves, entry_bytes), "size-curves"),
        ]
    )  # fmt: skip


def _spread(count: int) -> list[int]:
    """At most about 600 indexes of `count` points, the last among them (a point per merge of
    a 32k run is more than the pixels): 5 -> [0, 1, 2, 3, 4]"""
    step = max(1, count // 600)
    chosen = list(range(0, count, step))
    if chosen[-1] != count - 1:
        chosen.append(count - 1)
    return chosen


def _svg_line(colour: str, points: list[tuple[float, float]], dashed: bool) -> str:
    joined = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dashes = ' stroke-dasharray="6,4"' if dashed else ""
    return f'<polyline fill="none" stroke="{colour}" stroke-width="1.5"{dashes} points="{joined}"/>'


def _whole(value: object) -> int:
    assert isinstance(value, int)
    return value


def _fraction(value: object) -> float:
    assert isinstance(value, (int, float))
    return float(value)


def _triple(value: object) -> tuple[int, int, int]:
    assert isinstance(value, tuple) and len(value) == 3
    return _whole(value[0]), _whole(value[1]), _whole(value[2])
