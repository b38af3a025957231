"""Batch evaluation: run_evals semantics, record files, resume, and the eval command for real."""

from __future__ import annotations

import dataclasses
import json
import pickle

import pytest

import localsumm
from localsumm import create_summarization_scorer
from localsumm.config import Options
from localsumm.errors import InputError, LocalsummWarning
from localsumm.runs.batch import run_evals
from localsumm.runs.evaluate import evaluate_file
from localsumm.runs.records import read_records
from localsumm.runs.results import done_ids

from .conftest import SOURCE, SUMMARY, interrupt_after_first_line, run_cli
from .scripted import ScriptedJudge


def scripted(n_items: int, claim_p: float = 0.9, question_p: float = 0.9) -> ScriptedJudge:
    return ScriptedJudge(
        claims=["One claim here."],
        questions=["Is it one?", "Is it two?"],
        claim_probabilities=[claim_p] * n_items,
        question_probabilities=[question_p] * 2 * n_items,
    )


def test_run_evals_averages_per_scorer_and_reports_failures_apart():
    scorer = create_summarization_scorer(scripted(3), claims="extracted")
    seen = []
    data = [
        {"id": "a", "input": SOURCE, "output": SUMMARY},
        {"id": "b", "input": {"inputMessages": []}, "output": SUMMARY},  # no source: fails
        {"id": "c", "input": SOURCE, "output": SUMMARY},
    ]
    run = run_evals(data, [scorer], on_item_complete=seen.append)
    assert run.item_count == 3
    assert [i.id for i in seen] == ["a", "c", "b"]  # the items of one source together
    assert [i.id for i in run.items] == ["a", "b", "c"]
    assert "no user message" in run.items[1].errors["summarization"]
    assert run.scores["summarization"] == 1.0  # the failure is not counted as 0
    assert run.failed("summarization") == 1


def test_a_sources_summaries_are_scored_one_after_another_whatever_the_order_of_the_data():
    """A file sorted by system visits every source again for every system: scored in that order, the judge would
    read each source again once its prefix had left the KV cache."""
    other = SOURCE + " The museum also holds a collection of maps."
    scorer = create_summarization_scorer(scripted(4), claims="extracted")
    data = [
        {"id": f"{doc}-{system}", "input": source, "output": SUMMARY}
        for system in ("s1", "s2")
        for doc, source in (("a", SOURCE), ("b", other))
    ]
    seen = []
    run = run_evals(data, [scorer], on_item_complete=seen.append)
    assert [i.id for i in seen] == ["a-s1", "a-s2", "b-s1", "b-s2"]
    assert [i.id for i in run.items] == ["a-s1", "b-s1", "a-s2", "b-s2"] and not any(i.errors for i in run.items)
    reads_other = [other in c.prompt for c in scorer.judge.calls if c.step in ("questions", "alignment")]
    assert reads_other == sorted(reads_other) and any(reads_other)  # once the judge reads b, it never reads a again


def test_run_evals_calls_the_target_for_items_without_output():
    scorer = create_summarization_scorer(scripted(1), claims="extracted")
    run = run_evals([{"input": SOURCE}], [scorer], target=lambda source: SUMMARY)
    assert run.items[0].output == SUMMARY and run.scores["summarization"] == 1.0


def test_an_item_keeps_one_shape_from_its_data_line_to_its_result(tmp_path):
    """Frozen and picklable (a Ray worker gets it as it is); the result holds the very item that was read."""
    data = tmp_path / "data.jsonl"
    record = {"id": "a", "source": SOURCE, "summary": SUMMARY, "questions": ["Is it one?"], "meta": {"k": 1}}
    data.write_text(json.dumps(record) + "\n")
    (item,) = read_records(data)
    assert (item.line, item.fields, item.input, item.questions) == (1, record, SOURCE, ["Is it one?"])
    assert pickle.loads(pickle.dumps(item)) == item
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.id = "b"  # type: ignore[misc]
    run = run_evals([item], [create_summarization_scorer(scripted(1), claims="extracted")])
    (done,) = run.items
    assert done.item is item and done.id == "a" and not done.errors
    assert pickle.loads(pickle.dumps(done)) == done


def test_malformed_records_are_reported_with_file_and_line(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text(
        json.dumps({"id": "ok", "source": SOURCE, "summary": SUMMARY}) + "\n"
        "not json\n"
        "[1, 2]\n"
        + json.dumps({"id": "nosummary", "source": SOURCE})
        + "\n"
        + json.dumps({"source": SOURCE, "summary": SUMMARY})
        + "\n"
    )
    records = list(read_records(data))
    assert records[0].error is None
    assert f"{data}: line 2 is not JSON" in records[1].error
    assert "line 3 is a JSON list, not an object" in records[2].error
    assert "line 4 (id nosummary) has no summary" in records[3].error
    assert "line 5 has no id" in records[4].error


def test_eval_file_writes_every_record_once_and_resumes(tmp_path):
    data = tmp_path / "data.jsonl"
    rows = [{"id": f"i{n}", "source": SOURCE, "summary": SUMMARY, "system": f"s{n}"} for n in range(4)]
    rows.insert(2, {"id": "i1", "source": SOURCE, "summary": SUMMARY})  # duplicate id
    data.write_text("".join(json.dumps(r) + "\n" for r in rows) + "oops\n")
    out = tmp_path / "out.jsonl"
    with pytest.warns(LocalsummWarning, match=r"1 line ignored, i1 \(line \d\); the first complete line"):
        summary = evaluate_file(data, out, model=scripted(10))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(line["id"] for line in lines) == sorted(["i0", "i1", "i1", "i2", "i3", "line-6"])
    # The repeated id's failure is in the file; the summary counts i1 once, by its result.
    assert summary.items == 5 and summary.scored == 4 and summary.failed == 1
    assert {line["system"] for line in lines if line.get("system")} == {"s0", "s1", "s2", "s3"}  # carried through
    dup = [line for line in lines if line["id"] == "i1" and line["localsumm"]["status"] == "failed"]
    assert "repeats id i1 (first on line 2)" in dup[0]["localsumm"]["error"]

    # A crash mid-write leaves a partial line: resume drops it and scores that item again.
    kept = out.read_text().splitlines(keepends=True)
    last = json.loads(kept[-1])
    out.write_text("".join(kept[:-1]) + kept[-1][:25])
    assert last["id"] not in done_ids(out)
    with pytest.warns(LocalsummWarning, match="1 line ignored"):
        evaluate_file(data, out, resume=True, model=scripted(10))
    again = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(line["id"] for line in again) == sorted(line["id"] for line in lines)


def half_scored(tmp_path):
    """A data file of two records and a results file holding the first one's result, to resume."""
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({"id": f"i{n}", "source": SOURCE, "summary": SUMMARY}) + "\n" for n in range(2)))
    out = tmp_path / "out.jsonl"
    evaluate_file(data, out, model=scripted(10), limit=1)
    return data, out


def test_resume_refuses_to_mix_settings_a_result_depends_on(tmp_path):
    data, out = half_scored(tmp_path)
    before = out.read_text()
    with pytest.raises(InputError, match="judged with --claims sentences .*not --claims extracted"):
        evaluate_file(data, out, resume=True, model=scripted(10), claims="extracted")
    with pytest.raises(InputError, match="judged with --literal-check .*resume it with --literal-check"):
        evaluate_file(data, out, resume=True, model=scripted(10), literal_check=False)
    with pytest.raises(InputError, match="--max-questions 10 .*not --max-questions 5"):
        evaluate_file(data, out, resume=True, model=scripted(10), options=Options(max_questions=5))
    with pytest.raises(InputError, match="judged with --key-facts .*not --no-key-facts"):
        evaluate_file(data, out, resume=True, model=scripted(10), key_facts=False)
    assert out.read_text() == before
    evaluate_file(data, out, resume=True, model=scripted(10))  # the same unit resumes
    assert len(out.read_text().splitlines()) == 2


def test_resume_refuses_to_mix_pipelines(tmp_path):
    """Results of another package or prompt version may score the same input differently."""
    data, out = half_scored(tmp_path)
    written = out.read_text()
    provenance = json.loads(written)["localsumm"]["result"]["provenance"]
    assert provenance["localsumm_version"] == localsumm.__version__
    for field, earlier, message in (
        ("localsumm_version", "0.1.0", f"results of localsumm 0.1.0 .*this is localsumm {localsumm.__version__}"),
        ("prompt_version", "2026-11-30.4", f"with prompts 2026-11-30.4 .*with prompts {provenance['prompt_version']}"),
    ):
        line = json.loads(written)
        line["localsumm"]["result"]["provenance"][field] = earlier
        out.write_text(json.dumps(line) + "\n")
        before = out.read_text()
        with pytest.raises(InputError, match=message):
            evaluate_file(data, out, resume=True, model=scripted(10))
        assert out.read_text() == before
    out.write_text(written)
    evaluate_file(data, out, resume=True, model=scripted(10))  # the same pipeline resumes
    assert len(out.read_text().splitlines()) == 2


def test_resume_refuses_another_judge(tmp_path):
    data, out = half_scored(tmp_path)
    before = out.read_text()
    other = scripted(10)
    other.info = dataclasses.replace(other.info, name="another-judge")  # the local check: before any item
    with pytest.raises(InputError, match="judged by scripted .*not another-judge; resume it with --model scripted"):
        evaluate_file(data, out, resume=True, model=other)
    assert out.read_text() == before


def test_eval_refuses_to_overwrite_results_without_resume(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text('{"id": "x"}\n')
    with pytest.raises(Exception, match="already holds results"):
        evaluate_file(tmp_path / "missing.jsonl", out, model=scripted(1))
    assert out.read_text() == '{"id": "x"}\n'


def test_eval_cli_for_real_with_interrupt_and_resume(tmp_path):
    """The real engine, a real Ctrl-C: nothing lost, nothing duplicated."""
    data = tmp_path / "data.csv"
    clean = SOURCE.replace(chr(34), "")
    # Distinct sources (no shared question sets), so that each item takes seconds and the interrupt lands mid-run.
    data.write_text("id,source,summary\n" + "".join(f'r{n},"Report {n}. {clean}","{SUMMARY}"\n' for n in range(3)))
    out = tmp_path / "out.jsonl"
    # --no-cache: answers cached by an earlier run would finish before the interrupt.
    args = ["eval", str(data), "--out", str(out), "--model", "smollm2-135m", "--no-cache"]
    proc = interrupt_after_first_line(args, out)
    first = out.read_text().splitlines()
    assert proc.returncode == 130, proc.stderr
    assert 1 <= len(first) < 3
    done = run_cli(
        "eval",
        str(data),
        "--out",
        str(out),
        "--model",
        "smollm2-135m",
        "--resume",
        "--no-cache",
        "--fail-under",
        "1.01",
    )
    assert done.returncode == 1 and "below --fail-under" in done.stderr  # the CI gate
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(line["id"] for line in lines) == ["r0", "r1", "r2"]
    assert all(line["localsumm"]["status"] == "scored" for line in lines)
    assert "mean" in done.stderr and "failed: 0" in done.stderr


def test_eval_and_report_work_with_no_network_at_all(tmp_path, no_network):
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"id": "a", "source": SOURCE, "summary": SUMMARY}) + "\n")
    out, page = tmp_path / "out.jsonl", tmp_path / "page.html"
    done = run_cli("eval", str(data), "--out", str(out), "--model", "smollm2-135m", **no_network)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["localsumm"]["status"] == "scored"
    done = run_cli("report", str(out), "--html", str(page), **no_network)
    assert done.returncode == 0, done.stderr
    assert "<html" in page.read_text()
