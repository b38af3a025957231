"""``localsumm eval``: a data file through ``run_evals``, appending results as they finish.

The results file is the state (``runs.journal``): each finished item is one flushed
JSON line, so an interrupted run loses at most the item in flight, and ``--resume``
skips the ids already written.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..config.options import Options, make_options
from ..errors import ConfigError, InputError
from ..protocol import Judge
from ..summarization.inputs import resolve_source
from ..summarization.questionset import DataSource, QuestionFile, load_question_file
from ..summarization.scorer import ScorerSpec, SummarizationScorer, create_summarization_scorer
from .batch import run_evals
from .journal import Journal, journal, refuse_unless_resumed
from .lock import writes
from .progress import Progress, Quiet
from .records import Item, read_records
from .results import (
    DIMENSIONS,
    ResultLine,
    check_resumable,
    check_same_judge,
    check_same_questions,
    done_ids,
    earlier_results,
    format_line,
    read_results,
)
from .scoring import ItemResult

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
    started = refuse_unless_resumed(out, resume, "results")
    records = numbered_records(data, limit)
    done = done_ids(out) if started else set()
    earlier = earlier_results(out) if done else []
    check_resumable(out, earlier, options)
    question_file = load_question_file(options.questions)
    check_same_questions(out, earlier, question_file)
    todo = [r for r in records if r.id not in done]
    valid = [r for r in todo if r.error is None]
    if question_file is not None:
        valid_records = [r for r in records if r.error is None]
        question_file.check_data(question_file_sources(valid_records, valid, data, options.questions_only), data)
    scorer = build_scorer(model, options, question_file, ray) if valid else None
    writer = ResultsWriter(out, earlier, str(data))
    if earlier and isinstance(scorer, SummarizationScorer):
        writer.check_judge(scorer.judge.info.name, scorer.judge.info.sha256)
    with journal(out, progress or Quiet(), "scoring", len(todo)) as lines:
        writer.lines = lines
        for record in todo:
            if record.error is not None:
                lines.progress.note("skipped", record.error)
                lines.append(format_line(record.fields, record.id, error=record.error))
        if scorer is not None:
            run_evals(valid, [scorer], on_item_complete=writer.finished, ray=ray)
    return summarise(out)


def numbered_records(data: Path, limit: int | None) -> list[Item]:
    """The first ``limit`` records of ``data``, each with an id (a record without one is named by its line, so
    it is written once, and resumable); a record that repeats an earlier id is refused as an item."""
    records = []
    first_line: dict[str, int] = {}
    for record in list(read_records(data))[:limit]:
        id = record.id if record.id is not None else f"line-{record.line}"
        if record.id is None:
            record = replace(record, id=id)
        elif record.error is None and id in first_line:
            record = replace(
                record, error=f"{data}: line {record.line} repeats id {id} (first on line {first_line[id]})"
            )
        first_line.setdefault(id, record.line)
        records.append(record)
    return records


def build_scorer(
    model: str | os.PathLike[str] | Judge | None,
    options: Options,
    question_file: QuestionFile | None,
    ray: RaySettings | None,
) -> SummarizationScorer | ScorerSpec:
    """The scorer here, or with ``ray`` only its spec: the judge then loads on the workers alone."""
    if ray is None:
        return create_summarization_scorer(model, options=options, question_file=question_file)
    if isinstance(model, Judge):
        raise ConfigError("--ray needs the judge as a registry name, a .gguf path or openai:NAME, not a judge object")
    return ScorerSpec(model, options)


class ResultsWriter:
    """Writes each scored item's line as it finishes, and counts the judge's speed for the progress line."""

    def __init__(self, out: Path, earlier: list[ResultLine], where: str = "data") -> None:
        self.out = out
        self.where = where
        """The data file, named with a failed item's line in its error."""
        self.earlier = earlier
        self.lines: Journal | None = None
        self.tokens = 0
        self.seconds = 0.0
        # A resumed file holds one judge's results. With Ray the judge loads on the workers only: the first
        # result names it, and is checked before it is written.
        self.judge_checked = not earlier

    def check_judge(self, name: str, sha256: str | None) -> None:
        check_same_judge(self.out, self.earlier, name, sha256)
        self.judge_checked = True

    def finished(self, done: ItemResult) -> None:
        assert self.lines is not None, "open the journal first"
        result = next(iter(done.scorer_results.values()), None)
        if result is not None and not self.judge_checked:
            self.check_judge(result.provenance.model, result.provenance.model_sha256)
        error = "; ".join(done.errors.values()) or None
        if error is not None:  # named by its line, as a record that could not be read is
            error = f"{self.where}: line {done.item.line} (id {done.item.id}): {error}"
            self.lines.progress.note("failed", error)
        for scored in done.scorer_results.values():
            steps = scored.provenance.steps
            self.tokens += sum(s.prompt_tokens + s.completion_tokens for s in steps)
            self.seconds += sum(s.seconds for s in steps)
        rate = f"{self.tokens / self.seconds:.0f} tokens/s" if self.seconds else ""
        self.lines.append(format_line(done.item.fields, done.item.id, error=error, result=result), rate)


def question_file_sources(records: list[Item], todo: list[Item], data: Path, questions_only: bool) -> list[DataSource]:
    """The records' sources as a question file is checked against them: with ``questions_only``, a record still
    to score that brings no questions of its own must find its set in the file."""
    pending = {r.id for r in todo}
    sources = []
    for record in records:
        try:
            source = resolve_source(record.input, record.output)
        except InputError:
            continue  # reported when the item is scored
        required = questions_only and record.questions is None and record.id in pending
        sources.append(DataSource(record.id, source, f"{data}: line {record.line} (id {record.id})", required))
    return sources


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
