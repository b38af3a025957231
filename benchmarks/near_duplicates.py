"""Near-duplicate questions (ND), as pre-registered in preregistered/near-duplicate-questions-2026-12-07.md.

Lab script, not product. From 0.3.2's results ("today"), each summary's counted coverage recomputed over the items of
its question set that ND (``localsumm.text.repeats``, 0.3.3's default) keeps: the same verdicts, as ND only removes
items. Per set, the primary figure today and with ND, paired by document, on the fit half, the report half and all
documents; the systems set's tau over systems as well.

    python benchmarks/near_duplicates.py --summeval dev.jsonl --systems systems.jsonl \
        --realsumm bq-judge/realsumm.qwen2.5-coder-1.5b.jsonl --rose bq-judge/rose.qwen2.5-coder-1.5b.jsonl

(dev.jsonl: SummEval dev scored with its own question file, as the systems set; bq-judge: ``localsumm bench quality
--data benchmarks/data/realsumm.dev.jsonl --data benchmarks/data/rose.dev.jsonl --out bq-judge`` on 0.3.2.)
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

import numpy as np
from coverage_diagnosis import EXPERTS, paired_per_document

from localsumm.bench.calibrate import split_documents
from localsumm.bench.metrics import kendall, pearson, spearman
from localsumm.bench.systems import read_expert_means
from localsumm.text import repeats


def rows(path: str) -> list[dict]:
    """Scored, scorable lines with their coverage today and with ND."""
    out = []
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        ours = r["localsumm"]
        if ours["status"] != "scored" or not ours["scorable"]:
            continue
        res = ours["result"]
        pre, verdicts = res["preprocess_step_result"], res["analyze_step_result"]["coverage"]
        keep = [earlier is None for earlier in repeats(pre["questions"] + pre["key_facts"])]
        assert len(keep) == len(verdicts), r["id"]
        answered = [v["answered"] for v, k in zip(verdicts, keep) if k]
        out.append(
            {
                "doc": r["meta"]["doc_id"],
                "system": r["meta"].get("system"),
                "label": r["label_coverage"],
                "today": ours["coverage_score"],
                "ND": sum(answered) / len(answered),
                "items": len(keep),
                "dropped": len(keep) - sum(keep),
            }
        )
    return out


def paired(
    data: list[dict], measure: Callable[[list[float], list[float]], float], keep: set[str]
) -> tuple[float, float, float, float, float]:
    """(today, ND, ND - today, its 95% interval) of the per-document figure over the documents ``keep``."""
    part = [r for r in data if r["doc"] in keep]
    _, nd, today, diff, low, high = paired_per_document(
        measure,
        [r["ND"] for r in part],
        [r["today"] for r in part],
        [r["label"] for r in part],
        [r["doc"] for r in part],
    )
    return today, nd, diff, low, high


def system_tau(data: list[dict], key: str) -> float:
    systems = sorted({r["system"] for r in data}, key=lambda s: int(s[1:]))
    hundred = read_expert_means(EXPERTS, systems)["relevance"]
    return kendall([np.mean([r[key] for r in data if r["system"] == s]) for s in systems], hundred)


def main() -> None:
    parser = argparse.ArgumentParser()
    for name in ("summeval", "realsumm", "rose", "systems"):
        parser.add_argument(f"--{name}", required=True)
    args = parser.parse_args()
    measures = {"summeval": spearman, "realsumm": pearson, "rose": pearson, "systems": spearman}
    report_half = []
    for name, measure in measures.items():
        data = rows(getattr(args, name))
        items, dropped = sum(r["items"] for r in data), sum(r["dropped"] for r in data)
        print(f"\n{name}: {len(data)} summaries; ND drops {dropped} of {items} items asked ({dropped / items:.1%})")
        fit, held = split_documents([r["doc"] for r in data])
        for keep, half in ((fit, "fit half"), (held, "report half"), (fit | held, "all documents")):
            today, nd, diff, low, high = paired(data, measure, keep)
            print(
                f"  {half} ({len(keep)}): today {today:.3f}, ND {nd:.3f}, "
                f"ND - today {diff:+.3f} [{low:+.3f}, {high:+.3f}]"
            )
            if half == "report half":
                report_half.append(diff)
        if name == "systems":
            taus = [system_tau(data, key) for key in ("today", "ND")]
            print(f"  tau over systems with the 100-document relevance: today {taus[0]:.2f}, ND {taus[1]:.2f}")
    print(f"\nreport half, mean of the four primary differences: {np.mean(report_half):+.3f}")


if __name__ == "__main__":
    main()
