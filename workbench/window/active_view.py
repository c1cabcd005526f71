"""`ActiveView`: what the tabs draw of the active tokenizer, built once: its vocabulary table,
token style, how each BPE token was made, its stored history and why each export format cannot
hold it.

The record only: `ProjectDocument` keeps the one view of the active tokenizer and asks the
encoding process to fill it (`fill`, `fill_history`), or builds it here when there is none
(`build_here`). No Qt and no widgets; it stays in the window because it reads the encoding
process's answers (`workbench.jobs.children.encoding`), which `core` does not import.
"""

from __future__ import annotations

from engine import Tokenizer
from engine.analysis.vocabulary import TokenStyle, VocabularyTable, merges_made
from engine.project.entry import TokenizerEntry
from workbench.core.history import HistoryColumns
from workbench.core.packed import MadeWire, VocabularyColumns, unpack_made
from workbench.jobs.children.encoding import export_reasons


class ActiveView:
    """What the tabs draw for the active tokenizer, built once: for a trained tokenizer its
    vocabulary table, token style, how each BPE token was made and why each export format
    cannot hold it, built in the encoding process (`fill`; `ready` until then is False) or
    handed over by a finished training; for an untrained one, the pipeline's style.

    `tokenizer` builds the engine tokenizer in this process when something asks for it (an
    export's last step, a script): the views never do.
    """

    def __init__(
        self, entry: TokenizerEntry, table: VocabularyColumns | None = None, style: TokenStyle | None = None
    ) -> None:
        self.entry = entry
        self.result = entry.result
        self._tokenizer: Tokenizer | None = None
        self._table = table
        self._style = style
        self._made: dict[str, tuple[int, str, str]] | MadeWire | None = None
        self.export_reasons: dict[str, str] | None = None
        # a stored history, ready to draw (`history_ready`: asked for and arrived, or not asked)
        self.history: HistoryColumns | None = None
        self.history_ready = True
        self.history_problem = ""
        # the request the encoding process answers with this view (0: none), and why it could
        # not be built ("" when it could)
        self.request = 0
        self.history_request = 0
        self.export_request = 0
        self.problem = ""
        self.attempts = 1

    @property
    def tokenizer(self) -> Tokenizer:
        if self._tokenizer is None:
            self._tokenizer = self.entry.tokenizer()
        return self._tokenizer

    @property
    def made(self) -> dict[str, tuple[int, str, str]] | None:
        """How each token a BPE model merged was made (`merges_made`; {} for other models, None
        until it is known), unpacked when first asked for (a merge tree)."""
        made = self._made
        if isinstance(made, tuple):
            made = self._made = unpack_made(made)
        return made

    @property
    def ready(self) -> bool:
        """Whether there is what the views draw (an untrained tokenizer's style is made here)."""
        return not self.entry.is_trained or (self._table is not None and self._style is not None)

    def build_here(self, glyphs: bool) -> None:
        """Build what the views need in this process (no encoding process: scripts, tests)."""
        if self.entry.is_trained:
            tokenizer = self.tokenizer
            if self._table is None:
                self._table = VocabularyColumns.of(VocabularyTable.of(tokenizer, self.entry.frequencies or None, glyphs))
            if self._style is None:
                self._style = TokenStyle.of(tokenizer)
            if self._made is None:
                self._made = merges_made(tokenizer.model)
            if self.export_reasons is None:
                self.export_reasons = export_reasons(tokenizer)

    def fill(self, wire: object) -> None:
        """What the encoding process built (`workbench.jobs.children.encoding.view_wire`); what a training
        handed over already is kept."""
        if not isinstance(wire, dict):
            self.problem = "the encoding process sent no vocabulary"
            return
        table = wire.get("table")
        if self._table is None and table is not None:
            if not isinstance(table, VocabularyColumns):
                raise TypeError("the vocabulary table is not one")
            self._table = table
        if self._style is None:
            style = wire["style"]
            self._style = TokenStyle(bool(style[0]), str(style[1]), str(style[2]), str(style[3]))
        made = wire.get("made")
        self._made = made if isinstance(made, tuple) and len(made) == 4 else {}

    def fill_history(self, wire: object) -> None:
        """The stored history the encoding process made ready to draw (`stored_history_wire`)."""
        history = wire.get("history") if isinstance(wire, dict) else None
        if isinstance(history, dict):
            self.history = HistoryColumns(history)
        else:
            self.history_problem = str(wire.get("problem") if isinstance(wire, dict) else "") or "it could not be read"
        self.history_ready = True

    def table(self, glyphs: bool) -> VocabularyColumns | None:
        """The vocabulary table (None for an untrained tokenizer, or until it is built)."""
        return self._table

    @property
    def style(self) -> TokenStyle:
        if self._style is None:
            if self.entry.is_trained:
                return TokenStyle()  # (until the encoding process has said)
            self._style = TokenStyle.of(self.tokenizer)
        return self._style

    @property
    def vocab_size(self) -> int:
        """The vocabulary's size (-1 until it is known)."""
        table = self._table
        if table is not None:
            return len(table)
        return -1 if self.entry.is_trained else self.tokenizer.get_vocab_size()
