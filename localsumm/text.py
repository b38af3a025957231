"""Small text utilities: sentence splitting and lexical evidence for verdict reasons."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[.!?][\"')\]])\s+|\n+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_WORD = re.compile(r"[a-z0-9]+(?:[.,'][a-z0-9]+)*")
_STOP = frozenset(
    "a an the and or but of to in on at for with by from as is are was were be been being it its "
    "this that these those he she they them his her their has have had do does did not no yes "
    "will would can could should may might who what when where which how than then there".split()
)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def closest_sentence(text: str, candidates: list[str]) -> tuple[str, float] | None:
    """The candidate sharing most content words with ``text``, and the share of ``text``'s words it has."""
    words = content_words(text)
    if not words or not candidates:
        return None
    best = max(candidates, key=lambda c: len(words & content_words(c)))
    overlap = len(words & content_words(best)) / len(words)
    return (best, overlap) if overlap > 0 else None


def shorten(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def printable(text: str) -> str:
    """``text`` with control characters shown as ``\\xNN``: untrusted text printed to a terminal must not
    drive it (an ANSI escape in a summary could clear the screen or retitle the window)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
