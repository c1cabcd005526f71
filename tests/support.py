"""Paths and small tokenizers shared by the tests (importable as `support`: pytest puts tests/ on sys.path).

The shared corpora (`../shared/corpora`) are real text and real tokenizer files. A fresh clone
has no `../shared`: there every test still runs, on stand-ins made once per test process from
the sample the project ships (`resources/sample`) with the reference libraries themselves
(`sentencepiece` trains the `.model`, HF `tokenizers` the BERT WordPiece files). Only a file no
stand-in can replace (the 40 MB dictionary), or a test that needs more text than the sample
holds, skips, with its reason. CI sets WORKBENCH_REQUIRE_SHARED_CORPORA=1: there a missing
shared corpus fails the test instead.
"""

from __future__ import annotations

import atexit
import functools
import gzip
import importlib.util
import json
import os
import shutil
import tempfile
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from engine import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from engine.progress import ProgressSink, TrainProgress

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"
SAMPLE_FOLDER = ROOT / "resources" / "sample"
REQUIRE_SHARED = "WORKBENCH_REQUIRE_SHARED_CORPORA"

# Shared files no stand-in replaces, and why: their tests skip without ../shared.
NO_STAND_IN = {
    "gcide.txt": "a 40 MB dictionary: its tests need text at benchmark scale",
}
# Words the tests encode with the BERT stand-in and expect as whole tokens, as in the real vocab.
BERT_WORDS = ("hello", "world", "cafe")


def shared_corpora_required() -> bool:
    """Whether a missing shared corpus is a failure (CI) rather than a reason to use a stand-in."""
    return os.environ.get(REQUIRE_SHARED, "") not in ("", "0")


def corpus_path(name: str) -> Path:
    """The path of a shared corpus file; without ../shared, its stand-in (or a skip saying why
    none can stand in); with WORKBENCH_REQUIRE_SHARED_CORPORA set, a missing file fails."""
    path = CORPORA / name
    if path.is_file():
        return path
    if shared_corpora_required():
        pytest.fail(f"shared corpus {name} not found at {CORPORA} ({REQUIRE_SHARED} is set)")
    if name in NO_STAND_IN:
        pytest.skip(f"shared corpus {name} not found at {CORPORA}, and nothing stands in for it: {NO_STAND_IN[name]}")
    return stand_in(name)


def shared_corpus_path(name: str, needs: str) -> Path:
    """The path of a shared corpus file, for a test no stand-in can serve: without ../shared it
    skips, saying what the test `needs` (a failure with WORKBENCH_REQUIRE_SHARED_CORPORA set)."""
    path = CORPORA / name
    if path.is_file():
        return path
    if shared_corpora_required():
        pytest.fail(f"shared corpus {name} not found at {CORPORA} ({REQUIRE_SHARED} is set)")
    pytest.skip(f"shared corpus {name} not found at {CORPORA}; the stand-in cannot serve: this test needs {needs}")


def corpora_folder() -> Path:
    """The shared corpora folder; without it, the folder of stand-ins (every one made)."""
    if CORPORA.is_dir():
        return CORPORA
    if shared_corpora_required():
        pytest.fail(f"shared corpora folder not found at {CORPORA} ({REQUIRE_SHARED} is set)")
    for name in STAND_INS:
        stand_in(name)
    return _stand_in_folder()


def is_shared(path: Path) -> bool:
    """Whether `path` is a real shared corpus file (not a stand-in)."""
    return path.parent == CORPORA


def bert_tokens() -> list[str]:
    """The tokens of bert_uncased_vocab.txt (real or stand-in), by id."""
    return corpus_path("bert_uncased_vocab.txt").read_text(encoding="utf-8").splitlines()


def bert_id(token: str) -> int:
    """The id of `token` in bert_uncased_vocab.txt."""
    return bert_tokens().index(token)


# -- stand-ins ------------------------------------------------------------------------------------


@functools.cache
def _stand_in_folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="workbench-stand-in-corpora-"))
    atexit.register(_remove_stand_ins, folder, os.getpid())
    return folder


def _remove_stand_ins(folder: Path, owner: int) -> None:
    if os.getpid() == owner:  # (not from a forked child that happens to run atexit handlers)
        shutil.rmtree(folder, ignore_errors=True)


@functools.cache
def stand_in(name: str) -> Path:
    """The stand-in for shared corpus `name`, made once per process (never written to after)."""
    path = _stand_in_folder() / name
    STAND_INS[name](path)
    path.chmod(0o444)
    return path


def _copy_sample(name: str) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        shutil.copyfile(SAMPLE_FOLDER / name, path)

    return make


def _make_prose(path: Path) -> None:
    """For botchan.txt (a Project Gutenberg English novel: a byte order mark, then ASCII prose
    wrapped at ~70 columns, no blank lines, chapter headings, a letter quoted in indented lines):
    the sample's speeches re-flowed the same way, every 25th one of three lines or more quoted as
    indented verse."""
    speeches = (SAMPLE_FOLDER / "shakespeare.txt").read_text(encoding="utf-8").strip().split("\n\n")
    lines = ["Stand-in for Botchan: the shipped Shakespeare sample, re-flowed as prose."]
    for number, speech in enumerate(speeches):
        if number % 100 == 0:
            lines.append(f"CHAPTER {number // 100 + 1}.")
        speaker, *said = speech.split("\n")
        if number % 25 == 0 and len(said) >= 3:
            lines.append(f"{speaker.rstrip(':')} wrote:")
            lines.extend("  " + line for line in said)
        else:
            lines.extend(textwrap.wrap(f"{speaker.rstrip(':')} said: " + " ".join(said), width=72))
    path.write_text("\ufeff" + "\n".join(lines) + "\n", encoding="utf-8")


def _make_sentencepiece_model(path: Path) -> None:
    """For sp_test_model.model (sentencepiece's own test model: a Unigram of 1,000 pieces trained
    on botchan.txt with the "nfkc" normalization rule): the same training, on botchan's stand-in."""
    import sentencepiece

    with tempfile.TemporaryDirectory() as scratch:
        prefix = str(Path(scratch) / "m")
        sentencepiece.SentencePieceTrainer.train(
            input=str(stand_in("botchan.txt")), model_prefix=prefix, vocab_size=1000, model_type="unigram",
            normalization_rule_name="nfkc", minloglevel=2,
        )
        shutil.copyfile(prefix + ".model", path)


@functools.cache
def _bert_document() -> str:
    """A BERT uncased tokenizer.json laid out as the real one (all-MiniLM-L6-v2's): [PAD]=0,
    [unused0..98], [UNK]=100, [CLS]=101, [SEP]=102, [MASK]=103, then a WordPiece vocabulary HF
    `tokenizers` trains on both samples, plus BERT_WORDS; padded and truncated to 128."""
    import tokenizers
    from tokenizers import decoders as hd, models as hm, normalizers as hn, pre_tokenizers as hp, processors as hpp, trainers as ht

    def bert_pipeline(model: hm.Model) -> tokenizers.Tokenizer:
        tokenizer = tokenizers.Tokenizer(model)
        tokenizer.normalizer = hn.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True)
        tokenizer.pre_tokenizer = hp.BertPreTokenizer()
        return tokenizer

    learner = bert_pipeline(hm.WordPiece(unk_token="[UNK]"))
    learner.train(
        [str(SAMPLE_FOLDER / "shakespeare.txt"), str(SAMPLE_FOLDER / "wagahaiwa_nekodearu.txt")],
        ht.WordPieceTrainer(vocab_size=8000, min_frequency=2, show_progress=False),
    )
    specials = ["[PAD]", *(f"[unused{i}]" for i in range(99)), "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    learned = sorted(learner.get_vocab().items(), key=lambda item: item[1])
    tokens = specials + [token for token, _ in learned if token not in specials]
    tokens += [word for word in BERT_WORDS if word not in tokens]
    tokenizer = bert_pipeline(hm.WordPiece({token: i for i, token in enumerate(tokens)}, unk_token="[UNK]", max_input_chars_per_word=100))
    tokenizer.post_processor = hpp.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 101), ("[SEP]", 102)]
    )
    tokenizer.decoder = hd.WordPiece(prefix="##", cleanup=True)
    tokenizer.add_special_tokens([tokenizers.AddedToken(t, special=True, normalized=False) for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")])
    tokenizer.enable_truncation(128)
    tokenizer.enable_padding(length=128, pad_id=0, pad_token="[PAD]")
    document: str = tokenizer.to_str()
    assert [json.loads(document)["model"]["vocab"][t] for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")] == [0, 100, 101, 102, 103]
    return document


def _make_bert_tokenizer(path: Path) -> None:
    path.write_text(_bert_document(), encoding="utf-8")


def _make_bert_vocab(path: Path) -> None:
    """vocab.txt: the stand-in tokenizer.json's tokens, one a line, by id (as BERT ships it)."""
    vocab: dict[str, int] = json.loads(_bert_document())["model"]["vocab"]
    path.write_text("".join(token + "\n" for token, _ in sorted(vocab.items(), key=lambda item: item[1])), encoding="utf-8")


STAND_INS: dict[str, Callable[[Path], None]] = {
    "shakespeare.txt": _copy_sample("shakespeare.txt"),
    "wagahaiwa_nekodearu.txt": _copy_sample("wagahaiwa_nekodearu.txt"),
    "botchan.txt": _make_prose,
    "sp_test_model.model": _make_sentencepiece_model,
    "bert_uncased_tokenizer.json": _make_bert_tokenizer,
    "bert_uncased_vocab.txt": _make_bert_vocab,
}


class Recorder(ProgressSink):
    """Keeps every progress event; asks to stop once it has `stop_after` of them (-1: never)."""

    def __init__(self, stop_after: int = -1) -> None:
        self.events: list[TrainProgress] = []
        self.stop_after = stop_after

    def report(self, event: TrainProgress) -> bool:
        self.events.append(event)
        return self.stop_after < 0 or len(self.events) < self.stop_after


def train_byte_level(lines: Iterable[str], vocab_size: int, trim_offsets: bool = False) -> Tokenizer:
    """A GPT-2-style byte-level BPE trained on `lines` (no prefix space)."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=trim_offsets)
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    tokenizer.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=alphabet, show_progress=False))
    return tokenizer


def edit_saved_index(path: Path, edit: Callable[[dict[str, object]], None]) -> None:
    """Rewrite the project file at `path` with its index edited by `edit` (a file as an older
    version, or another hand, would have written it)."""
    import zipfile

    from engine.project.fields import INDEX_MEMBER

    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    index = json.loads(members[INDEX_MEMBER])
    edit(index)
    members[INDEX_MEMBER] = json.dumps(index).encode("utf-8")
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def without_round_points(index: dict[str, object]) -> None:
    """`edit_saved_index`'s edit for a project saved before Unigram rounds were measured."""
    tokenizers = index["tokenizers"]
    assert isinstance(tokenizers, list)
    del tokenizers[0]["result"]["round_points"]


def openai_rank_file(name: str, folder: Path) -> Path:
    """OpenAI's real rank file `name` ("cl100k_base" or "o200k_base"), as the `bpe-openai` wheel
    (a test dependency) ships it gzipped, written to `folder` as `<name>.tiktoken`."""
    spec = importlib.util.find_spec("bpe_openai")
    assert spec is not None and spec.submodule_search_locations, "bpe-openai (a test dependency) is not installed"
    packed = Path(list(spec.submodule_search_locations)[0]) / "data" / f"{name}.tiktoken.gz"
    path = folder / f"{name}.tiktoken"
    path.write_bytes(gzip.decompress(packed.read_bytes()))
    return path


def sentencepiece_style() -> Tokenizer:
    """A Unigram of 400 pieces trained on shakespeare.txt's first 3,000 lines with HF's
    SentencePiece-style pipeline (NFKC, Metaspace), which a `.model` cannot hold exactly: the
    export notes a text that starts with a space."""
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.normalizer = normalizers.NFKC()
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    text = corpus_path("shakespeare.txt").read_text(encoding="utf-8").splitlines()[:3000]
    tokenizer.train_from_iterator(text, trainers.UnigramTrainer(vocab_size=400, special_tokens=["<unk>"], unk_token="<unk>", show_progress=False))
    return tokenizer


def train_sentencepiece_preset(path: Path, model_type: str, vocab_size: int, **options: object) -> Tokenizer:
    """The `sentencepiece-<model_type>` preset trained on the file at `path`, its trainer's
    options (sentencepiece's names: character_coverage=0.98...) set as given."""
    from engine.trainers.sentencepiece import SentencePieceTrainer
    from workbench.core.presets import build

    tokenizer, trainer = build(f"sentencepiece-{model_type}", vocab_size=vocab_size)
    assert isinstance(trainer, SentencePieceTrainer)
    for name, value in options.items():
        setattr(trainer, name, value)
    trainer.show_progress = False
    tokenizer.train([str(path)], trainer)
    return tokenizer


def naive_wordpiece(
    words: dict[str, int], vocab_size: int, specials: list[str], score: Callable[[int, int, int, int, bool], float], min_frequency: int = 0
) -> list[str]:
    """WordPiece training the slow way, the oracle of the incremental runs: every pair rescored
    from scratch at every step by `score(count(ab), count(a), count(b), all symbols, a == b)`;
    the highest score, then the more frequent pair, then the smaller ids (the specials, the
    alphabet in code-point order, the ## symbols, then tokens as made) go first. The tokens made."""
    vocab: list[str] = list(specials)
    chars = sorted({ch for word in words for ch in word})
    vocab += [ch for ch in chars if ch not in vocab]
    decorated = sorted({"##" + word[i] for word in words for i in range(1, len(word))})
    vocab += [symbol for symbol in decorated if symbol not in vocab]
    ids = {token: i for i, token in enumerate(vocab)}
    split = {word: [word[0]] + ["##" + ch for ch in word[1:]] for word in words}
    made: list[str] = []
    while len(vocab) < vocab_size:
        symbols: dict[str, int] = {}
        pairs: dict[tuple[str, str], int] = {}
        for word, count in words.items():
            pieces = split[word]
            for piece in pieces:
                symbols[piece] = symbols.get(piece, 0) + count
            for a, b in zip(pieces, pieces[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + count
        total = sum(symbols.values())
        ranked = [
            (-score(count, symbols[a], symbols[b], total, a == b), -count, ids[a], ids[b], a, b)
            for (a, b), count in pairs.items()
            if count >= max(min_frequency, 1)
        ]
        if not ranked:
            break
        _, _, _, _, a, b = min(ranked)
        new = a + b[2:] if b.startswith("##") else a + b
        if new not in ids:
            ids[new] = len(vocab)
            vocab.append(new)
        made.append(new)
        for word, pieces in split.items():
            merged: list[str] = []
            i = 0
            while i < len(pieces):
                if i + 1 < len(pieces) and pieces[i] == a and pieces[i + 1] == b:
                    merged.append(new)
                    i += 2
                else:
                    merged.append(pieces[i])
                    i += 1
            split[word] = merged
    return made
