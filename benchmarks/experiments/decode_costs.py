"""What one llama.cpp decode of n tokens costs against one of a single token, on the build in use.

    .venv/bin/python benchmarks/experiments/decode_costs.py [--model PATH] [--repeats 7]

Two engine levers rest on a batch of a few tokens costing little more than one token: prompt-lookup
drafts (1 token + up to 3 drafted ones per decode) and decoding independent generations side by
side (a source's passage questions and its highlights: 3 to 5 sequences). Here: after a cached
400-token prefix (a SummEval dev source), one decode of n tokens with the logits of every token,
as a verified draft needs them; the median of ``--repeats`` (bare llama-cpp-python, 2 threads).
"""

from __future__ import annotations

import argparse
import statistics
import time

from common import dev_set

from localsumm.config.paths import models_dir
from localsumm.files import read_jsonl
from localsumm.models.registry import default_model_name, get_spec

SIZES = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 24, 32, 64)
PREFIX = 400
SEQUENCES = 16  # the judge's side-by-side limit (PARALLEL_SEQUENCES)


def main() -> None:
    import llama_cpp
    from llama_cpp import Llama

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="a .gguf path (default: the default judge)")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    model = args.model or str(models_dir() / get_spec(default_model_name()).file)
    llm = Llama(model_path=model, n_ctx=16, n_threads=2, use_mmap=False, verbose=False)  # the weights; the context is ours
    params = llama_cpp.llama_context_default_params()
    params.n_ctx, params.n_batch, params.n_ubatch = 2048, 512, 512
    params.n_threads = params.n_threads_batch = 2
    params.n_seq_max, params.kv_unified = SEQUENCES + 1, True  # as the judge's context holds its side-by-side verdicts
    ctx = llama_cpp.llama_init_from_model(llm.model, params)
    memory = llama_cpp.llama_get_memory(ctx)
    batch = llama_cpp.llama_batch_init(512, 0, SEQUENCES + 1)
    text = " ".join(line["source"] for line in list(read_jsonl(dev_set("summeval")))[:40:8])
    tokens = llm.tokenize(text.encode())
    if len(tokens) < PREFIX + max(SIZES):
        raise SystemExit("the dev sources are too short for the largest batch")

    def decode(rows: list[tuple[int, int, int]]) -> float:
        """One llama_decode of (token, position, sequence) rows, each with its logits; its seconds."""
        for k, (token, pos, seq) in enumerate(rows):
            batch.token[k], batch.pos[k], batch.n_seq_id[k], batch.seq_id[k][0], batch.logits[k] = token, pos, 1, seq, True
        batch.n_tokens = len(rows)
        start = time.perf_counter()
        if llama_cpp.llama_decode(ctx, batch) != 0:
            raise SystemExit("llama_decode failed")
        return time.perf_counter() - start

    decode([(t, i, 0) for i, t in enumerate(tokens[:PREFIX])][:512])
    rest = tokens[PREFIX:]

    def one_sequence(n: int) -> float:  # a token and n - 1 drafted after it
        seconds = decode([(rest[i], PREFIX + i, 0) for i in range(n)])
        llama_cpp.llama_memory_seq_rm(memory, 0, PREFIX, -1)
        return seconds

    def side_by_side(n: int) -> float:  # the next token of n generations that share the prefix
        for seq in range(1, n + 1):
            llama_cpp.llama_memory_seq_cp(memory, 0, seq, 0, PREFIX)
        seconds = decode([(rest[seq], PREFIX, seq) for seq in range(1, n + 1)])
        for seq in range(1, n + 1):
            llama_cpp.llama_memory_seq_rm(memory, seq, -1, -1)
        return seconds

    timed = {name: {n: statistics.median(f(n) for _ in range(args.repeats)) for n in SIZES if name == "one" or n <= SEQUENCES}
             for name, f in (("one", one_sequence), ("many", side_by_side))}
    base = timed["one"][1]
    print(f"{model}\n| tokens in one decode | one sequence: ms | ms per token | × one token | n sequences, a token each: ms | × one token |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n, seconds in timed["one"].items():
        many = timed["many"].get(n)
        side = f"{many * 1000:.0f} | {many / base:.2f}" if many is not None else "– | –"
        print(f"| {n} | {seconds * 1000:.0f} | {seconds * 1000 / n:.1f} | {seconds / base:.2f} | {side} |")
    llama_cpp.llama_batch_free(batch)
    llama_cpp.llama_free(ctx)


if __name__ == "__main__":
    main()
