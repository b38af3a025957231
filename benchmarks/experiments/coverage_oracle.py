"""Coverage with the reference's key facts as the questions: how good is the verdict step on its own?

    .venv/bin/python benchmarks/experiments/coverage_oracle.py [--data benchmarks/data/realsumm.dev.jsonl] [--model NAME] [--limit N]

REALSumm's label is the share of the reference's key facts (SCUs, in
``meta.keyfacts_scus``; RoSE's ACUs in ``meta.reference_acus``) that crowd
workers found in the summary. Here each key fact is asked of the summary as a
coverage question ("Is it true that <fact>?") with localsumm's own coverage
prompt and verdict decoding, in the summary context. A judge whose verdicts
matched the crowd's would score Pearson 1.0; what it scores measures the
verdict step alone, apart from which questions the judge writes from the source.

Prints Pearson/Spearman (pooled, per document) beside summary length, and
writes the probabilities to benchmarks/results/ (not committed).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from localsumm.backends import open_judge
from localsumm.bench import metrics
from localsumm.files import read_jsonl
from localsumm.summarization import prompts

from common import RESULTS, dev_set

DATA = dev_set("realsumm")


def as_question(fact: str) -> str:
    return "Is it true that " + fact.strip().rstrip(".") + "?"


def key_facts(item: dict) -> list[str]:
    meta = item["meta"]
    return meta.get("keyfacts_scus") or meta.get("reference_acus") or []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--model", default=None)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()

    items = read_jsonl(args.data)
    items = [i for i in items if i.get("label_coverage") is not None and key_facts(i)][: args.limit]
    judge = open_judge(args.model)
    threshold = judge.info.thresholds.coverage
    start = time.perf_counter()
    rows = []
    for item in items:
        ps = [judge.yes_probability("coverage", prompts.coverage_messages(item["summary"], as_question(f)))[0] for f in key_facts(item)]
        rows.append({"id": item["id"], "doc": item["meta"]["doc_id"], "label": item["label_coverage"],
                     "length": len(item["summary"].split()), "probabilities": ps})
    seconds = time.perf_counter() - start

    out = RESULTS / f"coverage-oracle.{args.data.stem}.{judge.info.name}.{prompts.PROMPT_VERSION}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=1), encoding="utf-8")

    labels = [r["label"] for r in rows]
    docs = [r["doc"] for r in rows]
    predictors = {
        f"share of key facts answered (p >= {threshold:g})": [sum(p >= threshold for p in r["probabilities"]) / len(r["probabilities"]) for r in rows],
        "mean probability": [sum(r["probabilities"]) / len(r["probabilities"]) for r in rows],
        "baseline: summary length": [float(r["length"]) for r in rows],
    }
    facts = sum(len(r["probabilities"]) for r in rows)
    print(f"{len(rows)} items, {facts} key facts asked, {seconds:.0f} s, judge {judge.info.name}, prompts {prompts.PROMPT_VERSION}")
    print(f"{'predictor':<40} {'Pearson':>8} {'Spearman':>9} {'Pearson/doc':>12} {'Spearman/doc':>13}")
    for name, values in predictors.items():
        print(f"{name:<40} {metrics.pearson(values, labels):8.3f} {metrics.spearman(values, labels):9.3f} "
              f"{metrics.per_document(metrics.pearson, values, labels, docs):12.3f} "
              f"{metrics.per_document(metrics.spearman, values, labels, docs):13.3f}")
    print(f"results: {out}")


if __name__ == "__main__":
    main()
