"""`localsumm bench compare`: two results files of the same items, with a scripted judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from localsumm import create_summarization_scorer
from localsumm.bench.compare import compare_results
from localsumm.runs.results import format_line

from .scripted import ScriptedJudge

SOURCE = "The plant opened in 1990. It employs 300 people."
SUMMARY = "The plant opened in 1990."


def results_file(path: Path, question_probabilities: list[float]) -> Path:
    judge = ScriptedJudge(
        questions=["Did the plant open in 1990?", "Does it employ 300 people?"],
        claim_probabilities=[0.9],
        answerable_probabilities=[0.9, 0.9],
        question_probabilities=question_probabilities,
    )
    result = create_summarization_scorer(judge, key_facts=False).run(input=SOURCE, output=SUMMARY)
    path.write_text(format_line({"id": "a"}, "a", result=result) + "\n", encoding="utf-8")
    return path


def test_a_verdict_that_crosses_its_threshold_and_the_drift_are_reported(tmp_path):
    first = results_file(tmp_path / "first.jsonl", [0.9, 0.52])
    second = results_file(tmp_path / "second.jsonl", [0.89, 0.46])
    comparison = compare_results(first, second)
    assert comparison.items == 1 and comparison.verdicts == 3 and comparison.verdicts_changed == 1
    assert comparison.largest_score_difference == pytest.approx(0.5)
    assert comparison.largest_probability_difference == pytest.approx(0.06)
    # Within 0.06 of the threshold (0.5): the crossed verdict (0.52); not the claim (0.9) nor the other question.
    assert comparison.near_threshold == 1
    table = comparison.markdown("first", "second")
    assert "| largest change of a verdict's probability | 0.0600 |" in table
    assert "| verdicts that close to their threshold | 1/3 (33.3%) |" in table
