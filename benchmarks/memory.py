"""Peak memory of one evaluation, from the command line, as a user runs it.

    .venv/bin/python benchmarks/memory.py [--model NAME] [--n-ctx N]

Runs `localsumm score` on the bundled example in a child process and reports
its peak resident set size (ru_maxrss) beside the GGUF file's size: the
weights are memory-mapped, so the file size is the floor.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=None)
    parser.add_argument("--n-ctx", type=int, default=None)
    args = parser.parse_args()

    from localsumm.registry import resolve_model

    resolved = resolve_model(args.model)
    command = [
        sys.executable, "-m", "localsumm.cli", "score", "--json",
        "--source", str(ROOT / "examples" / "source.txt"), "--summary", str(ROOT / "examples" / "summary.txt"),
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
    print(f"judge {resolved.name} (n_ctx {args.n_ctx or 'default'}): peak RSS {mb(peak)}; GGUF file {mb(size)}; "
          f"peak - file = {mb(peak - size)}; {seconds:.1f} s")


if __name__ == "__main__":
    main()
