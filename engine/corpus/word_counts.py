"""Word-count tables: SentencePiece's `input_format=tsv`, one `word<TAB>count` per line, UTF-8.

`write_counts` writes `count_words`'s result (biggest counts first), atomically and streamed;
`read_counts` reads one back, strictly, naming the line of any problem. No counting here.
"""

from __future__ import annotations

import os
import secrets
import stat
from typing import Final

from engine.corpus.sources import special_file_kind
from engine.errors import CorpusError

# Lines are written to the temporary file in batches of this many.
WRITE_BATCH: Final = 4096
# Bad text quoted in an error message is cut to this many characters.
QUOTE_LIMIT: Final = 40
# The largest count a table may hold, each and in total: the trainers count in 64-bit signed
# integers (mypyc's i64, as HF's u64 but signed).
MAX_COUNT: Final = (1 << 63) - 1
# A line of a table longer than this is refused before it is read whole (a word is a few
# dozen bytes; a table with a line this long is not a table).
MAX_TABLE_LINE: Final = 1 << 20


def write_counts(path: str, counts: dict[str, int]) -> None:
    """Write `counts` as a `word<TAB>count` table: count descending, then word in code point order.

    `{"b": 2, "a": 2, "c": 5}` -> "c\\t5\\na\\t2\\nb\\t2\\n". Streamed to a temporary
    file beside `path` and renamed over it, so a failed write never leaves half a table. Raises
    CorpusError (naming `path`) for a word the format cannot hold (empty, or with a tab or line
    break) and for a count that is not a positive integer; nothing is written then.
    """
    ordered = sorted(counts.items(), key=_table_order)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise CorpusError(path, "is a directory, not a file")
    special = special_file_kind(path)
    if special:
        # (the rename would put a regular file in its place: /dev/null, for one)
        raise CorpusError(path, f"is {special}, not a file a table can replace")
    if not os.path.isdir(folder):
        raise CorpusError(path, f"folder {folder} does not exist")
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.{secrets.token_hex(4)}.part")
    try:
        # subtle: "x" mode, not tempfile.mkstemp (0600): the table gets the user's umask.
        with open(tmp, "x", encoding="utf-8", newline="") as handle:
            batch: list[str] = []
            for word, count in ordered:
                _check_entry(path, word, count)
                batch.append(f"{word}\t{count}\n")
                if len(batch) >= WRITE_BATCH:
                    handle.write("".join(batch))
                    batch = []
            if batch:
                handle.write("".join(batch))
            handle.flush()
            os.fsync(handle.fileno())
        if os.path.exists(path):
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        os.replace(tmp, path)
    except OSError as error:
        _remove(tmp)
        raise CorpusError(path, f"cannot be written ({error.strerror or error})") from None
    except BaseException:
        _remove(tmp)
        raise


def read_counts(path: str) -> dict[str, int]:
    """word -> count from a `word<TAB>count` table (lines end with "\\n" or "\\r\\n").

    Streamed line by line. Raises CorpusError(path, "line N: ...") for a line without a tab, a
    count that is not a positive integer or is above MAX_COUNT, an empty word, a word seen on an
    earlier line, bytes that are not UTF-8 (with the byte offset), a line longer than
    MAX_TABLE_LINE; for counts adding up to more than MAX_COUNT; for a special file (a FIFO, a
    device), an empty or an unreadable file.
    """
    counts: dict[str, int] = {}
    if os.path.isdir(path):
        raise CorpusError(path, "is a directory, not a word-count table")
    total = 0
    try:
        special = special_file_kind(path)
        if special:
            raise CorpusError(path, f"is {special}, not a word-count table")
        with open(path, "rb") as stream:
            number = 0
            offset = 0
            while True:
                # subtle: a bounded readline, so that a file without line breaks is never read whole
                raw = stream.readline(MAX_TABLE_LINE + 1)
                if not raw:
                    break
                number += 1
                start = offset
                offset += len(raw)
                if len(raw) > MAX_TABLE_LINE:
                    raise CorpusError(
                        path, f"line {number}: longer than {MAX_TABLE_LINE >> 20} MB, so not a word<TAB>count line; it starts", start
                    )
                word, count = _parse_line(path, raw, number, start)
                if word in counts:
                    first = _first_line_of(path, word)
                    raise CorpusError(path, f"line {number}: the word {_quote(word)} was already on line {first}")
                counts[word] = count
                total += count
                if total > MAX_COUNT:
                    raise CorpusError(
                        path, f"line {number}: the counts add up to more than {MAX_COUNT:,}, the most the trainers can count"
                    )
    except FileNotFoundError:
        raise CorpusError(path, "file not found") from None
    except OSError as error:
        raise CorpusError(path, f"cannot be read ({error.strerror or error})") from None
    if not counts:
        raise CorpusError(path, "is empty: a word-count table needs at least one word<TAB>count line")
    return counts


# -- helpers -------------------------------------------------------------------------------

_MAX_COUNT_TEXT: Final = str(MAX_COUNT)


def _table_order(item: tuple[str, int]) -> tuple[int, str]:
    """The sort key of a table line: ("a", 3) -> (-3, "a"), biggest counts first."""
    return (-item[1], item[0])


def _check_entry(path: str, word: str, count: int) -> None:
    """CorpusError when `word`/`count` cannot be one line of a table."""
    if not word:
        raise CorpusError(path, "cannot write an empty word in a word<TAB>count table")
    if "\t" in word or "\n" in word or "\r" in word:
        raise CorpusError(
            path,
            f"cannot write the word {word!r}: it holds a tab or a line break, which a SentencePiece "
            "word<TAB>count table cannot represent; the pipeline that produced it does not split "
            "on whitespace (use a pre-tokenizer that splits on whitespace, or train on the files)",
        )
    if count <= 0:
        raise CorpusError(path, f"cannot write the word {word!r} with count {count}: counts must be positive")
    if count > MAX_COUNT:
        raise CorpusError(path, f"cannot write the word {word!r} with count {count}: counts must be at most {MAX_COUNT:,}")


def _parse_line(path: str, raw: bytes, number: int, offset: int) -> tuple[str, int]:
    """(word, count) of line `number` of `path`, whose bytes `raw` start at byte `offset`."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CorpusError(path, f"line {number}: is not valid UTF-8 ({error.reason})", offset + error.start) from None
    if line.endswith("\r\n"):
        line = line[:-2]
    elif line.endswith("\n"):
        line = line[:-1]
    tab = line.find("\t")
    if tab < 0:
        if not line:
            raise CorpusError(path, f"line {number}: is empty; expected word<TAB>count")
        raise CorpusError(path, f"line {number}: no tab in {_quote(line)}; expected word<TAB>count")
    word = line[:tab]
    text = line[tab + 1 :]
    if not word:
        raise CorpusError(path, f"line {number}: empty word before the tab")
    if "\t" in text:
        raise CorpusError(path, f"line {number}: more than one tab in {_quote(line)}; expected word<TAB>count")
    # subtle: int() would also take " 7", "+7", "7_000" and non-ASCII digits ("²" is isdigit()
    # but not isdecimal(); "٣" is both): a table has only ASCII digits.
    if not text or not text.isascii() or not text.isdigit():
        raise CorpusError(path, f"line {number}: the count {_quote(text)} is not a positive integer")
    # subtle: checked by length before int(), which refuses more than 4,300 digits with a ValueError
    digits = text.lstrip("0")
    if len(digits) > len(_MAX_COUNT_TEXT) or (len(digits) == len(_MAX_COUNT_TEXT) and digits > _MAX_COUNT_TEXT):
        raise CorpusError(
            path,
            f"line {number}: the count {_quote(text)} ({len(text):,} digits) is too large: counts must be at most "
            f"{MAX_COUNT:,}",
        )
    count = int(text)
    if count == 0:
        raise CorpusError(path, f"line {number}: the count {_quote(text)} is not a positive integer")
    return word, count


def _first_line_of(path: str, word: str) -> int:
    """The number of the first line of `path` holding `word` (to report a duplicate; 0 if none)."""
    wanted = word.encode("utf-8") + b"\t"
    number = 0
    with open(path, "rb") as stream:
        for raw in stream:
            number += 1
            if raw.startswith(wanted):
                return number
    return 0


def _quote(text: str) -> str:
    """`text` as repr, cut to QUOTE_LIMIT characters: "abc" -> "'abc'"."""
    if len(text) > QUOTE_LIMIT:
        return repr(text[:QUOTE_LIMIT]) + "..."
    return repr(text)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
