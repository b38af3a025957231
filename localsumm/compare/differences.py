"""Where two systems differ: per shared source, the verdicts one system's summaries got and the other's did not.

Pure functions of results (no file is read). Questions are paired: every summary of a source was asked the same
questions (``tables`` refuses anything else), so a question differs when the share of summaries answering it
differs. Claims are each summary's own, so only unsupported ones are listed: a system's unsupported claims that
the other system's summaries do not also state unsupported (the same failure on both sides is no difference).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..summarization.result import SummarizationResult
from .stats import TIE
from .tables import Tables

MOST = 3
"""Sources shown per pair of systems."""


@dataclass(frozen=True)
class QuestionDifference:
    question: str
    first: tuple[int, int]
    """(summaries answering it, summaries asked it) among the first system's summaries of the source."""
    second: tuple[int, int]


@dataclass(frozen=True)
class SourceDifference:
    """Two systems on one source: their mean scores and the verdicts that differ."""

    source: str
    first: float
    """The first system's mean score over its summaries of the source."""
    second: float
    questions: list[QuestionDifference]
    first_unsupported: list[str]
    """The first system's unsupported claims that the second's summaries do not also state unsupported."""
    second_unsupported: list[str]

    @property
    def difference(self) -> float:
        return self.first - self.second

    @property
    def verdicts(self) -> int:
        return len(self.questions) + len(self.first_unsupported) + len(self.second_unsupported)

    def sentences(self, first: str, second: str) -> list[str]:
        """Each differing verdict in words, naming the systems ``first`` and ``second``."""
        said = [_question(q, first, second) for q in self.questions]
        said += [f"{first}'s claim {_quoted(c)} is unsupported" for c in self.first_unsupported]
        return said + [f"{second}'s claim {_quoted(c)} is unsupported" for c in self.second_unsupported]


def _quoted(text: str, most: int = 200) -> str:
    return f"'{text if len(text) <= most else text[: most - 1].rstrip() + '…'}'"


def _question(q: QuestionDifference, first: str, second: str) -> str:
    (a, n), (b, m) = q.first, q.second
    if a == n and b == 0:
        return f"{second} does not answer {_quoted(q.question)}, which {first} answers"
    if b == m and a == 0:
        return f"{first} does not answer {_quoted(q.question)}, which {second} answers"
    return f"{first} answers {_quoted(q.question)} in {a} of {n} summaries, {second} in {b} of {m}"


def _answered(results: Sequence[SummarizationResult]) -> dict[str, tuple[int, int]]:
    """question -> (summaries answering it, summaries asked it), in the order first asked."""
    counts: dict[str, tuple[int, int]] = {}
    for result in results:
        for verdict in result.analyze_step_result.coverage:
            yes, asked = counts.get(verdict.question, (0, 0))
            counts[verdict.question] = (yes + verdict.answered, asked + 1)
    return counts


def _unsupported(results: Sequence[SummarizationResult]) -> list[str]:
    claims = (v.claim for r in results for v in r.preprocess_step_result.alignment if not v.supported)
    return list(dict.fromkeys(claims))


def source_difference(
    source: str, first: Sequence[SummarizationResult], second: Sequence[SummarizationResult]
) -> SourceDifference:
    """The verdicts that differ between two systems' summaries of one source (each side at least one summary)."""
    if not first or not second:
        raise ValueError(f"source {source}: each system needs at least one result")
    mine, theirs = _answered(first), _answered(second)
    questions = [
        QuestionDifference(q, mine[q], theirs[q])
        for q in mine
        if q in theirs and mine[q][0] * theirs[q][1] != theirs[q][0] * mine[q][1]  # shares differ (cross-multiplied)
    ]
    a, b = _unsupported(first), _unsupported(second)
    return SourceDifference(
        source,
        sum(r.score for r in first) / len(first),
        sum(r.score for r in second) / len(second),
        questions,
        [c for c in a if c not in b],
        [c for c in b if c not in a],
    )


def where_they_differ(
    first: Mapping[str, Sequence[SummarizationResult]],
    second: Mapping[str, Sequence[SummarizationResult]],
    most: int = MOST,
) -> list[SourceDifference]:
    """The ``most`` sources (keys both mappings have) where two systems differ most: the largest score difference
    first, then the most differing verdicts, then the order of ``first``. Sources where nothing differs are left
    out, so fewer may come back."""
    found = [source_difference(s, first[s], second[s]) for s in first if s in second]
    differing = [d for d in found if abs(d.difference) > TIE or d.verdicts]
    return sorted(differing, key=lambda d: (-round(abs(d.difference), 9), -d.verdicts))[:most]


def pair_differences(tables: Tables, first: str, second: str, most: int = MOST) -> list[SourceDifference]:
    """:func:`where_they_differ` for two systems of ``tables``, over their shared sources, each named by its id."""
    # Keyed by sha256 until the end: two files may give different sources the same id.
    mine = {s: tables.results[(first, s)] for s in tables.sources}
    theirs = {s: tables.results[(second, s)] for s in tables.sources}
    found = where_they_differ(mine, theirs, most)
    return [replace(d, source=tables.source_names.get(d.source, d.source)) for d in found]
