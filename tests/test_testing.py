"""localsumm.testing and the pytest plugin, in a real pytest session of a user's project on the real engine."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from localsumm.pytest_plugin import parse_options
from localsumm.summarization.scorer import SummarizationScorer
from localsumm.testing import SummaryAssertionError, assert_summary

from .conftest import ROOT
from .scripted import ScriptedJudge

USER_TESTS = """
from pathlib import Path
from localsumm.testing import assert_summary

ROOT = Path({root!r})
SOURCE = (ROOT / "examples" / "source.txt").read_text(encoding="utf-8")
SUMMARY = (ROOT / "examples" / "summary.txt").read_text(encoding="utf-8")

def test_passes(summarization_scorer):
    result = assert_summary(SOURCE, SUMMARY, min_score=0.0)
    print("SCORE", result.score)

def test_fails(summarization_scorer):
    assert_summary(SOURCE, SUMMARY, min_score=0.99)
"""


def test_a_failed_assertion_says_why():
    judge = ScriptedJudge(claim_probabilities=[0.9, 0.2], question_probabilities=[0.1])
    scorer = SummarizationScorer(judge)
    with pytest.raises(SummaryAssertionError) as e:
        assert_summary(
            "A is true. B is true.", "A is true. C is 42.", min_alignment=0.9, questions=["Is A true?"], scorer=scorer
        )
    text = str(e.value)
    assert text.startswith("summary below alignment 0.50 < 0.9")
    assert "claims not supported by the source (1):\n  - C is 42. (p=0.20, not in the source: 42)" in text
    assert "questions the summary does not answer (1):\n  - Is A true? (p=0.10)" in text
    assert e.value.result.alignment_score == 0.5


def test_bounds_not_given_are_not_checked():
    scorer = SummarizationScorer(ScriptedJudge(claim_probabilities=[0.9], question_probabilities=[0.0]))
    assert (
        assert_summary("A is true.", "A is true.", min_alignment=1.0, questions=["Is A true?"], scorer=scorer).score
        == 0
    )


def test_ini_options_are_typed():
    assert parse_options("max_questions=5 key_facts=false scale=2.5 claims=extracted") == {
        "max_questions": 5,
        "key_facts": False,
        "scale": 2.5,
        "claims": "extracted",
    }


def test_a_users_pytest_session_loads_the_judge_once_and_reports(tmp_path, cli):
    (tmp_path / "test_digest.py").write_text(USER_TESTS.format(root=str(ROOT)), encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\nlocalsumm_model = smollm2-135m\n", encoding="utf-8")
    report = tmp_path / "out" / "summaries.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-s",
            "-p",
            "no:cacheprovider",
            f"--localsumm-report={report}",
            "test_digest.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 1, done.stdout + done.stderr  # one test fails, as it should
    assert "1 failed, 1 passed" in done.stdout
    assert "SummaryAssertionError: summary below score" in done.stdout and "< 0.99" in done.stdout
    # The reason and the failing verdicts, readable in pytest's output.
    assert "is set by" in done.stdout
    assert "claims not supported by the source" in done.stdout or "questions the summary does not answer" in done.stdout
    lines = [json.loads(x) for x in report.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 2 and all(x["localsumm"]["status"] == "scored" for x in lines)
    assert report.with_suffix(".html").read_text(encoding="utf-8").startswith("<!doctype html>")
    # The same score as the CLI on the same judge and options.
    assert f"SCORE {cli['score']}" in done.stdout
    assert lines[0]["localsumm"]["score"] == cli["score"]


def test_a_bad_ini_option_fails_the_fixture_clearly(tmp_path):
    (tmp_path / "test_x.py").write_text("def test_x(summarization_scorer):\n    pass\n", encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\nlocalsumm_options = max_questions=0\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_x.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1 and "localsumm: max_questions must be at least 1, got 0" in done.stdout
    assert "Traceback" not in done.stdout
