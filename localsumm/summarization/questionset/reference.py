"""A question set from a reference: a reference summary, or the facts a person wrote of the source.

This is what pyramid-style human ratings measure (REALSumm's SCUs, RoSE's ACUs): coverage asks each fact as a
statement the summary may make in other words, more briefly or more generally (``facts_as="statements"``), since
people word their facts more generally than the summaries that keep them. The facts are cleaned of their
tokenised spacing, and otherwise trusted as written unless a judge is given to check them against the source, as
the judge's own facts are.
"""

from __future__ import annotations

import re
from typing import Any

from ..._version import __version__
from ...errors import InputError
from ...protocol import Judge
from ...text import sentences, unique
from ..result import DroppedQuestion
from ..steplog import StepLog
from .generate import keep_answerable_facts
from .model import QuestionSet, source_sha256

Reference = str | list[str]
"""A reference summary (a text, split into its sentences) or its facts (a list, taken as they are)."""


# Words that open a sentence without being a name: a fact's first word is lower-cased only when it is one of these.
_OPENERS = frozenset(
    "a an the this that these those his her its their our my your he she it they we there here some many most more "
    "less few all both each every no not only also up after before during in on at by for from with about over "
    "under since when while if as almost nearly around two three four five six seven eight nine ten".split()
)


def clean_fact(fact: str) -> str:
    """A person's fact as running text: spacing collapsed, tokenised punctuation joined ("6 - 1 ." -> "6-1"), a
    first word that is not a name ("The", "Up") in lower case, the final period dropped."""
    text = " ".join(fact.split())
    text = re.sub(r" ([.,;:?!%)]|'s\b|n't\b)", r"\1", text)
    text = re.sub(r"([($]) ", r"\1", text)
    text = re.sub(r"(\w) - (?=\w)", r"\1-", text)
    text = text.rstrip(" .")
    first, _, rest = text.partition(" ")
    if first.lower() in _OPENERS:
        text = " ".join(filter(None, (first.lower(), rest)))
    return text


def is_reference(value: object) -> bool:
    """A non-empty text, or a non-empty list of texts."""
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def reference_facts(reference: Reference, language: str = "en") -> tuple[list[str], list[str]]:
    """A reference as key facts, as the pyramid method and FineSurE use one: a list is its facts as given; a
    text is split into its sentences (kept also as the highlights, for review). Returns (facts, highlights)."""
    if isinstance(reference, str):
        highlights = unique(sentences(reference, language))
        return highlights, highlights
    return unique(reference), []


def reference_question_set(
    source: str,
    reference: Reference,
    *,
    field: str,
    language: str,
    record_id: str | None = None,
    judge: Judge | None = None,
    log: StepLog | None = None,
) -> QuestionSet:
    """The set ``reference`` (read from the record field ``field``) gives ``source``, its facts checked against
    the source when a ``judge`` is given."""
    facts, highlights = reference_facts(reference, language)
    facts = unique([cleaned for cleaned in map(clean_fact, facts) if cleaned])
    dropped: list[DroppedQuestion] = []
    provenance: dict[str, Any] = {"origin": "reference", "field": field, "localsumm_version": __version__}
    if judge is not None:
        facts, dropped = keep_answerable_facts(judge, source, facts, log or StepLog())
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
            f"the source answers none of the reference's facts at {field!r}; write its questions another way"
        )
    return QuestionSet(
        source_sha256=source_sha256(source),
        id=record_id,
        language=language,
        key_facts=facts,
        facts_as="statements",
        highlights=highlights,
        dropped=dropped,
        provenance=provenance,
    )
