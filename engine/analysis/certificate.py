"""An export's certificate: the file just written, read by the library that owns its format
(`certificate_readers`), encodes a suite of texts with the same ids as the tokenizer that was
exported; or here are the first texts where it does not, and why. Saved beside the file as JSON.

    certificate = certify(tokenizer, "sentencepiece", "out/t.model", EDGE_TEXTS + shipped)
    certificate.verdict()   # "identical on 551 texts (61,210 tokens): sentencepiece 0.2.3 ..."
    save(certificate, certificate_path("sentencepiece", "out/t.model"))

The comparison is ids against ids, text by text; the other library is the judge, never our own
reader of the file (that one is the fallback when the library is not installed, and the
certificate says so). Which special tokens are compared is each format's users' habit
(`certificate_readers.WITH_SPECIAL_TOKENS`: tokenizer.json and vocab.txt with the
post-processor's, the other formats without); padding and truncation are off on both sides, so
every text is compared whole. The suite's shipped texts come from the caller; the hand-written
edge cases are `EDGE_TEXTS`. Does not write the tokenizer file itself (`convert.save` does).
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Collection
from typing import Final

import engine
from engine.analysis.certificate_readers import OWNERS, WITH_SPECIAL_TOKENS, EngineSide, Reading, Side, library_side, library_version
from engine.formats import convert
from engine.formats.files import write_text_atomically
from engine.schema import JsonValue
from engine.tokenizer import Tokenizer

SUFFIX: Final = ".certificate.json"
# How many mismatching texts a certificate describes (it counts them all).
SHOWN: Final = 5
# Tokens shown before and after the first differing one.
BEFORE: Final = 3
AFTER: Final = 5
# The causes a mismatch is classified into, and how a verdict names them.
CAUSES: Final[dict[str, str]] = {
    "special tokens": "special token handling",
    "unknown token": "unknown token",
    "ids": "the same token with another id",
    "split": "different split of the same text",
    "whitespace": "whitespace at the start or end",
    "normalization": "normalization differs",
    "failure": "a side failed",
    "undetermined": "cause not determined",
}

# The hand-written texts of the suite: what breaks tokenizers at their edges.
EDGE_TEXTS: Final[list[tuple[str, str]]] = [
    ("empty text", ""),
    ("a space", " "),
    ("whitespace runs", "a  b   c    d     e"),
    ("only spaces", "      "),
    ("leading spaces", "  leading spaces"),
    ("trailing spaces", "trailing spaces  "),
    ("both ends", " both ends "),
    ("tabs", "col1\tcol2\t\tcol3\n\tindented"),
    ("CRLF line ends", "line one\r\nline two\r\n\r\nline four"),
    ("blank lines", "\n\nafter two blank lines\n\n"),
    ("no-break and ideographic spaces", "100\u00a0km and \u3000 wide\u2003em"),
    ("emoji with ZWJ", "family \U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466 coder \U0001f469\U0001f3fd\u200d\U0001f4bb"),
    ("flags", "flags \U0001f1ef\U0001f1f5\U0001f1eb\U0001f1f7 \U0001f3f3\ufe0f\u200d\U0001f308 \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"),
    ("combining marks", "cafe\u0301 nai\u0308ve Z\u0324\u0354\u0367a\u0308\u0316 \u1e69\u0307"),
    ("precomposed and decomposed", "caf\u00e9 / cafe\u0301, \u212b / A\u030a, \ufb01 ligature"),
    ("controls", "bell\x07 escape\x1b[0m delete\x7f null\x00 end"),
    ("zero-width and format characters", "zero\u200bwidth\u200cnon\u200djoiner \ufeffbom \u2066isolate\u2069"),
    ("CJK", "\u6771\u4eac\u306f\u65e5\u672c\u306e\u9996\u90fd\u3067\u3059\u3002\u6211\u7231\u5317\u4eac\u3002\ud55c\uad6d\uc5b4 \ud14d\uc2a4\ud2b8"),
    ("right-to-left", "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645 \u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd abc \u05d0\u05d1\u05d2 123"),
    ("unknown characters", "private \ue000\uf8ff \U000f0000 hieroglyphs \U00013000\U00013001 replacement \ufffd noncharacter \ufdd0"),
    ("mixed scripts", "Hello \u043c\u0438\u0440 \u4e16\u754c \U0001f30d \u03ba\u03cc\u03c3\u03bc\u03b5 \u0926\u0941\u0928\u093f\u092f\u093e"),
    ("digits and punctuation", "3.14159 1,000,000 $5.00 (x+y)^2=z... don't DON'T we'll \"quoted\" \u00abguillemets\u00bb"),
    ("a long word", "Pneumonoultramicroscopicsilicovolcanoconiosis " + "a" * 300),
    ("code", "def f(x):\n    return {'k': [1, 2]}  # comment\n"),
]


class Mismatch:
    """The first difference of one text: where (`position`, the index of the first differing
    token), the ids and tokens of each side from `window_start`, and the `cause` (a key of
    `CAUSES`) with a sentence that `explains` it."""

    text: str
    excerpt: str
    position: int
    window_start: int
    ours_ids: list[int]
    ours_tokens: list[str]
    theirs_ids: list[int]
    theirs_tokens: list[str]
    cause: str
    explains: str

    def __init__(
        self,
        text: str,
        excerpt: str,
        position: int,
        window_start: int,
        ours: tuple[list[int], list[str]],
        theirs: tuple[list[int], list[str]],
        cause: str,
        explains: str,
    ) -> None:
        self.text = text
        self.excerpt = excerpt
        self.position = position
        self.window_start = window_start
        self.ours_ids, self.ours_tokens = ours
        self.theirs_ids, self.theirs_tokens = theirs
        self.cause = cause
        self.explains = explains

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "text": self.text,
            "excerpt": self.excerpt,
            "position": self.position,
            "window_start": self.window_start,
            "ours": {"ids": list(self.ours_ids), "tokens": list(self.ours_tokens)},
            "theirs": {"ids": list(self.theirs_ids), "tokens": list(self.theirs_tokens)},
            "cause": self.cause,
            "explains": self.explains,
        }

    @staticmethod
    def from_dict(data: dict[str, JsonValue]) -> Mismatch:
        ours, theirs = data["ours"], data["theirs"]
        assert isinstance(ours, dict) and isinstance(theirs, dict)
        return Mismatch(
            str(data["text"]),
            str(data["excerpt"]),
            _int(data["position"]),
            _int(data["window_start"]),
            (_ints(ours["ids"]), _strs(ours["tokens"])),
            (_ints(theirs["ids"]), _strs(theirs["tokens"])),
            str(data["cause"]),
            str(data["explains"]),
        )

    def lines(self) -> list[str]:
        """`"text 'emoji with ZWJ' at token 4 ("family 👨‍👩…"): different split of the same span ..."`
        and the two windows of tokens."""
        start = f"[{self.window_start}:] " if self.window_start else ""
        return [
            f"{self.text} ({_quoted(self.excerpt)}), from token {self.position}: {self.explains}",
            f"    ours   {start}{_window(self.ours_ids, self.ours_tokens)}",
            f"    theirs {start}{_window(self.theirs_ids, self.theirs_tokens)}",
        ]


class Certificate:
    """What `certify` found: the format and files (with SHA-256), who read them (`reader`,
    `loader`), how many texts and tokens were compared, whether every text got the same ids,
    how many did not, and the first `SHOWN` mismatches. `failure` is set (and nothing compared)
    when the library could not read the file at all."""

    format: str
    files: list[tuple[str, str]]
    reader: str
    loader: str
    own_reader: bool
    special_tokens: bool
    texts: int
    tokens: int
    differing: int
    # how many differing texts each cause (of `CAUSES`) explains
    causes: dict[str, int]
    mismatches: list[Mismatch]
    failure: str
    made: str
    version: str

    def __init__(self, format: str, files: list[tuple[str, str]], reader: str, loader: str, own_reader: bool, special_tokens: bool) -> None:
        self.format = format
        self.files = files
        self.reader = reader
        self.loader = loader
        self.own_reader = own_reader
        self.special_tokens = special_tokens
        self.texts = 0
        self.tokens = 0
        self.differing = 0
        self.causes = {}
        self.mismatches = []
        self.failure = ""
        self.made = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
        self.version = engine.__version__

    @property
    def identical(self) -> bool:
        return not self.failure and self.differing == 0 and self.texts > 0

    def verdict(self) -> str:
        """One line: "identical on 556 texts (61,210 tokens) read by sentencepiece 0.2.3", or
        "differs on 12 of 556 texts (...)", or "not checked: ... could not read ..."."""
        if self.failure:
            return f"not checked: {self.reader} could not read {self.files[0][0]}: {self.failure}"
        compared = f"{self.texts:,} texts ({self.tokens:,} tokens)"
        by = f"read by {self.reader}" if not self.own_reader else f"read back by {self.reader}"
        if self.identical:
            return f"identical on {compared} {by}"
        causes = ", ".join(f"{CAUSES.get(cause, cause)}: {count:,}" for cause, count in sorted(self.causes.items(), key=_by_count))
        return f"differs on {self.differing:,} of {compared} {by} ({causes})"

    def lines(self, shown: int = SHOWN) -> list[str]:
        """The verdict, how the file was read, and the first `shown` mismatches."""
        lines = [f"certificate: {self.verdict()}", f"  loaded with {self.loader}" if self.loader else ""]
        lines = [line for line in lines if line]
        if self.mismatches and shown:
            more = self.differing - min(shown, len(self.mismatches))
            lines.append(f"  first mismatches{f' ({more:,} more texts differ)' if more > 0 else ''}:")
            for number, mismatch in enumerate(self.mismatches[:shown], 1):
                first, *rest = mismatch.lines()
                lines.append(f"  {number}. {first}")
                lines.extend("  " + line for line in rest)
        return lines

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "format": self.format,
            "files": [{"path": path, "sha256": digest} for path, digest in self.files],
            "reader": self.reader,
            "loader": self.loader,
            "own_reader": self.own_reader,
            "special_tokens": self.special_tokens,
            "texts": self.texts,
            "tokens": self.tokens,
            "identical": self.identical,
            "differing": self.differing,
            "causes": dict(self.causes),
            "verdict": self.verdict(),
            "failure": self.failure,
            "mismatches": [mismatch.to_dict() for mismatch in self.mismatches],
            "made": self.made,
            "workbench": self.version,
        }

    @staticmethod
    def from_dict(data: dict[str, JsonValue]) -> Certificate:
        files: list[tuple[str, str]] = []
        raw_files = data["files"]
        assert isinstance(raw_files, list)
        for item in raw_files:
            assert isinstance(item, dict)
            files.append((str(item["path"]), str(item["sha256"])))
        certificate = Certificate(
            str(data["format"]), files, str(data["reader"]), str(data["loader"]), bool(data["own_reader"]), bool(data["special_tokens"])
        )
        certificate.texts = _int(data["texts"])
        certificate.tokens = _int(data["tokens"])
        certificate.differing = _int(data["differing"])
        causes = data["causes"]
        assert isinstance(causes, dict)
        certificate.causes = {str(cause): _int(count) for cause, count in causes.items()}
        certificate.failure = str(data["failure"])
        certificate.made = str(data["made"])
        certificate.version = str(data["workbench"])
        mismatches = data["mismatches"]
        assert isinstance(mismatches, list)
        for item in mismatches:
            assert isinstance(item, dict)
            certificate.mismatches.append(Mismatch.from_dict(item))
        return certificate


def certificate_path(kind: str, path: str) -> str:
    """Where the certificate of an export is saved: beside its first file (`t.model` ->
    `t.model.certificate.json`; GPT-2's: beside vocab.json)."""
    return convert.written_paths(kind, path)[0] + SUFFIX


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        block = stream.read(1 << 20)
        while block:
            digest.update(block)
            block = stream.read(1 << 20)
    return digest.hexdigest()


def certify(
    tokenizer: Tokenizer, kind: str, path: str, texts: list[tuple[str, str]], libraries: Collection[str] | None = None
) -> Certificate:
    """The certificate of `tokenizer` written as `kind` at `path` (as `convert.save` was given
    them): every `(name, text)` encoded by `tokenizer` and by the library that owns the format
    (of `libraries`, None: any) reading the written file, ids compared."""
    files = [(written, sha256_of(written)) for written in convert.written_paths(kind, path)]
    with_specials = WITH_SPECIAL_TOKENS[kind]
    ours = EngineSide(tokenizer, with_specials)
    try:
        theirs = library_side(kind, path, tokenizer, libraries)
    except Exception as error:  # noqa: BLE001 - whatever the library raises is the finding
        certificate = Certificate(kind, files, library_version(OWNERS[kind]), "", False, with_specials)
        certificate.failure = f"{type(error).__name__}: {error}"
        return certificate
    certificate = Certificate(kind, files, theirs.reader, theirs.loader, isinstance(theirs, EngineSide), with_specials)
    names = [name for name, _ in texts]
    bodies = [body for _, body in texts]
    readings = ours.read_all(bodies)
    for name, body, mine in zip(names, bodies, readings):
        other = theirs.read(body)
        certificate.texts += 1
        certificate.tokens += len(mine.ids)
        if mine.ids == other.ids and not mine.error and not other.error:
            continue
        certificate.differing += 1
        mismatch = describe(name, body, mine, other, ours, theirs)
        certificate.causes[mismatch.cause] = certificate.causes.get(mismatch.cause, 0) + 1
        if len(certificate.mismatches) < SHOWN:
            certificate.mismatches.append(mismatch)
    return certificate


def save(certificate: Certificate, path: str) -> None:
    """Write `certificate` at `path` as JSON, atomically."""
    write_text_atomically(path, json.dumps(certificate.to_dict(), ensure_ascii=False, indent=2) + "\n")


def load(path: str) -> Certificate:
    with open(path, encoding="utf-8") as stream:
        data = json.load(stream)
    assert isinstance(data, dict)
    return Certificate.from_dict(data)


# -- one mismatch -----------------------------------------------------------------------------


def describe(name: str, text: str, ours: Reading, theirs: Reading, our_side: Side, their_side: Side) -> Mismatch:
    """The first difference between two readings of `text`, with its cause."""
    position = first_difference(ours.ids, theirs.ids)
    start = max(0, position - BEFORE)
    end = position + AFTER
    window_ours = (ours.ids[start:end], ours.tokens[start:end])
    window_theirs = (theirs.ids[start:end], theirs.tokens[start:end])
    cause, explains = classify(text, ours, theirs, position, our_side, their_side)
    return Mismatch(name, excerpt(text, ours, position), position, start, window_ours, window_theirs, cause, explains)


def first_difference(a: list[int], b: list[int]) -> int:
    """The index of the first id that differs, or the shorter length: `[1, 2, 3], [1, 5]` -> 1."""
    for index in range(min(len(a), len(b))):
        if a[index] != b[index]:
            return index
    return min(len(a), len(b))


def excerpt(text: str, ours: Reading, position: int, width: int = 48) -> str:
    """Up to `width` chars of `text` around where our token `position` starts (the start when
    that is not known), with "…" where it is cut."""
    at = ours.starts[position] if position < len(ours.starts) and ours.starts[position] >= 0 else 0
    if position >= len(ours.starts) and ours.starts:
        at = len(text)
    begin = max(0, min(at - width // 3, len(text) - width))
    piece = text[begin : begin + width]
    return ("…" if begin > 0 else "") + piece + ("…" if begin + width < len(text) else "")


def classify(text: str, ours: Reading, theirs: Reading, position: int, our_side: Side, their_side: Side) -> tuple[str, str]:
    """(a key of `CAUSES`, a sentence saying it) for the first difference at token `position`."""
    if ours.error or theirs.error:
        who = "the workbench" if ours.error else their_side.reader
        return "failure", f"{who} failed on this text: {ours.error or theirs.error}"
    specials = our_side.special_ids | their_side.special_ids
    unknowns = our_side.unk_ids | their_side.unk_ids
    mine = _token_at(ours, position)
    other = _token_at(theirs, position)
    if (mine is not None and mine[0] in specials) or (other is not None and other[0] in specials):
        return "special tokens", f"special token handling: ours has {_describe(mine)}, theirs {_describe(other)}"
    ours_rest, theirs_rest = ours.ids[position:], theirs.ids[position:]
    for unk in unknowns:
        if (unk in ours_rest[:AFTER]) != (unk in theirs_rest[:AFTER]):
            side = "ours" if unk in ours_rest[:AFTER] else "theirs"
            return "unknown token", f"unknown token: {side} has the unknown token (id {unk}) where the other has known tokens"
    if mine is not None and other is not None and mine[1] == other[1]:
        return "ids", f"the same token with another id: {_quoted(mine[1])} is {mine[0]} in ours, {other[0]} in theirs"
    span = resynchronize(_spans(ours.tokens[position:]), _spans(theirs.tokens[position:]))
    if span is not None:
        return "split", f"different split of the same text {_quoted(span)}"
    where = _edge(text, ours, position, specials)
    if where:
        return "whitespace", f"whitespace at the {where} of the text: ours has {_describe(mine)}, theirs {_describe(other)}"
    if ours.normalized is not None and theirs.normalized is not None:
        a, b = _comparable(ours.normalized), _comparable(theirs.normalized)
        if a != b:
            index = first_char_difference(a, b)
            return "normalization", (
                f"normalization differs: ours normalizes to {_quoted(_around(a, index))}, theirs to {_quoted(_around(b, index))}"
            )
    return "undetermined", f"cause not determined: ours has {_describe(mine)}, theirs {_describe(other)}"


def _edge(text: str, ours: Reading, position: int, specials: set[int]) -> str:
    """"start" when the first difference is within the whitespace a text starts with (before
    our token `position` starts past it), "end" when within the whitespace it ends with, else ""."""
    leading = len(text) - len(text.lstrip())
    kept = len(text.rstrip())
    # where our differing token starts (past the end when ours has no token there)
    at = ours.starts[position] if position < len(ours.starts) and ours.starts[position] >= 0 else len(text)
    if leading and (at <= leading or all(id in specials for id in ours.ids[:position])):
        return "start"
    at_end = position >= len(ours.ids) - 1 or all(id in specials for id in ours.ids[position + 1 :])
    if kept < len(text) and (at_end or at >= kept):
        return "end"
    return ""


def resynchronize(ours: list[str], theirs: list[str]) -> str | None:
    """The text two token lists cover differently before covering the same text again, when
    they cover the same text up to there: `["ab", "c", "d"], ["a", "bc", "d"]` -> "abc";
    None when they cover different text."""
    a = b = ""
    i = j = 0
    while i < len(ours) or j < len(theirs):
        if (len(a) <= len(b) and i < len(ours)) or j >= len(theirs):
            a += ours[i]
            i += 1
        else:
            b += theirs[j]
            j += 1
        shorter = min(len(a), len(b))
        if a[:shorter] != b[:shorter]:
            return None
        if a == b and a:
            return a
    return None


def first_char_difference(a: str, b: str) -> int:
    for index in range(min(len(a), len(b))):
        if a[index] != b[index]:
            return index
    return min(len(a), len(b))


def _spans(tokens: list[str]) -> list[str]:
    """The text each token covers, in one spelling for both sides: "##" and "▁" dropped (a
    WordPiece continuation, SentencePiece's space)."""
    return [token[2:] if token.startswith("##") and len(token) > 2 else token.replace("\u2581", " ") for token in tokens]


def _comparable(normalized: str) -> str:
    """A normalized text with SentencePiece's `▁` as a space and the ends stripped (the dummy
    prefix is where a side puts it)."""
    return normalized.replace("\u2581", " ").strip()


def _around(text: str, index: int) -> str:
    return text[max(0, index - 10) : index + 10]


def _token_at(reading: Reading, position: int) -> tuple[int, str] | None:
    if position < len(reading.ids):
        token = reading.tokens[position] if position < len(reading.tokens) else "?"
        return reading.ids[position], token
    return None


def _describe(token: tuple[int, str] | None) -> str:
    return "nothing more" if token is None else f"{_quoted(token[1])} ({token[0]})"


def _quoted(text: str) -> str:
    """A text shown in a message: quoted, its controls and invisible chars escaped."""
    shown = repr(text)[1:-1].replace('"', '\\"') if not text.isprintable() else text.replace('"', '\\"')
    return f'"{shown}"'


def _window(ids: list[int], tokens: list[str]) -> str:
    """`5 "Ġthe" 9 "Ġcat"`, or "(nothing)"."""
    if not ids:
        return "(nothing)"
    parts: list[str] = []
    for index in range(len(ids)):
        token = tokens[index] if index < len(tokens) else "?"
        parts.append(f"{ids[index]} {_quoted(token)}")
    return " ".join(parts)


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def _int(value: JsonValue) -> int:
    assert isinstance(value, int)
    return value


def _ints(value: JsonValue) -> list[int]:
    assert isinstance(value, list)
    return [_int(item) for item in value]


def _strs(value: JsonValue) -> list[str]:
    assert isinstance(value, list)
    return [str(item) for item in value]
