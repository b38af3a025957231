"""LangSmith and openevals: an evaluator with their signature.

    from langsmith import evaluate
    from localsumm.integrations.langsmith import summarization_evaluator

    evaluate(target, data="my-dataset", evaluators=[summarization_evaluator()])

The evaluator takes ``inputs``, ``outputs`` and ``reference_outputs`` (dicts) and
returns ``{key, score, comment, metadata}``; it needs no account and imports
nothing of langsmith, so it also runs in openevals' style on plain dicts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..summarization.scorer import SummarizationScorer
from ..testing import explanation
from ._common import score, scorer_for, verdicts

Evaluator = Callable[..., dict[str, Any]]


def summarization_evaluator(
    *,
    source_key: str = "source",
    summary_key: str = "summary",
    key: str = "localsumm_summarization",
    model: str | None = None,
    scorer: SummarizationScorer | None = None,
    **settings: Any,
) -> Evaluator:
    """An evaluator scoring ``outputs[summary_key]`` against ``inputs[source_key]``.

    A dict of one string value is read whatever its key. ``model`` and ``settings``
    (Options fields) pick the scorer, loaded once per process; or pass ``scorer``.
    """

    def evaluate(
        *,
        inputs: dict[str, Any],
        outputs: dict[str, Any] | str,
        reference_outputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        source, summary = _field(inputs, source_key, "inputs"), _field(outputs, summary_key, "outputs")
        result = score(scorer_for(scorer, model, settings), source, summary)
        return {
            "key": key,
            "score": result.score if result.scorable else None,
            "comment": explanation(result),
            "metadata": verdicts(result),
        }

    evaluate.__name__ = key
    return evaluate


def _field(data: dict[str, Any] | str, name: str, what: str) -> str:
    if isinstance(data, str):
        return data
    if name in data:
        return str(data[name])
    texts = [value for value in data.values() if isinstance(value, str)]
    if len(texts) == 1:
        return texts[0]
    raise ValueError(
        f"localsumm evaluator: {what} has no {name!r} key (it has {', '.join(map(repr, data)) or 'none'}); "
        f"pass {'source_key' if what == 'inputs' else 'summary_key'}=..."
    )


__all__ = ["summarization_evaluator"]
