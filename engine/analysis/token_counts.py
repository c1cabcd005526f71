"""How often each token of a trained tokenizer occurs in its training words, and which words show
it: both in one pass over the words, each word tokenized once, with progress.

What the vocabulary view shows beside each token ("frequency in the training words", "corpus
words that contain it"). `engine.analysis.vocabulary.token_frequencies` and `token_examples` give the same
answers separately; this is the training's way, which must not tokenize 300,000 words twice.
No training here.
"""

from __future__ import annotations

from typing import Final

from engine.progress import ProgressSink, SilentProgress, report, report_every
from engine.tokenizer import Tokenizer
from engine.analysis.vocabulary import TokenStyle, readable

STAGE_COUNT_TOKENS: Final = "Count tokens"
# (four are enough to show what a token is part of; each costs a project 100 KB at 32k tokens)
EXAMPLES_PER_TOKEN: Final = 4
# Examples come from the most frequent words only.
EXAMPLE_WORDS: Final = 200_000


def token_statistics(
    tokenizer: Tokenizer,
    word_counts: dict[str, int],
    sink: ProgressSink | None = None,
    per_token: int = EXAMPLES_PER_TOKEN,
    max_words: int = EXAMPLE_WORDS,
) -> tuple[list[int], dict[int, list[tuple[str, int]]]]:
    """`(frequencies, examples)`: `frequencies[id]`, how often token `id` occurs when the
    training words are tokenized (a word that is an added token counts for it), and
    `examples[id]`, the most frequent words (of the `max_words` most frequent) holding it, as
    people read them, at most `per_token` of them. Reports the "Count tokens" stage.

    {"low": 3, "lower": 1} with tokens low, er -> ([.., low: 4, er: 1], {low: [("low", 3), ("lower", 1)], er: [("lower", 1)]})
    """
    if sink is None:
        sink = SilentProgress()
    model = tokenizer.model
    size = 0
    for id in tokenizer.get_vocab(True).values():
        if id >= size:
            size = id + 1
    frequencies = [0] * size
    added: dict[str, int] = {}
    for id, token in tokenizer.get_added_tokens_decoder().items():
        added[token.content] = id
    style = TokenStyle.of(tokenizer)
    word_style = TokenStyle(style.byte_level, style.metaspace)
    ranked = [(-count, word) for word, count in word_counts.items()]
    ranked.sort()
    examples: dict[int, list[tuple[str, int]]] = {}
    total = len(ranked)
    every = report_every(total)
    report(sink, STAGE_COUNT_TOKENS, 0, total, "words")
    for n in range(total):
        neg_count, word = ranked[n]
        count = -neg_count
        if n % every == 0 and n > 0:
            report(sink, STAGE_COUNT_TOKENS, n, total, "words")
        found = added.get(word)
        ids = [found] if found is not None else model.tokenize_run(word).ids
        shown = ""
        for i in range(len(ids)):
            id = ids[i]
            if id < size:
                frequencies[id] += count
            if n >= max_words:
                continue
            if _seen_before(ids, i):
                continue  # a word holding a token twice is one example of it
            kept = examples.get(id)
            if kept is None:
                kept = []
                examples[id] = kept
            if len(kept) < per_token:
                if not shown:
                    shown = readable(word, word_style)
                kept.append((shown, count))
    report(sink, STAGE_COUNT_TOKENS, total, total, "words")
    return frequencies, examples


def _seen_before(ids: list[int], i: int) -> bool:
    id = ids[i]
    for j in range(i):
        if ids[j] == id:
            return True
    return False
