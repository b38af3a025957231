"""Claim-verdict probabilities on SummEdits, a threshold, and its held-out accuracy.

    .venv/bin/python benchmarks/experiments/alignment_calibration.py [--model NAME] [--data benchmarks/data/summedits.dev.jsonl] [--per-doc 4] [--out F]

For each item, the scorer's own steps extract the summary's claims and read
the judge's probability that the source supports each claim (questions and
coverage are skipped: SummEdits labels consistency only). An item is predicted
consistent when every claim reaches the threshold, so its score is the
smallest claim probability.

The threshold is chosen to maximise balanced accuracy. Figures are never
reported on the items a threshold was fitted on: documents are split into two
folds, each fold is scored with the threshold fitted on the other, and the
held-out predictions are pooled. The threshold for the registry is then fitted
on all documents. Probabilities are appended to a JSONL file as they are
computed, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from common import RESULTS, dev_set

DATA = dev_set("summedits")


def select(path: Path, per_doc: int) -> list[dict]:
    """Up to per_doc items per document, half of them consistent, in file order."""
    by_doc: dict[str, dict[float, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        by_doc[item["meta"]["doc_id"]][item["label_alignment"]].append(item)
    chosen = []
    for doc in sorted(by_doc):
        for label in sorted(by_doc[doc]):
            chosen.extend(by_doc[doc][label][: per_doc // 2])
    return chosen


def auc(scores: list[float], labels: list[int]) -> float:
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def balanced_accuracy(scores: list[float], labels: list[int], threshold: float) -> float:
    pos = [s >= threshold for s, y in zip(scores, labels) if y]
    neg = [s < threshold for s, y in zip(scores, labels) if not y]
    return (sum(pos) / len(pos) + sum(neg) / len(neg)) / 2


def fit_threshold(scores: list[float], labels: list[int]) -> float:
    """The balanced-accuracy-maximising cut, midway between neighbouring scores."""
    values = sorted(set(scores))
    cuts = [values[0] - 1e-6] + [(a + b) / 2 for a, b in zip(values, values[1:])] + [values[-1] + 1e-6]
    return max(cuts, key=lambda t: (balanced_accuracy(scores, labels, t), -abs(t - 0.5)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--per-doc", type=int, default=4)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    from localsumm import create_summarization_scorer
    from localsumm.summarization import prompts
    from localsumm.summarization.steplog import StepLog

    scorer = create_summarization_scorer(args.model)
    out = args.out or RESULTS / f"summedits-claims.{scorer.judge.info.name}.{prompts.PROMPT_VERSION}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {json.loads(line)["id"]: json.loads(line) for line in out.read_text().splitlines()} if out.exists() else {}
    items = select(args.data, args.per_doc)
    with out.open("a", encoding="utf-8") as sink:
        for n, item in enumerate(items, 1):
            if item["id"] in done:
                continue
            log = StepLog(None)
            claims = scorer.extract_claims(item["summary"], log)
            probabilities = []
            for claim in claims:
                p, call = scorer.judge.yes_probability("alignment", prompts.claim_verdict_messages(item["source"], claim))
                probabilities.append(round(p, 4))
            row = {
                "id": item["id"],
                "doc_id": item["meta"]["doc_id"],
                "label": int(item["label_alignment"]),
                "claims": claims,
                "probabilities": probabilities,
            }
            done[item["id"]] = row
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            print(f"{n}/{len(items)} {item['id']} label={row['label']} min p={min(probabilities, default=0):.3f}", flush=True)

    rows = [done[i["id"]] for i in items if i["id"] in done]
    docs = sorted({r["doc_id"] for r in rows})
    fold = {doc: i % 2 for i, doc in enumerate(docs)}
    score = lambda r: min(r["probabilities"], default=0.0)
    held_scores, held_labels, thresholds = [], [], []
    for k in (0, 1):
        train = [r for r in rows if fold[r["doc_id"]] != k]
        test = [r for r in rows if fold[r["doc_id"]] == k]
        t = fit_threshold([score(r) for r in train], [r["label"] for r in train])
        thresholds.append(t)
        held_scores += [1.0 if score(r) >= t else 0.0 for r in test]
        held_labels += [r["label"] for r in test]
    all_scores, all_labels = [score(r) for r in rows], [r["label"] for r in rows]
    report = {
        "model": scorer.judge.info.name,
        "prompt_version": prompts.PROMPT_VERSION,
        "items": len(rows),
        "documents": len(docs),
        "roc_auc_min_claim_probability": round(auc(all_scores, all_labels), 3),
        "held_out_balanced_accuracy": round(balanced_accuracy(held_scores, held_labels, 0.5), 3),
        "fold_thresholds": [round(t, 4) for t in thresholds],
        "threshold_all_documents": round(fit_threshold(all_scores, all_labels), 4),
        "balanced_accuracy_at_0.5": round(balanced_accuracy(all_scores, all_labels, 0.5), 3),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
