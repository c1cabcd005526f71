"""engine.corpus.long_lines: a line encoded in pieces cut at whitespace gives exactly the tokens, ids and
offsets of the line encoded whole, special tokens once around it; pipelines where a cut could
change the tokens are never cut."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from support import train_byte_level

from engine import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from engine.added_vocabulary import AddedToken
from engine.corpus.long_lines import DocumentSink, LineEncoder, LineFrame, long_line_cutter
from engine.corpus.streams import LineCutter
from engine.encoding import Encoding

WORDS = ["naïve", "words,", "  spaced", "x2", "end.\t", "'s", "中文", "Hello", "[MASK]", "\u00a0nbsp", "e\u0301"]
TEXT = " ".join(WORDS[i % len(WORDS)] + str(i % 13) for i in range(400))


class Documents(DocumentSink):
    """Every document as (ids, tokens, offsets in the line)."""

    def __init__(self) -> None:
        self.done: list[tuple[list[int], list[str], list[tuple[int, int]]]] = []
        self.ids: list[int] = []
        self.tokens: list[str] = []
        self.offsets: list[tuple[int, int]] = []

    def add(self, ids: list[int], encoding: Encoding | None, shift: int) -> None:
        self.ids.extend(ids)
        if encoding is not None:
            assert encoding.ids == ids
            self.tokens.extend(encoding.tokens)
            self.offsets.extend((start + shift, end + shift) for start, end in encoding.offsets)

    def end(self) -> None:
        self.done.append((self.ids, self.tokens, self.offsets))
        self.ids, self.tokens, self.offsets = [], [], []


def bert() -> Tokenizer:
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
    tokenizer.train_from_iterator([TEXT], trainers.WordPieceTrainer(vocab_size=120, special_tokens=specials, show_progress=False))
    tokenizer.post_processor = processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    return tokenizer


def whitespace_bpe() -> Tokenizer:
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator([TEXT], trainers.BpeTrainer(vocab_size=90, special_tokens=["[UNK]"], show_progress=False))
    return tokenizer


def roberta(add_prefix_space: bool = True) -> Tokenizer:
    tokenizer = train_byte_level([TEXT], 300)
    tokenizer.add_special_tokens(["<s>", "</s>"])
    sep = ("</s>", tokenizer.token_to_id("</s>") or 0)
    cls = ("<s>", tokenizer.token_to_id("<s>") or 0)
    tokenizer.post_processor = processors.RobertaProcessing(sep, cls, trim_offsets=True, add_prefix_space=add_prefix_space)
    return tokenizer


def gpt2() -> Tokenizer:
    # GPT-2's own tokenizer.json: ByteLevel offsets not trimmed
    tokenizer = train_byte_level([TEXT], 300)
    tokenizer.post_processor = processors.ByteLevel(add_prefix_space=True, trim_offsets=False)
    return tokenizer


PIPELINES: dict[str, Callable[[], Tokenizer]] = {
    "bert": bert,
    "whitespace-bpe": whitespace_bpe,
    "gpt2": gpt2,
    "roberta": roberta,
    "roberta-base": lambda: roberta(add_prefix_space=False),
}


def cut_blocks(data: bytes, cutter: LineCutter, seed: int) -> list[bytes]:
    """`data` as LineBlocks hands it out, with random small reads: whole lines, else cut where the cutter says."""
    rng = random.Random(seed)
    blocks: list[bytes] = []
    pending = b""
    at = 0
    while at < len(data):
        read = data[at : at + rng.randint(8, 90)]
        at += len(read)
        block = pending + read
        cut = block.rfind(b"\n") + 1 or cutter.cut(block)
        if cut == 0:
            pending = block
            continue
        blocks.append(block[:cut])
        pending = block[cut:]
    if pending:
        blocks.append(pending)
    return blocks


@pytest.mark.parametrize("name", sorted(PIPELINES))
@pytest.mark.parametrize("ending", ["\n", "\r\n", ""])
def test_lines_in_pieces_equal_lines_encoded_whole(name: str, ending: str) -> None:
    tokenizer = PIPELINES[name]()
    cutter = long_line_cutter(tokenizer, with_offsets=False)
    assert cutter is not None
    # roberta's offsets are trimmed as HF does with add_prefix_space: the first token's alone
    with_offsets = long_line_cutter(tokenizer) is not None
    assert with_offsets == (name != "roberta")
    lines = [TEXT, "", "short one", " leading and trailing  ", TEXT[: len(TEXT) // 3] + " \r", "\t\t", TEXT[::-1]]
    text = "\n".join(lines[:-1]) + "\n" + lines[-1] + ending
    for seed in range(3):
        blocks = cut_blocks(text.encode(), cutter, seed)
        assert len(blocks) > 40
        documents = Documents()
        encoder = LineEncoder(tokenizer, documents)
        for block in blocks:
            encoder.feed(block.decode(), block.endswith(b"\n"))
        encoder.finish()
        expected = [tokenizer.encode(line.rstrip("\r")) for line in lines]
        assert len(documents.done) == len(lines) == encoder.lines
        for encoding, (ids, tokens, offsets) in zip(expected, documents.done):
            assert (ids, tokens) == (encoding.ids, encoding.tokens)
            if with_offsets:
                assert offsets == encoding.offsets
        only_ids = Documents()
        encoder = LineEncoder(tokenizer, only_ids, ids_only=True)
        for block in blocks:
            encoder.feed(block.decode(), block.endswith(b"\n"))
        encoder.finish()
        assert [ids for ids, _, _ in only_ids.done] == [encoding.ids for encoding in expected]


def test_a_line_in_many_pieces_is_framed_once() -> None:
    tokenizer = bert()
    documents = Documents()
    encoder = LineEncoder(tokenizer, documents)
    for piece in ("hello ", "words ", "naïve ", "end"):
        encoder.feed(piece, False)
    encoder.feed("\nnext\n", True)
    encoder.finish()
    first, second = documents.done
    assert first[1] == tokenizer.encode("hello words naïve end").tokens
    assert first[1][0] == "[CLS]" and first[1][-1] == "[SEP]" and first[1].count("[CLS]") == 1
    assert second[1] == tokenizer.encode("next").tokens


def test_frames() -> None:
    assert (LineFrame(bert()).before.tokens, LineFrame(bert()).after.tokens) == (["[CLS]"], ["[SEP]"])
    frame = LineFrame(roberta())
    assert (frame.before.tokens, frame.after.tokens, frame.before.offsets) == (["<s>"], ["</s>"], [(0, 0)])
    frame = LineFrame(whitespace_bpe())
    assert (frame.before.ids, frame.after.ids) == ([], [])


def metaspace() -> Tokenizer:
    tokenizer = whitespace_bpe()
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    return tokenizer


def truncated() -> Tokenizer:
    tokenizer = whitespace_bpe()
    tokenizer.enable_truncation(16)
    return tokenizer


def padded() -> Tokenizer:
    tokenizer = whitespace_bpe()
    tokenizer.enable_padding()
    return tokenizer


def stripping_added_token() -> Tokenizer:
    tokenizer = whitespace_bpe()
    tokenizer.add_special_tokens([AddedToken("<mask>", lstrip=True)])
    return tokenizer


def spaced_added_token() -> Tokenizer:
    tokenizer = whitespace_bpe()
    tokenizer.add_tokens(["new york"])
    return tokenizer


def replacing_normalizer() -> Tokenizer:
    tokenizer = whitespace_bpe()
    tokenizer.normalizer = normalizers.Replace(" ", "")
    return tokenizer


@pytest.mark.parametrize(
    "make", [metaspace, truncated, padded, stripping_added_token, spaced_added_token, replacing_normalizer]
)
def test_lines_are_never_cut_where_a_cut_could_change_the_tokens(make: object) -> None:
    assert callable(make)
    assert long_line_cutter(make()) is None


def test_a_sequence_that_trims_first_offsets_is_cut_only_for_ids_and_tokens() -> None:
    tokenizer = gpt2()
    tokenizer.post_processor = processors.Sequence([processors.ByteLevel(add_prefix_space=True, trim_offsets=True)])
    assert long_line_cutter(tokenizer) is None
    assert long_line_cutter(tokenizer, with_offsets=False) is not None
