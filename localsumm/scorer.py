"""The summarization scorer: preprocess -> analyze -> score -> reason.

1. preprocess: extract the summary's claims (summary context), generate
   questions from the source and judge each claim against it (source context);
2. analyze (summary context, never the source): judge each question from the
   summary alone;
3. score: the pure rules of ``scoring``;
4. reason: the template of ``reason``.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from . import __version__, prompts
from .errors import ContextOverflowError
from .judge import Judge, JudgeCall
from .messages import SourceExtractor, resolve_source, resolve_summary
from .reason import explain
from .result import (
    AlignmentVerdict,
    AnalyzeStepResult,
    CoverageVerdict,
    PreprocessStepResult,
    Provenance,
    StepStats,
    SummarizationResult,
)
from .schemas import MAX_CLAIMS, claim_list, question_list
from .scoring import check_options, compute_scores, questions_to_ask
from .text import closest_sentence, sentences, shorten

OnCall = Callable[[JudgeCall], None]

# Question sets kept for sources seen in this process (a batch's sources).
_QUESTION_SETS_KEPT = 1024

# Room the source prompts need beside the source: instructions, chat template and the answer.
_PROMPT_OVERHEAD_TOKENS = 64


def claims_bound(summary: str) -> int:
    """How many claims a summary may yield: a few per sentence, in three steps so only three grammars exist."""
    n = len(sentences(summary))
    return 4 if n <= 1 else 8 if n <= 3 else MAX_CLAIMS


def claims_token_budget(summary_tokens: int, bound: int) -> int:
    # Room for every claim, or for a judge that repeats one claim until the list is full; a cap, not a target.
    return min(2048, max(3 * summary_tokens + 96, 48 * bound + 32))


def questions_token_budget(n: int) -> int:
    return 48 * n + 32


@dataclass
class StepLog:
    """Per-step costs of one run, forwarding each call to the trace hook."""

    on_call: OnCall | None
    steps: dict[str, StepStats] = field(default_factory=dict)
    shared: set[str] = field(default_factory=set)
    """Steps whose result was reused from an earlier evaluation instead of asked again."""

    def add(self, call: JudgeCall) -> None:
        old = self.steps.get(call.step) or StepStats(step=call.step)
        self.steps[call.step] = StepStats(
            step=call.step,
            calls=old.calls + 1,
            prompt_tokens=old.prompt_tokens + call.prompt_tokens,
            reused_prompt_tokens=old.reused_prompt_tokens + call.reused_prompt_tokens,
            completion_tokens=old.completion_tokens + call.completion_tokens,
            seconds=old.seconds + call.seconds,
            cached_calls=old.cached_calls + call.cached,
        )
        if self.on_call is not None:
            self.on_call(call)


class SummarizationScorer:
    """Scores a summary against its source. Build one with ``create_summarization_scorer``."""

    id = "summarization"

    def __init__(
        self,
        judge: Judge,
        *,
        source: str | None = None,
        source_extractor: SourceExtractor | None = None,
        max_questions: int = 10,
        scale: float = 1,
    ) -> None:
        check_options(max_questions=max_questions, scale=scale)
        self.judge = judge
        self.source = source
        self.source_extractor = source_extractor
        self.max_questions = max_questions
        self.scale = scale
        self._question_sets: OrderedDict[str, list[str]] = OrderedDict()

    # -- the public entry point -------------------------------------------------

    def run(
        self,
        run: Mapping[str, Any] | None = None,
        *,
        input: Any = None,
        output: Any = None,
        on_call: OnCall | None = None,
    ) -> SummarizationResult:
        """Score one run: ``run(input=..., output=...)`` or ``run({"input": ..., "output": ...})``.

        ``on_call`` receives every model call (the audit trail of ``--trace``).
        """
        if run is not None:
            input, output = run.get("input"), run.get("output")
        summary = resolve_summary(output)
        source = resolve_source(input, output, source=self.source, source_extractor=self.source_extractor)
        log = StepLog(on_call)

        empty = "summary" if not summary.strip() else "source" if not source.strip() else None
        if empty:
            return self._result([], [], [], log, empty=empty)

        self._check_fits(source)
        claims = self.extract_claims(summary, log)
        questions = self.generate_questions(source, log)
        alignment = self.judge_claims(source, claims, log)
        coverage = self.judge_questions(summary, questions_to_ask(questions, self.max_questions), log)
        return self._result(alignment, questions, coverage, log)

    # -- preprocess: claims from the summary, then the steps that see the source ---

    def extract_claims(self, summary: str, log: StepLog) -> list[str]:
        bound = claims_bound(summary)
        value, call = self.judge.generate(
            "claims",
            prompts.claims_messages(summary),
            claim_list(bound),
            claims_token_budget(self.judge.count_tokens(summary), bound),
        )
        log.add(call)
        return _unique(value.claims)

    def generate_questions(self, source: str, log: StepLog) -> list[str]:
        """Questions depend on the source alone, so all summaries of a source share one set.

        The set is kept per scorer, i.e. per judge, prompt version and max_questions.
        """
        key = hashlib.sha256(source.encode("utf-8")).hexdigest()
        if key in self._question_sets:
            self._question_sets.move_to_end(key)
            log.shared.add("questions")
            return list(self._question_sets[key])
        value, call = self.judge.generate(
            "questions",
            prompts.questions_messages(source, self.max_questions),
            question_list(self.max_questions),
            questions_token_budget(self.max_questions),
        )
        log.add(call)
        questions = _unique(value.questions)  # type: ignore[attr-defined]
        self._question_sets[key] = questions
        if len(self._question_sets) > _QUESTION_SETS_KEPT:
            self._question_sets.popitem(last=False)
        return list(questions)

    def judge_claims(self, source: str, claims: list[str], log: StepLog) -> list[AlignmentVerdict]:
        verdicts = self._yes_no(
            "alignment", claims, lambda claim: prompts.claim_verdict_messages(source, claim),
            self.judge.info.thresholds.alignment, evidence=source, where="source", log=log,
        )
        return [AlignmentVerdict(claim=c, supported=ok, reason=r, probability=p) for c, ok, r, p in verdicts]

    # -- analyze: the step that never sees the source ----------------------------

    def judge_questions(self, summary: str, questions: list[str], log: StepLog) -> list[CoverageVerdict]:
        verdicts = self._yes_no(
            "coverage", questions, lambda question: prompts.coverage_messages(summary, question),
            self.judge.info.thresholds.coverage, evidence=summary, where="summary", log=log,
        )
        return [CoverageVerdict(question=q, answered=ok, reason=r, probability=p) for q, ok, r, p in verdicts]

    def _yes_no(
        self,
        step: str,
        items: list[str],
        messages_for: Callable[[str], prompts.Messages],
        threshold: float,
        *,
        evidence: str,
        where: str,
        log: StepLog,
    ) -> list[tuple[str, bool, str, float]]:
        """(item, verdict, reason, probability) per item: the judge's P(yes) against the threshold."""
        candidates = sentences(evidence)
        verdicts = []
        for item in items:
            p, call = self.judge.yes_probability(step, messages_for(item))
            log.add(call)
            verdicts.append((item, p >= threshold, _probability_reason(p, threshold, where, item, candidates), round(p, 4)))
        return verdicts

    # -- score and reason --------------------------------------------------------

    def _result(
        self,
        alignment: list[AlignmentVerdict],
        questions: list[str],
        coverage: list[CoverageVerdict],
        log: StepLog,
        *,
        empty: str | None = None,
    ) -> SummarizationResult:
        scores = compute_scores(
            [v.supported for v in alignment],
            questions,
            [v.answered for v in coverage],
            max_questions=self.max_questions,
            scale=self.scale,
        )
        info = self.judge.info
        return SummarizationResult(
            score=scores.score,
            reason=explain(scores, alignment, coverage, empty=empty, scale=self.scale),
            alignment_score=round(scores.alignment, 4),
            coverage_score=round(scores.coverage, 4),
            scorable=scores.scorable,
            preprocess_step_result=PreprocessStepResult(alignment=alignment, questions=questions),
            analyze_step_result=AnalyzeStepResult(coverage=coverage),
            provenance=Provenance(
                localsumm_version=__version__,
                model=info.name,
                model_path=info.path,
                model_sha256=info.sha256,
                prompt_version=prompts.PROMPT_VERSION,
                seed=info.seed,
                thresholds={"alignment": info.thresholds.alignment, "coverage": info.thresholds.coverage},
                max_questions=self.max_questions,
                scale=self.scale,
                steps=list(log.steps.values()),
                shared_steps=sorted(log.shared),
            ),
        )

    def _check_fits(self, source: str) -> None:
        """Fail before any model call when the source cannot fit, naming both sizes."""
        count = self.judge.count_tokens
        source_tokens = count(source)
        others = (
            count(prompts.SOURCE_SYSTEM + prompts.QUESTIONS_TASK)
            + questions_token_budget(self.max_questions)
            + _PROMPT_OVERHEAD_TOKENS
        )
        room = self.judge.context_size - others
        if source_tokens > room:
            raise ContextOverflowError(
                f"the source is {source_tokens:,} tokens but judge {self.judge.info.name!r} has a context of "
                f"{self.judge.context_size:,} tokens, which leaves room for {max(room, 0):,} tokens of source "
                f"beside the instructions, the summary and the answer. Shorten the source or load the judge "
                f"with a larger n_ctx."
            )


def _unique(texts: list[str]) -> list[str]:
    """Stripped, non-empty, first occurrence only: a small judge sometimes repeats itself."""
    seen: set[str] = set()
    kept = []
    for text in (t.strip() for t in texts):
        key = " ".join(text.lower().split())
        if text and key not in seen:
            seen.add(key)
            kept.append(text)
    return kept


def _probability_reason(p: float, threshold: float, where: str, text: str, candidates: list[str]) -> str:
    """An honest reason: the judge wrote no explanation, so say what the verdict rests on."""
    relation = "≥" if p >= threshold else "<"
    reason = f"judge probability {p:.2f} {relation} threshold {threshold:.2f}"
    evidence = closest_sentence(text, candidates)
    if evidence is not None:
        reason += f"; closest {where} sentence: \"{shorten(evidence[0])}\""
    return reason
