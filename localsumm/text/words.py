"""Words: content words for lexical evidence in verdict reasons, tokens for lexical baselines, safe printing.

Chinese and Japanese are written without spaces, so a word there is
approximated by characters: two adjacent CJK characters for content words
(most Chinese words are two characters long), one character for tokens.
"""

from __future__ import annotations

import re

from .numerals import number_keys

REPEATS = 0.75
"""Two texts ask one fact when they share this share of their content words (Jaccard) and the same numbers.
Set by reading the near pairs of two dev sets' question files
(benchmarks/preregistered/near-duplicate-questions-2026-12-07.md): every pair at or above it asked one fact
twice ("Did Dawn suffer seven miscarriages?" / "Did Dawn have seven miscarriages?"); below it, pairs where one
asks more ("... the grave stone £207?" against "... the grave stone.")."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_WORD = re.compile(r"[a-z0-9]+(?:[.,'][a-z0-9]+)*")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_STOP = frozenset(
    "a an the and or but of to in on at for with by from as is are was were be been being it its "
    "this that these those he she they them his her their has have had do does did not no yes "
    "will would can could should may might who what when where which how than then there".split()
)


def content_words(text: str) -> set[str]:
    """Lower-cased words outside a stop list, and every pair of adjacent CJK characters."""
    lowered = text.lower()
    words = {w for w in _WORD.findall(lowered) if w not in _STOP}
    for run in _CJK_RUN.findall(lowered):
        if len(run) == 1:
            words.add(run)  # a lone character is its own word
        else:
            words.update(run[i : i + 2] for i in range(len(run) - 1))
    return words


def tokens(text: str) -> list[str]:
    """Lower-cased whitespace tokens, with each CJK character a token of its own (English text: ``split()``)."""
    found: list[str] = []
    for token in text.lower().split():
        if not _CJK_RUN.search(token):
            found.append(token)
            continue
        for piece in re.split(f"({_CJK_RUN.pattern})", token):
            if _CJK_RUN.fullmatch(piece):
                found.extend(piece)
            elif piece:
                found.append(piece)
    return found


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


def unique(texts: list[str]) -> list[str]:
    """Stripped, non-empty, first occurrence only (case and spacing aside): a small judge sometimes repeats itself."""
    seen: set[str] = set()
    kept = []
    for text in (t.strip() for t in texts):
        key = " ".join(text.lower().split())
        if text and key not in seen:
            seen.add(key)
            kept.append(text)
    return kept


def repeats(texts: list[str], threshold: float = REPEATS) -> list[int | None]:
    """For each text, the index of an earlier text it says again, or None: ``threshold`` of their content words
    shared and the same numbers, compared with the texts kept so far (a repeat is not compared with)."""
    kept: list[tuple[int, set[str], list[tuple[str, ...]]]] = []
    found: list[int | None] = []
    for i, text in enumerate(texts):
        words, numbers = content_words(text), sorted(tuple(sorted(keys)) for _, keys in number_keys(text))
        earlier = next(
            (j for j, w, n in kept if n == numbers and words and w and len(words & w) / len(words | w) >= threshold),
            None,
        )
        found.append(earlier)
        if earlier is None:
            kept.append((i, words, numbers))
    return found
