"""Results files of several systems, written as `localsumm eval` writes them, without a judge.

Each line holds a real ``SummarizationResult`` (the reader validates it), with the verdicts that give the
wanted alignment and coverage, written by ``runs.results.format_line``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from localsumm._version import __version__
from localsumm.runs.results import format_line
from localsumm.summarization import result as results
from localsumm.summarization.prompts import PROMPT_VERSION
from localsumm.summarization.result import SummarizationResult

QUESTIONS = ["Q1?", "Q2?", "Q3?", "Q4?"]


def result(
    alignment: float,
    coverage: float,
    *,
    questions: list[str] = QUESTIONS,
    claims: list[str] | None = None,
    scorable: bool = True,
    **provenance: Any,
) -> SummarizationResult:
    """A result whose alignment and coverage are ``alignment`` and ``coverage`` (multiples of 1/4): the first
    claims are supported, the first questions answered."""
    texts = claims or [f"c{i}" for i in range(4)]
    made = [
        results.AlignmentVerdict(claim=c, supported=i < alignment * len(texts), reason="") for i, c in enumerate(texts)
    ]
    answered = [i < coverage * len(questions) for i in range(len(questions))]
    asked = [results.CoverageVerdict(question=q, answered=a, reason="") for q, a in zip(questions, answered)]
    settings: dict[str, Any] = {
        "localsumm_version": __version__,
        "model": "judge",
        "model_path": None,
        "model_sha256": "a" * 64,
        "prompt_version": PROMPT_VERSION,
        "seed": 0,
        "thresholds": {"alignment": 0.5, "coverage": 0.5},
        "max_questions": 10,
        "scale": 1.0,
        "language": "en",
        "literal_check": True,
        "scoring": "count",
        "claims": "sentences",
        "question_check": True,
        "key_facts": False,
        "verification": "whole",
        "questions": {"origin": "generated"},
        "steps": [],
    }
    settings.update(provenance)
    return SummarizationResult(
        score=min(alignment, coverage),
        reason="",
        alignment_score=alignment,
        coverage_score=coverage,
        scorable=scorable,
        preprocess_step_result=results.PreprocessStepResult(alignment=made, questions=questions),
        analyze_step_result=results.AnalyzeStepResult(coverage=asked),
        provenance=results.Provenance(**settings),
    )


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def line(
    doc: int, summary: str, r: SummarizationResult | None, *, system: str | None = None, id: str | None = None
) -> str:
    fields: dict[str, Any] = {"id": id or f"d{doc}", "source": f"source text {doc}", "summary": summary}
    if system is not None:
        fields["system"] = system
    return format_line(fields, fields["id"], result=r, error=None if r else "the judge failed")


def system_file(path: Path, values: list[tuple[float, float]], *, system: str | None = None, **provenance: Any) -> Path:
    """One system's results: source i gets (alignment, coverage) ``values[i]``."""
    return write(
        path, [line(i, f"summary {i}", result(a, c, **provenance), system=system) for i, (a, c) in enumerate(values)]
    )
