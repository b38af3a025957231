"""Errors a user can cause or fix, each with the exit code the CLI uses for it.

Anything raised as a :class:`LocalsummError` is printed by the CLI as one short
message without a traceback; anything else is a bug in localsumm. What the user
should know but need not act on is a :class:`LocalsummWarning` (Python's
``warnings``), which the CLI prints as one ``warning:`` line.
"""

from __future__ import annotations


class LocalsummError(Exception):
    """Base class: a problem the user can act on."""

    exit_code = 1


class InputError(LocalsummError):
    """A source, summary or data file that cannot be used."""

    exit_code = 3


class ModelError(LocalsummError):
    """A judge model that is unknown, missing, corrupt or cannot be loaded."""

    exit_code = 4


class JudgeError(LocalsummError):
    """The judge produced something that cannot be turned into a score.

    For example a generation that hit its token cap, or output that does not
    match the schema; such a run is an error, never a score.
    """

    exit_code = 5


class ContextOverflowError(JudgeError):
    """A prompt does not fit in the judge's context window."""

    exit_code = 6


class NetworkError(LocalsummError):
    """A download, or a hosted judge's endpoint, needed the network and could not reach it."""

    exit_code = 7


class ResourceError(LocalsummError):
    """The machine cannot hold what was asked for (e.g. a context too large for its memory)."""

    exit_code = 8


class ConfigError(LocalsummError, ValueError):
    """An option with a value the scorer cannot work with (e.g. max_questions=0)."""

    exit_code = 2


class FileInUseError(LocalsummError):
    """Another process is writing the results or question file this run would write (``runs.lock``)."""

    exit_code = 2


class LocalsummWarning(UserWarning):
    """Something the user should know that did not stop the run: a stale lock taken over, duplicate lines
    ignored, a damaged cache set aside. The CLI prints each as one ``warning: ...`` line."""
