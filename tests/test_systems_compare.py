"""`localsumm compare` on results files written as `localsumm eval` writes them: the tables, the figures, the
refusals, the gate and the command line."""

from __future__ import annotations

import json

import pytest

from localsumm.compare.systems import Settings, compare_files, compare_tables, gate, gate_files
from localsumm.compare.tables import read_tables
from localsumm.errors import ConfigError, InputError, LocalsummWarning
from localsumm.runs.records import read_records
from localsumm.runs.results import format_line, read_results
from localsumm.summarization.questionset import source_sha256
from localsumm.testing import assert_not_worse

from .conftest import run_cli
from .systems_data import line, result, system_file, write

GOOD = [(1.0, 0.75), (1.0, 1.0), (0.75, 0.75), (1.0, 0.5), (0.5, 0.75), (1.0, 0.75), (0.75, 1.0), (1.0, 0.75)]
WORSE = [(1.0, 0.25), (1.0, 0.5), (0.75, 0.25), (1.0, 0.25), (0.5, 0.5), (1.0, 0.25), (0.75, 0.5), (1.0, 0.25)]


def test_a_results_line_carries_the_system_and_the_source_sha256(tmp_path):
    path = system_file(tmp_path / "a.jsonl", GOOD[:1], system="v2")
    (first,) = read_results(path)
    assert first.system == "v2" and first.fields["system"] == "v2"
    assert first.fields["localsumm"]["source_sha256"] == source_sha256("source text 0") == first.source_sha256
    # A line written before the field existed: computed from its record.
    del first.fields["localsumm"]["source_sha256"]
    assert first.source_sha256 == source_sha256("source text 0")


def test_a_record_system_must_be_a_text(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text(
        '{"id": "a", "source": "s", "summary": "t", "system": "v1"}\n{"id": "b", "source": "s", "summary": "t", '
        '"system": 3}\n'
    )
    good, bad = read_records(data)
    assert good.system == "v1" and good.error is None
    assert bad.error is not None and "system must be a non-empty text" in bad.error


def test_two_files_one_system_each_ranked_with_paired_figures(tmp_path):
    a = system_file(tmp_path / "baseline.jsonl", WORSE)
    b = system_file(tmp_path / "candidate.jsonl", GOOD)
    comparison = compare_files([a, b])
    assert comparison.sources == 8
    assert [row.system for row in comparison.systems] == ["candidate", "baseline"]
    best = comparison.systems[0]
    assert best.means["score"] == pytest.approx(sum(min(x, y) for x, y in GOOD) / 8)
    assert best.means["alignment_score"] == pytest.approx(sum(x for x, _ in GOOD) / 8)
    low, high = best.intervals["coverage_score"]  # type: ignore[misc]
    assert low < best.means["coverage_score"] < high
    pair = comparison.pair("candidate", "baseline")
    assert pair.paired.mean_difference == pytest.approx(best.means["score"] - comparison.systems[1].means["score"])
    assert (pair.paired.wins, pair.paired.ties, pair.paired.losses) == (7, 1, 0)  # source 4: 0.5 both
    assert pair.significant and pair.p_holm == pair.paired.p_value  # one pair: Holm leaves it
    assert comparison.pair("baseline", "candidate").paired.mean_difference == -pair.paired.mean_difference
    tables = read_tables([a, b])
    assert gate(tables, "baseline", "candidate")[1].worse is False
    _, verdict = gate(tables, "candidate", "baseline")
    assert verdict.worse and "baseline is worse than candidate" in verdict.message()
    # 7 of 8 sources lower, one tied: exactly 1 of the 2^8 sign patterns (x2 for the tie) is as low.
    assert verdict.p_worse == pytest.approx(2 / 256, abs=0.003)
    # Worse by about 0.35: not by more than a margin of 0.5.
    assert not gate(tables, "candidate", "baseline", margin=0.5)[1].worse


def test_assert_not_worse_in_a_test(tmp_path):
    good, worse = system_file(tmp_path / "good.jsonl", GOOD), system_file(tmp_path / "worse.jsonl", WORSE)
    assert_not_worse(worse, good)
    with pytest.raises(AssertionError, match="worse is worse than good with 95% confidence: score difference -0.3"):
        assert_not_worse(good, worse)
    assert_not_worse(good, worse, margin=0.5)
    with pytest.raises(InputError, match="one system per file"):
        assert_not_worse(
            good, write(tmp_path / "two.jsonl", [line(0, "s", result(1, 1), system=s, id=s) for s in "ab"])
        )


def test_a_repeated_line_is_read_once_with_a_warning(tmp_path):
    copy = [line(i, "s", result(x, y), system="b") for i, (x, y) in enumerate(WORSE)]
    with pytest.warns(LocalsummWarning, match="1 line ignored"):
        tables = read_tables([system_file(tmp_path / "a.jsonl", GOOD), write(tmp_path / "b.jsonl", copy + copy[:1])])
    assert tables.values["score"].shape == (2, 8)


def test_one_file_of_three_systems_averages_a_source_first_and_corrects_with_holm(tmp_path):
    lines = []
    for i, (good, worse) in enumerate(zip(GOOD * 2, WORSE * 2)):
        lines += [line(i, "g", result(*good), system="good", id=f"g{i}")]
        lines += [line(i, "w", result(*worse), system="worse", id=f"w{i}")]
        lines += [line(i, "m", result(*worse), system="mixed", id=f"m{i}")]
    # mixed has a second summary of source 0, scoring 1: its source mean is (0.25 + 1) / 2.
    lines.append(line(0, "m2", result(1.0, 1.0), system="mixed", id="m-extra"))
    comparison = compare_files([write(tmp_path / "all.jsonl", lines)])
    means = {row.system: row.means["score"] for row in comparison.systems}
    worse = sum(min(x, y) for x, y in WORSE) / 8
    assert means["mixed"] == pytest.approx(worse + (0.625 - 0.25) / 16)
    assert [row.system for row in comparison.systems] == ["good", "mixed", "worse"]
    scores = [row for row in comparison.pairs if row.dimension == "score"]
    assert len(scores) == 3 and all(row.p_holm >= row.paired.p_value for row in scores)
    assert any(row.p_holm > row.paired.p_value for row in scores)
    assert comparison.pair("good", "worse").significant


def test_unshared_failed_and_unscorable_items_are_left_out_and_counted(tmp_path):
    a = system_file(tmp_path / "a.jsonl", GOOD)
    b_lines = [line(i, "s", result(x, y), system="b") for i, (x, y) in enumerate(WORSE[:6])]
    b_lines.append(line(6, "s", None, system="b"))  # failed
    b_lines.append(line(7, "s", result(0.0, 0.0, scorable=False), system="b"))
    tables = read_tables([a, write(tmp_path / "b.jsonl", b_lines)])
    assert tables.systems == ["a", "b"] and len(tables.sources) == 6
    assert tables.failed == {"a": 0, "b": 1} and tables.unscorable == {"a": 0, "b": 1}
    assert tables.left_out == {"a": ["d6", "d7"], "b": []}


def test_fewer_than_five_shared_sources_give_no_interval_and_no_gate(tmp_path):
    comparison = compare_files(
        [system_file(tmp_path / "a.jsonl", GOOD[:4]), system_file(tmp_path / "b.jsonl", WORSE[:4])]
    )
    assert comparison.sources == 4 and comparison.no_interval and "4 shared sources" in comparison.no_interval
    assert any("the smallest possible is 0.12" in note for note in comparison.notes)
    assert all(interval is None for row in comparison.systems for interval in row.intervals.values())
    assert all(row.paired.interval is None for row in comparison.pairs)
    with pytest.raises(InputError, match="cannot decide"):
        gate_files(tmp_path / "a.jsonl", tmp_path / "b.jsonl")


def test_a_copy_of_a_one_system_file_is_named_by_its_path_and_never_worse(tmp_path):
    a = system_file(tmp_path / "a.jsonl", GOOD, system="v1")
    (tmp_path / "copy").mkdir()
    copy = tmp_path / "copy" / "a.jsonl"
    copy.write_text(a.read_text())
    comparison = compare_files([a, copy], Settings(seed=5))
    assert {row.system for row in comparison.systems} == {str(a), str(copy)}
    pair = comparison.pair(str(copy), str(a))
    assert pair.paired.mean_difference == 0 and pair.paired.interval == (0, 0) and pair.paired.p_value == 1
    _, verdict = gate_files(a, copy)
    assert not verdict.worse and verdict.p_worse == 1


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"model_sha256": "b" * 64}, "judge"),
        ({"max_questions": 5}, "max_questions 10"),
        ({"prompt_version": "old"}, "prompt version"),
        ({"localsumm_version": "0.1.0"}, "localsumm version"),
        ({"thresholds": {"alignment": 0.6, "coverage": 0.5}}, "thresholds"),
        ({"questions": ["Other?", "Q2?", "Q3?", "Q4?"]}, "asked different questions"),
    ],
)
def test_unpaired_files_are_refused(tmp_path, change, needle):
    a = system_file(tmp_path / "a.jsonl", GOOD)
    b = system_file(tmp_path / "b.jsonl", WORSE, **change)
    with pytest.raises(InputError, match="not paired") as caught:
        read_tables([a, b])
    assert needle in str(caught.value)


def test_bad_files_are_refused_with_what_to_do(tmp_path):
    a = system_file(tmp_path / "a.jsonl", GOOD)
    data = write(tmp_path / "data.jsonl", ['{"id": "x", "source": "s", "summary": "t"}'])
    one = [line(0, "s", result(1, 1), system="v1"), line(1, "s", result(1, 1), system="v1")]
    twice = [line(0, "s", result(1, 1), system="v1"), line(1, "s", result(1, 1), system="v1")]
    twice += [format_line(json.loads(twice[0]), "d0", result=result(0.5, 0.5), run="another run")]
    half = [line(0, "s", result(1, 1), system="v1"), line(1, "s", result(1, 1))]
    unreadable = json.loads(line(0, "s", result(1, 1)))
    unreadable["localsumm"]["result"]["provenance"] = {"version": "0.0.1"}
    cases = {
        "no localsumm verdict": [a, data],
        "one system (v1)": [write(tmp_path / "one.jsonl", one)],
        "different results for the same id": [a, write(tmp_path / "twice.jsonl", twice)],
        "has no system field": [write(tmp_path / "half.jsonl", half)],
        "another localsumm version": [a, write(tmp_path / "old.jsonl", [json.dumps(unreadable)])],
        "holds no results": [a, write(tmp_path / "empty.jsonl", [])],
        "no source has a usable summary of every system": [a, write(tmp_path / "b.jsonl", [line(0, "s", None)])],
    }
    for needle, paths in cases.items():
        with pytest.raises(InputError) as caught:
            read_tables(paths)
        assert needle in str(caught.value)
    with pytest.raises(ConfigError, match="at least 100"):
        compare_tables(read_tables([a, system_file(tmp_path / "c.jsonl", WORSE)]), Settings(resamples=10))


def test_each_systems_length_is_shown_and_a_gap_in_length_noted(tmp_path):
    def lines(system: str, summary: str) -> list[str]:
        return [line(i, summary, result(*GOOD[i]), system=system, id=f"{system}{i}") for i in range(8)]

    short, longer = lines("short", "one two three four five six"), lines("longer", "one two three four five six seven")
    same = compare_files([write(tmp_path / "same.jsonl", short + lines("same", "six words in this summary too"))])
    assert [row.words for row in same.systems] == [6.0, 6.0] and not any("lengths" in n for n in same.notes)
    # 7 words against 6: 1.17 times as long, above the 1.15 that gets a note.
    comparison = compare_files([write(tmp_path / "all.jsonl", short + longer)])
    assert {row.system: row.words for row in comparison.systems} == {"short": 6.0, "longer": 7.0}
    assert comparison.notes[-1].startswith("summary lengths differ: longer 7 words on average, short 6 (1.17x)")
    done = run_cli("compare", str(tmp_path / "all.jsonl"))
    assert done.returncode == 0 and "words" in done.stdout and "summary lengths differ" in done.stdout


def test_the_command_line_table_json_gate_and_errors(tmp_path):
    a = system_file(tmp_path / "baseline.jsonl", GOOD)
    b = system_file(tmp_path / "candidate.jsonl", WORSE)
    done = run_cli("compare", str(a), str(b))
    assert done.returncode == 0, done.stderr
    assert "baseline" in done.stdout and "candidate" in done.stdout and "significant" in done.stdout
    data = json.loads(run_cli("compare", str(a), str(b), "--json", "--seed", "3", "--resamples", "200").stdout)
    assert data["sources"] == 8 and data["settings"] == {"seed": 3, "resamples": 200, "permutations": 10000}
    assert [row["system"] for row in data["systems"]] == ["baseline", "candidate"]
    worse = run_cli("compare", str(a), str(b), "--fail-if-worse")
    assert worse.returncode == 1 and "candidate is worse than baseline" in worse.stderr
    better = run_cli("compare", str(b), str(a), "--fail-if-worse")
    assert better.returncode == 0 and "baseline is not worse than candidate" in better.stderr
    for args, code, needle in [
        ((str(a), str(tmp_path / "missing.jsonl")), 3, "does not exist"),
        ((str(a), str(b), str(a), "--fail-if-worse"), 2, "two files"),
        ((str(a), str(b), "--resamples", "10"), 2, "at least 100"),
        ((str(a), str(b), "--fail-if-worse", "--margin", "-1"), 2, "--margin"),
    ]:
        done = run_cli("compare", *args)
        assert done.returncode == code and "Traceback" not in done.stderr and needle in done.stderr, done.stderr
