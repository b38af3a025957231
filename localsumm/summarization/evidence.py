"""What one verdict rests on, in words: written beside each verdict, by the step that makes it.

The judge writes no explanation (its verdicts are probabilities), so a verdict's reason says what it is
made of: the probability against the threshold, the literals the source lacks, the closest sentence.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..text import closest_sentence, shorten


def verdict_reason(
    p: float,
    threshold: float,
    where: str,
    text: str,
    candidates: list[str],
    scope: str = "",
    unmatched: Sequence[str] = (),
) -> str:
    """An honest reason for one verdict: the judge wrote no explanation, so say what the verdict rests on."""
    relation = "≥" if p >= threshold else "<"
    reason = f"judge probability {p:.2f} {relation} threshold {threshold:.2f}{scope}"
    if unmatched:
        named = ", ".join(f'"{literal}"' for literal in unmatched)
        reason += f"; not in the source: {named} (names and numbers must match the source exactly)"
    evidence = closest_sentence(text, candidates)
    if evidence is not None:
        reason += f'; closest {where} sentence: "{shorten(evidence[0])}"'
    return reason
