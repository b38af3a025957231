"""Scoring one item of a run with each scorer, and what it gave: shared by a run in this process (``batch``) and
a Ray worker (``cluster``), so that neither imports the other for it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import NetworkError
from ..summarization.questionset import QuestionSet
from ..summarization.result import SummarizationResult
from .records import Item


class Scorer(Protocol):
    id: str

    def run(
        self, run: Mapping[str, Any] | None = None, *, input: Any = None, output: Any = None
    ) -> SummarizationResult: ...


@dataclass(frozen=True)
class ItemResult:
    """One item of a run and how it went: each scorer's result, or what went wrong."""

    index: int
    """Its place in the run's data (0-based)."""
    item: Item
    scorer_results: dict[str, SummarizationResult] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    """Scorer id (or "target") -> what went wrong, for the scorers that failed on this item."""
    worker: str | None = None
    """With Ray: "host:pid" of the worker that scored it."""

    # The item's own fields, read through: ``run.items[0].output`` is the summary scored.
    @property
    def id(self) -> str | None:
        return self.item.id

    @property
    def input(self) -> Any:
        return self.item.input

    @property
    def output(self) -> Any:
        return self.item.output

    @property
    def questions(self) -> list[str] | QuestionSet | None:
        return self.item.questions


def score_item(item: Item, scorers: Sequence[Scorer]) -> tuple[dict[str, SummarizationResult], dict[str, str]]:
    """Each scorer's result for ``item``, and the errors of those that failed (in this process, or on a Ray
    worker)."""
    results, errors = {}, {}
    for scorer in scorers:
        try:
            results[scorer.id] = scorer.run(item.as_run())
        except NetworkError:
            # An endpoint that cannot be reached fails every item after this one too: the run stops, what is written
            # stays, and a resumed run scores the rest (instead of a results file of failed lines never retried).
            raise
        except Exception as e:  # reported per item, never counted as a score
            errors[scorer.id] = f"{type(e).__name__}: {e}"
    return results, errors


def grouped(items: Sequence[ItemResult], key: Callable[[ItemResult], str]) -> list[list[ItemResult]]:
    """The items grouped by ``key``: groups in the order first seen, a group's items in order. A source's
    summaries scored together use its question set and its KV prefix while they are in memory."""
    groups: dict[str, list[ItemResult]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return list(groups.values())
