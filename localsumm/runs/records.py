"""The item of a run, and the input data files of ``localsumm eval``: JSONL or CSV records, each with an id, a
source and a summary.

:class:`Item` is the one shape of an item from its data line to its results line: read here, scored by
``run_evals`` (in this process or on Ray, where it is sent to a worker as it is), and written by the results
writer from its ``fields``. A malformed line becomes an item with an error, so it is reported (and written
once to the results) instead of stopping the run. A JSONL file is read line by line, so one line that is not
UTF-8, holds a NUL byte or nests too deeply is one bad item, never a bad file.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..files import json_object, read_bytes, read_text
from ..summarization.inputs import resolve_source, resolve_summary
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


def _record_id(fields: dict[str, Any]) -> tuple[str | None, str | None]:
    """The record's id as text, and what is wrong with it (a record needs a non-empty text or whole number)."""
    rid = fields.get("id")
    if rid is None:
        return None, "has no id"
    if isinstance(rid, bool) or not isinstance(rid, str | int):
        kind = {"dict": "an object", "list": "an array", "float": "a fraction"}.get(type(rid).__name__, "another type")
        return None, f"has an id that is {kind}, not a text or a whole number"
    if not str(rid).strip():
        return None, "has an empty id"
    return str(rid), None


def _texts_error(input: Any, output: Any) -> str | None:
    """What makes a record's source and summary unusable: a form no source can be found in, an empty source,
    or NUL characters (which no judge reads as text)."""
    try:
        source, summary = resolve_source(input, output), resolve_summary(output)
    except InputError as e:
        return f": {e}"
    if not source.strip():
        return " has an empty source"
    for name, text in (("source", source), ("summary", summary)):
        if "\x00" in text:
            return f" has NUL characters in its {name}"
    return None


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
    id, wrong = _record_id(fields)
    if id is None:
        return Item(None, None, None, fields=fields, line=line, error=f"{where}: line {line} {wrong}")
    at = f"{where}: line {line} (id {id})"
    error = _problem(fields, at)
    texts = ("source", "summary") if "source" in fields or "summary" in fields else ("input", "output")
    input, output = (fields.get(k) for k in texts)
    if error is None and (wrong := _texts_error(input, output)) is not None:
        error = at + wrong
    if error is not None:  # only a valid record's own questions and system are read
        return Item(id, input, output, fields=fields, line=line, error=error)
    return Item(id, input, output, fields.get("questions"), fields.get("system"), fields, line)


def read_records(path: Path) -> Iterator[Item]:
    """The items of a JSONL or CSV file; a malformed line becomes an item with an error that names its line."""
    where = str(path)
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(read_text(where, "data")))
        for row in reader:
            yield _to_item(reader.line_num, dict(row), where)
        return
    data, _ = read_bytes(where, "data")
    # Lines end at "\n" alone (a "\r" before it is dropped): Unicode's other line breaks (U+2028...) may sit in
    # a JSON text unescaped.
    for number, raw in enumerate(data.removeprefix(codecs.BOM_UTF8).split(b"\n"), 1):
        raw = raw.removesuffix(b"\r")
        if not raw.strip():
            continue
        at = f"{where}: line {number}"
        try:
            fields = json_object(_line_text(raw, at), at, unique_keys=True)
            _check_encodable(fields, at)
        except InputError as e:
            yield Item(None, None, None, line=number, error=str(e))
            continue
        yield _to_item(number, fields, where)


def _check_encodable(fields: dict[str, Any], where: str) -> None:
    """Refuse a record that holds half a UTF-16 pair (a "\\ud800" escape alone): JSON allows it, but it is no
    character, so no text holds it and its results line could not be written."""
    try:
        json.dumps(fields, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as e:
        half = e.object[e.start : e.start + 1].encode("unicode_escape").decode("ascii")
        raise InputError(f"{where} holds {half}, half of a UTF-16 pair (a lone surrogate), not a character") from None


def _line_text(raw: bytes, where: str) -> str:
    """One line's text; a NUL byte or bytes that are not UTF-8 are that line's error, named by column."""
    if b"\x00" in raw:
        raise InputError(f"{where} holds a NUL byte (column {raw.index(0) + 1}): is the file binary?")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(
            f"{where} is not valid UTF-8: byte 0x{raw[e.start]:02x} at column {e.start + 1}; convert it to UTF-8"
        ) from None
