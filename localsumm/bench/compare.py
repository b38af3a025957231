"""`localsumm bench compare`: two results files of the same items, e.g. written on two machines or engine builds.

How far apart the scores are, and where from: items are matched by id; claims'
verdicts by claim text and coverage verdicts by question text, so a changed
verdict is one the two runs gave the same question or claim; a question one run
asked and the other did not counts apart, as a changed question. The largest
change of a shared verdict's probability says how far the two runs' judges
drift; a verdict whose probability lies within that distance of its threshold
could land on either side.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..runs.results import read_results
from ..summarization.result import SummarizationResult


@dataclass(frozen=True)
class Comparison:
    items: int
    largest_score_difference: float
    largest_at: str | None
    scores_changed: int
    verdicts: int
    """Verdicts both runs gave (same claim, or same question, of the same item)."""
    verdicts_changed: int
    questions_asked: int
    """Questions (and key facts) asked by either run, per item, summed."""
    questions_changed: int
    """Of those, asked by one run only."""
    largest_probability_difference: float = 0.0
    """The largest change of a shared verdict's probability."""
    near_threshold: int = 0
    """Shared verdicts whose first-run probability lies within that change of its threshold."""

    def markdown(self, first: str, second: str) -> str:
        def share(k: int, n: int) -> str:
            return f"{k}/{n} ({k / n:.1%})" if n else "0/0"

        return (
            "\n".join(
                [
                    f"{first} against {second}: {self.items} items in both",
                    "",
                    "| measure | value |",
                    "|---|---:|",
                    f"| largest score difference | {self.largest_score_difference:.2f} ({self.largest_at}) |",
                    f"| items whose score changed | {share(self.scores_changed, self.items)} |",
                    f"| verdicts changed (same claim or question) | {share(self.verdicts_changed, self.verdicts)} |",
                    f"| largest change of a verdict's probability | {self.largest_probability_difference:.4f} |",
                    f"| verdicts that close to their threshold | {share(self.near_threshold, self.verdicts)} |",
                    f"| questions asked by one run only | {share(self.questions_changed, self.questions_asked)} |",
                ]
            )
            + "\n"
        )


Verdict = tuple[bool, float | None, float]
"""A verdict, its probability and its threshold."""


def _verdicts(result: SummarizationResult) -> tuple[dict[str, Verdict], dict[str, Verdict]]:
    thresholds = result.provenance.thresholds
    alignment, coverage = thresholds.get("alignment", 0.5), thresholds.get("coverage", 0.5)
    claims = {v.claim: (v.supported, v.probability, alignment) for v in result.preprocess_step_result.alignment}
    questions = {v.question: (v.answered, v.probability, coverage) for v in result.analyze_step_result.coverage}
    return claims, questions


def compare_results(first: Path, second: Path) -> Comparison:
    a = {line.id: line.result for line in read_results(first) if line.result is not None}
    b = {line.id: line.result for line in read_results(second) if line.result is not None}
    common = [i for i in a if i in b]
    if not common:
        raise InputError(f"{first} and {second} share no scored item (items are matched by id)")
    largest, at = -1.0, None
    scores_changed = verdicts = verdicts_changed = asked = questions_changed = 0
    drift, firsts = 0.0, []
    for item in common:
        x, y = a[item], b[item]
        assert x is not None and y is not None
        difference = abs(x.score - y.score)
        if difference > largest:
            largest, at = difference, item
        scores_changed += x.score != y.score
        (claims_x, questions_x), (claims_y, questions_y) = _verdicts(x), _verdicts(y)
        for mine, theirs in ((claims_x, claims_y), (questions_x, questions_y)):
            shared = mine.keys() & theirs.keys()
            verdicts += len(shared)
            verdicts_changed += sum(mine[k][0] != theirs[k][0] for k in shared)
            for k in shared:
                (_, p, threshold), (_, q, _) = mine[k], theirs[k]
                if p is not None and q is not None:
                    drift = max(drift, abs(p - q))
                    firsts.append(abs(p - threshold))
        asked += len(questions_x.keys() | questions_y.keys())
        questions_changed += len(questions_x.keys() ^ questions_y.keys())
    near = sum(distance <= drift for distance in firsts) if drift else 0
    return Comparison(
        len(common), largest, at, scores_changed, verdicts, verdicts_changed, asked, questions_changed, drift, near
    )
