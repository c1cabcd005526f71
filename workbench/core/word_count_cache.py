"""Where a training's word counts are kept, and when kept counts still hold (Qt-free).

A training writes the words it counted as a `word<TAB>count` table, so that Continue can train
to a larger size without counting again. The table is named by a digest of what the counts
depend on (`counts_key`): the corpus files (sizes, SHA-256, and the text field read when not
"text"), the pipeline, the share held out, and whether they count words or whole lines (what
a SentencePieceTrainer reads: `workbench.core.trainer_counting`). Beside a saved project it is
`<project>.counts-<first 12 hex of the key>.tsv`; for an unsaved one, in the per-user cache.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Final

from engine.project.facts import CorpusFile
from engine.schema import JsonValue
from workbench.core.settings import cache_dir

# A word-counts table beside a project is named `<project>.counts-<first chars of its key>.tsv`.
COUNTS_KEY_CHARS: Final = 12
# What marks the key of counts of whole lines (`counts_key`'s `sentences`).
SENTENCES: Final = "sentences"


def counts_key(
    corpus: list[CorpusFile],
    fields: dict[str, str],
    pipeline: dict[str, JsonValue],
    held_out: float,
    sentences: bool = False,
) -> str:
    """The digest of what word counts depend on: the corpus files (size, SHA-256 and the text
    field read, `fields[path]`, when not "text"), the pipeline, the held-out share, and whether
    they are counts of whole lines (`sentences`), so that a word trainer is never handed a
    sentencepiece training's line counts, nor the other way round."""
    files: list[list[JsonValue]] = []
    for item in corpus:
        chosen = fields.get(item.path)
        # subtle: a file read as "text" keeps the key it had before fields were kept
        files.append([item.size, item.sha256, chosen] if chosen else [item.size, item.sha256])
    described: list[JsonValue] = [files, pipeline, round(held_out, 6)]
    if sentences:
        # subtle: word counts keep the key they had before line counts were kept
        described.append(SENTENCES)
    text = json.dumps(described, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def counts_path(project_path: str | None, key: str) -> str:
    """Where the counts of `key` are written: beside the project saved at `project_path`, else
    (None: not saved) in the per-user cache; "" when that folder cannot be made."""
    if project_path is not None:
        stem = os.path.splitext(project_path)[0]
        return f"{stem}.counts-{key[:COUNTS_KEY_CHARS]}.tsv"
    folder = cache_dir() / "counts"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return ""
    return str(folder / f"{key[:16]}.tsv")
