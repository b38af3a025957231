"""Does a content-free prior per question help coverage? ("Calibrate before use", Zhao et al. 2021)

    .venv/bin/python benchmarks/experiments/coverage_prior.py RESULTS.jsonl... [--model NAME]

For every coverage question in finished `bench quality` results files, the
judge's p(yes) when the summary is the content-free "N/A" (p0, one verdict per
distinct question), then coverage re-scored from the stored probabilities in
several prior-corrected ways and correlated with the coverage label, beside the
coverage as scored and summary length.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Callable

from localsumm.backends import open_judge
from localsumm.bench import metrics
from localsumm.runs.results import read_results
from localsumm.summarization import prompts

CONTENT_FREE = "N/A"


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


# Each: a coverage from the pairs (p, p0) of one summary's questions.
PREDICTORS: dict[str, Callable[[list[tuple[float, float]]], float]] = {
    "as scored: share with p >= 0.5": lambda qs: mean([float(p >= 0.5) for p, _ in qs]),
    "mean p": lambda qs: mean([p for p, _ in qs]),
    "mean p - p0": lambda qs: mean([p - p0 for p, p0 in qs]),
    "share with p > p0 + 0.1": lambda qs: mean([float(p > p0 + 0.1) for p, p0 in qs]),
    "share with p > 2 p0": lambda qs: mean([float(p > 2 * p0) for p, p0 in qs]),
    "mean logit(p) - logit(p0)": lambda qs: mean([logit(p) - logit(p0) for p, p0 in qs]),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--model", default=None)
    args = parser.parse_args()

    judge = open_judge(args.model)
    prior: dict[str, float] = {}
    for path in args.results:
        items = []
        for line in read_results(path):
            if line.result is None or line.label_coverage is None:  # not scored, or no coverage label
                continue
            pairs = []
            for verdict in line.result.analyze_step_result.coverage:
                q = verdict.question
                if q not in prior:
                    prior[q] = judge.yes_probability("coverage", prompts.coverage_messages(CONTENT_FREE, q))[0]
                pairs.append((verdict.probability, prior[q]))
            if pairs:
                items.append((line.doc, line.label_coverage, len(line.texts()[1].split()), pairs))
        labels, docs = [i[1] for i in items], [i[0] for i in items]
        p0s = [p0 for i in items for _, p0 in i[3]]
        print(f"{path.name}: {len(items)} items, mean p0 {mean(p0s):.3f}")
        columns = {name: [f(i[3]) for i in items] for name, f in PREDICTORS.items()}
        columns["baseline: summary length"] = [float(i[2]) for i in items]
        for name, values in columns.items():
            print(f"  {name:<32} Pearson pooled {metrics.pearson(values, labels):6.3f}, "
                  f"per document {metrics.per_document(metrics.pearson, values, labels, docs):6.3f}")


if __name__ == "__main__":
    main()
