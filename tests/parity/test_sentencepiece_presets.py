"""The SentencePiece presets normalize and split text as `sentencepiece` does with its defaults
(nmt_nfkc, add_dummy_prefix, remove_extra_whitespaces): a tokenizer trained with one and written
as `.model` encodes every line identically in `sentencepiece` and in the workbench, lines that
start with a space or an ideographic space (U+3000, how a Japanese paragraph starts) included,
and no piece holds a line break. (Where two segmentations tie exactly, sentencepiece's float32
sums may pick the other order of the same pieces: at most two such lines are let through.)"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
import sentencepiece as spm

from engine.formats import sentencepiece as spf
from engine.formats.charsmap import nfkc_charsmap
from support import corpus_path
from workbench.core.presets import NMT_NFKC_FILE, build, nmt_nfkc_charsmap
from workbench.core.shipped import resource

# Lines the corpora may lack: spaces at either end, runs of them, tabs, ideographic spaces,
# controls, NFKC's compatibility forms, emoji, and characters no piece will cover.
EDGES = [
    " leading space", "trailing space ", "  many   spaces  ", "\ttab\tinside", "\u3000\u3000two ideographic spaces",
    "\u3000答える", "a\u3000b", "ﬁne ｆｕｌｌｗｉｄｔｈ ① ㍻", "e\u0301 and \u00e9", "emoji 👩\u200d👩\u200d👧 🇯🇵",
    "control\x01\x07chars", "unknown: \u0b95\u0bcd \u10a0 \U0001f600", "", " ", "\u3000",
]  # fmt: skip


def test_the_shipped_rules_are_what_the_engine_builds() -> None:
    """resources/sentencepiece/ ships the nmt_nfkc charsmap built (two seconds is too long for
    the window's thread when a preset is chosen): it must be what the builder makes today."""
    assert gzip.decompress(resource("sentencepiece", NMT_NFKC_FILE).read_bytes()) == nfkc_charsmap(True)
    assert nmt_nfkc_charsmap() == nfkc_charsmap(True)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A CRLF file of Japanese prose (paragraphs start with U+3000) and English lines, and its lines."""
    japanese = corpus_path("wagahaiwa_nekodearu.txt").read_text(encoding="utf-8").splitlines()[:700]
    english = corpus_path("shakespeare.txt").read_text(encoding="utf-8").splitlines()[:700]
    lines = japanese + english + EDGES
    path = tmp_path_factory.mktemp("corpus") / "mixed.txt"
    path.write_bytes("\r\n".join(lines).encode("utf-8"))
    return path, lines


@pytest.mark.parametrize("key", ["sentencepiece-unigram", "sentencepiece-bpe"])
def test_a_preset_model_encodes_every_line_as_sentencepiece_does(key: str, corpus: tuple[Path, list[str]], tmp_path: Path) -> None:
    path, lines = corpus
    assert sum(line.startswith("\u3000") for line in lines) > 20
    tokenizer, trainer = build(key, vocab_size=3000)
    tokenizer.train([str(path)], trainer)
    pieces = tokenizer.get_vocab()
    assert not [piece for piece in pieces if "\n" in piece or "\r" in piece or "\u3000" in piece]
    out = tmp_path / f"{key}.model"
    warnings = spf.write(tokenizer, str(out))
    assert not [w for w in warnings if "space" in w or "fuse" in w], warnings
    written = spf.read(str(out))
    assert written.normalizer_spec.precompiled_charsmap == nfkc_charsmap(True)
    processor = spm.SentencePieceProcessor(model_file=str(out))
    bad: list[str] = []
    tied: list[str] = []
    for line in lines:
        ours, theirs = tokenizer.encode(line, add_special_tokens=False).ids, processor.encode(line)
        if ours != theirs:
            # (the same pieces in another order: an exact score tie, which sentencepiece's float32
            # sums may break the other way, as in test_sentencepiece_parity's identity test; the
            # stand-in for wagahaiwa_nekodearu.txt gives a line of 55 "-" two ways)
            (tied if sorted(ours) == sorted(theirs) else bad).append(line)
    assert not bad, f"{len(bad)} of {len(lines)} lines differ; first {bad[0]!r}: sentencepiece {processor.encode_as_pieces(bad[0])}, ours {tokenizer.encode(bad[0], add_special_tokens=False).tokens}"
    assert len(tied) <= 2, f"{len(tied)} lines differ by the order of the same pieces; first {tied[0]!r}"
    # the workbench reads its own .model back into the same tokenizer
    again = spf.load(str(out))
    assert all(again.encode(line, add_special_tokens=False).ids == tokenizer.encode(line, add_special_tokens=False).ids for line in lines)
