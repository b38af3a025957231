"""The literal check (``localsumm.literals``) on stored sentence verdicts: alignment with and without it.

    .venv/bin/python benchmarks/literal_check.py DATA.jsonl [DATA.jsonl ...] [--call current] [--show]

Reads the sentence verdicts ``verdict_prompts.py`` stored (no model is
loaded). A sentence with a number or capitalised name found nowhere in its
source counts as unsupported (probability 0), as the scorer now judges it;
the rest keep the judge's probability. Reported with the measures of
``verdict_prompts.py`` (ROC-AUC and balanced accuracy for binary labels,
per-document and pooled Spearman for graded ones), plus how many sentences the
check refused in items labelled consistent and inconsistent, and a paired
bootstrap over documents of the first measure's change. ``--show`` lists every
refused sentence with its label, to read the check's mistakes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from localsumm.files import read_jsonl
from localsumm.literals import unmatched_literals

from verdict_prompts import measures, stored


def report(data: Path, call: str, show: bool) -> None:
    sources = {line["id"]: line["source"] for line in read_jsonl(data)}
    rows = [r for r in stored("verdict_prompts", data) if r["sentences"] and call in r["p"]]
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
    first = next(iter(ms))
    by_doc: dict[str, list[int]] = {}
    for i, d in enumerate(docs):
        by_doc.setdefault(d, []).append(i)
    units = list(by_doc.values())
    rng = np.random.default_rng(0)
    changes, values = [], []
    for _ in range(2000):
        draw = rng.integers(0, len(units), len(units))
        idx = [i for u in draw for i in units[u]]
        d = [str(k) for k, u in enumerate(draw) for _ in units[u]]  # a document drawn twice is two groups
        y = [labels[i] for i in idx]
        pair = ms[first]([plain[i] for i in idx], y, d), ms[first]([checked[i] for i in idx], y, d)
        if not np.isnan(pair[1] - pair[0]):
            changes.append(pair[1] - pair[0])
            values.append(pair)
    point = ms[first](checked, labels, docs) - ms[first](plain, labels, docs)
    low, high = np.percentile(changes, [2.5, 97.5])
    print(f"- change of {first}: {point:+.3f} [{low:+.3f}, {high:+.3f}] (paired, documents resampled, 2,000 draws)")
    for name, column in (("judge only", 0), ("judge + literal check", 1)):
        low, high = np.percentile([v[column] for v in values], [2.5, 97.5])
        print(f"- {first}, {name}: 95% interval [{low:.3f}, {high:.3f}] (same draws)")
    if show:
        for r, fs, y in zip(rows, flags, labels):
            for s, f in zip(r["sentences"], fs):
                if f:
                    print(f"  label {y:.2f} {f}: {s}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="+")
    parser.add_argument("--call", default="current", help="which stored verdict_prompts.py call to read")
    parser.add_argument("--show", action="store_true", help="list every sentence the check refused")
    args = parser.parse_args()
    for data in args.data:
        report(data, args.call, args.show)


if __name__ == "__main__":
    main()
