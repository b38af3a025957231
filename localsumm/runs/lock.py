"""One writer per results or question file.

``eval`` and ``questions`` append to their ``--out`` as items finish; two processes appending to one
file would interleave and write every id twice. So each holds an exclusive lock on the file for its
whole run, from the resume read to the last line: filelock's marker lock, ``FILE.lock`` beside it,
which names the holder's process id and host. A second writer is refused at once, naming them. A
marker left by a process that died (same host; no longer running, or its process id now another process's) is
taken over, with a warning.
"""

from __future__ import annotations

import functools
import inspect
import os
import socket
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ParamSpec, TypeVar

from filelock import MarkerSoftFileLock, OwnerRecord, Timeout

from ..errors import FileInUseError, InputError, LocalsummWarning

WAIT = 0.5
"""Seconds to try: enough to take over a dead holder's marker (filelock does it between tries), short
enough that a second writer is refused at once."""

P = ParamSpec("P")
R = TypeVar("R")


def lock_path(path: Path) -> Path:
    """The lock's marker file, beside ``path`` so that every process (and host) writing it sees it."""
    return path.with_name(path.name + ".lock")


def _host(owner: OwnerRecord) -> str:
    # filelock appends "?pidns-N" to the host name inside a container's pid namespace: not a name to show.
    return owner.hostname.split("?pidns")[0]


def _running(pid: int) -> bool | None:
    """Whether process ``pid`` of this host runs (None where that cannot be asked without harm)."""
    if sys.platform == "win32":  # os.kill(pid, 0) would send it Ctrl-C there
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _gone(owner: OwnerRecord) -> str | None:
    """How the holder named by a marker of this host is gone: no longer running, or its process id reused by a
    later process (which filelock tells by the start time the marker records); None while it runs.

    A holder that released the lock normally between the read of its marker and our acquiring it runs still.
    """
    try:  # filelock's own test of a marker it takes over; private, so a release that moves it falls back
        from filelock._identity import owner_is_stale
    except ImportError:
        return "which is no longer running" if _running(owner.pid) is False else None
    try:
        stale = owner_is_stale(owner.pid, owner.hostname, owner.start)
    except OSError:
        return None
    if not stale:
        return None
    if _running(owner.pid):
        return f"which is no longer running (process id {owner.pid} now names another, later process)"
    return "which is no longer running"


def _refusal(path: Path, owner: OwnerRecord | None) -> str:
    if owner is None:
        return (
            f"{path} is being written by another process (its lock {lock_path(path)} names none yet); wait for it "
            "to finish, or choose another --out"
        )
    message = f"{path} is being written by process {owner.pid} on {_host(owner)}: wait for it to finish, or choose "
    message += "another --out"
    if _host(owner) != socket.gethostname():  # a dead holder on this host would have been taken over
        message += f"\n(this host cannot see that host's processes: if it no longer runs, delete {lock_path(path)})"
    return message


@contextmanager
def one_writer(path: Path) -> Iterator[None]:
    """Hold the exclusive lock on ``path`` for the block.

    Raises :class:`FileInUseError` at once when another process (or another run in this one) holds it.
    """
    lock = MarkerSoftFileLock(str(lock_path(path)))
    before = lock.owner  # read first: filelock replaces a dead holder's marker with ours as it acquires
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock.acquire(timeout=WAIT)
    except Timeout:
        raise FileInUseError(_refusal(path, lock.owner or before)) from None
    except OSError as e:  # a read-only folder, a file where a folder should be
        raise InputError(f"{path} cannot be written: {e.strerror or e}") from None
    try:
        mine = lock.owner
        if before is not None and mine is not None and before.hostname == mine.hostname and before != mine:
            gone = _gone(before)
            if gone is not None:
                warnings.warn(
                    f"{path} was left locked by process {before.pid} on {_host(before)}, {gone}; took the lock "
                    "over (a line it was writing when it died is dropped by --resume)",
                    LocalsummWarning,
                    stacklevel=3,
                )
        yield
    finally:
        lock.release()


def writes(parameter: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Run the decorated function holding :func:`one_writer` on its argument ``parameter`` (the file it
    appends to) for the whole call: before it reads the file to resume, and before a judge loads, so a
    second writer is refused at once."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(function)

        @functools.wraps(function)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            with one_writer(Path(signature.bind(*args, **kwargs).arguments[parameter])):
                return function(*args, **kwargs)

        return run

    return decorate
