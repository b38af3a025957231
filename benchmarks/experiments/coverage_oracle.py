"""Coverage with the reference's key facts as the questions: how good is the verdict step on its own?

    .venv/bin/python benchmarks/experiments/coverage_oracle.py [--data benchmarks/data/realsumm.dev.jsonl] [--model NAME] [--limit N]
    .venv/bin/python benchmarks/experiments/coverage_oracle.py --data DATA --facts judge [--results RESULTS.jsonl]

REALSumm's label is the share of the reference's key facts (SCUs, in
``meta.keyfacts_scus``; RoSE's ACUs in ``meta.reference_acus``) that crowd
workers found in the summary. Here each key fact is asked of the summary as a
coverage question ("Is it true that <fact>?") with localsumm's own coverage
prompt and verdict decoding, in the summary context. A judge whose verdicts
matched the crowd's would score Pearson 1.0; what it scores measures the
verdict step alone, apart from which questions the judge writes from the source.

``--facts judge`` replaces the reference's key facts by facts the judge lists
from the source itself ("the most important facts …, the ones a short summary
must keep", ``FACTS_TASK``, in the source context, once per source): a scorer
*could* do this, so it tests whether questions drawn from what the judge deems
the main facts come closer to the oracle than the scorer's passage questions.
``--results`` (a `bench quality` results file of the same data) adds the
scorer's own coverage on the same items.

Prints Pearson/Spearman (pooled, per document, with 95% intervals: items or
whole documents resampled) beside summary length, and writes the probabilities
to benchmarks/results/ (not committed). A summary's key facts are asked side by
side (``yes_probabilities``), as the scorer asks its coverage questions; before
2026-12-02 they were asked one by one, which moves probabilities in the last
digits.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from localsumm.backends import open_judge
from localsumm.bench import metrics
from localsumm.files import read_jsonl
from localsumm.protocol import Judge, yes_probabilities
from localsumm.runs.results import read_results
from localsumm.summarization import prompts

from common import RESULTS, dev_set

DATA = dev_set("realsumm")


def as_question(fact: str) -> str:
    return "Is it true that " + fact.strip().rstrip(".") + "?"


def key_facts(item: dict) -> list[str]:
    meta = item["meta"]
    return meta.get("keyfacts_scus") or meta.get("reference_acus") or []


N_FACTS = 6
FACTS_TASK = f"""\
List the {N_FACTS} most important facts of the document, the ones a short summary of it must keep, the most important first. Each fact is one short sentence that can be understood on its own (write names, not pronouns).
Answer in JSON, for example: {{"facts": ["The museum reopened in 1932.", "Anna Berg designed the bridge."]}}"""


class FactList(BaseModel):
    model_config = ConfigDict(extra="forbid")
    facts: list[Annotated[str, StringConstraints(min_length=10, max_length=200)]] = Field(min_length=1, max_length=N_FACTS)


def judge_facts(judge: Judge, source: str) -> list[str]:
    messages: prompts.Messages = [
        {"role": "system", "content": prompts.SOURCE_SYSTEM},
        {"role": "user", "content": [prompts.fence("document", source) + "\n\n", FACTS_TASK]},
    ]
    value, _ = judge.generate("questions", messages, FactList, 128 * N_FACTS)  # facts copied whole run long
    return list(dict.fromkeys(f.strip() for f in value.facts))  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--model", default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--facts", choices=("reference", "judge"), default="reference")
    parser.add_argument("--results", type=Path, default=None, help="bench quality results of the same data")
    args = parser.parse_args()

    items = read_jsonl(args.data)
    wanted = (lambda i: True) if args.facts == "judge" else key_facts
    items = [i for i in items if i.get("label_coverage") is not None and wanted(i)][: args.limit]
    judge = open_judge(args.model)
    threshold = judge.info.thresholds.coverage
    if args.facts == "judge":
        by_source: dict[str, list[str]] = {}
        for item in items:
            if item["source"] not in by_source:
                by_source[item["source"]] = judge_facts(judge, item["source"])
                print(f"{item['meta']['doc_id']}: {by_source[item['source']]}", flush=True)
        facts_of = lambda item: by_source[item["source"]]  # noqa: E731
    else:
        facts_of = key_facts
    start = time.perf_counter()
    rows = []
    for item in items:
        batch = [prompts.coverage_messages(item["summary"], as_question(f)) for f in facts_of(item)]
        ps = [p for p, _ in yes_probabilities(judge, "coverage", batch)]
        rows.append({"id": item["id"], "doc": item["meta"]["doc_id"], "label": item["label_coverage"],
                     "length": len(item["summary"].split()), "probabilities": ps})
    seconds = time.perf_counter() - start

    kind = "" if args.facts == "reference" else ".judge-facts"
    out = RESULTS / f"coverage-oracle{kind}.{args.data.stem}.{judge.info.name}.{prompts.PROMPT_VERSION}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=1), encoding="utf-8")

    labels = [r["label"] for r in rows]
    docs = [r["doc"] for r in rows]
    predictors = {
        f"share of key facts answered (p >= {threshold:g})": [sum(p >= threshold for p in r["probabilities"]) / len(r["probabilities"]) for r in rows],
        "mean probability": [sum(r["probabilities"]) / len(r["probabilities"]) for r in rows],
        "baseline: summary length": [float(r["length"]) for r in rows],
    }
    if args.results:
        scored = {line.id: line.coverage_score for line in read_results(args.results) if line.scored}
        predictors["the scorer's coverage (passage questions)"] = [scored[r["id"]] for r in rows]
    facts = sum(len(r["probabilities"]) for r in rows)
    print(f"{len(rows)} items, {facts} {'judge-listed' if args.facts == 'judge' else 'key'} facts asked, {seconds:.0f} s, judge {judge.info.name}, prompts {prompts.PROMPT_VERSION}")
    print(f"{'predictor':<40} {'Pearson [95%]':>22} {'Spearman':>9} {'Pearson/doc [95%]':>22} {'Spearman/doc':>13}")
    for name, values in predictors.items():
        x, y, d = np.asarray(values, float), np.asarray(labels, float), np.asarray(docs)
        pooled = metrics.bootstrap_ci(lambda i: metrics.pearson(x[i], y[i]), len(x))
        per_doc = metrics.bootstrap_ci(
            lambda i: metrics.per_document(metrics.pearson, x[i].tolist(), y[i].tolist(), d[i].tolist()), len(x), groups=docs)
        print(f"{name:<40} {metrics.pearson(values, labels):6.3f} [{pooled[0]:.3f}, {pooled[1]:.3f}] "
              f"{metrics.spearman(values, labels):9.3f} "
              f"{metrics.per_document(metrics.pearson, values, labels, docs):6.3f} [{per_doc[0]:.3f}, {per_doc[1]:.3f}] "
              f"{metrics.per_document(metrics.spearman, values, labels, docs):13.3f}")
    print(f"results: {out}")


if __name__ == "__main__":
    main()
