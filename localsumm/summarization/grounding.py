"""Evidence: where in the source each verdict stands, and which of the source's sentences the summary left out.

Pointers are found by shared words (``text.rank``: BM25 over the source's sentences), without the judge, so
they cost nothing measurable and never change a verdict. The judge is asked about them only with
``verification`` "evidence" or "both" (``claims.py``). Offsets are into the source as given, whole, whether
it was judged whole or in windows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..text import LexicalIndex, pieces
from .result import AlignmentVerdict, CoverageVerdict, Evidence, SourceSentence

EVIDENCE_CANDIDATES = 3
"""How many of a claim's best-matching sentences the judge is asked about, each alone (MiniCheck's top chunks)."""


@dataclass(frozen=True)
class SourceSentences:
    """A source's sentences (bounded pieces of long ones) and their lexical index."""

    source: str
    spans: tuple[tuple[int, int], ...]
    index: LexicalIndex

    def sentence(self, i: int) -> SourceSentence:
        start, end = self.spans[i]
        return SourceSentence(index=i, start=start, end=end, text=self.source[start:end])

    def evidence(self, i: int, score: float, probability: float | None = None) -> Evidence:
        ranked_by = "lexical" if probability is None else "judge"
        return Evidence(
            **self.sentence(i).model_dump(), lexical_score=round(score, 4), probability=probability, ranked_by=ranked_by
        )

    def pointer(self, text: str, start: int = 0, end: int | None = None) -> list[Evidence]:
        """The sentence within ``source[start:end]`` that shares most with ``text``; none if it shares no word."""
        end = len(self.source) if end is None else end
        inside = [i for i, (a, b) in enumerate(self.spans) if a >= start and b <= end]
        ranked = self.index.ranked(text, inside or None)
        return [self.evidence(*ranked[0])] if ranked and ranked[0][1] > 0 else []

    def candidates(self, text: str, k: int = EVIDENCE_CANDIDATES) -> list[tuple[int, float]]:
        """The ``k`` sentences that share most with ``text`` (ties, and sentences that share nothing, in source
        order), as (sentence, score): the premises a claim is judged against, each alone."""
        return self.index.ranked(text)[:k]


@lru_cache(maxsize=64)
def source_sentences(source: str) -> SourceSentences:
    """One source's sentences, built once per source: its claims, its questions and every later summary of it
    share them."""
    spans = tuple(pieces(source))
    return SourceSentences(source, spans, LexicalIndex.of([source[a:b] for a, b in spans]))


def point_questions(sentences: SourceSentences, coverage: list[CoverageVerdict]) -> list[CoverageVerdict]:
    """Each coverage verdict with the source sentence that answers its question (or states its key fact)."""
    return [v.model_copy(update={"evidence": sentences.pointer(v.question)}) for v in coverage]


def left_out(
    sentences: SourceSentences, alignment: list[AlignmentVerdict], coverage: list[CoverageVerdict]
) -> list[SourceSentence]:
    """The source's sentences that no answered question or key fact and no supported claim points at first."""
    kept = [v.evidence for v in alignment if v.supported] + [v.evidence for v in coverage if v.answered]
    touched = {evidence[0].index for evidence in kept if evidence}
    return [sentences.sentence(i) for i in range(len(sentences.spans)) if i not in touched]
