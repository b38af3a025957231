"""Coverage with the reference's key facts as the questions: how good is the verdict step on its own?

    .venv/bin/python benchmarks/experiments/coverage_oracle.py [--data benchmarks/data/realsumm.dev.jsonl] [--model NAME] [--limit N]
    .venv/bin/python benchmarks/experiments/coverage_oracle.py --data DATA --facts judge [--results RESULTS.jsonl]
    .venv/bin/python benchmarks/experiments/coverage_oracle.py --data DATA --facts judge-summary [--results RESULTS.jsonl]

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
``--facts judge-summary`` builds the pseudo-reference the label's pipeline
needs the way that pipeline does: the judge writes a short summary of the
source (``SUMMARY_TASK``, source context), and the judge splits it into
single facts (``ATOMIC_TASK``, summary context; the scorer's claims step kept
the sentences whole). Lite-Pyramid with a judge-written reference, then: it tests whether
the gap to the oracle is the *form* of the facts (atomic, what a summary
keeps) rather than what the judge deems important.
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
from localsumm.errors import JudgeError
from localsumm.files import read_jsonl
from localsumm.protocol import Judge, yes_probabilities
from localsumm.runs.results import read_results
from localsumm.summarization import prompts

from common import RESULTS, THRESHOLD, dev_set

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


def context(system: str, tag: str, text: str, task: str) -> prompts.Messages:
    """A prompt laid out as the scorer's are: system text, the fenced text, then the task."""
    return [{"role": "system", "content": system}, {"role": "user", "content": [prompts.fence(tag, text) + "\n\n", task]}]


def judge_facts(judge: Judge, source: str) -> list[str]:
    messages = context(prompts.SOURCE_SYSTEM, "document", source, FACTS_TASK)
    value, _ = judge.generate("questions", messages, FactList, 128 * N_FACTS)  # facts copied whole run long
    return list(dict.fromkeys(f.strip() for f in value.facts))  # type: ignore[attr-defined]


SUMMARY_SENTENCES = 3
SUMMARY_TASK = f"""\
Write a summary of the document in at most {SUMMARY_SENTENCES} sentences, as the highlights under a news headline: its most important facts, in your own words, with names and numbers as the document states them.
Answer in JSON, for example: {{"summary": ["The museum reopened in 1932 after a fire.", "Anna Berg designed the new bridge."]}}"""


# The product's claims step keeps the 1.5B judge's summary sentences whole (several facts each); the
# label's key facts are single facts, so this split asks for them and shows one sentence split.
ATOMIC_TASK = """\
Split the summary into single facts. Each fact is a short sentence of at most 10 words, without commas, that states one thing the summary says (who did what, a number, a date, a place), with names instead of pronouns. Add nothing the summary does not say.
For example, "The museum, designed by Anna Berg, reopened in 1932 after a fire." gives: {"facts": ["The museum reopened in 1932.", "Anna Berg designed the museum.", "The museum reopened after a fire."]}"""
N_ATOMIC = 10


# One sentence per item, in the grammar (string lengths are not: localsumm.backends.grammar): without
# it the judge ran one summary "sentence" on, repeating itself, to the token cap. A fact has no comma
# either, so it cannot be a lead sentence copied whole.
SENTENCE = r"^[^\"\\\x00-\x1f.!?]{10,}\.$"
FACT = r"^[^\"\\\x00-\x1f.!?;,]{6,}\.$"


class AtomicFacts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    facts: list[Annotated[str, StringConstraints(pattern=FACT, max_length=300)]] = Field(min_length=1, max_length=N_ATOMIC)


class SummaryText(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summary: list[Annotated[str, StringConstraints(pattern=SENTENCE, max_length=300)]] = Field(
        min_length=1, max_length=SUMMARY_SENTENCES)


def judge_summary_facts(judge: Judge, source: str) -> tuple[str, list[str]]:
    """The judge's own short summary of ``source``, and its single facts (``ATOMIC_TASK``, summary context)."""
    messages = context(prompts.SOURCE_SYSTEM, "document", source, SUMMARY_TASK)
    # A cap, not a target: a sentence of up to 300 characters, dense with names, takes up to about 100 tokens.
    value, _ = judge.generate("questions", messages, SummaryText, 160 * SUMMARY_SENTENCES)
    summary = " ".join(s.strip() for s in value.summary)  # type: ignore[attr-defined]
    split = context(prompts.SUMMARY_SYSTEM, "summary", summary, ATOMIC_TASK)
    try:
        facts, _ = judge.generate("claims", split, AtomicFacts, 40 * N_ATOMIC)
    except JudgeError as e:  # the split ran on past its cap: the summary's sentences are the facts
        print(f"split failed ({e}); the summary's sentences are its facts")
        return summary, [s.strip() for s in value.summary]  # type: ignore[attr-defined]
    return summary, list(dict.fromkeys(f.strip() for f in facts.facts))  # type: ignore[attr-defined]


def ask(judge: Judge, args: argparse.Namespace) -> tuple[list[dict], float]:
    """Per item, the judge's probabilities that the summary states each fact, and the seconds that took."""
    items = read_jsonl(args.data)
    wanted = key_facts if args.facts == "reference" else (lambda i: True)
    items = [i for i in items if i.get("label_coverage") is not None and wanted(i)][: args.limit]
    if args.facts != "reference":
        by_source: dict[str, list[str]] = {}
        for item in items:
            if item["source"] not in by_source:
                if args.facts == "judge":
                    by_source[item["source"]] = judge_facts(judge, item["source"])
                else:
                    written, by_source[item["source"]] = judge_summary_facts(judge, item["source"])
                    print(f"{item['meta']['doc_id']} summary: {written}")
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
    return rows, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--model", default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--facts", choices=("reference", "judge", "judge-summary"), default="reference")
    parser.add_argument("--results", type=Path, default=None, help="bench quality results of the same data")
    parser.add_argument("--report", action="store_true", help="report the probabilities an earlier run stored")
    args = parser.parse_args()

    kind = {"reference": "", "judge": ".judge-facts", "judge-summary": ".judge-summary"}[args.facts]
    prefix, suffix = f"coverage-oracle{kind}.{args.data.stem}.", f".{prompts.PROMPT_VERSION}.json"
    if args.report:  # no judge is loaded: the stored file (of today's prompts) names it
        out = max(RESULTS.glob(f"{prefix}*{suffix}"), key=lambda f: f.stat().st_mtime)
        rows, seconds, name, threshold = json.loads(out.read_text(encoding="utf-8")), 0.0, out.name[len(prefix):-len(suffix)], THRESHOLD
    else:
        judge = open_judge(args.model)
        name, threshold = judge.info.name, judge.info.thresholds.coverage
        out = RESULTS / f"{prefix}{name}{suffix}"
        rows, seconds = ask(judge, args)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(rows, indent=1), encoding="utf-8")

    labels = [r["label"] for r in rows]
    docs = [r["doc"] for r in rows]
    predictors = {
        f"share of key facts answered (p >= {threshold:g})": [sum(p >= threshold for p in r["probabilities"]) / max(len(r["probabilities"]), 1) for r in rows],
        "mean probability": [sum(r["probabilities"]) / max(len(r["probabilities"]), 1) for r in rows],
        "baseline: summary length": [float(r["length"]) for r in rows],
    }
    scorer = "the scorer's coverage (passage questions)"
    if args.results:
        lines = {line.id: line for line in read_results(args.results) if line.scored}
        predictors[scorer] = [lines[r["id"]].coverage_score for r in rows]
        # The facts asked beside the scorer's own questions: one set, each question and fact one vote.
        answered = [[v.answered for v in lines[r["id"]].result.analyze_step_result.coverage] for r in rows]  # type: ignore[union-attr]
        predictors["the scorer's questions and these facts together"] = [
            (sum(a) + sum(p >= threshold for p in r["probabilities"])) / max(len(a) + len(r["probabilities"]), 1)
            for a, r in zip(answered, rows)
        ]
        if args.facts == "reference":
            # The scorer's design with the reference's facts in place of the key facts the judge wrote: its
            # passage questions' verdicts, and the reference's first k facts: k as many as the judge's key
            # facts of that source (the same weight in the score), a fixed number, or all of them.
            ks = (("as many as its key facts", lambda n: n), *((f"first {k}", lambda n, k=k: k) for k in (3, 6, 9)),
                  ("all", lambda n: None))
            for label, k_of in ks:
                values = []
                for r in rows:
                    result = lines[r["id"]].result
                    facts = {prompts.fact_question(f) for f in result.preprocess_step_result.key_facts}  # type: ignore[union-attr]
                    asked = [v.answered for v in result.analyze_step_result.coverage if v.question not in facts]  # type: ignore[union-attr]
                    chosen = r["probabilities"][: k_of(len(facts))]
                    values.append((sum(asked) + sum(p >= threshold for p in chosen)) / max(len(asked) + len(chosen), 1))
                predictors[f"its questions, reference facts ({label}) for key facts"] = values
    facts = sum(len(r["probabilities"]) for r in rows)
    print(f"{len(rows)} items, {facts} {'key' if args.facts == 'reference' else args.facts} facts asked, {seconds:.0f} s, judge {name}, prompts {prompts.PROMPT_VERSION}")
    print(f"{'predictor':<40} {'Pearson [95%]':>22} {'Spearman':>9} {'Pearson/doc [95%]':>22} {'Spearman/doc':>13}")
    for predictor, values in predictors.items():
        x, y, d = np.asarray(values, float), np.asarray(labels, float), np.asarray(docs)
        pooled = metrics.bootstrap_ci(lambda i: metrics.pearson(x[i], y[i]), len(x))
        per_doc = metrics.bootstrap_ci(
            lambda i: metrics.per_document(metrics.pearson, x[i].tolist(), y[i].tolist(), d[i].tolist()), len(x), groups=docs)
        print(f"{predictor:<40} {metrics.pearson(values, labels):6.3f} [{pooled[0]:.3f}, {pooled[1]:.3f}] "
              f"{metrics.spearman(values, labels):9.3f} "
              f"{metrics.per_document(metrics.pearson, values, labels, docs):6.3f} [{per_doc[0]:.3f}, {per_doc[1]:.3f}] "
              f"{metrics.per_document(metrics.spearman, values, labels, docs):13.3f}")
    if scorer in predictors:
        print("change against the scorer on the same items (paired; pooled: items resampled, per document: documents)")
        ours, y, d = np.asarray(predictors[scorer], float), np.asarray(labels, float), np.asarray(docs)
        for predictor, values in predictors.items():
            if predictor == scorer:
                continue
            x = np.asarray(values, float)
            pooled = lambda i: metrics.pearson(x[i], y[i]) - metrics.pearson(ours[i], y[i])  # noqa: E731
            per_doc = lambda i: (metrics.per_document(metrics.pearson, x[i].tolist(), y[i].tolist(), d[i].tolist())  # noqa: E731
                                 - metrics.per_document(metrics.pearson, ours[i].tolist(), y[i].tolist(), d[i].tolist()))
            all_items = np.arange(len(x))
            lo, hi = metrics.bootstrap_ci(pooled, len(x))
            dlo, dhi = metrics.bootstrap_ci(per_doc, len(x), groups=docs)
            print(f"{predictor:<40} pooled {pooled(all_items):+.3f} [{lo:+.3f}, {hi:+.3f}]   per document {per_doc(all_items):+.3f} [{dlo:+.3f}, {dhi:+.3f}]")
    print(f"results: {out}")


if __name__ == "__main__":
    main()
