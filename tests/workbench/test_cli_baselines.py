"""`encode --baseline`: the Compare tab's rule baselines from the command line, with their
spans, and bad input named as encode names it."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import assert_one_line_error, run_cli

from engine.analysis import baselines


def test_each_baseline_prints_the_pieces_the_compare_tab_shows() -> None:
    text = "Dr. Who's 2nd. I said no. Go!"
    words = run_cli("encode", "--baseline", "words", "--text", text)
    assert words.returncode == 0, words.stderr
    assert words.stdout.split() == [text[start:end] for start, end in baselines.words(text)]
    assert words.stdout.split()[:4] == ["Dr", ".", "Who", "'"]
    sentences = run_cli("encode", "--baseline", "sentences", "--json", "--text", text)
    record = json.loads(sentences.stdout)
    # (not after the abbreviation "Dr."; after "no." before a capital, as a sentence ends)
    assert record["pieces"] == ["Dr. Who's 2nd.", "I said no.", "Go!"]
    assert record["offsets"] == [list(span) for span in baselines.sentences(text)] and record["baseline"] == "sentences"
    utf8 = run_cli("encode", "--baseline", "bytes", "--json", "--text", "añ")
    assert json.loads(utf8.stdout)["pieces"] == ["a", "<0xC3>", "<0xB1>"]
    characters = run_cli("encode", "--baseline", "characters", stdin="ab\nc d\n")
    assert characters.stdout.splitlines() == ["a b", 'c " " d']


def test_baseline_input_errors_name_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine line\nx\xffy\n")
    strict = run_cli("encode", "--baseline", "words", str(bad))
    assert_one_line_error(strict, "bad.txt: line 2", "0xff", "--errors replace")
    skipped = run_cli("encode", "--baseline", "words", "--errors", "skip", str(bad))
    assert skipped.returncode == 0 and skipped.stdout.split() == ["fine", "line"] and "skipped 1 line" in skipped.stderr
    missing = run_cli("encode", "--baseline", "words", str(tmp_path / "nowhere.txt"))
    assert_one_line_error(missing, "nowhere.txt: file not found")
    both = run_cli("encode", "--baseline", "words", "-t", str(bad), "--text", "a")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    out = run_cli("encode", "--baseline", "words", "--out", str(tmp_path / "ids.bin"), str(bad))
    assert_one_line_error(out, "--baseline prints the pieces of lines")
