"""Where a training's word counts are kept, and what names them (`workbench.core.word_count_cache`)."""

from __future__ import annotations

import os
from pathlib import Path

from engine.project.facts import CorpusFile
from workbench.core.word_count_cache import COUNTS_KEY_CHARS, counts_key, counts_path


def _file(path: str, size: int, sha256: str) -> CorpusFile:
    item = CorpusFile(path)
    item.size, item.sha256 = size, sha256
    return item


def test_the_key_changes_with_the_files_the_field_read_the_pipeline_and_the_share_held_out() -> None:
    corpus = [_file("/c/a.txt", 10, "aa"), _file("/c/b.jsonl", 20, "bb")]
    pipeline: dict[str, object] = {"normalizer": None}
    key = counts_key(corpus, {}, pipeline, 0.01)
    assert len(key) == 64 and key == counts_key(corpus, {}, dict(pipeline), 0.010000001)
    others = {
        counts_key([_file("/c/a.txt", 10, "ab"), corpus[1]], {}, pipeline, 0.01),  # another file's content
        counts_key(corpus, {"/c/b.jsonl": "content"}, pipeline, 0.01),  # another text field
        counts_key(corpus, {}, {"normalizer": {"type": "Lowercase"}}, 0.01),
        counts_key(corpus, {}, pipeline, 0.02),
    }
    assert key not in others and len(others) == 4


def test_counts_go_beside_a_saved_project_else_to_the_per_user_cache(tmp_path: Path, private_home: Path) -> None:
    key = "0123456789abcdef" * 4
    project = str(tmp_path / "my.project.tokproj")
    assert counts_path(project, key) == str(tmp_path / f"my.project.counts-{key[:COUNTS_KEY_CHARS]}.tsv")
    cached = counts_path(None, key)
    assert cached == str(private_home / "cache" / "counts" / f"{key[:16]}.tsv") and os.path.isdir(os.path.dirname(cached))

