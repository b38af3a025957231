import json, sys, numpy as np
from localsumm.bench import metrics
from localsumm.bench.calibrate import split_documents
from localsumm.text import words  # noqa
sets = {"realsumm": "/work/bq-ref/realsumm.qwen2.5-coder-1.5b.reference-questions.jsonl",
        "rose": "/work/bq-ref/rose.qwen2.5-coder-1.5b.reference-questions.jsonl"}
variants = [v for v in (sys.argv[1:] or ["fact1", "fact2"]) if v != "-"]
def load(v):
    try: return {json.loads(l)["id"]: json.loads(l)["p"] for l in open(f"/work/exp/{v}.jsonl")}
    except FileNotFoundError: return {}
V = {v: load(v) for v in variants}
def aggs():
    out = {f"share>={t:.1f}": (lambda ps, t=t: float(np.mean([p >= t for p in ps]))) for t in (0.3, 0.4, 0.5, 0.6, 0.7)}
    out["mean p"] = lambda ps: float(np.mean(ps))
    return out
rows = {}
data = {}
for name, path in sets.items():
    items = [json.loads(l) for l in open(path)]
    v0 = {x["id"]: [c["probability"] for c in x["localsumm"]["result"]["analyze_step_result"]["coverage"]] for x in items}
    allp = {"v0": v0, **V}
    ok = [x for x in items if all(x["id"] in allp[v] for v in allp)]
    docs = [x["meta"]["doc_id"] for x in ok]
    A, B = split_documents(docs)
    y = np.array([x["label_coverage"] for x in ok])
    length = np.array([len(x["summary"].split()) for x in ok], float)
    preds = {"length": length}
    for v, P in allp.items():
        for a, f in aggs().items():
            preds[f"{v} {a}"] = np.array([f(P[x["id"]]) for x in ok])
    data[name] = (ok, docs, A, B, y, preds)
    print(name, len(ok), "items", len(A), len(B))
def pd(name, pred, half):
    ok, docs, A, B, y, preds = data[name]
    idx = [i for i, d in enumerate(docs) if d in half]
    return metrics.per_document(metrics.pearson, preds[pred][idx], y[idx], [docs[i] for i in idx])
names = list(data["realsumm"][5])
print(f"{'candidate':22s} " + " ".join(f"{s[:4]}-{h}" for s in sets for h in 'AB') + "  meanA  meanB")
res = []
for p in names:
    vals = {(s, h): pd(s, p, data[s][2] if h == 'A' else data[s][3]) for s in sets for h in 'AB'}
    mA = np.mean([vals[(s, 'A')] for s in sets]); mB = np.mean([vals[(s, 'B')] for s in sets])
    res.append((mA, p, vals, mB))
for mA, p, vals, mB in sorted(res, reverse=True):
    print(f"{p:22s} " + " ".join(f"{vals[(s,h)]:6.3f}" for s in sets for h in 'AB') + f" {mA:6.3f} {mB:6.3f}")

print("\npaired per-document differences, document bootstrap 95%")
def paired(name, p1, p2, half):
    ok, docs, A, B, y, preds = data[name]
    idx = np.array([i for i, d in enumerate(docs) if d in half])
    d = np.array(docs)
    f = lambda ix: metrics.per_document(metrics.pearson, preds[p1][ix], y[ix], d[ix].tolist()) - metrics.per_document(metrics.pearson, preds[p2][ix], y[ix], d[ix].tolist())
    v = f(idx); lo, hi = metrics.bootstrap_ci(lambda j: f(idx[j]), len(idx), groups=d[idx].tolist())
    return f"{v:+.3f} [{lo:+.3f}, {hi:+.3f}]"
for name in data:
    ok, docs, A, B, *_ = data[name]
    for p1, p2 in [("fact2 mean p", "v0 share>=0.5"), ("fact2 mean p", "length"), ("v0 mean p", "v0 share>=0.5"), ("v0 mean p", "length"), ("v0 share>=0.5", "length")]:
        print(name, f"{p1} - {p2}:", "B", paired(name, p1, p2, B), " all12", paired(name, p1, p2, A | B))
