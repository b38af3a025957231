"""The bare engine's rates under each llama.cpp build in the wheel cache, side by side in one run.

    .venv/bin/python benchmarks/experiments/build_rates.py [--rounds 2] [--model PATH]

Each build (the portable AVX2 one and the build ``scripts/engine.py`` made for this
CPU) runs in a child process of its own, alternating, ``--rounds`` times: a
512-token prompt batch, 24-token segments after a cached 512-token prefix (a
verdict's tail), and one-token decodes (generation), on a SummEval dev source,
with bare llama-cpp-python (no template, no grammar). Printed as a table and the
ratio of each build to the portable one.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys

from common import ROOT, dev_set

from localsumm.files import read_jsonl
from localsumm.models.registry import default_model_name, get_spec
from localsumm.config.paths import models_dir

spec = importlib.util.spec_from_file_location("engine", ROOT / "scripts" / "engine.py")
engine = importlib.util.module_from_spec(spec)
sys.modules["engine"] = engine
spec.loader.exec_module(engine)

RATES = r"""
import json, sys, time
from llama_cpp import Llama
model, text = sys.argv[1], open(sys.argv[2]).read()
llm = Llama(model_path=model, n_ctx=2048, n_batch=512, n_threads=2, use_mmap=False, verbose=False)
tokens = llm.tokenize(text.encode())
prefix, rest = tokens[:512], tokens[512:]
llm.n_tokens = 0
t = time.perf_counter(); llm.eval(prefix); prompt = 512 / (time.perf_counter() - t)
seconds = 0.0
for i in range(8):
    llm.n_tokens = 512
    t = time.perf_counter(); llm.eval(rest[i * 24 : (i + 1) * 24]); seconds += time.perf_counter() - t
segment = 8 * 24 / seconds
llm.n_tokens = 512
t = time.perf_counter()
for token in rest[:32]:
    llm.eval([token])
generation = 32 / (time.perf_counter() - t)
print(json.dumps({"prompt": prompt, "segment": segment, "generation": generation}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--model", default=None, help="GGUF file (default: the default judge)")
    args = parser.parse_args()
    model = args.model or str(models_dir() / get_spec(default_model_name()).file)
    # A long enough real text: SummEval dev sources joined until 512 + 8 x 24 + 32 tokens are surely there.
    text = " ".join(line["source"] for line in list(read_jsonl(dev_set("summeval")))[:40:8])
    path = engine.CACHE / "rates-text.txt"
    path.write_text(text)
    builds = [b for b in (engine.portable(), engine.fast(engine.cpu_flags())) if b is not None and list(b.wheels.glob("*.whl"))]
    rates: dict[str, list[dict[str, float]]] = {b.name: [] for b in builds}
    for _ in range(args.rounds):
        for build in builds:
            done, _ = engine.run_with(engine.wheel_of(build, sys.executable), sys.executable, [sys.executable, "-c", RATES, model, str(path)], 900)
            if done.returncode:
                raise SystemExit(f"{build.name}: exit {done.returncode}: {done.stderr[-400:]}")
            rates[build.name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    base = engine.portable().name
    print(f"model {model}, 2 threads, {args.rounds} rounds alternating; tokens/s (min–max), ratio of medians to {base}\n")
    print("| build | prompt, 512-token batch | 24-token segment after a cached prefix | generation |")
    print("|---|---:|---:|---:|")
    for name, runs in rates.items():
        cells = []
        for key in ("prompt", "segment", "generation"):
            values = [r[key] for r in runs]
            ratio = statistics.median(values) / statistics.median([r[key] for r in rates[base]])
            cells.append(f"{min(values):.1f}–{max(values):.1f} ({ratio:.2f}×)")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
