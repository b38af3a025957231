"""Preprocess (the reference's first step): the summary's claims, the source's questions, each claim judged.

Everything here that sees the source runs in the *source context* (prompts that
open with the source, so a judge that keeps its KV cache reads it once). Claims
are the summary's sentences, or extracted by the judge in the *summary context*.
A source cut into windows is judged window by window, so each window's
questions and verdicts share its prefix in the KV cache.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field

from ..config.options import Options
from ..errors import ContextOverflowError, JudgeError
from ..protocol import Judge, yes_probabilities
from ..text import sentences
from . import prompts
from .evidence import verdict_reason
from .literals import unmatched_literals
from .plan import (
    QUESTIONS_PER_PASSAGE,
    Plan,
    claims_bound,
    claims_token_budget,
    highlights_token_budget,
    key_facts_token_budget,
    questions_token_budget,
)
from .question_file import QuestionSet
from .result import AlignmentVerdict, DroppedQuestion
from .schemas import HIGHLIGHTS, MAX_KEY_FACTS, claim_list, highlight_list, key_fact_list, question_list
from .steplog import StepLog
from .windows import Window

# Question sets kept for sources seen in this process (a batch's sources).
_QUESTION_SETS_KEPT = 1024


@dataclass(frozen=True)
class KeyFacts:
    """A source's key facts (``Options.key_facts``): the highlights the judge wrote, and their single facts."""

    highlights: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    """Why a window gave none: its highlights failed, and coverage asked its questions alone there."""


@dataclass(frozen=True)
class Preprocessed:
    alignment: list[AlignmentVerdict]
    questions: list[str]
    dropped: list[DroppedQuestion] = field(default_factory=list)
    key_facts: KeyFacts = KeyFacts()


CheckedQuestions = tuple[list[str], list[DroppedQuestion]]
# What a source yields, by kind: its questions as generated, as checked, and its key facts (as written, failed,
# or as checked).
_KINDS = ("questions", "checked", "key_facts", "key_facts_failed", "key_facts_checked")


class QuestionSets:
    """What the source steps found, by source text, count, language and kind: questions as generated
    or as checked against the source, or key facts. They depend on the source alone, so all summaries
    of a source share them; a scorer keeps its own (one judge, one prompt version)."""

    def __init__(self, kept: int = _QUESTION_SETS_KEPT) -> None:
        self.kept = kept
        self._sets: OrderedDict[str, tuple[list, list]] = OrderedDict()

    @staticmethod
    def key(source: str, n: int, language: str = "en", kind: str = "questions") -> str:
        if kind not in _KINDS:
            raise ValueError(f"unknown kind {kind!r}; known: {', '.join(_KINDS)}")
        return hashlib.sha256(f"{n}\x00{language}\x00{kind}\x00{source}".encode()).hexdigest()

    def get(self, source: str, n: int, language: str = "en", kind: str = "questions") -> tuple[list, list] | None:
        key = self.key(source, n, language, kind)
        if key not in self._sets:
            return None
        self._sets.move_to_end(key)
        first, second = self._sets[key]
        return list(first), list(second)

    def put(self, source: str, n: int, found: tuple[list, list], language: str = "en", kind: str = "questions") -> None:
        self._sets[self.key(source, n, language, kind)] = (list(found[0]), list(found[1]))
        if len(self._sets) > self.kept:
            self._sets.popitem(last=False)


def preprocess(
    judge: Judge,
    summary: str,
    source: str,
    plan: Plan,
    options: Options,
    log: StepLog,
    memo: QuestionSets,
    given: QuestionSet | None = None,
) -> Preprocessed:
    """``plan.language`` is the summary's: its claims, and the questions it is asked, are written in it.
    With ``given`` (a question file's set for this source), no question or key-facts step runs: coverage
    asks exactly its questions and facts."""
    language = plan.language
    claims = (
        unique(sentences(summary, language))
        if options.claims == "sentences"
        else extract_claims(judge, summary, log, language)
    )
    if given is not None:
        probabilities, _, _, _ = judge_source(judge, plan.windows, claims, log, None, None, memo, language)
        questions, dropped = given.questions, given.dropped
        key_facts = KeyFacts(highlights=given.highlights, facts=given.key_facts)
    else:
        facts = plan.questions_per_window if plan.key_facts else None
        probabilities, questions, dropped, key_facts = judge_source(
            judge,
            plan.windows,
            claims,
            log,
            plan.questions_per_window,
            plan.passages,
            memo,
            language,
            options.question_check,
            facts,
        )
    alignment = alignment_verdicts(judge, probabilities, plan.windows, source, options.literal_check)
    return Preprocessed(alignment, questions, dropped, key_facts)


def source_question_set(
    judge: Judge, plan: Plan, options: Options, log: StepLog, memo: QuestionSets | None
) -> Preprocessed:
    """The source steps of :func:`preprocess` alone, as the scorer runs them: the questions and key facts a
    question file keeps (no claims, so no alignment)."""
    facts = plan.questions_per_window if plan.key_facts else None
    _, questions, dropped, key_facts = judge_source(
        judge,
        plan.windows,
        [],
        log,
        plan.questions_per_window,
        plan.passages,
        memo,
        plan.language,
        options.question_check,
        facts,
    )
    return Preprocessed([], questions, dropped, key_facts)


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


def generate_questions(
    judge: Judge,
    source: str,
    n: int,
    parts: list[str],
    log: StepLog,
    memo: QuestionSets | None = None,
    language: str = "en",
) -> list[str]:
    """Up to ``n`` yes/no questions, written in ``language``, that the source answers "yes": passage by
    passage when the plan cut it into several ``parts``."""
    if memo is not None:
        known = memo.get(source, n, language)
        if known is not None:
            log.shared.add("questions")
            return known[0]
    if len(parts) == 1:
        asks = [(prompts.questions_messages(source, n, language), n)]
    else:
        per = QUESTIONS_PER_PASSAGE
        asks = [(prompts.passage_questions_messages(source, passage, per, language), per) for passage in parts]
    found: list[str] = []
    for messages, k in asks:
        value, call = judge.generate("questions", messages, question_list(k, language), questions_token_budget(k))
        log.add(call)
        found += value.questions  # type: ignore[attr-defined]
    questions = unique(found)
    if memo is not None:
        memo.put(source, n, (questions, []), language)
    return questions


def source_questions(
    judge: Judge,
    source: str,
    n: int,
    parts: list[str],
    log: StepLog,
    memo: QuestionSets | None,
    language: str,
    check: bool,
) -> CheckedQuestions:
    """The source's questions and, with ``check``, without those it does not answer "yes" itself."""
    if not check:
        return generate_questions(judge, source, n, parts, log, memo, language), []
    if memo is not None:
        known = memo.get(source, n, language, kind="checked")
        if known is not None:
            log.shared.update({"questions", "answerable"})
            return known
    generated = generate_questions(judge, source, n, parts, log, memo, language)
    found = keep_answerable_questions(judge, source, generated, log)
    if memo is not None:
        memo.put(source, n, found, language, kind="checked")
    return found


def source_key_facts(judge: Judge, source: str, n: int, log: StepLog, memo: QuestionSets | None = None) -> KeyFacts:
    """Up to ``n`` key facts of ``source``: the highlights the judge writes of it (source context), split
    into single facts (summary context, the highlights in the summary's place)."""
    if memo is not None:
        known = memo.get(source, n, kind="key_facts")
        if known is not None:
            log.shared.update({"highlights", "key_facts"})
            return KeyFacts(highlights=known[1], facts=known[0])
        failed = memo.get(source, n, kind="key_facts_failed")
        if failed is not None:
            log.shared.add("highlights")
            return KeyFacts(failed=failed[0])
    try:
        value, call = judge.generate(
            "highlights",
            prompts.highlights_messages(source, HIGHLIGHTS),
            highlight_list(HIGHLIGHTS),
            highlights_token_budget(),
        )
    except ContextOverflowError:
        raise
    except JudgeError as e:
        # Key facts add to the questions; a judge that runs a highlight on to its cap (SmolLM2 on a
        # repetitive source) costs the evaluation those facts, not its score. Kept like a success, so a
        # later summary of the source neither pays for the failed generation again nor loses its record.
        if memo is not None:
            memo.put(source, n, ([str(e)], []), kind="key_facts_failed")
        return KeyFacts(failed=[str(e)])
    log.add(call)
    highlights = unique(value.summary)  # type: ignore[attr-defined]
    bound = min(n, MAX_KEY_FACTS)
    if not highlights:  # a judge that ignores the schema's bounds (a hosted one may): nothing to split
        return KeyFacts()
    try:
        split, call = judge.generate(
            "key_facts",
            prompts.key_facts_messages(" ".join(highlights)),
            key_fact_list(bound),
            key_facts_token_budget(bound),
        )
        log.add(call)
        facts = unique(split.facts)  # type: ignore[attr-defined]
    except ContextOverflowError:
        raise
    except JudgeError:  # the split ran past its cap (never seen on the dev sets): the highlights are the facts
        facts = highlights[:bound]
    if memo is not None:
        memo.put(source, n, (facts, highlights), kind="key_facts")
    return KeyFacts(highlights=highlights, facts=facts)


def keep_answerable_questions(judge: Judge, source: str, questions: list[str], log: StepLog) -> CheckedQuestions:
    """The questions ``source`` answers "yes", in order, and the others with the verdict that dropped them.

    A small judge writes questions its source does not answer (the bundled example asked whether David
    Chen became chair: Maria Chen did); coverage would count them against every summary. The check is one
    more verdict in the source context, whose prefix the judge already holds. If it would drop every
    question, the most probable one is kept: a source always has something to ask.
    """
    kept, dropped = answered_by_source(judge, source, questions, log)
    if not kept and dropped:
        best = max(range(len(dropped)), key=lambda i: dropped[i].probability or 0.0)
        kept.append(dropped.pop(best).question)
    return kept, dropped


def keep_answerable_facts(
    judge: Judge, source: str, n: int, facts: list[str], log: StepLog, memo: QuestionSets | None = None
) -> CheckedQuestions:
    """The key facts ``source`` answers "yes" when asked as coverage asks them, and the others dropped, as
    generated questions are: a judge's highlights can misread the source, and its split can make facts of
    nothing ("The game was played in a world."), which coverage would count against every summary. Unlike
    the questions, all may go: the questions remain."""
    if memo is not None:
        known = memo.get(source, n, kind="key_facts_checked")
        if known is not None:
            log.shared.add("answerable")
            return known[0], known[1]
    asked = {prompts.fact_question(f): f for f in facts}
    kept, dropped = answered_by_source(judge, source, list(asked), log)
    checked = ([asked[q] for q in kept], dropped)
    if memo is not None:
        memo.put(source, n, checked, kind="key_facts_checked")
    return checked


def answered_by_source(judge: Judge, source: str, questions: list[str], log: StepLog) -> CheckedQuestions:
    """``questions`` split by the judge's verdict in the source context: answered "yes", or dropped and why."""
    threshold = judge.info.thresholds.coverage
    answers = yes_probabilities(judge, "answerable", [prompts.answerable_messages(source, q) for q in questions])
    kept: list[str] = []
    dropped: list[DroppedQuestion] = []
    for question, (p, call) in zip(questions, answers):
        log.add(call)
        if p >= threshold:
            kept.append(question)
        else:
            reason = f'the source does not answer it "yes": judge probability {p:.2f} < threshold {threshold:.2f}'
            dropped.append(DroppedQuestion(question=question, reason=reason, probability=round(p, 4)))
    return kept, dropped


def judge_source(
    judge: Judge,
    windows: list[Window],
    claims: list[str],
    log: StepLog,
    counts: list[int] | None,
    passages: list[list[str]] | None,
    memo: QuestionSets | None = None,
    language: str = "en",
    question_check: bool = False,
    fact_counts: list[int] | None = None,
) -> tuple[dict[str, list[float]], list[str], list[DroppedQuestion], KeyFacts]:
    """Claim probabilities per window and (when ``counts`` gives how many per window, from the plan's
    ``passages``) questions, and (when
    ``fact_counts`` does) key facts, window by window, so each window's source steps share its prefix in
    the KV cache. A claim supported by one window is not asked of the next. With ``question_check``, a
    window's questions and key facts that it does not answer "yes" itself are dropped (and returned apart)."""
    questions: list[str] = []
    dropped: list[DroppedQuestion] = []
    highlights: list[str] = []
    facts: list[str] = []
    failed: list[str] = []
    probabilities: dict[str, list[float]] = {claim: [] for claim in claims}
    for i, window in enumerate(windows):
        if counts and passages and counts[i]:
            parts = passages[i]
            kept, lost = source_questions(judge, window.text, counts[i], parts, log, memo, language, question_check)
            questions += kept
            dropped += lost
        if fact_counts and fact_counts[i]:
            found = source_key_facts(judge, window.text, fact_counts[i], log, memo)
            highlights += found.highlights
            if question_check and found.facts:
                kept_facts, lost = keep_answerable_facts(judge, window.text, fact_counts[i], found.facts, log, memo)
                facts += kept_facts
                dropped += lost
            else:
                facts += found.facts
            failed += [
                f"window {window.index + 1} of {len(windows)}: {e}" if len(windows) > 1 else e for e in found.failed
            ]
        open_claims = [c for c in claims if not any(p >= judge.info.thresholds.alignment for p in probabilities[c])]
        # The prompts share the window: the judge may read it once and judge the claims side by side.
        answers = yes_probabilities(
            judge, "alignment", [prompts.claim_verdict_messages(window.text, c) for c in open_claims]
        )
        for claim, (p, call) in zip(open_claims, answers):
            log.add(call)
            probabilities[claim].append(p)
    return probabilities, unique(questions), dropped, KeyFacts(highlights, unique(facts), failed)


def alignment_verdicts(
    judge: Judge, probabilities: dict[str, list[float]], windows: list[Window], source: str, literal_check: bool
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


def unique(texts: list[str]) -> list[str]:
    """Stripped, non-empty, first occurrence only: a small judge sometimes repeats itself."""
    seen: set[str] = set()
    kept = []
    for text in (t.strip() for t in texts):
        key = " ".join(text.lower().split())
        if text and key not in seen:
            seen.add(key)
            kept.append(text)
    return kept


def reference_facts(reference: str | list[str], language: str = "en") -> tuple[list[str], list[str]]:
    """A reference as key facts, as the pyramid method and FineSurE use one: a list is its facts as given
    (REALSumm's SCUs, RoSE's ACUs, a person's highlights); a text is split into its sentences (kept also as
    the highlights, for review). Returns (facts, highlights)."""
    if isinstance(reference, str):
        highlights = unique(sentences(reference, language))
        return highlights, highlights
    return unique(reference), []
