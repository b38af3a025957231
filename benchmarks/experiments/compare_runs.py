"""Two `bench quality` results files of the same dataset, compared on the items both scored.

    .venv/bin/python benchmarks/experiments/compare_runs.py OLD.jsonl NEW.jsonl [--limit N]

For coverage against the coverage label: Pearson pooled and per document for
each run, and the change in each with a 95% interval from a paired bootstrap
(whole documents resampled, both runs on the same draw); then the same on each
half of the documents (``common.document_halves``), so that a change found on
one dev set is seen to hold on both its halves. Also the
questions per source and what generating them cost in each run (sources whose
questions step was not answered from a cache), and with key facts, the facts
and highlight sentences per source. ``--limit N`` keeps the first N
items of the old file, e.g. to match a benchmark run with ``--limit``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from statistics import mean

import numpy as np

from localsumm.bench import metrics
from localsumm.runs.results import ResultLine, read_results

from common import document_halves


def load(path: Path) -> dict[str | None, ResultLine]:
    """The scored lines of a results file, by item id."""
    return {line.id: line for line in read_results(path) if line.scored}


def question_costs(run: dict[str | None, ResultLine]) -> str:
    results = [(line.doc, line.result) for line in run.values() if line.result is not None]
    counts = {doc: len(result.preprocess_step_result.questions) for doc, result in results}
    fresh = [
        step for _, result in results for step in result.provenance.steps
        if step.step == "questions" and step.cached_calls < step.calls
    ]
    text = f"questions per source {min(counts.values())}-{max(counts.values())} (mean {mean(counts.values()):.1f})"
    if fresh:
        text += (f"; generating them, per source ({len(fresh)}): {mean(s.calls for s in fresh):.1f} calls, "
                 f"{mean(s.prompt_tokens for s in fresh):.0f} prompt tokens evaluated, "
                 f"{mean(s.completion_tokens for s in fresh):.0f} generated, {mean(s.seconds for s in fresh):.1f} s")
    return text


def key_fact_counts(run: dict[str | None, ResultLine]) -> str:
    """Per source: the key facts coverage asked (after the question check) and the highlight sentences
    they were split from; empty for a run without key facts."""
    by_doc = {line.doc: line.result.preprocess_step_result for line in run.values() if line.result is not None}
    if not any(pre.highlights for pre in by_doc.values()):
        return ""
    facts = [len(pre.key_facts) for pre in by_doc.values()]
    single = sum(len(pre.highlights) == 1 for pre in by_doc.values())
    return (f"; key facts per source {min(facts)}-{max(facts)} (mean {mean(facts):.1f}), "
            f"one highlight sentence on {single} of {len(by_doc)} sources")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()

    old, new = load(args.old), load(args.new)
    ids = [i for i in old if i in new][: args.limit]
    docs = [old[i].doc for i in ids]
    labels = np.array([old[i].label_coverage for i in ids], float)
    coverage = {name: np.array([run[i].coverage_score for i in ids], float) for name, run in (("old", old), ("new", new))}

    d = np.asarray(docs)

    def pooled(run: str, idx: np.ndarray) -> float:
        return metrics.pearson(coverage[run][idx], labels[idx])

    def per_doc(run: str, idx: np.ndarray) -> float:
        return metrics.per_document(metrics.pearson, coverage[run][idx].tolist(), labels[idx].tolist(), d[idx].tolist())

    def report(idx: np.ndarray, indent: str) -> None:
        for name, measure in (("pooled", pooled), ("per document", per_doc)):
            change = lambda i: measure("new", idx[i]) - measure("old", idx[i])  # noqa: E731
            low, high = metrics.bootstrap_ci(change, len(idx), groups=d[idx].tolist(), resamples=2000)
            print(f"{indent}Pearson {name}: old {measure('old', idx):.3f}, new {measure('new', idx):.3f}, "
                  f"change {change(np.arange(len(idx))):+.3f} [{low:+.3f}, {high:+.3f}]")

    print(f"{len(ids)} items in both, {len(set(docs))} documents (intervals: paired bootstrap, documents resampled, 2,000 draws)")
    report(np.arange(len(ids)), "  ")
    halves = document_halves(docs)
    for half in (0, 1):
        idx = np.array([k for k, doc in enumerate(docs) if halves[doc] == half])
        print(f"  half {half + 1} ({len(idx)} items, {len(set(d[idx]))} documents):")
        report(idx, "    ")
    for name, run in (("old", old), ("new", new)):
        both = {i: run[i] for i in ids}
        print(f"  {name}: {question_costs(both)}{key_fact_counts(both)}")


if __name__ == "__main__":
    main()
