"""Main-fact questions (QM), pre-registered in preregistered/main-fact-coverage-2026-12-07.md (issue 47; lab).

Writes a question file with the candidate's question prompts, through the product's own ``localsumm questions``
(the prompts patched in this process only, under their own step version, so no cached call of today's is reused):

    python benchmarks/question_candidates.py benchmarks/data/summeval.systems.dev.jsonl exp/qm.systems.jsonl

Then ``coverage_candidates.py ask QM systems exp/qm.systems.jsonl all`` asks its questions with today's verdict.
"""

# ruff: noqa: E501  (prompt texts are kept one line per paragraph, as in localsumm/summarization/prompts.py)
from __future__ import annotations

import sys

from localsumm.summarization import prompts

QM_WHOLE = """\
Write up to {n} short yes/no questions about the most important facts in the document, the most important first. Each question asks about one main fact (who did what, or what happened) and leaves out details that are not the point of that fact (a day, a place, a number, a title), is answered "yes" by the document, and makes sense without the document. Do not repeat a fact.{language}
Answer in JSON, for example: {example}"""

QM_PASSAGE = """\
Below is one passage of the document. Write {n} short yes/no questions about the most important facts stated in this passage, the most important first. Each question asks about one main fact (who did what, or what happened) and leaves out details that are not the point of that fact (a day, a place, a number, a title), is answered "yes" by the passage, and makes sense without the document (write names, not pronouns). Do not repeat a fact.

"""
QM_EXAMPLE = '{"questions": ["Did the museum reopen after a fire?", "Did Anna Berg design the new bridge?"]}'


def patch() -> None:
    prompts.QUESTIONS_TASK = QM_WHOLE
    prompts.PASSAGE_QUESTIONS_TASK = QM_PASSAGE
    prompts.LANGUAGE_TEXT["en"] = prompts.LanguageText(QM_EXAMPLE, prompts.LANGUAGE_TEXT["en"].claims_example)
    prompts.STEP_VERSIONS["questions"] = "candidate-QM-2026-12-07"
    prompts.PROMPT_VERSION = "candidate-QM-2026-12-07"


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    patch()
    from localsumm.cli import app

    app(["questions", sys.argv[1], "--out", sys.argv[2]])
