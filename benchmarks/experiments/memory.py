"""Peak memory of one evaluation, from the command line, as a user runs it.

    .venv/bin/python benchmarks/experiments/memory.py [--model NAME] [--n-ctx N] [--source F --summary F] [--stages]

Runs `localsumm score` on the bundled example (or the given files) in a child process and reports
its peak resident set size (ru_maxrss) beside the GGUF file's size: the
judge holds all its weights in memory, so the file size is the floor.

``--stages`` instead scores the example in this process and prints where the
memory goes: resident memory split into file-backed pages (mapped files:
shared libraries, and the weights if llama.cpp maps them) and anonymous ones
(everything allocated), after each stage.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

# Not common.ROOT: importing common imports localsumm, and the first stage is measured before that.
ROOT = Path(__file__).resolve().parents[2]


def _status() -> dict[str, int]:
    """This process's memory counters from /proc, in bytes."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            fields[name] = int(value.split()[0]) * 1024
    return fields


def stages(model: str | None, n_ctx: int | None, source: Path, summary: Path) -> None:
    mb = lambda n: f"{n / 2**20:,.0f}"
    rows: list[tuple[str, dict[str, int]]] = [("python", _status())]
    import localsumm
    from localsumm.backends import open_judge
    from localsumm.models.gguf import kv_bytes_per_token, read_metadata
    from localsumm.summarization.schemas import claim_list, question_list

    rows.append(("import localsumm", _status()))
    judge = open_judge(model, n_ctx=n_ctx)
    rows.append(("llama.cpp model and context loaded", _status()))
    for output_type in (claim_list(), question_list(10)):
        judge.prepare(output_type)  # the index load on its own, before any generation
    rows.append(("outlines indexes for the claims and questions schemas loaded", _status()))
    scorer = localsumm.create_summarization_scorer(judge)
    scorer.run(input=source.read_text(encoding="utf-8"), output=summary.read_text(encoding="utf-8"))
    rows.append(("one evaluation done", _status()))
    print("| after | RSS MiB | file-backed MiB | anonymous MiB | peak RSS MiB |")
    print("|---|---:|---:|---:|---:|")
    for name, st in rows:
        print(f"| {name} | {mb(st['VmRSS'])} | {mb(st['RssFile'])} | {mb(st['RssAnon'])} | {mb(st['VmHWM'])} |")
    kv = kv_bytes_per_token(read_metadata(judge.info.path)) * judge.context_size
    print(f"KV cache for n_ctx {judge.context_size}: {mb(kv)} MiB (f16); GGUF file {mb(Path(judge.info.path).stat().st_size)} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--n-ctx", type=int, default=None)
    # A source of several passages takes the passage path of the questions step (a different grammar).
    parser.add_argument("--source", type=Path, default=ROOT / "examples" / "source.txt")
    parser.add_argument("--summary", type=Path, default=ROOT / "examples" / "summary.txt")
    parser.add_argument("--stages", action="store_true")
    args = parser.parse_args()
    if args.stages:
        return stages(args.model, args.n_ctx, args.source, args.summary)

    from localsumm.models.registry import resolve_model

    resolved = resolve_model(args.model)
    command = [
        sys.executable, "-m", "localsumm.cli", "score", "--json",
        "--source", str(args.source), "--summary", str(args.summary),
        "--model", args.model or resolved.name,
    ] + (["--n-ctx", str(args.n_ctx)] if args.n_ctx else [])
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode:
        sys.exit(done.stderr)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # Linux reports KiB
    size = resolved.path.stat().st_size
    mb = lambda n: f"{n / 2**20:,.0f} MiB"
    score = json.loads(done.stdout)["score"]
    print(f"judge {resolved.name} (n_ctx {args.n_ctx or 'default'}): peak RSS {mb(peak)}; GGUF file {mb(size)}; "
          f"peak - file = {mb(peak - size)}; {seconds:.1f} s; score {score}")


if __name__ == "__main__":
    main()
