"""The llama.cpp judge: a local GGUF model run in-process by llama-cpp-python, one module per job.

- ``engine``: loading the model, its chat template, and the engine calls (the judge's low-level interface);
- ``kv``: KV reuse, the live cache's common prefix and copied prefixes;
- ``verdicts``: yes/no probabilities, side by side where prompts share a prefix;
- ``decoder``: grammar-constrained greedy generation with prompt-lookup drafts;
- ``judge``: :class:`LlamaCppJudge`, the judge protocol over them, and :func:`load_judge`.
"""

from .engine import DEFAULT_N_CTX, DEFAULT_SEED, Engine, engine_build
from .judge import LlamaCppJudge, load_judge

__all__ = ["DEFAULT_N_CTX", "DEFAULT_SEED", "Engine", "LlamaCppJudge", "engine_build", "load_judge"]
