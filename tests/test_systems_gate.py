"""`localsumm compare --fail-if-worse` on results files written by the real engine.

The data: LEAD-3 (SummEval's system M0, three source sentences) on the first documents of the systems set,
asked each document's CNN/DailyMail highlights as key facts (a question file from the reference, so no
question step runs and both runs are asked the same facts). The candidate keeps each summary's first
sentence.

An identical candidate never fails: tested with the small judge on 6 documents. A truncated candidate fails:
tested with the default judge on all 12. Six were not enough (measured when 0.3.1 asked the facts as
questions): it gave the full and the cut summaries the same score on 2 of them (both 0: it found none of those
highlights in LEAD-3), and 4 sources that differ, all one way, give a one-sided permutation p of 1/16, which
the gate rightly does not call worse.

The small judge (SmolLM2-135M) cannot make the truncated candidate fail, and this test does not pretend it
can: on 8 of these documents it answered every generated coverage question of the full summaries "yes" and
most of the cut ones too (mean coverage 1.00 against 0.82), while its alignment verdicts sit at its
threshold (probabilities 0.42-0.66), so the score, the lower of the two, came out 0.71 against 0.70.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import ROOT, run_cli


def write_data(folder: Path, sources: int) -> tuple[Path, Path, Path]:
    """(baseline data, truncated candidate data, question file) of the first ``sources`` documents."""
    rows = [json.loads(line) for line in (ROOT / "benchmarks/data/summeval.systems.dev.jsonl").open()]
    lead = [r for r in rows if r["meta"]["system"] == "M0"][:sources]
    baseline, candidate = folder / "baseline.jsonl", folder / "candidate.jsonl"
    with baseline.open("w") as full, candidate.open("w") as cut:
        for r in lead:
            record = {
                "id": r["meta"]["doc_id"][-8:],
                "source": r["source"],
                "summary": r["summary"],
                "reference": r["meta"]["reference_summaries"][0],  # the article's highlights
            }
            full.write(json.dumps(record) + "\n")
            first = r["summary"].split(" . ")[0] + " ."
            assert len(first) < len(r["summary"])
            cut.write(json.dumps(dict(record, summary=first)) + "\n")
    questions = folder / "questions.jsonl"
    done = run_cli("questions", str(baseline), "--out", str(questions), "--from-reference", "reference")
    assert done.returncode == 0, done.stderr
    return baseline, candidate, questions


def evaluate(data: Path, out: Path, questions: Path, *model: str) -> Path:
    done = run_cli("eval", str(data), "--out", str(out), "--questions", str(questions), *model)
    assert done.returncode == 0, done.stderr
    assert sum(1 for _ in out.open()) == sum(1 for _ in data.open())
    return out


def test_an_identical_candidate_never_fails(tmp_path):
    baseline, _, questions = write_data(tmp_path, 6)
    small = ("--model", "smollm2-135m")
    first = evaluate(baseline, tmp_path / "first.jsonl", questions, *small)
    again = evaluate(baseline, tmp_path / "again.jsonl", questions, *small)
    done = run_cli("compare", str(first), str(again), "--fail-if-worse", "--json")
    assert done.returncode == 0, done.stderr
    assert "again is not worse than first" in done.stderr
    data = json.loads(done.stdout)
    (pair,) = [p for p in data["pairs"] if p["dimension"] == "score"]
    assert pair["paired"]["mean_difference"] == 0 and pair["paired"]["ties"] == 6
    assert data["systems"][0]["words"] == data["systems"][1]["words"] > 0
    assert not any("lengths differ" in note for note in data["notes"])


@pytest.mark.default_judge
def test_a_candidate_cut_to_its_first_sentence_fails(tmp_path):
    baseline, candidate, questions = write_data(tmp_path, 12)
    full = evaluate(baseline, tmp_path / "full.jsonl", questions)
    cut = evaluate(candidate, tmp_path / "cut.jsonl", questions)
    done = run_cli("compare", str(full), str(cut), "--fail-if-worse", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cut is worse than full with 95% confidence" in done.stderr
    data = json.loads(done.stdout)
    coverage = next(p for p in data["pairs"] if p["dimension"] == "coverage_score")
    assert coverage["first"] == "full" and coverage["paired"]["mean_difference"] > 0
    # Beside it, each system's length, and a note that the longer one is favoured for it.
    words = {row["system"]: row["words"] for row in data["systems"]}
    for name, data_file in (("full", baseline), ("cut", candidate)):
        summaries = [json.loads(line)["summary"] for line in data_file.open()]
        assert words[name] == pytest.approx(sum(len(s.split()) for s in summaries) / len(summaries))
    assert any(note.startswith(f"summary lengths differ: full {words['full']:.0f} words") for note in data["notes"])
    # Either order of the files: the gate asks about the second.
    assert run_cli("compare", str(cut), str(full), "--fail-if-worse").returncode == 0
