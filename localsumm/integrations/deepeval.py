"""DeepEval: localsumm as a metric, and localsumm's grammar-constrained judge as DeepEval's model.

    from deepeval import assert_test
    from deepeval.test_case import LLMTestCase
    from localsumm.integrations.deepeval import LocalSummarizationMetric

    def test_digest():
        case = LLMTestCase(input=source, actual_output=summary)
        assert_test(case, [LocalSummarizationMetric(threshold=0.5)])

``LocalJudgeModel`` runs DeepEval's own metrics on the local GGUF: every answer
DeepEval asks for with a schema is decoded under that schema's grammar, so it
parses even from a small judge. Install with ``pip install 'localsumm[deepeval]'``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from deepeval.metrics import BaseMetric
from deepeval.models import DeepEvalBaseLLM
from deepeval.test_case import LLMTestCase
from pydantic import BaseModel

from ..protocol import Judge
from ..summarization.result import SummarizationResult
from ..summarization.scorer import SummarizationScorer
from ..testing import explanation, shared_scorer
from ._common import engine_lock, score, score_async, scorer_for, verdicts


class LocalSummarizationMetric(BaseMetric):
    """localsumm's score (min of alignment and coverage) as a DeepEval metric.

    ``input`` is the source, ``actual_output`` the summary. ``model`` and ``options``
    (Options fields: ``{"questions": "q.jsonl", "max_questions": 5}``) pick the scorer,
    loaded once per process; or pass ``scorer``. An unscorable summary is an error, not a 0.
    """

    def __init__(
        self,
        threshold: float = 0.5,
        *,
        model: str | None = None,
        options: dict[str, Any] | None = None,
        scorer: SummarizationScorer | None = None,
        include_reason: bool = True,
        strict_mode: bool = False,
        async_mode: bool = True,
        verbose_mode: bool = False,
    ) -> None:
        # Every parameter is kept under its own name: DeepEval copies a metric by calling the class
        # with the instance attributes that match its parameters.
        self.threshold = 1.0 if strict_mode else threshold
        self.model = model  # type: ignore[assignment]  # a localsumm judge name, not a DeepEval model
        self.options = options
        self.scorer = scorer
        self.strict_mode = strict_mode
        self.include_reason = include_reason
        self.async_mode = async_mode
        self.verbose_mode = verbose_mode
        self.result: SummarizationResult | None = None

    def _scorer(self) -> SummarizationScorer:
        if self.scorer is None:
            self.scorer = scorer_for(None, self.model, dict(self.options or {}))  # type: ignore[arg-type]
        return self.scorer

    def _inputs(self, test_case: LLMTestCase) -> tuple[str, str]:
        missing = [name for name in ("input", "actual_output") if not getattr(test_case, name, None)]
        if missing:
            raise ValueError(
                f"LocalSummarizationMetric needs the test case's {' and '.join(missing)} "
                "(input is the source, actual_output the summary)"
            )
        return str(test_case.input), str(test_case.actual_output)

    def _record(self, result: SummarizationResult) -> float:
        self.result = result
        self.evaluation_model = f"localsumm:{result.provenance.model}"
        self.evaluation_cost = 0.0
        self.score_breakdown = {"alignment": result.alignment_score, "coverage": result.coverage_score}
        self.reason = explanation(result) if self.include_reason else None
        self.error = None if result.scorable else result.reason
        self.score = 0.0 if self.strict_mode and result.score < (self.threshold or 0.0) else result.score
        self.success = self.is_successful()
        if self.verbose_mode:
            self.verbose_logs = result.to_json(indent=2)
        return self.score

    def measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        return self._record(score(self._scorer(), *self._inputs(test_case)))

    async def a_measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        return self._record(await score_async(self._scorer(), *self._inputs(test_case)))

    def verdicts(self) -> dict[str, Any]:
        """The last measure's scores and every verdict behind them."""
        if self.result is None:
            raise ValueError("measure a test case first")
        return verdicts(self.result)

    @property
    def __name__(self) -> str:  # DeepEval names a metric by this property
        return "Summarization (localsumm)"


class _Text(BaseModel):
    text: str


class LocalJudgeModel(DeepEvalBaseLLM):
    """localsumm's judge as a DeepEval model: ``SummarizationMetric(model=LocalJudgeModel())``.

    A call with a schema (DeepEval passes one for every structured answer) is decoded under
    that schema's grammar and returns an instance of it; a call without one returns text
    (decoded as a JSON string). Greedy, seeded: the same prompt gives the same answer.
    """

    def __init__(self, model: str | None = None, *, judge: Judge | None = None, max_tokens: int = 1024) -> None:
        self._judge = judge if judge is not None else _uncached(shared_scorer(model).judge)
        self.max_tokens = max_tokens
        super().__init__(self._judge.info.name)

    def load_model(self, *args: Any, **kwargs: Any) -> Any:  # DeepEval types it as its own model class
        return self._judge

    def generate(self, prompt: str, schema: type[BaseModel] | None = None, **kwargs: Any) -> Any:
        messages = [{"role": "user", "content": prompt}]
        with engine_lock:
            value, _ = self._judge.generate("deepeval", messages, schema or _Text, self.max_tokens)  # type: ignore[arg-type]
        return value if schema is not None else value.text  # type: ignore[attr-defined]

    async def a_generate(self, prompt: str, schema: type[BaseModel] | None = None, **kwargs: Any) -> Any:
        return await asyncio.to_thread(self.generate, prompt, schema)

    def get_model_name(self, *args: Any, **kwargs: Any) -> str:
        return f"localsumm:{self._judge.info.name}"

    def supports_structured_outputs(self) -> bool:
        return True

    def supports_json_mode(self) -> bool:
        return True

    def supports_temperature(self) -> bool:
        return False


def _uncached(judge: Any) -> Judge:
    # The judge-call cache keys calls by localsumm's own prompt versions; DeepEval's prompts have none.
    inner: Judge = getattr(judge, "inner", judge)
    return inner


__all__ = ["LocalJudgeModel", "LocalSummarizationMetric"]
