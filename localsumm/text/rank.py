"""Lexical evidence: a text cut into bounded sentences, and which of them a claim or question shares most with.

The pieces are the project's sentences (``segment.sentence_spans``), with a sentence longer than
``MAX_PIECE_CHARS`` cut at its last clause mark (or space) before the limit, so a source with no sentence
ends (one long line, a transcript) still gives pointers a reader can check. Ranking is Okapi BM25 over
``words.content_words`` (lower-cased words outside a stop list; pairs of CJK characters), in pure Python:
the same floats on every machine, no index to build, and Chinese handled as the rest of the project
handles it. bm25s was not used: it tokenizes for space-separated languages and needs scipy, for a
formula that takes a few lines over the few dozen sentences of a source.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from .segment import sentence_spans
from .words import content_words

MAX_PIECE_CHARS = 400
"""A sentence longer than this is cut: about three times a news sentence, a few lines on screen."""
# BM25's usual constants: term saturation (every term counts once here, so it only scales the length
# normalisation) and how much a long sentence is discounted for the words it holds by length alone.
_K1 = 1.2
_B = 0.75

_CLAUSE_MARK = re.compile(r"[,;:，；：、]")
_SPACE = re.compile(r"\s")


def pieces(text: str, limit: int = MAX_PIECE_CHARS, language: str | None = None) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``text``, none longer than ``limit`` characters, surrounding
    whitespace excluded: ``text[start:end]`` is the piece, stripped."""
    found: list[tuple[int, int]] = []
    for start, end in sentence_spans(text, language):
        found += _cut(text, start, end, limit)
    return found


def _cut(text: str, start: int, end: int, limit: int) -> Iterator[tuple[int, int]]:
    """``text[start:end]`` in pieces of at most ``limit`` characters: after the last clause mark in the second
    half of the limit, else at the last space there, else (a run of CJK characters, say) at the limit."""
    while end - start > limit:
        part = text[start : start + limit]
        half = limit // 2
        cut = max((m.end() for m in _CLAUSE_MARK.finditer(part, half)), default=0)
        cut = cut or max((m.start() for m in _SPACE.finditer(part, half)), default=0) or limit
        yield from _stripped(text, start, start + cut)
        start += cut
        while start < end and text[start].isspace():
            start += 1
    yield from _stripped(text, start, end)


def _stripped(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    body = text[start:end]
    if body.strip():
        yield start + len(body) - len(body.lstrip()), end - (len(body) - len(body.rstrip()))


@dataclass(frozen=True)
class LexicalIndex:
    """BM25 over a fixed list of documents (a source's sentences); each word counts once per document."""

    words: tuple[frozenset[str], ...]
    idf: dict[str, float]
    average_length: float

    @classmethod
    def of(cls, documents: Sequence[str]) -> LexicalIndex:
        words = tuple(frozenset(content_words(d)) for d in documents)
        counts = Counter(w for ws in words for w in ws)
        n = len(words)
        # Lucene's idf: never negative, so a word in most sentences still counts a little.
        idf = {w: math.log(1 + (n - df + 0.5) / (df + 0.5)) for w, df in counts.items()}
        average = sum(len(ws) for ws in words) / n if n else 0.0
        return cls(words, idf, average or 1.0)

    def score(self, query: set[str], document: int) -> float:
        words = self.words[document]
        norm = _K1 * (1 - _B + _B * len(words) / self.average_length)
        return sum((self.idf[w] * (_K1 + 1) / (1 + norm) for w in query & words), 0.0)

    def ranked(self, query: str, among: Iterable[int] | None = None) -> list[tuple[int, float]]:
        """(document, score) for the documents ``among`` (all by default), best first; ties in document order."""
        words = content_words(query)
        candidates = range(len(self.words)) if among is None else among
        return sorted(((i, self.score(words, i)) for i in candidates), key=lambda pair: (-pair[1], pair[0]))
