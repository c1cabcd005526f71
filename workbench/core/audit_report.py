"""The audit as one self-contained HTML file a reviewer can keep and reproduce: what was measured
(the engine's version; each tokenizer's file and its SHA-256; each text's SHA-256 and, for the
shipped declarations, the package they come from), the summary per tokenizer, the premium of
every language as a chart (inline SVG: no file beside it, nothing fetched), the tokens per script,
and every figure of every tokenizer and text. Qt-free: the command line's `audit --html` writes
it, and the Audit tab will. Nothing is measured here; the figures are `engine.analysis.audit`'s.
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import io
import math
from collections.abc import Sequence
from html import escape
from typing import Final

import engine
from engine.analysis.audit import (
    COMMON_SIZES,
    COMPRESSION_NOTE,
    CSV_COLUMNS,
    AuditText,
    EmbeddingCost,
    TextCost,
    percentile,
    summaries,
)
from engine.tokenizer import Tokenizer
from workbench.core.formatting import human_size

# Where the table of every figure starts: sections added later go before it (`with_sections`).
COSTS_HEADING: Final = "<h2>Every tokenizer and text</h2>"
# One colour per tokenizer, in order (then again from the start).
SERIES_COLOURS: Final = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf")
# Past this share of unknown tokens a text's premium is said to understate its cost (a run of
# characters the vocabulary lacks can be one token).
UNCOVERED_RATE: Final = 0.01
CHART_WIDTH: Final = 960
# From this many languages on, the premium chart draws the second and later tokenizers as dots.
DOTS_FROM: Final = 120
CHART_HEIGHT: Final = 320
MARGIN: Final = 48
STYLE: Final = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f0f0f0; position: sticky; top: 0; }
.note { background: #fff8e0; border-left: 4px solid #e0b000; padding: 0.5em 1em; }
code { font-size: 12px; }
"""


class TokenizerFile:
    """A tokenizer as the report names it: its name in the results, the file it was read from,
    and that file's SHA-256."""

    name: str
    path: str
    sha256: str

    def __init__(self, name: str, path: str, sha256: str) -> None:
        self.name = name
        self.path = path
        self.sha256 = sha256

    @staticmethod
    def of(name: str, path: str) -> TokenizerFile:
        with open(path, "rb") as handle:
            return TokenizerFile(name, path, hashlib.file_digest(handle, "sha256").hexdigest())


def embedding_rows(tokenizers: list[tuple[str, Tokenizer]], hidden: int, dtype: str, tied: bool) -> list[tuple[str, EmbeddingCost]]:
    """The embedding's cost for each tokenizer's vocabulary (first, in order), then for
    `COMMON_SIZES`, labelled."""
    rows = [(name, EmbeddingCost(tokenizer.get_vocab_size(True), hidden, dtype, tied)) for name, tokenizer in tokenizers]
    return rows + [(f"{size:,} tokens", EmbeddingCost(size, hidden, dtype, tied)) for size in COMMON_SIZES]


def csv_text(costs: list[TextCost]) -> str:
    """The CSV: a header of `CSV_COLUMNS`, then one row per tokenizer and text."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for cost in costs:
        writer.writerow(cost.csv_row())
    return buffer.getvalue()


def text_sha256(text: AuditText) -> str:
    """The SHA-256 of a text as measured: its articles in order, each as "<number>\\t<text>\\n"
    in UTF-8 (so that a changed, added or dropped article changes it)."""
    digest = hashlib.sha256()
    for number in sorted(text.articles):
        digest.update(f"{number}\t{text.articles[number]}\n".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def html_report(
    costs: Sequence[TextCost],
    tokenizers: Sequence[TokenizerFile],
    sources: dict[str, str],
    made: datetime.datetime | None = None,
    embeddings: Sequence[tuple[str, EmbeddingCost]] = (),
    sections: Sequence[str] = (),
) -> str:
    """The whole report. `sources`: where the shipped texts come from (`parallel_text.udhr_source()`);
    `embeddings`: the embedding's cost at the vocabulary sizes to show, labelled; `sections`:
    more of the report, as HTML (`workbench.core.vocab_reports`'), before every figure's table."""
    made = made or datetime.datetime.now(datetime.timezone.utc)
    texts: list[AuditText] = []
    seen: set[int] = set()  # (the texts' ids: a text is one object, whatever its tokenizer)
    for cost in costs:
        if id(cost.text) not in seen:
            seen.add(id(cost.text))
            texts.append(cost.text)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>Tokenizer audit</title>',
        f"<style>{STYLE}</style></head><body>",
        "<h1>Tokenizer audit</h1>",
        f"<p>Made {escape(made.strftime('%Y-%m-%d %H:%M UTC'))} by Tokenizer Workbench, engine "
        f"{escape(engine.__version__)} ({'compiled' if engine.COMPILED else 'pure Python'}).</p>",
        f'<p class="note">{escape(COMPRESSION_NOTE)}</p>',
        "<h2>Tokenizers</h2>",
        html_table(["name", "file", "SHA-256"], [[t.name, t.path, t.sha256] for t in tokenizers], "tokenizers"),
        "<h2>Summary</h2>",
        "<p>The premium of a language is its tokens over English's, with the same tokenizer, on the "
        "articles both texts have (Petrov et al. 2023). Gini: 0 when every language costs the same.</p>",
        html_table(list(SUMMARY_HEADERS), summary_table(costs), "summary"),
        "<h2>Premium per language</h2>",
        "<p>Languages sorted by the first tokenizer's premium; one line per tokenizer; 1 is English.</p>",
        premium_chart(costs),
        "<h2>Tokens per script</h2>",
        "<p>The median premium of the languages written in each script, per tokenizer.</p>",
        script_chart(costs),
        *_embedding_section(embeddings),
        *sections,
        COSTS_HEADING,
        html_table(list(CSV_COLUMNS), [cost.csv_row() for cost in costs], "costs"),
        "<h2>Texts</h2>",
        "<p>Shipped declarations: " + escape(", ".join(f"{key} {value}" for key, value in sources.items())) + ".</p>",
        html_table(
            ["text", "kind", "ISO 639-3", "script", "articles", "SHA-256"],
            [[t.name, t.kind, t.iso639_3, t.script, str(len(t.articles)), text_sha256(t)] for t in texts],
            "texts",
        ),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


EMBEDDING_HEADERS: Final = ("vocabulary of", "tokens", "input embedding", "output projection", "parameters", "memory")
SUMMARY_HEADERS: Final = (
    "tokenizer", "tokens", "languages", "median premium", "90th percentile", "worst language", "Gini",
    "unknown tokens", "texts decoded back",
)  # fmt: skip


def with_sections(report: str, sections: Sequence[str]) -> str:
    """`report` (`html_report`'s) with `sections` added where `html_report` puts them."""
    added = "\n".join(section for section in sections if section)
    return report.replace(COSTS_HEADING, added + "\n" + COSTS_HEADING, 1) if added else report


def embedding_table(embeddings: Sequence[tuple[str, EmbeddingCost]]) -> list[list[str]]:
    """One row of `EMBEDDING_HEADERS` per labelled embedding."""
    return [
        [label, f"{cost.vocabulary:,}", f"{cost.input_parameters:,}", f"{cost.output_parameters:,}", f"{cost.parameters:,}", human_size(cost.bytes)]
        for label, cost in embeddings
    ]


def embedding_note(cost: EmbeddingCost) -> str:
    """"Hidden size 768, stored in bf16; the output projection is tied to the input embedding."."""
    tied = "tied to the input embedding" if cost.tied else "a matrix of its own (untied)"
    return f"Hidden size {cost.hidden:,}, stored in {cost.dtype}; the output projection is {tied}."


def _embedding_section(embeddings: Sequence[tuple[str, EmbeddingCost]]) -> list[str]:
    if not embeddings:
        return []
    return [
        "<h2>Embedding cost</h2>",
        f"<p>{escape(embedding_note(embeddings[0][1]))}</p>",
        html_table(list(EMBEDDING_HEADERS), embedding_table(embeddings), "embedding"),
    ]


def summary_table(costs: Sequence[TextCost]) -> list[list[str]]:
    """One row of `SUMMARY_HEADERS` per tokenizer."""
    rows: list[list[str]] = []
    for summary in summaries(costs):
        own = [cost for cost in costs if cost.tokenizer == summary.tokenizer]
        tokens = sum(cost.tokens for cost in own)
        unknown = sum(cost.unknown for cost in own)
        back = sum(1 for cost in own if cost.round_trip)
        rows.append([
            summary.tokenizer, f"{tokens:,}", str(summary.languages), f"{summary.median:.2f}", f"{summary.p90:.2f}",
            f"{summary.worst} ({summary.worst_premium:.2f})" if summary.worst else "", f"{summary.gini:.3f}",
            f"{unknown / tokens:.2%}" if tokens else "", f"{back} of {len(own)}",
        ])  # fmt: skip
    return rows


def html_table(headers: list[str], rows: list[list[str]], name: str) -> str:
    lines = [f'<table id="{escape(name)}"><thead><tr>' + "".join(f"<th>{escape(h)}</th>" for h in headers) + "</tr></thead><tbody>"]
    for row in rows:
        cells = "".join(
            f'<td class="n">{escape(cell)}</td>' if _numeric(cell) else f"<td>{escape(cell)}</td>" for cell in row
        )
        lines.append(f"<tr>{cells}</tr>")
    lines.append("</tbody></table>")
    return "\n".join(lines)


def _numeric(cell: str) -> bool:
    return bool(cell) and cell.replace(",", "").replace(".", "", 1).replace("%", "").isdigit()


def premium_chart(costs: Sequence[TextCost]) -> str:
    """An SVG line chart: every language's premium, sorted by the first tokenizer's."""
    order, series = premium_series(costs)
    if not series:
        return "<p>No premiums: English is not among the texts measured.</p>"
    top = max(max(values.values()) for values in series.values())
    top = max(top, 1.0) * 1.05
    width = CHART_WIDTH - 2 * MARGIN
    height = CHART_HEIGHT - 2 * MARGIN
    step = width / max(len(order) - 1, 1)
    parts = [svg_open("Premium over English per language"), svg_axes(top, "premium over English")]
    one = CHART_HEIGHT - MARGIN - height / top
    parts.append(f'<line x1="{MARGIN}" y1="{one:.1f}" x2="{CHART_WIDTH - MARGIN}" y2="{one:.1f}" stroke="#888" stroke-dasharray="4 3"/>')
    parts.append(f'<text x="{CHART_WIDTH - MARGIN + 4}" y="{one + 4:.1f}" font-size="10" fill="#555">English</text>')
    for index, (name, values) in enumerate(series.items()):
        colour = SERIES_COLOURS[index % len(SERIES_COLOURS)]
        placed = [
            (MARGIN + position * step, CHART_HEIGHT - MARGIN - height * values[language] / top, language)
            for position, language in enumerate(order)
            if language in values
        ]
        if index == 0 or len(order) <= DOTS_FROM:
            points = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in placed)
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{points}"><title>{escape(name)}</title></polyline>')
        else:
            # (in the first's order the others zigzag: a line through hundreds is a solid band)
            parts += [
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="1.8" fill="{colour}"><title>{escape(name)}, {escape(language)}: {values[language]:.2f}</title></circle>'
                for x, y, language in placed
            ]
        parts.append(svg_legend(index, name, colour))
    worst = order[-1]
    parts.append(f'<text x="{CHART_WIDTH - MARGIN}" y="{MARGIN - 6}" text-anchor="end" font-size="11">highest: {escape(worst)}</text>')
    parts.append(f'<text x="{CHART_WIDTH / 2:.0f}" y="{CHART_HEIGHT - 10}" text-anchor="middle" font-size="12">{len(order)} languages, cheapest to dearest</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def premium_series(costs: Sequence[TextCost]) -> tuple[list[str], dict[str, dict[str, float]]]:
    """The languages that have a premium, cheapest first by the first tokenizer's premium (then
    by name), and each tokenizer's premium per language: what the premium charts draw."""
    series: dict[str, dict[str, float]] = {}
    for cost in costs:
        if cost.premium is not None:
            series.setdefault(cost.tokenizer, {})[cost.text.name] = cost.premium
    if not series:
        return [], {}
    first = next(iter(series.values()))
    return sorted(first, key=lambda name: (first[name], name)), series


def uncovered_languages(costs: Sequence[TextCost]) -> dict[str, set[str]]:
    """Per tokenizer, the languages whose premium understates their cost: more than
    `UNCOVERED_RATE` of their tokens are unknown."""
    found: dict[str, set[str]] = {}
    for cost in costs:
        if cost.premium is not None and cost.unknown_rate > UNCOVERED_RATE:
            found.setdefault(cost.tokenizer, set()).add(cost.text.name)
    return found


def script_medians(costs: Sequence[TextCost]) -> tuple[list[str], list[str], dict[str, dict[str, float]], dict[str, int]]:
    """Per script (ISO 15924), the median premium of its languages under each tokenizer: the
    scripts (sorted), the tokenizers (in order), script -> tokenizer -> median, and how many
    languages each script has (under the first tokenizer)."""
    by_script: dict[str, dict[str, list[float]]] = {}
    names: list[str] = []
    for cost in costs:
        if cost.tokenizer not in names:
            names.append(cost.tokenizer)
        if cost.premium is not None:
            by_script.setdefault(cost.text.script, {}).setdefault(cost.tokenizer, []).append(cost.premium)
    scripts = sorted(by_script)
    medians = {
        script: {name: percentile(sorted(values), 50.0) for name, values in by_script[script].items()} for script in scripts
    }
    languages = {script: len(next(iter(by_script[script].values()))) for script in scripts}
    return scripts, names, medians, languages


def script_chart(costs: Sequence[TextCost]) -> str:
    """An SVG bar chart: per script, the median premium of its languages, a bar per tokenizer."""
    scripts, names, medians, _ = script_medians(costs)
    if not scripts:
        return "<p>No premiums: English is not among the texts measured.</p>"
    top = max(max(values.values()) for values in medians.values()) * 1.05
    width = CHART_WIDTH - 2 * MARGIN
    height = CHART_HEIGHT - 2 * MARGIN
    group = width / len(scripts)
    bar = group * 0.8 / max(len(names), 1)
    parts = [svg_open("Median premium per script"), svg_axes(top, "median premium")]
    for position, script in enumerate(scripts):
        left = MARGIN + position * group + group * 0.1
        for index, name in enumerate(names):
            value = medians[script].get(name)
            if value is None:
                continue
            colour = SERIES_COLOURS[index % len(SERIES_COLOURS)]
            tall = height * value / top
            parts.append(
                f'<rect x="{left + index * bar:.1f}" y="{CHART_HEIGHT - MARGIN - tall:.1f}" width="{bar:.1f}" '
                f'height="{tall:.1f}" fill="{colour}"><title>{escape(name)}, {escape(script)}: {value:.2f}</title></rect>'
            )
        parts.append(
            f'<text x="{left + group * 0.4:.1f}" y="{CHART_HEIGHT - MARGIN + 14}" text-anchor="middle" font-size="10">{escape(script)}</text>'
        )
    for index, name in enumerate(names):
        parts.append(svg_legend(index, name, SERIES_COLOURS[index % len(SERIES_COLOURS)]))
    parts.append("</svg>")
    return "\n".join(parts)


def svg_open(title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{CHART_WIDTH}" height="{CHART_HEIGHT}" '
        f'viewBox="0 0 {CHART_WIDTH} {CHART_HEIGHT}" role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>'
        f'<rect width="{CHART_WIDTH}" height="{CHART_HEIGHT}" fill="white"/>'
    )


def svg_axes(top: float, label: str) -> str:
    bottom = CHART_HEIGHT - MARGIN
    height = CHART_HEIGHT - 2 * MARGIN
    parts = [
        f'<line x1="{MARGIN}" y1="{MARGIN}" x2="{MARGIN}" y2="{bottom}" stroke="#333"/>',
        f'<line x1="{MARGIN}" y1="{bottom}" x2="{CHART_WIDTH - MARGIN}" y2="{bottom}" stroke="#333"/>',
        f'<text x="12" y="{CHART_HEIGHT / 2:.0f}" transform="rotate(-90 12 {CHART_HEIGHT / 2:.0f})" text-anchor="middle" font-size="12">{escape(label)}</text>',
    ]
    step = tick_step(top)
    value = 0.0
    while value <= top:
        y = bottom - height * value / top
        parts.append(f'<text x="{MARGIN - 4}" y="{y + 4:.1f}" text-anchor="end" font-size="10">{value:g}</text>')
        parts.append(f'<line x1="{MARGIN - 2}" y1="{y:.1f}" x2="{MARGIN}" y2="{y:.1f}" stroke="#333"/>')
        value = round(value + step, 6)
    return "\n".join(parts)


def tick_step(top: float) -> float:
    """A round step for an axis from 0 to `top` with at most 6 ticks past 0: 5.4 -> 1; 0.9 -> 0.2."""
    scale = 10.0 ** math.floor(math.log10(top)) if top > 0 else 1.0
    for factor in (0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 2.5, 5.0, 10.0):
        if top / (factor * scale) <= 6:
            return factor * scale
    return 10.0 * scale


def svg_legend(index: int, name: str, colour: str) -> str:
    y = MARGIN + 14 * index
    return (
        f'<rect x="{MARGIN + 8}" y="{y - 9}" width="10" height="10" fill="{colour}"/>'
        f'<text x="{MARGIN + 22}" y="{y}" font-size="11">{escape(name)}</text>'
    )


UNICODE_FORM_HEADERS: Final = ("form", "same text", "code points", "same ids", "tokens", "text")


def unicode_section(report: dict[str, object] | None, corpus: Sequence[dict[str, object]], tokenizer: str) -> str:
    """The report's Unicode section: a text under each normal form with the tokens `tokenizer`
    gives it and its flags (`unicode_report`'s, as the encoding process sends them), and per
    corpus file the lines each form changes and each flag marks (`CorpusForms.to_wire()`)."""
    if report is None and not corpus:
        return ""
    parts = ["<h2>Unicode</h2>"]
    if report is not None:
        forms = report["forms"]
        flags = report["flags"]
        assert isinstance(forms, list) and isinstance(flags, dict)
        rows: list[list[str]] = []
        for form in forms:
            assert isinstance(form, dict)
            ids = form["ids"]
            same = form["same_ids"]
            rows.append([
                str(form["form"]), "yes" if form["equals_original"] else "no", str(form["code_points"]),
                "" if same is None else ("yes" if same else "no"), str(len(ids)) if isinstance(ids, list) else "",
                str(form["text"]),
            ])  # fmt: skip
        counts = flags["counts"]
        assert isinstance(counts, dict)
        flagged = ", ".join(f"{count} {flag}" for flag, count in counts.items() if count)
        parts += [
            f"<p>A text under each normal form, encoded with {escape(tokenizer) if tokenizer else 'no tokenizer'}. "
            f"Flagged: {escape(flagged) if flagged else 'nothing'}.</p>",
            html_table(list(UNICODE_FORM_HEADERS), rows, "unicode-forms"),
        ]
    if corpus:
        names: list[str] = []
        for result in corpus:
            for key in ("changed", "flagged"):
                values = result[key]
                assert isinstance(values, dict)
                names += [str(name) for name in values if str(name) not in names]
        rows = []
        for result in corpus:
            changed, flagged_lines = result["changed"], result["flagged"]
            assert isinstance(changed, dict) and isinstance(flagged_lines, dict)
            merged = {**changed, **flagged_lines}
            rows.append([str(result["source"]), f"{int(str(result['lines'])):,}"] + [f"{int(str(merged.get(name, 0))):,}" for name in names])
        parts += ["<p>Lines of each corpus file that each normal form changes and each flag marks.</p>", html_table(["file", "lines", *names], rows, "unicode-corpus")]
    return "\n".join(parts)
