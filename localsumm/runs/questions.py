"""``localsumm questions``: a data file's question sets, one line per distinct source, written once.

The question file is the state (``runs.journal``), as the results file is for
``eval``: each source's set is one flushed line, so an interrupted run loses at
most the source in flight, and ``--resume`` skips the sources already written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config.options import Options, make_options
from ..errors import InputError, JudgeError
from ..protocol import Judge
from ..summarization.inputs import resolve_source, resolve_summary
from ..summarization.plan import evaluation_language
from ..summarization.questionset import QuestionFile, QuestionSet, is_reference, reference_question_set, source_sha256
from ..summarization.scorer import SummarizationScorer, create_summarization_scorer
from .journal import journal, refuse_unless_resumed
from .lock import writes
from .progress import Progress, Quiet
from .records import Item, read_records


@dataclass
class QuestionsSummary:
    out: Path
    sources: int
    """Distinct sources in the data."""
    written: int
    """Question sets this run wrote (the others were in the file already, or failed)."""
    failed: int
    kept: int
    """Question sets the file held already (a resumed run)."""


@dataclass(frozen=True)
class _Source:
    text: str
    sha256: str
    record: Item
    summary: str


def distinct_sources(records: list[Item], where: Path) -> tuple[list[_Source], list[str]]:
    """One entry per distinct source text, in order of first appearance (with its first record), and the
    errors of the records that could not be read."""
    seen: dict[str, _Source] = {}
    errors: list[str] = []
    for record in records:
        if record.error is not None:
            errors.append(record.error)
            continue
        try:
            text, summary = resolve_source(record.input, record.output), resolve_summary(record.output)
        except InputError as e:
            errors.append(f"{where}: line {record.line} (id {record.id}): {e}")
            continue
        if not text.strip():
            errors.append(f"{where}: line {record.line} (id {record.id}) has an empty source")
            continue
        digest = source_sha256(text)
        seen.setdefault(digest, _Source(text, digest, record, summary))
    return list(seen.values()), errors


def field_value(fields: dict[str, Any], path: str) -> Any:
    """``fields`` at a dotted path (``meta.keyfacts_scus``), or None."""
    value: Any = fields
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def reference_set(source: _Source, field: str, where: Path, judge: Judge | None = None) -> QuestionSet:
    """The question set a record's reference gives: its facts (a list) or its sentences (a text) as key facts,
    checked against the source when a ``judge`` is given."""
    value = field_value(source.record.fields, field)
    at = f"{where}: line {source.record.line} (id {source.record.id})"
    if not is_reference(value):
        raise InputError(
            f"{at} has no reference at {field!r}: give a field holding a reference summary (text) or its facts "
            "(a list of texts)"
        )
    language = evaluation_language(source.summary, source.text)
    try:
        return reference_question_set(
            source.text, value, field=field, language=language, record_id=source.record.id, judge=judge
        )
    except InputError as e:
        raise InputError(f"{at}: {e}") from None


@writes("out")  # one writer per file (runs.lock)
def write_questions(
    data: Path | None,
    out: Path,
    *,
    resume: bool = False,
    model: str | os.PathLike[str] | Judge | None = None,
    options: Options | None = None,
    from_reference: str | None = None,
    check: bool | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
    source: str | None = None,
) -> QuestionsSummary:
    """Write the question set of every distinct source of ``data`` (the first ``limit`` records) into ``out``.

    By the judge (``model``, ``options`` as for ``eval``), or with ``from_reference`` from a field of each
    source's first record. ``check`` (the question check) defaults to on for the judge's questions and off
    for a reference's facts, which are trusted as written; a reference without the check loads no judge.
    """
    progress = progress or Quiet()
    started = refuse_unless_resumed(out, resume, "question sets")
    check = (from_reference is None) if check is None else check
    options = make_options(options).replace(question_check=check)
    records, data = question_records(data, source, from_reference, limit)
    sources, errors = distinct_sources(records, data)
    done = set(QuestionFile.load(out).by_hash) if started else set()
    todo = [s for s in sources if s.sha256 not in done]
    for error in errors:
        progress.note("skipped", error)
    scorer: SummarizationScorer | None = None
    if todo and (from_reference is None or check):
        scorer = create_summarization_scorer(model, options=options)
    written = failed = 0
    with journal(out, progress, "questions", len(todo)) as lines:
        for pending in todo:
            try:
                qs = source_set(pending, scorer, from_reference, data)
            except (InputError, JudgeError) as e:  # ContextOverflowError too: reported, the other sources go on
                progress.note("failed", str(e))
                progress.advance()
                failed += 1
            else:
                lines.append(qs.to_line())
                written += 1
    return QuestionsSummary(out=out, sources=len(sources), written=written, failed=failed, kept=len(done))


def question_records(
    data: Path | None, source: str | None, from_reference: str | None, limit: int | None
) -> tuple[list[Item], Path]:
    """The records whose sources get question sets: the first ``limit`` of ``data``, or one ``source`` text."""
    if source is not None:
        if from_reference is not None:
            raise InputError("--from-reference reads a field of each record: give a data file, not --source")
        return [Item(None, source, "", line=1)], Path("--source")
    if data is None:
        raise InputError("give a data file or a source text")
    return list(read_records(data))[:limit], data


def source_set(
    pending: _Source, scorer: SummarizationScorer | None, from_reference: str | None, data: Path
) -> QuestionSet:
    """One source's set: from its first record's reference (checked by the scorer's judge, if any), or the judge's."""
    if from_reference is not None:
        return reference_set(pending, from_reference, data, scorer.judge if scorer else None)
    assert scorer is not None, "a judge writes the questions"
    written = scorer.question_set(pending.text, pending.summary)
    return written.model_copy(update={"id": pending.record.id})
