"""A question set written by the judge: questions, key facts, and the check that the source answers each.

Every call here runs in the *source context* (prompts that open with the source,
so a judge that keeps its KV cache reads it once), except the split of the
highlights into single facts, which holds only the highlights. A source cut into
windows is asked window by window: each window writes its share of the questions
and its own key facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..._version import __version__
from ...config.options import Options
from ...errors import ContextOverflowError, JudgeError
from ...protocol import Judge, yes_probabilities
from ...text import repeats, unique
from .. import prompts
from ..plan import QUESTIONS_PER_PASSAGE, Plan, highlights_token_budget, key_facts_token_budget, questions_token_budget
from ..result import DroppedQuestion
from ..schemas import HIGHLIGHTS, MAX_KEY_FACTS, highlight_list, key_fact_list, question_list
from ..steplog import StepLog
from ..windows import Window
from .model import QuestionSet, source_sha256

Checked = tuple[list[str], list[DroppedQuestion]]
"""What a check keeps, in order, and what it drops with the verdict that dropped it."""


@dataclass
class Generated:
    """A judge-written set as it is built, window by window."""

    questions: list[str] = field(default_factory=list)
    dropped: list[DroppedQuestion] = field(default_factory=list)
    highlights: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    """Why a window gave no key facts (its highlights failed): coverage asked its questions alone there."""
    steps: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Written:
    """A judge-written set, and the steps that wrote it: a later summary of its source reuses them."""

    question_set: QuestionSet
    steps: frozenset[str]


def generate_question_set(judge: Judge, source: str, plan: Plan, options: Options, log: StepLog) -> Written:
    """The questions and key facts the judge writes of ``source``, as ``plan`` lays them out, each checked
    against the source with ``options.question_check``."""
    built = Generated()
    for window, count, parts in zip(plan.windows, plan.questions_per_window, plan.passages):
        if not count:
            continue
        window_questions(judge, window, count, parts, plan.language, options.question_check, log, built)
        if plan.key_facts:
            window_key_facts(judge, window, count, len(plan.windows), options.question_check, log, built)
    questions, facts, again = without_repeats(unique(built.questions), unique(built.facts), options.max_questions)
    if not questions and not facts:
        raise JudgeError(
            "questions: the judge wrote no question and no key fact of this source; coverage has nothing to ask"
        )
    info = judge.info
    recorded = options.recorded()
    question_set = QuestionSet(
        source_sha256=source_sha256(source),
        language=plan.language,
        questions=questions,
        key_facts=facts,
        highlights=built.highlights,
        dropped=built.dropped + again,
        provenance={
            "origin": "judge",
            "judge": info.name,
            "model_sha256": info.sha256,
            "engine": info.engine,
            "prompt_version": prompts.PROMPT_VERSION,
            "localsumm_version": __version__,
            "seed": info.seed,
            "thresholds": {"alignment": info.thresholds.alignment, "coverage": info.thresholds.coverage},
            **{k: recorded[k] for k in ("max_questions", "question_check", "key_facts")},
            "key_facts_failed": built.failed,
            "source_windows": len(plan.windows),
        },
    )
    return Written(question_set, frozenset(built.steps))


def without_repeats(
    questions: list[str], facts: list[str], most: int
) -> tuple[list[str], list[str], list[DroppedQuestion]]:
    """The first ``most`` questions that do not ask an earlier one's fact again, the key facts that ask neither a
    kept question's nor an earlier fact's, and those left out, each with the item it repeats. The judge words one
    fact twice, and its highlights often state a question's fact: asked twice, a fact would count twice."""
    again: list[DroppedQuestion] = []

    def kept(items: list[str], first: int) -> list[str]:
        """``items[first:]`` without repeats of ``items``, noting each repeat in ``again``."""
        earlier = repeats(items)
        for item, e in zip(items[first:], earlier[first:]):
            if e is not None:
                again.append(DroppedQuestion(question=item, reason=f'asks again what "{items[e]}" asks'))
        return [item for item, e in zip(items[first:], earlier[first:]) if e is None]

    asked = kept(questions, 0)[:most]
    return asked, kept(asked + facts, len(asked)), again


def window_questions(
    judge: Judge,
    window: Window,
    n: int,
    parts: list[str],
    language: str,
    check: bool,
    log: StepLog,
    built: Generated,
) -> None:
    """Up to ``n`` yes/no questions of one window, written in ``language`` (passage by passage when the plan
    cut it into several ``parts``) and, with ``check``, without those the window does not answer "yes"."""
    if len(parts) == 1:
        asks = [(prompts.questions_messages(window.text, n, language), n)]
    else:
        per = QUESTIONS_PER_PASSAGE
        asks = [(prompts.passage_questions_messages(window.text, p, per, language), per) for p in parts]
    found: list[str] = []
    for messages, k in asks:
        value, call = judge.generate("questions", messages, question_list(k, language), questions_token_budget(k))
        log.add(call)
        found += value.questions  # type: ignore[attr-defined]
    built.steps.add("questions")
    questions = unique(closed_questions(found))
    if check:
        questions, dropped = keep_answerable_questions(judge, window.text, questions, log)
        built.dropped += dropped
        built.steps.add("answerable")
    built.questions += questions


def closed_questions(written: list[str]) -> list[str]:
    """The judge's questions as a question set holds them: stripped, an empty one left out, and a final "?" added to
    one that lacks it. The grammar writes neither; a judge without it (a hosted endpoint, a plugin, a script: the
    reference's own mocked judge writes "Question A") may, and its words are then asked, never a crash."""
    closed = []
    for question in (q.strip() for q in written):
        if question:
            closed.append(question if question.endswith(("?", "？")) else question + "?")
    return closed


def window_key_facts(
    judge: Judge, window: Window, n: int, windows: int, check: bool, log: StepLog, built: Generated
) -> None:
    """Up to ``n`` key facts of one window: the highlights the judge writes of it, split into single facts
    and, with ``check``, without those the window does not answer "yes" when asked as coverage asks them.

    A judge that runs a highlight on to its cap (SmolLM2 on a repetitive source) costs the evaluation that
    window's facts, not its score: the failure is kept, and coverage asks the window's questions alone."""
    try:
        highlights, facts = highlights_and_facts(judge, window.text, n, log)
    except ContextOverflowError:
        raise
    except JudgeError as e:
        built.failed.append(f"window {window.index + 1} of {windows}: {e}" if windows > 1 else str(e))
        built.steps.add("highlights")
        return
    if not highlights:  # a judge that ignores the schema's bounds (a hosted one may): nothing to split
        return
    built.steps.update({"highlights", "key_facts"})
    built.highlights += highlights
    if check and facts:
        facts, dropped = keep_answerable_facts(judge, window.text, facts, log)
        built.dropped += dropped
        built.steps.add("answerable")
    built.facts += facts


def highlights_and_facts(judge: Judge, source: str, n: int, log: StepLog) -> tuple[list[str], list[str]]:
    """The highlights the judge writes of ``source`` (source context), and up to ``n`` single facts split from
    them (summary context, the highlights in the summary's place)."""
    value, call = judge.generate(
        "highlights",
        prompts.highlights_messages(source, HIGHLIGHTS),
        highlight_list(HIGHLIGHTS),
        highlights_token_budget(),
    )
    log.add(call)
    highlights = unique(value.summary)  # type: ignore[attr-defined]
    if not highlights:
        return [], []
    bound = min(n, MAX_KEY_FACTS)
    try:
        split, call = judge.generate(
            "key_facts",
            prompts.key_facts_messages(" ".join(highlights)),
            key_fact_list(bound),
            key_facts_token_budget(bound),
        )
    except ContextOverflowError:
        raise
    except JudgeError:  # the split ran past its cap (never seen on the dev sets): the highlights are the facts
        return highlights, highlights[:bound]
    log.add(call)
    return highlights, unique(split.facts)  # type: ignore[attr-defined]


def keep_answerable_questions(judge: Judge, source: str, questions: list[str], log: StepLog) -> Checked:
    """The questions ``source`` answers "yes", in order, and the others with the verdict that dropped them.

    A small judge writes questions its source does not answer (the bundled example asked whether David
    Chen became chair: Maria Chen did); coverage would count them against every summary. If the check would
    drop every question, the most probable one is kept: a source always has something to ask.
    """
    kept, dropped = answered_by_source(judge, source, questions, log)
    if not kept and dropped:
        best = max(range(len(dropped)), key=lambda i: dropped[i].probability or 0.0)
        kept.append(dropped.pop(best).question)
    return kept, dropped


def keep_answerable_facts(judge: Judge, source: str, facts: list[str], log: StepLog) -> Checked:
    """The key facts ``source`` answers "yes" when asked as coverage asks them, and the others dropped: a
    judge's highlights can misread the source, and its split can make facts of nothing ("The game was played
    in a world."). Unlike the questions, all may go: the questions remain."""
    asked = {prompts.fact_question(f): f for f in facts}
    kept, dropped = answered_by_source(judge, source, list(asked), log)
    return [asked[q] for q in kept], dropped


def answered_by_source(judge: Judge, source: str, questions: list[str], log: StepLog) -> Checked:
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
