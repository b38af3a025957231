"""Question sets as data: what coverage asks of every summary of one source, written once and reused.

A *question file* is JSONL, one :class:`QuestionSet` per line, one line per
source (``docs/question-files.md``). Coverage asks a set's ``questions`` as
they are and each of its ``key_facts`` as "Is it true that ...?", so a set
written by the local judge, a hosted judge, a reference or a person gives the
same coverage on every machine: no question step runs for that source.

A line names its source by the sha256 of its text (and by the record's id
where there was one), so an edited source is caught, never asked stale
questions.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..errors import InputError
from ..files import json_object, read_text
from .result import DroppedQuestion

SCHEMA: Final = "localsumm.questions/1"
# A question ends as one: a person's "Did the bridge open in 2021" is refused, not asked as a statement.
_QUESTION_ENDS = ("?", "？")


def source_sha256(source: str) -> str:
    """The hash a question set names its source by: of the exact text, as scored."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


class QuestionSet(BaseModel):
    """One source's coverage questions: one line of a question file."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: Literal["localsumm.questions/1"] = Field(SCHEMA, alias="schema")
    source_sha256: str
    """sha256 of the source's text (UTF-8), as scored."""
    id: str | None = None
    """The id of the first record of this source in the data it was written from."""
    language: str | None = None
    """ISO 639-1 of the questions; a summary in another language is refused. None: any."""
    questions: list[str] = []
    """Asked of the summary as they are, in order."""
    key_facts: list[str] = []
    """Asked after the questions, each as "Is it true that <fact>?"."""
    highlights: list[str] = []
    """What the key facts were split from (the judge's highlights, or a reference summary): for review."""
    dropped: list[DroppedQuestion] = []
    """Written, then dropped by the question check (never asked): for review."""
    provenance: dict[str, Any] = {}
    """Who wrote the set: ``origin`` ("judge", "reference" or "person"), and the judge, its GGUF sha256,
    prompt version, engine build and localsumm version, or the reference field."""

    @field_validator("source_sha256")
    @classmethod
    def _hex(cls, value: str) -> str:
        if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
            raise ValueError("must be 64 lowercase hex digits (the sha256 of the source text)")
        return value

    @field_validator("questions")
    @classmethod
    def _questions(cls, value: list[str]) -> list[str]:
        for i, q in enumerate(value):
            if not q.strip():
                raise ValueError(f"question {i + 1} is empty")
            if not q.strip().endswith(_QUESTION_ENDS):
                raise ValueError(
                    f"question {i + 1} does not end with '?': {q.strip()[:80]!r} (a statement belongs in key_facts)"
                )
        return [q.strip() for q in value]

    @field_validator("key_facts", "highlights")
    @classmethod
    def _texts(cls, value: list[str]) -> list[str]:
        for i, text in enumerate(value):
            if not text.strip():
                raise ValueError(f"entry {i + 1} is empty")
        return [t.strip() for t in value]

    @model_validator(mode="after")
    def _something_to_ask(self) -> QuestionSet:
        if not self.questions and not self.key_facts:
            raise ValueError("it has no questions and no key facts: coverage would have nothing to ask")
        return self

    @property
    def asked(self) -> int:
        return len(self.questions) + len(self.key_facts)

    def to_line(self) -> str:
        return json.dumps(self.model_dump(mode="json", by_alias=True), ensure_ascii=False)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of one line of a question file (``localsumm questions --schema``)."""
    schema = QuestionSet.model_json_schema(by_alias=True)
    schema["title"] = "localsumm question set (one line of a question file)"
    return schema


@dataclass(frozen=True)
class Found:
    """A source's question set, and where it came from (the result's ``provenance.questions``)."""

    questions: QuestionSet
    file: str | None = None
    file_sha256: str | None = None
    line: int | None = None


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

    def find(self, source: str) -> Found | None:
        hit = self.by_hash.get(source_sha256(source))
        if hit is None:
            return None
        return Found(hit[0], str(self.path), self.sha256, hit[1])

    def check_record(self, record_id: str | None, source: str, where: str) -> Found | None:
        """The set of a data record's source; a set written for this record id about another text means the
        source was edited since, and is refused with both hashes."""
        found = self.find(source)
        if found is None and record_id is not None and record_id in self.by_id:
            qs, number = self.by_id[record_id]
            raise InputError(
                f"{where}: the source of record {record_id} has changed since {self.path} line {number} was written "
                "for it "
                f"(sha256 {qs.source_sha256[:16]}... in the file, {source_sha256(source)[:16]}... now); "
                "write its questions again with `localsumm questions`, or edit the line's source_sha256 if they "
                "still hold"
            )
        return found


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


def check_language(found: Found, language: str) -> None:
    """Questions in one language cannot be asked of a summary in another: refused, naming both."""
    qs = found.questions
    if qs.language is not None and qs.language != language:
        where = f"{found.file}: line {found.line}" if found.file else "the given questions"
        raise InputError(
            f"{where} holds questions in {qs.language!r}, and the summary is in {language!r}: "
            f"write the source's questions in {language!r}, or drop its language field to ask them anyway"
        )


def given_set(questions: list[str] | QuestionSet, source: str, language: str | None = None) -> QuestionSet:
    """A question set from the API (``scorer.run(..., questions=[...])``) or a record's ``questions`` field."""
    if isinstance(questions, QuestionSet):
        return questions
    if isinstance(questions, str) or not isinstance(questions, list) or not all(isinstance(q, str) for q in questions):
        raise InputError(f"questions must be a list of strings, got {type(questions).__name__}")
    try:
        return QuestionSet(
            source_sha256=source_sha256(source), language=language, questions=questions, provenance={"origin": "given"}
        )
    except ValidationError as e:
        raise InputError(f"questions: {e.errors()[0]['msg'].removeprefix('Value error, ')}") from None
