"""The summarization scorer: inputs -> plan -> preprocess -> analyze -> score -> reason -> result.

Each step is a module of this folder, and :meth:`SummarizationScorer.run`
calls them in that order:

1. ``inputs``: the summary and the source from an agent run (or plain strings);
2. ``plan``: the source whole or in windows, questions per window;
3. ``preprocess``: claims, questions from the source, each claim judged against the source;
4. ``analyze``: each question judged from the summary alone (never the source);
5. ``rules``: the score, pure arithmetic (SPEC §3);
6. ``reason``: the explanation, from a template;
7. the result, with its provenance (``result``).
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
from ..errors import ConfigError, InputError
from ..models.registry import looks_like_path
from ..protocol import Judge
from . import prompts
from .analyze import analyze, questions_to_ask
from .inputs import SourceExtractor, resolve_source, resolve_summary
from .plan import Plan, plan_evaluation, source_windows
from .preprocess import Preprocessed, QuestionSets, alignment_verdicts, judge_source, preprocess, source_question_set
from .question_file import Found, QuestionFile, QuestionSet, check_language, given_set, source_sha256
from .reason import explain
from .result import (
    AlignmentVerdict,
    AnalyzeStepResult,
    CoverageVerdict,
    PreprocessStepResult,
    Provenance,
    QuestionsOrigin,
    SummarizationResult,
)
from .rules import Scores, compute_scores, votes
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
        self.options = make_options(options, **settings)
        self.question_file = question_file or load_question_file(self.options)
        """The question file of ``options.questions``, read and checked once."""
        self.source = source
        self.source_extractor = source_extractor
        self.question_sets = QuestionSets()
        self.model: str | os.PathLike[str] | None | Judge = judge
        """What the judge was opened from (set by ``create_summarization_scorer``), so ``spec`` can rebuild it."""

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
        options = self.options

        empty = "summary" if not summary.strip() else "source" if not source.strip() else None
        plan: Plan | None = None
        pre, coverage = Preprocessed([], []), []
        found = self._questions_for(source, questions) if not empty else None
        # The cap is on generated questions; a question set's are asked as they are.
        cap = options.max_questions if found is None else None
        if not empty:
            plan = plan_evaluation(source, summary, self.judge, options.max_questions, options.key_facts)
            if found is not None:
                check_language(found, plan.language)
            given = found.questions if found else None
            pre = preprocess(self.judge, summary, source, plan, options, log, self.question_sets, given)
            asked = questions_to_ask(pre.questions, cap, pre.key_facts.facts)
            coverage = analyze(self.judge, summary, asked, log)
        thresholds = self.judge.info.thresholds
        scores = compute_scores(
            # A claim the literal check refused counts 0 under either rule, whatever the judge said.
            votes(
                [v.supported for v in pre.alignment],
                [0.0 if v.unmatched else v.probability for v in pre.alignment],
                options.scoring,
                thresholds.alignment,
            ),
            pre.questions,
            votes(
                [v.answered for v in coverage],
                [v.probability for v in coverage],
                options.scoring,
                thresholds.coverage,
            ),
            max_questions=cap,
            scale=options.scale,
            key_facts=pre.key_facts.facts,
        )
        layout = plan.layout if plan else None
        reason = explain(
            scores, pre.alignment, coverage, empty=empty, scale=options.scale, windows=layout, scoring=options.scoring
        )
        return self._result(scores, reason, pre, coverage, log, plan, _origin(found))

    def _questions_for(self, source: str, questions: list[str] | QuestionSet | None) -> Found | None:
        """The question set this source is asked: given with the run, else the question file's, else None
        (generated), which ``questions_only`` refuses."""
        if questions is not None:
            return Found(given_set(questions, source))
        found = self.question_file.find(source) if self.question_file else None
        if found is None and self.options.questions_only:
            raise InputError(
                f"the question file {self.options.questions} holds no question set for this source "
                f"(sha256 {source_sha256(source)[:16]}...) and questions_only is set: write its questions with "
                f"`localsumm questions`, or drop --questions-only to generate them"
            )
        return found

    def question_set(self, source: str, summary: str = "", *, on_call: OnCall | None = None) -> QuestionSet:
        """The questions and key facts coverage would ask every summary of ``source``, as a question file keeps
        them: the same steps, in the same order, as a run that generates them. ``summary`` (one of the source's)
        only sets the language; without it, the source's."""
        log = StepLog(on_call)
        plan = plan_evaluation(source, summary, self.judge, self.options.max_questions, self.options.key_facts)
        pre = source_question_set(self.judge, plan, self.options, log, self.question_sets)
        info = self.judge.info
        return QuestionSet(
            source_sha256=source_sha256(source),
            language=plan.language,
            questions=pre.questions[: self.options.max_questions],
            key_facts=pre.key_facts.facts,
            highlights=pre.key_facts.highlights,
            dropped=pre.dropped,
            provenance={
                "origin": "judge",
                "judge": info.name,
                "model_sha256": info.sha256,
                "engine": info.engine,
                "prompt_version": prompts.PROMPT_VERSION,
                "localsumm_version": __version__,
                "seed": info.seed,
                "thresholds": {"alignment": info.thresholds.alignment, "coverage": info.thresholds.coverage},
                **{
                    k: v
                    for k, v in self.options.recorded().items()
                    if k in ("max_questions", "question_check", "key_facts")
                },
                "key_facts_failed": pre.key_facts.failed,
                "source_windows": len(plan.windows),
            },
        )

    def verdicts_on(
        self, source: str, summary: str, claims: list[str], questions: list[str], on_call: OnCall | None = None
    ) -> tuple[list[AlignmentVerdict], list[CoverageVerdict]]:
        """This judge's verdicts on claims and questions another judge wrote: agreement on equal terms."""
        log = StepLog(on_call)
        windows = source_windows(source, self.judge, self.options.max_questions)
        probabilities, _, _, _ = judge_source(self.judge, windows, claims, log, None, None)
        alignment = alignment_verdicts(self.judge, probabilities, windows, source, self.options.literal_check)
        return alignment, analyze(self.judge, summary, questions, log)

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
        reason: str,
        pre: Preprocessed,
        coverage: list[CoverageVerdict],
        log: StepLog,
        plan: Plan | None,
        questions: QuestionsOrigin,
    ) -> SummarizationResult:
        info, options = self.judge.info, self.options
        return SummarizationResult(
            score=scores.score,
            reason=reason,
            alignment_score=round(scores.alignment, 4),
            coverage_score=round(scores.coverage, 4),
            scorable=scores.scorable,
            preprocess_step_result=PreprocessStepResult(
                alignment=pre.alignment,
                questions=pre.questions,
                dropped_questions=pre.dropped,
                highlights=pre.key_facts.highlights,
                key_facts=pre.key_facts.facts,
                key_facts_failed=pre.key_facts.failed,
            ),
            analyze_step_result=AnalyzeStepResult(coverage=coverage),
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
                source_windows=plan.layout if plan else None,
                questions=questions,
            ),
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
    finds it in an agent run (see ``extract_tool_results``).
    """
    options = make_options(options, **settings)
    question_file = load_question_file(options)  # a bad file is refused before the model loads
    judge = model if isinstance(model, Judge) else open_judge(model, options)
    if options.cache and judge.info.sha256:
        path = None if options.cache is True else Path(options.cache)
        judge = CachedJudge(judge, JudgeCallCache(path), prompts.STEP_VERSIONS)
    scorer = SummarizationScorer(
        judge, options=options, source=source, source_extractor=source_extractor, question_file=question_file
    )
    scorer.model = model
    return scorer


def load_question_file(options: Options) -> QuestionFile | None:
    return QuestionFile.load(options.questions) if options.questions is not None else None


def _origin(found: Found | None) -> QuestionsOrigin:
    if found is None:
        return QuestionsOrigin(origin="generated")
    provenance = found.questions.provenance or None
    if found.file is None:
        return QuestionsOrigin(origin="given", written_by=provenance)
    return QuestionsOrigin(
        origin="file", file=found.file, file_sha256=found.file_sha256, line=found.line, written_by=provenance
    )
