"""A new source and a later summary of it, timed with an earlier commit's scorer and with this checkout's, in one run.

Issue 17 bounds its additions by "today's time per evaluation" on the day it was filed (commit
``d122e16``). What a user ran that day was that commit's code on the engine build its set-up
installed, the portable AVX2 one (the AVX-512 build came with issue 19, the next morning). Times
taken on different days are not comparable on these machines, so each arm runs here, item by
item, in turn (the arms' order rotates), each in a fresh process:

- ``then``: the commit's code (a detached git worktree) on the portable wheel that set-up keeps
  in its cache (``--then-build``; installed into a temporary folder ahead of the venv's own);
- ``then, this build``: the commit's code on the venv's engine (the code's share of the change);
- ``now``: this checkout on the venv's engine, as ``make`` installs it.

Each process loads the default judge, scores a two-sentence warm-up (its grammars' token indexes,
the allocator), then the first summary of a source (a *new source*) and the next summary of the
same source (a *later summary*), with no judge-call cache. Only the package's public API is used.

    .venv/bin/python benchmarks/experiments/cost_since.py --commit d122e16 --items 5   # about 20 minutes
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import DATA, ROOT

from localsumm.bench.speed import first_item_per_source, later_items  # the items bench speed times

WHEELS = Path.home() / ".cache" / "localsumm" / "wheels"

CHILD = r"""
import json, sys, time
import llama_cpp, localsumm
from localsumm import create_summarization_scorer
job = json.loads(sys.argv[1])
scorer = create_summarization_scorer(cache=False)
scorer.run(input="The council approved the new budget on Monday. It pays for two new schools.", output="The council approved a budget.")
out = {"localsumm": localsumm.__file__, "llama_cpp": llama_cpp.__file__, "system": llama_cpp.llama_print_system_info().decode()}
for key in ("first", "later"):
    item = job[key]
    start = time.perf_counter()
    result = scorer.run(input=item["source"], output=item["summary"])
    out[key] = {"seconds": time.perf_counter() - start, "score": result.score}
print(json.dumps(out))
"""


def run_arm(code: Path, wheel_dir: Path | None, first: dict[str, Any], later: dict[str, Any]) -> dict[str, Any]:
    paths = [str(wheel_dir)] if wheel_dir else []
    env_path = ":".join([*paths, str(code)])
    job = json.dumps({k: {"source": v["source"], "summary": v["summary"]} for k, v in (("first", first), ("later", later))})
    done = subprocess.run(
        [sys.executable, "-c", CHILD, job], capture_output=True, text=True, cwd=code,
        env={**os.environ, "PYTHONPATH": env_path},
    )
    if done.returncode:
        raise SystemExit(f"the arm in {code} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commit", default="d122e16", help="the earlier scorer (default: the commit issue 17 was filed at)")
    parser.add_argument("--then-build", default="avx2", help="the engine build the earlier set-up installed (a folder of the wheel cache)")
    parser.add_argument("--data", type=Path, default=DATA / "summeval.dev.jsonl")
    parser.add_argument("--items", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write every timing here")
    args = parser.parse_args()

    wheels = sorted((WHEELS / f"llama-cpp-python-0.3.36-{args.then_build}").glob("*.whl"))
    if not wheels:
        raise SystemExit(f"no {args.then_build} wheel in {WHEELS}: run `make` (it keeps the portable wheel there)")
    firsts = first_item_per_source(args.data, args.items)
    laters = later_items(args.data, firsts)
    if None in laters:
        raise SystemExit(f"{args.data.name}: {firsts[laters.index(None)]['id']} has no second summary of its source")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="localsumm-then-") as tmp:
        then_code, then_engine = Path(tmp) / "code", Path(tmp) / "engine"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(then_code), args.commit], check=True)
        try:
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(then_engine), str(wheels[-1])], check=True)
            arms = {"then": (then_code, then_engine), "then, this build": (then_code, None), "now": (ROOT, None)}
            names = list(arms)
            for i, (first, later) in enumerate(zip(firsts, laters)):
                order = names[i % len(names):] + names[: i % len(names)]
                for name in order:
                    out = run_arm(*arms[name], first, later)
                    rows.append({"item": first["id"], "arm": name, **out})
                    print(f"{first['id']}  {name:17s} new source {out['first']['seconds']:6.1f} s  later {out['later']['seconds']:5.1f} s", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(then_code)], check=False)

    report(rows, firsts, names)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


def report(rows: list[dict[str, Any]], firsts: list[dict[str, Any]], names: list[str]) -> None:
    def seconds(arm: str, key: str) -> list[float]:
        return [next(r[key]["seconds"] for r in rows if r["item"] == f["id"] and r["arm"] == arm) for f in firsts]

    print(f"\n{len(firsts)} items; median seconds (min–max); ratio = now / arm, median per item")
    for key, label in (("first", "new source"), ("later", "later summary")):
        now = seconds("now", key)
        for arm in names:
            s = seconds(arm, key)
            ratio = statistics.median(n / x for n, x in zip(now, s))
            print(f"  {label:13s} {arm:17s} {statistics.median(s):6.1f} s ({min(s):.1f}–{max(s):.1f})   now / {arm}: {ratio:.2f}")


if __name__ == "__main__":
    main()
