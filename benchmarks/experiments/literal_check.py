"""The literal check (``localsumm.summarization.literals``) on stored sentence verdicts: alignment with and without it.

    .venv/bin/python benchmarks/experiments/literal_check.py DATA.jsonl [DATA.jsonl ...] [--call current] [--show]

Reads the sentence verdicts ``verdict_prompts.py`` stored (no model is
loaded). A sentence with a number or capitalised name found nowhere in its
source counts as unsupported (probability 0), as the scorer now judges it;
the rest keep the judge's probability. Reported with the measures of
``verdict_prompts.py`` (ROC-AUC and balanced accuracy for binary labels,
per-document and pooled Spearman for graded ones), plus how many sentences the
check refused in items labelled consistent and inconsistent, and a paired
bootstrap over documents of the first measure's change, and what other
alignment thresholds would give. Every file, labelled or not (RoSE,
REALSumm), first gets the count of summary sentences the check refuses, from
the text alone, each listed. ``--show`` lists every refused sentence of the
stored verdicts with its label, to read the check's mistakes.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable

import numpy as np
from localsumm.bench import metrics
from localsumm.files import read_jsonl
from localsumm.summarization.literals import unmatched_literals
from localsumm.text import sentences, shorten

from common import fold_thresholds, measures, stored

SWEEP = (0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)


def refusals(data: Path) -> None:
    """How many summary sentences of ``data`` the check refuses, from the text alone (labelled or not)."""
    lines = read_jsonl(data)
    found = [(u, s) for line in lines for s in sentences(line["summary"]) if (u := unmatched_literals(s, line["source"]))]
    total = sum(len(sentences(line["summary"])) for line in lines)
    print(f"\n{data.name}: the check refuses {len(found)} of {total} summary sentences")
    for unmatched, sentence in found:
        print(f"  {unmatched}: {shorten(sentence, 120)}")


def report(data: Path, call: str, show: bool) -> None:
    sources = {line["id"]: line["source"] for line in read_jsonl(data)}
    rows = [r for r in stored("verdict_prompts", data) if r["sentences"] and call in r["p"]]
    if not rows:
        print(f"(no stored '{call}' verdicts for {data.name}: run verdict_prompts.py on it first)")
        return
    labels = [float(r["label"]) for r in rows]
    docs = [r["doc"] for r in rows]
    binary = set(labels) <= {0.0, 1.0}
    plain = [r["p"][call] for r in rows]
    flags = [[unmatched_literals(s, sources[r["id"]]) for s in r["sentences"]] for r in rows]
    checked = [[0.0 if f else p for p, f in zip(ps, fs)] for ps, fs in zip(plain, flags)]
    ms = measures(binary)
    print(f"\n{data.name}: {len(rows)} items, {len(set(docs))} documents, {sum(map(len, plain))} sentences, call '{call}'")
    print("| alignment | " + " | ".join(ms) + " |\n|---|" + "---:|" * len(ms))
    for name, ps in (("judge only", plain), ("judge + literal check", checked)):
        print(f"| {name} | " + " | ".join(f"{m(ps, labels, docs):.3f}" for m in ms.values()) + " |")
    # Graded labels: "consistent" means the top label (SummEval: all three experts gave 5).
    top = max(labels)
    for name, wanted in (("consistent", True), ("inconsistent", False)):
        items = [fs for fs, y in zip(flags, labels) if (y == top) == wanted]
        refused = sum(bool(f) for fs in items for f in fs)
        print(f"- items labelled {name} ({len(items)}): {refused} of {sum(map(len, items))} sentences refused, "
              f"in {sum(any(fs) for fs in items)} items")

    first = ms[next(iter(ms))]

    def on(ps: list[list[float]]) -> Callable[[np.ndarray], float]:
        return lambda idx: first([ps[i] for i in idx], [labels[i] for i in idx], [docs[i] for i in idx])

    point = first(checked, labels, docs) - first(plain, labels, docs)
    low, high = metrics.bootstrap_ci(lambda idx: on(checked)(idx) - on(plain)(idx), len(rows), groups=docs, resamples=2000)
    print(f"- change of {next(iter(ms))}: {point:+.3f} [{low:+.3f}, {high:+.3f}] (paired, documents resampled, 2,000 draws)")
    for name, ps in (("judge only", plain), ("judge + literal check", checked)):
        low, high = metrics.bootstrap_ci(on(ps), len(rows), groups=docs, resamples=2000)
        print(f"- {next(iter(ms))}, {name}: 95% interval [{low:.3f}, {high:.3f}] (same draws)")
    sweep(checked, labels, docs, binary)
    if show:
        for r, fs, y in zip(rows, flags, labels):
            for s, f in zip(r["sentences"], fs):
                if f:
                    print(f"  label {y:.2f} {f}: {s}")


def sweep(ps: list[list[float]], labels: list[float], docs: list[str], binary: bool) -> None:
    """What another alignment threshold would give, with the check on: the case for keeping 0.5."""
    if binary:
        weakest = [min(p) for p in ps]
        _, fitted = fold_thresholds(weakest, labels, docs)
        print(f"- thresholds fitted on each half of the documents: {fitted[0]:.2f}, {fitted[1]:.2f}")
        print("| threshold | " + " | ".join(f"{t:.2f}" for t in SWEEP) + " |\n|---|" + "---:|" * len(SWEEP))
        print("| balanced accuracy, all sentences >= t | "
              + " | ".join(f"{metrics.balanced_accuracy([w >= t for w in weakest], labels):.3f}" for t in SWEEP) + " |")
    else:
        print("| threshold | " + " | ".join(f"{t:.2f}" for t in SWEEP) + " |\n|---|" + "---:|" * len(SWEEP))
        fraction = lambda t: [sum(x >= t for x in p) / len(p) for p in ps]  # noqa: E731
        print("| Spearman per document, fraction >= t | "
              + " | ".join(f"{metrics.per_document(metrics.spearman, fraction(t), labels, docs):.3f}" for t in SWEEP) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="+")
    parser.add_argument("--call", default="current", help="which stored verdict_prompts.py call to read")
    parser.add_argument("--show", action="store_true", help="list every sentence the check refused")
    args = parser.parse_args()
    for data in args.data:
        refusals(data)
        report(data, args.call, args.show)


if __name__ == "__main__":
    main()
