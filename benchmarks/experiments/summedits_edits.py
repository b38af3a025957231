"""Where the SummEdits verdicts go wrong: the edited sentence against the rest, edit type by edit type.

    .venv/bin/python benchmarks/experiments/summedits_edits.py [DATA.jsonl] [--call current]

(DATA.jsonl: by default ``benchmarks/data/summedits.dev.jsonl``.)

Reads the sentence verdicts ``verdict_prompts.py`` stored for SummEdits (no
model is loaded) and each item's seed summary (``meta.original_summary``),
which the scorer never sees. A sentence is *edited* when it is not, word for
word, a sentence of the seed. That splits an item's errors in two:

- a consistent item is rejected (weakest sentence < 0.5) either at its edited
  sentence (a paraphrase judged unsupported) or at a sentence it shares with
  the seed (the judge doubts a true sentence the edit did not touch);
- an inconsistent item is missed when its edited sentences pass.

The "edit located" row scores each item by its edited sentences only, as if
the judge were told where the edit is: the ceiling of any better aggregation
of these same verdicts. If it stays near the plain figure, the verdict on the
edited sentence is what limits the judge, not how verdicts are combined.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from localsumm.bench import metrics
from localsumm.files import read_jsonl
from localsumm.text import sentences

from common import THRESHOLD, dev_set, stored

DATA = dev_set("summedits")


def edited(summary_sentences: list[str], seed: str) -> list[bool]:
    kept = {s.strip() for s in sentences(seed)}
    return [s.strip() not in kept for s in summary_sentences]


def _row(name: str, scores: list[float], labels: list[float]) -> str:
    auc = metrics.roc_auc(scores, labels)
    ba = metrics.balanced_accuracy([s >= THRESHOLD for s in scores], labels)
    return f"| {name} | {len(scores)} | {auc:.3f} | {ba:.3f} |"


def report(data: Path, call: str) -> None:
    lines = {line["id"]: line for line in read_jsonl(data)}
    rows = [r for r in stored("verdict_prompts", data) if r["sentences"] and call in r["p"]]
    items: list[dict[str, Any]] = []
    for r in rows:
        meta = lines[r["id"]]["meta"]
        marks = edited(r["sentences"], meta["original_summary"])
        items.append({"label": float(r["label"]), "doc": r["doc"], "p": r["p"][call], "edited": marks,
                      "types": meta.get("edit_types_gpt4") or []})
    labels = [i["label"] for i in items]
    weakest = [min(i["p"]) for i in items]
    # An item identical to its seed has no edited sentence; it is scored by all its sentences.
    located = [min([p for p, e in zip(i["p"], i["edited"]) if e] or i["p"]) for i in items]
    untouched = [min([p for p, e in zip(i["p"], i["edited"]) if not e], default=1.0) for i in items]
    print(f"\n{data.name}: {len(items)} items, {sum(len(i['p']) for i in items)} sentences, "
          f"{sum(sum(i['edited']) for i in items)} edited, call '{call}'")
    print("| item score | items | ROC-AUC | balanced accuracy at 0.5 |\n|---|---:|---:|---:|")
    print(_row("weakest sentence (what the scorer does)", weakest, labels))
    print(_row("weakest edited sentence (edit located)", located, labels))
    # Pooled AUC mixes documents; within each one only the edit differs. If this is much higher than
    # the pooled figure, the judge's level moves with the document and a per-document reference could help.
    docs = [i["doc"] for i in items]
    print(f"\nROC-AUC within each document (mean over {len(set(docs))}): weakest sentence "
          f"{metrics.per_document(metrics.roc_auc, weakest, labels, docs):.3f}, edit located "
          f"{metrics.per_document(metrics.roc_auc, located, labels, docs):.3f}")

    print("\nConsistent items rejected at 0.5, by where the weakest verdict falls:")
    consistent = [i for i in items if i["label"] == 1.0]
    by_edit = sum(min(i["p"]) < THRESHOLD and any(p < THRESHOLD for p, e in zip(i["p"], i["edited"]) if e) for i in consistent)
    by_rest = sum(min(i["p"]) < THRESHOLD and not any(p < THRESHOLD for p, e in zip(i["p"], i["edited"]) if e)
                  for i in consistent)
    print(f"- {by_edit + by_rest} of {len(consistent)}: {by_edit} at an edited sentence (a faithful paraphrase doubted), "
          f"{by_rest} only at sentences shared with the seed")
    shared = [p for i in items for p, e in zip(i["p"], i["edited"]) if not e]
    print(f"- sentences shared with the seed (true by construction when the seed is): {len(shared)}, "
          f"{np.mean(np.less(shared, THRESHOLD)):.0%} below 0.5, median p {np.median(shared):.2f}")

    print("\nEdited sentences: the consistent edits against the inconsistent ones, p(yes) of the weakest edited sentence")
    print("| items | n | median p | share below 0.5 |\n|---|---:|---:|---:|")
    for label, name in ((1.0, "consistent edits (paraphrases)"), (0.0, "inconsistent edits")):
        ps = [loc for loc, i in zip(located, items) if i["label"] == label and any(i["edited"])]
        print(f"| {name} | {len(ps)} | {np.median(ps):.2f} | {np.mean(np.less(ps, THRESHOLD)):.0%} |")

    print("\nInconsistent items by edit type (GPT-4's labels; an item can carry several):")
    print("| edit type | items | caught at 0.5 (weakest sentence) | median p of the weakest edited sentence |\n|---|---:|---:|---:|")
    groups: dict[str, list[int]] = defaultdict(list)
    for k, i in enumerate(items):
        if i["label"] == 0.0:
            for t in i["types"] or ["(none given)"]:
                groups[t].append(k)
    for t, ks in sorted(groups.items(), key=lambda g: -len(g[1])):
        caught = np.mean([weakest[k] < THRESHOLD for k in ks])
        print(f"| {t} | {len(ks)} | {caught:.0%} | {np.median([located[k] for k in ks]):.2f} |")
    miss_untouched = np.mean([u < THRESHOLD for u, i in zip(untouched, items) if i["label"] == 0.0])
    print(f"\n(inconsistent items with a sentence shared with the seed below 0.5: {miss_untouched:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="?", default=DATA)
    parser.add_argument("--call", default="current", help="which stored verdict_prompts.py call to read")
    args = parser.parse_args()
    report(args.data, args.call)


if __name__ == "__main__":
    main()
