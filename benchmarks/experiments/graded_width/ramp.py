"""Experiment (issue 34, 2026-12-06), kept in git history only: the width of the graded band, fitted on half the
documents (prereg.md, written before any figure). Reads stored verdicts (bench quality results of SummEval with the
judge's questions, REALSumm/RoSE with --questions reference, and the 24-item cross-build eval files); paths as run.
Chose width 0.5 (fit half mean 0.580; held out 0.571 against counting 0.579 and the mean probability 0.553;
0.03 across builds). Product: Options.scoring="graded", rules.GRADED_WIDTH.
"""
import json, numpy as np
from pathlib import Path
from localsumm.bench import metrics
from localsumm.bench.calibrate import split_documents
from localsumm.runs.results import read_results
from localsumm.summarization.rules import compute_scores
W = [0, 0.1, 0.2, 0.3, 0.5, 1.0]
def vote(p, w): return float(p >= 0.5) if w == 0 else float(np.clip((p - 0.5) / w + 0.5, 0, 1))
def scores(result, w):
    a = [0.0 if v.unmatched else v.probability for v in result.preprocess_step_result.alignment]
    c = [v.probability for v in result.analyze_step_result.coverage]
    asked = len(c)
    s = compute_scores([vote(p, w) for p in a], ["?"] * asked, [vote(p, w) for p in c], max_questions=None)
    return s
def load(path): return [l for l in read_results(Path(path)) if l.result is not None]
# cross-build
xa, xb = load("/work/xb/file-avx512-count.jsonl"), load("/work/xb/file-avx2-count.jsonl")
cross = {w: max(abs(scores(a.result, w).score - scores(b.result, w).score) for a, b in zip(xa, xb)) for w in W}
# check: w=0 equals stored scores
assert all(abs(scores(a.result, 0).score - a.result.score) < 1e-9 for a in xa)
sets = {
 "summeval": ("/work/bq-se/summeval.qwen2.5-coder-1.5b.jsonl", "score", lambda l: (l.label_alignment + l.label_coverage) / 2, metrics.spearman),
 "realsumm": ("/work/bq-ref/realsumm.qwen2.5-coder-1.5b.reference-questions.jsonl", "coverage", lambda l: l.label_coverage, metrics.pearson),
 "rose": ("/work/bq-ref/rose.qwen2.5-coder-1.5b.reference-questions.jsonl", "coverage", lambda l: l.label_coverage, metrics.pearson),
}
data = {}
for name, (path, field, lab, m) in sets.items():
    lines = load(path)
    docs = np.array([l.doc for l in lines]); A, B = split_documents(docs.tolist())
    y = np.array([lab(l) for l in lines])
    x = {w: np.array([getattr(scores(l.result, w), field) for l in lines]) for w in W}
    data[name] = (docs, A, B, y, x, m)
def pd(name, w, half, idx=None):
    docs, A, B, y, x, m = data[name]
    if idx is None:
        H = {"A": A, "B": B, "all": A | B}[half]
        idx = np.array([k for k, d in enumerate(docs) if d in H])
    ix = idx
    return metrics.per_document(m, x[w][ix], y[ix], docs[ix].tolist())
print("w     cross  " + "  ".join(f"{n[:4]}-A {n[:4]}-B" for n in data) + "  meanA  meanB")
for w in W:
    vals = [(pd(n, w, "A"), pd(n, w, "B")) for n in data]
    print(f"{w:<5} {cross[w]:.2f}  " + "  ".join(f"{a:6.3f} {b:6.3f}" for a, b in vals) + f"  {np.mean([v[0] for v in vals]):.3f}  {np.mean([v[1] for v in vals]):.3f}")

print("\npaired, document bootstrap")
for name in data:
    docs, A, B, y, x, m = data[name]
    for half in ("B", "all"):
        H = {"B": B, "all": A | B}[half]
        ix = np.array([k for k, d in enumerate(docs) if d in H])
        for w1, w2 in ((0.5, 0), (0.5, 1.0)):
            f = lambda j: pd(name, w1, None, ix[j]) - pd(name, w2, None, ix[j])
            lo, hi = metrics.bootstrap_ci(f, len(ix), groups=docs[ix].tolist())
            print(f"{name:9s} {half:4s} w{w1}-w{w2}: {f(np.arange(len(ix))):+.3f} [{lo:+.3f}, {hi:+.3f}]  (w0.5 {pd(name,0.5,half):.3f})")
# mean of three sets, held out, paired
