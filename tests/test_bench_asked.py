"""`localsumm bench asked`: which of a reference's facts a question set is about, on question sets whose answer is
known: the facts themselves (all asked), and questions about other particulars of the same story (none)."""

from __future__ import annotations

import json

import pytest

from localsumm.bench.asked import ASKED, asked_report, source_matches, weights
from localsumm.errors import InputError
from localsumm.runs.results import format_line

from .conftest import run_cli
from .systems_data import result, write

FACTS = ["Bayern Munich beat Porto.", "Bayern Munich reached the semi-finals.", "Bayern Munich won 6-1."]


def test_names_every_fact_repeats_weigh_less_than_a_facts_particulars():
    weight = weights(FACTS + ["Did Bayern Munich reach the semi-finals?"])
    assert weight["bayern"] < weight["finals"]
    (beat, semis, score) = source_matches("s", FACTS, ["Did Bayern Munich reach the semi-finals?"], [])
    assert semis.asked and semis.question == "Did Bayern Munich reach the semi-finals?"
    # The question names the club, as every fact does, but asks none of their particulars.
    assert not beat.asked and not score.asked and beat.share < ASKED


def results_of(tmp_path, question_sets: list[tuple[list[str], list[str]]]) -> object:
    """One scored line per source: its questions, then its key facts asked as statements."""
    lines = []
    for k, (questions, key_facts) in enumerate(question_sets):
        asked = questions + [f"Is it true that {f.rstrip('.')}?" for f in key_facts]
        scored = result(1.0, 1.0, questions=asked)
        pre = scored.preprocess_step_result.model_copy(update={"questions": questions})
        scored = scored.model_copy(update={"preprocess_step_result": pre})
        record = {"id": f"d{k}", "source": f"Story {k}.", "summary": "s", "meta": {"scus": FACTS}}
        lines.append(format_line(record, record["id"], result=scored))
    return write(tmp_path / "results.jsonl", lines)


def test_a_set_of_the_facts_asks_them_all_and_one_about_other_things_none(tmp_path):
    path = results_of(tmp_path, [([], FACTS), (["Did the fans sing?", "Was the game at the Allianz Arena?"], [])])
    report = asked_report(path, "meta.scus")
    assert report.sources == 2 and report.facts == 6
    assert report.asked == pytest.approx(0.5)  # source 0: 3 of 3; source 1: 0 of 3
    assert report.by_key_facts == pytest.approx(0.5) and report.by_questions == 0.0
    done = run_cli("bench", "asked", str(path), "--facts", "meta.scus", "--json", str(tmp_path / "asked.json"))
    assert done.returncode == 0, done.stderr
    assert "| 0.500 | 0.000 | 0.500 |" in done.stdout
    matches = json.loads((tmp_path / "asked.json").read_text())["matches"]
    assert [m["fact"] for m in matches] == FACTS * 2


def test_records_without_the_facts_are_a_clear_error(tmp_path):
    path = results_of(tmp_path, [([], FACTS)])
    with pytest.raises(InputError, match="line 1 has no list of facts at 'meta.missing'"):
        asked_report(path, "meta.missing")
    done = run_cli("bench", "asked", str(path), "--facts", "meta.missing")
    assert done.returncode == 3 and done.stderr.startswith("error: ") and "Traceback" not in done.stderr
