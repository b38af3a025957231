"""Experiment (issue 34, 2026-12-06), kept in git history only: one rule against the other on the same verdicts.

    localsumm bench quality --data benchmarks/data/summeval.dev.jsonl --out bq
    localsumm bench quality --data benchmarks/data/summeval.dev.jsonl --scoring probability --out bq
    python counted_or_averaged.py bq/summeval.qwen2.5-coder-1.5b.jsonl bq/summeval.qwen2.5-coder-1.5b.scoring-probability.jsonl spearman

Per-document correlation of each rule with the labels on each half of the documents
(bench.calibrate.split_documents) and on all, and averaged minus counted with a document-bootstrap interval.
"""
import sys, numpy as np
from pathlib import Path
from localsumm.bench import metrics
from localsumm.bench.quality import items_from_results
from localsumm.bench.calibrate import split_documents
from localsumm.runs.results import read_results
count, prob = (items_from_results(read_results(Path(p))) for p in sys.argv[1:3])
measure = getattr(metrics, sys.argv[3] if len(sys.argv) > 3 else "spearman")
assert [i.doc for i in count] == [i.doc for i in prob]
docs = np.array([i.doc for i in count]); A, B = split_documents(docs.tolist())
pairs = []
if count[0].label_alignment is not None: pairs.append(("alignment", lambda i: i.label_alignment))
if count[0].label_coverage is not None: pairs.append(("coverage", lambda i: i.label_coverage))
if count[0].label_alignment is not None and count[0].label_coverage is not None:
    pairs.append(("score", lambda i: (i.label_alignment + i.label_coverage) / 2))
def pd(x, y, idx): return metrics.per_document(measure, x[idx], y[idx], docs[idx].tolist())
for field, lab in pairs:
    y = np.array([lab(i) for i in count], float)
    xc = np.array([getattr(i, field) for i in count]); xp = np.array([getattr(i, field) for i in prob])
    xl = np.array([i.length for i in count])
    for name, half in (("fit A", A), ("held-out B", B), ("all", A | B)):
        idx = np.array([k for k, d in enumerate(docs) if d in half])
        f = lambda j: pd(xp, y, idx[j]) - pd(xc, y, idx[j])
        lo, hi = metrics.bootstrap_ci(f, len(idx), groups=docs[idx].tolist())
        print(f"{field:9s} {name:10s} count {pd(xc,y,idx):.3f}  probability {pd(xp,y,idx):.3f}  length {pd(xl,y,idx):.3f}  "
              f"prob-count {f(np.arange(len(idx))):+.3f} [{lo:+.3f}, {hi:+.3f}]  docs {len(half)}")
