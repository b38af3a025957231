"""Input data files of ``localsumm eval``: JSONL or CSV records, each with an id, a source and a summary.

A malformed line becomes a record with an error, so it is reported (and written
once to the results) instead of stopping the run.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..files import json_object, read_text


@dataclass
class Record:
    """One line of a data file: what to score, plus the user's fields carried through."""

    line: int
    fields: dict[str, Any]
    id: str | None = None
    input: Any = None
    output: Any = None
    questions: list[str] | None = None
    """The record's own coverage questions (its ``questions`` field), asked in place of generated ones."""
    system: str | None = None
    """The summarizer that wrote the summary (its ``system`` field): ``localsumm compare`` ranks systems by it."""
    error: str | None = None


def _to_record(line: int, fields: dict[str, Any], where: str) -> Record:
    rid = fields.get("id")
    record = Record(line, fields, id=None if rid is None else str(rid))
    if record.id is None:
        record.error = f"{where}: line {line} has no id"
    elif "source" in fields or "summary" in fields:
        missing = [k for k in ("source", "summary") if not isinstance(fields.get(k), str)]
        if missing:
            record.error = f"{where}: line {line} (id {record.id}) has no {' or '.join(missing)} text"
        record.input, record.output = fields.get("source"), fields.get("summary")
    elif "input" in fields and "output" in fields:
        record.input, record.output = fields["input"], fields["output"]
    else:
        record.error = f"{where}: line {line} (id {record.id}) needs source and summary (or input and output)"
    system = fields.get("system")
    if system is not None and record.error is None:
        if isinstance(system, str) and system.strip():
            record.system = system
        else:
            record.error = (
                f"{where}: line {line} (id {record.id}): system must be a non-empty text, the summarizer's name"
            )
    questions = fields.get("questions")
    if questions is not None and record.error is None:
        if (
            not isinstance(questions, list)
            or not questions
            or not all(isinstance(q, str) and q.strip() for q in questions)
        ):
            record.error = (
                f"{where}: line {line} (id {record.id}): questions must be a non-empty list of question texts"
            )
        else:
            record.questions = questions
    return record


def read_records(path: Path) -> Iterator[Record]:
    """Records from a JSONL or CSV file; a malformed line becomes a record with an error."""
    text = read_text(str(path), "data")
    where = str(path)
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        for row in reader:
            yield _to_record(reader.line_num, dict(row), where)
        return
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            fields = json_object(line, f"{where}: line {number}")
        except InputError as e:
            yield Record(number, {}, error=str(e))
            continue
        yield _to_record(number, fields, where)
