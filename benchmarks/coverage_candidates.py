"""Coverage verdict wordings, pre-registered in preregistered/coverage-wording-2026-12-06.md (issue 47; lab).

    python benchmarks/coverage_candidates.py ask C1 systems q.jsonl fit      # coverage probabilities, to exp/
    python benchmarks/coverage_candidates.py ask C0 stress q.jsonl all
    python benchmarks/coverage_candidates.py ask C0 realsumm - report
    python benchmarks/coverage_candidates.py ask S general - fit                # reference facts: F0, W, S
    python benchmarks/coverage_candidates.py ask QM summeval exp/qm.summeval.fit.jsonl fit  # main-fact questions
    python benchmarks/coverage_candidates.py report

``ask`` writes one line per item (its id, document, system and the probability of each question) to
``exp/VARIANT.SET.jsonl``, resumable; C0 is asked under the product's own step name, so it reuses the
judge-call cache of a ``localsumm eval`` with today's prompts. ``report`` prints the figures the
pre-registration names, per half (for the main-fact candidates, ``main_fact_report.py``).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from localsumm.backends import open_judge
from localsumm.backends.cache import CachedJudge, JudgeCallCache
from localsumm.bench import metrics
from localsumm.bench.calibrate import split_documents
from localsumm.bench.items import bigram_overlap
from localsumm.protocol import Messages, yes_probabilities
from localsumm.summarization import prompts
from localsumm.summarization.questionset.model import source_sha256
from localsumm.summarization.questionset.reference import clean_fact

DATA = Path(__file__).parent / "data"
EXP = Path("exp")
SETS = {
    "systems": DATA / "summeval.systems.dev.jsonl",
    "stress": DATA / "paraphrase.stress.jsonl",
    "summeval": DATA / "summeval.dev.jsonl",
    "realsumm": DATA / "realsumm.dev.jsonl",
    "rose": DATA / "rose.dev.jsonl",
    # The same REALSumm and RoSE summaries asked the judge's questions (a question file), not the reference facts.
    "realsumm-q": DATA / "realsumm.dev.jsonl",
    "rose-q": DATA / "rose.dev.jsonl",
    # The stress set's facts part: RoSE dev's summaries asked their ACUs as written, and as rewritten more generally.
    "literal": DATA / "paraphrase.stress.jsonl",
    "general": DATA / "paraphrase.stress.jsonl",
}
FACTS = {
    "realsumm": "keyfacts_scus",
    "rose": "reference_acus",
    "literal": "reference_acus",
    "general": "reference_acus_general",
}
OTHER_WORDS = (
    'Does the summary give the information needed to answer the following question "yes"? It counts if the summary '
    "says it in other words, more briefly or more generally, or writes names with other capitals. If the summary "
    "does not say it, answer no. Answer with one word: yes or no."
)
EXAMPLES = (
    '\n\nFor example, the summary "councillors voted through a 2m budget." answers "Did the council approve new '
    'spending?" yes; the summary "the museum reopened after a fire." answers "Did the museum reopen in 1932?" no.'
)
# Main-fact coverage (preregistered/main-fact-coverage-2026-12-07.md): QV credits a question's fact without the
# details it adds; QM is today's verdict over main-fact questions (a question file written by question_candidates.py).
MAIN_FACT = (
    "Does the summary state the fact the following question asks about, so that a reader of the summary alone "
    'would answer it "yes"? It counts if the summary states the fact in other words, or without a detail the '
    "question adds (a day, a place, a number, a title). If the summary does not state the fact, or states "
    "something else, answer no. Answer with one word: yes or no."
)
TASKS = {
    "C0": prompts.COVERAGE_TASK,
    "C1": OTHER_WORDS + "\n\nQuestion:",
    "C2": OTHER_WORDS + EXAMPLES + "\n\nQuestion:",
    "QV": MAIN_FACT + "\n\nQuestion:",
    "QM": prompts.COVERAGE_TASK,
}

# Reference facts (preregistered/reference-facts-2026-12-06.md): F0 is today's; W cleans the fact; S asks it as a
# statement that may be said in other words, more briefly or more generally. Asked of the fact sets only.
FACT_TASKS = {"F0": prompts.COVERAGE_TASK, "W": prompts.COVERAGE_TASK, "S": prompts.STATEMENT_TASK}


def fact_prompt(variant: str, fact: str) -> str:
    if variant == "F0":
        return prompts.fact_question(fact)
    if variant == "W":
        return "Is it true that " + clean_fact(fact) + "?"
    return clean_fact(fact) + "."


def messages(task: str, summary: str, question: str) -> Messages:
    return [
        {"role": "system", "content": prompts.SUMMARY_SYSTEM},
        {"role": "user", "content": [prompts.fence("summary", summary) + "\n\n", task, " " + question]},
    ]


def records(name: str) -> list[dict]:
    rows = [json.loads(line) for line in SETS[name].open(encoding="utf-8")]
    if name in ("literal", "general"):
        return [r for r in rows if r["meta"]["part"] == "facts"]
    return [r for r in rows if name != "stress" or r["meta"]["part"] == "pairs"]


def questions_of(r: dict, name: str, files: dict[str, dict]) -> list[str]:
    if name in ("systems", "stress", "summeval", "realsumm-q", "rose-q"):
        q = files[source_sha256(r["source"])]
        return list(q["questions"]) + [prompts.fact_question(f) for f in q["key_facts"]]
    return [prompts.fact_question(f) for f in r["meta"][FACTS[name]]]


def prompts_of(variant: str, r: dict, name: str, files: dict[str, dict]) -> list[str]:
    if variant in FACT_TASKS:
        return [fact_prompt(variant, f) for f in r["meta"][FACTS[name]]]
    return questions_of(r, name, files)


def ask(variant: str, name: str, question_file: str, half: str) -> None:
    versions = dict(prompts.STEP_VERSIONS)
    # Today's task text under the product's step name, so that a prompt asked before is answered from the cache.
    step = "coverage" if variant in ("C0", "F0", "W", "QM") else f"coverage-{variant}"
    if step != "coverage":
        versions[step] = "candidate-2026-12-06"
    judge = CachedJudge(open_judge(), JudgeCallCache(None), versions)
    files = {}
    if question_file != "-":
        files = {q["source_sha256"]: q for q in map(json.loads, open(question_file, encoding="utf-8"))}
    rows = records(name)
    fit, report = split_documents([r["meta"]["doc_id"] for r in rows])
    keep = {"fit": fit, "report": report, "all": fit | report}[half]
    EXP.mkdir(exist_ok=True)
    out = EXP / f"{variant}.{name}.jsonl"
    done = {json.loads(line)["id"] for line in out.open()} if out.exists() else set()
    with out.open("a", encoding="utf-8") as f:
        for r in rows:
            if r["meta"]["doc_id"] not in keep or r["id"] in done:
                continue
            qs = prompts_of(variant, r, name, files)
            task = {**TASKS, **FACT_TASKS}[variant]
            ps = [p for p, _ in yes_probabilities(judge, step, [messages(task, r["summary"], q) for q in qs])]
            line = {"id": r["id"], "doc": r["meta"]["doc_id"], "system": r["meta"].get("system"), "p": ps}
            f.write(json.dumps(line) + "\n")
            f.flush()
            print(r["id"], len(qs), file=sys.stderr)


def load(variant: str, name: str) -> dict[str, list[float]]:
    path = EXP / f"{variant}.{name}.jsonl"
    if not path.exists():
        return {}
    return {x["id"]: x["p"] for x in map(json.loads, path.open())}


def coverage(ps: list[float]) -> float:
    return float(np.mean([p >= 0.5 for p in ps])) if ps else 0.0


def systems_tau(variant: str, half: set[str]) -> tuple[float, float, float, int] | None:
    """tau of mean coverage with relevance, with bigram overlap, and of relevance with bigram; documents."""
    got = load(variant, "systems")
    rows = [r for r in records("systems") if r["meta"]["doc_id"] in half and r["id"] in got]
    docs = {r["meta"]["doc_id"] for r in rows}
    if len(docs) < len(half):
        return None
    by: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for r in rows:
        bigram = bigram_overlap(r["summary"], r["source"], split_punctuation=True)
        by[r["meta"]["system"]].append((coverage(got[r["id"]]), r["label_coverage"], bigram))
    m = np.array([np.mean(v, axis=0) for v in by.values()])
    return (
        metrics.kendall(m[:, 0], m[:, 1]),
        metrics.kendall(m[:, 0], m[:, 2]),
        metrics.kendall(m[:, 1], m[:, 2]),
        len(docs),
    )


def stress_change(variant: str, half: set[str]) -> tuple[float, float, int, int] | None:
    """Mean |coverage change| and mean verdict-probability change (rewrite - original) over the pairs; the
    rewrites that lost coverage, and the pairs."""
    got = load(variant, "stress")
    pairs: dict[str, dict[str, list[float]]] = defaultdict(dict)
    for r in records("stress"):
        if r["meta"]["doc_id"] in half and r["id"] in got:
            pairs[r["meta"]["pair"]][r["meta"]["variant"]] = got[r["id"]]
    both = [v for v in pairs.values() if len(v) == 2]
    if not both:
        return None
    d_cov = [abs(coverage(v["paraphrase"]) - coverage(v["original"])) for v in both]
    d_p = [float(np.mean(v["paraphrase"]) - np.mean(v["original"])) for v in both]
    lost = sum(coverage(v["paraphrase"]) < coverage(v["original"]) for v in both)
    return float(np.mean(d_cov)), float(np.mean(d_p)), lost, len(both)


def facts_pearson(variant: str, name: str, half: set[str]) -> tuple[float, float, int] | None:
    """Per-document and pooled Pearson of counted coverage with the label; documents."""
    got = load(variant, name)
    rows = [r for r in records(name) if r["meta"]["doc_id"] in half and r["id"] in got]
    if not rows:
        return None
    x = np.array([coverage(got[r["id"]]) for r in rows])
    y = np.array([r["label_coverage"] for r in rows])
    docs = [r["meta"]["doc_id"] for r in rows]
    return metrics.per_document(metrics.pearson, x, y, docs), metrics.pearson(x, y), len(set(docs))


def general_change(variant: str, half: set[str]) -> tuple[float, float, float, int] | None:
    """The same summaries asked their facts as written and as rewritten more generally: mean |coverage change|,
    mean verdict-probability change (general - literal), and the mean change of coverage; documents."""
    literal, general = load(variant, "literal"), load(variant, "general")
    rows = [r for r in records("literal") if r["meta"]["doc_id"] in half and r["id"] in literal and r["id"] in general]
    if not rows:
        return None
    d_cov = [coverage(general[r["id"]]) - coverage(literal[r["id"]]) for r in rows]
    d_p = [float(np.mean(general[r["id"]]) - np.mean(literal[r["id"]])) for r in rows]
    docs = {r["meta"]["doc_id"] for r in rows}
    return float(np.mean(np.abs(d_cov))), float(np.mean(d_p)), float(np.mean(d_cov)), len(docs)


def facts_paired(variant: str, name: str, half: set[str]) -> tuple[float, float, float] | None:
    """``variant`` minus F0 in per-document Pearson, paired by document: mean and 95% interval (1,000 resamples of
    the documents, seed 0)."""
    got, base = load(variant, name), load("F0", name)
    rows = [r for r in records(name) if r["meta"]["doc_id"] in half and r["id"] in got and r["id"] in base]
    if not rows:
        return None
    y = [r["label_coverage"] for r in rows]
    docs = [r["meta"]["doc_id"] for r in rows]
    ours = dict(metrics.document_values(metrics.pearson, [coverage(got[r["id"]]) for r in rows], y, docs))
    theirs = dict(metrics.document_values(metrics.pearson, [coverage(base[r["id"]]) for r in rows], y, docs))
    diffs = np.array([ours.get(d, 0.0) - theirs.get(d, 0.0) for d in sorted(set(docs)) if d in ours or d in theirs])
    low, high = metrics.bootstrap_ci(lambda i: float(np.mean(diffs[i])), len(diffs))
    return float(np.mean(diffs)), low, high


def report() -> None:
    for half_name in ("fit", "report", "all"):
        print(f"## {half_name} half")
        for variant in [*TASKS, *FACT_TASKS]:
            cells = []
            for name in [*SETS, "change"]:
                if variant in FACT_TASKS and name in ("systems", "stress"):
                    continue
                if name == "change":
                    fit, held = split_documents([r["meta"]["doc_id"] for r in records("literal")])
                    half = {"fit": fit, "report": held}.get(half_name, fit | held)
                    value = general_change(variant, half)
                    cells.append(f"literal->general {'-' if value is None else ' '.join(f'{v:.3f}' for v in value)}")
                    continue
                fit, held = split_documents([r["meta"]["doc_id"] for r in records(name)])
                half = {"fit": fit, "report": held}.get(half_name, fit | held)
                figure = {"systems": systems_tau, "stress": stress_change}.get(name)
                value = figure(variant, half) if figure else facts_pearson(variant, name, half)
                cells.append(f"{name} {'-' if value is None else ' '.join(f'{v:.3f}' for v in value)}")
            if variant in FACT_TASKS and variant != "F0":
                for name in ("realsumm", "rose", "general"):
                    fit, held = split_documents([r["meta"]["doc_id"] for r in records(name)])
                    paired = facts_paired(variant, name, {"fit": fit, "report": held}.get(half_name, fit | held))
                    if paired:
                        cells.append(f"{name} - F0 per document {paired[0]:+.3f} [{paired[1]:+.3f}, {paired[2]:+.3f}]")
            print(f"{variant}: " + " | ".join(cells))


if __name__ == "__main__":
    if sys.argv[1] == "ask":
        ask(*sys.argv[2:6])
    else:
        report()
