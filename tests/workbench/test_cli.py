"""The `tokenizer-workbench` command: train/encode/inspect work, and bad input gets one clear line."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest
import numpy
import sentencepiece
import tokenizers

import engine
from cli_support import assert_one_line_error, run_cli
from support import ROOT, bert_tokens

SAMPLE = ROOT / "resources" / "sample" / "shakespeare.txt"


TRAIN_STDERR: dict[str, str] = {}
SIZES = {"bpe": 600, "gpt2": 600, "wordlevel": 500, "bert": 700, "sentencepiece-bpe": 600, "sentencepiece-unigram": 700}


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One small tokenizer per preset, trained once for the module (stderr kept in TRAIN_STDERR)."""
    folder = tmp_path_factory.mktemp("cli")
    paths: dict[str, Path] = {}
    for preset, size in SIZES.items():
        out = folder / f"{preset}.json"
        result = run_cli("train", "--preset", preset, "--vocab-size", str(size), "-o", str(out), str(SAMPLE))
        assert result.returncode == 0, result.stderr
        paths[preset] = out
        TRAIN_STDERR[preset] = result.stderr
    return paths


def test_console_script_is_installed() -> None:
    try:
        distribution = importlib.metadata.distribution("tokenizer-workbench")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("running from a source tree that is not installed")
    if not str(distribution.locate_file("")).startswith(sys.prefix):
        pytest.skip("running from a source tree; its build metadata is not an installation")
    scripts = {ep.name: ep.value for ep in distribution.entry_points if ep.group == "console_scripts"}
    assert scripts == {"tokenizer-workbench": "workbench.cli.main:main"}
    result = subprocess.run(
        [str(Path(sys.executable).parent / "tokenizer-workbench"), "--version"], capture_output=True, text=True
    )
    assert result.returncode == 0 and engine.__version__ in result.stdout


def test_version_says_whether_the_engine_is_compiled() -> None:
    result = run_cli("--version")
    assert result.returncode == 0
    assert engine.__version__ in result.stdout
    expected = "compiled with mypyc" if engine.COMPILED else "pure Python"
    assert expected in result.stdout


def test_more_than_one_file_to_open_is_a_usage_error() -> None:
    result = run_cli("a.tokproj", "b.tokproj")
    assert result.returncode == 2
    assert "one file" in result.stderr and "train" in result.stderr


def test_help_explains_the_window_and_the_commands() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    assert "[FILE]" in result.stdout and "sample project" in result.stdout
    for command in ("train", "encode", "inspect", "screenshots"):
        assert command in result.stdout


def test_python_dash_m_workbench_is_the_same_command() -> None:
    result = subprocess.run([sys.executable, "-P", "-m", "workbench", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and engine.__version__ in result.stdout


def test_screenshots_writes_one_png_per_tab(tmp_path: Path, private_home: Path) -> None:
    result = run_cli("screenshots", str(tmp_path / "shots"))
    assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in (tmp_path / "shots").iterdir())
    assert names == [
        "audit-health.png", "audit-premiums.png", "audit-scripts.png", "audit-table.png", "audit-two-vocabularies.png",
        "audit-unicode.png", "audit-vocabulary-size.png", "audit.png", "compare.png", "dialog-damaged-copy.png", "dialog-export-certificate.png", "dialog-open-elsewhere.png", "dialog-outside-files.png",
        "dialog-replace-result.png", "dialog-restore.png", "encode-pipeline.png", "encode-round-trip.png", "encode-step-bpe.png",
        "encode-step-unigram.png", "encode-step-wordpiece.png", "encode.png", "help-guide.png",
        "train-failed.png", "train-step-by-step.png", "train-step-tie.png", "train-unigram.png", "train-wordpiece.png", "train.png", "vocabulary.png",
    ]  # fmt: skip
    for name in names:
        data = (tmp_path / "shots" / name).read_bytes()
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        # a whole window (with text and highlighting: not blank), a dialog with its question, or
        # the user guide's window with its text
        if name.startswith("dialog-"):
            assert data.startswith(b"\x89PNG") and width >= 300 and height >= 100 and len(data) > 8_000, name
        elif name == "help-guide.png":
            assert data.startswith(b"\x89PNG") and width >= 800 and height >= 600 and len(data) > 50_000, name
        else:
            assert data.startswith(b"\x89PNG") and (width, height) == (1600, 1000) and len(data) > 50_000, name
    assert not list(private_home.rglob("settings.json"))  # the user's settings are left alone


@pytest.mark.parametrize("preset", sorted(SIZES))
def test_train_writes_a_tokenizer_hf_loads_with_identical_encodings(trained: dict[str, Path], preset: str) -> None:
    path = trained[preset]
    ours = engine.Tokenizer.from_file(str(path))
    theirs = tokenizers.Tokenizer.from_file(str(path))
    for text in ["First Citizen:", "Before we proceed any further, hear me speak.", "Zounds! naïve café ☃"]:
        a, b = ours.encode(text), theirs.encode(text)
        assert (a.ids, a.tokens, a.offsets) == (b.ids, b.tokens, b.offsets)
    assert ours.get_vocab_size() <= SIZES[preset]


def test_train_reports_stages_and_a_summary(trained: dict[str, Path]) -> None:
    assert trained["bpe"].is_file()
    stderr = TRAIN_STDERR["bpe"]
    assert "Compute merges" in stderr
    summary = stderr.strip().splitlines()[-1]
    assert summary.startswith("Trained bpe tokenizer: vocab 600")
    assert "merges" in summary and str(trained["bpe"]) in summary


def test_gpt2_preset_is_byte_level_with_full_alphabet(trained: dict[str, Path]) -> None:
    data = json.loads(trained["gpt2"].read_text(encoding="utf-8"))
    assert data["pre_tokenizer"]["type"] == "ByteLevel"
    assert data["decoder"]["type"] == "ByteLevel"
    assert data["post_processor"]["type"] == "ByteLevel"
    vocab = data["model"]["vocab"]
    assert vocab["<|endoftext|>"] == 0
    assert len([t for t in vocab if len(t) == 1]) == 256


def test_special_tokens_option_keeps_unk_first(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    result = run_cli(
        "train", "--preset", "bpe", "--vocab-size", "300", "--special-tokens", "[CLS],[SEP]", "-q", "-o", str(out), str(SAMPLE)
    )
    assert result.returncode == 0, result.stderr
    vocab = json.loads(out.read_text(encoding="utf-8"))["model"]["vocab"]
    assert [vocab["[UNK]"], vocab["[CLS]"], vocab["[SEP]"]] == [0, 1, 2]


def test_encode_text_and_stdin(trained: dict[str, Path]) -> None:
    tokenizer = engine.Tokenizer.from_file(str(trained["bpe"]))
    result = run_cli("encode", "-t", str(trained["bpe"]), "--text", "Hear me speak.")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == tokenizer.encode("Hear me speak.").tokens

    result = run_cli("encode", "-t", str(trained["gpt2"]), "--json", stdin="Hear me\nspeak, speak.\n")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    gpt2 = engine.Tokenizer.from_file(str(trained["gpt2"]))
    for row, text in zip(rows, ["Hear me", "speak, speak."], strict=True):
        encoding = gpt2.encode(text)
        assert row == {"ids": encoding.ids, "tokens": encoding.tokens, "offsets": [list(o) for o in encoding.offsets]}


def test_inspect_summarizes_pipeline_vocab_and_merges(trained: dict[str, Path]) -> None:
    result = run_cli("inspect", str(trained["gpt2"]), "--merges", "3")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "pre-tokenizer:   ByteLevel(" in out
    assert "decoder:         ByteLevel" in out
    assert "vocab size:      600" in out
    assert "special tokens:  <|endoftext|>=0" in out
    data = json.loads(trained["gpt2"].read_text(encoding="utf-8"))
    first = data["model"]["merges"][0]
    assert f"first merges:    {first[0]} + {first[1]}" in out


def test_inspect_shows_unigram_pieces_and_wordpiece_continuations(trained: dict[str, Path], corpora: Path) -> None:
    result = run_cli("inspect", str(corpora / "sp_test_model.model"), "--merges", "4")
    assert result.returncode == 0, result.stderr
    assert "format:          SentencePiece .model" in result.stdout
    assert "(log-probabilities)" in result.stdout
    likeliest = next(line for line in result.stdout.splitlines() if line.startswith("likeliest:"))
    assert len(likeliest.split()) == 5 and "<unk>" not in likeliest
    bert = run_cli("inspect", str(trained["bert"]))
    assert bert.returncode == 0, bert.stderr
    assert "start with '##'" in bert.stdout


def test_inspect_reads_the_real_bert_tokenizer(corpora: Path) -> None:
    result = run_cli("inspect", str(corpora / "bert_uncased_tokenizer.json"))
    assert result.returncode == 0, result.stderr
    assert "model:           WordPiece(" in result.stdout
    assert f"vocab size:      {len(bert_tokens()):,}" in result.stdout  # 30,522 in the real file
    assert "special tokens:  [PAD]=0, [UNK]=100, [CLS]=101, [SEP]=102, [MASK]=103" in result.stdout


# -- bad input: one line naming the file and the problem, nothing overwritten -------------------


def test_missing_training_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "100", "-o", str(tmp_path / "t.json"), str(missing))
    assert_one_line_error(result, str(missing))
    assert not (tmp_path / "t.json").exists()


def test_directory_as_training_file(tmp_path: Path) -> None:
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "100", "-o", str(tmp_path / "t.json"), str(tmp_path))
    assert_one_line_error(result, str(tmp_path), "directory")


def test_non_utf8_training_file_reports_the_byte_offset(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("héllo\n".encode("utf-8") * 3 + "caf\xe9\n".encode("latin-1"))
    out = tmp_path / "t.json"
    out.write_text("precious", encoding="utf-8")
    # even with --force, a failed training leaves the file it would replace as it was
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "100", "-o", str(out), "--force", str(bad))
    assert_one_line_error(result, str(bad), "byte 24")
    assert out.read_text(encoding="utf-8") == "precious"


def test_empty_training_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "100", "-o", str(tmp_path / "t.json"), str(empty))
    assert_one_line_error(result, str(empty))


def test_output_that_is_a_directory(tmp_path: Path) -> None:
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "100", "-o", str(tmp_path), str(SAMPLE))
    assert_one_line_error(result, str(tmp_path), "directory")


def test_output_that_is_an_input_is_refused(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("some text to keep\n", encoding="utf-8")
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "100", "-o", str(corpus), str(corpus))
    assert_one_line_error(result, str(corpus), "training file")
    assert corpus.read_text(encoding="utf-8") == "some text to keep\n"


def test_bad_vocab_size() -> None:
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "0", "-o", "x.json", str(SAMPLE))
    assert_one_line_error(result, "--vocab-size")


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ('{"version": "1.0", "model": {"type": "BPE", "vocab": {"a": 0}', "truncated"),
        ('{"name": "left-pad", "version": "1.3.0"}', 'no "model"'),
        ('{"version": "2.0", "model": {"type": "BPE", "vocab": {}, "merges": []}}', "version '2.0'"),
        ('{"version": "1.0", "model": {"type": "Transformer"}}', "model"),
        ("[1, 2, 3]", "array"),
    ],
)
def test_broken_or_foreign_tokenizer_json(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_text(content, encoding="utf-8")
    for args in (("encode", "-t", str(path), "--text", "x"), ("inspect", str(path))):
        result = run_cli(*args)
        assert_one_line_error(result, str(path), fragment)


def test_missing_tokenizer_json(tmp_path: Path) -> None:
    result = run_cli("inspect", str(tmp_path / "none.json"))
    assert_one_line_error(result, "none.json", "no such file")


# -- convert -----------------------------------------------------------------------------------


def test_convert_sentencepiece_model_to_tokenizer_json(corpora: Path, tmp_path: Path) -> None:
    model = corpora / "sp_test_model.model"
    out = tmp_path / "t5-style.json"
    result = run_cli("convert", str(model), str(out), "--to", "hf")
    assert result.returncode == 0, result.stderr
    assert "Wrote" in result.stderr
    ours = engine.Tokenizer.from_file(str(out))
    reference = sentencepiece.SentencePieceProcessor(model_file=str(model))
    back = tmp_path / "back.model"
    result = run_cli("convert", str(out), str(back), "--to", "sentencepiece")
    assert result.returncode == 0, result.stderr
    again = sentencepiece.SentencePieceProcessor(model_file=str(back))
    for line in ["Hello world.", "  spaces   inside  ", "naïve café, 42 apples"]:
        assert ours.encode(line, add_special_tokens=False).ids == reference.encode(line) == again.encode(line)


def test_convert_to_every_format_and_back(trained: dict[str, Path], tmp_path: Path) -> None:
    cases = [("bert", "bert-vocab", "vocab.txt"), ("gpt2", "gpt2", "gpt2-out"), ("gpt2", "tiktoken", "gpt2.tiktoken"),
             ("sentencepiece-bpe", "hf", "spm-bpe.json"), ("bpe", "hf", "copy.json")]
    text = "Before we proceed any further, hear me speak."
    for preset, kind, name in cases:
        out = tmp_path / name
        result = run_cli("convert", str(trained[preset]), str(out), "--to", kind)
        assert result.returncode == 0, (kind, result.stderr)
        inspected = run_cli("inspect", str(out if kind != "gpt2" else out / "vocab.json"))
        assert inspected.returncode == 0, inspected.stderr
        assert "format:" in inspected.stdout
        encoded = run_cli("encode", "-t", str(out if kind != "gpt2" else out), "--json", "--text", text)
        original = engine.Tokenizer.from_file(str(trained[preset])).encode(text)
        assert json.loads(encoded.stdout)["tokens"] == original.tokens, kind


def test_convert_says_what_a_format_loses(corpora: Path, tmp_path: Path) -> None:
    result = run_cli("convert", str(corpora / "bert_uncased_tokenizer.json"), str(tmp_path / "vocab.txt"), "--to", "bert-vocab")
    assert result.returncode == 0, result.stderr
    assert "note: the normalizer (BertNormalizer" in result.stderr


def test_convert_that_cannot_hold_the_tokenizer_writes_nothing(corpora: Path, tmp_path: Path) -> None:
    out = tmp_path / "bert.model"
    result = run_cli("convert", str(corpora / "bert_uncased_tokenizer.json"), str(out), "--to", "sentencepiece")
    assert_one_line_error(result, "bert.model", "WordPiece")
    assert not out.exists() and not (tmp_path / "bert.vocab").exists()


def test_convert_never_replaces_a_file_unasked(trained: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "vocab.txt"
    out.write_text("mine\n", encoding="utf-8")
    result = run_cli("convert", str(trained["bert"]), str(out), "--to", "bert-vocab")
    assert_one_line_error(result, "vocab.txt", "already exists", "--force")
    assert out.read_text(encoding="utf-8") == "mine\n"
    assert run_cli("convert", str(trained["bert"]), str(out), "--to", "bert-vocab", "--force").returncode == 0
    vocab = engine.Tokenizer.from_file(str(trained["bert"])).get_vocab()
    assert out.read_text(encoding="utf-8").splitlines() == sorted(vocab, key=vocab.__getitem__)
    # (on a copy: the module's trained files are read by the other tests)
    copy = tmp_path / "bpe.json"
    copy.write_bytes(trained["bpe"].read_bytes())
    same = run_cli("convert", str(copy), str(copy), "--to", "hf", "--force")
    assert_one_line_error(same, "is the input")
    assert copy.read_bytes() == trained["bpe"].read_bytes()


def test_convert_a_damaged_model_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.model"
    bad.write_bytes(b"\x0a\xff\xff\xff\x0f truncated")
    result = run_cli("convert", str(bad), str(tmp_path / "out.json"), "--to", "hf")
    assert_one_line_error(result, "broken.model")
    assert not (tmp_path / "out.json").exists()


def test_unigram_preset_refuses_a_minimum_frequency(tmp_path: Path) -> None:
    result = run_cli("train", "--preset", "sentencepiece-unigram", "--vocab-size", "500", "--min-frequency", "2",
                     "-o", str(tmp_path / "u.json"), str(SAMPLE))
    assert_one_line_error(result, "sentencepiece-unigram", "minimum frequency")


# -- encode --out: whole corpora to ids, and input that is not UTF-8 ----------------------------


def run_cli_bytes(*args: str, stdin: bytes) -> subprocess.CompletedProcess[str]:
    """`run_cli` with raw bytes on standard input (which need not be UTF-8)."""
    result = subprocess.run([sys.executable, "-P", "-m", "workbench.cli", *args], input=stdin, capture_output=True, check=False)
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode("utf-8"), result.stderr.decode("utf-8"))


@pytest.fixture(scope="module")
def small_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small byte-level BPE with <|endoftext|>, saved as tokenizer.json (no padding, no truncation)."""
    from support import train_byte_level

    lines = SAMPLE.read_text(encoding="utf-8").splitlines()[:300]
    tokenizer = train_byte_level(lines, 400)
    tokenizer.add_special_tokens(["<|endoftext|>"])
    path = tmp_path_factory.mktemp("ids-cli") / "tokenizer.json"
    tokenizer.save(str(path))
    return path


@pytest.fixture
def corpus_folder(tmp_path: Path) -> Path:
    """A folder with two small inputs: 300 lines of the sample, and made-up lines with blanks and non-ASCII."""
    folder = tmp_path / "in"
    folder.mkdir()
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[:300]
    (folder / "a.txt").write_text("".join(lines), encoding="utf-8")
    (folder / "b.txt").write_bytes("\nnaïve café ☃\r\n\n日本語\nno newline at the end".encode())
    return folder


def corpus_documents(*paths: Path) -> list[str]:
    docs: list[str] = []
    for path in paths:
        lines = path.read_bytes().decode("utf-8").split("\n")
        tail = lines.pop()
        docs += [line.rstrip("\r") for line in lines] + ([tail] if tail else [])
    return docs


def test_encode_out_writes_bin_with_sidecar_and_a_summary(small_gpt2: Path, corpus_folder: Path, tmp_path: Path) -> None:
    inputs = [corpus_folder / "a.txt", corpus_folder / "b.txt"]
    out = tmp_path / "ids.bin"
    result = run_cli("encode", "-t", str(small_gpt2), *map(str, inputs), "--out", str(out), "--separator", "<|endoftext|>")
    assert result.returncode == 0, result.stderr
    tokenizer = engine.Tokenizer.from_file(str(small_gpt2))
    separator = tokenizer.token_to_id("<|endoftext|>")
    docs = corpus_documents(*inputs)
    assert len(docs) == 305
    want = [i for doc in docs for i in tokenizer.encode(doc).ids + [separator]]
    data = out.read_bytes()
    assert [int.from_bytes(data[k:k + 2], "little") for k in range(0, len(data), 2)] == want
    sidecar = json.loads((tmp_path / "ids.bin.json").read_text(encoding="utf-8"))
    assert sidecar == {"dtype": "uint16", "byte_order": "little", "tokens": len(want), "documents": 305,
                       "separator_id": separator, "tokenizer": str(small_gpt2), "files": [str(p) for p in inputs]}
    summary = result.stderr.strip().splitlines()[-1]
    assert summary.startswith(f"Encoded 305 documents into {len(want):,} tokens (")
    assert "tokens/s" in summary and "uint16" in summary and f"separator <|endoftext|>={separator}" in summary
    assert "Encode documents" in result.stderr  # the progress line (stderr is not a terminal here)

    plain = run_cli("encode", "-t", str(small_gpt2), str(inputs[1]), "--out", str(tmp_path / "plain.bin"), "-q")
    assert plain.returncode == 0, plain.stderr
    assert plain.stderr.count("\n") == 1 and "documents not separated" in plain.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ids.bin", "ids.bin.json", "in", "plain.bin", "plain.bin.json"]


def test_encode_out_npy_and_jsonl_with_one_or_two_processes(small_gpt2: Path, corpus_folder: Path, tmp_path: Path) -> None:
    inputs = [str(corpus_folder / "a.txt"), str(corpus_folder / "b.txt")]
    tokenizer = engine.Tokenizer.from_file(str(small_gpt2))
    docs = corpus_documents(corpus_folder / "a.txt", corpus_folder / "b.txt")
    for kind in (".npy", ".jsonl"):
        for processes in ("1", "2"):
            out = tmp_path / f"ids{processes}{kind}"
            result = run_cli("encode", "-t", str(small_gpt2), *inputs, "--out", str(out), "--processes", processes)
            assert result.returncode == 0, result.stderr
            assert f"{processes} process" in result.stderr
        assert (tmp_path / f"ids1{kind}").read_bytes() == (tmp_path / f"ids2{kind}").read_bytes()
    assert numpy.load(tmp_path / "ids2.npy").tolist() == [i for doc in docs for i in tokenizer.encode(doc).ids]
    rows = [json.loads(line) for line in (tmp_path / "ids2.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows == [tokenizer.encode(doc).ids for doc in docs]


def test_encode_out_never_replaces_a_file_unasked(small_gpt2: Path, corpus_folder: Path, tmp_path: Path) -> None:
    source = str(corpus_folder / "b.txt")
    out = tmp_path / "ids.npy"
    out.write_bytes(b"mine")
    result = run_cli("encode", "-t", str(small_gpt2), source, "--out", str(out))
    assert_one_line_error(result, "ids.npy", "already exists", "--force")
    assert out.read_bytes() == b"mine"
    sidecar_only = tmp_path / "ids.bin.json"
    sidecar_only.write_text("{}", encoding="utf-8")
    result = run_cli("encode", "-t", str(small_gpt2), source, "--out", str(tmp_path / "ids.bin"))
    assert_one_line_error(result, "ids.bin.json", "already exists")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ids.bin.json", "ids.npy", "in"]
    assert run_cli("encode", "-t", str(small_gpt2), source, "--out", str(out), "--force").returncode == 0
    assert out.read_bytes().startswith(b"\x93NUMPY")


def test_encode_out_bad_input_leaves_nothing_behind(small_gpt2: Path, corpus_folder: Path, tmp_path: Path) -> None:
    good = str(corpus_folder / "a.txt")
    bad = corpus_folder / "latin1.txt"
    bad.write_bytes(b"fine\n" + "caf\xe9\n".encode("latin-1"))
    out = str(tmp_path / "ids.bin")
    cases = [
        ((good, str(corpus_folder / "missing.txt"), "--out", out), ("missing.txt", "file not found")),
        ((str(corpus_folder), "--out", out), ("in", "directory")),
        ((good, str(bad), "--out", out, "--processes", "2"), ("latin1.txt", "line 2", "0xe9", "at byte 8")),
        ((good, "--out", out, "--separator", "<eos>"), ("--separator", "'<eos>'")),
        ((good, "--out", str(tmp_path / "ids.txt")), ("ids.txt", ".bin, .npy, .jsonl")),
        (("--out", out), ("--out needs the FILE",)),
    ]
    for args, fragments in cases:
        result = run_cli("encode", "-t", str(small_gpt2), *args)
        assert_one_line_error(result, *fragments)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["in"], args


def test_encode_help_documents_the_output_formats() -> None:
    result = run_cli("encode", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    for fragment in ("little-endian", "uint16", "uint32", "OUT.json", "--separator", "--errors", "numpy.load", ".jsonl"):
        assert fragment in text, fragment


def test_encode_stdin_that_is_not_utf8(small_gpt2: Path) -> None:
    result = run_cli_bytes("encode", "-t", str(small_gpt2), stdin=b"caf\xe9 ok\n")
    assert_one_line_error(
        result,
        "standard input line 1: byte 0xe9 at offset 3 is not UTF-8 "
        "(use --errors replace to substitute U+FFFD, or --errors skip to drop the line)",
    )
    tokenizer = engine.Tokenizer.from_file(str(small_gpt2))
    mixed = b"good\ncaf\xe9 ok\nalso good\r\n"
    replaced = run_cli_bytes("encode", "-t", str(small_gpt2), "--errors", "replace", "--json", stdin=mixed)
    assert replaced.returncode == 0, replaced.stderr
    rows = [json.loads(line)["ids"] for line in replaced.stdout.splitlines()]
    assert rows == [tokenizer.encode(text).ids for text in ("good", "caf\ufffd ok", "also good")]
    skipped = run_cli_bytes("encode", "-t", str(small_gpt2), "--errors", "skip", "--json", stdin=mixed)
    assert skipped.returncode == 0, skipped.stderr
    assert [json.loads(line)["ids"] for line in skipped.stdout.splitlines()] == [rows[0], rows[2]]
    assert "skipped 1 line" in skipped.stderr


def test_encode_files_without_out_prints_each_line(small_gpt2: Path, corpus_folder: Path) -> None:
    tokenizer = engine.Tokenizer.from_file(str(small_gpt2))
    source = corpus_folder / "b.txt"
    result = run_cli("encode", "-t", str(small_gpt2), "--json", str(source))
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line)["ids"] for line in result.stdout.splitlines()]
    assert rows == [tokenizer.encode(doc).ids for doc in corpus_documents(source)]
    bad = corpus_folder / "bad.txt"
    bad.write_bytes(b"ok\nx\xffy\n")
    result = run_cli("encode", "-t", str(small_gpt2), str(bad))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{bad} line 2: byte 0xff at offset 1 is not UTF-8" in result.stderr
    assert_one_line_error(run_cli("encode", "-t", str(small_gpt2), str(corpus_folder / "nope.txt")), "nope.txt", "not found")


def test_inspect_summarises_many_added_tokens_and_shows_blank_ones(tmp_path: Path) -> None:
    tokenizer = engine.Tokenizer(engine.models.WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    tokenizer.add_tokens([" ", "\t", "  ", "\n"] + [f"tok{i}" for i in range(1996)])
    tokenizer.add_special_tokens([f"<special{i}>" for i in range(30)])
    path = tmp_path / "many.json"
    tokenizer.save(str(path))
    result = run_cli("inspect", str(path))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) < 1000
    added = next(line for line in lines if line.startswith("added tokens:"))
    assert added.startswith('added tokens:    " "=2, "\\t"=3, "  "=4, "\\n"=5, tok0=6, ')
    assert added.count("=") == 20
    assert added.endswith("tok15=21, ... and 1,980 more (ids 22..2001)")
    special = next(line for line in lines if line.startswith("special tokens:"))
    assert special.count("=") == 20
    assert special.endswith("<special19>=2021, ... and 10 more (ids 2022..2031)")
