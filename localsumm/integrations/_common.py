"""What every adapter shares: one scorer per judge and settings, and a result as plain verdicts."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from ..summarization.result import SummarizationResult
from ..summarization.scorer import SummarizationScorer
from ..testing import shared_scorer

# The engine judge is not thread-safe: async frameworks (DeepEval, Inspect) run scoring in a worker
# thread, one at a time, so their event loop keeps turning while the judge works.
engine_lock = threading.Lock()


def scorer_for(scorer: SummarizationScorer | None, model: str | None, settings: dict[str, Any]) -> SummarizationScorer:
    return scorer if scorer is not None else shared_scorer(model, **settings)


def score(scorer: SummarizationScorer, source: str, summary: str) -> SummarizationResult:
    with engine_lock:
        return scorer.run(input=source, output=summary)


async def score_async(scorer: SummarizationScorer, source: str, summary: str) -> SummarizationResult:
    return await asyncio.to_thread(score, scorer, source, summary)


def verdicts(result: SummarizationResult) -> dict[str, Any]:
    """The scores and every verdict, small enough for a framework's metadata."""
    return {
        "score": result.score,
        "alignment": result.alignment_score,
        "coverage": result.coverage_score,
        "scorable": result.scorable,
        "claims": [
            {"claim": v.claim, "supported": v.supported, "probability": v.probability}
            for v in result.preprocess_step_result.alignment
        ],
        "questions": [
            {"question": v.question, "answered": v.answered, "probability": v.probability}
            for v in result.analyze_step_result.coverage
        ],
    }
