"""The score of summaries SummEval's experts rated best and worst, against the README's score bands.

    .venv/bin/python benchmarks/experiments/score_bands.py RESULTS.jsonl [--bands good=0.6,fair=0.2,poor=0]

Reads a `bench quality` results file of SummEval (its records keep the experts'
1-5 means under ``meta``). Groups: **best** = mean relevance >= 4 and every
expert gave consistency 5; **worst** = mean relevance < 3 or mean consistency
< 4; the rest in between. Per group: how many summaries, their score's
quartiles, and the share of the group in each band (``--bands``: each band's
name and lower bound, highest first; the README's table is the default, and
the table it replaced was ``excellent=0.9,good=0.7,fair=0.4,poor=0.1,zero=0``); then, for each
cut, the share of each group scoring at or above it, over all documents and
over each half of them (``common.document_halves``), so
a band drawn from one half can be checked on the other.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from localsumm.runs.results import read_results

from common import document_halves

README_BANDS = "good=0.6,fair=0.2,poor=0"


def group(meta: dict) -> str:
    relevance, consistency = meta["expert_mean_relevance_1to5"], meta["expert_mean_consistency_1to5"]
    if relevance >= 4 and meta.get("consistency_all_experts_5") == 1:
        return "best"
    if relevance < 3 or consistency < 4:
        return "worst"
    return "between"


def band(score: float, bounds: dict[str, float]) -> str:
    for name, low in bounds.items():
        if score >= low - 1e-9:
            return name
    return "below every band"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--bands", default=README_BANDS, help="NAME=LOWER_BOUND,... highest first")
    args = parser.parse_args()
    bounds = {name: float(low) for name, _, low in (part.partition("=") for part in args.bands.split(","))}

    rows: dict[str, list[tuple[float, float, float]]] = {"best": [], "between": [], "worst": []}
    halves: list[dict[str, list[tuple[float, float, float]]]] = [{"best": [], "between": [], "worst": []} for _ in range(2)]
    lines = [line for line in read_results(args.results) if line.result is not None]
    half = document_halves(line.doc for line in lines)
    for line in lines:
        row = (line.score, line.alignment_score, line.coverage_score)
        rows[group(line.fields["meta"])].append(row)
        halves[half[line.doc]][group(line.fields["meta"])].append(row)
    print("bands (lower bounds): " + ", ".join(f"{n} >= {b:g}" for n, b in bounds.items()))
    print(f"{'group':8} {'n':>3}  {'score: min q1 median q3 max':30}  {'mean alignment / coverage':26}  share per band")
    for name, values in rows.items():
        if not values:
            continue
        scores = np.array([v[0] for v in values])
        q = np.percentile(scores, [0, 25, 50, 75, 100])
        shares = {b: sum(1 for s in scores if band(s, bounds) == b) / len(scores) for b in bounds}
        print(f"{name:8} {len(values):3}  {' '.join(f'{x:.2f}' for x in q):30}  "
              f"{np.mean([v[1] for v in values]):.2f} / {np.mean([v[2] for v in values]):.2f}{'':15}  "
              + "  ".join(f"{b} {s:.0%}" for b, s in shares.items()))
    print("\nshare scoring at or above each cut (all documents | half 0 | half 1; n: "
          + " | ".join(", ".join(f"{k} {len(v)}" for k, v in part.items()) for part in [rows, *halves]) + "):")
    print("cut   " + " | ".join("  ".join(f"{name:>7}" for name in rows) for _ in range(3)))
    for cut in np.arange(0.1, 1.0, 0.1):
        print(f"{cut:.1f}   " + " | ".join("  ".join(
            f"{np.mean([v[0] >= cut - 1e-9 for v in values]):7.0%}" if values else f"{'-':>7}" for values in part.values())
            for part in [rows, *halves]))


if __name__ == "__main__":
    main()
