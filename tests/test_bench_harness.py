"""`localsumm bench harness`: a real pytest session and real `localsumm score` processes on the small judge."""

from __future__ import annotations

import json

from localsumm.bench.harness import run_harness

from .conftest import SMALL, SOURCE, SUMMARY


def test_a_session_and_cli_calls_score_the_same_summaries_alike(tmp_path):
    data = tmp_path / "data.jsonl"  # the bundled example: under half the length of a SummEval source
    data.write_text(json.dumps({"id": "example", "source": SOURCE, "summary": SUMMARY}) + "\n", encoding="utf-8")
    report = run_harness(data, model=SMALL, items=1)
    for side in (report.pytest, report.cli):
        assert len(side.per_summary) == len(side.scores) == 1
        assert 0 < side.steps < side.wall
    # Same judge, same options, the same summaries: whether asserted in a test or scored by the CLI.
    assert report.pytest.scores == report.cli.scores
    table = report.markdown()
    assert "| scoring seconds per summary |" in table and "Scores: the same" in table
    assert json.loads(report.to_json())["cli"]["scores"] == report.cli.scores
