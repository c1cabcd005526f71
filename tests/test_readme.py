"""README's two set-up commands stay true: CI runs exactly the README's test command."""

from __future__ import annotations

import re

from support import ROOT


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", setup, flags=re.S)]


def test_readme_has_exactly_two_setup_commands() -> None:
    commands = _readme_commands()
    assert len(commands) == 2, commands
    assert all("\n" not in c for c in commands), "each set-up command is one line"


def test_ci_runs_the_readme_test_command() -> None:
    test_command = _readme_commands()[1]
    ci_lines = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#") and not line.startswith("set ") and not line.startswith("cd ")
    ]
    # (CI only adds that its shared corpora must be there: see tests/support.py)
    exports = [line for line in ci_lines if line.startswith("export ")]
    assert exports == ["export WORKBENCH_REQUIRE_SHARED_CORPORA=1"]
    assert [line for line in ci_lines if line not in exports] == [test_command]


def test_readme_main_command_opens_the_window() -> None:
    # With no command, tokenizer-workbench opens the window (on the sample project the first time).
    main_command = _readme_commands()[0]
    assert main_command.endswith(".venv/bin/tokenizer-workbench"), main_command


def test_the_readme_shows_the_screenshots_the_command_writes() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    names = (
        "train.png", "train-wordpiece.png", "train-unigram.png", "train-step-by-step.png", "vocabulary.png", "encode.png",
        "encode-pipeline.png", "encode-round-trip.png", "encode-step-wordpiece.png", "encode-step-unigram.png", "encode-step-bpe.png",
        "compare.png", "train-failed.png", "dialog-replace-result.png",
        "dialog-restore.png", "dialog-outside-files.png", "help-guide.png", "desktop-bundle.png",
    )  # fmt: skip
    for name in names:
        assert f"docs/screenshots/{name}" in text and (ROOT / "docs" / "screenshots" / name).is_file()
