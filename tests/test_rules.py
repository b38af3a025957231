"""SPEC §3, one test per rule, on the pure scoring function."""

import pytest

from localsumm import create_summarization_scorer
from localsumm.config import Options
from localsumm.errors import ConfigError
from localsumm.summarization.coverage import questions_to_ask
from localsumm.summarization.rules import compute_scores, coverage_votes, round_half_up, votes

from .scripted import ScriptedJudge

Q = [f"question {i}?" for i in range(12)]


@pytest.mark.parametrize("bad", [0, -1, -10])
def test_max_questions_below_one_is_rejected_at_creation(bad):
    with pytest.raises(ConfigError, match="max_questions must be at least 1"):
        create_summarization_scorer(ScriptedJudge(), max_questions=bad)


def test_max_questions_rejected_before_any_model_is_loaded():
    # A path that does not exist: the option error must come first.
    with pytest.raises(ConfigError, match="max_questions"):
        create_summarization_scorer("/nonexistent/model.gguf", max_questions=0)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_scale_must_be_positive_and_finite(bad):
    with pytest.raises(ConfigError, match="scale"):
        Options(scale=bad)


def test_coverage_verdicts_are_matched_by_position():
    s = compute_scores([True], Q[:4], [True, False, True, False])
    assert s.coverage == 0.5
    s = compute_scores([True], Q[:4], [False, False, True, True])
    assert s.coverage == 0.5


def test_missing_coverage_verdict_counts_as_not_answered():
    s = compute_scores([True], Q[:4], [True, True])
    assert s.questions_asked == 4
    assert s.coverage == 0.5


def test_extra_coverage_verdicts_are_ignored():
    s = compute_scores([True], Q[:2], [True, False, True, True, True])
    assert s.coverage == 0.5


def test_questions_are_capped_at_max_questions():
    s = compute_scores([True], Q[:12], [True] * 3 + [False] * 9, max_questions=3)
    assert s.questions_asked == 3
    assert s.coverage == 1.0
    s = compute_scores([True], Q[:12], [False] * 3 + [True] * 9, max_questions=3)
    assert s.coverage == 0.0


def test_key_facts_are_asked_after_the_capped_questions_one_vote_each():
    facts = ["The museum reopened in 1932.", "Anna Berg designed it."]
    assert questions_to_ask(Q[:12], 3, facts) == Q[:3] + [
        "Is it true that The museum reopened in 1932?",
        "Is it true that Anna Berg designed it?",
    ]
    # The 4th and 5th verdicts are the facts', whatever lies beyond the question cap.
    s = compute_scores([True], Q[:12], [True, False, False, True, True], max_questions=3, key_facts=facts)
    assert s.questions_asked == 5 and s.coverage == 0.6


def test_a_key_facts_option_that_is_not_a_bool_is_refused():
    with pytest.raises(ConfigError, match="key_facts must be True or False"):
        Options(key_facts="yes")


def test_alignment_is_supported_over_claims():
    s = compute_scores([True, False, True, True], Q[:1], [True])
    assert s.alignment == 0.75


def test_score_is_min_times_scale_rounded_to_two_decimals():
    s = compute_scores([True, True, False], Q[:1], [True], scale=1)
    assert s.score == 0.67
    s = compute_scores([True, True, False], Q[:1], [True], scale=10)
    assert s.score == 6.67
    s = compute_scores([True], Q[:3], [True, False, False], scale=1)
    assert s.score == 0.33


def test_rounding_is_half_up_like_the_reference():
    # 1/8 = 0.125 exactly: JavaScript's Math.round gives 0.13, Python's round 0.12.
    s = compute_scores([True] + [False] * 7, Q[:1], [True])
    assert s.score == 0.13
    assert round_half_up(0.125) == 0.13


def test_no_claims_scores_zero():
    s = compute_scores([], Q[:3], [True, True, True])
    assert (s.score, s.scorable) == (0.0, False)


def test_no_questions_scores_zero():
    s = compute_scores([True, True], [], [])
    assert (s.score, s.scorable) == (0.0, False)


def test_all_claims_unsupported_scores_zero_but_is_scorable():
    s = compute_scores([False, False], Q[:2], [True, True])
    assert (s.score, s.scorable) == (0.0, True)


def test_constrained_output_drops_items_that_break_bounds_the_grammar_leaves_out():
    import json

    from localsumm.backends.grammar import parse
    from localsumm.errors import JudgeError
    from localsumm.summarization.schemas import question_list

    long_question = "Did " + "the council meet again and " * 10 + "vote?"
    text = json.dumps({"questions": ["Was it founded in 1995?", long_question, "Is it based in Seattle?"]})
    value = parse(question_list(5), text)
    assert value.questions == ["Was it founded in 1995?", "Is it based in Seattle?"]
    with pytest.raises(JudgeError, match="does not match its schema"):
        parse(question_list(5), json.dumps({"questions": [long_question]}))


def test_graded_votes_count_a_verdict_near_its_threshold_in_proportion():
    probabilities = [0.9, 0.75, 0.6, 0.5, 0.4, 0.25, 0.1]
    verdicts = [p >= 0.5 for p in probabilities]
    assert votes(verdicts, probabilities, "count", 0.5) == [1, 1, 1, 1, 0, 0, 0]
    assert votes(verdicts, probabilities, "graded", 0.5) == pytest.approx([1, 1, 0.7, 0.5, 0.3, 0, 0])
    # the band follows the judge's threshold
    assert votes([True, False], [0.6, 0.2], "graded", 0.3) == pytest.approx([1.0, 0.3])
    # a judge that gives no probability: its verdict is its vote
    assert votes([True, False], [None, None], "graded", 0.5) == [1.0, 0.0]
    scores = compute_scores([1.0, 0.5], Q[:4], [1.0, 0.7, 0.1], max_questions=None)
    assert scores.alignment == pytest.approx(0.75)
    assert scores.coverage == pytest.approx(1.8 / 4)  # the missing fourth vote still counts 0
    assert scores.score == 0.45


def test_facts_votes_count_the_questions_and_weigh_each_stated_fact_by_its_probability():
    probabilities = [0.9, 0.4, 0.45, 0.1, None]
    verdicts = [True, False, False, False, True]
    # two questions, then three facts asked as statements (the last from a judge without probabilities)
    assert coverage_votes(verdicts, probabilities, "facts", 0.5, 2) == [1.0, 0.0, 0.45, 0.1, 1.0]
    assert coverage_votes(verdicts, probabilities, "count", 0.5, 2) == [1.0, 0.0, 0.0, 0.0, 1.0]
    # alignment is counted under "facts": its claims are not stated facts
    assert votes([True, False], [0.6, 0.45], "facts", 0.5) == [1.0, 0.0]
    scores = compute_scores([1.0], Q[:2], [1.0, 0.0, 0.45, 0.1], max_questions=None, key_facts=["f1", "f2"])
    assert scores.coverage == pytest.approx(1.55 / 4)


def test_an_unknown_scoring_rule_is_refused():
    with pytest.raises(ConfigError, match="count, graded, facts"):
        Options(scoring="probability")
