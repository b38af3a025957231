"""Chinese words, for what a checker must read word by word: numerals and names.

Chinese has no spaces, so ``jieba`` (a dictionary segmenter with part-of-speech
tags, its dictionary inside the package) cuts the words. It is loaded on first
use, only for text with Han characters.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

from .language import HAN

# jieba's tags for person (nr, nrfg, nrt), place (ns) and organisation (nt) names.
_NAME_TAGS = frozenset({"nr", "nrfg", "nrt", "ns", "nt"})
# Numerals (m), numeral-measure words (mq), time words (t: 五月); jieba leaves 〇 untagged (x).
_NUMERAL_TAGS = frozenset({"m", "mq", "t", "x"})


def has_han(text: str) -> bool:
    return HAN.search(text) is not None


# A claim is cut once however many numerals it holds (in_numeral_words asks per numeral).
@lru_cache(maxsize=256)
def tagged_words(text: str) -> tuple[tuple[int, int, str, str], ...]:
    """(start, end, word, tag) for each word jieba cuts from ``text``."""
    found: list[tuple[int, int, str, str]] = []
    cursor = 0
    for word, tag in _posseg().cut(text):
        start = text.find(word, cursor)
        if start < 0:
            continue
        found.append((start, start + len(word), word, tag))
        cursor = start + len(word)
    return tuple(found)


def names(text: str) -> list[str]:
    """Person, place and organisation names of at least two characters, as jieba tags them."""
    return [w for _, _, w, tag in tagged_words(text) if tag in _NAME_TAGS and len(w) >= 2 and has_han(w)]


def in_numeral_words(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] lies within words tagged as numerals, and not in part of another word
    (the 一 of 统一, the 十 of 十分)."""
    return all(tag in _NUMERAL_TAGS for s, e, _, tag in tagged_words(text) if s < end and e > start)


@lru_cache(maxsize=1)
def _posseg() -> Any:
    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)  # it announces building its prefix dictionary on every first use
    return jieba.posseg
