"""The question set, the stage between a source and coverage: what every summary of one source is asked.

- ``model``: :class:`QuestionSet` (one line of a question file) and :class:`ProvidedSet` (a set and where a
  run got it);
- ``file``: question files, read and checked, and every refusal about them;
- ``generate``: a set the judge writes (questions, key facts, each checked against the source);
- ``reference``: a set from a reference summary or its facts;
- ``stage``: :class:`QuestionSetProvider`, which picks the set each source is asked.
"""

from .file import DataSource, QuestionFile, load_question_file
from .model import SCHEMA, ProvidedSet, QuestionSet, json_schema, source_sha256
from .reference import is_reference, reference_question_set
from .stage import QuestionSetProvider

__all__ = [
    "SCHEMA",
    "DataSource",
    "ProvidedSet",
    "QuestionFile",
    "QuestionSet",
    "QuestionSetProvider",
    "is_reference",
    "json_schema",
    "load_question_file",
    "reference_question_set",
    "source_sha256",
]
