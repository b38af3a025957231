"""`localsumm bench agree`: how two judges agree on the same items.

Each judge scores each item in full (score correlation, time per item). For
verdict agreement both judges must rule on the same things, so the second
judge also gives its verdicts on the first judge's claims and questions, and
Cohen's kappa compares those verdicts pairwise.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ..config.options import Options, make_options
from ..errors import InputError
from ..protocol import Judge
from ..runs.records import read_records
from ..summarization.inputs import resolve_source, resolve_summary
from ..summarization.scorer import create_summarization_scorer
from . import metrics


@dataclass(frozen=True)
class Agreement:
    judges: tuple[str, str]
    items: int
    claims: int
    questions: int
    kappa_claims: float
    kappa_questions: float
    score_pearson: float
    score_spearman: float
    seconds_per_item: tuple[float, float]
    mean_score: tuple[float, float]


def run_agree(
    data: Path,
    first: Judge,
    second: Judge,
    *,
    limit: int | None = None,
    options: Options | None = None,
    **settings: object,
) -> Agreement:
    """Both judges score the first ``limit`` records; the second also judges the first's claims and questions."""
    options = make_options(options, **settings)
    records = [r for r in read_records(data) if r.error is None][:limit]
    if not records:
        raise InputError(f"{data}: no usable records")
    scorers = [create_summarization_scorer(j, options=options) for j in (first, second)]
    scores: tuple[list[float], list[float]] = ([], [])
    seconds = [0.0, 0.0]
    claims_a: list[bool] = []
    claims_b: list[bool] = []
    questions_a: list[bool] = []
    questions_b: list[bool] = []
    for record in records:
        results = []
        for k, scorer in enumerate(scorers):
            start = time.perf_counter()
            results.append(scorer.run(input=record.input, output=record.output))
            seconds[k] += time.perf_counter() - start
            scores[k].append(results[-1].score)
        a = results[0]
        claims = [v.claim for v in a.preprocess_step_result.alignment]
        questions = [v.question for v in a.analyze_step_result.coverage]
        source, summary = resolve_source(record.input, record.output), resolve_summary(record.output)
        alignment_b, coverage_b = scorers[1].verdicts_on(source, summary, claims, questions)
        claims_a += [v.supported for v in a.preprocess_step_result.alignment]
        claims_b += [v.supported for v in alignment_b]
        questions_a += [v.answered for v in a.analyze_step_result.coverage]
        questions_b += [v.answered for v in coverage_b]
    n = len(records)
    return Agreement(
        judges=(first.info.name, second.info.name),
        items=n,
        claims=len(claims_a),
        questions=len(questions_a),
        kappa_claims=metrics.cohen_kappa(claims_a, claims_b),
        kappa_questions=metrics.cohen_kappa(questions_a, questions_b),
        score_pearson=metrics.pearson(*scores),
        score_spearman=metrics.spearman(*scores),
        seconds_per_item=(seconds[0] / n, seconds[1] / n),
        mean_score=(sum(scores[0]) / n, sum(scores[1]) / n),
    )


def markdown(a: Agreement) -> str:
    def f(v: float) -> str:
        return "n/a" if v != v else f"{v:.3f}"

    return (
        "\n".join(
            [
                f"| | {a.judges[0]} | {a.judges[1]} |",
                "|---|---:|---:|",
                f"| mean score | {a.mean_score[0]:.3f} | {a.mean_score[1]:.3f} |",
                f"| seconds per item | {a.seconds_per_item[0]:.1f} | {a.seconds_per_item[1]:.1f} |",
                "",
                f"{a.items} items; Cohen's kappa on {a.claims} claims {f(a.kappa_claims)}, on {a.questions} questions "
                f"{f(a.kappa_questions)}; score Pearson {f(a.score_pearson)}, Spearman {f(a.score_spearman)}",
            ]
        )
        + "\n"
    )
