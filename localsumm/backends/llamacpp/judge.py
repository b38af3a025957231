"""The llama.cpp judge: the judge protocol over a loaded engine, its KV reuse, verdicts and decoder.

One ``Llama`` per model per process (:func:`load_judge`), never ``reset()``: each call keeps the KV cache of
the longest common token prefix with the previous call, so the source, which starts every prompt that
needs it, is read once per evaluation. The coverage step shares no prefix with the source steps
(different system text), so its KV cache never holds a source token: a separate context.
"""

from __future__ import annotations

import time
from functools import lru_cache
from pathlib import Path

from ...errors import JudgeError
from ...protocol import JudgeCall, JudgeInfo, Messages, T, Thresholds
from ..grammar import Grammars, parse
from .decoder import Drafts, decode
from .engine import DEFAULT_N_CTX, DEFAULT_SEED, Engine, engine_build
from .kv import SNAPSHOT_BUDGET_BYTES, Prefixes
from .verdicts import PARALLEL_SEQUENCES, YesNo, one_verdict, verdicts


class LlamaCppJudge:
    """A judge backed by a GGUF file. Build one with :func:`load_judge` to share it within a process.

    Beside the protocol, what the benchmarks read and switch: ``engine`` (the bare engine and its
    ``seconds`` inside llama.cpp), ``prefixes.forget()``, ``drafts`` (tokens drafted and kept), and the
    two levers ``parallel`` (verdicts side by side) and ``draft`` (prompt-lookup drafts), both on.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        name: str | None = None,
        sha256: str | None = None,
        thresholds: Thresholds = Thresholds(),
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        n_gpu_layers: int = 0,
        n_batch: int = 512,
        seed: int = DEFAULT_SEED,
        parallel: bool = True,
        draft: bool = True,
    ) -> None:
        path = Path(path)
        self.info = JudgeInfo(
            name=name or path.name,
            path=str(path),
            sha256=sha256,
            thresholds=thresholds,
            seed=seed,
            engine=engine_build(n_gpu_layers),
        )
        self.engine = Engine(
            path,
            n_ctx=n_ctx,
            n_threads=n_threads,
            n_gpu_layers=n_gpu_layers,
            n_batch=n_batch,
            seed=seed,
            sequences=PARALLEL_SEQUENCES + 1,
            extra_bytes=SNAPSHOT_BUDGET_BYTES,
        )
        self.context_size = self.engine.context_size
        self.yes_no = YesNo(self.engine, str(path))
        self.prefixes = Prefixes(self.engine)
        self.grammars = Grammars(self.engine.outlines_vocabulary, sha256, self.engine.n_vocab)
        self.parallel = parallel
        self.draft = draft
        self.drafts = Drafts()

    @property
    def build(self) -> str:
        """The instruction sets this llama.cpp build uses, e.g. "AVX2 AVX512 AVX512_VNNI"."""
        return engine_build().split(", ", 1)[1]

    # -- the Judge protocol ---------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        return self.engine.count_tokens(text)

    def yes_probability(self, step: str, messages: Messages) -> tuple[float, JudgeCall]:
        return one_verdict(self.engine, self.prefixes, self.yes_no, step, self.engine.prompt(messages))

    def yes_probabilities(self, step: str, batch: list[Messages]) -> list[tuple[float, JudgeCall]]:
        """:meth:`yes_probability` for each prompt of ``batch``; prompts that share their leading segments
        are evaluated together: the shared prefix once, the tails as parallel sequences of one batch."""
        return verdicts(self.engine, self.prefixes, self.yes_no, step, batch, self.parallel)

    def generate(self, step: str, messages: Messages, output_type: type[T], max_tokens: int) -> tuple[T, JudgeCall]:
        text, tokens, starts = self.engine.prompt(messages)
        self.engine.check_fits(step, tokens, max_tokens)
        constraint = self.grammars.constraint(output_type)
        start = time.perf_counter()
        evaluated, reused = self.prefixes.feed(tokens, starts)
        out = decode(self.engine, step, tokens, constraint, max_tokens, self.drafts if self.draft else None)
        output = self.engine.decode(out)
        seconds = time.perf_counter() - start
        try:
            value = parse(output_type, output)
        except JudgeError as e:
            raise JudgeError(f"{step}: {e}") from None
        return value, JudgeCall(step, text, output, evaluated, reused, len(out), seconds)


@lru_cache(maxsize=4)
def load_judge(
    path: str,
    *,
    name: str | None = None,
    sha256: str | None = None,
    thresholds: Thresholds = Thresholds(),
    n_ctx: int = DEFAULT_N_CTX,
    n_threads: int | None = None,
    n_gpu_layers: int = 0,
    seed: int = DEFAULT_SEED,
) -> LlamaCppJudge:
    """The judge for these settings, loaded once per process."""
    return LlamaCppJudge(
        path,
        name=name,
        sha256=sha256,
        thresholds=thresholds,
        n_ctx=n_ctx,
        n_threads=n_threads,
        n_gpu_layers=n_gpu_layers,
        seed=seed,
    )
