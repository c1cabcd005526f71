"""The user guide shipped in resources/guide/: `GuideWindow` shows it beside its contents, with
Back, Forward and Find, opened at a section; `HelpLink` is the "?" each tab carries to its own.

The guide's text is the HTML file, not this module. The one part made here is its list of
keyboard shortcuts, read from the window's menus when the guide opens, so it says what the keys
do in this build on this system.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from html.parser import HTMLParser
from typing import Final

from PySide6.QtCore import QUrl, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QMenuBar,
    QSplitter,
    QTextBrowser,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core import shipped
from workbench.core.formatting import ERROR_STYLE
from workbench.window.appearance import APP_TITLE

GUIDE_FILE: Final = ("guide", "guide.html")
# Where the guide lists the shortcuts (`guide_html` puts them there), and that section's anchor.
SHORTCUTS_MARK: Final = "<!-- shortcuts: listed here from the window's menus -->"
SHORTCUTS: Final = "shortcuts"
# The guide's opening section, for what has no section of its own.
START: Final = "window"
# A menu item's place, as the guide writes it: "File ▸ Save".
ARROW: Final = " ▸ "
# The item of the contents that holds each section's anchor.
ANCHOR_ROLE: Final = int(Qt.ItemDataRole.UserRole)


def read_guide() -> str:
    """The guide's HTML as shipped."""
    return shipped.resource(*GUIDE_FILE).read_text(encoding="utf-8")


def shortcut_rows(menu_bar: QMenuBar) -> list[tuple[str, str]]:
    """Every menu item with a shortcut, in menu order: ("File ▸ Save", "Ctrl+S"); an item with
    several lists them all ("Ctrl+Shift+Z, Ctrl+Y")."""
    rows: list[tuple[str, str]] = []

    def visit(menu: QMenu, place: str) -> None:
        for action in menu.actions():
            # (an action's icon text is its title without the & of its mnemonic)
            title = place + ARROW + action.iconText()
            submenu = action.menu()
            if isinstance(submenu, QMenu):
                visit(submenu, title)
            elif action.shortcuts():
                rows.append((title, ", ".join(key.toString(QKeySequence.SequenceFormat.NativeText) for key in action.shortcuts())))

    for action in menu_bar.actions():
        menu = action.menu()
        if isinstance(menu, QMenu):
            visit(menu, action.iconText())
    return rows


def shortcuts_html(rows: list[tuple[str, str]]) -> str:
    """The shortcuts as an HTML table: keys, then the menu item."""
    cells = "".join(f"<tr><td><kbd>{html.escape(keys)}</kbd></td><td>{html.escape(item)}</td></tr>" for item, keys in rows)
    return f'<table cellspacing="0"><tr><th>Keys</th><th>Menu item</th></tr>{cells}</table>'


def guide_html(rows: list[tuple[str, str]]) -> str:
    """The guide with these shortcuts listed in its Keyboard shortcuts section."""
    return read_guide().replace(SHORTCUTS_MARK, shortcuts_html(rows))


class _Sections(HTMLParser):
    """Reads the h2 and h3 headings that have an id."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[tuple[int, str, str]] = []
        self._open: tuple[int, str] | None = None
        self._title = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        anchor = dict(attrs).get("id")
        if tag in ("h2", "h3") and anchor:
            self._open, self._title = (int(tag[1]), anchor), ""

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._title += data

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag == f"h{self._open[0]}":
            self.sections.append((self._open[0], self._open[1], " ".join(self._title.split())))
            self._open = None


def sections(text: str) -> list[tuple[int, str, str]]:
    """The guide's sections in order: (2 or 3 for h2 or h3, anchor, title)."""
    parser = _Sections()
    parser.feed(text)
    return parser.sections


class HelpLink(QToolButton):
    """The "?" of a tab: `asked(anchor)` with the guide's section on what the tab shows now
    (`section()`: a tab with pages has one for each)."""

    asked = Signal(str)

    def __init__(self, section: Callable[[], str], subject: str) -> None:
        super().__init__()
        self._section = section
        self.setText("?")
        font = self.font()
        font.setBold(True)
        self.setFont(font)
        self.setAutoRaise(True)
        self.setAccessibleName("Help")
        keys = QKeySequence(QKeySequence.StandardKey.HelpContents).toString(QKeySequence.SequenceFormat.NativeText)
        self.setToolTip(f"The user guide on {subject} ({keys})")
        self.clicked.connect(self._on_clicked)

    def _on_clicked(self) -> None:
        self.asked.emit(self._section())


class GuideWindow(QWidget):
    """The user guide in a window of its own (never modal): the sections listed on the left, the
    guide on the right; Back and Forward; Find (Enter finds the next, from the top again past the
    last). Links between sections move within the guide; web links open in the system's browser."""

    def __init__(self, menu_bar: QMenuBar, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle(f"{APP_TITLE} — User Guide")
        self.find_field = QLineEdit()
        self.find_field.setPlaceholderText("Find in the guide")
        self.find_field.setClearButtonEnabled(True)
        self.find_field.returnPressed.connect(self.find_next)
        self.find_shortcut = QShortcut(QKeySequence.StandardKey.Find, self)
        self.find_shortcut.activated.connect(self._on_find_shortcut_activated)
        find_keys = self.find_shortcut.key().toString(QKeySequence.SequenceFormat.NativeText)
        self.find_field.setToolTip(f"Enter finds the next place ({find_keys} comes here)")
        self.find_note = QLabel()
        self.find_note.setStyleSheet(ERROR_STYLE)

        # (this window's own key is listed with the menus' ones)
        text = guide_html([*shortcut_rows(menu_bar), (f"User Guide{ARROW}Find in the guide", find_keys)])
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        self.browser.setHtml(text)

        self.contents = QTreeWidget()
        self.contents.setHeaderHidden(True)
        self.contents.setRootIsDecorated(False)
        # (the contents' items in order, each page's after its tab's)
        self.contents_items: list[QTreeWidgetItem] = []
        parent_item: QTreeWidgetItem | None = None
        for level, anchor, title in sections(text):
            item = QTreeWidgetItem([title])
            item.setData(0, ANCHOR_ROLE, anchor)
            self.contents_items.append(item)
            if level == 3 and parent_item is not None:
                parent_item.addChild(item)
            else:
                self.contents.addTopLevelItem(item)
                parent_item = item
        self.contents.expandAll()
        self.contents.itemClicked.connect(self._on_contents_item_clicked)

        self.back_button = QToolButton()
        self.back_button.setText("Back")
        self.back_button.setEnabled(False)
        self.back_button.clicked.connect(self.browser.backward)
        self.forward_button = QToolButton()
        self.forward_button.setText("Forward")
        self.forward_button.setEnabled(False)
        self.forward_button.clicked.connect(self.browser.forward)
        self.browser.backwardAvailable.connect(self.back_button.setEnabled)
        self.browser.forwardAvailable.connect(self.forward_button.setEnabled)

        bar = QHBoxLayout()
        bar.addWidget(self.back_button)
        bar.addWidget(self.forward_button)
        bar.addStretch(1)
        bar.addWidget(self.find_note)
        bar.addWidget(self.find_field)
        splitter = QSplitter()
        splitter.addWidget(self.contents)
        splitter.addWidget(self.browser)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([240, 760])
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(splitter, 1)
        self.resize(1000, 760)

    def show_section(self, anchor: str) -> None:
        """Show the window (in front) at the section `anchor`."""
        self.show()
        self.raise_()
        self.activateWindow()
        # (a step of Back's history; scrolled again in case it is already the source)
        self.browser.setSource(QUrl(f"#{anchor}"))
        self.browser.scrollToAnchor(anchor)
        for item in self.contents_items:
            if item.data(0, ANCHOR_ROLE) == anchor:
                self.contents.setCurrentItem(item)
                break

    def anchor(self) -> str:
        """The section the guide was last opened at, or moved to by a link ("" at first)."""
        return self.browser.source().fragment()

    def find_next(self) -> bool:
        """Select the next place the find field's text is in, from the top again past the last;
        False (and "not found" said) when the guide has none."""
        wanted = self.find_field.text()
        if not wanted:
            self.find_note.setText("")
            return False
        found = self.browser.find(wanted)
        if not found:
            cursor = self.browser.textCursor()
            cursor.movePosition(QTextCursor.MoveOperation.Start)
            self.browser.setTextCursor(cursor)
            found = self.browser.find(wanted)
        self.find_note.setText("" if found else "not found")
        return found

    def _on_find_shortcut_activated(self) -> None:
        self.find_field.setFocus()
        self.find_field.selectAll()

    def _on_contents_item_clicked(self, item: QTreeWidgetItem, column: int) -> None:
        self.show_section(str(item.data(0, ANCHOR_ROLE)))
