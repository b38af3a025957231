"""What a long run tells its user while it works, behind a small interface.

``eval``, ``questions`` and the benchmarks report through a :class:`Progress`: the terminal draws one
(``reports.terminal.ProgressBar``), a library caller gets :class:`Quiet` unless it passes its own.
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    def start(self, label: str, total: int) -> None:
        """``total`` items are to be done."""

    def note(self, kind: str, message: str) -> None:
        """An item was ``"skipped"`` (bad input) or ``"failed"`` (reported, the others go on)."""

    def advance(self, rate: str = "") -> None:
        """One item is done; ``rate`` says how fast the run goes, e.g. "95 tokens/s"."""

    def stop(self) -> None:
        """The run is over (or interrupted)."""


class Quiet:
    """Progress that says nothing."""

    def start(self, label: str, total: int) -> None:
        pass

    def note(self, kind: str, message: str) -> None:
        pass

    def advance(self, rate: str = "") -> None:
        pass

    def stop(self) -> None:
        pass
