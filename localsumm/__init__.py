"""localsumm: score a summary against its source, offline, with a local GGUF judge.

    from localsumm import create_summarization_scorer
    scorer = create_summarization_scorer()              # the default judge
    result = scorer.run(input=source_text, output=summary_text)
    print(result.score, result.reason)
"""

from __future__ import annotations

__version__ = "0.1.0"

import os
from typing import TYPE_CHECKING

from .errors import LocalsummError
from .judge import Judge, JudgeCall, JudgeInfo, Thresholds
from .messages import extract_tool_results
from .result import SummarizationResult

if TYPE_CHECKING:
    from .messages import SourceExtractor
    from .scorer import SummarizationScorer

__all__ = [
    "create_summarization_scorer",
    "extract_tool_results",
    "Judge",
    "JudgeCall",
    "JudgeInfo",
    "LocalsummError",
    "SummarizationResult",
    "Thresholds",
]


def create_summarization_scorer(
    model: "str | os.PathLike[str] | Judge | None" = None,
    *,
    source: str | None = None,
    source_extractor: "SourceExtractor | None" = None,
    max_questions: int = 10,
    scale: float = 1,
    claims: str = "sentences",
    check_literals: bool = True,
    n_ctx: int | None = None,
    n_threads: int | None = None,
    seed: int | None = None,
    cache: "bool | str | os.PathLike[str]" = False,
    base_url: str | None = None,
    response_format: str | None = None,
) -> "SummarizationScorer":
    """A scorer whose ``run(input=..., output=...)`` returns a :class:`SummarizationResult`.

    ``model`` is a registry name (``localsumm models list``), a path to a GGUF
    file, a judge object implementing :class:`Judge`, or None for the default
    judge. Options are checked before the model is loaded.

    ``claims`` is what alignment judges: ``"sentences"`` (the summary's own
    sentences, as written; the default) or ``"extracted"`` (atomic claims the
    judge lists from the summary, as the reference scorer does).

    ``check_literals`` refuses support to a claim that names a number or a
    capitalised name found nowhere in the source (``localsumm.literals``),
    whatever the judge says; ``False`` leaves every verdict to the judge.

    ``cache=True`` (or a path to a SQLite file) keeps every judge answer on disk,
    keyed by model sha256, prompt version, prompt and sampling settings, so a
    rerun is answered from the cache; results count the cached calls per step.

    ``model="openai:<name>"`` judges with that model behind an OpenAI-compatible
    endpoint at ``base_url`` (``response_format``: "json_schema", or "json_object"
    for llama-cpp-python's server); its answers are never cached.
    """
    from .scorer import SummarizationScorer, check_claims
    from .scoring import check_options

    check_options(max_questions=max_questions, scale=scale)
    check_claims(claims)
    if isinstance(model, Judge):
        judge = model
    else:
        from .judges import open_judge

        judge = open_judge(
            model, n_ctx=n_ctx, n_threads=n_threads, seed=seed, base_url=base_url, response_format=response_format
        )
    if cache and judge.info.sha256:
        from pathlib import Path

        from .cache import CachedJudge, JudgeCallCache

        judge = CachedJudge(judge, JudgeCallCache(None if cache is True else Path(cache)))
    return SummarizationScorer(
        judge, source=source, source_extractor=source_extractor, max_questions=max_questions, scale=scale, claims=claims,
        check_literals=check_literals,
    )
