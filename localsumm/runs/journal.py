"""The one skeleton of a run that writes its file as it goes: ``eval``'s results, ``questions``' question sets.

The file is the run's state. Each finished item is one appended, flushed line, so an
interrupted run loses at most the item in flight, and a resumed run skips what the file
holds. A file that holds lines already is refused unless the run resumes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..errors import InputError
from .progress import Progress


def refuse_unless_resumed(out: Path, resume: bool, holds: str) -> bool:
    """Whether ``out`` holds lines already (to resume); refused when it does and the run does not resume."""
    started = out.exists() and out.stat().st_size > 0
    if started and not resume:
        raise InputError(f"{out} already holds {holds}; pass --resume to continue it, or choose another --out")
    return started


@dataclass
class Journal:
    """An open file that takes one flushed line per finished item, and tells the run's progress."""

    sink: TextIO
    progress: Progress

    def append(self, line: str, rate: str = "") -> None:
        self.sink.write(line + "\n")
        self.sink.flush()
        self.progress.advance(rate)


@contextmanager
def journal(out: Path, progress: Progress, label: str, total: int) -> Iterator[Journal]:
    """``out`` open for appending while ``total`` items are done; the progress stops however the run ends."""
    out.parent.mkdir(parents=True, exist_ok=True)
    progress.start(label, total)
    try:
        with out.open("a", encoding="utf-8") as sink:
            yield Journal(sink, progress)
    finally:
        progress.stop()
