"""The fault campaign's fast subset (benchmarks/faults.py runs it whole): each fault ends in a clear error or a
clean recovery, with every id once; hostile records are reported by line; no run ends with a traceback."""

from __future__ import annotations

import random
import re

import pytest

from localsumm.runs.records import read_records

from .conftest import EXAMPLE, SMALL, load_script, run_cli

faults = load_script("benchmarks/faults.py")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    return faults.Campaign(tmp_path_factory.mktemp("faults"), seed=0)


def assert_passed(row) -> None:
    if row.skipped:
        pytest.skip(row.skipped)
    assert not row.problems, row.outcome
    assert row.lost == row.duplicated == 0
    assert row.trials >= 1


@pytest.mark.engine
def test_sigkill_during_eval_and_questions_then_resume_writes_every_id_once(campaign):
    for row in (faults.kill_eval(campaign, kills=2, items=3), faults.kill_questions(campaign, kills=1, items=2)):
        assert_passed(row)
        assert row.recoveries >= 1


@pytest.mark.engine
def test_a_full_disk_is_a_clear_error_and_resume_completes(campaign):
    row = faults.full_disk(campaign, items=4)
    assert_passed(row)
    assert row.errors == 1 and row.recoveries == 1


@pytest.mark.engine
def test_a_read_only_folder_is_a_clear_error(campaign):
    row = faults.read_only(campaign, items=2)
    assert_passed(row)
    assert row.errors == 1 and row.recoveries == 1


@pytest.mark.engine
def test_an_input_cut_or_a_question_file_edited_mid_run(campaign):
    for row in (faults.truncated_input(campaign, items=4), faults.edited_questions(campaign, items=3)):
        assert_passed(row)
        assert row.errors == 1 and row.recoveries >= 1


@pytest.mark.engine
def test_a_judge_file_changed_after_download_is_refused(campaign):
    row = faults.changed_model(campaign)
    assert_passed(row)
    assert row.errors == row.trials == 2


@pytest.mark.engine
def test_hostile_records_are_each_reported_by_line_and_the_good_ones_scored(campaign):
    n = 2 * len(faults.HOSTILE) + 1
    row, by_kind = faults.hostile_input(campaign, n, good=3, huge=100_000)
    assert_passed(row)
    assert row.errors == n and set(by_kind) == {*faults.HOSTILE, "5 MB summary"}


def test_every_hostile_kind_is_an_error_of_its_line_when_read(tmp_path):
    """Without a judge: all but the huge summary (refused when scored: it does not fit) fail as they are read."""
    data = tmp_path / "hostile.jsonl"
    hostile, good = faults.hostile_file(data, random.Random(1), 3 * len(faults.HOSTILE) + 1, 5, huge=1000)
    records = {r.line: r for r in read_records(data)}
    for number, kind in hostile.items():
        error = records[number].error
        if kind == "5 MB summary":
            assert error is None
        else:
            assert error is not None and re.search(rf": line {number}\b", error), (kind, error)
    assert {r.id for r in records.values() if r.error is None and r.id in good} == good


@pytest.mark.engine
def test_no_command_ends_with_an_exception_at_shutdown():
    """llama-cpp-python's Llama.__del__ fails at interpreter shutdown if a judge outlives its module: the engines
    are closed at exit first."""
    done = run_cli("score", *EXAMPLE, "--model", SMALL)
    assert done.returncode == 0, done.stderr
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr
