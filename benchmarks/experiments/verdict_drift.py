"""How far two results files of the same items differ, verdict by verdict (e.g. two llama.cpp builds).

    .venv/bin/python benchmarks/experiments/verdict_drift.py A.jsonl B.jsonl

On the items both scored: items whose question sets differ (generation took
another path), and over the verdicts asked in both (same claim, or same
question, of the same item) the largest and mean difference of the judge's
probability and how many verdicts flipped; the largest score difference.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from localsumm.runs.results import read_results


def verdicts(result) -> dict[tuple[str, str], tuple[float, bool]]:
    out = {("claim", v.claim): (v.probability or 0.0, v.supported) for v in result.preprocess_step_result.alignment}
    out.update({("question", v.question): (v.probability or 0.0, v.answered) for v in result.analyze_step_result.coverage})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    args = parser.parse_args()
    a = {line.id: line.result for line in read_results(args.a) if line.result is not None}
    b = {line.id: line.result for line in read_results(args.b) if line.result is not None}
    both = [i for i in a if i in b]
    other_questions = sum(a[i].preprocess_step_result.questions != b[i].preprocess_step_result.questions for i in both)
    differences, flipped, score = [], 0, 0.0
    for i in both:
        va, vb = verdicts(a[i]), verdicts(b[i])
        for key in va.keys() & vb.keys():
            differences.append(abs(va[key][0] - vb[key][0]))
            flipped += va[key][1] != vb[key][1]
        score = max(score, abs(a[i].score - b[i].score))
    print(f"{len(both)} items in both; {other_questions} with different question sets")
    if differences:
        print(f"{len(differences)} verdicts in both: largest probability difference {max(differences):.4f}, "
              f"mean {sum(differences) / len(differences):.5f}, {flipped} flipped")
    print(f"largest score difference {score:.4f}")


if __name__ == "__main__":
    main()
