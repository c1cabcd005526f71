"""The certificate of an export, as the command line's `convert` and the window's File ▸ Export
make it (Qt-free): the suite of texts (the engine's edge cases, then article 1 of each shipped
declaration) encoded by the exported tokenizer and by the library that owns the written format,
saved beside the file. The comparison itself is `engine.analysis.certificate`'s.
"""

from __future__ import annotations

import functools
from typing import Final

from engine.analysis import certificate
from engine.tokenizer import Tokenizer
from workbench.core.audit_texts import shipped_languages

# The article of each declaration the suite takes (a short one: the suite stays at a second or two).
ARTICLE: Final = 1


@functools.cache
def suite_texts() -> tuple[tuple[str, str], ...]:
    """(name, text) of every text a certificate compares: `certificate.EDGE_TEXTS`, then article
    1 of each of the 532 shipped declarations (the first article a version has when it lacks
    that one), named "Article 1 in English (eng)"."""
    texts = list(certificate.EDGE_TEXTS)
    for language in shipped_languages():
        number = ARTICLE if ARTICLE in language.articles else min(language.articles)
        code = f" ({language.iso639_3})" if language.iso639_3 else ""
        texts.append((f"article {number} in {language.name}{code}", language.articles[number]))
    return tuple(texts)


def certify_export(tokenizer: Tokenizer, kind: str, path: str) -> tuple[certificate.Certificate, str]:
    """The certificate of `tokenizer` just written as `kind` at `path` (as `convert.save` was
    given them), saved beside the file; returns it and where it was saved."""
    found = certificate.certify(tokenizer, kind, path, list(suite_texts()))
    saved = certificate.certificate_path(kind, path)
    certificate.save(found, saved)
    return found, saved
