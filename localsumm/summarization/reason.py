"""Reason (the reference's last step): the plain-language reason (SPEC §6) and each verdict's, from templates."""

from __future__ import annotations

from collections.abc import Sequence

from .result import AlignmentVerdict, CoverageVerdict, SourceWindow
from .rules import GRADED_WIDTH, Scores

_MAX_LISTED = 5


def _quote_list(items: list[str]) -> str:
    shown = [f'"{item}"' for item in items[:_MAX_LISTED]]
    if len(items) > _MAX_LISTED:
        shown.append(f"and {len(items) - _MAX_LISTED} more")
    return "; ".join(shown)


def explain(
    scores: Scores,
    alignment: list[AlignmentVerdict],
    coverage: list[CoverageVerdict],
    *,
    empty: str | None = None,
    scale: float = 1,
    windows: Sequence[SourceWindow] | None = None,
    scoring: str = "count",
    key_facts: int = 0,
) -> str:
    """Names the dimension that set the score, shows both, and points at what failed.

    ``empty`` names an input ("summary" or "source") that was empty, so nothing was judged;
    ``windows`` says how a source too long for the judge was cut; ``scoring`` how verdicts made the
    dimensions (``Options.scoring``); ``key_facts`` how many of the coverage verdicts are key facts.
    """
    reason = _overall(scores, alignment, coverage, empty=empty, scale=scale)
    if scoring == "graded" and alignment and scores.questions_asked and not empty:
        reason += (
            f" Alignment and coverage are graded (scoring 'graded'): a verdict within {GRADED_WIDTH / 2:g} of its "
            "threshold counts in proportion to its probability."
        )
    if scoring == "facts" and key_facts and not empty:  # without key facts, "facts" counts as "count" does
        reason += " Coverage counts each key fact by its probability (scoring 'facts'), each question by its verdict."
    if windows:
        reason += (
            f" The source was too long for the judge's context and was judged in {len(windows)} overlapping "
            f"windows of up to {max(w.tokens for w in windows):,} tokens."
        )
    return reason


def _overall(
    scores: Scores,
    alignment: list[AlignmentVerdict],
    coverage: list[CoverageVerdict],
    *,
    empty: str | None,
    scale: float,
) -> str:
    if empty:
        return f"Score 0: the {empty} is empty, so there is nothing to judge."
    if not alignment:
        return "Score 0: no factual claim could be extracted from the summary, so nothing can be judged."
    if not scores.questions_asked:
        return "Score 0: no question could be generated from the source, so coverage cannot be judged."

    dims = f"alignment {scores.alignment:.2f}, coverage {scores.coverage:.2f}"
    unsupported = [v.claim for v in alignment if not v.supported]
    unanswered = [v.question for v in coverage if not v.answered]
    scale_note = f" (scale {scale:g})" if scale != 1 else ""

    if scores.alignment < scores.coverage:
        head = f"Score {scores.score:.2f}{scale_note} is set by alignment ({dims})"
    elif scores.coverage < scores.alignment:
        head = f"Score {scores.score:.2f}{scale_note} is set by coverage ({dims})"
    else:
        head = f"Score {scores.score:.2f}{scale_note}: alignment and coverage are equal ({dims})"

    parts = [head + "."]
    if unsupported:
        parts.append(
            f"{len(unsupported)} of {len(alignment)} claims {'is' if len(unsupported) == 1 else 'are'} not supported "
            f"by the source: {_quote_list(unsupported)}."
        )
    else:
        parts.append(
            "The only claim is supported by the source."
            if len(alignment) == 1
            else f"All {len(alignment)} claims are supported by the source."
        )
    if unanswered:
        parts.append(
            f"The summary does not answer {len(unanswered)} of {scores.questions_asked} questions from the source: "
            f"{_quote_list(unanswered)}."
        )
    else:
        parts.append(
            "The summary answers the only question from the source."
            if scores.questions_asked == 1
            else f"The summary answers all {scores.questions_asked} questions from the source."
        )
    return " ".join(parts)
