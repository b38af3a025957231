"""The literal check turned on coverage: a question naming a number or name the summary never mentions.

    .venv/bin/python benchmarks/experiments/coverage_literals.py RESULTS.jsonl [RESULTS.jsonl ...]

Reads results files of ``localsumm bench quality`` (or ``localsumm eval`` on a
labelled file; no model is loaded). Coverage asks each question of the summary
alone, and a summary cannot answer "yes" to "Did X open a brewery in
Burlington?" if it never writes "Burlington". So, as a candidate rule: a
question counts as answered only if the judge says so *and* every number and
capitalised name in it (``localsumm.summarization.literals``) occurs in the summary. Reported
beside coverage as scored, against the coverage label: Pearson and Spearman,
pooled and per document, and the paired bootstrap of the pooled Pearson change
(documents resampled).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from localsumm.bench import metrics
from localsumm.runs.results import read_results
from localsumm.summarization.literals import unmatched_literals


def report(path: Path) -> None:
    docs, labels, plain, checked = [], [], [], []
    asked = overruled = 0
    for line in read_results(path):
        if line.result is None:  # not scored
            continue
        verdicts = line.result.analyze_step_result.coverage
        if line.label_coverage is None or not verdicts:
            continue
        summary = line.texts()[1]
        kept = [v.answered and not unmatched_literals(v.question, summary) for v in verdicts]
        asked += len(verdicts)
        overruled += sum(v.answered and not k for v, k in zip(verdicts, kept))
        docs.append(line.doc)
        labels.append(float(line.label_coverage))
        plain.append(sum(v.answered for v in verdicts) / len(verdicts))
        checked.append(sum(kept) / len(verdicts))
    print(f"\n{path.name}: {len(labels)} items, {len(set(docs))} documents, {asked} questions; "
          f"{overruled} answered by the judge but naming what the summary does not")
    print("| coverage | Pearson pooled | Spearman pooled | Pearson per document | Spearman per document |\n|---|---:|---:|---:|---:|")
    for name, x in (("as scored", plain), ("with the question-literal rule", checked)):
        print(f"| {name} | {metrics.pearson(x, labels):.3f} | {metrics.spearman(x, labels):.3f} | "
              f"{metrics.per_document(metrics.pearson, x, labels, docs):.3f} | {metrics.per_document(metrics.spearman, x, labels, docs):.3f} |")
    def change(idx: np.ndarray) -> float:
        y = [labels[i] for i in idx]
        return metrics.pearson([checked[i] for i in idx], y) - metrics.pearson([plain[i] for i in idx], y)

    low, high = metrics.bootstrap_ci(change, len(labels), groups=docs, resamples=2000)
    point = metrics.pearson(checked, labels) - metrics.pearson(plain, labels)
    print(f"- change of Pearson pooled: {point:+.3f} [{low:+.3f}, {high:+.3f}] (paired, documents resampled, 2,000 draws)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    for path in parser.parse_args().results:
        report(path)


if __name__ == "__main__":
    main()
