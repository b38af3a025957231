"""Plan (before the reference's steps): how one evaluation is laid out before any judge call.

Pure functions of the texts, the judge's context size and its token counter:
whether the source fits whole or is cut into windows, how many questions each
window asks, whether a window is asked passage by passage, and the token caps
of the generating steps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..errors import ContextOverflowError
from ..protocol import Judge
from ..text import detect_language, sentences
from . import prompts
from .result import SourceWindow
from .schemas import HIGHLIGHTS, MAX_CLAIMS
from .windows import CountTokens, Window, passages, share_questions, split_source

# Room the source prompts need beside the source: instructions, chat template and the answer.
_PROMPT_OVERHEAD_TOKENS = 64
# Below this, a window holds too little of the source for questions or verdicts to mean anything.
_MIN_WINDOW_TOKENS = 128

# Questions are asked passage by passage when a source has room for several passages of about
# PASSAGE_TOKENS, each asking up to QUESTIONS_PER_PASSAGE, within max_questions. Asked for "up to 10"
# about a whole news article, the default judge wrote 3-9 questions, often about one part of it, and
# any one-sentence edit of the source could swap them (benchmarks/RESULTS.md).
PASSAGE_TOKENS = 200
QUESTIONS_PER_PASSAGE = 3


@dataclass(frozen=True)
class Plan:
    windows: list[Window]
    """The source whole (one window) or cut to fit the judge's context."""
    questions_per_window: list[int]
    """How many questions each window asks (max_questions in all)."""
    language: str = "en"
    """The summary's language (ISO 639-1), that of its claims and of the questions it is asked."""
    key_facts: bool = False
    """Whether each window that asks questions also writes key facts: the option, in English evaluations
    only (the facts are asked as "Is it true that ...?", measured on English sets alone)."""
    passages: list[list[str]] = field(default_factory=list)
    """Per window, the passages its questions are written from (the window whole, or 2 or more parts of it);
    none for a window that asks no question."""

    @property
    def layout(self) -> list[SourceWindow] | None:
        """How the source was cut, for the result; None when it was judged whole."""
        if len(self.windows) == 1:
            return None
        return [
            SourceWindow(index=w.index, start=w.start, end=w.end, tokens=w.tokens, questions=n)
            for w, n in zip(self.windows, self.questions_per_window)
        ]


def plan_evaluation(source: str, summary: str, judge: Judge, max_questions: int, key_facts: bool = False) -> Plan:
    """``key_facts``: the option; the facts are written for English evaluations only."""
    language = evaluation_language(summary, source)
    facts = key_facts and language == "en"
    windows = source_windows(source, judge, max_questions, facts)
    counts = [max_questions] if len(windows) == 1 else share_questions(windows, max_questions)
    passages = [
        question_passages(w.text, n, judge.count_tokens, judge.context_size) if n else []
        for w, n in zip(windows, counts)
    ]
    return Plan(windows, counts, language, facts, passages)


def evaluation_language(summary: str, source: str) -> str:
    """The summary's language; the source's where the summary is too short to tell (else English)."""
    return detect_language(summary, default=detect_language(source))


def source_windows(source: str, judge: Judge, max_questions: int, key_facts: bool = False) -> list[Window]:
    """The source whole when it fits the judge's context beside the instructions and the answer, else windows.

    The room kept is that of the longest generation a window feeds: its questions or, with ``key_facts``,
    its highlights (whose cap exceeds that of a few questions)."""
    count = judge.count_tokens
    tasks = [count(prompts.QUESTIONS_TASK) + questions_token_budget(max_questions)]
    if key_facts:
        tasks.append(count(prompts.HIGHLIGHTS_TASK) + highlights_token_budget())
    others = count(prompts.SOURCE_SYSTEM) + max(tasks) + _PROMPT_OVERHEAD_TOKENS
    room = judge.context_size - others
    if room < _MIN_WINDOW_TOKENS:
        raise ContextOverflowError(
            f"judge {judge.info.name!r} has a context of {judge.context_size:,} tokens and the "
            f"instructions and the answer take {others:,}, which leaves {max(room, 0):,} for the source "
            f"(at least {_MIN_WINDOW_TOKENS} needed). Load the judge with a larger n_ctx or lower max_questions"
            + (" (or turn key_facts off)." if key_facts else ".")
        )
    return split_source(source, room, count)


def question_passages(source: str, n: int, count_tokens: CountTokens, context_size: int) -> list[str]:
    """The passages whose questions make up a source's set: 2 to n // 3 parts of it, or the whole source.

    A source too short for two passages, or longer than a third of the judge's context (each
    passage is read again under the whole document), is asked whole.
    """
    tokens = count_tokens(source)
    wanted = min(math.ceil(tokens / PASSAGE_TOKENS), n // QUESTIONS_PER_PASSAGE)
    if wanted >= 2 and tokens <= context_size // 3:
        return passages(source, wanted, count_tokens)
    return [source]


def claims_bound(summary: str) -> int:
    """How many claims a summary may yield: a few per sentence, in three steps so only three grammars exist."""
    n = len(sentences(summary))
    return 4 if n <= 1 else 8 if n <= 3 else MAX_CLAIMS


def claims_token_budget(summary_tokens: int, bound: int) -> int:
    # Room for every claim, or for a judge that repeats one claim until the list is full; a cap, not a target.
    return min(2048, max(3 * summary_tokens + 96, 48 * bound + 32))


def questions_token_budget(n: int) -> int:
    return 48 * n + 32


def highlights_token_budget(n: int = HIGHLIGHTS) -> int:
    # A cap, not a target: a highlight of up to 300 characters, dense with names, takes up to about 100 tokens.
    return 160 * n


def key_facts_token_budget(n: int) -> int:
    return 40 * n
