"""Coverage at equal length (issue 47), as pre-registered in preregistered/coverage-at-equal-length-2026-12-07.md.

Lab script, not product. Over every summary of a results file, coverage on summary length (words) with one intercept
per source gives one slope b; a summary's coverage at equal length is coverage - b * (words - its source's mean words).
Fitted on the results alone, never on the experts' ratings. Prints, on the fit half, the report half and all documents:
tau over systems of it and of coverage with the experts' relevance (100- / 12-document means), its tau with bigram
overlap and length (the dev test), and the per-document Spearman with relevance, it minus coverage, paired by document.

    python benchmarks/equal_length.py systems.jsonl [summeval-dev-results.jsonl]

A second file (SummEval dev: 8 systems a document) gets the per-document figure only.
"""

from __future__ import annotations

import sys

import numpy as np
from coverage_diagnosis import EXPERTS, item_table, load, paired_per_document

from localsumm.bench.calibrate import split_documents
from localsumm.bench.metrics import kendall, spearman
from localsumm.bench.systems import read_expert_means
from localsumm.text import tokens


def at_equal_length(coverage: np.ndarray, words: np.ndarray, docs: np.ndarray) -> tuple[np.ndarray, float]:
    """(each summary's coverage at its source's mean length, the pooled within-source slope per word)."""
    centred = {d: words[docs == d].mean() for d in set(docs)}
    x = words - np.array([centred[d] for d in docs])
    y = coverage - np.array([coverage[docs == d].mean() for d in docs])
    slope = float(x @ y / (x @ x)) if x @ x else 0.0  # OLS with one intercept per source = on the centred values
    return coverage - slope * x, slope


def per_document_difference(t: dict[str, np.ndarray], a: np.ndarray, b: np.ndarray) -> str:
    """Mean per-document Spearman with relevance of a, of b, and a - b with its interval (documents resampled)."""
    n, first, second, diff, low, high = paired_per_document(
        spearman, list(a), list(b), list(t["relevance"]), list(t["doc"])
    )
    return (
        f"per document ({n}): {first:.3f} against coverage's {second:.3f}, "
        f"difference {diff:+.3f} [{low:+.3f}, {high:+.3f}]"
    )


def report(t: dict[str, np.ndarray], keep: set[str], name: str, ranked: bool) -> None:
    sel = np.isin(t["doc"], list(keep))
    part = {k: v[sel] for k, v in t.items()}
    la, slope = at_equal_length(part["coverage"], part["words"], part["doc"])
    print(f"\n{name}: {len(keep)} documents, {sel.sum()} summaries; b = {slope * 10:+.3f} coverage per 10 words")
    if ranked:
        systems = sorted(set(part["system"]), key=lambda s: int(s[1:]))
        hundred = read_expert_means(EXPERTS, systems)["relevance"]

        def means(v: np.ndarray) -> np.ndarray:
            return np.array([v[part["system"] == s].mean() for s in systems])

        for label, v in (("at equal length", la), ("coverage", part["coverage"])):
            m = means(v)
            taus = [
                kendall(m, y) for y in (hundred, means(part["relevance"]), means(part["bigram"]), means(part["words"]))
            ]
            print(f"  {label}: tau relevance {taus[0]:.2f} / {taus[1]:.2f}; bigram {taus[2]:.2f}, length {taus[3]:.2f}")
    print("  " + per_document_difference(part, la, part["coverage"]))


def main(paths: list[str]) -> None:
    for i, path in enumerate(paths):
        rows = load(path)
        t = item_table(rows)
        t["words"] = np.array([float(len(tokens(r["summary"]))) for r in rows])
        fit, held = split_documents(list(t["doc"]))
        print(f"{path}: {len(rows)} scored summaries")
        for keep, name in ((fit, "fit half"), (held, "report half"), (fit | held, "all documents")):
            report(t, keep, name, ranked=i == 0)


if __name__ == "__main__":
    main(sys.argv[1:])
