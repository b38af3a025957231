"""Seconds per evaluation of a judge on SummEval dev items (one summary per source).

    .venv/bin/python benchmarks/speed.py [--model NAME] [--items N]

Reports the model load time, then per evaluation: wall seconds, model calls,
prompt tokens evaluated / reused from the KV cache, generated tokens. Each item
has a source not seen before in the process, so nothing is shared between items
except the loaded model. Figures go to stdout as a Markdown table and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "summeval.dev.jsonl"


def first_item_per_source(path: Path, n: int) -> list[dict]:
    seen, items = set(), []
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        doc = item["meta"]["doc_id"]
        if doc not in seen:
            seen.add(doc)
            items.append(item)
        if len(items) == n:
            break
    return items


def raw_engine_rates(judge, text: str, generated: int = 32) -> tuple[float, float]:
    """Prompt and generation tokens/s of the bare engine on the same GGUF, measured now."""
    llm = judge._llm
    tokens = llm.tokenize(text.encode("utf-8"), add_bos=False)
    llm.n_tokens = 0  # forget the KV cache: every token is evaluated
    start = time.perf_counter()
    llm.eval(tokens)
    prompt_rate = len(tokens) / (time.perf_counter() - start)
    start = time.perf_counter()
    for token in tokens[:generated]:
        llm.eval([token])  # one token per decode, as generation does
    generation_rate = generated / (time.perf_counter() - start)
    llm.n_tokens = 0
    return prompt_rate, generation_rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="registry name or GGUF path (default judge if omitted)")
    parser.add_argument("--items", type=int, default=5)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()

    from localsumm import create_summarization_scorer

    start = time.perf_counter()
    scorer = create_summarization_scorer(args.model)
    load = time.perf_counter() - start
    print(f"model {scorer.judge.info.name}: load and verify {load:.1f} s, threads {getattr(scorer.judge, 'n_threads', '?')}")
    print("| item | seconds | calls | prompt tokens (evaluated / reused) | generated tokens | score |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = []
    for item in first_item_per_source(args.data, args.items):
        t = time.perf_counter()
        result = scorer.run(input=item["source"], output=item["summary"])
        seconds = time.perf_counter() - t
        steps = result.provenance.steps
        row = {
            "id": item["id"],
            "seconds": round(seconds, 2),
            "calls": sum(s.calls for s in steps),
            "prompt_tokens": sum(s.prompt_tokens for s in steps),
            "reused_prompt_tokens": sum(s.reused_prompt_tokens for s in steps),
            "completion_tokens": sum(s.completion_tokens for s in steps),
            "score": result.score,
            "per_step_seconds": {s.step: round(s.seconds, 2) for s in steps},
        }
        rows.append(row)
        print(
            f"| {row['id']} | {row['seconds']:.1f} | {row['calls']} | {row['prompt_tokens']} / {row['reused_prompt_tokens']} "
            f"| {row['completion_tokens']} | {row['score']} |",
            flush=True,
        )
    prompt_rate, generation_rate = raw_engine_rates(scorer.judge, first_item_per_source(args.data, 1)[0]["source"])
    for row in rows:
        floor = row["prompt_tokens"] / prompt_rate + row["completion_tokens"] / generation_rate
        row["engine_floor_seconds"] = round(floor, 2)
        row["ratio_to_floor"] = round(row["seconds"] / floor, 2)
    secs = [r["seconds"] for r in rows]
    summary = {
        "model": scorer.judge.info.name,
        "items": len(rows),
        "load_seconds": round(load, 2),
        "median_seconds": round(statistics.median(secs), 2),
        "min_seconds": min(secs),
        "max_seconds": max(secs),
        "raw_prompt_tokens_per_second": round(prompt_rate, 1),
        "raw_generation_tokens_per_second": round(generation_rate, 1),
        "median_ratio_to_engine_floor": statistics.median(r["ratio_to_floor"] for r in rows),
        "rows": rows,
    }
    print(f"\nmedian {summary['median_seconds']} s per evaluation (min {min(secs)}, max {max(secs)}), load {load:.1f} s")
    print(
        f"raw llama.cpp in the same run: {prompt_rate:.1f} prompt tokens/s, {generation_rate:.1f} generated tokens/s; "
        f"median time / engine floor (the same token counts at the raw rates) = {summary['median_ratio_to_engine_floor']}"
    )
    print(json.dumps(summary), file=sys.stderr)


if __name__ == "__main__":
    main()
