"""Where two systems differ (``compare.differences``): the verdicts that differ on a source, in words, and the
sources ranked by how much the systems differ there; on hand-made results."""

from __future__ import annotations

import pytest

from localsumm.compare.differences import source_difference, where_they_differ
from localsumm.compare.tables import read_tables

from .systems_data import line, result, system_file, write

BUDGET = ["Did the council approve the budget?", "Was the vote unanimous?", "Who chaired it?", "When is it due?"]
CLAIMS = ["The council met.", "It approved the budget.", "The vote was 5-4.", "Taxes were cut."]


def test_a_question_one_system_answers_and_a_claim_that_is_unsupported_in_words():
    a = result(1.0, 1.0, questions=BUDGET, claims=CLAIMS)
    b = result(0.75, 0.75, questions=BUDGET, claims=CLAIMS)  # misses "When is it due?"; "Taxes were cut." fails
    d = source_difference("d1", [a], [b])
    assert (d.first, d.second, d.difference, d.verdicts) == (1.0, 0.75, 0.25, 2)
    assert d.sentences("A", "B") == [
        "B does not answer 'When is it due?', which A answers",
        "B's claim 'Taxes were cut.' is unsupported",
    ]
    # The other way round: the same verdicts, told of whichever system is first.
    assert source_difference("d1", [b], [a]).sentences("B", "A") == d.sentences("A", "B")
    assert source_difference("d1", [b], [a]).sentences("A", "B") == [
        "A does not answer 'When is it due?', which B answers",
        "A's claim 'Taxes were cut.' is unsupported",
    ]


def test_the_same_failure_on_both_sides_is_no_difference_and_shares_are_compared():
    both = result(0.75, 0.5, questions=BUDGET, claims=CLAIMS)
    assert source_difference("d1", [both], [both]).verdicts == 0
    # The first system's two summaries answer "Was the vote unanimous?" once, the second's one summary does.
    first = [result(0.75, 0.5, questions=BUDGET, claims=CLAIMS), result(0.75, 0.25, questions=BUDGET, claims=CLAIMS)]
    second = [result(0.25, 0.5, questions=BUDGET, claims=CLAIMS[1:] + ["It rained."])]
    d = source_difference("d1", first, second)
    assert d.first == pytest.approx(0.375) and d.second == 0.25
    assert d.sentences("A", "B") == [
        "A answers 'Was the vote unanimous?' in 1 of 2 summaries, B in 1 of 1",
        # "Taxes were cut." is unsupported on both sides; B's "The vote was 5-4." is not unsupported for A.
        "B's claim 'The vote was 5-4.' is unsupported",
        "B's claim 'It rained.' is unsupported",
    ]
    # Halves are equal shares: 1 of 2 against 2 of 4 is no difference.
    two = [result(1.0, 0.25, questions=BUDGET), result(1.0, 0.0, questions=BUDGET)]
    four = two + two
    assert source_difference("d1", two, four).questions == []
    with pytest.raises(ValueError, match="at least one result"):
        source_difference("d1", [], four)


def test_a_long_claim_is_shortened():
    long = "The council " + "met again and " * 30 + "adjourned."
    d = source_difference("d1", [result(0.0, 1.0, claims=[long])], [result(1.0, 1.0, claims=[long])])
    (said,) = d.sentences("A", "B")
    assert said.startswith("A's claim 'The council met again") and said.endswith("…' is unsupported")
    assert len(said) < 240


def test_sources_ranked_by_the_score_difference_then_the_verdicts():
    same = result(1.0, 1.0, questions=BUDGET)
    first = {
        "same": [same],
        "small": [result(1.0, 0.75, questions=BUDGET)],
        "large": [result(1.0, 1.0, questions=BUDGET)],
        "tied but different": [result(0.5, 1.0, questions=BUDGET, claims=CLAIMS[:2])],
        "only first": [same],
    }
    second = {
        "same": [same],
        "small": [result(1.0, 0.5, questions=BUDGET)],
        "large": [result(1.0, 0.25, questions=BUDGET)],
        "tied but different": [result(0.5, 1.0, questions=BUDGET, claims=CLAIMS[2:])],
    }
    found = where_they_differ(first, second)
    assert [d.source for d in found] == ["large", "small", "tied but different"]
    assert [d.difference for d in found] == [0.75, 0.25, 0.0]
    assert [len(d.questions) for d in found] == [3, 1, 0]
    assert [d.source for d in where_they_differ(first, second, most=1)] == ["large"]
    # At equal score differences, the source with more differing verdicts comes first.
    second["large"] = [result(0.75, 0.75, questions=BUDGET)]  # 0.25 apart, like "small", with a claim besides
    assert [(d.source, d.difference, d.verdicts) for d in where_they_differ(first, second)][:2] == [
        ("large", 0.25, 2),
        ("small", 0.25, 1),
    ]
    assert where_they_differ({"same": [same]}, {"same": [same]}) == []


def test_tables_keep_the_verdicts_of_the_shared_sources_named_by_id(tmp_path):
    from localsumm.compare.differences import pair_differences

    a = system_file(tmp_path / "a.jsonl", [(1.0, 1.0), (1.0, 0.75), (1.0, 1.0)])
    b = write(
        tmp_path / "b.jsonl",
        [line(0, "s0", result(1.0, 1.0)), line(1, "s1", result(1.0, 0.25)), line(2, "s2", None)],
    )
    tables = read_tables([a, b])
    assert len(tables.sources) == 2 and len(tables.results) == 4
    (d,) = pair_differences(tables, "a", "b")
    assert d.source == "d1" and d.sentences("a", "b") == [
        "b does not answer 'Q2?', which a answers",
        "b does not answer 'Q3?', which a answers",
    ]
