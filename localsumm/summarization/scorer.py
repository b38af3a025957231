"""The summarization scorer: source -> plan -> question set -> claims and verdicts -> coverage -> rules -> reason.

:meth:`SummarizationScorer.run` calls one module of this folder per stage:

1. ``inputs``: the summary and the source from an agent run (or plain strings);
2. ``plan``: the source whole or in windows, questions per window, the summary's language;
3. ``questionset``: the questions and key facts every summary of the source is asked (given, from a
   question file, or written once by the judge);
4. ``claims``: the summary's claims, each judged against the source;
5. ``coverage``: each question of the set judged from the summary alone (never the source);
6. ``rules``: the score, pure arithmetic (SPEC §3);
7. ``reason``: the explanation, from a template;
8. ``result``: the typed result, with its provenance.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._version import __version__
from ..backends import open_judge
from ..backends.cache import CachedJudge, JudgeCallCache
from ..config.options import Options, make_options
from ..errors import ConfigError
from ..models.registry import looks_like_path
from ..protocol import Judge, Thresholds
from . import prompts
from .claims import judge_claims, summary_claims
from .coverage import asked_of_summary, coverage_verdicts
from .grounding import left_out, point_questions, source_sentences
from .inputs import SourceExtractor, resolve_source, resolve_summary
from .plan import Plan, plan_evaluation, source_windows
from .questionset import ProvidedSet, QuestionFile, QuestionSet, QuestionSetProvider, load_question_file
from .questionset.stage import GENERATED
from .reason import explain
from .result import (
    AlignmentVerdict,
    AnalyzeStepResult,
    CoverageVerdict,
    PreprocessStepResult,
    Provenance,
    SummarizationResult,
)
from .rules import Scores, compute_scores, coverage_votes, votes
from .steplog import OnCall, StepLog


class SummarizationScorer:
    """Scores a summary against its source. Build one with :func:`create_summarization_scorer`."""

    id = "summarization"

    def __init__(
        self,
        judge: Judge,
        *,
        options: Options | None = None,
        source: str | None = None,
        source_extractor: SourceExtractor | None = None,
        question_file: QuestionFile | None = None,
        **settings: Any,
    ) -> None:
        self.judge = judge
        self._options = make_options(options, **settings)
        self.question_sets = QuestionSetProvider(
            judge, self._options, question_file or load_question_file(self._options.questions)
        )
        """Which question set each source is asked: the question file of ``options.questions``, read and
        checked once, or the judge's, written once per source."""
        self.source = source
        self.source_extractor = source_extractor
        self.model: str | os.PathLike[str] | None | Judge = judge
        """What the judge was opened from (set by ``create_summarization_scorer``), so ``spec`` can rebuild it."""

    @property
    def options(self) -> Options:
        """Fixed when the scorer is built: its question sets are written under them."""
        return self._options

    def run(
        self,
        run: Mapping[str, Any] | None = None,
        *,
        input: Any = None,
        output: Any = None,
        questions: list[str] | QuestionSet | None = None,
        on_call: OnCall | None = None,
    ) -> SummarizationResult:
        """Score one run: ``run(input=..., output=...)`` or ``run({"input": ..., "output": ...})``.

        ``questions`` (a list of yes/no questions, or a :class:`QuestionSet`; in a dict run, its
        ``questions`` key) are asked exactly, in place of the question file's or generated ones.
        ``on_call`` receives every model call (the audit trail of ``--trace``).
        """
        if run is not None:
            input, output = run.get("input"), run.get("output")
            questions = run.get("questions", questions)
        summary = resolve_summary(output)
        source = resolve_source(input, output, source=self.source, source_extractor=self.source_extractor)
        log = StepLog(on_call)
        empty = "summary" if not summary.strip() else "source" if not source.strip() else None
        thresholds = self.judge.info.thresholds
        if empty:
            scores = summary_scores([], None, [], self.options, thresholds)
            return self._result(scores, [], None, AnalyzeStepResult(coverage=[]), log, None, empty)
        found = self.question_sets.lookup(source, questions)  # refused here, before any judge call
        plan = plan_evaluation(source, summary, self.judge, self.options.max_questions, self.options.key_facts)
        if found is not None:
            found.check_language(plan.language)
        # Claims first: extracting them is the one summary-context step before the source's, so the question
        # set's steps and the claim verdicts that follow share the source's prefix in the judge's KV cache.
        claims = summary_claims(self.judge, summary, self.options.claims, log, plan.language)
        asked = found or self.question_sets.generated(source, plan, log)
        options = self.options
        alignment = judge_claims(
            self.judge, plan.windows, claims, source, options.literal_check, log, options.verification
        )
        questions, statements = asked_of_summary(asked.question_set, asked.question_cap(options.max_questions))
        coverage = coverage_verdicts(self.judge, summary, questions, log, statements)
        sentences = source_sentences(source)
        coverage = point_questions(sentences, coverage)
        analyze = AnalyzeStepResult(coverage=coverage, left_out=left_out(sentences, alignment, coverage))
        scores = summary_scores(alignment, asked, coverage, self.options, thresholds)
        return self._result(scores, alignment, asked, analyze, log, plan, None)

    def question_set(self, source: str, summary: str = "", *, on_call: OnCall | None = None) -> QuestionSet:
        """The questions and key facts the judge writes for every summary of ``source``, as a question file keeps
        them: the same steps, in the same order, as a run that writes them. ``summary`` (one of the source's)
        only sets the language; without it, the source's."""
        plan = plan_evaluation(source, summary, self.judge, self.options.max_questions, self.options.key_facts)
        return self.question_sets.written(source, plan, StepLog(on_call)).question_set

    def verdicts_on(
        self, source: str, summary: str, claims: list[str], questions: list[str], on_call: OnCall | None = None
    ) -> tuple[list[AlignmentVerdict], list[CoverageVerdict]]:
        """This judge's verdicts on claims and questions another judge wrote: agreement on equal terms."""
        log = StepLog(on_call)
        windows = source_windows(source, self.judge, self.options.max_questions)
        options = self.options
        alignment = judge_claims(self.judge, windows, claims, source, options.literal_check, log, options.verification)
        coverage = point_questions(source_sentences(source), coverage_verdicts(self.judge, summary, questions, log))
        return alignment, coverage

    def spec(self) -> ScorerSpec:
        """How to build this scorer in another process (a Ray worker): from the model's name or path."""
        if isinstance(self.model, Judge):
            raise ConfigError(
                f"a scorer built on a judge object ({self.judge.info.name}) cannot be rebuilt on another worker; "
                f"create it from a registry name, a .gguf path or openai:NAME"
            )
        model, options = self.model, self.options
        if model is not None and looks_like_path(os.fspath(model)):
            model = os.path.abspath(os.fspath(model))  # a worker's working directory is not ours
        if options.questions is not None:
            options = options.replace(questions=os.path.abspath(os.fspath(options.questions)))
        return ScorerSpec(model, options, self.source, self.source_extractor)

    def _result(
        self,
        scores: Scores,
        alignment: list[AlignmentVerdict],
        asked: ProvidedSet | None,
        analyze: AnalyzeStepResult,
        log: StepLog,
        plan: Plan | None,
        empty: str | None,
    ) -> SummarizationResult:
        info, options = self.judge.info, self.options
        layout = plan.layout if plan else None
        coverage = analyze.coverage
        qs = asked.question_set if asked else None
        reason = explain(
            scores,
            alignment,
            coverage,
            empty=empty,
            scale=options.scale,
            windows=layout,
            scoring=options.scoring,
            key_facts=len(qs.key_facts) if qs else 0,
        )
        return SummarizationResult(
            score=scores.score,
            reason=reason,
            alignment_score=round(scores.alignment, 4),
            coverage_score=round(scores.coverage, 4),
            scorable=scores.scorable,
            preprocess_step_result=PreprocessStepResult(
                alignment=alignment,
                questions=qs.questions if qs else [],
                dropped_questions=qs.dropped if qs else [],
                highlights=qs.highlights if qs else [],
                key_facts=qs.key_facts if qs else [],
                key_facts_failed=asked.key_facts_failed if asked else [],
            ),
            analyze_step_result=analyze,
            provenance=Provenance(
                localsumm_version=__version__,
                model=info.name,
                model_path=info.path,
                model_sha256=info.sha256,
                engine=info.engine,
                prompt_version=prompts.PROMPT_VERSION,
                language=plan.language if plan else None,
                seed=info.seed,
                thresholds={"alignment": info.thresholds.alignment, "coverage": info.thresholds.coverage},
                **options.recorded(),
                steps=list(log.steps.values()),
                shared_steps=sorted(log.shared),
                source_windows=layout,
                questions=asked.origin if asked else GENERATED,
            ),
        )


def summary_scores(
    alignment: list[AlignmentVerdict],
    asked: ProvidedSet | None,
    coverage: list[CoverageVerdict],
    options: Options,
    thresholds: Thresholds,
) -> Scores:
    """The rules applied to the verdicts: each verdict's vote under ``options.scoring``, then SPEC §3."""
    qs = asked.question_set if asked else None
    # A claim the literal check refused counts 0 under either rule, whatever the judge said.
    support = [0.0 if v.unmatched else v.probability for v in alignment]
    cap = asked.question_cap(options.max_questions) if asked else options.max_questions
    questions = qs.questions if qs else []
    answered = [v.answered for v in coverage]
    return compute_scores(
        votes([v.supported for v in alignment], support, options.scoring, thresholds.alignment),
        questions,
        coverage_votes(
            answered, [v.probability for v in coverage], options.scoring, thresholds.coverage, len(questions[:cap])
        ),
        max_questions=cap,
        scale=options.scale,
        key_facts=qs.key_facts if qs else [],
    )


@dataclass(frozen=True)
class ScorerSpec:
    """A scorer not yet built: what a worker needs to build its own (``build``), judge included."""

    model: str | os.PathLike[str] | None = None
    options: Options = Options()
    source: str | None = None
    source_extractor: SourceExtractor | None = None
    id: str = SummarizationScorer.id

    def build(self) -> SummarizationScorer:
        return create_summarization_scorer(
            self.model, options=self.options, source=self.source, source_extractor=self.source_extractor
        )

    def spec(self) -> ScorerSpec:
        return self


def create_summarization_scorer(
    model: str | os.PathLike[str] | Judge | None = None,
    *,
    options: Options | None = None,
    source: str | None = None,
    source_extractor: SourceExtractor | None = None,
    question_file: QuestionFile | None = None,
    **settings: Any,
) -> SummarizationScorer:
    """A scorer whose ``run(input=..., output=...)`` returns a :class:`SummarizationResult`.

    ``model`` is a registry name (``localsumm models list``), a path to a GGUF
    file, ``openai:<name>`` (a model behind an OpenAI-compatible endpoint at
    ``base_url``; its answers are never cached), a judge object implementing
    :class:`~localsumm.protocol.Judge`, or None for the default judge.

    ``options`` (:class:`~localsumm.config.Options`) holds every setting; keyword
    ``settings`` (``max_questions=5``, ``claims="extracted"``, ``cache=True``, ...)
    are its fields, applied on top. They are checked before the model is loaded.

    ``source`` fixes the source text for every run; ``source_extractor(input, output)``
    finds it in an agent run (see ``extract_tool_results``). ``question_file``: the file of
    ``options.questions``, if the caller has read it already.
    """
    options = make_options(options, **settings)
    # A bad question file is refused before the model loads.
    question_file = question_file or load_question_file(options.questions)
    judge = model if isinstance(model, Judge) else open_judge(model, options)
    if options.cache and judge.info.sha256:
        path = None if options.cache is True else Path(options.cache)
        judge = CachedJudge(judge, JudgeCallCache(path), prompts.STEP_VERSIONS)
    scorer = SummarizationScorer(
        judge, options=options, source=source, source_extractor=source_extractor, question_file=question_file
    )
    scorer.model = model
    return scorer
