"""The literal check: numbers and capitalised names of a claim that the source never mentions."""

import json
from pathlib import Path

from localsumm.summarization.literals import unmatched_literals

ZHNEWS = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "zhnews.jsonl"

SOURCE = (
    "The council of Marlow voted 7 to 2 on Tuesday to build a library. It will cost $4,500,000 and open in "
    "2026, said the mayor, Ruth Okafor. Three members left early; the vote came first."
)


def test_numbers_and_names_in_the_source_pass_whatever_their_case_or_separators():
    assert unmatched_literals("The Marlow council voted 7 to 2 on Tuesday.", SOURCE) == []
    assert unmatched_literals("It will cost 4500000 dollars, said ruth okafor of MARLOW.", SOURCE) == []
    assert unmatched_literals("Okafor's library opens in 2026.", SOURCE) == []


def test_a_changed_number_or_a_new_name_is_reported_once_in_order():
    assert unmatched_literals("The council voted 8 to 2 on Monday, and 8 members agreed.", SOURCE) == ["8", "Monday"]
    assert unmatched_literals("It costs $4,600,000.", SOURCE) == ["4,600,000"]
    assert unmatched_literals("Mayor Okafor of France said it costs $4.6 million.", SOURCE) == ["France", "4.6"]
    # A derived form is not the name: the matching rules ask for an exact match.
    assert unmatched_literals("The French mayor agreed.", SOURCE) == ["French"]


def test_a_small_digit_may_stand_for_its_word():
    assert unmatched_literals("3 members left early, and the vote came 1st.", SOURCE) == []
    assert unmatched_literals("4 members left early.", SOURCE) == ["4"]


def test_words_capitalised_only_by_position_are_not_names():
    assert unmatched_literals("Yesterday the council met. Nobody left.", SOURCE) == []
    assert unmatched_literals('Okafor said: "Libraries matter," and I agree.', SOURCE) == []
    assert unmatched_literals("", SOURCE) == []


def test_tokenised_thousands_are_one_number_but_a_year_and_a_count_stay_two():
    source = "He paid £2 , 000 in costs in 2016, 500 fans watched."
    assert unmatched_literals("He paid £2,000 in costs.", source) == []
    assert unmatched_literals("In 2016, 500 fans watched.", source) == []
    assert unmatched_literals("He paid £3 , 000.", source) == ["3 , 000"]


def test_derived_names_abbreviations_and_emphasis_pass_but_a_changed_name_does_not():
    source = "Germany's Nico Rosberg met Professor Kanwisher and Maria, on television in the United States."
    assert unmatched_literals("The German met Ms Kanwishers' class on TV in the U.S. CLICK HERE.", source) == []
    assert unmatched_literals("Rosberg met Mario.", source) == ["Mario"]


ZH_SOURCE = "青川市政府周二宣布，新大桥将于2021年5月通车。大桥总投资五亿元，全长1.2公里。市长王丽说，一些居民担心拥堵。"


def test_chinese_numbers_match_by_value_whatever_the_numerals():
    assert unmatched_literals("新大桥将于二〇二一年五月通车。", ZH_SOURCE) == []
    assert unmatched_literals("大桥总投资5亿元，即500000000元。", ZH_SOURCE) == []
    # A lone 一 and numerals inside other words are not numbers to check.
    assert unmatched_literals("一些居民统一十分担心。", ZH_SOURCE) == []


def test_a_changed_chinese_number_or_name_is_named():
    assert unmatched_literals("市长罗斌说，大桥总投资八亿元，2019年通车。", ZH_SOURCE) == ["罗斌", "八亿", "2019"]
    assert unmatched_literals("王丽说，大桥全长1.2公里。", ZH_SOURCE) == []


def test_the_consistent_chinese_summaries_pass_and_each_changed_name_is_caught():
    rows = [json.loads(line) for line in ZHNEWS.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        found = unmatched_literals(row["summary"], row["source"])
        if row["meta"]["edit"] == "original":
            assert found == [], (row["id"], found)
        elif row["meta"]["edit"] == "name":
            assert found, row["id"]
