"""Scoring on a Ray cluster: judges as Ray actors, work sharded by source, the results file on the driver.

Ray is imported only here and only when asked for (``pip install 'localsumm[ray]'``).

- Each worker is a Ray actor that builds its scorers once (the judge loaded and,
  for a registry judge, its sha256 verified, from that node's own model cache).
  Before any item is sent, every worker reports its node; one that could not
  load its judge, or loaded a different file, stops the run with a message
  naming the node.
- Work is sharded by source: the summaries of one source go to one worker, in
  order, so they share its question set and its KV prefix. A source's summaries
  are split into consecutive halves only while there are fewer shards than
  workers (a split costs the question set once more, never a different result:
  questions depend on the source alone).
- A worker holds one shard at a time; when it is done it gets the next one.
  Each finished item returns to the driver as soon as it is scored, so the
  caller can write it at once. A killed worker is restarted by Ray (reloading
  its judge) and the items it held are asked again; results arrive once per
  item whatever Ray retried. A worker that dies for good hands its unfinished
  items back to the queue for the others.
"""

from __future__ import annotations

import hashlib
import os
import socket
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..errors import ConfigError, JudgeError, LocalsummError, ModelError
from ..summarization.inputs import resolve_source
from ..summarization.result import SummarizationResult
from ..summarization.scorer import ScorerSpec
from .records import Item
from .scoring import ItemResult, grouped, score_item


@dataclass(frozen=True)
class RaySettings:
    """Where and how wide to run. ``RaySettings()``: a local Ray runtime, as many workers as it has CPUs."""

    address: str | None = None
    """None (or "local"): start a Ray runtime on this machine; "auto", "ray://HOST:PORT" or "HOST:PORT": join that
    cluster."""
    workers: int | None = None
    """Judges (Ray actors); None: as many as the cluster's CPUs allow at ``threads`` each."""
    threads: int = 1
    """CPU threads of each worker's judge (and the CPUs Ray reserves for it)."""
    max_restarts: int = 3
    """How often Ray restarts a worker that died, before its items go to the others."""

    def __post_init__(self) -> None:
        for name in ("workers", "threads"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ConfigError(f"--{name} must be a whole number of at least 1, got {value!r}")


def source_key(pending: ItemResult, spec: ScorerSpec) -> str:
    """What groups items: a hash of the source the scorer will read (the item alone if it has none)."""
    item = pending.item
    try:
        source = resolve_source(item.input, item.output, source=spec.source, source_extractor=spec.source_extractor)
    except Exception:  # a bad item is scored (and fails) alone
        return f"item-{pending.index}"
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def shard(items: Sequence[ItemResult], key: Callable[[ItemResult], str], workers: int) -> list[list[ItemResult]]:
    """Items grouped by ``key`` (groups in first-seen order, items in order), the largest group halved
    while there are fewer groups than ``workers``."""
    shards = grouped(items, key)
    while len(shards) < workers:
        largest = max(range(len(shards)), key=lambda i: len(shards[i]), default=None)
        if largest is None or len(shards[largest]) < 2:
            break
        group = shards[largest]
        half = (len(group) + 1) // 2
        shards[largest : largest + 1] = [group[:half], group[half:]]
    return shards


class _Worker:
    """The body of a Ray actor: the scorers, built once on the node it runs on."""

    def __init__(self, specs: list[ScorerSpec]) -> None:
        self.error: str | None = None
        self.scorers = []
        try:
            self.scorers = [spec.build() for spec in specs]
        except LocalsummError as e:  # reported by describe(), with the node's name, before any item
            self.error = str(e)

    def describe(self) -> dict[str, Any]:
        import ray

        judges = [(s.judge.info.name, s.judge.info.sha256) for s in self.scorers]
        return {
            "host": socket.gethostname(),
            "ip": ray.util.get_node_ip_address(),
            "pid": os.getpid(),
            "judges": judges,
            "error": self.error,
        }

    def score(self, item: Item) -> tuple[dict[str, dict[str, Any]], dict[str, str], str]:
        """Each scorer's result (as ``to_dict()``, what the driver's results line holds) and errors, and where."""
        results, errors = score_item(item, self.scorers)
        return {k: r.to_dict() for k, r in results.items()}, errors, f"{socket.gethostname()}:{os.getpid()}"


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError("--ray needs Ray: pip install 'localsumm[ray]'") from None
    return ray


def score_on_ray(
    items: Sequence[ItemResult],
    specs: Sequence[ScorerSpec],
    settings: RaySettings,
    on_outcome: Callable[[ItemResult], None],
    on_ready: Callable[[list[dict[str, Any]]], None] | None = None,
) -> None:
    """Score ``items`` (not scored yet: each an item and its place in the run) with ``specs`` on Ray workers,
    calling ``on_outcome`` on the driver with each one's results as it finishes.

    ``on_ready`` gets each worker's description (host, ip, pid, judges) once all have loaded their
    judges, before the first item is sent.
    """
    ray = _ray()
    started_here = not ray.is_initialized()
    if started_here:
        address = None if settings.address in (None, "local") else settings.address
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise ConfigError(f"cannot reach the Ray cluster at {settings.address}: {e}") from None
    actors: list[Any] = []
    try:
        cpus = int(ray.cluster_resources().get("CPU", 0))
        workers = settings.workers or max(1, cpus // settings.threads)
        if workers * settings.threads > cpus:
            raise ConfigError(
                f"the Ray cluster has {cpus} CPUs; {workers} workers of {settings.threads} threads each need "
                f"{workers * settings.threads}: lower --workers or --threads"
            )
        actor = ray.remote(num_cpus=settings.threads, max_restarts=settings.max_restarts, max_task_retries=-1)(_Worker)
        local = [
            ScorerSpec(s.model, s.options.replace(threads=settings.threads), s.source, s.source_extractor, s.id)
            for s in specs
        ]
        actors = [actor.options(scheduling_strategy="SPREAD").remote(local) for _ in range(workers)]
        infos = ray.get([a.describe.remote() for a in actors])
        _check_workers(infos)
        if on_ready is not None:
            on_ready(infos)
        _dispatch(ray, actors, shard(items, lambda item: source_key(item, specs[0]), workers), on_outcome)
    finally:
        for a in actors:
            ray.kill(a)
        if started_here:
            ray.shutdown()


def _check_workers(infos: list[dict[str, Any]]) -> None:
    """Every worker loaded its judges, and all loaded the same files (by sha256)."""
    for info in infos:
        if info["error"]:
            raise ModelError(f"the worker on node {info['host']} ({info['ip']}) cannot load its judge: {info['error']}")
    first = infos[0]
    for info in infos[1:]:
        if info["judges"] != first["judges"]:
            raise ModelError(
                f"the workers' judges differ: node {info['host']} ({info['ip']}) has {info['judges']}, node "
                f"{first['host']} ({first['ip']}) has {first['judges']}; install the same files on every node"
            )


def _dispatch(
    ray: Any, actors: list[Any], shards: list[list[ItemResult]], on_outcome: Callable[[ItemResult], None]
) -> None:
    queue = deque(shards)
    pending: dict[Any, tuple[int, ItemResult]] = {}
    alive = set(range(len(actors)))

    def feed() -> None:
        busy = {slot for slot, _ in pending.values()}
        for slot in sorted(alive - busy):
            if not queue:
                return
            for todo in queue.popleft():  # an actor runs its calls in order: the shard's order
                pending[actors[slot].score.remote(todo.item)] = (slot, todo)

    feed()
    while pending:
        (ref,), _ = ray.wait(list(pending), num_returns=1)
        slot, todo = pending.pop(ref)
        try:
            results, errors, worker = ray.get(ref)
        except ray.exceptions.RayActorError:
            # Dead beyond its restarts: its unfinished items go back, in order, for the others.
            held = [r for r, (s, _) in pending.items() if s == slot]
            lost = [todo] + [pending.pop(r)[1] for r in held]
            queue.appendleft(sorted(lost, key=lambda it: it.index))
            alive.discard(slot)
            if not alive:
                raise JudgeError(
                    f"every Ray worker died; {sum(len(s) for s in queue)} items are not scored (resume the run)"
                ) from None
        else:
            scored = {k: SummarizationResult.model_validate(v) for k, v in results.items()}
            on_outcome(replace(todo, scorer_results=scored, errors=errors, worker=worker))
        feed()
