"""Output types of the generating steps: bounded, so a constrained generation always ends.

Every string and list has a maximum length; the grammar built from these
schemas cannot produce text outside them, and pydantic validates what comes back.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

MAX_CLAIMS = 16
Claim = Annotated[str, StringConstraints(min_length=3, max_length=300)]
# A closed question: it opens with an auxiliary verb and ends with "?". Part of
# the grammar, so a small judge cannot answer instead of asking ("Yes, the ...").
QUESTION_PATTERN = (
    r"^(Is|Are|Was|Were|Do|Does|Did|Has|Have|Had|Will|Would|Can|Could|Should|Must|May|Might) "
    r"[^\"\\\x00-\x1f]{3,}\?$"
)
Question = Annotated[str, StringConstraints(pattern=QUESTION_PATTERN, max_length=200)]


@lru_cache(maxsize=None)
def claim_list(n: int = MAX_CLAIMS) -> type[BaseModel]:
    """A list of at most n claims. A small judge can loop on one claim; the bound ends the loop."""

    class ClaimList(BaseModel):
        model_config = ConfigDict(extra="forbid")
        claims: list[Claim] = Field(max_length=n)

    ClaimList.__name__ = f"ClaimList{n}"
    return ClaimList


ClaimList = claim_list(MAX_CLAIMS)


@lru_cache(maxsize=None)
def question_list(n: int) -> type[BaseModel]:
    """A list of 1..n questions; the bound is part of the schema, so part of the grammar."""

    class QuestionList(BaseModel):
        model_config = ConfigDict(extra="forbid")
        questions: list[Question] = Field(min_length=1, max_length=n)

    QuestionList.__name__ = f"QuestionList{n}"
    return QuestionList
