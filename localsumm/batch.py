"""Batch evaluation: ``run_evals`` (the reference's runEvals) and the record files behind ``localsumm eval``.

An item that fails to score is reported with its error and left out of the
averages; it is never counted as 0 or 1.
"""

from __future__ import annotations

import csv
import io
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Protocol, Sequence

from .errors import InputError
from .result import SummarizationResult


class Scorer(Protocol):
    id: str

    def run(self, run: Mapping[str, Any] | None = None, *, input: Any = None, output: Any = None) -> SummarizationResult: ...


@dataclass
class ItemResult:
    index: int
    id: str | None
    input: Any
    output: Any
    scorer_results: dict[str, SummarizationResult] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    """Scorer id (or "target") -> what went wrong, for the scorers that failed on this item."""


@dataclass
class EvalRun:
    scores: dict[str, float | None]
    """Mean score per scorer id over the items it scored (None if it scored none)."""
    item_count: int
    items: list[ItemResult]

    def failed(self, scorer_id: str) -> int:
        return sum(1 for item in self.items if scorer_id in item.errors or "target" in item.errors)


def run_evals(
    data: Iterable[Mapping[str, Any]],
    scorers: Sequence[Scorer],
    target: Callable[[Any], Any] | None = None,
    on_item_complete: Callable[[ItemResult], None] | None = None,
) -> EvalRun:
    """Score every item with every scorer.

    Each item has an ``input`` and either an ``output`` or, when ``target`` is
    given, the output is ``target(input)`` (the agent under test).
    ``on_item_complete`` is called after each item.
    """
    ids = [s.id for s in scorers]
    if len(set(ids)) != len(ids):
        raise InputError(f"scorer ids must be unique, got {ids}")
    items: list[ItemResult] = []
    for index, item in enumerate(data):
        result = ItemResult(index=index, id=item.get("id"), input=item.get("input"), output=item.get("output"))
        if result.output is None and target is not None:
            try:
                result.output = target(result.input)
            except Exception as e:  # the agent failed: the item cannot be scored
                result.errors["target"] = f"{type(e).__name__}: {e}"
        if "target" not in result.errors:
            for scorer in scorers:
                try:
                    result.scorer_results[scorer.id] = scorer.run(input=result.input, output=result.output)
                except Exception as e:  # reported per item, never counted as a score
                    result.errors[scorer.id] = f"{type(e).__name__}: {e}"
        items.append(result)
        if on_item_complete is not None:
            on_item_complete(result)
    scores = {}
    for scorer_id in ids:
        values = [i.scorer_results[scorer_id].score for i in items if scorer_id in i.scorer_results]
        scores[scorer_id] = statistics.fmean(values) if values else None
    return EvalRun(scores=scores, item_count=len(items), items=items)


# -- record files (localsumm eval) ------------------------------------------------


@dataclass
class Record:
    """One line of a data file: what to score, plus the user's fields carried through."""

    line: int
    fields: dict[str, Any]
    id: str | None = None
    input: Any = None
    output: Any = None
    error: str | None = None


def _to_record(line: int, fields: Any, where: str) -> Record:
    if not isinstance(fields, dict):
        return Record(line, {}, error=f"{where}: line {line} is a JSON {type(fields).__name__}, not an object")
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
    return record


def read_records(path: Path) -> Iterator[Record]:
    """Records from a JSONL or CSV file; a malformed line becomes a record with an error."""
    from .files import read_text

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
            fields = json.loads(line)
        except json.JSONDecodeError as e:
            yield Record(number, {}, error=f"{where}: line {number} is not JSON ({e.msg} at column {e.colno})")
            continue
        yield _to_record(number, fields, where)


def done_ids(out: Path) -> set[str]:
    """Ids already in a results file; a last line cut short by a crash is removed."""
    if not out.exists():
        return set()
    data = out.read_bytes()
    keep = data[: data.rfind(b"\n") + 1]
    if len(keep) != len(data):  # the item in flight when the run died: score it again
        out.write_bytes(keep)
    ids = set()
    for line in keep.decode("utf-8").splitlines():
        try:
            ids.add(str(json.loads(line)["id"]))
        except (json.JSONDecodeError, KeyError, TypeError):
            continue
    return ids
