"""Output types of the generating steps: bounded, so a constrained generation always ends.

Every string and list has a maximum length; the grammar built from these
schemas cannot produce text outside them, and pydantic validates what comes back.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model

MAX_CLAIMS = 16
Claim = Annotated[str, StringConstraints(min_length=3, max_length=300)]
# A closed question: it opens with an auxiliary verb and ends with "?". Part of
# the grammar, so a small judge cannot answer instead of asking ("Yes, the ...").
QUESTION_PATTERN = (
    r"^(Is|Are|Was|Were|Do|Does|Did|Has|Have|Had|Will|Would|Can|Could|Should|Must|May|Might) "
    r"[^\"\\\x00-\x1f]{3,}\?$"
)
_TEXT = r"[^\"\\\x00-\x1f]"
# No sentence end inside a question: asked in Chinese, the default judge copied the whole document
# into its first "question" until the token cap; one sentence is as far as a copy can now go.
_CLAUSE = r"[^\"\\\x00-\x1f。！？!?；;，,]"
# Nor a question word: "山溪啤酒厂由谁创办的吗？" asks an open question with a yes/no ending.
_ZH_CLAUSE = r"[^\"\\\x00-\x1f。！？!?；;，,谁哪什呢]"
# Closed questions in other languages, by their grammar: Chinese ends in 吗 or asks 是否, Japanese ends
# in か; elsewhere only the question mark is required.
QUESTION_PATTERNS: dict[str, str] = {
    "en": QUESTION_PATTERN,
    "zh": rf"^({_ZH_CLAUSE}{{2,}}吗|{_ZH_CLAUSE}*是否{_ZH_CLAUSE}{{2,}})[？?]$",
    "ja": rf"^{_CLAUSE}{{2,}}か[？?]$",
}
ANY_QUESTION_PATTERN = rf"^{_TEXT}{{3,}}[?？]$"
Question = Annotated[str, StringConstraints(pattern=QUESTION_PATTERN, max_length=200)]


@cache
def claim_list(n: int = MAX_CLAIMS) -> type[BaseModel]:
    """A list of at most n claims. A small judge can loop on one claim; the bound ends the loop."""

    class ClaimList(BaseModel):
        model_config = ConfigDict(extra="forbid")
        claims: list[Claim] = Field(max_length=n)

    ClaimList.__name__ = f"ClaimList{n}"
    return ClaimList


ClaimList = claim_list(MAX_CLAIMS)


@cache
def question_list(n: int, language: str = "en") -> type[BaseModel]:
    """A list of 1..n questions in ``language``; the bound is part of the schema, so part of the grammar."""
    pattern = QUESTION_PATTERNS.get(language, ANY_QUESTION_PATTERN)
    item = Question if language == "en" else Annotated[str, StringConstraints(pattern=pattern, max_length=200)]

    class QuestionList(BaseModel):
        model_config = ConfigDict(extra="forbid")
        questions: list[item] = Field(min_length=1, max_length=n)  # type: ignore[valid-type]

    QuestionList.__name__ = f"QuestionList{n}" if language == "en" else f"QuestionList{n}{language.upper()}"
    return QuestionList


# The key facts (``Options.key_facts``). One sentence per item is part of the grammar: without it the
# 1.5B judge ran one highlight "sentence" on, repeating itself, to its token cap (string lengths are
# not in the grammar: localsumm.backends.grammar). A fact has no comma either, so it cannot be a
# highlight copied whole.
HIGHLIGHTS = 3
# The final full stop is "[.]", not "\.": llama-cpp-python's server turns "\." into a grammar it
# cannot parse and dies (SIGSEGV), so a hosted judge behind it could never write highlights.
SENTENCE_PATTERN = r"^[^\"\\\x00-\x1f.!?]{10,}[.]$"
FACT_PATTERN = r"^[^\"\\\x00-\x1f.!?;,]{6,}[.]$"
MAX_KEY_FACTS = 10


def _sentences(field: str, pattern: str, n: int, name: str) -> type[BaseModel]:
    """A list of 1..n sentences matching ``pattern``, under ``field``."""
    item = Annotated[str, StringConstraints(pattern=pattern, max_length=300)]
    fields: dict[str, Any] = {field: (list[item], Field(min_length=1, max_length=n))}
    model = create_model(name, __config__=ConfigDict(extra="forbid"), **fields)
    return model


@cache
def highlight_list(n: int = HIGHLIGHTS) -> type[BaseModel]:
    return _sentences("summary", SENTENCE_PATTERN, n, f"HighlightList{n}")


@cache
def key_fact_list(n: int = MAX_KEY_FACTS) -> type[BaseModel]:
    return _sentences("facts", FACT_PATTERN, n, f"KeyFactList{n}")
