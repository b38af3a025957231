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
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..config.paths import cache_root
from ..errors import LocalsummWarning
from ..protocol import Judge, JudgeCall, Messages, T, yes_probabilities
from .grammar import parse


def default_cache_path() -> Path:
    return cache_root() / "judge-calls.sqlite3"


BUSY_TIMEOUT = 60.0
"""Seconds a process waits for another's write to the cache (SQLite's busy timeout) before giving up."""
_BUSY, _CORRUPT, _NOTADB = 5, 11, 26  # SQLite's primary result codes


class JudgeCallCache:
    """A SQLite table of answers, shared between processes: WAL (readers never wait for a writer) and a busy
    timeout (writers wait for each other). Never the reason a run fails: a damaged file is set aside and
    started afresh, and any other error turns the cache off for this process; each with one warning."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_cache_path()
        self._db: sqlite3.Connection | None = None
        self._inode = 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = self._open()
        except (sqlite3.Error, OSError) as e:
            self._failed(e)

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None)
        deadline = time.monotonic() + BUSY_TIMEOUT
        while True:
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(
                    "CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, prompt TEXT NOT NULL, "
                    "output TEXT NOT NULL, created REAL NOT NULL)"
                )
                break
            except sqlite3.Error as e:
                # Two processes opening a new file at once: the switch to WAL takes a lock that SQLite does not
                # wait for (no busy timeout there), so one of them is told "database is locked". Try again.
                if _code(e) != _BUSY or time.monotonic() > deadline:
                    db.close()
                    raise
                time.sleep(0.01)
        self._inode = self.path.stat().st_ino
        return db

    def _failed(self, error: sqlite3.Error | OSError) -> None:
        """Rebuild a damaged file, else go on without the cache; say which, once."""
        if isinstance(error, sqlite3.ProgrammingError):
            raise error  # a bug of ours (e.g. a connection used from another thread), not a damaged cache
        if self._db is not None:
            self._db.close()
            self._db = None
        if not isinstance(error, sqlite3.Error) or _code(error) not in (_CORRUPT, _NOTADB):
            _warn(f"the judge-call cache {self.path} cannot be used ({error}); scoring goes on without it")
            return
        aside = self._set_aside()
        try:
            self._db = self._open()
        except (sqlite3.Error, OSError) as again:
            _warn(
                f"the judge-call cache {self.path} is damaged ({error}) and cannot be rebuilt ({again}); scoring "
                "goes on without it"
            )
            return
        _warn(
            f"the judge-call cache {self.path} is damaged ({error}): moved to {aside.name} and started afresh; "
            "scoring goes on, asking the judge what it held"
        )

    def _set_aside(self) -> Path:
        """Move the damaged file (and its WAL, which must not replay onto the new one) out of the way."""
        aside = self.path.with_name(self.path.name + ".damaged")
        try:
            if self._inode and self.path.stat().st_ino != self._inode:
                return aside  # another process has already set it aside and started the new one
            for suffix in ("", "-wal", "-shm"):
                source = self.path.with_name(self.path.name + suffix)
                if source.exists():
                    source.replace(aside.with_name(aside.name + suffix))
        except OSError:
            pass  # moved by another process meanwhile
        return aside

    def get(self, key: str) -> tuple[str, str] | None:
        if self._db is None:
            return None
        try:
            row = self._db.execute("SELECT prompt, output FROM calls WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as e:
            self._failed(e)
            return None
        return None if row is None else (row[0], row[1])

    def put(self, key: str, prompt: str, output: str) -> None:
        if self._db is None:
            return
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO calls (key, prompt, output, created) VALUES (?, ?, ?, ?)",
                (key, prompt, output, time.time()),
            )
        except sqlite3.Error as e:
            self._failed(e)


def _code(error: sqlite3.Error) -> int:
    """SQLite's primary result code of ``error`` (its extended code's low byte)."""
    return (getattr(error, "sqlite_errorcode", None) or 0) & 0xFF


def _warn(message: str) -> None:
    warnings.warn(message, LocalsummWarning, stacklevel=4)


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
