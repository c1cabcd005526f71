"""What reading a .tiktoken file assumed, said where the user looks: `inspect` prints it, and the
window says it in the status bar after the import and keeps it in the tokenizer's tooltip (and
in the project file) until the tokenizer is trained again."""

from __future__ import annotations

import base64
from pathlib import Path

from pytestqt.qtbot import QtBot

from cli_support import run_cli
from engine.formats import tiktoken as tiktoken_format
from engine.project.entry import TokenizerEntry
from support import openai_rank_file
from window_support import wait_for_view
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts

UNKNOWN_NOTE = (
    "not one of OpenAI's rank files, and no sidecar (bytes.tiktoken.json) beside it:"
    " split with GPT-2's pattern, no special tokens; write a sidecar to choose another"
)


def byte_ranks(path: Path) -> Path:
    """Every byte, then "ab": no OpenAI file."""
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines.append(f"{base64.b64encode(b'ab').decode()} 256")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_inspect_says_which_openai_file_it_recognized(tmp_path: Path) -> None:
    path = openai_rank_file("cl100k_base", tmp_path)
    result = run_cli("inspect", str(path), "--merges", "2")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert (
        "detected:        recognized as OpenAI's cl100k_base by its SHA-256:"
        " tiktoken's split pattern and its 5 special tokens"
    ) in lines
    assert any(line.startswith("pre-tokenizer:   Sequence[Split(pattern=") and "\\\\p{N}{1,3}+" in line for line in lines)
    assert (
        "special tokens:  <|endoftext|>=100257, <|fim_prefix|>=100258, <|fim_middle|>=100259,"
        " <|fim_suffix|>=100260, <|endofprompt|>=100276"
    ) in lines


def test_inspect_says_which_pattern_an_unknown_file_got(tmp_path: Path) -> None:
    path = byte_ranks(tmp_path / "bytes.tiktoken")
    result = run_cli("inspect", str(path))
    assert result.returncode == 0, result.stderr
    assert f"detected:        {UNKNOWN_NOTE}" in result.stdout.splitlines()
    assert "pre-tokenizer:   ByteLevel(" in result.stdout
    # with a sidecar the file says it all: nothing assumed, nothing said
    Path(tiktoken_format.sidecar_path(str(path))).write_text('{"pat_str": "[\\\\s\\\\S]+"}', encoding="utf-8")
    result = run_cli("inspect", str(path))
    assert result.returncode == 0, result.stderr
    assert "detected:" not in result.stdout


def test_the_window_says_what_an_imported_tiktoken_file_assumed(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path
) -> None:
    path = byte_ranks(tmp_path / "bytes.tiktoken")
    # opened: said in the status bar, kept in the tokenizer's tooltip beside its source
    assert window.open_file(str(path))
    wait_for_view(qtbot, window)
    assert window.statusBar().currentMessage() == f"bytes.tiktoken: {UNKNOWN_NOTE}"
    entry = window.document.project.tokenizers[0]
    assert entry.notes == [UNKNOWN_NOTE]
    assert window.project_panel.tokenizer_list.item(0).toolTip() == f"{path}\n{UNKNOWN_NOTE}"

    # imported into a project: the same; kept in the project file; gone once trained again
    window.new_project()
    window.statusBar().clearMessage()
    prompts.answers["tokenizer_file"] = str(path)
    window.project_panel.import_tokenizer()
    assert window.statusBar().currentMessage() == f"bytes.tiktoken: {UNKNOWN_NOTE}"
    [entry] = window.document.project.tokenizers
    assert entry.notes == [UNKNOWN_NOTE]
    again = TokenizerEntry.from_dict(entry.to_dict())
    assert again.notes == [UNKNOWN_NOTE] and again.source == entry.source
    pipeline, trainer = entry.pipeline, entry.trainer
    assert trainer is not None
    window.document.set_configuration(pipeline, {**trainer, "vocab_size": 300})
    assert entry.notes == [] and "\n" not in window.project_panel.tokenizer_list.item(0).toolTip()
    window.document.undo_stack.undo()
    assert entry.notes == [UNKNOWN_NOTE]


def test_a_tokenizer_json_import_has_no_notes(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    path = byte_ranks(tmp_path / "bytes.tiktoken")
    tiktoken_format.load(str(path)).save(str(tmp_path / "tokenizer.json"))
    prompts.answers["tokenizer_file"] = str(tmp_path / "tokenizer.json")
    window.project_panel.import_tokenizer()
    [entry] = window.document.project.tokenizers
    assert entry.notes == [] and "notes" not in entry.to_dict()
    assert window.project_panel.tokenizer_list.item(0).toolTip() == str(tmp_path / "tokenizer.json")
