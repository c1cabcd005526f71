"""The Audit tab: it measures in a child process and shows the engine's own figures (every row of
its table equals `engine.analysis.audit` run here on the same texts), its charts draw the premiums
and script medians the HTML report draws, its exports are the files the command line writes, it
says why it cannot run, names a bad file, and stops when asked."""

from __future__ import annotations

import csv
import time
import io
from html.parser import HTMLParser
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine import Tokenizer, models, normalizers, pre_tokenizers
from engine.analysis.audit import CSV_COLUMNS, AuditText, add_premiums, audit
from support import corpus_path, edit_saved_index, train_byte_level, without_round_points
from engine.analysis.size_curve import SizeCurve, held_out_words, rounds_curve, size_curve
from engine.analysis.unicode_report import corpus_forms, normal_forms
from engine.analysis.vocab_compare import compare_vocabularies
from engine.analysis.vocab_health import vocabulary_health
from window_support import cell_text, train_and_wait
from workbench.core.formatting import MB
from workbench.core.held_out import held_out_split
from workbench.jobs.children import audit as audit_child
from workbench.jobs.children.audit import SHARED_FROM, Claims, measure_all, warm_up
from workbench.core.vocab_reports import CATEGORIES, LISTED, shown_up_to
from workbench.jobs.children.vocab_health import CORPUS
from workbench.jobs.children.size_curves import (
    CHANGED,
    ENGLISH,
    NO_ROUNDS,
    NOT_MEASURED,
    OTHER_TEXT,
    OWN_HELD_OUT,
    USER_FILES,
    exact_unigram_curve,
)
from engine.trainers.records import RoundStep
from workbench.core.settings import Settings
from engine.corpus.checks import check_file
from workbench.core.audit_report import premium_series, script_medians
from workbench.core.audit_texts import shipped_code, shipped_languages
from workbench.core.parallel_text import load_udhr
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts
from workbench.window.tabs.audit import HEALTH_PAGE, PREMIUM_PAGE, SCRIPT_PAGE, SIZE_PAGE, UNICODE_PAGE, AuditTab
from workbench.window.views.unicode_page import NO_TOKENIZER

LANGUAGES = ("eng", "hin", "rus")
AUDIT_MS = 120_000


@pytest.fixture(scope="module")
def byte_level_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("audit-tab") / "english-bpe.json"
    english = next(text for text in load_udhr() if text.key == "eng")
    train_byte_level(english.articles.values(), 400).save(str(path))
    return path


def audit_tab(window: MainWindow, *paths: Path) -> AuditTab:
    for path in paths:
        window.document.import_tokenizer(str(path))
    window.tabs.setCurrentWidget(window.audit_tab)
    return window.audit_tab


def run_and_wait(qtbot: QtBot, tab: AuditTab) -> None:
    with qtbot.waitSignal(tab.ran, timeout=AUDIT_MS):
        tab.run_button.click()
    tab.flush()  # (a page is drawn when first shown)


def test_the_table_holds_the_engine_s_figures_and_the_charts_the_report_s(
    qtbot: QtBot, window: MainWindow, byte_level_path: Path
) -> None:
    bert = corpus_path("bert_uncased_tokenizer.json")
    tab = audit_tab(window, byte_level_path, bert)
    assert [tab.tokenizers.item(i).text() for i in range(tab.tokenizers.count())] == [byte_level_path.name, bert.name]
    tab.languages.setText(", ".join(LANGUAGES))
    records: list[object] = []
    tab.job.progressed.connect(records.append)
    run_and_wait(qtbot, tab)

    texts = shipped_languages(list(LANGUAGES)) + shipped_code()
    expected = audit([(path.name, Tokenizer.from_file(str(path))) for path in (byte_level_path, bert)], texts)
    model = tab.table_model
    assert model.columns == list(CSV_COLUMNS)
    assert model.rowCount() == len(expected) == 2 * (len(texts))
    assert [row for row in model.rows] == [cost.values() for cost in expected]
    tokens = CSV_COLUMNS.index("tokens")
    counts = [row[tokens] for row in model.rows]
    assert all(isinstance(count, int) and count > 0 for count in counts)
    # progress came while it ran, and ended at every text
    assert records and records[-1] == (len(texts), len(texts), "writing the report")
    assert tab.progress.text() == "done"
    assert tab.status.text().startswith(f"Measured {len(texts)} texts with 2 tokenizers")

    # the summary: a row per tokenizer, English's premium is 1
    assert [cell_text(tab.summary, row, 0) for row in range(tab.summary.rowCount())] == [byte_level_path.name, bert.name]
    english = [row for row in model.rows if row[CSV_COLUMNS.index("iso639_3")] == "eng"]
    assert {row[CSV_COLUMNS.index("premium_over_english")] for row in english} == {1.0}
    vocabulary = Tokenizer.from_file(str(bert)).get_vocab_size(True)
    assert cell_text(tab.embedding, 1, 1) == f"{vocabulary:,}"
    assert cell_text(tab.embedding, 1, 2) == f"{vocabulary * 768:,}"
    own = [point for point in tab.embedding_chart.points if point[3]]
    assert own[1] == (bert.name, vocabulary, vocabulary * 768 * 2, True)  # bf16: 2 bytes a number

    # the charts draw what the HTML report draws
    order, series = premium_series(expected)
    chart = tab.premium_chart
    assert chart.languages == order
    assert chart.series == {name: [values.get(language) for language in order] for name, values in series.items()}
    assert "English" in chart.describe(order.index("English"))
    scripts, names, medians, _ = script_medians(expected)
    assert (tab.script_chart.scripts, tab.script_chart.names, tab.script_chart.medians) == (scripts, names, medians)
    assert {"Latn", "Deva", "Cyrl"} <= set(scripts)

    # sorting by a figure sorts by its value, not its text
    model.sort(tokens, Qt.SortOrder.DescendingOrder)
    shown = [int(str(model.rows[model.row_of(model.index(row, 0))][tokens])) for row in range(model.rowCount())]
    assert shown == sorted(shown, reverse=True)
    model.set_filter("hindi")
    assert model.rowCount() == 2 and {model.text_of(row) for row in range(2)} == {"Hindi"}


def test_exports_are_the_command_line_s_files(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, byte_level_path: Path, tmp_path: Path
) -> None:
    tab = audit_tab(window, byte_level_path)
    assert not tab.csv_button.isEnabled() and tab.csv_button.toolTip() == "Run an audit first."
    tab.languages.setText("eng, deu")
    tab.code_box.setChecked(False)
    run_and_wait(qtbot, tab)
    # the size curves drawn since join the HTML report
    tab.size_page.source.setCurrentIndex(tab.size_page.source.findData(ENGLISH))
    with qtbot.waitSignal(tab.size_page.job.finished, timeout=AUDIT_MS):
        tab.size_page.button.click()
    outputs = [tmp_path / "audit.csv", tmp_path / "audit.html", tmp_path / "premiums.png", tmp_path / "scripts.png"]
    prompts.answers["export_file"] = [str(path) for path in outputs]
    for click in (tab.csv_button.click, tab.html_button.click):
        with qtbot.waitSignal(tab.writer.finished, timeout=20_000):
            click()
    assert not tab.png_button.isEnabled()  # (the summary shows no chart)
    for page in (PREMIUM_PAGE, SCRIPT_PAGE):
        tab.pages.setCurrentIndex(page)
        with qtbot.waitSignal(tab.writer.finished, timeout=20_000):
            tab.png_button.click()
    assert tab.status.text() == f"Wrote {outputs[-1]}."

    rows = list(csv.reader(io.StringIO(outputs[0].read_text(encoding="utf-8"))))
    assert rows[0] == list(CSV_COLUMNS)
    assert [row[1] for row in rows[1:]] == [text.name for text in shipped_languages(["eng", "deu"])]
    assert [row[7] for row in rows[1:]] == [str(row[7]) for row in tab.table_model.rows]

    class Tables(HTMLParser):
        found: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "table":
                self.found.append(dict(attrs).get("id") or "")

    parser = Tables()
    parser.feed(outputs[1].read_text(encoding="utf-8"))
    assert parser.found == ["tokenizers", "summary", "embedding", "size-curves", "costs", "texts"]
    for png in outputs[2:]:
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_run_says_why_it_cannot(window: MainWindow, byte_level_path: Path) -> None:
    tab = audit_tab(window)
    assert not tab.run_button.isEnabled()
    assert "no trained tokenizer" in tab.run_button.toolTip()
    tab = audit_tab(window, byte_level_path)
    assert tab.run_button.isEnabled()
    tab.set_chosen([])
    assert not tab.run_button.isEnabled() and tab.run_button.toolTip() == "Check at least one tokenizer."
    tab.set_chosen([byte_level_path.name])
    tab.languages_box.setChecked(False)
    tab.code_box.setChecked(False)
    assert not tab.run_button.isEnabled() and tab.run_button.toolTip().startswith("Choose texts")
    tab.code_box.setChecked(True)
    assert tab.run_button.isEnabled()


def test_a_bad_file_or_language_is_named_and_the_last_figures_stay(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, byte_level_path: Path, tmp_path: Path
) -> None:
    tab = audit_tab(window, byte_level_path)
    tab.languages.setText("eng")
    run_and_wait(qtbot, tab)
    shown = list(tab.table_model.rows)
    binary = tmp_path / "weights.bin"
    binary.write_bytes(bytes(range(256)) * 40)
    prompts.answers["corpus_files"] = [str(binary)]
    tab.add_files_button.click()
    assert tab.paths() == [str(binary)]
    with qtbot.waitSignal(tab.job.failed, timeout=AUDIT_MS):
        tab.run_button.click()
    assert str(binary) in tab.status.text() and tab.status.text().startswith("The audit stopped:")
    assert tab.table_model.rows == shown and tab.run_button.isEnabled()

    tab.files.setCurrentRow(0)
    tab.remove_file_button.click()
    tab.languages.setText("eng, xyz")
    with qtbot.waitSignal(tab.job.failed, timeout=AUDIT_MS):
        tab.run_button.click()
    assert "no shipped declaration in xyz" in tab.status.text()


def test_stop_ends_the_process_and_a_changed_project_is_noticed(qtbot: QtBot, window: MainWindow, byte_level_path: Path) -> None:
    tab = audit_tab(window, byte_level_path)
    tab.run_button.click()  # every shipped language: seconds of work
    assert tab.is_running() and tab.stop_button.isEnabled() and not tab.tokenizers.isEnabled()
    tab.stop_button.click()
    assert not tab.is_running() and tab.status.text() == "Stopped." and tab.run_button.isEnabled()

    tab.languages.setText("eng")
    run_and_wait(qtbot, tab)
    window.document.rename_tokenizer(0, "renamed")
    assert "changed since this audit" in tab.status.text()


def train_holding_out(qtbot: QtBot, window: MainWindow, corpus: Path, preset: str) -> None:
    """A new project on `corpus`, a `preset` tokenizer of 400 trained in the window, 5 % of the
    corpus held out (the lines its size curve is measured on)."""
    window.new_project()
    window.document.add_checked_files([check_file(str(corpus))])
    window.document.add_preset(preset, vocab_size=400)
    window.train_tab.held_out.setValue(5.0)
    train_and_wait(qtbot, window)


def test_size_curves_are_the_engine_s_on_the_held_out_lines_or_the_english_declaration(
    qtbot: QtBot, window: MainWindow, small_corpus: Path, byte_level_path: Path
) -> None:
    train_holding_out(qtbot, window, small_corpus, "bpe")
    tab = audit_tab(window, byte_level_path)
    trained, imported = (entry for entry in window.document.project.tokenizers)
    tab.pages.setCurrentIndex(SIZE_PAGE)
    assert tab.size_page.source.currentData() == OWN_HELD_OUT and not tab.png_button.isEnabled()
    with qtbot.waitSignal(tab.size_page.job.finished, timeout=AUDIT_MS):
        tab.size_page.button.click()
    # the trained one on the lines its training held out; the imported one has none, and says so
    assert [curve["name"] for curve in tab.size_page.curves] == [trained.name]
    assert f"{imported.name}: no held-out lines" in tab.size_page.status.text()
    assert trained.result is not None and trained.result.trained_on is not None
    held = held_out_split([item.path for item in trained.result.trained_on.files], trained.result.trained_on.held_out)[1]
    assert held
    tokenizer = Tokenizer.from_str(trained.trained_json or "")
    counts, characters = held_out_words(tokenizer, held.splitlines())
    expected = size_curve(tokenizer, counts, characters)
    curve = tab.size_page.curves[0]
    assert (curve["sizes"], curve["per_character"], curve["knee"]) == (expected.sizes, expected.tokens_per_character, expected.knee_index)
    assert cell_text(tab.size_page.table, 0, 5) == f"{expected.knee_size:,}"
    assert tab.png_button.isEnabled()
    assert "at 100" in tab.size_page.chart.describe(100.5) or expected.sizes[0] > 100

    tab.size_page.source.setCurrentIndex(tab.size_page.source.findData(ENGLISH))
    with qtbot.waitSignal(tab.size_page.job.finished, timeout=AUDIT_MS):
        tab.size_page.button.click()
    assert [curve["text"] for curve in tab.size_page.curves] == ["the English declaration"] * 2
    english = list(shipped_languages(["eng"])[0].articles.values())
    bpe = Tokenizer.from_file(str(byte_level_path))
    expected = size_curve(bpe, *held_out_words(bpe, english))
    assert tab.size_page.curves[1]["per_character"] == expected.tokens_per_character
    assert [curve.name for curve in tab.size_page.chart.curves] == [trained.name, imported.name]

    tab.size_page.source.setCurrentIndex(tab.size_page.source.findData(USER_FILES))
    with qtbot.waitSignal(tab.size_page.job.failed, timeout=AUDIT_MS):
        tab.size_page.button.click()
    assert "add files of your own" in tab.size_page.status.text()


def test_a_unigram_trained_here_has_the_exact_curve_of_its_rounds_and_an_old_project_the_approximate_one(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path, tmp_path: Path
) -> None:
    train_holding_out(qtbot, window, small_corpus, "sentencepiece-unigram")
    entry = window.document.project.tokenizers[0]
    assert entry.result is not None and entry.report is not None and entry.result.trained_on is not None
    tab = audit_tab(window)
    tab.pages.setCurrentIndex(SIZE_PAGE)
    page = tab.size_page
    with qtbot.waitSignal(page.job.finished, timeout=AUDIT_MS):
        page.button.click()

    # from the trained size up, exactly: the sizes its rounds passed through, as they were measured
    exact = rounds_curve(entry.report.history.rounds, entry.result.round_points)
    assert exact is not None and len(exact.sizes) >= 3
    curve = page.curves[0]
    assert (curve["sizes"], curve["per_character"], curve["knee"]) == (exact.sizes, exact.tokens_per_character, exact.knee_index)
    assert curve["exact"] and curve["rounds"] == exact.rounds and curve["trained"] == exact.trained_index == 0
    assert exact.sizes[0] == 400 == curve["size"] and exact.sizes[-1] == entry.result.round_points[0][1]  # the seed's
    # ...which are what the page measures now at the trained size; below it, the top pieces, dashed
    held = held_out_split([item.path for item in entry.result.trained_on.files], entry.result.trained_on.held_out)[1]
    tokenizer = Tokenizer.from_str(entry.trained_json or "")
    approximate = size_curve(tokenizer, *held_out_words(tokenizer, held.splitlines()))
    assert (approximate.tokens[-1], approximate.characters) == (exact.tokens[0], exact.characters)
    assert curve["below_sizes"] == approximate.sizes and curve["below_per_character"] == approximate.tokens_per_character
    below = len(approximate.sizes) - 1
    assert cell_text(page.table, 0, 3) == "400" and cell_text(page.table, 0, 4) == f"{exact.tokens_per_character[0]:.3f}"
    assert cell_text(page.table, 0, 10) == f"{len(exact.sizes)} exact (its rounds) + {below} approximate below"
    assert f"exact at the {len(exact.sizes)} sizes its training rounds passed through (400 to {exact.sizes[-1]:,}), approximate below 400" in page.status.text()
    drawn = page.chart.curves[0]
    assert drawn.rounds and drawn.exact and drawn.below_sizes == approximate.sizes
    # the seed's thousands of pieces wait past the chart's edge, a zoom away
    shown = page.chart.plot.getPlotItem().getViewBox().viewRange()[0]
    assert shown_up_to([drawn]) < exact.sizes[-1] and shown[1] < exact.sizes[-1]
    assert f"of {exact.sizes[-1]:,}: zoom out" in page.chart.plot.getPlotItem().getAxis("bottom").labelText
    assert "(approximate)" in page.chart.describe(approximate.sizes[1]) and "(approximate)" not in page.chart.describe(exact.sizes[1])
    assert f"at {exact.sizes[1]:,}: {exact.tokens_per_character[1]:.3f}" in page.chart.describe(exact.sizes[1])

    # on other text, the rounds are not what was measured: the top pieces alone, said so
    page.source.setCurrentIndex(page.source.findData(ENGLISH))
    with qtbot.waitSignal(page.job.finished, timeout=AUDIT_MS):
        page.button.click()
    assert not page.curves[0]["exact"] and not page.curves[0]["below_sizes"]
    assert f"{entry.name}: approximate: {OTHER_TEXT}" in page.status.text()
    assert cell_text(page.table, 0, 10).endswith("(approximate)")

    # a project saved before rounds were measured: the top pieces, and why
    path = tmp_path / "old.tokproj"
    prompts.answers["save_project"] = str(path)
    assert window.save_as()
    edit_saved_index(path, without_round_points)
    again = MainWindow(Settings(), ScriptedPrompts(confirm=True))
    qtbot.addWidget(again)
    assert again.open_file(str(path))
    old = again.document.project.tokenizers[0]
    assert old.result is not None and old.result.round_points == [] and old.report is not None
    old_tab = audit_tab(again)
    old_tab.pages.setCurrentIndex(SIZE_PAGE)
    with qtbot.waitSignal(old_tab.size_page.job.finished, timeout=AUDIT_MS):
        old_tab.size_page.button.click()
    shown = old_tab.size_page.curves[0]
    assert not shown["exact"] and shown["sizes"] == approximate.sizes and shown["per_character"] == approximate.tokens_per_character
    assert f"{old.name}: approximate: {NOT_MEASURED}" in old_tab.size_page.status.text()
    again.shutdown()


def test_a_unigram_s_rounds_give_its_curve_only_where_they_were_measured() -> None:
    steps = [RoundStep(0, "seed", 30, 0, -9.0), RoundStep(1, "prune", 20, 10, -9.5), RoundStep(2, "finalize", 12, 8, -10.0)]
    points = [(0, 31, 90, 100), (2, 12, 120, 100)]
    measured = ([step.to_dict() for step in steps], points)
    approximate = SizeCurve("Unigram", [5, 12], [200, 120], 100, False)
    exact, why = exact_unigram_curve(measured, approximate, 12, True)
    assert exact is not None and (exact.sizes, exact.tokens, why) == ([12, 31], [120, 90], "")
    assert exact_unigram_curve(None, approximate, 12, True) == (None, NO_ROUNDS)
    assert exact_unigram_curve(measured, approximate, 12, False) == (None, OTHER_TEXT)
    assert exact_unigram_curve(([step.to_dict() for step in steps], []), approximate, 12, True) == (None, NOT_MEASURED)
    changed = SizeCurve("Unigram", [5, 12], [200, 121], 100, False)
    assert exact_unigram_curve(measured, changed, 12, True) == (None, CHANGED)


def test_a_second_process_measures_texts_too_and_every_figure_is_the_same(byte_level_path: Path) -> None:
    """`measure_all` shares the texts with a second process (`Claims`) and puts the
    answers back in order: every figure equals the engine's audit in this process."""
    texts = shipped_languages()[:SHARED_FROM // 2] + shipped_code()
    bert = corpus_path("bert_uncased_tokenizer.json")
    named = [(path.name, Tokenizer.from_file(str(path)).to_str()) for path in (byte_level_path, bert)]
    tokenizers = [(name, Tokenizer.from_str(text)) for name, text in named]
    assert len(tokenizers) * len(texts) >= SHARED_FROM
    costs = measure_all(named, tokenizers, texts, None)
    add_premiums(costs)
    expected = audit(tokenizers, texts)
    assert [cost.values() for cost in costs] == [cost.values() for cost in expected]
    assert [cost.round_trip_causes for cost in costs] == [cost.round_trip_causes for cost in expected]
    assert [cost.article_tokens for cost in costs] == [cost.article_tokens for cost in expected]


def test_vocabulary_health_lists_the_engine_s_tokens_and_opens_them_in_the_vocabulary_tab(
    qtbot: QtBot, window: MainWindow, byte_level_path: Path
) -> None:
    bert = corpus_path("bert_uncased_tokenizer.json")
    tab = audit_tab(window, bert, byte_level_path)
    tab.languages.setText("eng, deu")
    tab.code_box.setChecked(False)
    page = tab.health_page
    tab.pages.setCurrentIndex(HEALTH_PAGE)
    with qtbot.waitSignal(page.job.finished, timeout=AUDIT_MS):
        page.check_button.click()
    texts = shipped_languages(["eng", "deu"])  # (German in 1901 and 1996 spelling)
    assert page.status.text().startswith(f"Checked 2 vocabularies on {len(texts)} texts chosen above")
    bodies = [body for text in texts for body in text.articles.values()]
    expected = vocabulary_health(Tokenizer.from_file(str(bert)), bodies, 10)
    result = page.results[0]
    assert result["counts"] == expected.counts() | {"collisions": sum(len(group) for group in expected.collisions)}
    # the cell chosen lists its tokens: BERT's unreachable ones
    page.counts.setCurrentCell(0, 2 + [key for key, _ in CATEGORIES].index("unreachable"))
    assert [page.model.value(row, "id") for row in range(page.model.rowCount())] == expected.unreachable[:LISTED]
    assert "unreachable" in page.listed.text()
    # a token double-clicked opens in the Vocabulary tab, its tokenizer active
    wanted = expected.unreachable[0]
    page.view.doubleClicked.emit(page.model.index(0, 1))
    assert window.tabs.currentWidget() is window.vocab_tab
    assert window.document.active is window.document.project.tokenizers[0]
    vocabulary = window.vocab_tab
    qtbot.waitUntil(lambda: vocabulary.table.currentIndex().isValid(), timeout=AUDIT_MS)
    assert vocabulary.model.table.ids[vocabulary.model.row_of(vocabulary.table.currentIndex())] == wanted


def test_two_vocabularies_side_by_side_are_the_engine_s_comparison(qtbot: QtBot, window: MainWindow, byte_level_path: Path) -> None:
    bert = corpus_path("bert_uncased_tokenizer.json")
    tab = audit_tab(window, bert, byte_level_path)
    page = tab.compare_page
    assert (page.a.currentText(), page.b.currentText()) == (bert.name, byte_level_path.name)
    tab.set_chosen([bert.name])
    assert not page.compare_button.isEnabled() and "Check two tokenizers" in page.compare_button.toolTip()
    tab.set_chosen([bert.name, byte_level_path.name])
    tab.languages.setText("eng")
    tab.code_box.setChecked(False)
    with qtbot.waitSignal(page.job.finished, timeout=AUDIT_MS):
        page.compare_button.click()
    bodies = list(shipped_languages(["eng"])[0].articles.values())
    expected = compare_vocabularies(Tokenizer.from_file(str(bert)), Tokenizer.from_file(str(byte_level_path)), bodies)
    result = page.result
    assert result is not None
    assert result["counts"] == {
        "both": len(expected.both), "only_a": len(expected.only_a), "only_b": len(expected.only_b),
        "different_ids": len(expected.different_ids),
    }  # fmt: skip
    assert result["agreement"] == expected.boundary_agreement
    assert f"{expected.boundary_agreement:.1%}" in page.status.text()
    page.which.setCurrentIndex(page.which.findData("only_b"))
    assert [page.model.value(row, "id") for row in range(page.model.rowCount())] == [number for number, _ in expected.only_b]
    with qtbot.waitSignal(tab.open_token) as opened:
        page.view.doubleClicked.emit(page.model.index(0, 0))
    assert opened.args == [byte_level_path.name, expected.only_b[0][0]]


def test_vocabulary_health_on_the_project_s_corpus(qtbot: QtBot, window: MainWindow, small_corpus: Path, byte_level_path: Path) -> None:
    window.document.add_checked_files([check_file(str(small_corpus))])
    tab = audit_tab(window, byte_level_path)
    page = tab.health_page
    page.source.setCurrentIndex(page.source.findData(CORPUS))
    with qtbot.waitSignal(page.job.finished, timeout=AUDIT_MS):
        page.check_button.click()
    lines = small_corpus.read_text(encoding="utf-8").splitlines()
    expected = vocabulary_health(Tokenizer.from_file(str(byte_level_path)), lines, 10)
    assert page.results[0]["tokens"] == expected.tokens
    assert f"the project's corpus: {len(lines):,} lines" in page.status.text()


def test_a_second_process_started_ahead_measures_its_half_and_one_not_needed_is_let_go(byte_level_path: Path) -> None:
    """`warm_up` (what the tab's process started ahead does while the user chooses) starts the
    second process; `measure_all` gives it its share, or lets it go for a small audit."""
    texts = shipped_languages()[: SHARED_FROM // 2]
    named = [(byte_level_path.name, Tokenizer.from_file(str(byte_level_path)).to_str())] * 2
    tokenizers = [(name, Tokenizer.from_str(text)) for name, text in named]
    warm_up()
    waiting = audit_child._WAITING[0]
    costs = measure_all(named, tokenizers, texts, None)
    assert not audit_child._WAITING and not waiting.process.is_alive()
    assert [cost.values() for cost in costs] == [cost.values() for cost in audit(tokenizers, texts)]
    warm_up()
    waiting = audit_child._WAITING[0]
    few = measure_all(named[:1], tokenizers[:1], texts[:2], None)
    assert [cost.tokens for cost in few] == [cost.tokens for cost in audit(tokenizers[:1], texts[:2])]
    waiting.process.join(10.0)
    assert not audit_child._WAITING and waiting.process.exitcode == 0


def test_a_second_process_that_finishes_first_keeps_its_answer(byte_level_path: Path) -> None:
    """Progress read while this process still measures may bring the second process's whole
    answer: it is kept, not read past (an EOFError ended the audit)."""
    texts = shipped_languages()[: SHARED_FROM // 2]
    named = [(byte_level_path.name, Tokenizer.from_file(str(byte_level_path)).to_str())] * 2
    tokenizers = [(name, Tokenizer.from_str(text)) for name, text in named]
    heard: list[tuple[int, int, str]] = []

    def slowly(done: int, total: int, what: str) -> None:
        heard.append((done, total, what))
        time.sleep(0.15)  # (this process's half, slowed: the other one is done first)

    costs = measure_all(named, tokenizers, texts, slowly)
    assert [cost.tokens for cost in costs] == [cost.tokens for cost in audit(tokenizers, texts)]
    assert heard[0] == (0, len(texts), texts[0].name) and all(done <= len(texts) for done, _, _ in heard)


def test_the_corpus_count_says_how_far_into_a_file_it_is_and_stops(qtbot: QtBot, window: MainWindow, tmp_path: Path, byte_level_path: Path) -> None:
    big = tmp_path / "big.txt"
    line = "caf\u00e9 cafe\u0301 \ufb01le\n"
    big.write_text(line * (40 * MB // len(line.encode("utf-8"))), encoding="utf-8")
    window.document.add_checked_files([check_file(str(big))])
    tab = audit_tab(window, byte_level_path)
    page = tab.unicode_page
    tab.pages.setCurrentIndex(UNICODE_PAGE)
    assert not page.corpus_stop.isEnabled()
    page.corpus_button.click()
    assert page.corpus_stop.isEnabled() and not page.corpus_button.isEnabled()
    # the child says how many megabytes of the file it has read
    qtbot.waitUntil(lambda: " MB)…" in page.corpus_status.text(), timeout=AUDIT_MS)
    assert page.corpus_status.text().startswith("Counting big.txt (1 of 1, ") and "of 40.0 MB" in page.corpus_status.text()
    page.corpus_stop.click()
    assert not page.job.is_running() and page.corpus_status.text() == "Stopped."
    assert page.corpus_button.isEnabled() and not page.corpus_stop.isEnabled()
    qtbot.waitUntil(lambda: not page.job._exiting, timeout=AUDIT_MS)


def test_the_unicode_page_shows_each_form_s_ids_and_the_corpus_s_counts(
    qtbot: QtBot, window: MainWindow, small_corpus: Path, byte_level_path: Path
) -> None:
    window.document.add_checked_files([check_file(str(small_corpus))])
    tab = audit_tab(window, byte_level_path)
    page = tab.unicode_page
    tab.pages.setCurrentIndex(UNICODE_PAGE)
    text = "café cafe\u0301 ﬁle pаypal zero\u200bwidth"
    page.tokenizer.setCurrentText(byte_level_path.name)
    page.text.setPlainText(text)
    qtbot.waitUntil(page.is_current, timeout=AUDIT_MS)
    tokenizer = Tokenizer.from_file(str(byte_level_path))
    expected = normal_forms(text, tokenizer)
    assert [cell_text(page.forms, row, 0) for row in range(page.forms.rowCount())] == [row.form for row in expected]
    for row, form in enumerate(expected):
        assert cell_text(page.forms, row, 1) == ("yes" if form.equals_original else "no")
        assert cell_text(page.forms, row, 2) == ("yes" if form.same_ids else "no")
        assert cell_text(page.forms, row, 5) == ", ".join(str(i) for i in form.ids or [])
    # a byte-level BPE without a normalizer: the decomposed é and the ligature get other ids
    assert cell_text(page.forms, [row.form for row in expected].index("NFD"), 2) == "no"
    assert page.points_model.rowCount() == len(text)
    assert "1 zero-width" in page.flags.text() and "confusable" in page.flags.text()
    page.tokenizer.setCurrentText(NO_TOKENIZER)
    qtbot.waitUntil(lambda: page.is_current() and cell_text(page.forms, 0, 2) == "—", timeout=AUDIT_MS)

    with qtbot.waitSignal(page.job.finished, timeout=AUDIT_MS):
        page.corpus_button.click()
    counted = corpus_forms(str(small_corpus))
    assert page.corpus_results[0]["lines"] == counted.lines
    assert [cell_text(page.corpus_table, 0, 2 + i) for i in range(4)] == [f"{counted.changed[form]:,}" for form in ("NFC", "NFD", "NFKC", "NFKD")]
    # and both join the HTML report's sections
    section = tab.report_sections()[-1]
    assert section.startswith("<h2>Unicode</h2>") and 'id="unicode-forms"' in section and 'id="unicode-corpus"' in section
    assert f"{counted.lines:,}" in section


def test_a_vocabulary_not_in_creation_order_says_it_has_no_smaller_sizes(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    """As BERT's: whole words first, its single characters and ## characters last, so no prefix
    of it can spell every word."""
    words = ["[UNK]", "the", "of", "and", "to", "all", "human", "rights"]
    characters = sorted({c for text in shipped_languages(["eng"])[0].articles.values() for c in text.lower() if not c.isspace()})
    vocab = {token: i for i, token in enumerate(words + characters + [f"##{c}" for c in characters])}
    made = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    made.normalizer = normalizers.Lowercase()
    made.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    bert = tmp_path / "bert-like.json"
    made.save(str(bert))
    tab = audit_tab(window, bert)
    tab.size_page.source.setCurrentIndex(tab.size_page.source.findData(ENGLISH))
    with qtbot.waitSignal(tab.size_page.job.finished, timeout=AUDIT_MS):
        tab.size_page.button.click()
    assert f"{bert.name} has no smaller sizes to measure" in tab.size_page.status.text()


@pytest.mark.parametrize("total", [0, 1, 2, 7])
@pytest.mark.parametrize("pattern", ["front first", "back first", "alternating", "front twice as fast"])
def test_two_processes_taking_texts_from_both_ends_take_each_once(total: int, pattern: str) -> None:
    """`Claims`: one process from the front, the other from the back of the same two ends,
    however their turns interleave, take every text exactly once between them, then stop."""
    ends = [0, total]
    front, back = Claims(ends, True), Claims(ends, False)
    turns = {
        "front first": [front] * (total + 1) + [back],
        "back first": [back] * (total + 1) + [front],
        "alternating": [front, back] * (total + 1),
        "front twice as fast": [front, front, back] * (total + 1),
    }[pattern]
    taken: dict[Claims, list[int]] = {front: [], back: []}
    for claims in turns:
        index = claims.take()
        if index >= 0:
            taken[claims].append(index)
    assert sorted(taken[front] + taken[back]) == list(range(total))
    assert taken[front] == sorted(taken[front]) and taken[back] == sorted(taken[back], reverse=True)
    assert front.take() == back.take() == -1


def test_where_both_processes_take_the_same_text_the_first_s_measurement_is_kept(byte_level_path: Path) -> None:
    """The two ends are read and written without a lock: both processes may take the text
    where they meet. A second process that measured every text (as if it had taken all of
    them while this one did too) changes no figure."""
    texts = shipped_languages()[:SHARED_FROM // 2]
    named = [(byte_level_path.name, Tokenizer.from_file(str(byte_level_path)).to_str())] * 2
    tokenizers = [(name, Tokenizer.from_str(text)) for name, text in named]
    warm_up()
    helper = audit_child._WAITING[0]
    real_begin = helper.begin

    def begin_then_let_it_take_all(named: list[tuple[str, str]], given: list[AuditText]) -> None:
        real_begin(named, given)
        helper.ends = [0, len(given)]  # (this process now takes from its own ends: both take every text)

    helper.begin = begin_then_let_it_take_all  # type: ignore[method-assign,assignment]
    costs = measure_all(named, tokenizers, texts, None)
    assert [cost.values() for cost in costs] == [cost.values() for cost in audit(tokenizers, texts)]
