"""The Encode and Compare tabs: painted spans equal the engine's offsets (torture strings, byte
pieces that split a character, pairs), the pipeline and round trip views show the engine's own
stages, the ids box decodes, and the Compare tab marks boundaries on a hand-checked case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCharFormat, QTextLayout
from pytestqt.qtbot import QtBot

from engine import Tokenizer, decoders, models, pre_tokenizers
from engine.analysis.inspection import CAUSE_LOWERCASE, CAUSE_OTHER, CAUSE_UNKNOWN
from workbench.core.formatting import ERROR_COLOR
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts
from workbench.jobs.children.encoding import NORMAL, SPECIAL, UNKNOWN
from workbench.window.views.token_view import Spans, TokenTextEdit, changed_range, qt_positions, token_color
from support import bert_id, train_byte_level
from window_support import SAMPLE

TORTURE = [
    "",
    " ",
    "\t\n",
    "Hello, world!",
    "日本語のテキストです。",
    "emoji 👩‍💻 with a ZWJ, 😀 and 🇫🇷",
    "combining: e\u0301 a\u0308 n\u0303",
    "RTL: שלום עולם مرحبا",
    "windows\r\nline\r\nends",
    "control\x07chars\x1b",
]
WAIT_MS = 30_000


def byte_level_file(tmp_path: Path) -> Path:
    tokenizer = train_byte_level(SAMPLE.read_text(encoding="utf-8").splitlines()[:3000], 600)
    path = tmp_path / "byte-level.json"
    tokenizer.save(str(path))
    return path


def open_tokenizer(qtbot: QtBot, window: MainWindow, path: Path) -> Tokenizer:
    assert window.open_file(str(path))
    window.tabs.setCurrentWidget(window.encode_tab)
    return Tokenizer.from_file(str(path))


def encode_text(qtbot: QtBot, window: MainWindow, text: str) -> None:
    tab = window.encode_tab
    tab.editor.set_text(text)
    qtbot.waitUntil(tab.is_current, timeout=WAIT_MS)


def painted(tokenizer: Tokenizer, text: str) -> list[tuple[int, int]]:
    encoding = tokenizer.encode(text)
    return [encoding.offsets[i] for i in range(len(encoding.ids)) if encoding.offsets[i][0] < encoding.offsets[i][1]]


@pytest.mark.parametrize("text", TORTURE, ids=range(len(TORTURE)))
def test_byte_level_spans_are_the_engines_offsets(qtbot: QtBot, window: MainWindow, tmp_path: Path, text: str) -> None:
    tokenizer = open_tokenizer(qtbot, window, byte_level_file(tmp_path))
    encode_text(qtbot, window, text)
    assert window.encode_tab.shown_spans() == painted(tokenizer, text)
    assert window.encode_tab.table_model.rowCount() == len(tokenizer.encode(text).ids)


@pytest.mark.parametrize("text", TORTURE, ids=range(len(TORTURE)))
def test_bert_spans_are_the_engines_offsets(qtbot: QtBot, window: MainWindow, corpora: Path, text: str) -> None:
    tokenizer = open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    encode_text(qtbot, window, text)
    assert window.encode_tab.shown_spans() == painted(tokenizer, text)


def test_the_byte_pieces_of_one_character_are_grouped_and_explained(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    open_tokenizer(qtbot, window, byte_level_file(tmp_path))
    text = "a 😀 b"
    encode_text(qtbot, window, text)
    data = window.encode_tab.editor.highlighter.data
    emoji = text.index("😀")
    pieces = [i for i, span in enumerate(data.spans) if span == (emoji, emoji + 1)]
    assert len(pieces) >= 2 and emoji in data.shared
    # hover explains each piece: its id and its bytes
    details = [data.describe(i) for i in pieces]
    assert all("id " in detail and "bytes" in detail for detail in details)
    assert " ".join(detail.split("bytes ")[1] for detail in details).split() == [f"{b:02X}" for b in "😀".encode()]


def painted_in_document(window: MainWindow) -> list[tuple[int, int]]:
    """The character ranges the document really carries a background on (Qt counts UTF-16
    units; this maps them back to characters)."""
    editor = window.encode_tab.editor
    text = editor.toPlainText()
    units = [0]
    for char in text:
        units.append(units[-1] + (2 if ord(char) > 0xFFFF else 1))
    character = {unit: index for index, unit in enumerate(units)}
    ranges: list[tuple[int, int]] = []
    block = editor.document().begin()
    while block.isValid():
        for found in block.layout().formats():
            if found.format.background().style() != Qt.BrushStyle.NoBrush:
                start = block.position() + found.start
                ranges.append((character[start], character[start + found.length]))
        block = block.next()
    return sorted(ranges)


def test_spans_after_an_emoji_are_painted_on_their_own_characters(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    tokenizer = open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    text = "😀 hello 👩‍💻 world 🇫🇷 again"
    encode_text(qtbot, window, text)
    assert painted_in_document(window) == sorted(set(painted(tokenizer, text)))


def test_the_unknown_token_is_painted_as_a_warning_and_specials_as_special(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    text = "hello 😀"
    encode_text(qtbot, window, text)
    data = window.encode_tab.editor.highlighter.data
    emoji = text.index("😀")
    assert data.kinds[data.spans.index((emoji, emoji + 1))] == UNKNOWN
    assert data.kinds[data.spans.index((0, 5))] == NORMAL
    # [CLS] and [SEP] have no characters to paint; the table shows their kind
    rows = window.encode_tab.table_model.rows
    assert [(row[0], row[6]) for row in rows[:4]] == [("[CLS]", SPECIAL), ("hello", NORMAL), ("[UNK]", UNKNOWN), ("[SEP]", SPECIAL)]


def test_a_pair_is_painted_on_its_own_text(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    tokenizer = open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    tab = window.encode_tab
    tab.pair_box.setChecked(True)
    tab.pair_editor.set_text("Second one here")
    encode_text(qtbot, window, "First sentence")
    encoding = tokenizer.encode("First sentence", "Second one here")
    expected = [encoding.offsets[i] for i in range(len(encoding.ids)) if encoding.sequence_ids[i] == 1 and encoding.offsets[i][0] < encoding.offsets[i][1]]
    assert tab.pair_editor.highlighter.data.spans == expected
    assert [row[2] for row in tab.table_model.rows][:5] == [None, 0, 0, None, 1]


def test_a_click_selects_the_row_and_the_row_selects_the_span(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    encode_text(qtbot, window, "hello world")
    tab = window.encode_tab
    tab.editor.token_clicked.emit(1)  # the span of "world"
    assert tab.table.currentIndex().row() == 2  # [CLS] hello world
    tab.table.selectRow(1)
    assert tab.editor.selected_token() == 0


def test_the_ids_box_decodes(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    tab = window.encode_tab
    hello, world = bert_id("hello"), bert_id("world")  # 7592 and 2088 in the real vocab
    tab.decode_input.setText(f"[101, {hello}, {world}, 102]")
    qtbot.waitUntil(lambda: "hello·world" in tab.decoded.text(), timeout=WAIT_MS)  # spaces shown as glyphs
    tab.decode_input.setText(f"{hello}, 99999999")
    qtbot.waitUntil(lambda: "Not in the vocabulary" in tab.decoded.text(), timeout=WAIT_MS)
    assert "99999999" in tab.decoded.text() and "hello" in tab.decoded.text()


def test_counts(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    encode_text(qtbot, window, "Hello, world")
    text = window.encode_tab.counts.text()
    assert "12 characters" in text and "12 bytes" in text and "3 words" in text and "3 tokens" in text
    assert "4.00 characters per token" in text and "1.00 tokens per word" in text


def test_the_pipeline_view_shows_each_stage(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    tokenizer = open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    text = "Héllo, WORLD!"
    encode_text(qtbot, window, text)
    tab = window.encode_tab
    tab.pages.setCurrentIndex(1)
    qtbot.waitUntil(lambda: bool(tab._trace), timeout=WAIT_MS)
    trace = tab._trace
    assert tokenizer.normalizer is not None and tokenizer.pre_tokenizer is not None
    normalized = tokenizer.normalizer.normalize_str(text)
    assert trace["normalized"] == normalized
    pieces = trace["pieces"]
    assert isinstance(pieces, list)
    assert [piece[0] for piece in pieces] == [p for p, _ in tokenizer.pre_tokenizer.pre_tokenize_str(normalized)]
    assert trace["ids"] == tokenizer.encode(text).ids
    assert trace["decoded"] == tokenizer.decode(tokenizer.encode(text).ids)
    shown = tab.pipeline.toPlainText()
    for heading in ("Original", "Normalized", "Pre-tokenized", "Model tokens", "Post-processed", "Decoded"):
        assert heading in shown
    assert "É" not in shown.split("Normalized")[1].split("Pre-tokenized")[0]


def test_the_round_trip_verdict(qtbot: QtBot, window: MainWindow, corpora: Path, tmp_path: Path) -> None:
    open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    tab = window.encode_tab
    encode_text(qtbot, window, "Hello World")
    tab.pages.setCurrentIndex(2)
    qtbot.waitUntil(lambda: "Not exact" in tab.verdict.text(), timeout=WAIT_MS)
    assert f"{CAUSE_LOWERCASE} (2 places)" in tab.verdict.text()  # H and W
    assert "hello" in tab.round_trip.toPlainText()
    open_tokenizer(qtbot, window, byte_level_file(tmp_path))
    tab.pages.setCurrentIndex(2)
    encode_text(qtbot, window, "Hello World 😀")
    tab._request_trace()
    qtbot.waitUntil(lambda: tab.verdict.text().startswith("<b>Exact"), timeout=WAIT_MS)
    assert "first" not in tab.verdict.text()
    # a long text is checked on its first characters, and the verdict says so
    encode_text(qtbot, window, "Hello World " * 400)
    tab._request_trace()
    qtbot.waitUntil(lambda: "checked on the first 3,000 characters" in tab.verdict.text(), timeout=WAIT_MS)


def test_typing_moves_the_spans_until_the_new_encoding_arrives(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    tokenizer = open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    encode_text(qtbot, window, "hello world")
    tab = window.encode_tab
    cursor = tab.editor.textCursor()
    cursor.setPosition(0)
    cursor.insertText("oh ")
    # before the new encoding: "world" moved by three characters
    assert (9, 14) in tab.editor.highlighter.data.spans
    qtbot.waitUntil(tab.is_current, timeout=WAIT_MS)
    assert tab.shown_spans() == painted(tokenizer, "oh hello world")


@pytest.mark.parametrize("insert", ["x", " ", "\n", "😀"])
def test_after_an_edit_the_repainted_lines_match_the_new_encoding(qtbot: QtBot, window: MainWindow, corpora: Path, insert: str) -> None:
    # only the lines that changed are painted again: the whole document must still be right
    tokenizer = open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    lines = ["the first line of text", "a second line 😀 with an emoji", "third line, here", "and the last one"]
    encode_text(qtbot, window, "\n".join(lines))
    tab = window.encode_tab
    cursor = tab.editor.textCursor()
    cursor.setPosition(len(lines[0]) + 1 + 4)  # inside "second"
    cursor.insertText(insert)
    qtbot.waitUntil(tab.is_current, timeout=WAIT_MS)
    text = tab.editor.text()
    assert painted_in_document(window) == sorted(set(painted(tokenizer, text)))


def test_switching_the_theme_repaints_the_spans_and_the_pipeline(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    encode_text(qtbot, window, "hello world")
    tab = window.encode_tab
    tab.pages.setCurrentIndex(1)
    qtbot.waitUntil(lambda: bool(tab._trace), timeout=WAIT_MS)

    def lightness() -> tuple[int, int]:
        formats = tab.editor.document().begin().layout().formats()
        chip = token_color(bert_id("hello"), 0, False).name() in tab.pipeline.toHtml()  # "hello" as a light chip
        return formats[0].format.background().color().lightness(), int(chip)

    # the palette change reaches the widgets through the event loop
    try:
        window.set_theme("dark")
        qtbot.waitUntil(lambda: lightness()[0] < 128 and lightness()[1] == 0, timeout=WAIT_MS)
    finally:
        window.set_theme("light")
    qtbot.waitUntil(lambda: lightness()[0] > 128 and lightness()[1] == 1, timeout=WAIT_MS)


def test_changed_range_spans_from_the_first_to_the_last_difference() -> None:
    def spans(*pairs: tuple[int, int]) -> list[tuple[int, int, int, int, bool, bool]]:
        return [(start, end, 0, 0, False, False) for start, end in pairs]

    assert changed_range(spans((0, 2), (3, 5)), spans((0, 2), (3, 5))) is None
    assert changed_range(spans((0, 2), (3, 5), (6, 9)), spans((0, 2), (3, 4), (4, 5), (6, 9))) == (3, 5)
    assert changed_range([], spans((0, 2), (3, 5))) == (0, 5)
    assert changed_range(spans((0, 2), (3, 5)), spans((0, 2))) == (3, 5)


def test_hover_tells_the_token_and_follows_an_edit() -> None:
    data = Spans([(0, 5), (6, 11)], [NORMAL, NORMAL], [7592, 2088], ["hello", "·world"], ["hello", "Ġworld"], ["68 65 6C 6C 6F", "20 77 6F 72 6C 64"])
    assert data.describe(1) == "'·world'  (raw 'Ġworld')\nid 2088 · characters 6–11 · bytes 20 77 6F 72 6C 64"
    assert data.describe(0) == "'hello'\nid 7592 · characters 0–5 · bytes 68 65 6C 6C 6F"
    # three characters typed into "hello": it is dropped, "world" moves
    moved = data.select([1], 3, 2, 3)
    assert moved.spans == [(9, 14)] and moved.describe(0).endswith("characters 9–14 · bytes 20 77 6F 72 6C 64")
    assert Spans([(0, 3)], [NORMAL], [0], ["abc"], ids=False).describe(0) == "'abc'\ncharacters 0–3"


# -- Compare -----------------------------------------------------------------------------------


def bpe_file(tmp_path: Path, name: str, merges: list[tuple[str, str]]) -> Path:
    """A hand-made BPE whose merges decide how "unhappiness" splits."""
    vocab: dict[str, int] = {}
    for ch in "unhapiess":
        vocab.setdefault(ch, len(vocab))
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    tokenizer = Tokenizer(models.BPE(vocab, merges))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    path = tmp_path / f"{name}.json"
    tokenizer.save(str(path))
    return path


def test_compare_marks_the_boundaries_the_other_column_lacks(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    common = [("u", "n"), ("h", "a"), ("ha", "p"), ("hap", "p")]
    first = bpe_file(tmp_path, "A", common + [("happ", "i"), ("n", "e"), ("ne", "s"), ("nes", "s")])
    second = bpe_file(tmp_path, "B", common + [("i", "n"), ("in", "e"), ("ine", "s"), ("ines", "s")])
    assert Tokenizer.from_file(str(first)).encode("unhappiness").tokens == ["un", "happi", "ness"]
    assert Tokenizer.from_file(str(second)).encode("unhappiness").tokens == ["un", "happ", "iness"]
    window.new_project()
    window.document.import_tokenizer(str(first))
    window.document.import_tokenizer(str(second))
    window.tabs.setCurrentWidget(window.compare_tab)
    tab = window.compare_tab
    tab.text.set_text("unhappiness")
    tab.choose(["A.json", "B.json", "words (baseline)", "characters (baseline)"])
    qtbot.waitUntil(tab.is_current, timeout=WAIT_MS)
    a, b, words, characters = (column.view.highlighter.data for column in tab.columns)
    assert a.spans == [(0, 2), (2, 7), (7, 11)] and b.spans == [(0, 2), (2, 6), (6, 11)]
    assert a.marked == {7} and b.marked == {6}
    assert words.marked == set() and words.spans == [(0, 11)] and len(characters.spans) == 11
    assert "1 boundary not shared" in tab.columns[0].counts.text()
    assert "3</b> pieces" in tab.columns[0].counts.text()


def test_compare_offers_trained_tokenizers_and_the_baselines(window: MainWindow) -> None:
    window.open_sample()
    titles = [window.compare_tab.columns[0].choice.itemText(i) for i in range(window.compare_tab.columns[0].choice.count())]
    assert titles == ["characters (baseline)", "UTF-8 bytes (baseline)", "words (baseline)", "sentences (baseline)"]
    assert len(window.compare_tab.columns) == 3
    window.compare_tab.add_column()
    assert len(window.compare_tab.columns) == 4 and not window.compare_tab.add_button.isEnabled()


def test_an_exported_tokenizer_json_loads_in_hf_with_identical_encodings(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path
) -> None:
    import tokenizers  # (a test dependency)

    open_tokenizer(qtbot, window, byte_level_file(tmp_path))
    target = tmp_path / "exported.json"
    prompts.answers["export_file"] = str(target)
    window.export_tokenizer_json()
    ours = Tokenizer.from_file(str(target))
    theirs = tokenizers.Tokenizer.from_file(str(target))
    for text in TORTURE:
        a, b = ours.encode(text), theirs.encode(text)
        assert (a.ids, a.tokens, a.offsets) == (b.ids, b.tokens, b.offsets)
    assert json.loads(target.read_text(encoding="utf-8"))["model"]["type"] == "BPE"


def test_a_token_shown_readable_gives_its_vocabulary_form_on_hover(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    tokenizer = open_tokenizer(qtbot, window, byte_level_file(tmp_path))
    text = "hello world"
    encode_text(qtbot, window, text)
    model = window.encode_tab.table_model
    tokens = tokenizer.encode(text).tokens
    hovers = [model.data(model.index(row, 1), Qt.ItemDataRole.ToolTipRole) for row in range(model.rowCount())]
    spaced = [row for row in range(len(tokens)) if tokens[row].startswith("Ġ")]
    assert spaced and all(f"{tokens[row]!r} in the vocabulary" in str(hovers[row]) for row in spaced)
    assert str(model.data(model.index(spaced[0], 1))).startswith("·")  # (shown with the space visible)
    assert hovers[0] is None  # "hello" reads as it is written


# -- unknown tokens told by id (Unigram: HF's token string is the text itself) -----------------


def unigram_file(tmp_path: Path) -> Path:
    """A hand-made Unigram with an unk id: "é" is outside its vocabulary."""
    tokenizer = Tokenizer(models.Unigram([("<unk>", 0.0), ("▁", -2.0), ("a", -1.0), ("b", -1.0), ("ab", -1.5), ("▁ab", -1.2)], unk_id=0))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    path = tmp_path / "unigram.json"
    tokenizer.save(str(path))
    return path


def test_a_unigram_unknown_is_painted_counted_and_named(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    tokenizer = open_tokenizer(qtbot, window, unigram_file(tmp_path))
    assert tokenizer.encode("ab é").tokens == ["▁ab", "▁", "é"]  # (not "<unk>")
    encode_text(qtbot, window, "ab é")
    tab = window.encode_tab
    data = tab.editor.highlighter.data
    assert (data.spans, data.kinds) == ([(0, 2), (2, 3), (3, 4)], [NORMAL, NORMAL, UNKNOWN])
    assert [(row[0], row[1], row[5], row[6]) for row in tab.table_model.rows] == [
        ("·ab", 5, "ab", NORMAL), ("·", 1, " ", NORMAL), ("<unk>", 0, "é", UNKNOWN)
    ]
    tooltip = tab.table_model.data(tab.table_model.index(2, 1), Qt.ItemDataRole.ToolTipRole)
    assert tooltip == "The unknown token: characters the model has no token for (HF's Encoding.tokens writes it as 'é')"
    assert tab.counts.text() == "4 characters · 5 bytes · 2 words · 3 tokens · 1.33 characters per token · 1.50 tokens per word · 1 unknown"
    # and the other way: nothing unknown, nothing said
    encode_text(qtbot, window, "ab ab")
    assert UNKNOWN not in tab.editor.highlighter.data.kinds and "unknown" not in tab.counts.text()
    encode_text(qtbot, window, "ab é")
    tab.pages.setCurrentIndex(2)
    qtbot.waitUntil(lambda: "Not exact" in tab.verdict.text(), timeout=WAIT_MS)
    assert f"{CAUSE_UNKNOWN} (1 place)" in tab.verdict.text() and CAUSE_OTHER not in tab.verdict.text()


def test_a_sentencepiece_model_paints_and_counts_its_unknowns(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    assert window.open_file(str(corpora / "sp_test_model.model"))
    window.tabs.setCurrentWidget(window.encode_tab)
    tab = window.encode_tab
    encode_text(qtbot, window, "hello 😀 world")
    data = tab.editor.highlighter.data
    assert [data.kinds[i] for i in range(len(data.spans)) if data.spans[i] == (6, 7)] == [UNKNOWN]
    assert data.kinds.count(UNKNOWN) == 1
    assert tab.counts.text() == "13 characters · 16 bytes · 3 words · 6 tokens · 2.17 characters per token · 2.00 tokens per word · 1 unknown"
    encode_text(qtbot, window, "Ωmega ünï 😀😀")
    assert [row[5] for row in tab.table_model.rows if row[6] == UNKNOWN] == ["Ω", "ü", "ï", "😀😀"]
    assert tab.counts.text().endswith(" · 4 unknown")
    tab.pages.setCurrentIndex(2)
    qtbot.waitUntil(lambda: "Not exact" in tab.verdict.text(), timeout=WAIT_MS)
    assert f"{CAUSE_UNKNOWN} (4 places)" in tab.verdict.text() and CAUSE_OTHER not in tab.verdict.text()


def test_compare_paints_and_counts_a_unigram_unknown(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    window.new_project()
    window.document.import_tokenizer(str(unigram_file(tmp_path)))
    window.tabs.setCurrentWidget(window.compare_tab)
    tab = window.compare_tab
    tab.text.set_text("ab é")
    tab.choose(["unigram.json", "characters (baseline)"])
    qtbot.waitUntil(tab.is_current, timeout=WAIT_MS)
    data = tab.columns[0].view.highlighter.data
    assert (data.spans, data.kinds, data.labels) == ([(0, 2), (2, 3), (3, 4)], [NORMAL, NORMAL, UNKNOWN], ["·ab", "·", "<unk>"])
    assert tab.columns[0].counts.text().endswith(f"<span style='color:{ERROR_COLOR}'>1 unknown</span>")
    assert "unknown" not in tab.columns[1].counts.text()


# -- stale views ----------------------------------------------------------------------------------


def test_the_counts_add_up_to_the_ids(qtbot: QtBot, window: MainWindow, corpora: Path, tmp_path: Path) -> None:
    open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    encode_text(qtbot, window, "Hello, world")
    # this file pads every encoding to 128 ids
    assert window.encode_tab.counts.text() == (
        "12 characters · 12 bytes · 3 words · 128 ids: 3 tokens + 2 special + 123 padding · "
        "4.00 characters per token · 1.00 tokens per word"
    )
    open_tokenizer(qtbot, window, byte_level_file(tmp_path))
    encode_text(qtbot, window, "a")
    assert window.encode_tab.counts.text() == "1 character · 1 byte · 1 word · 1 token · 1.00 characters per token · 1.00 tokens per word"


def test_a_pairs_words_are_counted_text_by_text(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    open_tokenizer(qtbot, window, byte_level_file(tmp_path))
    tab = window.encode_tab
    tab.pair_box.setChecked(True)
    tab.pair_editor.set_text("b")
    encode_text(qtbot, window, "a")
    # "a" and "b" are two words, not "ab"
    assert tab.counts.text().startswith("2 characters · 2 bytes · 2 words · 2 tokens")


def test_the_decode_box_and_the_header_follow_the_active_tokenizer(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    open_tokenizer(qtbot, window, corpora / "bert_uncased_tokenizer.json")
    tab = window.encode_tab
    hello = bert_id("hello")  # 7592 in the real vocab: past the 1,000 pieces of the .model
    tab.decode_input.setText(str(hello))
    qtbot.waitUntil(lambda: tab.decoded.text() == "Decoded: hello", timeout=WAIT_MS)
    window.compare_tab.choose(["bert_uncased_tokenizer.json", "words (baseline)"])
    window.document.import_tokenizer(str(corpora / "sp_test_model.model"))  # (made the active one)
    assert tab.tokenizer_label.text() == "Tokenizer: sp_test_model.model"
    qtbot.waitUntil(lambda: "Not in the vocabulary" in tab.decoded.text(), timeout=WAIT_MS)
    assert tab.decoded.text() == f"Decoded: <br>Not in the vocabulary (decode skips them): {hello}"
    window.document.set_active(0)
    qtbot.waitUntil(lambda: tab.decoded.text() == "Decoded: hello", timeout=WAIT_MS)
    assert tab.decoded.styleSheet() == ""
    # a rename shows at once in the header, and in Compare's choices when Compare is shown
    window.document.rename_tokenizer(0, "BERT base")
    assert tab.tokenizer_label.text() == "Tokenizer: BERT base"
    window.tabs.setCurrentWidget(window.compare_tab)
    assert window.compare_tab.columns[0].choice.currentText() == "BERT base"
    window.tabs.setCurrentWidget(tab)
    # no tokenizer: nothing of the last one stays
    window.document.remove_tokenizer(1)
    window.document.remove_tokenizer(0)
    assert tab.tokenizer_label.text() == "No tokenizer: create one in the Project panel."
    assert (tab.decoded.text(), tab.counts.text(), tab.ids.text(), tab.table_model.rowCount()) == ("", "", "", 0)
    assert tab.shown_spans() == []


def test_compare_keeps_a_renamed_tokenizer_in_its_column(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    common = [("u", "n"), ("h", "a"), ("ha", "p"), ("hap", "p")]
    first = bpe_file(tmp_path, "A", common + [("happ", "i"), ("n", "e"), ("ne", "s"), ("nes", "s")])
    second = bpe_file(tmp_path, "B", common + [("i", "n"), ("in", "e"), ("ine", "s"), ("ines", "s")])
    window.new_project()
    window.document.import_tokenizer(str(first))
    window.document.import_tokenizer(str(second))
    window.tabs.setCurrentWidget(window.compare_tab)
    tab = window.compare_tab
    tab.text.set_text("unhappiness")
    tab.choose(["B.json", "A.json"])
    qtbot.waitUntil(tab.is_current, timeout=WAIT_MS)
    window.document.rename_tokenizer(1, "second")
    assert [column.choice.currentText() for column in tab.columns] == ["second", "A.json"]
    qtbot.waitUntil(tab.is_current, timeout=WAIT_MS)
    assert [column.view.highlighter.data.spans for column in tab.columns] == [[(0, 2), (2, 6), (6, 11)], [(0, 2), (2, 7), (7, 11)]]
    # a removed tokenizer's column shows another choice, and its own spans
    window.document.remove_tokenizer(0)
    qtbot.waitUntil(tab.is_current, timeout=WAIT_MS)
    assert [column.choice.currentText() for column in tab.columns] == ["second", "words (baseline)"]
    assert tab.columns[1].view.highlighter.data.spans == [(0, 11)]


def test_the_vocabulary_tab_names_a_renamed_untrained_tokenizer(window: MainWindow) -> None:
    window.new_project()
    window.document.add_preset("bpe", vocab_size=500)
    window.document.rename_tokenizer(0, "Mine")
    assert window.vocab_tab.empty.text() == "“Mine” is not trained yet: train it in the Train tab to browse its vocabulary."


def test_the_problem_list_follows_the_corpus(qtbot: QtBot, window: MainWindow, tmp_path: Path, small_corpus: Path) -> None:
    window.new_project()
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"caf\xe9 ok\n")
    panel = window.project_panel
    with qtbot.waitSignal(window.file_checker.checked, timeout=20_000):
        panel.add_paths([str(latin), str(small_corpus)])
    problem = "latin.txt is not valid UTF-8 (invalid continuation byte) at byte 3"
    assert panel.corpus_status.text() == "Added 2 files.\n" + problem
    # removed: its problem goes with it
    window.document.remove_files([0])
    assert panel.corpus_status.text() == "Added 2 files." and panel.corpus_status.styleSheet() == ""
    # checked again, fine now: its problem goes too
    with qtbot.waitSignal(window.file_checker.checked, timeout=20_000):
        panel.add_paths([str(latin)])
    assert problem in panel.corpus_status.text()
    latin.write_text("café ok\n", encoding="utf-8")
    with qtbot.waitSignal(window.file_checker.checked, timeout=20_000):
        panel.add_paths([str(latin)])
    assert panel.corpus_status.text() == "Added 1 file."
    # a missing file is listed while it is missing, and another project starts clean
    small_corpus.unlink()
    window.report_missing_files()  # (what opening a project does)
    assert panel.corpus_status.text().endswith("Not found: small.txt. Right-click a missing file to locate it; training needs every file.")
    window.new_project()
    assert panel.corpus_status.text() == ""


# -- graphemes drawn whole, every token on a character told, invisible characters named ---------

# A family emoji (five characters joined by ZWJs), a combining accent, a Devanagari conjunct.
CLUSTERS = "family 👩\u200d👩\u200d👧 e\u0301 नमस्ते ok"


def laid_out_glyphs(edit: TokenTextEdit) -> tuple[list[tuple[int, float]], float]:
    """The glyphs the first line is drawn with (glyph index and x position, left to right) and
    its width: what a reader sees, shaping included."""
    edit.grab()  # (lays the text out)
    layout = edit.document().begin().layout()
    glyphs: list[tuple[int, float]] = []
    for run in layout.lineAt(0).glyphRuns():
        glyphs += [(index, round(point.x(), 2)) for index, point in zip(run.glyphIndexes(), run.positions())]
    return sorted(glyphs, key=lambda glyph: glyph[1]), layout.lineAt(0).naturalTextWidth()


def test_a_cluster_split_between_tokens_is_drawn_whole(qtbot: QtBot) -> None:
    plain, highlighted = TokenTextEdit(read_only=True), TokenTextEdit(read_only=True)
    for edit in (plain, highlighted):
        qtbot.addWidget(edit)
        edit.resize(900, 120)
        edit.set_text(CLUSTERS)
    # every character its own token (a byte-level tokenizer splits all three clusters so)
    highlighted.set_spans(Spans([(i, i + 1) for i in range(len(CLUSTERS))], [NORMAL] * len(CLUSTERS), list(range(len(CLUSTERS)))))
    assert laid_out_glyphs(highlighted) == laid_out_glyphs(plain)
    # each cluster has one format, marked as shared; formats change only between clusters
    ranges = [(found.start, found.length, found.format.underlineStyle()) for found in highlighted.document().begin().layout().formats()]
    family = CLUSTERS.index("👩")
    wavy = QTextCharFormat.UnderlineStyle.WaveUnderline
    assert (family, 8, wavy) in ranges  # (8 UTF-16 units: three emoji and two ZWJs)
    assert (family + 9, 2, wavy) in ranges  # e + U+0301
    assert (family + 12, 1, QTextCharFormat.UnderlineStyle.NoUnderline) in ranges  # न
    # (the check can fail: formats that cut the clusters change the glyphs)
    layout = QTextLayout(CLUSTERS, plain.font())
    cut: list[QTextLayout.FormatRange] = []
    units = qt_positions(CLUSTERS)
    for i in range(len(CLUSTERS)):
        found = QTextLayout.FormatRange()
        found.start, found.length = units[i], units[i + 1] - units[i]
        found.format = QTextCharFormat()
        found.format.setBackground(token_color(i, i, False))
        cut.append(found)
    layout.setFormats(cut)
    layout.beginLayout()
    layout.createLine().setLineWidth(10_000)
    layout.endLayout()
    assert len([glyph for run in layout.lineAt(0).glyphRuns() for glyph in run.glyphIndexes()]) != len(laid_out_glyphs(plain)[0])


def test_hover_lists_every_token_on_a_character_with_single_backslashes(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    tokenizer = open_tokenizer(qtbot, window, byte_level_file(tmp_path))
    text = "a 👩\u200d👩\u200d👧"
    encode_text(qtbot, window, text)
    encoding = tokenizer.encode(text)
    family = [i for i in range(len(encoding.ids)) if encoding.offsets[i][0] >= 2]
    hover = window.encode_tab.editor.hover_text(2).split("\n")
    assert hover[0] == f"{len(family)} tokens on this character:" and len(family) == 18  # 4 + 3 + 4 + 3 + 4 bytes
    assert len(hover) == 1 + len(family)
    first = family[0]
    assert hover[1] == f"'\\xf0'  (raw {encoding.tokens[first]!r})  id {encoding.ids[first]} · characters 2–3 · bytes F0"
    assert "\\\\" not in "\n".join(hover)
    assert window.encode_tab.editor.hover_text(0) == f"'a'\nid {encoding.ids[0]} · characters 0–1 · bytes 61"
    # the ZWJ's own rows in the token table name it
    rows = window.encode_tab.table_model.rows
    assert [row[5] for row in rows if (row[3], row[4]) == (3, 4)] == ["\u200d"] * 3
    model = window.encode_tab.table_model
    assert [model.data(model.index(i, 6)) for i in range(len(rows)) if rows[i][3] == 3] == ["⟨ZWJ⟩"] * 3


def test_compare_draws_the_family_whole_and_lists_its_tokens(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    open_tokenizer(qtbot, window, byte_level_file(tmp_path))
    window.tabs.setCurrentWidget(window.compare_tab)
    tab = window.compare_tab
    tab.text.set_text("👩\u200d👩\u200d👧")
    tab.choose(["byte-level.json", "characters (baseline)"])
    qtbot.waitUntil(tab.is_current, timeout=WAIT_MS)
    for column in tab.columns:
        ranges = [(found.start, found.length) for found in column.view.document().begin().layout().formats()]
        assert ranges == [(0, 8)]  # one format over the whole cluster
    assert tab.columns[0].view.hover_text(0).startswith("18 tokens on this character:\n'\\xf0'  (raw 'ð')")
    assert tab.columns[1].view.hover_text(0).split("\n") == [
        "5 tokens on this character:",
        "'👩'  characters 0–1 · bytes F0 9F 91 A9",
        "'⟨ZWJ⟩'  characters 1–2 · bytes E2 80 8D",
        "'👩'  characters 2–3 · bytes F0 9F 91 A9",
        "'⟨ZWJ⟩'  characters 3–4 · bytes E2 80 8D",
        "'👧'  characters 4–5 · bytes F0 9F 91 A7",
    ]
