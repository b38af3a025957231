"""Score (the reference's third step): the scoring rules of SPEC §3, as pure functions of the judge's verdicts.

Nothing here calls a model: given the claims' verdicts, the questions and the
coverage verdicts, the score is arithmetic, and this module is that arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..config.options import ScoringRule


@dataclass(frozen=True)
class Scores:
    alignment: float
    """supported claims / claims (each claim's vote); 0 when there are no claims."""
    coverage: float
    """answered questions / questions asked (each question's vote); 0 when no question was asked."""
    score: float
    """round(min(alignment, coverage) × scale, 2), or 0 when not scorable."""
    scorable: bool
    """False when the summary gave no claim or the source gave no question."""
    questions_asked: int


def round_half_up(value: float, digits: int = 2) -> float:
    """Round like the reference's JavaScript ``Math.round(x * 100) / 100``.

    Python's ``round`` rounds halves to even (0.125 -> 0.12); the reference
    gives 0.13, and results must compare field for field.
    """
    factor = 10**digits
    return float(math.floor(value * factor + 0.5) / factor)


def compute_scores(
    supported: Sequence[float],
    questions: Sequence[str],
    answered: Sequence[float],
    *,
    max_questions: int | None = 10,
    scale: float = 1,
    key_facts: Sequence[str] = (),
) -> Scores:
    """The score from the verdicts.

    ``supported`` holds one vote per claim. ``answered`` holds the coverage
    votes, matched to ``questions`` by position: a missing vote counts as
    not answered and extra votes are ignored, so the denominator is always
    the number of questions asked. Key facts are asked after the questions, and count as they do:
    one verdict, one vote. A vote is a verdict (True counts 1: the reference's rule) or, with
    ``Options.scoring="graded"``, a number between 0 and 1 (``votes``).
    """
    asked = len(questions[:max_questions]) + len(key_facts)
    alignment = sum(float(s) for s in supported) / len(supported) if supported else 0.0
    coverage = sum(float(a) for a in answered[:asked]) / asked if asked else 0.0
    scorable = bool(supported) and asked > 0
    score = round_half_up(min(alignment, coverage) * scale) if scorable else 0.0
    return Scores(alignment, coverage, score, scorable, asked)


GRADED_WIDTH = 0.5
"""With ``scoring="graded"``: the band of probabilities, centred on the threshold, where a vote is graded.
Chosen on half the dev documents among 0.1-1 (1 would be the mean probability), held out level with counting
and steadier across engine builds (benchmarks/RESULTS.md)."""


def votes(
    verdicts: Sequence[bool], probabilities: Sequence[float | None], scoring: ScoringRule, threshold: float
) -> list[float]:
    """What each verdict counts for: 1 or 0 ("count"); or ("graded") 1 at ``threshold`` + GRADED_WIDTH / 2 and
    above, 0 at ``threshold`` - GRADED_WIDTH / 2 and below, in proportion between, so a probability that moves by
    d moves the vote by at most d / GRADED_WIDTH. A verdict without a probability counts as its verdict."""
    if scoring != "graded":  # "facts" counts verdicts too, but for coverage's statements (coverage_votes)
        return [float(v) for v in verdicts]
    return [
        float(v) if p is None else min(1.0, max(0.0, (p - threshold) / GRADED_WIDTH + 0.5))
        for v, p in zip(verdicts, probabilities, strict=True)
    ]


def coverage_votes(
    verdicts: Sequence[bool],
    probabilities: Sequence[float | None],
    scoring: ScoringRule,
    threshold: float,
    questions: int,
) -> list[float]:
    """The coverage verdicts' votes: the first ``questions`` are questions, the rest facts asked as statements. With
    "facts" a question counts as under "count" and a statement by its probability (as its verdict without one);
    otherwise every verdict as ``votes`` has it."""
    if scoring != "facts":
        return votes(verdicts, probabilities, scoring, threshold)
    counted = votes(verdicts[:questions], probabilities[:questions], "count", threshold)
    return counted + [float(v) if p is None else p for v, p in zip(verdicts[questions:], probabilities[questions:])]
