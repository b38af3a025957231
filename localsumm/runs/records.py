"""Input data files of ``localsumm eval``: JSONL or CSV records, each with an id, a source and a summary.

A malformed line becomes a record with an error, so it is reported (and written
once to the results) instead of stopping the run. A JSONL file is read line by line, so one line that is
not UTF-8, holds a NUL byte or nests too deeply is one bad record, never a bad file.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..files import json_object, read_bytes, read_text
from ..summarization.inputs import resolve_source, resolve_summary


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


def _texts_error(record: Record) -> str | None:
    """What makes a record's source and summary unusable: a form no source can be found in, an empty source,
    or NUL characters (which no judge reads as text)."""
    try:
        source, summary = resolve_source(record.input, record.output), resolve_summary(record.output)
    except InputError as e:
        return f": {e}"
    if not source.strip():
        return " has an empty source"
    for name, text in (("source", source), ("summary", summary)):
        if "\x00" in text:
            return f" has NUL characters in its {name}"
    return None


def _to_record(line: int, fields: dict[str, Any], where: str) -> Record:
    rid, wrong = _record_id(fields)
    record = Record(line, fields, id=rid)
    if wrong is not None:
        record.error = f"{where}: line {line} {wrong}"
    elif "source" in fields or "summary" in fields:
        missing = [k for k in ("source", "summary") if not isinstance(fields.get(k), str)]
        if missing:
            record.error = f"{where}: line {line} (id {record.id}) has no {' or '.join(missing)} text"
        record.input, record.output = fields.get("source"), fields.get("summary")
    elif "input" in fields and "output" in fields:
        record.input, record.output = fields["input"], fields["output"]
    else:
        record.error = f"{where}: line {line} (id {record.id}) needs source and summary (or input and output)"
    if record.error is None and (wrong := _texts_error(record)) is not None:
        record.error = f"{where}: line {line} (id {record.id}){wrong}"
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
    """Records from a JSONL or CSV file; a malformed line becomes a record with an error that names its line."""
    where = str(path)
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(read_text(where, "data")))
        for row in reader:
            yield _to_record(reader.line_num, dict(row), where)
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
            yield Record(number, {}, error=str(e))
            continue
        yield _to_record(number, fields, where)


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
