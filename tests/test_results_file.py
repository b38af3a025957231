"""Nothing counted twice: every reader of a results file keeps one line per id (runs.results.unique_lines)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from localsumm.bench.compare import compare_results
from localsumm.errors import InputError, LocalsummWarning
from localsumm.runs.evaluate import evaluate_file, summarise
from localsumm.runs.results import ResultLine, read_results, unique_lines

from .conftest import SOURCE, SUMMARY, run_cli
from .scripted import ScriptedJudge


def line(number: int, id: str | None, run: str | None, score: float = 0.5, seconds: float = 1.0, **ours: Any):
    """A scripted results line: a scored item unless ``status`` says otherwise."""
    verdict = {"status": "scored", "error": None, "score": score, "run": run, **ours}
    verdict["result"] = {
        "score": score,
        "provenance": {"model": "m", "steps": [{"step": "claims", "seconds": seconds}]},
    }
    if run is None:
        del verdict["run"]  # written before lines named their run
    return ResultLine({"id": id, "source": "s", "localsumm": verdict}, number)


def test_the_policy_keeps_the_first_complete_line_and_refuses_a_disagreement():
    # Identical results from two runs (timings aside), and from unstamped lines: the first is kept.
    lines = [line(1, "a", "r1", seconds=1.0), line(2, "b", None), line(3, "a", "r2", seconds=9.0), line(4, "b", None)]
    kept, warning = unique_lines(lines, "out.jsonl")
    assert [x.number for x in kept] == [1, 2]
    assert warning == (
        "out.jsonl repeats ids written before: 2 lines ignored, a (line 3), b (line 4); the first complete line of "
        "each id (its result, if one has) is kept"
    )

    # One run: a record whose id the data repeats is reported as failed before the first one's result.
    failed = line(1, "a", "r1", status="failed", error="line 3 repeats id a (first on line 2)")
    kept, warning = unique_lines([failed, line(2, "a", "r1", score=0.9), line(3, "c", "r1")], "out.jsonl")
    assert [x.number for x in kept] == [2, 3] and kept[0].score == 0.9
    assert warning is not None and "1 line ignored, a (line 1)" in warning

    # Two runs that judged an item differently: no reader can tell which is right.
    lines = [line(1, "a", "r1"), line(2, "b", "r1", score=0.2), line(3, "b", "r2", score=0.8), line(4, "a", None)]
    with pytest.raises(InputError, match=r"different results for the same id, from different runs: b \(lines 2, 3\);"):
        unique_lines(lines, "out.jsonl")
    # ...unstamped lines included, and a failure against a result.
    with pytest.raises(InputError, match=r": a \(lines 1, 2\)"):
        unique_lines([line(1, "a", None, score=0.2), line(2, "a", None, score=0.8)], "out.jsonl")
    with pytest.raises(InputError, match=r": a \(lines 1, 2\)"):
        unique_lines([line(1, "a", "r1"), line(2, "a", "r2", status="failed", error="boom")], "out.jsonl")

    # No repeated id: every line, no warning; lines without an id are never merged.
    lines = [line(1, "a", "r1"), line(2, None, "r1"), line(3, None, "r1")]
    assert unique_lines(lines, "out.jsonl") == (lines, None)


def judge(items: int) -> ScriptedJudge:
    # Three sentences a summary: each item's alignment is its own share of supported sentences.
    claims = [p for n in range(items) for p in ((0.9, 0.9, 0.9), (0.9, 0.1, 0.1), (0.9, 0.9, 0.1))[n % 3]]
    return ScriptedJudge(
        questions=["Is it one?", "Is it two?"], claim_probabilities=claims, question_probabilities=[0.9] * 2
    )


@pytest.fixture
def scored(tmp_path) -> tuple[Path, Path]:
    """A data file of 6 records and the results file of one run over it."""
    data, out = tmp_path / "data.jsonl", tmp_path / "once.jsonl"
    data.write_text("".join(json.dumps({"id": f"i{n}", "source": SOURCE, "summary": SUMMARY}) + "\n" for n in range(6)))
    evaluate_file(data, out, model=judge(6))
    return data, out


def written_twice(once: Path, to: Path, *, stamped: bool = True, change: str | None = None) -> Path:
    """The file of the issue: a second run appended every id again (its own stamp and timings; unstamped, as
    written before lines named their run). ``change``: that id's second result scored otherwise."""
    first = [json.loads(text) for text in once.read_text().splitlines()]
    second = json.loads(json.dumps(first))
    for fields in second:
        fields["localsumm"]["run"] = "another-run"
        for step in fields["localsumm"]["result"]["provenance"]["steps"]:
            step["seconds"] += 1.5
        if fields["id"] == change:
            fields["localsumm"]["score"] = fields["localsumm"]["result"]["score"] = 0.99
    if not stamped:
        for fields in first + second:
            del fields["localsumm"]["run"]
    to.write_text("".join(json.dumps(fields) + "\n" for fields in first + second))
    return to


@pytest.mark.parametrize("stamped", [True, False], ids=["stamped", "unstamped"])
def test_a_file_with_every_one_of_6_ids_twice_counts_each_once(scored, tmp_path, stamped):
    data, once = scored
    twice = written_twice(once, tmp_path / "twice.jsonl", stamped=stamped)
    assert len(twice.read_text().splitlines()) == 12
    expected = summarise(once)
    assert expected.items == 6 and len(set(expected.dimensions["score"])) > 1  # the items score differently

    with pytest.warns(LocalsummWarning, match=r"6 lines ignored, i0 \(line 7\), i1 \(line 8\), .* and 2 more"):
        summary = summarise(twice)  # eval's summary table
    assert (summary.items, summary.scored, summary.mean_score) == (6, 6, expected.mean_score)
    assert summary.dimensions == expected.dimensions
    with pytest.warns(LocalsummWarning):
        assert [x.id for x in read_results(twice)] == [f"i{n}" for n in range(6)]
    with pytest.warns(LocalsummWarning):
        assert compare_results(twice, once).items == 6  # bench compare
    # Resume finds every id done: nothing is scored or written again.
    before = twice.read_text()
    with pytest.warns(LocalsummWarning, match="6 lines ignored"):
        assert evaluate_file(data, twice, resume=True, model=judge(0)).items == 6
    assert twice.read_text() == before

    # localsumm report, as a user runs it: the warning is one line, and the page counts 6 items.
    done = run_cli("report", str(twice), "--html", str(tmp_path / "page.html"))
    assert done.returncode == 0, done.stderr
    warnings = [text for text in done.stderr.splitlines() if text.startswith("warning: ")]
    assert len(warnings) == 1 and "6 lines ignored" in warnings[0] and "Traceback" not in done.stderr
    assert "(6 items)" in done.stderr


def test_duplicates_that_disagree_are_refused_naming_the_ids_and_lines(scored, tmp_path):
    data, once = scored
    twice = written_twice(once, tmp_path / "twice.jsonl", change="i3")
    with pytest.raises(InputError, match=r"different results for the same id, from different runs: i3 \(lines 4, 10\)"):
        summarise(twice)
    with pytest.raises(InputError, match=r"i3 \(lines 4, 10\)"):
        compare_results(twice, once)
    before = twice.read_text()
    with pytest.raises(InputError, match=r"i3 \(lines 4, 10\)"):  # resume stops before writing
        evaluate_file(data, twice, resume=True, model=judge(0))
    assert twice.read_text() == before

    done = run_cli("report", str(twice), "--html", str(tmp_path / "page.html"))
    assert done.returncode == 3 and done.stderr.startswith("error: ") and "Traceback" not in done.stderr
    assert "i3 (lines 4, 10)" in done.stderr and len(done.stderr.strip().splitlines()) <= 3
    assert not (tmp_path / "page.html").exists()
