"""`localsumm questions` and `--questions` on the real engine (SmolLM2-135M): writing, reusing and refusing a
question file, as a user runs them (separate processes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localsumm import create_summarization_scorer
from localsumm.bench.compare import compare_results
from localsumm.summarization.questionset import QuestionFile, source_sha256
from localsumm.summarization.questionset.reference import clean_fact
from localsumm.text import repeats

from .conftest import EXAMPLE, ROOT, SOURCE, SUMMARY, run_cli

SMALL = ["--model", "smollm2-135m"]
SUMMEVAL = ROOT / "benchmarks" / "data" / "summeval.dev.jsonl"
REALSUMM = ROOT / "benchmarks" / "data" / "realsumm.dev.jsonl"
# Steps that write or check questions: none of them runs for a source its question file holds.
QUESTION_STEPS = {"questions", "highlights", "key_facts", "answerable"}


def records(path: Path, picks: list[int]) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(lines[i]) for i in picks]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def results(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[Path, Path, Path]:
    """Two summaries of one SummEval source and one of another; their question file; their results, generated."""
    folder = tmp_path_factory.mktemp("questions")
    data = write_jsonl(folder / "data.jsonl", records(SUMMEVAL, [0, 1, 8]))
    questions = folder / "questions.jsonl"
    done = run_cli("questions", str(data), "--out", str(questions), *SMALL)
    assert done.returncode == 0, done.stderr
    generated = folder / "generated.jsonl"
    done = run_cli("eval", str(data), "--out", str(generated), "--no-cache", *SMALL)
    assert done.returncode == 0, done.stderr
    return data, questions, generated


def test_the_file_holds_one_set_per_source_with_its_provenance(written):
    data, questions, _ = written
    lines = results(questions)
    rows = results(data)
    assert [q["source_sha256"] for q in lines] == [source_sha256(rows[0]["source"]), source_sha256(rows[2]["source"])]
    assert [q["id"] for q in lines] == [rows[0]["id"], rows[2]["id"]]
    for q in lines:
        assert q["language"] == "en" and q["questions"] and all(x.endswith("?") for x in q["questions"])
        p = q["provenance"]
        assert p["origin"] == "judge" and p["judge"] == "smollm2-135m" and len(p["model_sha256"]) == 64
        assert p["engine"].startswith("llama-cpp-python") and p["prompt_version"] and p["localsumm_version"]
        for d in q["dropped"]:  # by the check, with its probability, or as a repeat of an item asked
            assert 0 <= d["probability"] < 0.5 if d["probability"] is not None else d["reason"].startswith("asks again")


def test_reading_the_file_gives_the_same_questions_and_scores_as_generating_them(written, tmp_path):
    data, questions, generated = written
    reused = tmp_path / "reused.jsonl"
    done = run_cli("eval", str(data), "--out", str(reused), "--no-cache", "--questions", str(questions), *SMALL)
    assert done.returncode == 0, done.stderr
    for before, after in zip(results(generated), results(reused), strict=True):
        a, b = before["localsumm"]["result"], after["localsumm"]["result"]
        assert b["score"] == a["score"] and b["coverage_score"] == a["coverage_score"]
        assert b["preprocess_step_result"] == a["preprocess_step_result"]
        assert b["analyze_step_result"] == a["analyze_step_result"]
        origin = b["provenance"]["questions"]
        assert a["provenance"]["questions"] == {
            "origin": "generated",
            "file": None,
            "file_sha256": None,
            "line": None,
            "written_by": None,
        }
        assert origin["origin"] == "file" and origin["file_sha256"] == QuestionFile.load(questions).sha256
        assert not QUESTION_STEPS & {s["step"] for s in b["provenance"]["steps"]}
    comparison = compare_results(generated, reused)
    assert comparison.items == 3 and comparison.largest_score_difference == 0 and comparison.verdicts_changed == 0


@pytest.mark.default_judge
def test_a_fact_the_judge_asks_twice_is_asked_once(tmp_path):
    """On this SummEval source (Patrick Kluivert and Curacao) the default judge asks one fact as a question and again
    among its key facts, in other words (the AVX2 build, 2026-12-07): the set asks it once and says what it left out."""
    data = write_jsonl(tmp_path / "data.jsonl", records(SUMMEVAL, [32]))
    out = tmp_path / "questions.jsonl"
    done = run_cli("questions", str(data), "--out", str(out))
    assert done.returncode == 0, done.stderr
    (line,) = results(out)
    asked = line["questions"] + line["key_facts"]
    assert all(earlier is None for earlier in repeats(asked))
    again = [d for d in line["dropped"] if d["reason"].startswith("asks again what ")]
    assert again, line
    for d in again:
        named = d["reason"].removeprefix('asks again what "').removesuffix('" asks')
        assert d["probability"] is None and named in asked and repeats([named, d["question"]]) == [None, 0]
    # Scoring a summary of the source asks the same set, and shows what it left out and why.
    (record,) = records(SUMMEVAL, [32])
    source, summary = tmp_path / "source.txt", tmp_path / "summary.txt"
    source.write_text(record["source"], encoding="utf-8")
    summary.write_text(record["summary"], encoding="utf-8")
    done = run_cli("score", "--source", str(source), "--summary", str(summary), env={"COLUMNS": "400"})
    assert done.returncode == 0, done.stderr
    assert "or they ask again what another asks" in done.stdout and again[0]["reason"] in done.stdout
    result = json.loads(run_cli("score", "--source", str(source), "--summary", str(summary), "--json").stdout)
    pre = result["preprocess_step_result"]
    assert pre["questions"] + pre["key_facts"] == asked
    assert [d for d in pre["dropped_questions"] if d["probability"] is None] == again


def test_the_api_reads_a_question_file(written, small_judge):
    data, questions, generated = written
    row, first = results(data)[0], results(generated)[0]
    scorer = create_summarization_scorer(small_judge, questions=str(questions))
    result = scorer.run(input=row["source"], output=row["summary"])
    assert result.score == first["localsumm"]["score"]
    assert result.provenance.questions.origin == "file"  # type: ignore[union-attr]


def test_score_refuses_a_file_without_its_source_before_the_judge_loads(written):
    _, questions, _ = written
    done = run_cli(
        "score",
        *EXAMPLE,
        "--questions",
        str(questions),
        "--model",
        "no-such-judge",
    )
    assert done.returncode == 3, done.stderr
    assert "holds no question set for this source" in done.stderr and "Traceback" not in done.stderr


def test_eval_refuses_another_datas_file_and_keeps_what_was_written(written, tmp_path):
    _, questions, generated = written
    other = write_jsonl(tmp_path / "other.jsonl", [{"id": "x", "source": SOURCE, "summary": SUMMARY}])
    out = tmp_path / "out.jsonl"
    out.write_text(json.dumps({"id": "y", "localsumm": {"status": "failed", "error": "earlier"}}) + "\n")
    before = out.read_bytes()
    done = run_cli(
        "eval", str(other), "--out", str(out), "--resume", "--questions", str(questions), "--model", "no-such-judge"
    )
    assert done.returncode == 3 and "none of them a source of" in done.stderr and "Traceback" not in done.stderr
    assert out.read_bytes() == before


def test_eval_refuses_a_source_edited_since_its_questions_were_written(written, tmp_path):
    data, questions, _ = written
    rows = results(data)
    rows[2]["source"] = rows[2]["source"].replace(" the ", " a ", 1)
    edited = write_jsonl(tmp_path / "edited.jsonl", rows)
    done = run_cli("eval", str(edited), "--out", str(tmp_path / "out.jsonl"), "--questions", str(questions), *SMALL)
    assert done.returncode == 3, done.stderr
    assert f"line 3 (id {rows[2]['id']}): the source has changed since" in done.stderr
    assert source_sha256(rows[2]["source"])[:16] in done.stderr
    assert not (tmp_path / "out.jsonl").exists()


def test_questions_only_refuses_a_source_the_file_lacks(written, tmp_path):
    data, questions, _ = written
    rows = results(data) + [{"id": "new", "source": SOURCE, "summary": SUMMARY}]
    more = write_jsonl(tmp_path / "more.jsonl", rows)
    done = run_cli(
        "eval",
        str(more),
        "--out",
        str(tmp_path / "out.jsonl"),
        "--questions",
        str(questions),
        "--questions-only",
        "--model",
        "no-such-judge",
    )
    assert done.returncode == 3 and "line 4 (id new)" in done.stderr and "--questions-only" in done.stderr


def test_resume_refuses_another_version_of_the_question_file(written, tmp_path):
    data, questions, generated = written
    out = tmp_path / "out.jsonl"
    out.write_text(generated.read_text())  # generated questions: asking the file's now would mix the two
    done = run_cli("eval", str(data), "--out", str(out), "--resume", "--questions", str(questions), *SMALL)
    assert done.returncode == 3 and "whose questions were generated" in done.stderr


def test_a_reference_gives_the_key_facts_without_loading_a_judge(tmp_path):
    data = write_jsonl(tmp_path / "realsumm.jsonl", records(REALSUMM, [0, 1]))  # one source, two summaries
    out = tmp_path / "q.jsonl"
    done = run_cli(
        "questions", str(data), "--out", str(out), "--from-reference", "meta.keyfacts_scus", "--model", "no-such-judge"
    )
    assert done.returncode == 0, done.stderr
    (line,) = results(out)
    facts = records(REALSUMM, [0])[0]["meta"]["keyfacts_scus"]
    # Cleaned of their tokenised spacing, and asked as statements that may be made in any words.
    assert line["key_facts"] == [clean_fact(f) for f in facts] and line["questions"] == []
    assert line["facts_as"] == "statements" and "Bayern Munich won 6-1" in line["key_facts"]
    assert line["provenance"]["origin"] == "reference" and line["provenance"]["field"] == "meta.keyfacts_scus"
    missing = run_cli("questions", str(data), "--out", str(tmp_path / "m.jsonl"), "--from-reference", "meta.nothing")
    assert missing.returncode == 1 and "has no reference at 'meta.nothing'" in missing.stderr


def test_a_reference_can_be_checked_against_its_source(tmp_path):
    data = write_jsonl(tmp_path / "realsumm.jsonl", records(REALSUMM, [0]))
    out = tmp_path / "q.jsonl"
    done = run_cli(
        "questions", str(data), "--out", str(out), "--from-reference", "meta.keyfacts_scus", "--question-check", *SMALL
    )
    assert done.returncode == 0, done.stderr
    (line,) = results(out)
    facts = records(REALSUMM, [0])[0]["meta"]["keyfacts_scus"]
    assert len(line["key_facts"]) + len(line["dropped"]) == len(facts)
    assert line["provenance"]["question_check"] is True and line["provenance"]["judge"] == "smollm2-135m"


def test_bench_quality_asks_the_datasets_own_facts(tmp_path):
    done = run_cli(
        "bench",
        "quality",
        "--data",
        str(REALSUMM),
        "--limit",
        "2",
        "--questions",
        "reference",
        "--out",
        str(tmp_path),
        "--no-cache",
        *SMALL,
    )
    assert done.returncode == 0, done.stderr
    scored = results(tmp_path / "realsumm.smollm2-135m.reference-questions.jsonl")
    facts = records(REALSUMM, [0])[0]["meta"]["keyfacts_scus"]
    for line in scored:
        result = line["localsumm"]["result"]
        assert result["provenance"]["questions"]["origin"] == "file"
        assert len(result["analyze_step_result"]["coverage"]) == len(facts)
        # Asked on the real engine in the statement wording, under a step of its own.
        assert [s["step"] for s in result["provenance"]["steps"]][-1] == "statements"
        assert all(v["question"].endswith(".") for v in result["analyze_step_result"]["coverage"])
    assert "| realsumm | label_coverage | coverage | pearson |" in done.stdout
