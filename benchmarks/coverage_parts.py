"""K (key facts only) and Q (passage questions only), from today's (C0) verdicts: the systems set's tau per half and
the stress set's mean |coverage change|. Pre-registered in preregistered/coverage-wording-2026-12-06.md (lab).

    python benchmarks/coverage_parts.py systems.jsonl q.jsonl   # where coverage_candidates.py wrote exp/C0.stress.jsonl
"""

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import coverage_candidates as c  # noqa: E402

from localsumm.bench import metrics  # noqa: E402
from localsumm.bench.calibrate import split_documents  # noqa: E402
from localsumm.bench.items import bigram_overlap  # noqa: E402
from localsumm.summarization.questionset.model import source_sha256  # noqa: E402


def part(ps: list[float], r: dict, which: str, qf: dict) -> list[float]:
    """The verdicts of one part: a question file's questions come first, its key facts after."""
    n = len(qf[source_sha256(r["source"])]["questions"])
    return {"C0": ps, "K": ps[n:], "Q": ps[:n]}[which]


def main(results: str, questions: str) -> None:
    qf = {q["source_sha256"]: q for q in map(json.loads, open(questions))}
    scored = {r["id"]: r for r in map(json.loads, open(results))}
    recs, srecs, sgot = c.records("systems"), c.records("stress"), c.load("C0", "stress")
    fit, rep = split_documents([r["meta"]["doc_id"] for r in recs])
    for hname, half in (("fit", fit), ("report", rep), ("all", fit | rep)):
        for w in ("C0", "K", "Q"):
            by = defaultdict(list)
            for r in (r for r in recs if r["meta"]["doc_id"] in half):
                verdicts = scored[r["id"]]["localsumm"]["result"]["analyze_step_result"]["coverage"]
                cov = c.coverage(part([v["probability"] for v in verdicts], r, w, qf))
                bigram = bigram_overlap(r["summary"], r["source"], split_punctuation=True)
                by[r["meta"]["system"]].append((cov, r["label_coverage"], bigram, len(r["summary"].split())))
            m = np.array([np.mean(v, axis=0) for v in by.values()])
            pairs: dict[str, dict[str, list[float]]] = defaultdict(dict)
            for r in (r for r in srecs if r["meta"]["doc_id"] in half):
                pairs[r["meta"]["pair"]][r["meta"]["variant"]] = part(sgot[r["id"]], r, w, qf)
            d = [abs(c.coverage(v["paraphrase"]) - c.coverage(v["original"])) for v in pairs.values()]
            taus = [metrics.kendall(m[:, 0], m[:, k]) for k in (1, 2, 3)]
            print(
                f"{hname:6s} {w}: tau relevance {taus[0]:.2f} bigram {taus[1]:.2f} length {taus[2]:.2f}"
                f" | stress |coverage change| {np.mean(d):.3f} (n {len(d)})"
            )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
