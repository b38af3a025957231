"""Claim granularity for alignment: the summary's own sentences against the judge's extracted claims.

    LOCALSUMM_CACHE=... .venv/bin/python benchmarks/experiments/alignment_granularity.py RESULTS.jsonl... [--model NAME] [--threads N]

For each scored line of `bench quality` results files, the judge is asked the
scorer's claim-verdict question about every *sentence* of the summary, with the
same prompt and the same judge-call cache as the scorer (so a later scorer run
that asks the same questions finds them answered). Then, against the human
alignment labels, it compares three predictors:

- claims: the scorer's verdicts on the claims it extracted (as scored);
- sentences: verdicts on the summary's sentences instead;
- both: claims and sentences together (a sentence an extracted claim smoothed
  over can still fail);
- gated: each claim, counted supported only when its summary sentence (the
  one sharing most content words with it) is supported too.

For each: the fraction supported at the judge's threshold (the alignment
score's rule) and the weakest probability. Binary labels get ROC-AUC and
balanced accuracy, graded ones per-document Spearman; then the change from
claims to sentences with a paired bootstrap over documents (2,000 draws; a
document drawn twice counts twice). Sentence probabilities are appended to
``benchmarks/results/`` as they come, so a run resumes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
from localsumm import AlignmentVerdict
from localsumm.bench import metrics
from localsumm.files import read_jsonl
from localsumm.runs.results import read_results
from localsumm.summarization import prompts
from localsumm.text import closest_sentence, sentences

from common import RESULTS


def fraction(probabilities: Sequence[float], threshold: float) -> float:
    return sum(p >= threshold for p in probabilities) / len(probabilities) if probabilities else 0.0


def figures(rows: list[dict[str, Any]], threshold: float) -> list[str]:
    labels = [r["label"] for r in rows]
    docs = [r["doc"] for r in rows]
    binary = set(labels) <= {0.0, 1.0}
    out = []
    for name in ("claims", "sentences", "both", "gated"):
        ps = [r[name] for r in rows]
        weakest = [min(p) if p else 0.0 for p in ps]
        share = [fraction(p, threshold) for p in ps]
        if binary:
            auc = metrics.roc_auc(weakest, labels)
            ba = metrics.balanced_accuracy([w >= threshold for w in weakest], labels)
            lo, hi = metrics.bootstrap_ci(lambda i: metrics.roc_auc([weakest[j] for j in i], [labels[j] for j in i]), len(rows))
            out.append(f"| {name} | {auc:.3f} [{lo:.3f}, {hi:.3f}] | {ba:.3f} | "
                       f"{metrics.per_document(metrics.spearman, share, labels, docs):.3f} |")
        else:
            out.append(f"| {name} | {metrics.per_document(metrics.spearman, share, labels, docs):.3f} | "
                       f"{metrics.per_document(metrics.spearman, weakest, labels, docs):.3f} | "
                       f"{metrics.spearman(share, labels):.3f} |")
    return out


def gated(verdicts: list[AlignmentVerdict], said: list[str], sentence_ps: list[float]) -> list[float]:
    """Each claim's probability, capped by that of the summary sentence it came from."""
    if not said:
        return [v.probability for v in verdicts]
    owner = [said.index(found[0]) if (found := closest_sentence(v.claim, said)) else 0 for v in verdicts]
    return [min(v.probability, sentence_ps[i]) for v, i in zip(verdicts, owner)]


def paired_change(rows: list[dict[str, Any]], threshold: float) -> list[str]:
    """sentences minus claims, per-document Spearman (and ROC-AUC for binary labels), 95% over resampled documents."""
    labels = [r["label"] for r in rows]
    by_doc: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_doc.setdefault(r["doc"], []).append(i)
    units = list(by_doc.values())

    def per_doc(name: str) -> Callable[[list[int], list[str]], float]:
        share = [fraction(r[name], threshold) for r in rows]
        return lambda idx, docs: metrics.per_document(metrics.spearman, [share[i] for i in idx], [labels[i] for i in idx], docs)

    def auc(name: str) -> Callable[[list[int], list[str]], float]:
        weakest = [min(r[name]) if r[name] else 0.0 for r in rows]
        return lambda idx, docs: metrics.roc_auc([weakest[i] for i in idx], [labels[i] for i in idx])

    measures = {"Spearman per document, fraction supported": per_doc}
    if set(labels) <= {0.0, 1.0}:
        measures["ROC-AUC, weakest probability"] = auc
    rng = np.random.default_rng(0)
    draws = [rng.integers(0, len(units), len(units)) for _ in range(2000)]
    out = []
    for title, measure in measures.items():
        new, old = measure("sentences"), measure("claims")
        everything = list(range(len(rows)))
        point = new(everything, [r["doc"] for r in rows]) - old(everything, [r["doc"] for r in rows])
        changes = []
        for draw in draws:
            idx = [i for u in draw for i in units[u]]
            docs = [str(k) for k, u in enumerate(draw) for _ in units[u]]  # a document drawn twice counts twice
            change = new(idx, docs) - old(idx, docs)
            if not np.isnan(change):
                changes.append(change)
        low, high = np.percentile(changes, [2.5, 97.5])
        out.append(f"sentences - claims, {title}: {point:+.3f} [{low:+.3f}, {high:+.3f}] (paired, documents resampled)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--model", default=None)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()

    from localsumm import create_summarization_scorer
    from localsumm.summarization.steplog import StepLog

    scorer = create_summarization_scorer(args.model, n_threads=args.threads, cache=True)
    judge, threshold = scorer.judge, scorer.judge.info.thresholds.alignment
    for path in args.results:
        out = RESULTS / f"sentences.{path.name}"
        out.parent.mkdir(parents=True, exist_ok=True)
        done = {row["id"]: row for row in read_jsonl(out)} if out.exists() else {}
        rows = []
        with out.open("a", encoding="utf-8") as sink:
            for line in read_results(path):
                if line.result is None or line.label_alignment is None:  # not scored, or no alignment label
                    continue
                source, summary = line.texts()
                said = sentences(summary)
                verdicts = line.result.preprocess_step_result.alignment
                row = done.get(line.id)
                if row is None:
                    sentence_ps = [scorer.judge_claim(source, s, StepLog(None)) for s in said]
                    row = {"id": line.id, "doc": line.doc, "label": line.label_alignment, "sentences": sentence_ps,
                           "claims": [v.probability for v in verdicts]}
                    sink.write(json.dumps(row) + "\n")
                    sink.flush()
                row["both"] = row["claims"] + row["sentences"]
                row["gated"] = gated(verdicts, said, row["sentences"])
                rows.append(row)
        print(f"\n{path.name}: {len(rows)} items, judge {judge.info.name}, prompts {prompts.step_version('alignment')}, "
              f"threshold {threshold:g}")
        if set(r["label"] for r in rows) <= {0.0, 1.0}:
            print("| verdicts on | ROC-AUC, weakest probability | balanced accuracy, all supported | "
                  "Spearman per document, fraction supported |\n|---|---:|---:|---:|")
        else:
            print("| verdicts on | Spearman per document, fraction supported | Spearman per document, weakest "
                  "probability | Spearman pooled, fraction supported |\n|---|---:|---:|---:|")
        print("\n".join(figures(rows, threshold)))
        print("\n".join(paired_change(rows, threshold)))


if __name__ == "__main__":
    main()
