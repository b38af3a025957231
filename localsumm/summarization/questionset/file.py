"""Question files: JSONL, one :class:`QuestionSet` per line, one line per source, read and checked whole.

Every rule about a question file lives here: how it is read, which line a source
takes, and the three refusals (a source it lacks where one is required, a source
edited since its line was written, a file that holds none of a data file's sources).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from pydantic import ValidationError

from ...errors import InputError
from ...files import json_object, read_text
from ..result import QuestionSetOrigin
from .model import SCHEMA, ProvidedSet, QuestionSet, source_sha256


class DataSource(NamedTuple):
    """One record of a data file, as a question file is matched against it."""

    record_id: str | None
    source: str
    where: str
    """The record's place in the data, for messages: "data.jsonl: line 4 (id a7)"."""
    required: bool
    """Whether the record must find its set in the file (--questions-only, a record still to score)."""


@dataclass
class QuestionFile:
    """A question file, read and checked whole: its sets by source hash and by record id."""

    path: Path
    sha256: str
    by_hash: dict[str, tuple[QuestionSet, int]] = field(default_factory=dict)
    by_id: dict[str, tuple[QuestionSet, int]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> QuestionFile:
        path = Path(path)
        text = read_text(str(path), "question")
        file = cls(path, hashlib.sha256(text.encode("utf-8")).hexdigest())
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            qs = parse_line(line, number, path)
            if qs.source_sha256 in file.by_hash:
                first = file.by_hash[qs.source_sha256][1]
                raise InputError(
                    f"{path}: line {number} repeats the source of line {first} (sha256 {qs.source_sha256[:12]}...): "
                    f"keep one question set per source"
                )
            file.by_hash[qs.source_sha256] = (qs, number)
            if qs.id is not None:
                file.by_id.setdefault(qs.id, (qs, number))
        if not file.by_hash:
            raise InputError(f"{path} holds no question set: write one with `localsumm questions DATA --out {path}`")
        return file

    def __len__(self) -> int:
        return len(self.by_hash)

    def find(self, source: str) -> ProvidedSet | None:
        """The set of ``source``, and its line, or None."""
        hit = self.by_hash.get(source_sha256(source))
        if hit is None:
            return None
        qs, line = hit
        origin = QuestionSetOrigin(
            origin="file", file=str(self.path), file_sha256=self.sha256, line=line, written_by=qs.provenance or None
        )
        return ProvidedSet(qs, origin)

    def require(self, source: str, why: str, where: str = "") -> ProvidedSet:
        """The set of ``source``; a file that lacks it is refused, saying ``why`` one was required."""
        found = self.find(source)
        if found is None:
            what = f"{where}: " if where else ""
            raise InputError(
                f"{what}{self.path} holds no question set for this source "
                f"(sha256 {source_sha256(source)[:16]}...): {why}"
            )
        return found

    def check_record(self, item: DataSource) -> ProvidedSet | None:
        """The set of a data record's source; a set written for this record id about another text means the
        source was edited since, and is refused with both hashes."""
        found = self.find(item.source)
        if found is None and item.record_id is not None and item.record_id in self.by_id:
            qs, number = self.by_id[item.record_id]
            raise InputError(
                f"{item.where}: the source has changed since {self.path} line {number} was written for record "
                f"{item.record_id} (sha256 {qs.source_sha256[:16]}... in the file, "
                f"{source_sha256(item.source)[:16]}... now); write its questions again with `localsumm questions`, "
                "or edit the line's source_sha256 if they still hold"
            )
        if found is None and item.required:
            self.require(item.source, QUESTIONS_ONLY, item.where)
        return found

    def check_data(self, items: Iterable[DataSource], data: str | os.PathLike[str]) -> None:
        """Refuse, before anything is scored, a file whose set of a record was written before its source changed,
        one that lacks a required source, and one that holds none of the data's sources."""
        checked = [self.check_record(item) for item in items]
        if checked and not any(checked):
            raise InputError(
                f"{self.path} holds question sets for {len(self)} sources, none of them a source of {data}: is it "
                f"the question file of another data file? (`localsumm questions {data} --out FILE` writes this one's)"
            )


QUESTIONS_ONLY = (
    "questions_only is set (--questions-only): write its questions with `localsumm questions`, or drop "
    "--questions-only to generate them"
)
EDITED = "was the source edited since its questions were written? Write them again with `localsumm questions`"


def load_question_file(path: str | os.PathLike[str] | None) -> QuestionFile | None:
    return QuestionFile.load(path) if path is not None else None


def parse_line(line: str, number: int, path: Path | str) -> QuestionSet:
    """One line of a question file, or an error that names the line and what is wrong with it."""
    where = f"{path}: line {number}"
    data = json_object(line, where, "a question set")
    schema = data.get("schema")
    if schema is None or "source_sha256" not in data:
        hint = " (it looks like a data record: give it to `localsumm questions`)" if "source" in data else ""
        raise InputError(f"{where} is not a question set: it has no schema and source_sha256{hint}")
    if schema != SCHEMA:
        raise InputError(f"{where} has schema {schema!r}; this localsumm reads {SCHEMA!r}")
    try:
        return QuestionSet.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "the line"
        raise InputError(f"{where}: {loc}: {first['msg'].removeprefix('Value error, ')}") from None
