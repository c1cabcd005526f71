"""OpenAI's own rank files, read without a sidecar, encode exactly as tiktoken's encodings.

The real cl100k_base and o200k_base files come with the `bpe-openai` wheel (a test dependency);
their SHA-256 proves they are OpenAI's. The reference `tiktoken.Encoding` takes its pattern and
special tokens from tiktoken's own `tiktoken_ext.openai_public` (its download replaced by the
local file), never from the engine's table. r50k_base and p50k_base have no file here: their
table entries are tested on a small rank file given their hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
import tiktoken_ext.openai_public as openai_public
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.formats import convert, openai_encodings
from engine.formats import tiktoken as tiktoken_format
from support import openai_rank_file
from workbench.core.audit_texts import shipped_code, shipped_languages

OPENAI_FILES = ("cl100k_base", "o200k_base")
TRICKY = [
    "",
    " ",
    "   ",
    "\t\n",
    "  leading spaces",
    "trailing spaces   ",
    "a\tb\t\tc",
    "line one\r\nline two\r\n\r\n",
    "\n\n\n  indented\n\tand tabbed  \n",
    "x   \n  y",
    "👨‍👩‍👧‍👦 family, 🏳️‍🌈 flag, 🇫🇷🇩🇪🇯🇵 flags",
    "e\u0301 a\u0308\u0304 n\u0303o combining; café naïve",
    "\x00\x01\x07\x1b[31m\x7f\u0085\u200b\ufeff controls",
    "日本語のテキストと漢字、한국어 텍스트, 中文文本。",
    "שלום עולם, مرحبا بالعالم, \u200fRTL\u200e",
    "1 12 123 1234 12345 1234567890 3.14159 1,000,000 ١٢٣٤٥ ①②",
    "it's we'll they've I'm she'd don't IT'S WE'LL THEY'VE 'S 'll",
    "HelloWorld FOOBar's camelCase snake_case kebab-case",
    "path/to/file.py:12 https://example.com/a?b=c&d=e#f",
    "def f(x):\n    return {'a': [1, 2]}  # comment\n",
]


def _reference_arguments(name: str, path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """tiktoken's own arguments for encoding `name`, its ranks read from `path` (the download
    of `load_tiktoken_bpe` replaced, in tiktoken's module only, by the local file, which
    tiktoken checks against the hash it expects; its cache kept beside the file)."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(path.parent / "tiktoken-cache"))
    def local(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        return tiktoken.load.load_tiktoken_bpe(str(path), expected_hash)

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", local)
    constructor: Callable[[], dict[str, object]] = openai_public.ENCODING_CONSTRUCTORS[name]
    return constructor()


class OpenAIPair:
    """Our tokenizer loaded from an OpenAI rank file (no sidecar) and tiktoken's encoding."""

    def __init__(self, name: str, ours: engine.Tokenizer, notes: list[str], theirs: tiktoken.Encoding) -> None:
        self.name = name
        self.ours = ours
        self.notes = notes
        self.theirs = theirs

    def ours_with_specials(self, text: str) -> list[int]:
        return self.ours.encode(text, add_special_tokens=False).ids

    def ours_ordinary(self, text: str) -> list[int]:
        """tiktoken's `encode_ordinary`: the special tokens' texts split as plain text, which
        is HF's (and the engine's) `encode_special_tokens = True`."""
        self.ours.encode_special_tokens = True
        try:
            return self.ours.encode(text, add_special_tokens=False).ids
        finally:
            self.ours.encode_special_tokens = False


@pytest.fixture(scope="module", params=OPENAI_FILES)
def openai_pair(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> OpenAIPair:
    name = str(request.param)
    path = openai_rank_file(name, tmp_path_factory.mktemp(name))
    with pytest.MonkeyPatch.context() as monkeypatch:
        arguments = _reference_arguments(name, path, monkeypatch)
    theirs = tiktoken.Encoding(
        name=name,
        pat_str=str(arguments["pat_str"]),
        mergeable_ranks=tiktoken_format.read(str(path)),
        special_tokens=dict(arguments["special_tokens"]),  # type: ignore[call-overload]
    )
    loaded = convert.load_noted(str(path))
    return OpenAIPair(name, loaded.tokenizer, loaded.notes, theirs)


@pytest.mark.parametrize("name", OPENAI_FILES)
def test_the_wheels_files_are_openais_by_tiktokens_hash(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = openai_rank_file(name, tmp_path)
    raw = path.read_bytes()
    # tiktoken checks the hash it expects as it reads the file: a wrong file raises here
    arguments = _reference_arguments(name, path, monkeypatch)
    assert arguments["name"] == name and arguments["mergeable_ranks"] == tiktoken_format.read(str(path))
    assert openai_encodings.KNOWN_RANK_FILES[hashlib.sha256(raw).hexdigest()].name == name


@pytest.mark.parametrize("encoding", openai_encodings.ENCODINGS, ids=lambda encoding: encoding.name)
def test_the_table_is_tiktokens_definition(encoding: openai_encodings.OpenAIEncoding, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each entry's hash, pattern, special tokens and size are what tiktoken's constructor of
    the same name uses (its download replaced by a recorder of the hash it expects)."""
    expected: list[str | None] = []

    def record(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        expected.append(expected_hash)
        return {}

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", record)
    theirs = openai_public.ENCODING_CONSTRUCTORS[encoding.name]()
    assert expected == [encoding.sha256]
    assert (theirs["name"], theirs["pat_str"], theirs["special_tokens"]) == (
        encoding.name,
        encoding.pat_str,
        encoding.special_tokens,
    )
    assert theirs.get("explicit_n_vocab") == encoding.explicit_n_vocab


def test_an_openai_file_is_recognized_and_says_so(openai_pair: OpenAIPair) -> None:
    count = len(openai_pair.theirs._special_tokens)
    assert openai_pair.notes == [
        f"recognized as OpenAI's {openai_pair.name} by its SHA-256: tiktoken's split pattern and its {count} special tokens"
    ]
    specials = {t.content: i for i, t in openai_pair.ours.get_added_tokens_decoder().items() if t.special}
    assert specials == openai_pair.theirs._special_tokens
    # (tiktoken's n_vocab is the largest id + 1: cl100k has no tokens at 100261-100275)
    vocab = openai_pair.ours.get_vocab()
    assert len(vocab) == len(openai_pair.theirs._mergeable_ranks) + count
    assert max(vocab.values()) + 1 == openai_pair.theirs.n_vocab


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_texts_encode_as_tiktoken(openai_pair: OpenAIPair, text: str) -> None:
    assert openai_pair.ours_with_specials(text) == openai_pair.theirs.encode_ordinary(text)


def test_declarations_in_every_script_and_the_code_samples_encode_as_tiktoken(openai_pair: OpenAIPair) -> None:
    # the first declaration of each script (Latin, Cyrillic, Arabic, Devanagari, Han, ...), and every code sample
    chosen: dict[str, str] = {}
    for text in shipped_languages():
        chosen.setdefault(text.script, "\n".join(text.articles[n] for n in sorted(text.articles)))
    assert len(chosen) >= 20
    samples = [(script, article) for script, article in chosen.items()]
    samples += [(text.name, text.articles[0]) for text in shipped_code()]
    for label, sample in samples:
        assert openai_pair.ours_with_specials(sample) == openai_pair.theirs.encode_ordinary(sample), label


@pytest.mark.parametrize(
    "text",
    [
        "<|endoftext|>",
        "before<|endoftext|>after",
        " <|endofprompt|> \n<|endoftext|><|endoftext|>x",
        "<|fim_prefix|>def f(<|fim_suffix|>):<|fim_middle|>",
        "<|endoftext|  <|not_special|> <|endoftext|>",
    ],
)
def test_special_tokens_in_the_text_encode_as_tiktoken(openai_pair: OpenAIPair, text: str) -> None:
    # tiktoken's `encode(text, allowed_special="all")`: our default (specials as added special tokens)
    assert openai_pair.ours_with_specials(text) == openai_pair.theirs.encode(text, allowed_special="all")
    # tiktoken's `encode_ordinary`: our `encode_special_tokens = True`
    assert openai_pair.ours_ordinary(text) == openai_pair.theirs.encode_ordinary(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(
        st.one_of(
            st.sampled_from(list(" \t\r\n'sltvdmSLTVDM0123456789.,/-_aZé漢한ا\u0301\u200d🇫👍")),
            # subtle: assigned code points only (as this Python's Unicode 14 sees them): an
            # unassigned one (U+3D000 before ":A") is classed otherwise by tiktoken's Rust regex
            # tables than by ours, and o200k then splits ":A" apart where we keep it whole
            st.characters(codec="utf-8", exclude_categories=("Cn", "Cs")),
        ),
        max_size=60,
    )
)
def test_generated_texts_encode_as_tiktoken(openai_pair: OpenAIPair, text: str) -> None:
    assert openai_pair.ours_with_specials(text) == openai_pair.theirs.encode_ordinary(text)


# -- r50k_base and p50k_base: no file here, the table's entries on a small file ---------------


def _small_rank_file(path: Path) -> dict[bytes, int]:
    """Every byte, then a few merges: `th`, `the`, ` the`, `'s`, `  `."""
    ranks = {bytes([b]): b for b in range(256)}
    for token in (b"th", b"the", b" t", b" the", b"'s", b"  "):
        ranks[token] = len(ranks)
    path.write_text(tiktoken_format.dump_ranks(ranks), encoding="utf-8")
    return ranks


def _with_hash(entry: openai_encodings.OpenAIEncoding, sha256: str) -> openai_encodings.OpenAIEncoding:
    """`entry` as if its rank file were the one of hash `sha256`."""
    return openai_encodings.OpenAIEncoding(entry.name, sha256, entry.pat_str, entry.special_tokens, entry.explicit_n_vocab)


@pytest.mark.parametrize("name", ["r50k_base", "p50k_base"])
def test_the_r50k_and_p50k_entries_load_as_tiktoken_would(name: str, tmp_path: Path) -> None:
    path = tmp_path / "small.tiktoken"
    ranks = _small_rank_file(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    [entry] = [encoding for encoding in openai_encodings.ENCODINGS if encoding.name == name]
    known = openai_encodings.by_sha256([_with_hash(entry, digest)])
    ours, notes = tiktoken_format.load_noted(str(path), known=known)
    assert notes == [f"recognized as OpenAI's {name} by its SHA-256: tiktoken's split pattern and its 1 special token"]
    theirs = tiktoken.Encoding(
        name=name, pat_str=openai_public.r50k_pat_str, mergeable_ranks=ranks, special_tokens={openai_public.ENDOFTEXT: 50256}
    )
    for text in TRICKY + ["the thesis's theme<|endoftext|> the   end  "]:
        assert ours.encode(text, add_special_tokens=False).ids == theirs.encode(text, allowed_special="all"), text
    # without the table, the same file is an unknown one: GPT-2's pattern, no specials, said
    plain, notes = tiktoken_format.load_noted(str(path), known={})
    assert notes == [
        "not one of OpenAI's rank files, and no sidecar (small.tiktoken.json) beside it:"
        " split with GPT-2's pattern, no special tokens; write a sidecar to choose another"
    ]
    assert plain.get_added_tokens_decoder() == {}


def test_a_sidecar_or_arguments_win_over_the_hash(tmp_path: Path) -> None:
    path = tmp_path / "small.tiktoken"
    _small_rank_file(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    [entry] = [encoding for encoding in openai_encodings.ENCODINGS if encoding.name == "r50k_base"]
    known = openai_encodings.by_sha256([_with_hash(entry, digest)])
    # both given: nothing assumed, nothing said
    given_both, notes = tiktoken_format.load_noted(str(path), tiktoken_format.GPT2_PATTERN, {}, known=known)
    assert notes == [] and given_both.get_added_tokens_decoder() == {}
    # one given: the other taken from the table, and said
    _, notes = tiktoken_format.load_noted(str(path), tiktoken_format.GPT2_PATTERN, known=known)
    assert notes == ["recognized as OpenAI's r50k_base by its SHA-256: its 1 special token"]
    # a sidecar beside the file: its pattern and specials, nothing said
    Path(tiktoken_format.sidecar_path(str(path))).write_text(
        '{"pat_str": "[\\\\s\\\\S]+", "special_tokens": {"<|x|>": 300}}', encoding="utf-8"
    )
    with_sidecar, notes = tiktoken_format.load_noted(str(path), known=known)
    assert notes == []
    assert [t.content for t in with_sidecar.get_added_tokens_decoder().values()] == ["<|x|>"]
