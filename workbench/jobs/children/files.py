"""Jobs on tokenizer files, run in a child process (`workbench.jobs.runners.child_job.ChildJob`): reading one the
user imports or opens (`load_main`) and writing an export (`export_main`).

A tokenizer file may be big (a 250,000-token vocabulary) or hostile (a regex that never ends, a
declared size of terabytes); reading or writing one is compiled engine work that would hold the
window's lock. So the window sends the path and gets plain values back. No Qt here.
"""

from __future__ import annotations

import json
import os
from multiprocessing.connection import Connection

from engine import Tokenizer, models, trainers
from engine.errors import EngineError
from engine.formats import bert_vocab, convert
from engine.schema import JsonValue
from workbench.core.export_certificate import certify_export


def load_payload(path: str, lowercase: bool | None = None) -> dict[str, object]:
    """What `load_main` reads: a path, and for a BERT vocab.txt whether it lowercases the text
    (None: as its vocabulary shows, see `bert_vocab.guess_case`)."""
    return {"path": path, "lowercase": lowercase}


def load_main(payload: object, connection: Connection) -> None:
    """The child: read the tokenizer file `payload["path"]` in any format `convert.load` reads;
    sends ("done", (tokenizer.json text, the untrained pipeline, trainer settings or None, its
    size, what was inferred from the file, whether it lowercases when that was inferred or None)) or
    ("failed", message naming the file)."""
    if not isinstance(payload, dict):
        connection.send(("failed", "the reading got no file"))
        return
    path, lowercase = str(payload["path"]), payload.get("lowercase")
    try:
        case: bool | None = None
        if convert.detect(path) == convert.BERT_VOCAB and not os.path.isdir(path):
            vocab = bert_vocab.read(path)
            guess = bert_vocab.guess_case(vocab)
            chosen = guess.lowercase if lowercase is None else bool(lowercase)
            # (accents as the vocabulary shows when its case is kept; stripped with lowercasing)
            strip = guess.strip_accents if chosen == guess.lowercase else None
            tokenizer = bert_vocab.bert_tokenizer(vocab, chosen, strip)
            notes = [guess.note]
            case = chosen
        else:
            loaded = convert.load_noted(path)
            tokenizer, notes = loaded.tokenizer, list(loaded.notes)
        answer = (*imported(tokenizer), notes, case)
    except EngineError as error:
        connection.send(("failed", str(error)))
        return
    connection.send(("done", answer))


def imported(tokenizer: Tokenizer) -> tuple[str, dict[str, JsonValue], dict[str, JsonValue] | None, int]:
    """What a project keeps of an imported tokenizer: its tokenizer.json, the pipeline with its
    vocabulary emptied (what retraining starts from), and the settings of a trainer that
    retrains it at its size with its special tokens (None for a model the engine cannot train),
    and the size of its vocabulary."""
    try:
        default = trainers.default_trainer(tokenizer.model)
        default.vocab_size = tokenizer.get_vocab_size()
        default.special_tokens = [t for _, t in sorted(tokenizer.get_added_tokens_decoder().items()) if t.special]
        model = tokenizer.model
        if isinstance(default, trainers.UnigramTrainer) and isinstance(model, models.Unigram) and model.unk_id is not None:
            default.unk_token = model.id_to_token(model.unk_id)
        if isinstance(default, trainers.WordPieceTrainer) and isinstance(model, models.WordPiece):
            default.continuing_subword_prefix = model.continuing_subword_prefix
        trainer: dict[str, JsonValue] | None = default.to_dict()
    except EngineError:
        trainer = None  # a model the engine cannot train yet: kept for inspection
    return tokenizer.to_str(), untrained_json(tokenizer), trainer, tokenizer.get_vocab_size()


def untrained_json(tokenizer: Tokenizer) -> dict[str, JsonValue]:
    """The pipeline of a trained tokenizer with its vocabulary emptied: what retraining starts from."""
    data: dict[str, JsonValue] = json.loads(tokenizer.to_str())
    model = data.get("model")
    if isinstance(model, dict):
        if model.get("type") == "Unigram":
            # subtle: a Unigram model with an unk_id needs that piece (as id 0) to load at all.
            unk_id, pieces = model.get("unk_id"), model.get("vocab")
            kept = isinstance(unk_id, int) and isinstance(pieces, list) and 0 <= unk_id < len(pieces)
            model["vocab"] = [pieces[unk_id]] if kept and isinstance(pieces, list) and isinstance(unk_id, int) else []
            model["unk_id"] = 0 if kept else None
        elif "vocab" in model:
            model["vocab"] = {}
        if "merges" in model:
            model["merges"] = []
    data["added_tokens"] = []
    return data


def export_main(payload: object, connection: Connection) -> None:
    """The child: write the tokenizer.json text `payload["tokenizer"]` in format
    `payload["format"]` at `payload["path"]`, then make its certificate
    (`workbench.core.export_certificate`; ("progress", "certifying") first) and save it beside;
    sends ("done", (paths written, what the format could not hold, the certificate as a dict or
    None, where it was saved or why there is none)) or ("failed", message) when nothing was
    written."""
    if not isinstance(payload, dict):
        connection.send(("failed", "the export got no job"))
        return
    kind, path = str(payload["format"]), str(payload["path"])
    try:
        tokenizer = Tokenizer.from_str(str(payload["tokenizer"]))
        notes = convert.save(tokenizer, kind, path)
    except (EngineError, OSError) as error:
        connection.send(("failed", str(error)))
        return
    connection.send(("progress", "certifying"))
    certificate: dict[str, JsonValue] | None = None
    try:
        found, where = certify_export(tokenizer, kind, path)
        certificate = found.to_dict()
    except Exception as error:  # noqa: BLE001 - the file is written; the window says the check did not run
        where = f"the check could not run: {type(error).__name__}: {error}"
    connection.send(("done", (convert.written_paths(kind, path), list(notes), certificate, where)))


def export_payload(tokenizer_json: str, kind: str, path: str) -> dict[str, object]:
    return {"tokenizer": tokenizer_json, "format": kind, "path": os.path.abspath(path)}
