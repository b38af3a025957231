"""``localsumm eval``: a data file through ``run_evals``, appending results as they finish.

The results file is the state: each finished item is one flushed JSON line, so
an interrupted run loses at most the item in flight, and ``--resume`` skips the
ids already written.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..config.options import Options, make_options
from ..errors import ConfigError, InputError
from ..protocol import Judge
from ..summarization.inputs import resolve_source
from ..summarization.question_file import QuestionFile
from ..summarization.scorer import ScorerSpec, SummarizationScorer, create_summarization_scorer, load_question_file
from .batch import ItemResult, run_evals
from .lock import writes
from .progress import Progress, Quiet
from .records import Record, read_records
from .results import (
    DIMENSIONS,
    check_resumable,
    check_same_judge,
    check_same_questions,
    done_ids,
    earlier_results,
    format_line,
    read_results,
)

if TYPE_CHECKING:
    from .cluster import RaySettings


@dataclass
class EvalSummary:
    """A results file at the end of a run (``reports.terminal.print_eval_summary`` shows it)."""

    out: Path
    items: int
    scored: int
    failed: int
    unscorable: int
    mean_score: float | None
    dimensions: dict[str, list[float]]
    """Each dimension's values over the scored items (score, alignment_score, coverage_score)."""


@writes("out")  # one writer per file (runs.lock)
def evaluate_file(
    data: Path,
    out: Path,
    *,
    resume: bool = False,
    model: str | os.PathLike[str] | Judge | None = None,
    options: Options | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
    ray: RaySettings | None = None,
    **settings: object,
) -> EvalSummary:
    """Score the records of ``data`` (the first ``limit`` of them, if given) into ``out``.

    ``options`` (or keyword ``settings``, its fields) configure the scorer, as for
    ``create_summarization_scorer``. With ``ray``, Ray workers score the records
    (``runs.cluster``) and this process only writes the results file: it never
    loads the judge.
    """
    options = make_options(options, **settings)
    progress = progress or Quiet()
    if out.exists() and out.stat().st_size > 0 and not resume:
        raise InputError(f"{out} already holds results; pass --resume to continue it, or choose another --out")
    records = list(read_records(data))[:limit]
    first_line: dict[str, int] = {}
    for record in records:
        if record.id is None:
            record.id = f"line-{record.line}"  # so a malformed record is written once, and resumable
        elif record.error is None and record.id in first_line:
            record.error = f"{data}: line {record.line} repeats id {record.id} (first on line {first_line[record.id]})"
        first_line.setdefault(record.id, record.line)
    done = done_ids(out) if resume else set()
    earlier = earlier_results(out) if done else []
    check_resumable(out, earlier, options)
    question_file = load_question_file(options)
    check_same_questions(out, earlier, question_file)
    todo = [r for r in records if r.id not in done]
    valid = [r for r in todo if r.error is None]
    if question_file is not None:
        match_question_file(question_file, [r for r in records if r.error is None], valid, data, options.questions_only)
    scorer: SummarizationScorer | ScorerSpec | None = None
    if valid and ray is not None:
        if isinstance(model, Judge):
            raise ConfigError(
                "--ray needs the judge as a registry name, a .gguf path or openai:NAME, not a judge object"
            )
        scorer = ScorerSpec(model, options)
    elif valid:
        scorer = create_summarization_scorer(model, options=options)
    # A resumed file holds one judge's results. With Ray the judge loads on the workers only: the first
    # result names it, and is checked before it is written.
    judge_checked = not earlier
    if earlier and isinstance(scorer, SummarizationScorer):
        check_same_judge(out, earlier, scorer.judge.info.name, scorer.judge.info.sha256)
        judge_checked = True

    out.parent.mkdir(parents=True, exist_ok=True)
    progress.start("scoring", len(todo))
    try:
        with out.open("a", encoding="utf-8") as sink:
            for record in todo:
                if record.error is not None:
                    progress.note("skipped", record.error)
                    sink.write(format_line(record.fields, record.id, error=record.error) + "\n")
                    sink.flush()
                    progress.advance()
            tokens, seconds = 0, 0.0

            def finished(item: ItemResult) -> None:
                nonlocal tokens, seconds, judge_checked
                record = valid[item.index]
                result = next(iter(item.scorer_results.values()), None)
                if result is not None and not judge_checked:
                    check_same_judge(out, earlier, result.provenance.model, result.provenance.model_sha256)
                    judge_checked = True
                error = "; ".join(item.errors.values()) or None
                sink.write(format_line(record.fields, record.id, error=error, result=result) + "\n")
                sink.flush()
                for result in item.scorer_results.values():
                    steps = result.provenance.steps
                    tokens += sum(s.prompt_tokens + s.completion_tokens for s in steps)
                    seconds += sum(s.seconds for s in steps)
                progress.advance(f"{tokens / seconds:.0f} tokens/s" if seconds else "")

            if scorer is not None:
                runs = ({"id": r.id, "input": r.input, "output": r.output, "questions": r.questions} for r in valid)
                run_evals(runs, [scorer], on_item_complete=finished, ray=ray)
    finally:
        progress.stop()
    return summarise(out)


def match_question_file(
    question_file: QuestionFile, records: list[Record], todo: list[Record], data: Path, questions_only: bool
) -> None:
    """Refuse, before anything is scored, a question file that holds none of the data's sources, one whose set
    was written for a record whose source has since changed, and (``questions_only``) a source still to score
    that it lacks."""
    matched, pending = 0, {r.id for r in todo}
    for record in records:
        try:
            source = resolve_source(record.input, record.output)
        except InputError:
            continue  # reported when the item is scored
        found = question_file.check_record(record.id, source, f"{data}: line {record.line}")
        matched += found is not None
        if found is None and questions_only and record.questions is None and record.id in pending:
            raise InputError(
                f"{data}: line {record.line} (id {record.id}): {question_file.path} holds no question set for its "
                "source and --questions-only is set; write it with `localsumm questions`, or drop --questions-only"
            )
    if records and not matched:
        raise InputError(
            f"{question_file.path} holds question sets for {len(question_file)} sources, none of them a source of "
            f"{data}: is it the question file of another data file? (`localsumm questions {data} --out FILE` "
            "writes this one's)"
        )


def summarise(out: Path) -> EvalSummary:
    """What a results file holds: items, scored, failed, unscorable, and each dimension's values."""
    lines = read_results(out)
    scored = [line for line in lines if line.scored]
    mean = statistics.fmean(line.score for line in scored) if scored else None
    return EvalSummary(
        out=out,
        items=len(lines),
        scored=len(scored),
        failed=len(lines) - len(scored),
        unscorable=sum(1 for line in scored if not line.scorable),
        mean_score=mean,
        dimensions={dim: [getattr(line, dim) for line in scored] for dim in DIMENSIONS},
    )
