"""The cost of a long source, judged in windows, as a function of its length.

    .venv/bin/python benchmarks/experiments/long_source.py [--lengths 1000 4000 16000] [--model NAME]

Sources of about 1k, 4k and 16k judge tokens are built by joining distinct dev
sources (SummEval first, then the other dev sets) and cut at a sentence end;
the summary is the first SummEval dev summary, which is about the first
article. Each length is scored once, cold (no question set shared, no cache),
in one process, with the judge's default context. Per length: windows, model
calls, prompt tokens the engine evaluated (and reused), generated tokens, and
seconds.
"""

from __future__ import annotations

import argparse
import json
import time

from localsumm import create_summarization_scorer
from localsumm.backends import open_judge
from localsumm.summarization.windows import spans

from common import dev_set


def distinct_sources() -> list[str]:
    seen: list[str] = []
    for name in ("summeval", "summedits", "realsumm", "rose"):
        for line in dev_set(name).open(encoding="utf-8"):
            source = json.loads(line)["source"]
            if source not in seen:
                seen.append(source)
    return seen


def source_of(tokens: int, count) -> str:
    text = ""
    for source in distinct_sources():
        text += ("\n\n" if text else "") + source
        if count(text) >= tokens:
            break
    # Cut at the last sentence end within the budget.
    cut = 0
    for _, end in spans(text):
        if count(text[:end]) > tokens:
            break
        cut = end
    return text[:cut]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[1000, 4000, 16000])
    parser.add_argument("--model", default=None)
    args = parser.parse_args()

    judge = open_judge(args.model)
    summary = json.loads(dev_set("summeval").open(encoding="utf-8").readline())["summary"]
    print(f"judge {judge.info.name}, context {judge.context_size} tokens")
    print("| source tokens | windows | calls | prompt tokens evaluated | reused | generated | seconds | seconds per 1k source tokens |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for length in args.lengths:
        source = source_of(length, judge.count_tokens)
        scorer = create_summarization_scorer(judge)  # a fresh scorer: no question set shared between lengths
        start = time.perf_counter()
        result = scorer.run(input=source, output=summary)
        seconds = time.perf_counter() - start
        steps = result.provenance.steps
        windows = len(result.provenance.source_windows or [None])
        n = judge.count_tokens(source)
        print(
            f"| {n:,} | {windows} | {sum(s.calls for s in steps)} | {sum(s.prompt_tokens for s in steps):,} | "
            f"{sum(s.reused_prompt_tokens for s in steps):,} | {sum(s.completion_tokens for s in steps)} | "
            f"{seconds:.0f} | {seconds / n * 1000:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
