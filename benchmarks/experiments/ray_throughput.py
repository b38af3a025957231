"""Ray on one machine: one process with 2 threads against 2 Ray workers with 1 thread each, same items.

    .venv/bin/python benchmarks/experiments/ray_throughput.py [--data benchmarks/data/summeval.dev.jsonl] [--docs 4]
        [--model NAME] [--json OUT]

Both runs score the same summaries (all summaries of the first ``--docs``
documents, in file order) without the judge-call cache, one after the other,
and report wall seconds with and without their set-up (loading the judge; for
Ray also starting the runtime and the workers). The Ray overhead per item is
the workers' time not spent in the judge (worker-seconds from "ready" to the
last result, minus the judge's own seconds, over the items: scheduling,
transfer and any worker idle at the end), and the round trip of an empty call
carrying a result-sized payload.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from common import dev_set, doc_id

from localsumm import Options, create_summarization_scorer, run_evals
from localsumm.files import read_jsonl
from localsumm.runs.cluster import RaySettings, WorkItem, score_on_ray
from localsumm.summarization.scorer import ScorerSpec


def _items(data: Path, docs: int) -> list[dict]:
    lines = read_jsonl(data)
    keep = list(dict.fromkeys(doc_id(line) for line in lines))[:docs]
    return [line for line in lines if doc_id(line) in keep]


def one_process(items: list[dict], model: str | None, threads: int) -> dict:
    start = time.perf_counter()
    scorer = create_summarization_scorer(model, n_threads=threads)
    ready = time.perf_counter()
    run = run_evals([{"id": i["id"], "input": i["source"], "output": i["summary"]} for i in items], [scorer])
    end = time.perf_counter()
    judge = sum(item.scorer_results[scorer.id].seconds for item in run.items)
    scores = {item.id: item.scorer_results[scorer.id].score for item in run.items}
    return {"wall": end - start, "setup": ready - start, "scoring": end - ready, "judge_seconds": judge, "scores": scores}


def on_ray(items: list[dict], model: str | None, workers: int) -> dict:
    marks: dict[str, float] = {}
    outcomes = []
    start = time.perf_counter()

    def ready(infos: list[dict]) -> None:
        marks["ready"] = time.perf_counter()

    def done(outcome) -> None:
        outcomes.append(outcome)
        marks["end"] = time.perf_counter()

    spec = ScorerSpec(model, Options(n_threads=1))
    work = [WorkItem(n, i["source"], i["summary"]) for n, i in enumerate(items)]
    score_on_ray(work, [spec], RaySettings(workers=workers, threads=1), done, on_ready=ready)
    judge = sum(sum(s["seconds"] for s in o.results[spec.id]["provenance"]["steps"]) for o in outcomes)
    busy = workers * (marks["end"] - marks["ready"])
    scores = {items[o.item.index]["id"]: o.results[spec.id]["score"] for o in outcomes}
    return {
        "wall": marks["end"] - start, "setup": marks["ready"] - start, "scoring": marks["end"] - marks["ready"],
        "judge_seconds": judge, "overhead_per_item": (busy - judge) / len(items), "scores": scores,
        "result_bytes": statistics.median(len(json.dumps(o.results)) for o in outcomes),
    }


def round_trip(payload_bytes: int, calls: int = 50) -> float:
    """Median seconds of an empty actor call returning ``payload_bytes`` (a result's JSON size)."""
    import ray

    ray.init(include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        @ray.remote(num_cpus=1)
        class Echo:
            def call(self, n: int) -> dict:
                return {"result": "x" * n}

        echo = Echo.remote()
        ray.get(echo.call.remote(1))
        times = []
        for _ in range(calls):
            t = time.perf_counter()
            ray.get(echo.call.remote(payload_bytes))
            times.append(time.perf_counter() - t)
        return statistics.median(times)
    finally:
        ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=dev_set("summeval"))
    parser.add_argument("--docs", type=int, default=4)
    parser.add_argument("--model", default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    items = _items(args.data, args.docs)
    single = one_process(items, args.model, threads=2)
    ray_run = on_ray(items, args.model, workers=2)
    result_bytes = ray_run["result_bytes"]
    rtt = round_trip(int(result_bytes))
    same = single.pop("scores") == ray_run.pop("scores")
    n = len(items)
    print(f"{n} summaries of {args.docs} documents ({args.data.name}), judge {args.model or 'default'}; same scores: {same}")
    print("| | wall s | set-up s | scoring s | s per item (scoring) | judge s (sum) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in (("one process, 2 threads", single), ("Ray, 2 workers x 1 thread", ray_run)):
        print(f"| {name} | {r['wall']:.1f} | {r['setup']:.1f} | {r['scoring']:.1f} | {r['scoring'] / n:.2f} | {r['judge_seconds']:.1f} |")
    print(f"throughput ratio Ray / one process: {single['scoring'] / ray_run['scoring']:.2f} (scoring), "
          f"{single['wall'] / ray_run['wall']:.2f} (with set-up)")
    print(f"Ray overhead per item: {ray_run['overhead_per_item']:.2f} s of worker time not in the judge "
          f"({ray_run['overhead_per_item'] / (ray_run['judge_seconds'] / n):.1%} of the judge's {ray_run['judge_seconds'] / n:.1f} s); "
          f"round trip of an empty call with a {int(result_bytes):,}-byte payload: {1000 * rtt:.1f} ms")
    if args.json:
        args.json.write_text(json.dumps({"items": n, "same_scores": same, "one_process": single, "ray": ray_run,
                                         "round_trip_seconds": rtt}, indent=1))


if __name__ == "__main__":
    main()
