"""``localsumm questions``: a data file's question sets, one line per distinct source, written once.

The question file is the state, as the results file is for ``eval``: each
source's set is one flushed line, so an interrupted run loses at most the
source in flight, and ``--resume`` skips the sources already written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._version import __version__
from ..config.options import Options, make_options
from ..errors import InputError, JudgeError
from ..protocol import Judge
from ..summarization.inputs import resolve_source, resolve_summary
from ..summarization.plan import evaluation_language
from ..summarization.preprocess import keep_answerable_facts, reference_facts
from ..summarization.question_file import QuestionFile, QuestionSet, source_sha256
from ..summarization.result import DroppedQuestion
from ..summarization.scorer import SummarizationScorer, create_summarization_scorer
from ..summarization.steplog import StepLog
from .lock import writes
from .progress import Progress, Quiet
from .records import Record, read_records


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
    record: Record
    summary: str


def distinct_sources(records: list[Record], where: Path) -> tuple[list[_Source], list[str]]:
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


def reference_set(
    source: _Source, field: str, where: Path, judge: Judge | None = None, log: StepLog | None = None
) -> QuestionSet:
    """The question set a record's reference gives: its facts (a list) or its sentences (a text) as key facts,
    checked against the source when a ``judge`` is given."""
    value = field_value(source.record.fields, field)
    ok = (
        isinstance(value, str)
        and value.strip()
        or (isinstance(value, list) and value and all(isinstance(v, str) for v in value))
    )
    if not ok:
        raise InputError(
            f"{where}: line {source.record.line} (id {source.record.id}) has no reference at {field!r}: "
            f"give a field holding a reference summary (text) or its facts (a list of texts)"
        )
    language = evaluation_language(source.summary, source.text)
    facts, highlights = reference_facts(value, language)
    dropped: list[DroppedQuestion] = []
    provenance: dict[str, Any] = {"origin": "reference", "field": field, "localsumm_version": __version__}
    if judge is not None:
        facts, dropped = keep_answerable_facts(judge, source.text, len(facts), facts, log or StepLog())
        info = judge.info
        provenance.update(
            question_check=True,
            judge=info.name,
            model_sha256=info.sha256,
            engine=info.engine,
            threshold=info.thresholds.coverage,
        )
    if not facts:
        raise InputError(
            f"{where}: line {source.record.line} (id {source.record.id}): the source answers none of "
            f"the reference's facts at {field!r}; write its questions another way"
        )
    return QuestionSet(
        source_sha256=source.sha256,
        id=source.record.id,
        language=language,
        key_facts=facts,
        highlights=highlights,
        dropped=dropped,
        provenance=provenance,
    )


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
    options = make_options(options)
    progress = progress or Quiet()
    if out.exists() and out.stat().st_size > 0 and not resume:
        raise InputError(f"{out} already holds question sets; pass --resume to continue it, or choose another --out")
    check = (from_reference is None) if check is None else check
    options = options.replace(question_check=check)
    if source is not None:
        if from_reference is not None:
            raise InputError("--from-reference reads a field of each record: give a data file, not --source")
        records = [Record(1, {}, input=source, output="")]
        data = Path("--source")
    elif data is None:
        raise InputError("give a data file or a source text")
    else:
        records = list(read_records(data))[:limit]
    sources, errors = distinct_sources(records, data)
    done = set(QuestionFile.load(out).by_hash) if resume and out.exists() and out.stat().st_size > 0 else set()
    todo = [s for s in sources if s.sha256 not in done]
    for error in errors:
        progress.note("skipped", error)
    scorer: SummarizationScorer | None = None
    if todo and (from_reference is None or check):
        scorer = create_summarization_scorer(model, options=options.replace(questions=None, questions_only=False))
    written = failed = 0
    out.parent.mkdir(parents=True, exist_ok=True)
    progress.start("questions", len(todo))
    try:
        with out.open("a", encoding="utf-8") as sink:
            for pending in todo:
                try:
                    if from_reference is not None:
                        qs = reference_set(pending, from_reference, data, scorer.judge if scorer else None)
                    else:
                        assert scorer is not None
                        found = scorer.question_set(pending.text, pending.summary)
                        qs = found.model_copy(update={"id": pending.record.id})
                except (InputError, JudgeError) as e:  # ContextOverflowError too: reported, the other sources go on
                    progress.note("failed", str(e))
                    failed += 1
                else:
                    sink.write(qs.to_line() + "\n")
                    sink.flush()
                    written += 1
                progress.advance()
    finally:
        progress.stop()
    return QuestionsSummary(out=out, sources=len(sources), written=written, failed=failed, kept=len(done))
