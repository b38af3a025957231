"""Score (the reference's third step): the scoring rules of SPEC §3, as pure functions of the judge's verdicts.

Nothing here calls a model: given the claims' verdicts, the questions and the
coverage verdicts, the score is arithmetic, and this module is that arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Scores:
    alignment: float
    """supported claims / claims; 0 when there are no claims."""
    coverage: float
    """answered questions / questions asked; 0 when no question was asked."""
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
    return math.floor(value * factor + 0.5) / factor


def compute_scores(
    supported: Sequence[bool],
    questions: Sequence[str],
    answered: Sequence[bool],
    *,
    max_questions: int | None = 10,
    scale: float = 1,
    key_facts: Sequence[str] = (),
) -> Scores:
    """The score from the verdicts.

    ``supported`` holds one verdict per claim. ``answered`` holds the coverage
    verdicts, matched to ``questions`` by position: a missing verdict counts as
    not answered and extra verdicts are ignored, so the denominator is always
    the number of questions asked. Key facts are asked after the questions, and count as they do:
    one verdict, one vote.
    """
    asked = len(questions[:max_questions]) + len(key_facts)
    alignment = sum(1 for s in supported if s) / len(supported) if supported else 0.0
    coverage = sum(1 for a in answered[:asked] if a) / asked if asked else 0.0
    scorable = bool(supported) and asked > 0
    score = round_half_up(min(alignment, coverage) * scale) if scorable else 0.0
    return Scores(alignment, coverage, score, scorable, asked)
