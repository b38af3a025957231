"""The bare engine's rates, measured through the llama.cpp judge's documented interface (``judge.engine``).

What ``bench speed`` compares a whole evaluation with: how fast this build reads and writes tokens with no
template and no grammar, and what the grammar costs per generated token against none and against
llama.cpp's own grammar sampler.
"""

from __future__ import annotations

import json
import time

import numpy as np

from ..backends.grammar import grammar_schema
from ..backends.llamacpp import LlamaCppJudge
from ..protocol import Messages, T


def bare_rates(judge: LlamaCppJudge, text: str, generated: int = 32) -> tuple[float, float]:
    """Prompt and generation tokens/s of the bare engine on ``text``; the next call reads its prompt afresh."""
    engine = judge.engine
    tokens = engine.tokenize(text)
    judge.prefixes.forget()
    start = time.perf_counter()
    engine.eval(tokens)
    prompt_rate = len(tokens) / (time.perf_counter() - start)
    start = time.perf_counter()
    for token in tokens[:generated]:
        engine.eval([token])  # one token per decode, as generation does
    generation_rate = min(generated, len(tokens)) / (time.perf_counter() - start)
    judge.prefixes.forget()
    return prompt_rate, generation_rate


def generation_costs(
    judge: LlamaCppJudge, step: str, messages: Messages, output_type: type[T], max_tokens: int
) -> tuple[float, float, float]:
    """Seconds per generated token for one prompt: with the judge's grammar, without any, and with llama.cpp's
    native grammar built from the same JSON schema (its own sampler, as ``create_completion(grammar=...)``
    runs it). Each timing starts from the same KV cache (the prompt's prefix)."""
    from llama_cpp import LlamaGrammar  # type: ignore[attr-defined]

    engine = judge.engine
    _, call = judge.generate(step, messages, output_type, max_tokens)
    n = max(call.completion_tokens, 1)
    _, tokens, starts = engine.prompt(messages)
    start = time.perf_counter()
    judge.prefixes.feed(tokens, starts)
    for _ in range(n):
        engine.eval([int(np.argmax(engine.last_logits()))])
    unconstrained = (time.perf_counter() - start) / n
    start = time.perf_counter()
    judge.generate(step, messages, output_type, max_tokens)
    constrained = (time.perf_counter() - start) / n
    native = LlamaGrammar.from_json_schema(json.dumps(grammar_schema(output_type)), verbose=False)
    judge.prefixes.feed(tokens[: starts[-1]], starts[:-1])  # create_completion evaluates the last segment itself
    start = time.perf_counter()
    out = engine.llm.create_completion(tokens, grammar=native, max_tokens=max_tokens, temperature=0.0, stream=False)
    assert isinstance(out, dict)  # not a stream
    native_seconds = (time.perf_counter() - start) / max(out["usage"]["completion_tokens"], 1)
    judge.prefixes.forget()  # create_completion's cache bookkeeping is not the judge's: start clean
    return constrained, unconstrained, native_seconds
