"""Evidence: where in the source each verdict stands, and which of the source's sentences the summary left out.

Pointers are found by shared words (``text.rank``: BM25 over the source's sentences), without the judge, so
they cost nothing measurable and never change a verdict. The judge is asked about them only with
``verification`` "evidence" or "both" (``claims.py``). Offsets are into the source as given, whole, whether
it was judged whole or in windows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..text import LexicalIndex, content_words, pieces
from .result import AlignmentVerdict, CoverageVerdict, Evidence, SourceSentence

EVIDENCE_CANDIDATES = 3
"""How many of a claim's best-matching sentences the judge is asked about, each alone (MiniCheck's top chunks)."""
# A second sentence joins a pointer when it holds this many of the words the first lacks: one shared word
# ("company") is chance, two are a fact.
_JOINED_WORDS = 2


@dataclass(frozen=True)
class SourceSentences:
    """A source's sentences (bounded pieces of long ones) and their lexical index."""

    source: str
    spans: tuple[tuple[int, int], ...]
    index: LexicalIndex

    @classmethod
    def of(cls, source: str) -> SourceSentences:
        spans = tuple(pieces(source))
        return cls(source, spans, LexicalIndex.of([source[a:b] for a, b in spans]))

    def sentence(self, i: int) -> SourceSentence:
        start, end = self.spans[i]
        return SourceSentence(index=i, start=start, end=end, text=self.source[start:end])

    def evidence(self, i: int, score: float, probability: float | None = None) -> Evidence:
        ranked_by = "lexical" if probability is None else "judge"
        return Evidence(
            **self.sentence(i).model_dump(), lexical_score=round(score, 4), probability=probability, ranked_by=ranked_by
        )

    def pointer(self, text: str, start: int = 0, end: int | None = None) -> list[Evidence]:
        """The sentence within ``source[start:end]`` that shares most with ``text`` (none if it shares no word),
        then, for a claim that joins two sentences, the one holding most of the words the first lacks (at least
        ``_JOINED_WORDS``): a summary sentence often fuses two of the source's."""
        end = len(self.source) if end is None else end
        inside = [i for i, (a, b) in enumerate(self.spans) if a >= start and b <= end]
        ranked = self.index.ranked(text, inside or None)
        if not ranked or ranked[0][1] <= 0:
            return []
        missing = content_words(text) - self.index.words[ranked[0][0]]
        rest = max(ranked[1:], key=lambda pair: len(missing & self.index.words[pair[0]]), default=None)
        joined = rest is not None and len(missing & self.index.words[rest[0]]) >= _JOINED_WORDS
        return [self.evidence(*pair) for pair in ranked[:1] + ([rest] if joined and rest else [])]

    def candidates(self, text: str, k: int = EVIDENCE_CANDIDATES) -> list[tuple[int, float]]:
        """The ``k`` sentences that share most with ``text`` (ties, and sentences that share nothing, in source
        order), as (sentence, score): the premises a claim is judged against, each alone."""
        return self.index.ranked(text)[:k]


@lru_cache(maxsize=64)
def source_sentences(source: str) -> SourceSentences:
    """One source's sentences, built once per source: its claims, its questions and every later summary of it
    share them."""
    return SourceSentences.of(source)


def point_questions(sentences: SourceSentences, coverage: list[CoverageVerdict]) -> list[CoverageVerdict]:
    """Each coverage verdict with the source sentence that answers its question (or states its key fact)."""
    return [v.model_copy(update={"evidence": sentences.pointer(v.question)}) for v in coverage]


def left_out(
    sentences: SourceSentences, alignment: list[AlignmentVerdict], coverage: list[CoverageVerdict]
) -> list[SourceSentence]:
    """The source's sentences that no answered question or key fact and no supported claim points at (judged
    evidence: the most supportive sentence only; the others were candidates)."""
    kept = [v.evidence for v in alignment if v.supported] + [v.evidence for v in coverage if v.answered]
    touched = {e.index for evidence in kept for e in evidence if e is evidence[0] or e.ranked_by == "lexical"}
    return [sentences.sentence(i) for i in range(len(sentences.spans)) if i not in touched]
