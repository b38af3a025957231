"""The figures preregistered/main-fact-coverage-2026-12-07.md names, from coverage_candidates.py's exp/ files (lab).

    python benchmarks/main_fact_report.py [fit|report|all] [--audit systems.jsonl]

Per set (systems, summeval) and half: each variant's per-document Spearman of counted coverage with the experts'
relevance, and its difference from C0 paired by document [95%, 1,000 resamples of the documents, seed 0]; on the
systems set also Kendall tau of mean coverage with the experts' 100-document relevance, bigram overlap and length;
the stress pairs' mean |coverage change|; with ``--audit``, QV's verdicts against the hand labels.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import coverage_audit  # noqa: E402
import coverage_candidates as c  # noqa: E402

from localsumm.bench import metrics  # noqa: E402
from localsumm.bench.calibrate import split_documents  # noqa: E402
from localsumm.bench.items import bigram_overlap  # noqa: E402
from localsumm.bench.systems import read_expert_means  # noqa: E402

VARIANTS = ("C0", "QV", "QM")
EXPERTS = c.DATA / "summeval.systems.experts100.json"


def half_of(name: str, which: str) -> set[str]:
    fit, report = split_documents([r["meta"]["doc_id"] for r in c.records(name)])
    return {"fit": fit, "report": report}.get(which, fit | report)


def per_doc(
    variant: str, name: str, half: set[str], measure: metrics.Measure = metrics.spearman
) -> dict[str, float] | None:
    """Per document, ``measure`` of counted coverage with the label (the experts' relevance; REALSumm's
    Lite-Pyramid and RoSE's ACU recall, with Pearson); None until every item of the half is asked."""
    got = c.load(variant, name)
    rows = [r for r in c.records(name) if r["meta"]["doc_id"] in half]
    if not rows or any(r["id"] not in got for r in rows):
        return None
    x = [c.coverage(got[r["id"]]) for r in rows]
    y = [r["label_coverage"] for r in rows]
    return dict(metrics.document_values(measure, x, y, [r["meta"]["doc_id"] for r in rows]))


def paired(ours: dict[str, float], base: dict[str, float]) -> str:
    d = np.array([ours.get(k, 0.0) - base.get(k, 0.0) for k in sorted(set(ours) | set(base))])
    low, high = metrics.bootstrap_ci(lambda i: float(np.mean(d[i])), len(d))
    return f"{np.mean(d):+.3f} [{low:+.3f}, {high:+.3f}]"


def systems_taus(variant: str, half: set[str]) -> str:
    got = c.load(variant, "systems")
    by: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for r in c.records("systems"):
        if r["meta"]["doc_id"] in half and r["id"] in got:
            bigram = bigram_overlap(r["summary"], r["source"], split_punctuation=True)
            by[r["meta"]["system"]].append((c.coverage(got[r["id"]]), bigram, len(r["summary"].split())))
    systems = sorted(by)
    m = np.array([np.mean(by[s], axis=0) for s in systems])
    relevance = read_expert_means(EXPERTS, systems)["relevance"]
    taus = [metrics.kendall(m[:, 0], relevance), metrics.kendall(m[:, 0], m[:, 1]), metrics.kendall(m[:, 0], m[:, 2])]
    return "tau with relevance / bigram / length " + " / ".join(f"{t:.2f}" for t in taus)


def audit(results: str) -> None:
    """QV's verdicts on the audited questions it was asked (the fit half), against the hand labels."""
    qv = c.load("QV", "systems")
    rows = [q for q in coverage_audit.table(results, str(c.DATA / "coverage-audit.labels.tsv")) if q["id"] in qv]
    for variant in ("C0", "QV"):
        yes: dict[str, list[bool]] = defaultdict(list)
        for q in rows:
            yes[q["label"]].append(q["judge"] if variant == "C0" else qv[q["id"]][q["question"]] >= 0.5)
        rates = ", ".join(f"{k} {np.mean(v):.2f} ({sum(v)}/{len(v)})" for k, v in sorted(yes.items()))
        print(f"{variant} judged yes, by hand label: {rates}")


def main(which: str) -> None:
    for name in ("systems", "summeval"):
        half = half_of(name, which)
        base = per_doc("C0", name, half)
        print(f"## {name}, {which} half ({len(half)} documents)")
        for variant in VARIANTS:
            ours = per_doc(variant, name, half)
            if ours is None:
                print(f"  {variant}: -")
                continue
            line = f"  {variant}: per-document Spearman {np.mean(list(ours.values())):.3f}"
            if base is not None and variant != "C0":
                line += f", minus C0 {paired(ours, base)}"
            if name == "systems":
                line += "; " + systems_taus(variant, half)
            print(line)
    for name in ("realsumm-q", "rose-q"):
        half = half_of(name, which)
        base = per_doc("C0", name, half, metrics.pearson)
        ours = per_doc("QM", name, half, metrics.pearson)
        if base and ours:
            mean = np.mean(list(ours.values()))
            print(f"{name}, {which} half: QM per-document Pearson {mean:.3f}, minus C0 {paired(ours, base)}")
    half = half_of("stress", which)
    for variant in VARIANTS:
        change = c.stress_change(variant, half)
        if change:
            cells = f"mean |coverage change| {change[0]:.3f}, probability {change[1]:+.3f}, pairs {change[3]}"
            print(f"stress {variant}: {cells}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--audit" in args:
        audit(args[args.index("--audit") + 1])
        args = args[: args.index("--audit")]
    main(args[0] if args else "all")
