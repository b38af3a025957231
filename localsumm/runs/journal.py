"""The one skeleton of a run that writes its file as it goes: ``eval``'s results, ``questions``' question sets.

The file is the run's state. Each finished item is one appended, flushed line, so an
interrupted run loses at most the item in flight, and a resumed run skips what the file
holds. A file that holds lines already is refused unless the run resumes it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from .progress import Progress


def refuse_unless_resumed(out: Path, resume: bool, holds: str) -> bool:
    """Whether ``out`` holds lines already (to resume); refused when it does and the run does not resume.

    A last line cut short (the run that wrote it was killed mid-write) is removed first: its item is done again.
    """
    started = out.exists() and out.stat().st_size > 0
    if started and not resume:
        raise InputError(f"{out} already holds {holds}; pass --resume to continue it, or choose another --out")
    if started:
        drop_cut_line(out)
    return started


def drop_cut_line(out: Path) -> None:
    """Remove a last line without its newline from ``out``."""
    data = out.read_bytes()
    keep = data[: data.rfind(b"\n") + 1]
    if len(keep) != len(data):
        with out.open("r+b") as file:
            file.truncate(len(keep))


@dataclass
class Journal:
    """An open file that takes one whole line per finished item, and tells the run's progress."""

    out: Path
    fd: int
    progress: Progress

    def append(self, line: str, rate: str = "") -> None:
        """Write ``line`` with one unbuffered write (nothing waits in a buffer for a crash to lose); a write the
        disk refuses (full, read-only, gone) leaves the file as it was and stops the run with a clear error."""
        data = (line + "\n").encode("utf-8")
        size = os.lseek(self.fd, 0, os.SEEK_END)
        try:
            done = 0
            while done < len(data):  # a full disk may take part of it before it refuses
                done += os.write(self.fd, data[done:])
        except OSError as e:
            with suppress(OSError):
                os.ftruncate(self.fd, size)  # never a line cut short
            raise InputError(
                f"cannot write {self.out}: {e.strerror or e}; the lines written before are kept: make room (or make "
                "it writable) and run again with --resume"
            ) from None
        self.progress.advance(rate)


@contextmanager
def journal(out: Path, progress: Progress, label: str, total: int) -> Iterator[Journal]:
    """``out`` open for appending while ``total`` items are done; the progress stops however the run ends."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    except OSError as e:
        raise InputError(f"cannot write {out}: {e.strerror or e}") from None
    progress.start(label, total)
    try:
        yield Journal(out, fd, progress)
    finally:
        progress.stop()
        os.close(fd)
