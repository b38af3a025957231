"""How statement verdicts count, as pre-registered in benchmarks/preregistered/statement-counting-2026-12-07.md.

    python benchmarks/statement_counting.py REALSUMM_REFERENCE_RESULTS SUMMEVAL_RESULTS

Every rule is recomputed from the probabilities the results files store: no judge call. A lab script: its figures
go to RESULTS, and it to git history once read.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from localsumm.bench import metrics
from localsumm.bench.calibrate import calibrate, labelled_items, split_documents
from localsumm.protocol import Thresholds
from localsumm.runs.results import ResultLine, read_results
from localsumm.summarization.rules import votes

Rule = Callable[[list[float]], list[float]]


@dataclass(frozen=True)
class Scored:
    doc: str
    system: str | None
    label: float
    questions: list[float]
    """The questions' verdict probabilities (counted at 0.5 under every rule)."""
    statements: list[float]
    """The statements' (reference facts, key facts): what the rules count differently."""


def scored(lines: list[ResultLine]) -> list[Scored]:
    found = []
    for line in lines:
        result = line.result
        if result is None or line.label_coverage is None:
            continue
        p = [
            v.probability if v.probability is not None else float(v.answered)
            for v in result.analyze_step_result.coverage
        ]
        split = len(result.preprocess_step_result.questions)
        found.append(Scored(line.doc, line.system, line.label_coverage, p[:split], p[split:]))
    return found


def rules(threshold: float) -> dict[str, Rule]:
    return {
        "A count at 0.5": lambda ps: [float(p >= 0.5) for p in ps],
        f"B count at {threshold:.4f}": lambda ps: [float(p >= threshold) for p in ps],
        "C graded": lambda ps: votes([p >= 0.5 for p in ps], ps, "graded", 0.5),
        "D mean probability": lambda ps: list(ps),
    }


def coverage(item: Scored, rule: Rule) -> float:
    counted = [float(p >= 0.5) for p in item.questions] + rule(item.statements)
    return sum(counted) / len(counted) if counted else 0.0


def per_document(items: list[Scored], rule: Rule) -> Callable[[np.ndarray], float]:
    x = np.asarray([coverage(i, rule) for i in items])
    y = np.asarray([i.label for i in items])
    docs = np.asarray([i.doc for i in items])
    return lambda idx: metrics.per_document(metrics.pearson, x[idx], y[idx], docs[idx].tolist())


def pooled(items: list[Scored], rule: Rule) -> Callable[[np.ndarray], float]:
    x = np.asarray([coverage(i, rule) for i in items])
    y = np.asarray([i.label for i in items])
    return lambda idx: metrics.pearson(x[idx], y[idx])


def system_tau(items: list[Scored], rule: Rule) -> float:
    systems = sorted({i.system for i in items if i.system is not None})
    ours = [np.mean([coverage(i, rule) for i in items if i.system == s]) for s in systems]
    labels = [np.mean([i.label for i in items if i.system == s]) for s in systems]
    return metrics.kendall(ours, labels)


Figure = Callable[[list[Scored], Rule], Callable[[np.ndarray], float]]


def difference(items: list[Scored], figure: Figure, chosen: Rule, today: Rule) -> str:
    a, b = figure(items, today), figure(items, chosen)
    every = np.arange(len(items))
    low, high = metrics.bootstrap_ci(lambda idx: b(idx) - a(idx), len(items), groups=[i.doc for i in items])
    return f"{b(every):.3f} against {a(every):.3f}: {b(every) - a(every):+.3f} [{low:+.3f}, {high:+.3f}]"


def main(realsumm: Path, summeval: Path) -> None:
    lines = read_results(realsumm)
    items = scored(lines)
    fit_docs, report_docs = split_documents([i.doc for i in items])
    # calibrate fits on the same fit half (split_documents) and never reads the report half's labels.
    threshold = calibrate(labelled_items(lines), Thresholds()).fitted.coverage
    candidates = rules(threshold)
    fit = [i for i in items if i.doc in fit_docs]
    report = [i for i in items if i.doc in report_docs]
    print(f"fit half {len(fit_docs)} documents, {len(fit)} items; report half {len(report_docs)}, {len(report)}")
    every = np.arange(len(fit))
    fit_figures = {name: per_document(fit, rule)(every) for name, rule in candidates.items()}
    for name, value in fit_figures.items():
        print(f"fit half, per document: {name}: {value:.3f}")
    today = candidates["A count at 0.5"]
    best = max((n for n in candidates if not n.startswith("A")), key=lambda n: fit_figures[n])
    chosen_name = best if fit_figures[best] > fit_figures["A count at 0.5"] else "A count at 0.5"
    chosen = candidates[chosen_name]
    print(f"chosen on the fit half: {chosen_name}")
    print(f"report half, per document: {difference(report, per_document, chosen, today)}")
    print(f"report half, pooled: {difference(report, pooled, chosen, today)}")
    print(f"report half, systems tau: {system_tau(report, chosen):.3f} against {system_tau(report, today):.3f}")
    for name, rule in candidates.items():  # every candidate on the report half, for the record
        print(f"report half, per document, {name}: {per_document(report, rule)(np.arange(len(report))):.3f}")
    check = scored(read_results(summeval))
    print(
        f"SummEval dev ({len(check)} items), relevance, per document: {difference(check, per_document, chosen, today)}"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
