"""The Add Folder dialog: which of a folder's files join the corpus, chosen with the command
line's --include/--exclude globs (`engine.corpus.sources.wanted`), the files listed as they are typed.

The folder is listed once when the dialog opens; typing only filters that list, with
`workbench.jobs.runners.file_checks.chosen`: the window and the command line take the same files from the same globs
(with "Only corpus files" unticked; the command line has no such filter).
"""

from __future__ import annotations

import os
import re
from typing import Final

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from engine.corpus.sources import folder_files
from workbench.jobs.runners.file_checks import chosen
from workbench.core.formatting import ERROR_STYLE, human_size

# The list shows at most this many of the chosen files (the count covers them all).
LISTED_MAX: Final = 500


def split_globs(text: str) -> list[str]:
    """The globs typed in one field, separated by commas or spaces: "*.txt, sub/*" -> ["*.txt", "sub/*"]."""
    return [part for part in re.split(r"[,\s]+", text) if part]


class FolderDialog(QDialog):
    """Choose the files of `folder` to add; `files()` are the chosen ones (absolute paths)."""

    def __init__(self, folder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder = os.path.abspath(folder)
        self.setWindowTitle(f"Add folder {os.path.basename(self.folder) or self.folder}")
        self.setMinimumWidth(560)
        self._all = folder_files(self.folder)
        self.include = QLineEdit()
        self.include.setPlaceholderText("every file; e.g. *.txt **/*.jsonl.gz")
        self.exclude = QLineEdit()
        self.exclude.setPlaceholderText("none; e.g. build/* **/test_*")
        self.corpus_only = QCheckBox("Only corpus files by name (text, .jsonl, .parquet, .tsv; also .gz .bz2 .xz .zst)")
        self.corpus_only.setChecked(True)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.listing = QPlainTextEdit()
        self.listing.setReadOnly(True)
        self.listing.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Add Files")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        form = QFormLayout()
        form.addRow("Folder", QLabel(self.folder))
        form.addRow("Include", self.include)
        form.addRow("Exclude", self.exclude)
        hint = QLabel(
            "Globs match a file's path inside the folder, as --include/--exclude do on the command line: "
            "* also matches /, **/ may match no folder. Hidden files and folders are skipped."
        )
        hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(hint)
        layout.addWidget(self.corpus_only)
        layout.addWidget(self.summary)
        layout.addWidget(self.listing, 1)
        layout.addWidget(self.buttons)

        self.include.textChanged.connect(self._update)
        self.exclude.textChanged.connect(self._update)
        self.corpus_only.toggled.connect(self._update)
        self._update()

    def relative(self) -> list[str]:
        """The chosen files' paths inside the folder, sorted."""
        return chosen(
            self._all, split_globs(self.include.text()), split_globs(self.exclude.text()), self.corpus_only.isChecked()
        )

    def files(self) -> list[str]:
        return [os.path.join(self.folder, rel.replace("/", os.sep)) for rel in self.relative()]

    def _update(self) -> None:
        keep = self.relative()
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(keep))
        if not keep:
            if not self._all:
                text = "The folder has no file to add (hidden files and folders are skipped)."
            else:
                advice = "change the globs" + (", or untick “Only corpus files”" if self.corpus_only.isChecked() else "")
                text = f"None of the folder's {len(self._all):,} files is chosen: {advice}."
            self.summary.setText(text)
            self.summary.setStyleSheet(ERROR_STYLE)
            self.listing.setPlainText("")
            return
        size = 0
        for path in self.files():
            try:
                size += os.path.getsize(path)
            except OSError:
                pass  # (the check after adding says what is wrong with it)
        self.summary.setText(f"{len(keep):,} of {len(self._all):,} files, {human_size(size)}, will be added and checked.")
        self.summary.setStyleSheet("")
        shown = keep[:LISTED_MAX]
        if len(keep) > LISTED_MAX:
            shown.append(f"… and {len(keep) - LISTED_MAX:,} more")
        self.listing.setPlainText("\n".join(shown))
