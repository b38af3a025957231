"""Batch evaluation: ``run_evals`` (the reference's runEvals).

An item that fails to score is reported with its error and left out of the
averages; it is never counted as 0 or 1.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..summarization.scorer import ScorerSpec
from .records import Item
from .scoring import ItemResult, Scorer, grouped, score_item

if TYPE_CHECKING:
    from .cluster import RaySettings


@dataclass
class EvalRun:
    scores: dict[str, float | None]
    """Mean score per scorer id over the items it scored (None if it scored none)."""
    item_count: int
    items: list[ItemResult]

    def failed(self, scorer_id: str) -> int:
        return sum(1 for item in self.items if scorer_id in item.errors or "target" in item.errors)


def run_evals(
    data: Iterable[Mapping[str, Any] | Item],
    scorers: Sequence[Scorer | ScorerSpec],
    target: Callable[[Any], Any] | None = None,
    on_item_complete: Callable[[ItemResult], None] | None = None,
    *,
    ray: RaySettings | None = None,
) -> EvalRun:
    """Score every item with every scorer.

    Each item (a mapping, or an :class:`~localsumm.runs.records.Item`) has an ``input`` and either an
    ``output`` or, when ``target`` is given, the output is ``target(input)`` (the agent under test, called
    here); and optionally its own ``questions``, asked in place of generated ones.
    ``on_item_complete`` is called after each item, as it finishes: the items of one input (one source) one after
    another (``by_input``), and ``EvalRun.items`` in input order.

    With ``ray`` (a :class:`~localsumm.runs.cluster.RaySettings`), the items are
    scored by Ray workers, each building its own copy of the scorers from their
    ``spec()`` (a model name or path, and the options); ``on_item_complete`` then
    sees items in the order they finish, and ``EvalRun.items`` is in input order. Without ``ray``, a
    scorer given as its spec (:class:`~localsumm.summarization.scorer.ScorerSpec`) is built here.
    """
    ids = [s.id for s in scorers]
    if len(set(ids)) != len(ids):
        raise InputError(f"scorer ids must be unique, got {ids}")
    specs = _specs(scorers) if ray is not None else []
    local: list[Scorer] = [s.build() if isinstance(s, ScorerSpec) else s for s in scorers] if ray is None else []
    items = [
        ItemResult(index, given if isinstance(given, Item) else Item.of(given, index + 1))
        for index, given in enumerate(data)
    ]
    if ray is None:
        for pending in by_input(items):
            done = _with_output(pending, target)
            if not done.errors:
                results, errors = score_item(done.item, local)
                done = replace(done, scorer_results=results, errors=errors)
            items[done.index] = done
            if on_item_complete is not None:
                on_item_complete(done)
    else:
        items = [_with_output(pending, target) for pending in items]
        if on_item_complete is not None:  # an item whose agent failed is done now; Ray scores the others
            for failed in (i for i in items if i.errors):
                on_item_complete(failed)
        _run_on_ray(items, specs, ray, on_item_complete)
    scores = {}
    for scorer_id in ids:
        values = [i.scorer_results[scorer_id].score for i in items if scorer_id in i.scorer_results]
        scores[scorer_id] = statistics.fmean(values) if values else None
    return EvalRun(scores=scores, item_count=len(items), items=items)


def by_input(items: Sequence[ItemResult]) -> list[ItemResult]:
    """The items with each input's together (``grouped``): a file sorted by system would otherwise have the judge
    read every source again for every system, once its prefix had left the KV cache."""
    return [item for group in grouped(items, lambda i: _input_key(i.item.input)) for item in group]


def _input_key(value: Any) -> str:
    """A key equal for equal inputs (text, or a record's fields)."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=repr)


def _with_output(pending: ItemResult, target: Callable[[Any], Any] | None) -> ItemResult:
    """The item with the agent's output when it has none of its own (or what the agent raised)."""
    if pending.item.output is not None or target is None:
        return pending
    try:
        return replace(pending, item=replace(pending.item, output=target(pending.item.input)))
    except Exception as e:  # the agent failed: the item cannot be scored
        return replace(pending, errors={"target": f"{type(e).__name__}: {e}"})


def _specs(scorers: Sequence[Scorer | ScorerSpec]) -> list[ScorerSpec]:
    """What each Ray worker builds its scorers from."""
    specs = []
    for scorer in scorers:
        spec = getattr(scorer, "spec", None)
        if spec is None:
            raise InputError(f"scorer {scorer.id!r} cannot run on Ray: it has no spec() to build it on a worker")
        specs.append(spec())
    return specs


def _run_on_ray(
    items: list[ItemResult],
    specs: list[ScorerSpec],
    ray: RaySettings,
    on_item_complete: Callable[[ItemResult], None] | None,
) -> None:
    """Score on Ray the items whose agent did not fail, each put back in its place as it finishes."""
    from .cluster import score_on_ray

    def finished(done: ItemResult) -> None:
        items[done.index] = done
        if on_item_complete is not None:
            on_item_complete(done)

    todo = [r for r in items if "target" not in r.errors]
    if todo:
        score_on_ray(todo, specs, ray, finished)
