"""A persistent cache of judge calls, so rerunning a finished evaluation is nearly instant.

A cached answer is keyed by everything that determines it: the model's sha256,
the version of the step's prompt, the complete messages, the output schema, the token cap and
the sampling settings (greedy, seed). Any change to one of them is a miss.
Only judges that name their weights by sha256 are cached.

The prompt versions belong to the scorer that owns the prompts; it hands them
to :class:`CachedJudge`, so this layer knows nothing of any scorer's wording.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..config.paths import cache_root
from ..protocol import Judge, JudgeCall, Messages, T, yes_probabilities
from .grammar import parse


def default_cache_path() -> Path:
    return cache_root() / "judge-calls.sqlite3"


class JudgeCallCache:
    """A SQLite table of answers; safe to share between processes."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, prompt TEXT NOT NULL, output TEXT NOT NULL, "
            "created REAL NOT NULL)"
        )

    def get(self, key: str) -> tuple[str, str] | None:
        row = self._db.execute("SELECT prompt, output FROM calls WHERE key = ?", (key,)).fetchone()
        return None if row is None else (row[0], row[1])

    def put(self, key: str, prompt: str, output: str) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO calls (key, prompt, output, created) VALUES (?, ?, ?, ?)",
            (key, prompt, output, time.time()),
        )


class CachedJudge:
    """Wraps a judge: answers from the cache when it can, asks the judge and stores the answer when not."""

    def __init__(self, judge: Judge, cache: JudgeCallCache, prompt_versions: Mapping[str, str]) -> None:
        """``prompt_versions``: step -> the version of that step's prompt (read at each call, so a
        mapping changed later keys later calls)."""
        if not judge.info.sha256:
            raise ValueError("only a judge identified by its sha256 can be cached")
        self.prompt_versions = prompt_versions
        self.inner = judge
        self.info = judge.info
        self.context_size = judge.context_size
        self.cache = cache

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def _version(self, step: str) -> str:
        try:
            return self.prompt_versions[step]
        except KeyError:
            raise ValueError(f"unknown judge step {step!r}; known: {', '.join(self.prompt_versions)}") from None

    def _key(self, kind: str, step: str, messages: Messages, **settings: Any) -> str:
        payload = {
            "model_sha256": self.info.sha256,
            "prompt_version": self._version(step),
            "kind": kind,
            "messages": messages,
            "sampling": {"temperature": 0, "seed": self.info.seed},
            **({"engine": self.info.engine} if self.info.engine else {}),
            **settings,
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()

    def generate(self, step: str, messages: Messages, output_type: type[T], max_tokens: int) -> tuple[T, JudgeCall]:
        key = self._key("generate", step, messages, schema=output_type.model_json_schema(), max_tokens=max_tokens)
        hit = self.cache.get(key)
        if hit is not None:
            prompt, output = hit
            return parse(output_type, output), JudgeCall(step, prompt, output, 0, 0, 0, 0.0, cached=True)
        value, call = self.inner.generate(step, messages, output_type, max_tokens)
        self.cache.put(key, call.prompt, call.output)
        return value, call

    def yes_probability(self, step: str, messages: Messages) -> tuple[float, JudgeCall]:
        return self.yes_probabilities(step, [messages])[0]

    def yes_probabilities(self, step: str, batch: list[Messages]) -> list[tuple[float, JudgeCall]]:
        """Cached verdicts from the cache; the others asked of the inner judge together.

        A verdict judged beside others is keyed with them: a batched engine's values move a little with
        what shares the batch, and a rerun must give what a run without the cache would.
        """
        keys = [self._key("yes_probability", step, messages) for messages in batch]
        if len(batch) > 1:
            siblings = hashlib.sha256("".join(keys).encode("ascii")).hexdigest()
            keys = [self._key("yes_probability", step, messages, batch=siblings) for messages in batch]
        results: list[tuple[float, JudgeCall] | None] = []
        missing = []
        for i, key in enumerate(keys):
            hit = self.cache.get(key)
            if hit is None:
                results.append(None)
                missing.append(i)
                continue
            prompt, output = hit
            p = float(json.loads(output))
            results.append((p, JudgeCall(step, prompt, f"p(yes)={p:.4f}", 0, 0, 0, 0.0, cached=True)))
        for i, (p, call) in zip(missing, yes_probabilities(self.inner, step, [batch[i] for i in missing])):
            self.cache.put(keys[i], call.prompt, json.dumps(p))
            results[i] = (p, call)
        return [r for r in results if r is not None]
