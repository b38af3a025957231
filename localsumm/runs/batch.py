"""Batch evaluation: ``run_evals`` (the reference's runEvals).

An item that fails to score is reported with its error and left out of the
averages; it is never counted as 0 or 1.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import InputError
from ..summarization.result import SummarizationResult
from ..summarization.scorer import ScorerSpec

if TYPE_CHECKING:
    from .cluster import RaySettings


class Scorer(Protocol):
    id: str

    def run(
        self, run: Mapping[str, Any] | None = None, *, input: Any = None, output: Any = None
    ) -> SummarizationResult: ...


@dataclass
class ItemResult:
    index: int
    id: str | None
    input: Any
    output: Any
    questions: Any = None
    """The item's own question set (its ``questions``), asked in place of generated ones."""
    scorer_results: dict[str, SummarizationResult] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    """Scorer id (or "target") -> what went wrong, for the scorers that failed on this item."""
    worker: str | None = None
    """With Ray: "host:pid" of the worker that scored it."""


@dataclass
class EvalRun:
    scores: dict[str, float | None]
    """Mean score per scorer id over the items it scored (None if it scored none)."""
    item_count: int
    items: list[ItemResult]

    def failed(self, scorer_id: str) -> int:
        return sum(1 for item in self.items if scorer_id in item.errors or "target" in item.errors)


def run_evals(
    data: Iterable[Mapping[str, Any]],
    scorers: Sequence[Scorer | ScorerSpec],
    target: Callable[[Any], Any] | None = None,
    on_item_complete: Callable[[ItemResult], None] | None = None,
    *,
    ray: RaySettings | None = None,
) -> EvalRun:
    """Score every item with every scorer.

    Each item has an ``input`` and either an ``output`` or, when ``target`` is
    given, the output is ``target(input)`` (the agent under test, called here);
    and optionally its own ``questions``, asked in place of generated ones.
    ``on_item_complete`` is called after each item, as it finishes.

    With ``ray`` (a :class:`~localsumm.runs.cluster.RaySettings`), the items are
    scored by Ray workers, each building its own copy of the scorers from their
    ``spec()`` (a model name or path, and the options); ``on_item_complete`` then
    sees items in the order they finish, and ``EvalRun.items`` is in input order. Without ``ray``, a
    scorer given as its spec (:class:`~localsumm.summarization.scorer.ScorerSpec`) is built here.
    """
    local: list[Scorer] = [s.build() if isinstance(s, ScorerSpec) else s for s in scorers] if ray is None else []
    ids = [s.id for s in scorers]
    if len(set(ids)) != len(ids):
        raise InputError(f"scorer ids must be unique, got {ids}")
    items: list[ItemResult] = []
    for index, item in enumerate(data):
        result = ItemResult(
            index=index,
            id=item.get("id"),
            input=item.get("input"),
            output=item.get("output"),
            questions=item.get("questions"),
        )
        if result.output is None and target is not None:
            try:
                result.output = target(result.input)
            except Exception as e:  # the agent failed: the item cannot be scored
                result.errors["target"] = f"{type(e).__name__}: {e}"
        items.append(result)
        if ray is not None:
            continue  # scored below, all at once
        if "target" not in result.errors:
            for scorer in local:
                try:
                    result.scorer_results[scorer.id] = scorer.run(
                        {"input": result.input, "output": result.output, "questions": result.questions}
                    )
                except Exception as e:  # reported per item, never counted as a score
                    result.errors[scorer.id] = f"{type(e).__name__}: {e}"
        if on_item_complete is not None:
            on_item_complete(result)
    if ray is not None:
        _run_on_ray(items, scorers, ray, on_item_complete)
    scores = {}
    for scorer_id in ids:
        values = [i.scorer_results[scorer_id].score for i in items if scorer_id in i.scorer_results]
        scores[scorer_id] = statistics.fmean(values) if values else None
    return EvalRun(scores=scores, item_count=len(items), items=items)


def _run_on_ray(
    items: list[ItemResult],
    scorers: Sequence[Any],
    ray: RaySettings,
    on_item_complete: Callable[[ItemResult], None] | None,
) -> None:
    from .cluster import WorkItem, score_on_ray

    specs = []
    for scorer in scorers:
        if not hasattr(scorer, "spec"):
            raise InputError(f"scorer {scorer.id!r} cannot run on Ray: it has no spec() to build it on a worker")
        specs.append(scorer.spec())
    for result in items:  # an item whose agent failed is done already
        if "target" in result.errors and on_item_complete is not None:
            on_item_complete(result)

    def outcome(done: Any) -> None:
        result = items[done.item.index]
        result.scorer_results = {k: SummarizationResult.model_validate(v) for k, v in done.results.items()}
        result.errors = dict(done.errors)
        result.worker = done.worker
        if on_item_complete is not None:
            on_item_complete(result)

    todo = [WorkItem(r.index, r.input, r.output, r.questions) for r in items if "target" not in r.errors]
    if todo:
        score_on_ray(todo, specs, ray, outcome)
