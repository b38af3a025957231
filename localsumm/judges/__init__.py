"""Judge backends; each implements ``localsumm.judge.Judge``.

- ``llamacpp``: a local GGUF model in-process (the default).
- ``openai``: an OpenAI-compatible chat-completions endpoint (``openai:<name>``).
- ``scripted``: replays fixed answers, for unit tests of pipeline logic.
"""

from __future__ import annotations

import os

from ..judge import Judge, Thresholds
from ..registry import resolve_model


def open_judge(
    model: str | os.PathLike[str] | None = None,
    *,
    n_ctx: int | None = None,
    n_threads: int | None = None,
    seed: int | None = None,
    base_url: str | None = None,
    response_format: str | None = None,
) -> Judge:
    """The judge for a registry name or a GGUF path (None: the default judge), run by llama.cpp,
    or for ``openai:<name>``, the model of that name behind ``base_url``."""
    from .llamacpp import DEFAULT_N_CTX, DEFAULT_SEED, load_judge

    if isinstance(model, str) and model.startswith("openai:"):
        from .openai import DEFAULT_CONTEXT, OpenAIJudge

        return OpenAIJudge(
            model.removeprefix("openai:"), base_url=base_url, context_size=n_ctx or DEFAULT_CONTEXT,
            seed=DEFAULT_SEED if seed is None else seed, response_format=response_format or "json_schema",
        )

    from ..calibrate import threshold_override

    resolved = resolve_model(model)
    # A local calibration (`localsumm calibrate`) wins over the registry's thresholds.
    thresholds = threshold_override(resolved.sha256) or (resolved.spec.thresholds if resolved.spec else Thresholds())
    return load_judge(
        str(resolved.path),
        name=resolved.name,
        sha256=resolved.sha256,
        thresholds=thresholds,
        n_ctx=n_ctx or DEFAULT_N_CTX,
        n_threads=n_threads,
        seed=DEFAULT_SEED if seed is None else seed,
    )
