"""The summarization scorer: preprocess -> analyze -> score -> reason.

1. preprocess: the summary's claims (its sentences, or claims the judge extracts
   in the summary context), questions generated from the source, and each claim
   judged against the source (source context; a source too long for the judge's
   context is judged in windows, see ``windows``);
2. analyze (summary context, never the source): judge each question from the
   summary alone;
3. score: the pure rules of ``scoring``;
4. reason: the template of ``reason``.
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from . import __version__, prompts
from .errors import ConfigError, ContextOverflowError
from .judge import Judge, JudgeCall
from .literals import unmatched_literals
from .messages import SourceExtractor, resolve_source, resolve_summary
from .reason import explain
from .result import (
    AlignmentVerdict,
    AnalyzeStepResult,
    CoverageVerdict,
    PreprocessStepResult,
    Provenance,
    SourceWindow,
    StepStats,
    SummarizationResult,
)
from .schemas import MAX_CLAIMS, claim_list, question_list
from .scoring import check_options, compute_scores, questions_to_ask
from .text import closest_sentence, sentences, shorten
from .windows import CountTokens, Window, passages, share_questions, split_source

OnCall = Callable[[JudgeCall], None]

# Question sets kept for sources seen in this process (a batch's sources).
_QUESTION_SETS_KEPT = 1024

# What alignment judges. "sentences": each sentence of the summary, as written. "extracted": the atomic
# claims the judge lists from the summary (SPEC §2). With the 1.5B default judge, sentences agree better
# with human consistency labels (SummEval per-document Spearman 0.627 against 0.436, SummEdits ROC-AUC
# 0.696 against 0.694; benchmarks/RESULTS.md): a small judge's extraction can paraphrase away the very
# word an error is in, or add what the summary does not say. They also skip a generation step.
CLAIM_UNITS = ("sentences", "extracted")


def check_claims(claims: str) -> None:
    if claims not in CLAIM_UNITS:
        raise ConfigError(f"claims must be one of {', '.join(CLAIM_UNITS)}; got {claims!r}")


# Room the source prompts need beside the source: instructions, chat template and the answer.
_PROMPT_OVERHEAD_TOKENS = 64
# Below this, a window holds too little of the source for questions or verdicts to mean anything.
_MIN_WINDOW_TOKENS = 128


def claims_bound(summary: str) -> int:
    """How many claims a summary may yield: a few per sentence, in three steps so only three grammars exist."""
    n = len(sentences(summary))
    return 4 if n <= 1 else 8 if n <= 3 else MAX_CLAIMS


def claims_token_budget(summary_tokens: int, bound: int) -> int:
    # Room for every claim, or for a judge that repeats one claim until the list is full; a cap, not a target.
    return min(2048, max(3 * summary_tokens + 96, 48 * bound + 32))


# Questions are asked passage by passage when a source has room for several passages of about
# PASSAGE_TOKENS, each asking up to QUESTIONS_PER_PASSAGE, within max_questions. Asked for "up to 10"
# about a whole news article, the default judge wrote 3-9 questions, often about one part of it, and
# any one-sentence edit of the source could swap them (benchmarks/RESULTS.md).
PASSAGE_TOKENS = 200
QUESTIONS_PER_PASSAGE = 3


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
        claims: str = "sentences",
        check_literals: bool = True,
    ) -> None:
        check_options(max_questions=max_questions, scale=scale)
        check_claims(claims)
        self.claims = claims
        self.check_literals = check_literals
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

        windows = self._windows(source)
        claims = _unique(sentences(summary)) if self.claims == "sentences" else self.extract_claims(summary, log)
        counts = [self.max_questions] if len(windows) == 1 else share_questions(windows, self.max_questions)
        alignment, questions = self._judge_source(source, windows, claims, log, counts)
        coverage = self.judge_questions(summary, questions_to_ask(questions, self.max_questions), log)
        layout = None if len(windows) == 1 else [
            SourceWindow(index=w.index, start=w.start, end=w.end, tokens=w.tokens, questions=n) for w, n in zip(windows, counts)
        ]
        return self._result(alignment, questions, coverage, log, windows=layout)

    def verdicts_on(
        self, source: str, summary: str, claims: list[str], questions: list[str], on_call: OnCall | None = None
    ) -> tuple[list[AlignmentVerdict], list[CoverageVerdict]]:
        """This judge's verdicts on claims and questions another judge wrote: agreement on equal terms."""
        log = StepLog(on_call)
        alignment, _ = self._judge_source(source, self._windows(source), claims, log, None)
        return alignment, self.judge_questions(summary, questions, log)

    def _judge_source(
        self, source: str, windows: list[Window], claims: list[str], log: StepLog, counts: list[int] | None
    ) -> tuple[list[AlignmentVerdict], list[str]]:
        """Claim verdicts and (when ``counts`` gives how many per window) questions, window by window, so each
        window's questions and verdicts share its prefix in the KV cache. A claim supported by one window is
        not asked of the next."""
        questions: list[str] = []
        probabilities: dict[str, list[float]] = {claim: [] for claim in claims}
        for i, window in enumerate(windows):
            if counts and counts[i]:
                questions += self.generate_questions(window.text, counts[i], log)
            for claim in claims:
                if not any(p >= self.judge.info.thresholds.alignment for p in probabilities[claim]):
                    probabilities[claim].append(self.judge_claim(window.text, claim, log))
        return self._alignment_verdicts(probabilities, windows, source), _unique(questions)

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

    def generate_questions(self, source: str, n: int, log: StepLog) -> list[str]:
        """Questions depend on the source alone, so all summaries of a source share one set.

        The set is kept per scorer, i.e. per judge, prompt version and max_questions.
        """
        key = hashlib.sha256(f"{n}\x00{source}".encode("utf-8")).hexdigest()
        if key in self._question_sets:
            self._question_sets.move_to_end(key)
            log.shared.add("questions")
            return list(self._question_sets[key])
        parts = question_passages(source, n, self.judge.count_tokens, self.judge.context_size)
        if len(parts) == 1:
            asks = [(prompts.questions_messages(source, n), n)]
        else:
            per = QUESTIONS_PER_PASSAGE
            asks = [(prompts.passage_questions_messages(source, passage, per), per) for passage in parts]
        found: list[str] = []
        for messages, k in asks:
            value, call = self.judge.generate("questions", messages, question_list(k), questions_token_budget(k))
            log.add(call)
            found += value.questions  # type: ignore[attr-defined]
        questions = _unique(found)
        self._question_sets[key] = questions
        if len(self._question_sets) > _QUESTION_SETS_KEPT:
            self._question_sets.popitem(last=False)
        return list(questions)

    def judge_claim(self, source: str, claim: str, log: StepLog) -> float:
        p, call = self.judge.yes_probability("alignment", prompts.claim_verdict_messages(source, claim))
        log.add(call)
        return p

    def _alignment_verdicts(
        self, probabilities: dict[str, list[float]], windows: list[Window], source: str
    ) -> list[AlignmentVerdict]:
        """A claim is supported if a window supports it and it names no number or name the whole source
        lacks; the verdict names that window (or the closest)."""
        threshold = self.judge.info.thresholds.alignment
        verdicts = []
        for claim, ps in probabilities.items():
            best = max(range(len(ps)), key=ps.__getitem__)
            p, window = ps[best], windows[best]
            scope = "" if len(windows) == 1 else f" in source window {best + 1} of {len(windows)}"
            unmatched = unmatched_literals(claim, source) if self.check_literals else []
            reason = _probability_reason(p, threshold, "source", claim, sentences(window.text), scope, unmatched)
            verdicts.append(
                AlignmentVerdict(
                    claim=claim,
                    supported=p >= threshold and not unmatched,
                    reason=reason,
                    probability=round(p, 4),
                    window=None if len(windows) == 1 else best,
                    unmatched=unmatched,
                )
            )
        return verdicts

    # -- analyze: the step that never sees the source ----------------------------

    def judge_questions(self, summary: str, questions: list[str], log: StepLog) -> list[CoverageVerdict]:
        threshold = self.judge.info.thresholds.coverage
        candidates = sentences(summary)
        verdicts = []
        for question in questions:
            p, call = self.judge.yes_probability("coverage", prompts.coverage_messages(summary, question))
            log.add(call)
            reason = _probability_reason(p, threshold, "summary", question, candidates)
            verdicts.append(CoverageVerdict(question=question, answered=p >= threshold, reason=reason, probability=round(p, 4)))
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
        windows: list[SourceWindow] | None = None,
    ) -> SummarizationResult:
        scores = compute_scores(
            [v.supported for v in alignment],
            questions,
            [v.answered for v in coverage],
            max_questions=self.max_questions,
            scale=self.scale,
        )
        info = self.judge.info
        reason = explain(scores, alignment, coverage, empty=empty, scale=self.scale)
        if windows:
            reason += (
                f" The source was too long for the judge's context and was judged in {len(windows)} overlapping "
                f"windows of up to {max(w.tokens for w in windows):,} tokens."
            )
        return SummarizationResult(
            score=scores.score,
            reason=reason,
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
                claims=self.claims,
                literal_check=self.check_literals,
                steps=list(log.steps.values()),
                shared_steps=sorted(log.shared),
                source_windows=windows,
            ),
        )

    def _windows(self, source: str) -> list[Window]:
        """The source whole when it fits the judge's context beside the instructions and the answer, else windows."""
        count = self.judge.count_tokens
        others = (
            count(prompts.SOURCE_SYSTEM + prompts.QUESTIONS_TASK)
            + questions_token_budget(self.max_questions)
            + _PROMPT_OVERHEAD_TOKENS
        )
        room = self.judge.context_size - others
        if room < _MIN_WINDOW_TOKENS:
            raise ContextOverflowError(
                f"judge {self.judge.info.name!r} has a context of {self.judge.context_size:,} tokens and the "
                f"instructions and the answer take {others:,}, which leaves {max(room, 0):,} for the source "
                f"(at least {_MIN_WINDOW_TOKENS} needed). Load the judge with a larger n_ctx or lower max_questions."
            )
        return split_source(source, room, count)


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


def _probability_reason(
    p: float, threshold: float, where: str, text: str, candidates: list[str], scope: str = "", unmatched: Sequence[str] = ()
) -> str:
    """An honest reason: the judge wrote no explanation, so say what the verdict rests on."""
    relation = "≥" if p >= threshold else "<"
    reason = f"judge probability {p:.2f} {relation} threshold {threshold:.2f}{scope}"
    if unmatched:
        named = ", ".join(f'"{literal}"' for literal in unmatched)
        reason += f"; not in the source: {named} (names and numbers must match the source exactly)"
    evidence = closest_sentence(text, candidates)
    if evidence is not None:
        reason += f"; closest {where} sentence: \"{shorten(evidence[0])}\""
    return reason
