"""Asserting a summary's score inside a test: ``assert_summary`` (and the pytest plugin's fixture).

    from localsumm.testing import assert_summary

    def test_the_digest_keeps_the_facts(summarization_scorer):
        assert_summary(source, summary, min_score=0.5)

A failed assertion's message is the result's reason, then every unsupported
claim and unanswered question with the judge's probability, so pytest's output
says why without a debugger. Outside pytest, ``assert_summary`` loads the
default judge once per process (or takes ``scorer=``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .summarization.questionset import QuestionSet
from .summarization.result import SummarizationResult
from .summarization.scorer import SummarizationScorer, create_summarization_scorer

_default: SummarizationScorer | None = None
# One scorer per (judge, settings) for the framework adapters, so a session loads each judge once.
_shared: dict[str, SummarizationScorer] = {}
# Who wants every asserted result (the pytest plugin's --localsumm-report); called before the check.
_observers: list[Callable[[str, str, SummarizationResult], None]] = []


class SummaryAssertionError(AssertionError):
    """A summary scored below a bound; ``result`` holds every verdict."""

    def __init__(self, message: str, result: SummarizationResult) -> None:
        super().__init__(message)
        self.result = result


def use_scorer(scorer: SummarizationScorer | None) -> None:
    """The scorer ``assert_summary`` uses when given none (the plugin sets its session fixture's)."""
    global _default
    _default = scorer


def default_scorer() -> SummarizationScorer:
    global _default
    if _default is None:
        _default = create_summarization_scorer()
    return _default


def shared_scorer(model: str | None = None, **settings: Any) -> SummarizationScorer:
    """The process's scorer for ``model`` and ``settings`` (Options fields), created on first use.

    With neither, the scorer ``assert_summary`` uses (the pytest fixture's, inside a session).
    """
    if model is None and not settings:
        return default_scorer()
    key = repr((model, sorted(settings.items())))
    if key not in _shared:
        _shared[key] = create_summarization_scorer(model, **settings)
    return _shared[key]


def failure_message(result: SummarizationResult, failed: list[str], limit: int = 10) -> str:
    """Which bounds failed, then :func:`explanation`."""
    return "summary below " + "; ".join(failed) + "\n" + explanation(result, limit)


def explanation(result: SummarizationResult, limit: int = 10) -> str:
    """The reason, then the failing verdicts (claims, then questions), at most ``limit`` each."""
    lines = [result.reason]
    claims = [v for v in result.preprocess_step_result.alignment if not v.supported]
    questions = [v for v in result.analyze_step_result.coverage if not v.answered]
    for title, rows in (
        ("claims not supported by the source", [(v.claim, v.probability, v.unmatched) for v in claims]),
        ("questions the summary does not answer", [(v.question, v.probability, []) for v in questions]),
    ):
        if rows:
            lines.append(f"{title} ({len(rows)}):")
            for text, p, unmatched in rows[:limit]:
                why = f"p={p:.2f}" if p is not None else "no probability"
                if unmatched:
                    why += ", not in the source: " + ", ".join(unmatched)
                lines.append(f"  - {text} ({why})")
            if len(rows) > limit:
                lines.append(f"  ... and {len(rows) - limit} more")
    return "\n".join(lines)


def assert_summary(
    source: Any,
    summary: Any,
    *,
    min_score: float | None = None,
    min_alignment: float | None = None,
    min_coverage: float | None = None,
    questions: list[str] | QuestionSet | None = None,
    scorer: SummarizationScorer | None = None,
) -> SummarizationResult:
    """Score ``summary`` against ``source`` and fail (:class:`SummaryAssertionError`) below any bound given.

    An unscorable summary (nothing to judge) fails any bound. Returns the result, for further checks.
    """
    scorer = scorer or default_scorer()
    result = scorer.run(input=source, output=summary, questions=questions)
    for observe in _observers:
        observe(
            source if isinstance(source, str) else str(source),
            summary if isinstance(summary, str) else str(summary),
            result,
        )
    failed = [
        f"{name} {value:.2f} < {bound:g}"
        for name, value, bound in (
            ("score", result.score, min_score),
            ("alignment", result.alignment_score, min_alignment),
            ("coverage", result.coverage_score, min_coverage),
        )
        if bound is not None and (value < bound or not result.scorable)
    ]
    if failed:
        raise SummaryAssertionError(failure_message(result, failed), result)
    return result


__all__ = [
    "SummaryAssertionError",
    "assert_summary",
    "default_scorer",
    "explanation",
    "failure_message",
    "shared_scorer",
    "use_scorer",
]
