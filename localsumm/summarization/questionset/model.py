"""The question set: what coverage asks of every summary of one source, written once and reused.

One :class:`QuestionSet` is one line of a question file (``docs/question-files.md``): the source's
``questions``, asked as they are, and its ``key_facts``, each asked as "Is it true that ...?". It names
its source by the sha256 of the text (and by the record's id where there was one), so an edited source
is caught, never asked stale questions. A set written by the local judge, a hosted judge, a reference or
a person gives the same coverage on every machine.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ...errors import InputError
from ..result import DroppedQuestion, QuestionSetOrigin

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
    """Asked after the questions, each as ``facts_as`` says."""
    facts_as: Literal["questions", "statements"] = "questions"
    """How coverage asks the key facts: "questions", each as "Is it true that <fact>?" (the judge's facts, and
    every set written before 0.3.2); "statements", each as a statement the summary may make in other words,
    more briefly or more generally (a reference's facts, from 0.3.2)."""
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


@dataclass(frozen=True)
class ProvidedSet:
    """The question set one source is asked in a run, and where the run got it: all that passes from the
    source's side of the scorer to coverage."""

    question_set: QuestionSet
    origin: QuestionSetOrigin

    def question_cap(self, max_questions: int) -> int | None:
        """How many of the set's questions coverage asks: ``max_questions`` of those the judge wrote in this run,
        every one of a set given or read from a file (key facts are always all asked)."""
        return max_questions if self.origin.origin == "generated" else None

    @property
    def key_facts_failed(self) -> list[str]:
        """Why the judge that wrote the set in this run got no key facts from (part of) the source."""
        if self.origin.origin != "generated":
            return []
        return list(self.question_set.provenance.get("key_facts_failed", []))

    def check_language(self, language: str) -> None:
        """Questions in one language cannot be asked of a summary in another: refused, naming both."""
        qs, origin = self.question_set, self.origin
        if qs.language is not None and qs.language != language:
            where = f"{origin.file}: line {origin.line}" if origin.file else "the given questions"
            raise InputError(
                f"{where} holds questions in {qs.language!r}, and the summary is in {language!r}: "
                f"write the source's questions in {language!r}, or drop its language field to ask them anyway"
            )
