"""KV reuse: what a call can keep of the tokens the engine already evaluated.

The live cache keeps the longest common prefix with the previous call, cut at a segment start so a
segment's entries always come from the same batch. Before a call overwrites a long evaluated prefix, its
entries are copied aside; a later call that shares more with a copy than with the live cache restores
it. In a batch, the second summary of a source then reads the source from memory, although claim
extraction and coverage ran in between.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .engine import Engine

# A prefix is copied aside only when at least this many evaluated tokens would be lost;
# below it, re-evaluating is about as cheap as the bookkeeping.
SNAPSHOT_MIN_TOKENS = 128
# Memory for copied prefixes: at the default judge's 28 KB of KV cache per token, several sources of a batch.
SNAPSHOT_BUDGET_BYTES = 160 * 2**20


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


@dataclass(frozen=True)
class Snapshot:
    tokens: tuple[int, ...]
    data: Any
    """The sequence's KV entries as llama.cpp serialises them (a ctypes byte array)."""


class Snapshots:
    """Copied KV prefixes, most recently used last, within a byte budget."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._items: OrderedDict[tuple[int, ...], Snapshot] = OrderedDict()

    def add(self, snapshot: Snapshot) -> None:
        if len(snapshot.data) > self.budget:
            return
        n = len(snapshot.tokens)
        for key in list(self._items):  # a copy that extends another makes the shorter one useless
            if key == snapshot.tokens[: len(key)] or snapshot.tokens == key[:n]:
                if len(key) <= n:
                    del self._items[key]
                else:
                    return
        self._items[snapshot.tokens] = snapshot
        while sum(len(s.data) for s in self._items.values()) > self.budget:
            self._items.popitem(last=False)

    def best(self, score: Callable[[tuple[int, ...]], int]) -> tuple[Snapshot, int] | None:
        """The snapshot with the highest positive ``score(tokens)`` and that score; marked as recently used."""
        scored = [(score(key), key) for key in self._items]
        if not scored:
            return None
        top, key = max(scored, key=lambda pair: pair[0])
        if top <= 0:
            return None
        self._items.move_to_end(key)
        return self._items[key], top


class Prefixes:
    """Feeds prompts to an engine, evaluating only what neither the live cache nor a copied prefix holds."""

    def __init__(self, engine: Engine, budget: int = SNAPSHOT_BUDGET_BYTES) -> None:
        self.engine = engine
        self.budget = budget
        self._snapshots = Snapshots(budget)

    def forget(self) -> None:
        """Drop the live cache and the copied prefixes, so the next call reads its prompt afresh."""
        self._snapshots = Snapshots(self.budget)
        self.engine.keep(0)

    def feed(self, tokens: list[int], starts: list[int], need_logits: bool = True) -> tuple[int, int]:
        """Evaluate ``tokens``, reusing cached KV entries; returns (evaluated, reused).

        Reuse stops at the last segment start inside the common prefix, and each
        remaining segment is evaluated as one batch. A segment's KV entries are
        then always computed from the same batch, whatever the cache held before:
        llama.cpp's kernels differ by batch size in the last bits, and without
        this a result would depend on what was scored before it. A restored
        snapshot holds entries computed by the same rule, so it changes nothing
        but the time.
        """
        engine = self.engine
        bounds = [0, *starts, len(tokens)]

        def reusable(cached: Sequence[int]) -> int:  # the last segment runs when its logits are needed
            common = common_prefix(cached, tokens)
            return max(b for b in (bounds[:-1] if need_logits else bounds) if b <= common)

        live = engine.live_tokens()
        reused = reusable(live)
        best = self._snapshots.best(reusable)
        if len(live) - reused >= SNAPSHOT_MIN_TOKENS:
            self._snapshots.add(Snapshot(tuple(live), engine.save_state()))
        if best is not None and best[1] > reused:
            engine.load_state(best[0].tokens, best[0].data)
            reused = best[1]
        engine.keep(reused)
        for start, end in zip(bounds, bounds[1:]):
            if end > reused and end > start:
                engine.eval(tokens[start:end])
        return len(tokens) - reused, reused
