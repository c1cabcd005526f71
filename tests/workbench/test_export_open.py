"""File ▸ Export in every format `convert.save` writes, and opening every format `convert.load`
reads: exports load back with the same encodings (and in the reference libraries), a format
that cannot hold the tokenizer is disabled with the engine's reason, a refused export writes
nothing, and .model / vocab.txt / .tiktoken / vocab.json files open in the window."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from pytestqt.qtbot import QtBot
from window_support import SAMPLE, train_and_wait, wait_for_view

from engine.analysis import certificate
from engine.corpus.checks import check_file
from engine.formats import convert
from engine.formats import tiktoken as tiktoken_format
from workbench.window.main_window import MainWindow
from workbench.window.menus import EXPORT_TITLES
from workbench.window.prompts import TOKENIZER_FILTER, ScriptedPrompts

LINES = [
    "To be, or not to be, that is the question:",
    "Whether 'tis nobler in the mind to suffer",
    "  The slings and arrows of outrageous fortune,",
    "ROMEO. O, she doth teach the torches to burn bright!",
]


def trained(qtbot: QtBot, window: MainWindow, corpus: Path, key: str, vocab_size: int) -> None:
    window.new_project()
    window.document.add_checked_files([check_file(str(corpus))])
    window.document.add_preset(key, vocab_size=vocab_size)
    window.train_tab.held_out.setValue(0.0)
    train_and_wait(qtbot, window)


def export(window: MainWindow, prompts: ScriptedPrompts, kind: str, path: Path) -> None:
    window.update_export_actions()  # (train_and_wait waited for the export checks)
    action = window.export_actions[kind]
    assert action.isEnabled(), action.toolTip()
    prompts.answers["export_file"] = str(path)
    action.trigger()


def same_encodings(window: MainWindow, path: Path) -> None:
    view = window.document.view()
    assert view is not None
    loaded = convert.load(str(path))
    for line in LINES:
        mine = view.tokenizer.encode(line, add_special_tokens=False)
        theirs = loaded.encode(line, add_special_tokens=False)
        assert (theirs.tokens, theirs.ids) == (mine.tokens, mine.ids), line


def test_bert_vocab_export_and_the_refused_formats(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path, tmp_path: Path
) -> None:
    trained(qtbot, window, small_corpus, "bert", 400)
    target = tmp_path / "vocab.txt"
    export(window, prompts, convert.BERT_VOCAB, target)
    assert target.is_file() and len(target.read_text(encoding="utf-8").splitlines()) == 400
    same_encodings(window, target)
    assert f"Exported {target}" in window.statusBar().currentMessage()
    # a WordPiece tokenizer has no merges and no byte-level alphabet: the other formats say why
    for kind in (convert.GPT2, convert.TIKTOKEN, convert.SENTENCEPIECE):
        action = window.export_actions[kind]
        assert not action.isEnabled() and action.toolTip().startswith("Cannot export as")
        assert "WordPiece" in action.toolTip() and action.statusTip() == action.toolTip()
        assert "workbench-export-" not in action.toolTip()  # the throw-away file is not named
    # and, forced anyway, it writes nothing: the file already there is untouched
    existing = tmp_path / "vocab.json"
    existing.write_text('{"keep": 0}', encoding="utf-8")
    prompts.answers["export_file"] = str(existing)
    assert not window.export_as(convert.GPT2)
    assert existing.read_text(encoding="utf-8") == '{"keep": 0}' and not (tmp_path / "merges.txt").exists()
    assert "Nothing was written" in prompts.questions("warn")[-1]


def test_gpt2_and_tiktoken_exports_load_back_and_in_tiktoken(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path, tmp_path: Path
) -> None:
    trained(qtbot, window, small_corpus, "gpt2", 500)
    vocab = tmp_path / "gpt2" / "vocab.json"
    vocab.parent.mkdir()
    export(window, prompts, convert.GPT2, vocab)
    assert vocab.is_file() and (tmp_path / "gpt2" / "merges.txt").is_file()
    same_encodings(window, vocab)

    # the export proves itself: HF tokenizers reads the two files with the same ids on every text
    [report] = [text for kind, title, text, _ in prompts.dialogs if title == "Exported as GPT-2 vocab.json + merges.txt"]
    assert report.startswith(f"Wrote {vocab} and {tmp_path / 'gpt2' / 'merges.txt'}.\n\nCertificate: identical on 556 texts (")
    assert "read by tokenizers 0.23.3\nloaded with tokenizers.ByteLevelBPETokenizer('vocab.json', 'merges.txt')" in report
    assert f"The certificate is saved as {vocab}.certificate.json" in report
    assert certificate.load(f"{vocab}.certificate.json").identical
    assert "certificate: identical on 556 texts" in window.statusBar().currentMessage()

    ranks = tmp_path / "sample.tiktoken"
    export(window, prompts, convert.TIKTOKEN, ranks)
    assert certificate.load(f"{ranks}.certificate.json").reader == "tiktoken 0.14.0"
    assert ranks.is_file() and Path(tiktoken_format.sidecar_path(str(ranks))).is_file()
    same_encodings(window, ranks)
    import tiktoken  # (a test dependency)

    sidecar = tiktoken_format.read_sidecar(tiktoken_format.sidecar_path(str(ranks)))
    encoding = tiktoken.Encoding(
        name="sample",
        pat_str=sidecar.pat_str,
        mergeable_ranks=tiktoken_format.read(str(ranks)),
        special_tokens=sidecar.special_tokens,
    )
    view = window.document.view()
    assert view is not None
    for line in LINES:
        assert encoding.encode_ordinary(line) == view.tokenizer.encode(line, add_special_tokens=False).ids
    # a byte-level BPE is no SentencePiece model (no Metaspace) and no WordPiece vocabulary
    window.update_export_actions()
    assert not window.export_actions[convert.BERT_VOCAB].isEnabled()
    assert not window.export_actions[convert.SENTENCEPIECE].isEnabled()


def test_sentencepiece_export_loads_back_and_in_sentencepiece(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path, tmp_path: Path
) -> None:
    trained(qtbot, window, small_corpus, "sentencepiece-unigram", 400)
    # the preset normalizes as sentencepiece does: its rules go into the .model as they are
    window.update_export_actions()
    assert window.export_actions[convert.SENTENCEPIECE].isEnabled()
    model = tmp_path / "sample.model"
    export(window, prompts, convert.SENTENCEPIECE, model)
    assert model.is_file() and model.with_suffix(".vocab").is_file()
    same_encodings(window, model)
    reports = prompts.questions("report")
    status = window.statusBar().currentMessage()
    assert f"Exported {model}" in status and "does not keep" not in status
    assert not [note for note in prompts.questions("inform") if "space" in note]
    import sentencepiece as spm  # (a test dependency)

    processor = spm.SentencePieceProcessor(model_file=str(model))
    view = window.document.view()
    assert view is not None
    # the certificate finds every text the same in sentencepiece (those starting with a space too)
    assert reports and "Certificate: identical on " in reports[-1] and "read by sentencepiece" in reports[-1]
    assert "starts with a space" not in reports[-1]
    assert certificate.load(f"{model}.certificate.json").identical
    assert any(line[0].isspace() for line in LINES)
    for line in LINES + [" leading", "\u3000ideographic", "  two  spaces  "]:
        assert processor.encode(line, out_type=str) == view.tokenizer.encode(line, add_special_tokens=False).tokens


def test_a_tokenizer_json_export_shows_its_certificate(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path, tmp_path: Path
) -> None:
    trained(qtbot, window, small_corpus, "bpe", 400)
    target = tmp_path / "bpe.json"
    prompts.answers["export_file"] = str(target)
    assert window.export_tokenizer_json()
    [(kind, title, report, _)] = [dialog for dialog in prompts.dialogs if dialog[1].startswith("Exported")]
    assert (kind, title) == ("report", "Exported as tokenizer.json")
    saved = certificate.load(f"{target}.certificate.json")
    assert saved.identical and saved.special_tokens and saved.files == [(str(target), certificate.sha256_of(str(target)))]
    assert report == (
        f"Wrote {target}.\n\nCertificate: {saved.verdict()}\nloaded with tokenizers.Tokenizer.from_file('bpe.json')"
        f"\n\nThe certificate is saved as {target}.certificate.json"
    )


def test_the_export_entries_wait_for_a_trained_tokenizer(window: MainWindow) -> None:
    window.new_project()
    window.document.add_preset("bpe", vocab_size=300)
    assert set(window.export_actions) == set(convert.FORMATS) - {convert.HF} == set(EXPORT_TITLES)
    window.update_export_actions()
    for action in window.export_actions.values():
        assert not action.isEnabled() and "Train" in action.toolTip()


def test_the_file_dialogs_offer_every_readable_format() -> None:
    for pattern in ("*.json", "*.model", "*.tiktoken", "*.txt"):
        assert pattern in TOKENIZER_FILTER.split(";;")[0]


def test_vocab_txt_tiktoken_and_gpt2_files_open_in_the_window(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path
) -> None:
    vocab_txt = tmp_path / "vocab.txt"
    vocab_txt.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "##s", "t", "##h", "##e"]) + "\n", encoding="utf-8")
    assert window.open_file(str(vocab_txt))
    view = wait_for_view(qtbot, window)
    assert view is not None and view.entry.preset == "imported"
    assert window.tabs.currentWidget() is window.vocab_tab and window.vocab_tab.model.rowCount() == 10
    assert view.tokenizer.encode("the cats", add_special_tokens=False).tokens == ["the", "cat", "##s"]

    ranks = tmp_path / "bytes.tiktoken"
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines.append(f"{base64.b64encode(b'ab').decode()} 256")
    ranks.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert window.open_file(str(ranks))
    view = wait_for_view(qtbot, window)
    assert view is not None and window.vocab_tab.model.rowCount() == 257
    assert view.tokenizer.encode("abc", add_special_tokens=False).ids == [256, ord("c")]

    # File ▸ Import Tokenizer reads the same formats (GPT-2: vocab.json with merges.txt beside it)
    (tmp_path / "vocab.json").write_text(json.dumps({"a": 0, "b": 1, "ab": 2}), encoding="utf-8")
    (tmp_path / "merges.txt").write_text("#version: 0.2\na b\n", encoding="utf-8")
    prompts.answers["tokenizer_file"] = str(tmp_path / "vocab.json")
    window.project_panel.import_tokenizer()
    imported = window.document.view()
    assert imported is not None and imported.entry.name == "vocab.json" and imported.tokenizer.encode("ab").tokens == ["ab"]


def test_a_sentencepiece_model_opens_in_the_window(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    import sentencepiece as spm  # (a test dependency)

    text = tmp_path / "text.txt"
    text.write_text("".join(SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[:3000]), encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(text), model_prefix=str(tmp_path / "spm"), vocab_size=300, model_type="unigram", minloglevel=2
    )
    model = tmp_path / "spm.model"
    assert window.open_file(str(model))
    view = wait_for_view(qtbot, window)
    assert view is not None and window.vocab_tab.model.rowCount() == 300
    processor = spm.SentencePieceProcessor(model_file=str(model))
    for line in LINES:
        assert view.tokenizer.encode(line, add_special_tokens=False).tokens == processor.encode(line, out_type=str)
    # imported, it can be retrained: the Train tab has its trainer
    assert window.train_tab.form.trainer.kind == "UnigramTrainer" and window.train_tab.form.configuration() is not None


def test_a_damaged_file_shows_the_engines_message(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    window.new_project()
    for name, content in (("broken.model", b"\x08\x96\x01not a protobuf"), ("broken.tiktoken", b"!!! 0\n")):
        path = tmp_path / name
        path.write_bytes(content)
        assert not window.open_file(str(path))
        message = prompts.questions("warn")[-1]
        assert str(path) in message and "SentencePiece .model" in message
    assert window.document.project.name == "Untitled"


def test_a_cased_vocab_txt_says_what_was_chosen_and_can_be_read_the_other_way(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path
) -> None:
    vocab = tmp_path / "vocab.txt"
    words = ["hello", "world", "paris", "london", "tokens", "words", "cats", "dogs", "birds", "trees"]
    lines = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words, *[w.capitalize() for w in words]]
    vocab.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert window.open_file(str(vocab))  # (asked, and closed: kept as detected)
    [question] = prompts.questions("choose")
    assert "cased vocabulary (10 tokens with capitals): lowercase off" in question
    assert "It was read as cased (text kept as typed)." in question
    view = wait_for_view(qtbot, window)
    assert view.tokenizer.encode("Hello", add_special_tokens=False).tokens == ["Hello"]
    # read the other way: the same vocabulary, lowercasing
    prompts.answers["choose"] = "Read It as Uncased"
    prompts.answers["tokenizer_file"] = str(vocab)
    window.project_panel.import_tokenizer()
    view = wait_for_view(qtbot, window)
    assert view.tokenizer.encode("Hello", add_special_tokens=False).tokens == ["hello"]
