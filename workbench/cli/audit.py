"""`tokenizer-workbench audit`: what text costs under one or more tokenizers, over the shipped
declarations (one per language, article-aligned), the shipped code samples and the user's own
files: tokens, tokens per word, characters and bytes per token, the share of words cut into
several tokens, unknown and byte-fallback rates, the round trip, the premium over English and
the Rényi efficiency, one CSV row per tokenizer and text, and a summary per tokenizer. The
figures are `engine.analysis.audit`'s; the texts `workbench.core.audit_texts`'.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from engine.analysis.size_curve import held_out_words, size_curve
from engine.analysis.vocab_compare import compare_vocabularies
from engine.analysis.vocab_health import vocabulary_health
from engine.tokenizer import Tokenizer
from engine.analysis.audit import (
    COMPRESSION_NOTE,
    DTYPE_BYTES,
    AuditText,
    EmbeddingCost,
    TextCost,
    audit,
    summaries,
)
from engine.formats.files import write_text_atomically
from workbench.cli.common import READABLE, CliError, check_output, check_output_place, load, stdout_for
from workbench.core.audit_texts import AuditTextError, shipped_code, shipped_languages, user_texts
from workbench.core.audit_report import UNCOVERED_RATE, TokenizerFile, csv_text, embedding_rows, html_report
from workbench.core.formatting import human_size
from workbench.core.vocab_reports import (
    CURVE_NOTE,
    HEALTH_HEADERS,
    comparison_lines,
    comparison_section,
    comparison_wire,
    curve_table,
    curve_wire,
    curves_section,
    health_section,
    health_table,
    health_tokens,
    health_wire,
)
from workbench.core.parallel_text import load_udhr, udhr_source

def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `audit` command's arguments."""
    command = sub.add_parser(
        "audit",
        help="measure what text costs under tokenizers: every shipped language, code, your files",
        description="Encode the Universal Declaration of Human Rights in every shipped language (or "
        "--languages), the shipped code samples and your own --texts with each tokenizer, and print per "
        "tokenizer the premium over English on the same articles (median, 90th percentile, worst language, "
        "Gini); --csv writes one row per tokenizer and text with every figure, --html a report with every "
        "table and chart that a reviewer can reproduce. " + COMPRESSION_NOTE,
    )
    command.add_argument("-t", "--tokenizer", action="append", metavar="TOKENIZER", help=f"a tokenizer to audit (repeat for several): {READABLE}")
    command.add_argument("--texts", action="append", default=[], metavar="PATH", help="a file or folder of your own to measure too (repeatable)")
    command.add_argument("--languages", metavar="CODES", help="comma-separated ISO 639-3 codes (or the keys --list-languages prints) of the shipped languages to measure (default: all)")
    command.add_argument("--no-languages", action="store_true", help="leave out the shipped declarations")
    command.add_argument("--no-code", action="store_true", help="leave out the shipped code samples")
    command.add_argument("--csv", type=Path, metavar="FILE", help="write every figure, one row per tokenizer and text")
    command.add_argument(
        "--html", type=Path, metavar="FILE",
        help="write a self-contained report: every table, the charts, the engine's version and every file's and text's SHA-256",
    )
    command.add_argument("--hidden-size", type=int, default=768, metavar="N", help="the model's hidden size, for the embedding's cost (default 768)")
    command.add_argument("--dtype", choices=tuple(DTYPE_BYTES), default="bf16", help="what the embedding is stored in (default bf16)")
    command.add_argument("--untied", action="store_true", help="the output projection is a matrix of its own (default: tied to the input embedding)")
    command.add_argument(
        "--health", nargs="?", const=10, type=int, metavar="N",
        help="also check each vocabulary on the texts measured: tokens dead, rare (produced fewer than N times, default 10), "
        "unreachable, not UTF-8 alone, intermediate only, never formed, colliding under the normalizer, the longest",
    )  # fmt: skip
    command.add_argument(
        "--compare", action="store_true",
        help="with two tokenizers: tokens in both vocabularies, in one only, the same string under different ids, and the "
        "share of token boundaries they agree on over the texts measured",
    )  # fmt: skip
    command.add_argument(
        "--size-curve", action="store_true",
        help="tokens per character on the texts measured at every vocabulary size each tokenizer's run passed through, "
        "and the knee (for a held-out text of your own: --no-languages --no-code --texts FILE); a Unigram file keeps no "
        "rounds, so its curve is its top pieces by score, an approximation",
    )  # fmt: skip
    command.add_argument("--force", action="store_true", help="replace the CSV or HTML file if it exists")
    command.add_argument("--list-languages", action="store_true", help="list the shipped languages and exit")
    command.set_defaults(func=cmd_audit)


def cmd_audit(args: argparse.Namespace) -> int:
    out = stdout_for("the audit")
    if args.list_languages:
        for text in load_udhr():
            out.write(f"{text.iso639_3}\t{text.key}\t{text.script}\t{text.name}\n")
        return 0
    if not args.tokenizer:
        raise CliError("give at least one tokenizer to audit with -t TOKENIZER")
    if args.hidden_size <= 0:
        raise CliError(f"--hidden-size must be 1 or more, got {args.hidden_size}")
    if args.compare and len(args.tokenizer) != 2:
        raise CliError(f"--compare compares two tokenizers: give two with -t, not {len(args.tokenizer)}")
    if args.health is not None and args.health < 2:
        raise CliError(f"--health N: a token produced fewer than N times is rare; N must be 2 or more, got {args.health}")
    inputs = [Path(p) for p in args.tokenizer + args.texts]
    for output, what, example in ((args.csv, "CSV file", "audit.csv"), (args.html, "HTML report", "audit.html")):
        if output is not None:
            check_output_place(output, what, example)
            check_output(output, inputs, args.force, what, example, "input file")
    if args.csv is not None and args.html is not None and args.csv.resolve() == args.html.resolve():
        raise CliError(f"{args.csv}: given for both --csv and --html; give two files")
    texts = _texts(args)
    if not texts:
        raise CliError("nothing to measure: --no-languages and --no-code leave no text; add --texts PATH")
    tokenizers = [(_name(path, args.tokenizer), load(path)) for path in args.tokenizer]
    costs = audit(tokenizers, texts)
    embeddings = embedding_rows(tokenizers, args.hidden_size, args.dtype, not args.untied)
    _print_summary(out, costs, dict(embeddings[: len(tokenizers)]))
    sections = _vocabulary_audits(out, args, tokenizers, texts)
    if args.csv is not None:
        write_text_atomically(str(args.csv), csv_text(costs))
        print(f"wrote {args.csv} ({len(costs)} rows)", file=sys.stderr)
    if args.html is not None:
        files = [TokenizerFile.of(name, path) for (name, _), path in zip(tokenizers, args.tokenizer)]
        write_text_atomically(str(args.html), html_report(costs, files, udhr_source(), embeddings=embeddings, sections=sections))
        print(f"wrote {args.html}", file=sys.stderr)
    return 0


def _vocabulary_audits(out: TextIO, args: argparse.Namespace, tokenizers: list[tuple[str, Tokenizer]], texts: list[AuditText]) -> list[str]:
    """--size-curve, --health and --compare on the texts measured: printed, and as the HTML
    report's sections."""
    bodies = [body for text in texts for body in text.articles.values()]
    label = f"{len(texts)} text{'s' if len(texts) != 1 else ''} measured"
    sections: list[str] = []
    if args.size_curve:
        entry_bytes = EmbeddingCost(1, args.hidden_size, args.dtype, not args.untied).bytes
        curves: list[dict[str, object]] = []
        for name, tokenizer in tokenizers:
            counts, characters = held_out_words(tokenizer, bodies)
            try:
                curve = size_curve(tokenizer, counts, characters)
            except ValueError as error:
                out.write(f"{name}: no size curve ({error})\n")
                continue
            curves.append(curve_wire(name, label, tokenizer.get_vocab_size(True), curve))
        for row in curve_table(curves, entry_bytes):
            if row[10] == "1":
                out.write(f"{row[0]}: which vocabulary size? no smaller sizes to measure: its vocabulary is not in the order it was made in\n")
                continue
            out.write(
                f"{row[0]}: which vocabulary size? the knee is at {row[5]} of {row[3]} entries ({row[2]}, {row[10]} sizes): "
                f"{row[6]} tokens per character there against {row[4]} ({row[7]}); embedding {row[9]} against {row[8]}\n"
            )
        sections.append(curves_section(curves, entry_bytes, CURVE_NOTE))
    if args.health is not None:
        healths = [health_wire(name, tokenizer, vocabulary_health(tokenizer, bodies, args.health), label) for name, tokenizer in tokenizers]
        for health, row in zip(healths, health_table(healths)):
            shown = [f"{value} {title}" for value, title in zip(row[2:], HEALTH_HEADERS[2:]) if value != "0"]
            out.write(f"{row[0]}: vocabulary health on the {label} ({row[1]} tokens): {', '.join(shown)}\n")
            for key, title in (("unreachable", "unreachable"), ("dead", "dead")):
                tokens = health_tokens(health, key, 8)
                if tokens:
                    out.write(f"  {title}: {', '.join(tokens)}{' ...' if len(tokens) == 8 else ''}\n")
        sections.append(health_section(healths))
    if args.compare:
        (name_a, a), (name_b, b) = tokenizers
        comparison = comparison_wire(name_a, name_b, compare_vocabularies(a, b, bodies), f"the {label}")
        for line in comparison_lines(comparison):
            out.write(line + "\n")
        sections.append(comparison_section(comparison))
    return sections


def _texts(args: argparse.Namespace) -> list[AuditText]:
    try:
        texts: list[AuditText] = []
        if not args.no_languages:
            codes = [code.strip() for code in args.languages.split(",") if code.strip()] if args.languages else None
            texts += shipped_languages(codes)
        if not args.no_code:
            texts += shipped_code()
        texts += user_texts(args.texts)
    except AuditTextError as error:
        raise CliError(str(error)) from None
    return texts


def _name(path: str, paths: list[str]) -> str:
    """A tokenizer's name in the results: its file name, or its path where two share a name."""
    name = Path(path).name
    return name if sum(1 for other in paths if Path(other).name == name) == 1 else path


def embedding_line(cost: EmbeddingCost) -> str:
    """"embedding 30,522 x 768 = 23.4 M parameters, the output projection tied to it: 44.7 MB in bf16"."""
    if cost.tied:
        output = "the output projection tied to it"
    else:
        output = f"and {cost.output_parameters / 1e6:.1f} M more for the untied output projection"
    return (
        f"embedding {cost.vocabulary:,} x {cost.hidden:,} = {cost.input_parameters / 1e6:.1f} M parameters, "
        f"{output}: {human_size(cost.bytes)} in {cost.dtype}"
    )


def _texts_count(count: int) -> str:
    return f"{count} text" if count == 1 else f"{count} texts"


def _print_summary(out: TextIO, costs: list[TextCost], embeddings: dict[str, EmbeddingCost]) -> None:
    write = out.write
    languages = [cost for cost in costs if cost.text.kind == "language"]
    others = [cost for cost in costs if cost.text.kind != "language"]
    for summary in summaries(costs):
        own = [cost for cost in costs if cost.tokenizer == summary.tokenizer]
        tokens = sum(cost.tokens for cost in own)
        write(f"{summary.tokenizer}: {tokens:,} tokens over {_texts_count(len(own))}\n")
        if summary.tokenizer in embeddings:
            write(f"  {embedding_line(embeddings[summary.tokenizer])}\n")
        if summary.languages:
            write(
                f"  premium over English, {summary.languages} {'language' if summary.languages == 1 else 'languages'}: median {summary.median:.2f}, "
                f"90th percentile {summary.p90:.2f}, worst {summary.worst} {summary.worst_premium:.2f}, "
                f"Gini {summary.gini:.3f}\n"
            )
            uncovered = [cost for cost in own if cost.premium is not None and cost.unknown_rate > UNCOVERED_RATE]
            if uncovered:
                write(
                    f"  {_texts_count(len(uncovered))} with more than {UNCOVERED_RATE:.0%} unknown tokens: their premium "
                    "understates their cost (a run of characters the vocabulary lacks can be one token)\n"
                )
        elif languages:
            write("  premium over English: none (English is not among the texts)\n")
        failed = [cost for cost in own if not cost.round_trip]
        if failed:
            causes: dict[str, int] = {}
            for cost in failed:
                for cause in cost.round_trip_causes:
                    causes[cause] = causes.get(cause, 0) + 1
            ranked = sorted(causes, key=lambda cause: -causes[cause])
            write(
                f"  decoding does not give the text back for {len(failed)} of {len(own)} texts"
                + (f": {'; '.join(f'{cause} ({_texts_count(causes[cause])})' for cause in ranked[:3])}" if ranked else "")
                + "\n"
            )
        unknown = sum(cost.unknown for cost in own)
        if unknown:
            write(f"  unknown tokens: {unknown:,} ({unknown / tokens:.2%} of the tokens)\n" if tokens else "")
        for cost in others:
            if cost.tokenizer == summary.tokenizer:
                write(
                    f"  {cost.text.name}: {cost.tokens:,} tokens, {cost.characters_per_token:.2f} characters "
                    f"per token\n"
                )
    write(f"note: {COMPRESSION_NOTE}\n")
