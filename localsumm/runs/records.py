"""The item of a run, and the input data files of ``localsumm eval``: JSONL or CSV records, each with an id, a
source and a summary.

:class:`Item` is the one shape of an item from its data line to its results line: read here, scored by
``run_evals`` (in this process or on Ray, where it is sent to a worker as it is), and written by the results
writer from its ``fields``. A malformed line becomes an item with an error, so it is reported (and written
once to the results) instead of stopping the run.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..files import json_object, read_text
from ..summarization.questionset import QuestionSet


@dataclass(frozen=True)
class Item:
    """One item of a run: what to score, plus the user's record carried through to its results line.

    Frozen, and plain data all through: a Ray worker gets it pickled.
    """

    id: str | None
    input: Any
    output: Any
    questions: list[str] | QuestionSet | None = None
    """The item's own coverage questions (a record's ``questions`` field), asked in place of generated ones."""
    system: str | None = None
    """The summarizer that wrote the summary (its ``system`` field): ``localsumm compare`` ranks systems by it."""
    fields: dict[str, Any] = field(default_factory=dict)
    """The user's record, unchanged: its results line is these fields plus our verdict."""
    line: int = 0
    """Its line in the data file (1-based); for data given to ``run_evals`` in memory, its position (1-based)."""
    error: str | None = None
    """Why it cannot be scored (a malformed record): written as failed, never scored."""

    @classmethod
    def of(cls, data: Mapping[str, Any], line: int) -> Item:
        """An item given in memory (``run_evals``'s data): its ``id``, ``input``, ``output`` and ``questions``."""
        return cls(data.get("id"), data.get("input"), data.get("output"), data.get("questions"), None, dict(data), line)

    def as_run(self) -> dict[str, Any]:
        """What a scorer's ``run`` is given for it."""
        return {"input": self.input, "output": self.output, "questions": self.questions}


def _problem(fields: dict[str, Any], at: str) -> str | None:
    """What makes a record with an id unscorable (``at`` names its file, line and id), or None."""
    if "source" in fields or "summary" in fields:
        missing = [k for k in ("source", "summary") if not isinstance(fields.get(k), str)]
        if missing:
            return f"{at} has no {' or '.join(missing)} text"
    elif not ("input" in fields and "output" in fields):
        return f"{at} needs source and summary (or input and output)"
    system = fields.get("system")
    if system is not None and not (isinstance(system, str) and system.strip()):
        return f"{at}: system must be a non-empty text, the summarizer's name"
    questions = fields.get("questions")
    if questions is not None and not (
        isinstance(questions, list) and questions and all(isinstance(q, str) and q.strip() for q in questions)
    ):
        return f"{at}: questions must be a non-empty list of question texts"
    return None


def _to_item(line: int, fields: dict[str, Any], where: str) -> Item:
    rid = fields.get("id")
    if rid is None:
        return Item(None, None, None, fields=fields, line=line, error=f"{where}: line {line} has no id")
    id = str(rid)
    error = _problem(fields, f"{where}: line {line} (id {id})")
    texts = ("source", "summary") if "source" in fields or "summary" in fields else ("input", "output")
    input, output = (fields.get(k) for k in texts)
    if error is not None:  # only a valid record's own questions and system are read
        return Item(id, input, output, fields=fields, line=line, error=error)
    return Item(id, input, output, fields.get("questions"), fields.get("system"), fields, line)


def read_records(path: Path) -> Iterator[Item]:
    """The items of a JSONL or CSV file; a malformed line becomes an item with an error."""
    text = read_text(str(path), "data")
    where = str(path)
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        for row in reader:
            yield _to_item(reader.line_num, dict(row), where)
        return
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            fields = json_object(line, f"{where}: line {number}")
        except InputError as e:
            yield Item(None, None, None, line=number, error=str(e))
            continue
        yield _to_item(number, fields, where)
