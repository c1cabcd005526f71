"""What the Project panel says about the corpus files (`workbench.core.corpus_text`), on a
hand-checkable corpus: each file's problem in the window's words, then the missing files."""

from __future__ import annotations

from pathlib import Path

from engine.project.facts import CorpusFile
from workbench.core.corpus_text import corpus_problems


def test_the_problems_name_each_file_then_the_missing_ones(tmp_path: Path) -> None:
    for name in ("big.bin", "a.jsonl", "fine.txt", "again.txt"):
        (tmp_path / name).write_bytes(b"x\n")
    corpus = [
        CorpusFile(str(tmp_path / "big.bin"), problem="is not UTF-8 text"),
        CorpusFile(str(tmp_path / "gone.txt")),
        CorpusFile(str(tmp_path / "a.jsonl"), problem='has no "text" field; choose one with --field'),
        CorpusFile(str(tmp_path / "fine.txt")),
        CorpusFile(str(tmp_path / "again.txt"), problem="is empty"),  # (being checked again: left out)
        CorpusFile(str(tmp_path / "lost.txt")),
    ]
    assert corpus_problems(corpus, {str(tmp_path / "again.txt")}) == [
        "big.bin is not UTF-8 text",
        'a.jsonl has no "text" field; double-click its Field cell to choose one',
        "Not found: gone.txt, lost.txt. Right-click a missing file to locate it; training needs every file.",
    ]
    assert corpus_problems([CorpusFile(str(tmp_path / "fine.txt"))], set()) == []
