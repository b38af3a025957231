"""Coverage verdicts checked by hand: is the copying gap in the questions or in the verdicts? (issue 47)

Lab script, not product; pre-registered in ``preregistered/coverage-verdict-audit-2026-12-07.md``.
Reads the systems run (``localsumm eval benchmarks/data/summeval.systems.dev.jsonl --questions q.jsonl``).

    python benchmarks/coverage_audit.py sheet systems.jsonl sheet.md     # blind: no id, system or probability
    python benchmarks/coverage_audit.py report systems.jsonl benchmarks/data/coverage-audit.labels.tsv

The labels file has one row per question: the result's id, the question's index in its coverage list,
and ``Y`` / ``P`` / ``N`` (the pre-registration says what each means).
"""

from __future__ import annotations

import csv
import json
import random
import sys

import numpy as np

from localsumm.bench import metrics

SYSTEMS = ("M1", "M23")  # the most over- and the most under-ranked by coverage (RESULTS, "Systems against experts")


def load(path: str) -> list[dict]:
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    picked = [r for r in rows if r["meta"]["system"] in SYSTEMS and r["localsumm"]["status"] == "scored"]
    random.Random(7).shuffle(picked)
    return picked


def coverage(r: dict) -> list[dict]:
    return r["localsumm"]["result"]["analyze_step_result"]["coverage"]


def sheet(results: str, out: str) -> None:
    """The sheet names each summary S00, S01, ... only (an id names its system); ``OUT.key.tsv`` maps them back."""
    lines, key = [], ["sheet\tid"]
    for i, r in enumerate(load(results)):
        lines += [f"### S{i:02d}", r["summary"], ""]
        lines += [f"S{i:02d}.{j} | {v['question']}" for j, v in enumerate(coverage(r))] + [""]
        key.append(f"S{i:02d}\t{r['id']}")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    with open(out + ".key.tsv", "w", encoding="utf-8") as f:
        f.write("\n".join(key) + "\n")


def table(results: str, labels: str) -> list[dict]:
    with open(labels, encoding="utf-8") as f:
        given = {(row["id"], int(row["question"])): row["label"] for row in csv.DictReader(f, delimiter="\t")}
    out = []
    for r in load(results):
        for j, v in enumerate(coverage(r)):
            label = given[(r["id"], j)]  # every question is labelled: a missing one is an error
            meta = r["meta"]
            out.append(
                {"id": r["id"], "question": j, "doc": meta["doc_id"], "system": meta["system"], "label": label}
                | {"judge": v["answered"]}
            )
    return out


def per_document(rows: list[dict], value: str) -> dict[str, dict[str, float]]:
    """Per document and system, the share of questions answered: by the judge, or by hand (``Y``, or ``YP``)."""
    cells: dict[tuple[str, str], list[float]] = {}
    for q in rows:
        hit = q["judge"] if value == "judge" else q["label"] in value
        cells.setdefault((q["doc"], q["system"]), []).append(float(hit))
    docs: dict[str, dict[str, float]] = {}
    for (doc, system), hits in cells.items():
        docs.setdefault(doc, {})[system] = float(np.mean(hits))
    return docs


def gaps(docs: dict[str, dict[str, float]], names: list[str]) -> np.ndarray:
    """Per document, in the order of ``names``: M1's coverage minus M23's."""
    return np.array([docs[d]["M1"] - docs[d]["M23"] for d in names])


def interval(values: np.ndarray) -> str:
    """The mean, and its 95% interval over 1,000 resamples of the documents (seed 0)."""
    low, high = metrics.bootstrap_ci(lambda i: float(np.mean(values[i])), len(values))
    return f"{np.mean(values):+.3f} [{low:+.3f}, {high:+.3f}]"


def report(results: str, labels: str) -> None:
    rows = table(results, labels)
    names = sorted({q["doc"] for q in rows})
    ways = {
        "judge": per_document(rows, "judge"),
        "hand Y": per_document(rows, "Y"),
        "hand Y or P": per_document(rows, "YP"),
    }
    print(f"{len(rows)} questions, {len(names)} documents, systems {', '.join(SYSTEMS)}\n")
    print("| coverage | " + " | ".join(SYSTEMS) + " | M1 - M23 [95%] |")
    print("|---|" + "---:|" * (len(SYSTEMS) + 1))
    for way, docs in ways.items():
        means = " | ".join(f"{np.mean([docs[d][s] for d in names]):.3f}" for s in SYSTEMS)
        print(f"| {way} | {means} | {interval(gaps(docs, names))} |")
    for hand in ("hand Y", "hand Y or P"):
        print(f"\njudge gap - {hand} gap: {interval(gaps(ways['judge'], names) - gaps(ways[hand], names))}")
    print("\n| system | labels Y / P / N | judge yes among Y (recall) | among P | among N (false yes) |")
    print("|---|---|---:|---:|---:|")
    for s in SYSTEMS:
        mine = [q for q in rows if q["system"] == s]
        count = {c: [q["judge"] for q in mine if q["label"] == c] for c in "YPN"}
        rates = " | ".join(f"{np.mean(v):.2f} ({sum(v)}/{len(v)})" if v else "-" for v in count.values())
        print(f"| {s} | {' / '.join(str(len(v)) for v in count.values())} | {rates} |")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("sheet", "report"):
        sys.exit(__doc__)
    {"sheet": sheet, "report": report}[sys.argv[1]](sys.argv[2], sys.argv[3])
