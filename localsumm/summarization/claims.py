"""Claims and their verdicts (the alignment half of the reference's preprocess step).

The claims are the summary's sentences, or the atomic claims the judge lists in
the *summary context*. Each is judged in the *source context* (prompts that open
with the source, the same prefix the question set's steps used, so a judge that
keeps its KV cache reads the source once). A source cut into windows is judged
window by window; a claim one window supports is not asked of the next.
"""

from __future__ import annotations

from ..config.options import ClaimUnit
from ..protocol import Judge, yes_probabilities
from ..text import sentences, unique
from . import prompts
from .evidence import verdict_reason
from .literals import unmatched_literals
from .plan import claims_bound, claims_token_budget
from .result import AlignmentVerdict
from .schemas import claim_list
from .steplog import StepLog
from .windows import Window

ClaimProbabilities = dict[str, list[float]]
"""Each claim's probability of support in each window it was asked of, in window order."""


def summary_claims(judge: Judge, summary: str, unit: ClaimUnit, log: StepLog, language: str = "en") -> list[str]:
    """What alignment judges: the summary's sentences as written, or the claims the judge extracts."""
    if unit == "sentences":
        return unique(sentences(summary, language))
    return extract_claims(judge, summary, log, language)


def extract_claims(judge: Judge, summary: str, log: StepLog, language: str = "en") -> list[str]:
    """The atomic claims the judge lists from the summary, in the summary context (SPEC §2)."""
    bound = claims_bound(summary)
    value, call = judge.generate(
        "claims",
        prompts.claims_messages(summary, language),
        claim_list(bound),
        claims_token_budget(judge.count_tokens(summary), bound),
    )
    log.add(call)
    return unique(value.claims)  # type: ignore[attr-defined]


def claim_probabilities(judge: Judge, windows: list[Window], claims: list[str], log: StepLog) -> ClaimProbabilities:
    """Each claim's probability of support, window by window, until a window supports it."""
    threshold = judge.info.thresholds.alignment
    probabilities: ClaimProbabilities = {claim: [] for claim in claims}
    for window in windows:
        open_claims = [c for c in claims if not any(p >= threshold for p in probabilities[c])]
        # The prompts share the window: the judge may read it once and judge the claims side by side.
        answers = yes_probabilities(
            judge, "alignment", [prompts.claim_verdict_messages(window.text, c) for c in open_claims]
        )
        for claim, (p, call) in zip(open_claims, answers):
            log.add(call)
            probabilities[claim].append(p)
    return probabilities


def alignment_verdicts(
    judge: Judge, probabilities: ClaimProbabilities, windows: list[Window], source: str, literal_check: bool
) -> list[AlignmentVerdict]:
    """A claim is supported if a window supports it and (with ``literal_check``) it names no number or
    name the whole source lacks; the verdict names that window (or the closest)."""
    threshold = judge.info.thresholds.alignment
    verdicts = []
    for claim, ps in probabilities.items():
        best = max(range(len(ps)), key=ps.__getitem__)
        p, window = ps[best], windows[best]
        scope = "" if len(windows) == 1 else f" in source window {best + 1} of {len(windows)}"
        unmatched = unmatched_literals(claim, source) if literal_check else []
        verdicts.append(
            AlignmentVerdict(
                claim=claim,
                supported=p >= threshold and not unmatched,
                reason=verdict_reason(p, threshold, "source", claim, sentences(window.text), scope, unmatched),
                probability=round(p, 4),
                window=None if len(windows) == 1 else best,
                unmatched=unmatched,
            )
        )
    return verdicts


def judge_claims(
    judge: Judge, windows: list[Window], claims: list[str], source: str, literal_check: bool, log: StepLog
) -> list[AlignmentVerdict]:
    """Each claim's verdict against the source."""
    probabilities = claim_probabilities(judge, windows, claims, log)
    return alignment_verdicts(judge, probabilities, windows, source, literal_check)
