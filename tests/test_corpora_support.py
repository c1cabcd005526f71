"""Where the tests find the shared corpora: ../shared/corpora when it is there; in a fresh clone,
stand-ins made from the shipped sample (or a skip saying why none can stand in); and with
WORKBENCH_REQUIRE_SHARED_CORPORA set (CI), a failure naming the missing path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import tokenizers

import support


@pytest.fixture
def no_shared(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A CORPORA folder that does not exist, and the CI variable unset."""
    missing = tmp_path / "shared" / "corpora"
    monkeypatch.setattr(support, "CORPORA", missing)
    monkeypatch.delenv(support.REQUIRE_SHARED, raising=False)
    return missing


def test_without_shared_corpora_every_file_but_the_dictionary_has_a_stand_in(no_shared: Path) -> None:
    for name in ("shakespeare.txt", "botchan.txt", "wagahaiwa_nekodearu.txt", "sp_test_model.model", "bert_uncased_tokenizer.json", "bert_uncased_vocab.txt"):
        path = support.corpus_path(name)
        assert path.name == name and path.is_file() and not support.is_shared(path)
    assert support.corpus_path("shakespeare.txt").read_bytes() == (support.SAMPLE_FOLDER / "shakespeare.txt").read_bytes()
    folder = support.corpora_folder()
    assert sorted(p.name for p in folder.iterdir()) == sorted(support.STAND_INS)
    with pytest.raises(pytest.skip.Exception, match="gcide.txt not found at .*benchmark scale"):
        support.corpus_path("gcide.txt")
    with pytest.raises(pytest.skip.Exception, match="this test needs more text"):
        support.shared_corpus_path("shakespeare.txt", "more text")


def test_the_ci_variable_turns_a_missing_shared_corpus_into_a_failure(no_shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(support.REQUIRE_SHARED, "1")
    calls: list[Callable[[], Path]] = [
        lambda: support.corpus_path("shakespeare.txt"),
        lambda: support.corpus_path("gcide.txt"),
        lambda: support.shared_corpus_path("shakespeare.txt", "more text"),
    ]
    for call in calls:
        with pytest.raises(pytest.fail.Exception, match=f"not found at {no_shared}"):
            call()
    with pytest.raises(pytest.fail.Exception, match=f"shared corpora folder not found at {no_shared}"):
        support.corpora_folder()
    monkeypatch.setenv(support.REQUIRE_SHARED, "0")  # set to 0: not required
    assert not support.is_shared(support.corpus_path("botchan.txt"))


def test_the_bert_stand_in_is_laid_out_as_the_real_file(no_shared: Path) -> None:
    hf = tokenizers.Tokenizer.from_file(str(support.corpus_path("bert_uncased_tokenizer.json")))
    tokens = support.bert_tokens()
    assert [hf.token_to_id(t) for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")] == [0, 100, 101, 102, 103]
    assert hf.get_vocab() == {token: i for i, token in enumerate(tokens)}
    assert hf.encode("Hello, world").tokens[:5] == ["[CLS]", "hello", ",", "world", "[SEP]"]
    assert len(hf.encode("x").ids) == 128  # padded to 128, as the real file
