"""The user guide: shipped, true to the window's tabs and pages, its links whole; Help ▸ User
Guide (F1) and each tab's "?" open it at the section of what is shown; Help ▸ Keyboard
Shortcuts lists the keys the menus really have."""

from __future__ import annotations

import re
import sys
import time
from html.parser import HTMLParser

import pytest
from PySide6.QtCore import QUrl, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu, QTabWidget
from pytestqt.qtbot import QtBot

from workbench.core import shipped
from workbench.window.guide import GUIDE_FILE, SHORTCUTS_MARK, GuideWindow, read_guide, sections
from workbench.window.main_window import MainWindow

# What each tab's pages are, and the guide's section F1 opens on each (hand-written: the tabs'
# own tables must agree with it).
EXPECTED_SECTIONS = {
    ("Train", "Training"): "train",
    ("Train", "Step by Step"): "step-by-step",
    ("Vocabulary", ""): "vocabulary",
    ("Encode", "Tokens"): "encode",
    ("Encode", "Pipeline"): "pipeline",
    ("Encode", "Round Trip"): "round-trip",
    ("Encode", "Step Through"): "step-through",
    ("Compare", ""): "compare",
    ("Audit", "Summary"): "audit",
    ("Audit", "Premium per Language"): "premium-per-language",
    ("Audit", "Per Script"): "per-script",
    ("Audit", "Every Text"): "every-text",
    ("Audit", "Vocabulary Size"): "vocabulary-size",
    ("Audit", "Vocabulary Health"): "vocabulary-health",
    ("Audit", "Two Vocabularies"): "two-vocabularies",
    ("Audit", "Unicode"): "unicode",
}
# Words that join the capitalized words of a tab's or page's title ("Premium per Language").
TITLE_JOINERS = ("by", "per")


class Headings(HTMLParser):
    """The guide's headings by class ("tab", "page", or ""), every id, every link, and the text."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[tuple[str, str]] = []
        self.ids: list[str] = []
        self.links: list[str] = []
        self.text: list[str] = []
        self._open: tuple[str, str] | None = None
        self._title = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.append(str(found["id"]))
        if tag == "a" and found.get("name"):
            self.ids.append(str(found["name"]))
        if tag == "a" and found.get("href"):
            self.links.append(str(found["href"]))
        if tag in ("h1", "h2", "h3"):
            self._open, self._title = (tag, found.get("class") or ""), ""

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._open is not None:
            self._title += data

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag == self._open[0]:
            self.headings.append((self._open[1], " ".join(self._title.split())))
            self._open = None


def parsed() -> Headings:
    parser = Headings()
    parser.feed(read_guide())
    return parser


def pages(window: MainWindow) -> dict[str, list[str]]:
    """Each tab's title and the titles of its pages ([] for a tab without pages)."""
    paged: dict[str, QTabWidget] = {"Train": window.train_tab.modes, "Encode": window.encode_tab.pages, "Audit": window.audit_tab.pages}
    found: dict[str, list[str]] = {}
    for index in range(window.tabs.count()):
        title = window.tabs.tabText(index)
        inner = paged.get(title)
        found[title] = [inner.tabText(page) for page in range(inner.count())] if inner is not None else []
    return found


def show(window: MainWindow, tab: str, page: str) -> None:
    """Bring the tab `tab` to the front at its page `page` ("" for a tab without pages)."""
    titles = [window.tabs.tabText(index) for index in range(window.tabs.count())]
    window.tabs.setCurrentIndex(titles.index(tab))
    if page:
        inner = {"Train": window.train_tab.modes, "Encode": window.encode_tab.pages, "Audit": window.audit_tab.pages}[tab]
        inner.setCurrentIndex([inner.tabText(index) for index in range(inner.count())].index(page))


def opened(window: MainWindow) -> GuideWindow:
    guide = window.guide
    assert guide is not None, "the guide was not opened"
    return guide


def heading_in_view(guide: GuideWindow, anchor: str) -> bool:
    """Whether the block holding `anchor` is in the browser's viewport (the guide is scrolled to it)."""
    browser = guide.browser
    document = browser.document()
    block = document.begin()
    while block.isValid():
        fragment = block.begin()
        while not fragment.atEnd():
            if anchor in fragment.fragment().charFormat().anchorNames():
                top = document.documentLayout().blockBoundingRect(block).top()
                scrolled = browser.verticalScrollBar().value()
                # (the scroll bar's value is the anchor's place rounded: within a pixel of it)
                return scrolled - 1 <= top < scrolled + browser.viewport().height()
            fragment += 1
        block = block.next()
    raise AssertionError(f"no anchor {anchor!r} in the guide")


# -- the guide's text ---------------------------------------------------------------------------


def test_the_guide_read_is_the_shipped_file_with_a_place_for_the_shortcuts() -> None:
    # (test_shipped.py checks that the installed application finds it)
    assert read_guide() == shipped.resource(*GUIDE_FILE).read_text(encoding="utf-8")
    assert read_guide().count(SHORTCUTS_MARK) == 1


def test_every_link_between_sections_reaches_one_and_the_others_are_web_links() -> None:
    guide = parsed()
    assert len(guide.ids) == len(set(guide.ids)), "an anchor is used twice"
    internal = [link for link in guide.links if link.startswith("#")]
    assert len(internal) > 20
    assert [link for link in internal if link[1:] not in guide.ids] == []
    assert [link for link in guide.links if not link.startswith(("#", "https://"))] == []


def test_the_guide_has_a_section_for_each_tab_and_page_of_the_window_and_no_other(window: MainWindow) -> None:
    shown = pages(window)
    guide = parsed()
    assert [title for kind, title in guide.headings if kind == "tab"] == list(shown)
    assert sorted(title for kind, title in guide.headings if kind == "page") == sorted(page for titles in shown.values() for page in titles)
    assert {(tab, page) for tab, titles in shown.items() for page in (titles or [""])} == set(EXPECTED_SECTIONS)


def test_the_guide_names_no_tab_or_page_the_window_does_not_have(window: MainWindow) -> None:
    shown = pages(window)
    known = set(shown) | {page for titles in shown.values() for page in titles}
    text = " ".join(" ".join(parsed().text).split())
    named: set[str] = set()
    for match in re.finditer(r"((?:\S+ ){1,4})(tab|page)s?\b", text):
        words: list[str] = []
        for word in reversed(match.group(1).split()):
            if word[:1].isupper() or (words and word in TITLE_JOINERS):
                words.insert(0, word)
            else:
                break
        while words and (words[0] in TITLE_JOINERS or words[0] == "The"):
            words.pop(0)
        if words:
            named.add(" ".join(words))
    assert {"Train", "Vocabulary", "Encode", "Training"} <= named  # (the reading finds names)
    assert named - known == set()


def test_the_sections_listed_beside_the_guide_are_its_headings() -> None:
    found = sections(read_guide())
    assert (2, "train", "Train") in found and (3, "step-by-step", "Step by Step") in found
    assert (2, "shortcuts", "Keyboard shortcuts") in found
    assert set(EXPECTED_SECTIONS.values()) <= {anchor for _, anchor, _ in found}


# -- opening it -----------------------------------------------------------------------------------


def test_help_menu_offers_the_guide_on_f1_and_the_shortcuts(window: MainWindow) -> None:
    assert window.menus.guide_action.shortcut() == QKeySequence(QKeySequence.StandardKey.HelpContents)
    if sys.platform != "darwin":
        assert window.menus.guide_action.shortcut().toString() == "F1"
    assert window.menus.shortcuts_action.text().replace("&", "") == "Keyboard Shortcuts"


@pytest.mark.parametrize(("tab", "page"), list(EXPECTED_SECTIONS))
def test_f1_opens_the_guide_at_the_section_of_the_tab_and_page_shown(window: MainWindow, tab: str, page: str) -> None:
    show(window, tab, page)
    window.menus.guide_action.trigger()
    guide = opened(window)
    anchor = EXPECTED_SECTIONS[(tab, page)]
    assert guide.isVisible() and guide.anchor() == anchor
    assert heading_in_view(guide, anchor)
    current = guide.contents.currentItem()
    assert current is not None and current.data(0, Qt.ItemDataRole.UserRole) == anchor


def test_the_f1_key_opens_the_guide(qtbot: QtBot, window: MainWindow) -> None:
    if sys.platform == "darwin":
        pytest.skip("macOS's key for help is ⌘?, not F1")
    show(window, "Compare", "")
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    QTest.keyClick(window, Qt.Key.Key_F1)
    assert opened(window).anchor() == "compare"


@pytest.mark.parametrize(("tab", "page"), list(EXPECTED_SECTIONS))
def test_each_tabs_question_mark_opens_its_section(window: MainWindow, tab: str, page: str) -> None:
    show(window, tab, page)
    link = {
        "Train": window.train_tab.help_link, "Vocabulary": window.vocab_tab.help_link, "Encode": window.encode_tab.help_link,
        "Compare": window.compare_tab.help_link, "Audit": window.audit_tab.help_link,
    }[tab]  # fmt: skip
    assert link.isVisible() and link.text() == "?" and "user guide" in link.toolTip()
    QTest.mouseClick(link, Qt.MouseButton.LeftButton)
    assert opened(window).anchor() == EXPECTED_SECTIONS[(tab, page)]


def test_the_guide_opens_at_once_beside_the_window_and_never_blocks_it(window: MainWindow) -> None:
    started = time.perf_counter()
    window.show_guide()
    seconds = time.perf_counter() - started
    guide = opened(window)
    assert seconds < 1.0, f"the guide took {seconds:.2f} s to open"
    assert guide.isWindow() and not guide.isModal() and QApplication.activeModalWidget() is None
    assert window.isEnabled()
    show(window, "Vocabulary", "")  # (the window still answers while the guide is open)
    window.show_guide()
    assert window.guide is guide and guide.anchor() == "vocabulary"


def test_links_move_within_the_guide_back_and_forward_return(window: MainWindow) -> None:
    show(window, "Train", "Training")
    window.show_guide()
    guide = opened(window)
    assert guide.browser.openExternalLinks()  # (web links go to the system's browser)
    guide.browser.setSource(QUrl("#compare"))  # (what a click on a link to the Compare section does)
    assert guide.anchor() == "compare" and heading_in_view(guide, "compare")
    assert guide.back_button.isEnabled()
    guide.back_button.click()
    assert guide.anchor() == "train" and heading_in_view(guide, "train")
    assert guide.forward_button.isEnabled()
    guide.forward_button.click()
    assert guide.anchor() == "compare"


def test_the_contents_beside_the_guide_open_their_sections(window: MainWindow) -> None:
    window.show_shortcuts()
    guide = opened(window)
    items = {str(item.data(0, Qt.ItemDataRole.UserRole)): item for item in guide.contents_items}
    assert items["unicode"].text(0) == "Unicode" and items["unicode"].parent() is items["audit"]
    rect = guide.contents.visualItemRect(items["vocabulary"])
    QTest.mouseClick(guide.contents.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    assert guide.anchor() == "vocabulary" and heading_in_view(guide, "vocabulary")


def test_find_selects_the_next_place_and_says_when_there_is_none(window: MainWindow) -> None:
    window.show_guide()
    guide = opened(window)
    guide.find_field.setText("Unigram")
    assert guide.find_next() and guide.browser.textCursor().selectedText() == "Unigram"
    first = guide.browser.textCursor().position()
    assert guide.find_next() and guide.browser.textCursor().position() > first
    guide.find_field.setText("no such words in the guide")
    QTest.keyClick(guide.find_field, Qt.Key.Key_Return)
    assert guide.find_note.text() == "not found"


# -- the shortcuts --------------------------------------------------------------------------------


def menu_shortcuts(window: MainWindow) -> list[tuple[str, list[str]]]:
    """Every menu item with a shortcut, walked here apart from the guide's own reading."""
    found: list[tuple[str, list[str]]] = []

    def walk(menu: QMenu) -> None:
        for action in menu.actions():
            submenu = action.menu()
            if isinstance(submenu, QMenu):
                walk(submenu)
            elif action.shortcuts():
                found.append((action.iconText(), [key.toString(QKeySequence.SequenceFormat.NativeText) for key in action.shortcuts()]))

    for action in window.menuBar().actions():
        menu = action.menu()
        if isinstance(menu, QMenu):
            walk(menu)
    return found


def test_the_shortcuts_list_names_every_key_of_the_menus(window: MainWindow) -> None:
    window.menus.shortcuts_action.trigger()
    guide = opened(window)
    assert guide.anchor() == "shortcuts" and heading_in_view(guide, "shortcuts")
    listed = guide.browser.toPlainText()
    listed = listed[listed.rindex("Keyboard shortcuts"):]
    keys = menu_shortcuts(window)
    assert len(keys) >= 12
    for item, shortcuts in keys:
        row = f"{', '.join(shortcuts)}\n"
        assert row in listed and item in listed.split(row, 1)[1].split("\n", 1)[0], f"{item}: {shortcuts} not listed"
    assert "Ctrl+S\nFile ▸ Save\n" in listed
    assert "Ctrl+E\nFile ▸ Export ▸ Tokenizer (tokenizer.json)\n" in listed
    assert "Ctrl+Shift+Z, Ctrl+Y\nEdit ▸ Redo\n" in listed
    assert "Ctrl+F\nEdit ▸ Find\n" in listed and "Ctrl+F\nUser Guide ▸ Find in the guide" in listed
    if sys.platform != "darwin":
        assert "F1\nHelp ▸ User Guide\n" in listed
    assert SHORTCUTS_MARK not in guide.browser.toHtml()


def test_the_undo_shortcut_keeps_its_name_after_an_edit(window: MainWindow) -> None:
    window.document.add_preset("wordlevel")  # (the Undo item now names the edit: "Undo Add …")
    assert window.menus.undo_action.text() != "&Undo"
    window.show_shortcuts()
    assert "\nEdit ▸ Undo\n" in opened(window).browser.toPlainText()
