"""Claims and their verdicts (the alignment half of the reference's preprocess step).

The claims are the summary's sentences, or the atomic claims the judge lists in
the *summary context*. Each is judged in the *source context* (prompts that open
with the source, the same prefix the question set's steps used, so a judge that
keeps its KV cache reads the source once). A source cut into windows is judged
window by window; a claim one window supports is not asked of the next. With ``verification`` "evidence"
or "both", each claim is also judged against its best-matching source sentences, each alone
(``grounding``), and every verdict names its evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config.options import ClaimUnit, Verification
from ..protocol import Judge, yes_probabilities
from ..text import sentences, unique
from . import prompts
from .evidence import verdict_reason
from .grounding import SourceSentences, source_sentences
from .literals import unmatched_literals
from .plan import claims_bound, claims_token_budget
from .result import AlignmentVerdict, Evidence
from .schemas import claim_list
from .steplog import StepLog
from .windows import Window

ClaimProbabilities = dict[str, list[float]]
"""Each claim's probability of support in each window it was asked of, in window order."""


def summary_claims(judge: Judge, summary: str, unit: ClaimUnit, log: StepLog, language: str = "en") -> list[str]:
    """What alignment judges: the summary's sentences as written, or the claims the judge extracts. A "sentence"
    with no letter or digit (a closing quote that tokenised text sets after its stop: `` ... proud . ' ``) states
    nothing and is no claim."""
    if unit == "sentences":
        return unique([s for s in sentences(summary, language) if any(c.isalnum() for c in s)])
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


@dataclass(frozen=True)
class Support:
    """What one claim's verdict rests on: its probability, and where in the source it stands."""

    p: float
    scope: str
    """Where the judge read it, for the reason: "" (the whole source), a window, or the evidence sentences."""
    evidence: list[Evidence]
    window: int | None = None
    whole_probability: float | None = None


def evidence_probabilities(
    judge: Judge, sentences: SourceSentences, claims: list[str], log: StepLog
) -> dict[str, list[Evidence]]:
    """Each claim judged against each of its best-matching source sentences alone (``verification`` "evidence"
    or "both"), the most supportive first (ties in lexical order)."""
    wanted = {claim: sentences.candidates(claim) for claim in claims}
    asked: dict[int, list[str]] = {}
    for claim, ranked in wanted.items():
        for i, _ in ranked:
            asked.setdefault(i, []).append(claim)
    found: dict[tuple[str, int], float] = {}
    # One batch per sentence, in source order: the claims that point at it share it as their prefix.
    for i in sorted(asked):
        text = sentences.sentence(i).text
        answers = yes_probabilities(judge, "evidence", [prompts.claim_verdict_messages(text, c) for c in asked[i]])
        for claim, (p, call) in zip(asked[i], answers):
            log.add(call)
            found[claim, i] = p
    return {
        claim: sorted(
            (sentences.evidence(i, score, round(found[claim, i], 4)) for i, score in ranked),
            key=lambda e: -(e.probability or 0.0),
        )
        for claim, ranked in wanted.items()
    }


def whole_support(ps: list[float], windows: list[Window], sentences: SourceSentences, claim: str) -> Support:
    """Today's verdict: the best window's probability; the lexical pointer lies in that window."""
    best = max(range(len(ps)), key=ps.__getitem__)
    window = windows[best]
    if len(windows) == 1:
        return Support(ps[best], "", sentences.pointer(claim))
    scope = f" in source window {best + 1} of {len(windows)}"
    return Support(ps[best], scope, sentences.pointer(claim, window.start, window.end), best)


def claim_support(
    claim: str, whole: list[float] | None, judged: list[Evidence] | None, windows: list[Window], source: str
) -> Support:
    """The probability a claim's verdict compares with its threshold, under the verification mode that gave
    ``whole`` (its probabilities window by window) and ``judged`` (its evidence sentences' probabilities)."""
    sentences = source_sentences(source)
    if judged is None:
        assert whole is not None
        return whole_support(whole, windows, sentences, claim)
    p_evidence = (judged[0].probability or 0.0) if judged else 0.0
    n = f"{len(judged)} source sentence{'s' if len(judged) != 1 else ''}"
    if whole is None:
        return Support(p_evidence, f" (the most supportive of {n} judged alone)", judged)
    on_whole = whole_support(whole, windows, sentences, claim)
    p = (on_whole.p + p_evidence) / 2
    scope = f" (mean of {on_whole.p:.2f} on the whole source{on_whole.scope} and {p_evidence:.2f} on the best of {n})"
    return Support(p, scope, judged, on_whole.window, round(on_whole.p, 4))


def alignment_verdicts(
    judge: Judge,
    claims: list[str],
    whole: ClaimProbabilities,
    judged: dict[str, list[Evidence]],
    windows: list[Window],
    source: str,
    literal_check: bool,
) -> list[AlignmentVerdict]:
    """A claim is supported if its probability (``claim_support``) reaches the threshold and (with
    ``literal_check``) it names no number or name the whole source lacks."""
    threshold = judge.info.thresholds.alignment
    verdicts = []
    for claim in claims:
        support = claim_support(claim, whole.get(claim), judged.get(claim), windows, source)
        unmatched = unmatched_literals(claim, source) if literal_check else []
        if claim in judged:  # the reason quotes the sentence the judge found most supportive
            candidates = [e.text for e in support.evidence[:1]]
        else:  # as before evidence existed: the window's sentence sharing most words with the claim
            candidates = sentences(windows[support.window or 0].text)
        verdicts.append(
            AlignmentVerdict(
                claim=claim,
                supported=support.p >= threshold and not unmatched,
                reason=verdict_reason(support.p, threshold, "source", claim, candidates, support.scope, unmatched),
                probability=round(support.p, 4),
                window=support.window,
                unmatched=unmatched,
                evidence=support.evidence,
                whole_probability=support.whole_probability,
            )
        )
    return verdicts


def judge_claims(
    judge: Judge,
    windows: list[Window],
    claims: list[str],
    source: str,
    literal_check: bool,
    log: StepLog,
    verification: Verification = "whole",
) -> list[AlignmentVerdict]:
    """Each claim's verdict against the source, as ``verification`` says: the whole source (window by window),
    its best-matching sentences each alone, or both."""
    whole = claim_probabilities(judge, windows, claims, log) if verification != "evidence" else {}
    judged = {} if verification == "whole" else evidence_probabilities(judge, source_sentences(source), claims, log)
    return alignment_verdicts(judge, claims, whole, judged, windows, source, literal_check)
