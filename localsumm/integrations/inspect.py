"""Inspect AI: a scorer that judges the completion against the sample's source.

    from inspect_ai import Task, task
    from inspect_ai.solver import generate
    from localsumm.integrations.inspect import summarization

    @task
    def digest() -> Task:
        return Task(dataset=samples, solver=generate(), scorer=summarization())

The source is the sample's ``metadata["source"]`` (``source_field``) when present,
else its input. Metrics: mean and stderr. A summary with nothing to judge is
unscored (NaN, left out of the metrics), not a silent 0. Install with
``pip install 'localsumm[inspect]'``.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from ..testing import explanation
from ._common import score_async, scorer_for, verdicts


@scorer(metrics=[mean(), stderr()])
def summarization(*, source_field: str = "source", model: str | None = None, **settings: Any) -> Scorer:
    """localsumm's score (min of alignment and coverage); ``model`` and ``settings`` (Options fields) pick the judge."""

    async def judge(state: TaskState, target: Target) -> Score:
        source = (
            state.metadata.get(source_field) if state.metadata and source_field in state.metadata else state.input_text
        )
        summary = state.output.completion
        result = await score_async(scorer_for(None, model, settings), str(source), summary)
        details = verdicts(result)
        if not result.scorable:
            return Score.unscored(reason=result.reason, answer=summary, explanation=result.reason, metadata=details)
        return Score(value=result.score, answer=summary, explanation=explanation(result), metadata=details)

    return judge


__all__ = ["summarization"]
