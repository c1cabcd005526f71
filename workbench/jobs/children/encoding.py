"""The encoding process: encodes, traces, compares and decodes for the Encode and Compare tabs, so
that a 10,000-character text never blocks the editor (a compiled encode holds the GIL, so a
thread would). No Qt here: the window talks to it through `workbench.jobs.runners.encoding`.

Requests, window -> process (tuples):
    ("tokenizer", key, tokenizer_json)                   remember a tokenizer under `key`
    ("encode", id, key, text, pair or None, add_special) -> ("encoded", id, encoding)
    ("trace", id, key, text, add_special)                -> ("traced", id, trace)
    ("compare", id, [("tokenizer", key) | ("baseline", name)], text) -> ("compared", id, columns)
    ("decode", id, key, ids)                             -> ("decoded", id, {"text", "unknown" ids})
    ("view", id, key, vocabulary_data, glyphs, table) -> ("viewed", id, view_wire(...))
    ("history", id, history_data)                        -> ("history", id, stored_history_wire(...))
    ("export", id, key)                                  -> ("checked", id, {format: why not, or ""})
    ("unicode", id, key or None, text)                   -> ("unicoded", id, unicode_wire(...))
    ("steps", id, key or None, text, cursor, options)    -> ("stepped", id, steps_wire(...))
    ("stop",)
Any request can get ("error", id, message) instead. Of several waiting requests of one kind,
only the newest is done: the others are out of date already.
"""

from __future__ import annotations

import math
import re
import traceback
from multiprocessing.connection import Connection

import numpy

from engine import Tokenizer
from engine.analysis import baselines
from engine.encoding import Encoding
from engine.errors import EngineError
from engine.formats import convert
from engine.project.result import history_columns, part_frequencies
from engine.analysis.inspection import Counts, content_tokens, counts, padding_tokens, shared_spans, trace, unknown_positions, unknown_token, unshared_boundaries
from engine.analysis.encode_steps import trace_word, word_at
from engine.analysis.lattice_steps import ALPHA, NBEST, SAMPLES, SEED
from engine.analysis.steps import quoted
from engine.analysis.unicode_report import code_points, flags_summary, normal_forms
from engine.analysis.vocabulary import TokenStyle, VocabularyTable, merges_made, readable, token_bytes
from workbench.jobs.children.process import lower_priority, send_message
from workbench.core.packed import PackedStrings, VocabularyColumns, pack_made
from workbench.core.toy_models import toy_tokenizer

# Token kinds, as the views paint them (`workbench.window.views.token_view`).
NORMAL = 0
UNKNOWN = 1
SPECIAL = 2

# Requests of these kinds replace older ones still waiting.
SUPERSEDING = ("encode", "trace", "compare", "decode", "view", "history", "export", "unicode", "steps")
# The formats File > Export offers besides tokenizer.json (`convert.FORMATS`).
EXPORT_KINDS = (convert.BERT_VOCAB, convert.GPT2, convert.SENTENCEPIECE, convert.TIKTOKEN)


class Loaded:
    """A tokenizer in the process, with what its views need to know about its tokens."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self.style = TokenStyle.of(tokenizer)
        self.specials = {t.content for t in tokenizer.get_added_tokens_decoder().values() if t.special}
        # what an unknown token is called in the vocabulary ("<unk>"); HF's token string for a
        # Unigram unknown is the text itself
        self.unknown = unknown_token(tokenizer)

    def kinds(self, encoding: Encoding, text: str, pair: str | None = None) -> list[int]:
        """Each token's kind: the model's unknown token (told by id: see `unknown_positions`),
        a special token, or a normal one."""
        unknown = set(unknown_positions(self.tokenizer, encoding, text, pair))
        kinds: list[int] = []
        for index in range(len(encoding.ids)):
            token = encoding.tokens[index]
            # the unknown token is usually a special token too; it is painted as a warning
            if index in unknown:
                kinds.append(UNKNOWN)
            elif encoding.special_tokens_mask[index] or token in self.specials:
                kinds.append(SPECIAL)
            else:
                kinds.append(NORMAL)
        return kinds

    def shown(self, tokens: list[str], kinds: list[int]) -> list[str]:
        """Each token as people read it: a special token as it is, an unknown one by its name in
        the vocabulary ("<unk>"), the others `readable`."""
        shown: list[str] = []
        for i in range(len(tokens)):
            if kinds[i] == SPECIAL:
                shown.append(tokens[i])
            elif kinds[i] == UNKNOWN and self.unknown:
                shown.append(self.unknown)
            else:
                shown.append(readable(tokens[i], self.style))
        return shown

    def hex(self, tokens: list[str], kinds: list[int]) -> list[str]:
        result: list[str] = []
        for i in range(len(tokens)):
            raw = tokens[i].encode("utf-8") if kinds[i] == SPECIAL else token_bytes(tokens[i], self.style)
            result.append(" ".join(f"{b:02X}" for b in raw))
        return result


def encoding_wire(loaded: Loaded, encoding: Encoding, text: str, pair: str | None) -> dict[str, object]:
    """An `Encoding` for the views: plain lists (with each token's kind, readable form and bytes),
    plus the counts: the texts' (a pair's two texts counted apart, so that no word is made
    across their seam), the tokens that stand for text, the post-processor's special tokens
    and the padding (together, every id)."""
    sequence_ids = encoding.sequence_ids
    content = content_tokens(encoding)
    total = counts(text, content)
    if pair is not None:
        second = counts(pair, 0)
        total = Counts(total.characters + second.characters, total.bytes + second.bytes, total.words + second.words, content)
    padding = padding_tokens(encoding)
    kinds = loaded.kinds(encoding, text, pair)
    return {
        "ids": encoding.ids,
        "tokens": encoding.tokens,
        "offsets": encoding.offsets,
        "special": encoding.special_tokens_mask,
        "sequences": sequence_ids,
        "kinds": kinds,
        "shown": loaded.shown(encoding.tokens, kinds),
        "hex": loaded.hex(encoding.tokens, kinds),
        "counts": counts_wire(total),
        "padding": padding,
        "specials": len(encoding.ids) - content - padding,
    }


def counts_wire(total: Counts) -> tuple[int, int, int, int]:
    """`Counts` as its constructor takes them: `Counts(*wire)` on the other side."""
    return (total.characters, total.bytes, total.words, total.tokens)


def handle(request: tuple[object, ...], tokenizers: dict[str, Loaded]) -> tuple[object, ...] | None:
    """One request's reply (None for a request that needs none)."""
    kind = request[0]
    if kind == "tokenizer":
        tokenizers[str(request[1])] = Loaded(Tokenizer.from_str(str(request[2])))
        return None
    request_id = request[1]
    try:
        if kind == "encode":
            loaded, text = tokenizers[str(request[2])], str(request[3])
            second = str(request[4]) if request[4] is not None else None
            encoding = loaded.tokenizer.encode(text, second, add_special_tokens=bool(request[5]))
            return ("encoded", request_id, encoding_wire(loaded, encoding, text, second))
        if kind == "trace":
            loaded = tokenizers[str(request[2])]
            found = trace(loaded.tokenizer, str(request[3]), bool(request[4]))
            kinds = loaded.kinds(found.encoding, found.text)
            style = loaded.style
            return ("traced", request_id, {
                "pieces_shown": [readable(piece, style) for piece, _, _ in found.pieces],
                "model_shown": [[readable(token, style) for _, token, _, _ in tokens] for tokens in found.model_tokens],
                "shown": loaded.shown(found.encoding.tokens, kinds),
                "kinds": kinds,
                "normalized": found.normalized,
                "alignments": found.alignments,
                "pieces": found.pieces,
                "model_tokens": found.model_tokens,
                "ids": found.encoding.ids,
                "tokens": found.encoding.tokens,
                "offsets": found.encoding.offsets,
                "special": found.encoding.special_tokens_mask,
                "decoded": found.round_trip.decoded,
                "differences": [d.to_tuple() for d in found.round_trip.differences],
                "causes": found.round_trip.causes,
            })
        if kind == "compare":
            columns = request[2]
            assert isinstance(columns, list)
            return ("compared", request_id, compare(columns, str(request[3]), tokenizers))
        if kind == "view":
            loaded = tokenizers[str(request[2])]
            data = request[3]
            wire = view_wire(loaded.tokenizer, data if isinstance(data, bytes) else b"", bool(request[4]), bool(request[5]))
            return ("viewed", request_id, wire)
        if kind == "history":
            data = request[2]
            return ("history", request_id, stored_history_wire(data if isinstance(data, bytes) else b""))
        if kind == "export":
            return ("checked", request_id, export_reasons(tokenizers[str(request[2])].tokenizer))
        if kind == "unicode":
            key = request[2]
            loaded_or_none = tokenizers[str(key)] if key is not None else None
            return ("unicoded", request_id, unicode_wire(str(request[3]), loaded_or_none))
        if kind == "steps":
            key = request[2]
            loaded_or_none = tokenizers[str(key)] if key is not None else None
            options = request[5]
            assert isinstance(options, dict)
            return ("stepped", request_id, steps_wire(loaded_or_none, str(request[3]), int(str(request[4])), options))
        if kind == "decode":
            ids = [int(str(i)) for i in _items(request[3])]
            tokenizer = tokenizers[str(request[2])].tokenizer
            unknown = [i for i in ids if i < 0 or tokenizer.id_to_token(i) is None]
            known = [i for i in ids if i not in unknown]
            return ("decoded", request_id, {"text": tokenizer.decode(known), "unknown": unknown})
    except KeyError as error:
        return ("error", request_id, f"the tokenizer {error} is not loaded in the encoding process")
    except (EngineError, ValueError, TypeError, IndexError) as error:
        return ("error", request_id, str(error))
    return ("error", request_id, f"unknown request {kind!r}")


def steps_wire(loaded: Loaded | None, text: str, cursor: int, options: dict[str, object]) -> dict[str, object]:
    """How the model cuts the word under `cursor` in `text`, step by step (`trace_word`'s wire),
    with where the word is ("span", in `text`), what model it is ("model") and what the
    pre-tokenizer did to the word ("note"); {"kind": "none", "message"} where there is no word.

    `options`: "nbest", "alpha", "seed", "samples" for a Unigram; "toy": (kind, vocabulary text,
    word) to step through a toy vocabulary (`workbench.core.toy_models`) instead of `loaded`,
    on `word` when it is not empty (else on the word under the cursor)."""
    toy = options.get("toy")
    typed = False
    if isinstance(toy, (tuple, list)):
        tokenizer = toy_tokenizer(str(toy[0]), str(toy[1]))
        if str(toy[2]).strip():
            text, cursor, typed = str(toy[2]).strip(), 0, True
    elif loaded is not None:
        tokenizer = loaded.tokenizer
    else:
        return {"kind": "none", "message": "No trained tokenizer: train one, or tick Toy vocabulary and type one."}
    found = word_at(tokenizer, text, cursor)
    if found is None:
        return {"kind": "none", "message": "Put the cursor in a word of the text: its steps are shown here."}
    if found.added:
        id = tokenizer.token_to_id(found.word)
        return {"kind": "none", "message": (
            f"{quoted(found.word)} is an added token (id {id}): it is cut out of the text before the "
            "model runs, so the model never cuts it. Put the cursor in another word."
        )}  # fmt: skip
    trace = trace_word(
        tokenizer.model, found.word, int(str(options.get("nbest", NBEST))), float(str(options.get("alpha", ALPHA))),
        int(str(options.get("seed", SEED))), int(str(options.get("samples", SAMPLES))),
    )  # fmt: skip
    wire = trace.to_wire()
    model = tokenizer.model
    style = TokenStyle.of(tokenizer)
    note = ""
    if style.byte_level:
        note = "Byte-level: the pre-tokenizer writes each UTF-8 byte of the word as one character (a space is Ġ)."
    elif style.metaspace and found.word.startswith(style.metaspace):
        note = f"The pre-tokenizer marks the word's start with {quoted(style.metaspace)} (a space before it)."
    wire.update({
        "span": (found.start, found.end),
        "typed": typed,
        "source": "toy" if toy else "tokenizer",
        "model": f"{type(model).__name__}, {model.get_vocab_size():,} tokens",
        "note": note,
        "original": text[found.start : found.end],
    })  # fmt: skip
    return wire


def unicode_wire(text: str, loaded: Loaded | None) -> dict[str, object]:
    """What the Audit's Unicode page shows of a text (`engine.analysis.unicode_report`): each
    code point ("points"), the text under each normal form with the ids `loaded` gives it, its
    tokens made readable ("forms"), and the flags' counts and offsets ("flags")."""
    tokenizer = loaded.tokenizer if loaded is not None else None
    forms: list[dict[str, object]] = []
    for row in normal_forms(text, tokenizer):
        wire = row.to_wire()
        if loaded is not None and row.tokens is not None:
            wire["shown"] = [readable(token, loaded.style) for token in row.tokens]
        forms.append(wire)
    return {
        "points": [point.to_wire() for point in code_points(text)],
        "forms": forms,
        "flags": flags_summary(text).to_wire(),
    }


def view_wire(tokenizer: Tokenizer, vocabulary_data: bytes, glyphs: bool, with_table: bool = True) -> dict[str, object]:
    """What the window draws of a trained tokenizer, built here so that the window never parses
    a big tokenizer: its vocabulary table (frequencies from the project's vocabulary part; None
    when not `with_table`), its token style and how each BPE token was made, packed
    (`workbench.core.packed`)."""
    frequencies: list[int] = []
    if vocabulary_data and with_table:
        try:
            frequencies = part_frequencies(vocabulary_data, "vocabulary")
        except (ValueError, EngineError):
            frequencies = []
    style = TokenStyle.of(tokenizer)
    table = VocabularyTable.of(tokenizer, frequencies or None, glyphs) if with_table else None
    wire: dict[str, object] = {
        "table": VocabularyColumns.of(table) if table is not None else None,
        "style": (style.byte_level, style.metaspace, style.prefix, style.suffix),
        "made": pack_made(merges_made(tokenizer.model)),
    }
    return wire


def stored_history_wire(history_data: bytes) -> dict[str, object]:
    """A project's history part ready to draw: {"history": `history_wire`}, or {"problem": why
    it cannot be read}. Asked for apart from the view, so the vocabulary table is shown
    without waiting for a history of 30,000 merges to be parsed."""
    try:
        return {"history": history_wire(history_columns(history_data, "history"))}
    except EngineError as error:
        return {"problem": str(error)}


def history_wire(columns: dict[str, object]) -> dict[str, object]:
    """A history's columns ready to draw: numbers as arrays (None as NaN, or -1 for counts),
    tokens packed (`PackedStrings`), and the rounds as they are."""
    merges = columns.get("merges")
    arrays: dict[str, object] = {}
    if isinstance(merges, dict) and merges:
        for name in ("index", "new_id", "count", "vocab_size", "words_touched"):
            arrays[name] = numpy.array(merges[name], dtype=numpy.int64)
        for name in ("left_count", "right_count"):
            arrays[name] = numpy.array([-1 if v is None else v for v in merges[name]], dtype=numpy.int64)
        for name in ("score", "seconds"):
            arrays[name] = numpy.array([math.nan if v is None else v for v in merges[name]], dtype=numpy.float64)
        for name in ("left", "right", "new_token"):
            arrays[name] = PackedStrings.of(merges[name])
    return {
        "algorithm": columns.get("algorithm"),
        "score_name": columns.get("score_name"),
        "merges": arrays,
        "rounds": columns.get("rounds"),
    }


def export_reasons(tokenizer: Tokenizer) -> dict[str, str]:
    """Why each export format cannot hold `tokenizer` ("" when it can: `convert.check`)."""
    reasons: dict[str, str] = {}
    for kind in EXPORT_KINDS:
        try:
            convert.check(tokenizer, kind)
            reasons[kind] = ""
        except (EngineError, OSError) as error:
            reasons[kind] = without_path(str(error))
    return reasons


def without_path(message: str) -> str:
    """An engine message about a throw-away file, without the file's path: "/tmp/x/vocab.txt:
    needs a WordPiece model" -> "needs a WordPiece model"."""
    return re.sub(r"^(\S*tokenizer-check-\S*?|<\.model>): ", "", message)


def compare(columns: list[object], text: str, tokenizers: dict[str, Loaded]) -> list[dict[str, object]]:
    """Each column's spans, labels and counts over `text`, and the boundaries it does not share
    with the other tokenizer columns (baselines are references: they are not compared)."""
    results: list[dict[str, object]] = []
    text_counts = counts(text, 0)  # the text's own counts, the same for every column
    for column in columns:
        assert isinstance(column, tuple)
        source, name = str(column[0]), str(column[1])
        if source == "baseline":
            spans = baselines.segment(name, text)
            tokens = [text[start:end] for start, end in spans]
            labels = tokens
            kinds = [NORMAL] * len(spans)
            ids = list(range(len(spans)))
            hexes = [" ".join(f"{b:02X}" for b in token.encode("utf-8", "surrogatepass")) for token in tokens]
        else:
            loaded = tokenizers[name]
            encoding = loaded.tokenizer.encode(text, add_special_tokens=False)
            spans = list(encoding.offsets)
            kinds = loaded.kinds(encoding, text)
            tokens = list(encoding.tokens)
            labels = loaded.shown(tokens, kinds)
            ids = list(encoding.ids)
            hexes = loaded.hex(tokens, kinds)
        total = Counts(text_counts.characters, text_counts.bytes, text_counts.words, len(spans))
        results.append({
            "source": source,
            "spans": spans,
            "labels": labels,
            "tokens": tokens,
            "hex": hexes,
            "ids": ids,
            "kinds": kinds,
            "counts": counts_wire(total),
            "shared": shared_spans(spans),
            "unshared": [],
        })
    compared = [i for i in range(len(results)) if results[i]["source"] == "tokenizer"]
    marks = unshared_boundaries([_spans(results[i]) for i in compared])
    for position, index in enumerate(compared):
        results[index]["unshared"] = marks[position]
    return results


def _items(value: object) -> list[object]:
    assert isinstance(value, (list, tuple))
    return list(value)


def _spans(result: dict[str, object]) -> list[tuple[int, int]]:
    spans = result["spans"]
    assert isinstance(spans, list)
    return spans


def worker_main(connection: Connection) -> None:
    """Serve requests until "stop" or until the window is gone."""
    tokenizers: dict[str, Loaded] = {}
    lower_priority()
    try:
        while True:
            requests = [connection.recv()]
            while connection.poll():
                requests.append(connection.recv())
            newest: dict[str, int] = {}
            for position in range(len(requests)):
                newest[str(requests[position][0])] = position
            for position in range(len(requests)):
                request = requests[position]
                kind = str(request[0])
                if kind == "stop":
                    return
                if kind in SUPERSEDING and newest[kind] != position:
                    continue
                try:
                    reply = handle(request, tokenizers)
                except EngineError as error:
                    reply = ("error", -1, str(error))
                if reply is not None:
                    send_message(connection, reply)
    except (EOFError, OSError, KeyboardInterrupt):
        return
    except Exception:  # noqa: BLE001 - the window restarts the process; the trace goes to stderr
        traceback.print_exc()
    finally:
        connection.close()
