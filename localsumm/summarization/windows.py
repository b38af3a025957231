"""Long sources: cutting a source that does not fit the judge's context into windows.

Pure functions over a token counter, so the cut is the same on every run and
testable without a model. Windows end at sentence boundaries, overlap by a few
sentences (a fact stated across a boundary is whole in one window), and are
measured in the judge's own tokens, not characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ContextOverflowError
from ..text import sentence_spans

CountTokens = Callable[[str], int]

# The text each window repeats from the end of the one before it, as a share of the window.
OVERLAP_SHARE = 0.1

# Between words; a CJK character is a word of its own (those scripts put no spaces between words).
_WORD = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af][^\S\n]*|[^\s\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+\s*|\s+"
)


@dataclass(frozen=True)
class Window:
    index: int
    start: int
    """Character offset of the window in the source."""
    end: int
    tokens: int
    text: str


def spans(text: str, pattern: re.Pattern[str] | None = None) -> list[tuple[int, int]]:
    """(start, end) character spans of the sentences of ``text`` (or of ``pattern``'s matches); together
    they cover all of it."""
    if pattern is None:
        found = sentence_spans(text)
        found[:1] = [(0, found[0][1])] if found else []  # leading whitespace goes with the first sentence
    else:
        found = [(m.start(), m.end()) for m in pattern.finditer(text) if m.end() > m.start()]
    if not found:
        return [(0, len(text))] if text else []
    # Give the gaps (whitespace between matches) to the piece before them, so nothing is lost.
    return [(start, found[i + 1][0] if i + 1 < len(found) else len(text)) for i, (start, _) in enumerate(found)]


def split_source(source: str, room: int, count_tokens: CountTokens) -> list[Window]:
    """Cut ``source`` into windows of at most ``room`` tokens each.

    One window (the whole source) when it fits. A sentence longer than a window
    is cut between words.
    """
    if room < 16:
        raise ContextOverflowError(
            f"the judge's context leaves {room} tokens for the source: too few to judge anything"
        )
    total = count_tokens(source)
    if total <= room:
        return [Window(0, 0, len(source), total, source)]

    pieces: list[tuple[int, int, int]] = []  # (start, end, tokens)
    for start, end in spans(source):
        n = count_tokens(source[start:end])
        if n <= room:
            pieces.append((start, end, n))
            continue
        for word_start, word_end in spans(source[start:end], _WORD):
            pieces.append(
                (start + word_start, start + word_end, count_tokens(source[start + word_start : start + word_end]))
            )

    overlap = int(room * OVERLAP_SHARE)
    windows: list[Window] = []
    first = 0
    while first < len(pieces):
        last, used = first, 0
        # Token counts of pieces add up to at most a few tokens more than the joined text's, so this never overflows.
        while last < len(pieces) and used + pieces[last][2] <= room:
            used += pieces[last][2]
            last += 1
        last = max(
            last, first + 1
        )  # a single word longer than a window still goes in (the judge then names the overflow)
        text = source[pieces[first][0] : pieces[last - 1][1]]
        while count_tokens(text) > room and last > first + 1:  # joined text can tokenize longer than its pieces
            last -= 1
            text = source[pieces[first][0] : pieces[last - 1][1]]
        start, end = pieces[first][0], pieces[last - 1][1]
        windows.append(Window(len(windows), start, end, count_tokens(text), text))
        if last >= len(pieces):
            break
        # Step back over whole pieces up to the overlap, but always move forward.
        back, kept = last, 0
        while back - 1 > first and kept + pieces[back - 1][2] <= overlap:
            back -= 1
            kept += pieces[back][2]
        first = back
    return windows


def share_questions(windows: list[Window], max_questions: int) -> list[int]:
    """How many questions each window asks: in proportion to its tokens, ``max_questions`` in all.

    Largest remainder; ties go to the earlier window. A window may get none when
    there are more windows than questions.
    """
    total = sum(w.tokens for w in windows) or 1
    exact = [max_questions * w.tokens / total for w in windows]
    counts = [int(x) for x in exact]
    by_remainder = sorted(range(len(windows)), key=lambda i: (-(exact[i] - counts[i]), i))
    for i in by_remainder[: max_questions - sum(counts)]:
        counts[i] += 1
    return counts


def passages(text: str, count: int, count_tokens: CountTokens) -> list[str]:
    """``text`` cut at sentence boundaries into at most ``count`` consecutive passages of about equal tokens.

    Together the passages are the whole text; a passage is never empty.
    """
    pieces = [(start, end, count_tokens(text[start:end])) for start, end in spans(text)]
    total = sum(n for _, _, n in pieces) or 1
    cuts: list[int] = []
    seen = 0
    for i, (_, _, n) in enumerate(pieces[:-1]):
        seen += n
        # Cut after the sentence that brings the passage nearest its share of the tokens.
        if len(cuts) < count - 1 and seen >= total * (len(cuts) + 1) / count - n / 2:
            cuts.append(i + 1)
    bounds = [0, *cuts, len(pieces)]
    return [text[pieces[a][0] : pieces[b - 1][1]] for a, b in zip(bounds, bounds[1:]) if b > a]
