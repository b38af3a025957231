"""Coverage (the reference's analyze step): each question of the set judged from the summary alone.

The *summary context*: its prompts hold the summary and one question, never
the source, so the judge cannot answer from what it read there.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..protocol import Judge, yes_probabilities
from ..text import sentences
from . import prompts
from .evidence import verdict_reason
from .questionset.model import QuestionSet
from .result import CoverageVerdict
from .steplog import StepLog


def questions_to_ask(questions: Sequence[str], max_questions: int | None, key_facts: Sequence[str] = ()) -> list[str]:
    """What coverage asks: the first min(len(questions), max_questions) questions (all of them with None: a
    question file's), then each key fact, as a question."""
    return list(questions[:max_questions]) + [prompts.fact_question(f) for f in key_facts]


def asked_of_summary(question_set: QuestionSet, max_questions: int | None) -> tuple[list[str], list[str]]:
    """The questions and the statements coverage asks of a summary: the set's key facts are asked after its
    questions, as its ``facts_as`` says (a reference's facts as statements, the judge's as questions)."""
    if question_set.facts_as == "statements":
        statements = [prompts.fact_statement(f) for f in question_set.key_facts]
        return questions_to_ask(question_set.questions, max_questions), statements
    return questions_to_ask(question_set.questions, max_questions, question_set.key_facts), []


def coverage_verdicts(
    judge: Judge, summary: str, questions: list[str], log: StepLog, statements: Sequence[str] = ()
) -> list[CoverageVerdict]:
    """One coverage verdict per question (does the summary answer it "yes"?), then one per statement (does the
    summary state it, in any words?)."""
    threshold = judge.info.thresholds.coverage
    candidates = sentences(summary)
    verdicts = []
    # The prompts share the summary: the judge may read it once and ask the questions side by side.
    answers = yes_probabilities(judge, "coverage", [prompts.coverage_messages(summary, q) for q in questions])
    if statements:
        answers += yes_probabilities(judge, "statements", [prompts.statement_messages(summary, s) for s in statements])
    for question, (p, call) in zip([*questions, *statements], answers):
        log.add(call)
        reason = verdict_reason(p, threshold, "summary", question, candidates)
        verdicts.append(
            CoverageVerdict(question=question, answered=p >= threshold, reason=reason, probability=round(p, 4))
        )
    return verdicts
