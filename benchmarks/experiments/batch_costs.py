"""Where the time of a `localsumm eval` run went, from its results file.

    .venv/bin/python benchmarks/experiments/batch_costs.py RESULTS.jsonl

Per step: calls, seconds and cached calls. The effect of shared question sets is
measured in the same run: the mean time of the items that generated their
source's questions against the mean time of the items that reused them.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

from localsumm.runs.results import read_results


def main(path: Path) -> None:
    lines = read_results(path)
    scored = [line.result for line in lines if line.result is not None]
    per_step: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    first_items: list[float] = []
    shared_items: list[float] = []
    total = 0.0
    for result in scored:
        prov = result.provenance
        item_seconds = sum(step.seconds for step in prov.steps)
        for step in prov.steps:
            for key in ("calls", "seconds", "cached_calls", "prompt_tokens", "completion_tokens"):
                per_step[step.step][key] += getattr(step, key)
            total += step.seconds
        (shared_items if "questions" in prov.shared_steps else first_items).append(item_seconds)
    print(f"{len(scored)} scored items of {len(lines)}; model time {total:.1f} s ({total / max(len(scored), 1):.1f} s per item)")
    print("| step | calls | cached calls | seconds | prompt tokens | generated tokens |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, s in per_step.items():
        print(f"| {name} | {s['calls']:.0f} | {s['cached_calls']:.0f} | {s['seconds']:.1f} | {s['prompt_tokens']:.0f} | {s['completion_tokens']:.0f} |")
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0
    ratio = f" ({mean(shared_items) / mean(first_items):.0%} of a first item)" if mean(first_items) else ""
    print(f"items that generated their source's questions: {len(first_items)}, {mean(first_items):.1f} s each; "
          f"items that reused them: {len(shared_items)}, {mean(shared_items):.1f} s each{ratio}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    main(parser.parse_args().results)
