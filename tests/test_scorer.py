"""The pipeline's logic with a scripted judge: result shape, reason, edge cases.

The same behaviours run on the real llama.cpp path in test_llamacpp.py.
"""

import json

import pytest

from localsumm import create_summarization_scorer
from localsumm.errors import ContextOverflowError
from localsumm.summarization.claims import summary_claims
from localsumm.summarization.steplog import StepLog

from .conftest import STEPS
from .scripted import ScriptedJudge

SOURCE = "The company was founded in 1995 by John Smith. It grew to 500 employees by 2020. It is based in Seattle."
SUMMARY = "Founded in 1995 by John Smith, the company is based in Portland."


def scorer(options: dict | None = None, **judge_kwargs):
    """A scorer on a scripted judge (with ``options`` beside the defaults); the scripted claims are the judge's
    extracted claims."""
    judge = ScriptedJudge(**judge_kwargs)
    return create_summarization_scorer(judge, claims="extracted", **(options or {})), judge


def test_full_result_with_an_unsupported_claim():
    s, judge = scorer(
        claims=["The company was founded in 1995.", "John Smith founded it.", "It is based in Portland."],
        questions=["Was it founded in 1995?", "Did it grow to 500 employees by 2020?", "Is it based in Seattle?"],
        claim_probabilities=[0.9, 0.95, 0.1],
        question_probabilities=[0.9, 0.2, 0.3],
    )
    r = s.run(
        input={"inputMessages": [{"id": "1", "role": "user", "content": SOURCE}]},
        output=[{"id": "2", "role": "assistant", "content": SUMMARY}],
    )
    assert r.alignment_score == pytest.approx(2 / 3, abs=1e-4)
    assert r.coverage_score == pytest.approx(1 / 3, abs=1e-4)
    assert r.score == 0.33 and r.scorable
    assert [v.supported for v in r.preprocess_step_result.alignment] == [True, True, False]
    assert [v.answered for v in r.analyze_step_result.coverage] == [True, False, False]
    assert r.preprocess_step_result.alignment[2].probability == 0.1
    assert "set by coverage" in r.reason and "alignment 0.67" in r.reason and "coverage 0.33" in r.reason
    assert '"It is based in Portland."' in r.reason
    assert "Did it grow to 500 employees by 2020?" in r.reason
    # The verdict's reason says what it rests on; the judge wrote none.
    assert r.preprocess_step_result.alignment[2].reason.startswith("judge probability 0.10 < threshold 0.50")


def test_dict_run_and_keyword_run_agree():
    kwargs = dict(
        claims=["A claim here."], questions=["Is it so?"], claim_probabilities=[1.0], question_probabilities=[1.0]
    )
    a = scorer(**kwargs)[0].run({"input": SOURCE, "output": SUMMARY})
    b = scorer(**kwargs)[0].run(input=SOURCE, output=SUMMARY)
    assert a.to_dict() == b.to_dict()
    assert a.score == 1.0


def test_camel_case_serialisation_uses_the_reference_keys():
    s, _ = scorer(
        claims=["A claim here."], questions=["Is it so?"], claim_probabilities=[1.0], question_probabilities=[0.0]
    )
    r = s.run(input=SOURCE, output=SUMMARY)
    camel = json.loads(r.to_json(camel=True))
    snake = r.to_dict()
    assert set(camel) >= {"score", "reason", "preprocessStepResult", "analyzeStepResult", "alignmentScore"}
    assert camel["preprocessStepResult"]["alignment"][0].keys() >= {"claim", "supported", "reason"}
    assert camel["analyzeStepResult"]["coverage"][0].keys() >= {"question", "answered", "reason"}
    assert "preprocess_step_result" in snake and "provenance" in snake
    assert camel["provenance"]["promptVersion"] == snake["provenance"]["prompt_version"]


def test_empty_summary_scores_zero_without_calling_the_judge():
    s, judge = scorer(claims=["x"], questions=["y"])
    for empty in ["", "   \n ", [{"role": "assistant", "content": ""}]]:
        r = s.run(input=SOURCE, output=empty)
        assert r.score == 0 and not r.scorable
        assert "summary is empty" in r.reason
    assert judge.calls == []


def test_empty_source_scores_zero_with_a_reason_that_says_so():
    s, judge = scorer(claims=["x"], questions=["y"])
    r = s.run(input="  ", output=SUMMARY)
    assert r.score == 0 and not r.scorable and "source is empty" in r.reason
    assert judge.calls == []


def test_no_claims_scores_zero_with_a_reason():
    s, _ = scorer(claims=[], questions=["Is it so?"], question_probabilities=[1.0])
    r = s.run(input=SOURCE, output=SUMMARY)
    assert r.score == 0 and not r.scorable
    assert "no factual claim" in r.reason


def test_coverage_prompts_never_contain_the_source():
    s, judge = scorer(
        claims=["Founded in 1995."],
        questions=["Was it founded in 1995?", "Is it in Seattle?"],
        claim_probabilities=[0.9],
        question_probabilities=[0.9, 0.1],
    )
    s.run(input=SOURCE, output=SUMMARY)
    coverage = [c for c in judge.calls if c.step == "coverage"]
    assert len(coverage) == 2
    for call in coverage:
        assert SUMMARY in call.prompt
        for sentence in ["grew to 500 employees", "It is based in Seattle."]:
            assert sentence not in call.prompt
    # Claims are extracted from the summary alone too; only questions and claim verdicts see the source.
    assert all(SOURCE not in c.prompt for c in judge.calls if c.step == "claims")
    assert all(SOURCE in c.prompt for c in judge.calls if c.step in ("questions", "alignment"))


def test_alignment_judges_the_summary_sentences_by_default():
    judge = ScriptedJudge(
        questions=["Was it founded in 1995?"], claim_probabilities=[0.9, 0.2], question_probabilities=[0.9]
    )
    summary = "Founded in 1995 by John Smith, the company grew. It is based in Portland."
    r = create_summarization_scorer(judge).run(input=SOURCE, output=summary)
    assert "claims" not in {c.step for c in judge.calls}  # nothing generated for them
    assert [v.claim for v in r.preprocess_step_result.alignment] == [
        "Founded in 1995 by John Smith, the company grew.",
        "It is based in Portland.",
    ]
    assert [v.supported for v in r.preprocess_step_result.alignment] == [True, False]
    assert r.alignment_score == 0.5 and r.provenance.claims == "sentences"
    verdicts = [c.prompt for c in judge.calls if c.step == "alignment"]
    assert all(SOURCE in p for p in verdicts) and "It is based in Portland." in verdicts[1]


def test_only_max_questions_are_asked():
    s = create_summarization_scorer(
        ScriptedJudge(
            claims=["A claim."],
            questions=[f"Question number {i}?" for i in range(5)],
            claim_probabilities=[1.0],
            question_probabilities=[1.0] * 5,
        ),
        max_questions=2,
    )
    r = s.run(input=SOURCE, output=SUMMARY)
    assert len(r.analyze_step_result.coverage) == 2
    assert r.provenance.max_questions == 2


def test_a_context_too_small_for_the_instructions_names_both_sizes():
    s = create_summarization_scorer(ScriptedJudge(context_size=300))
    with pytest.raises(
        ContextOverflowError, match=r"context of 300 tokens .* take [0-9,]+, which leaves 0 for the source"
    ):
        s.run(input=SOURCE, output=SUMMARY)


def test_a_long_source_is_judged_in_windows():
    # 30 sentences of 20 words; the judge's context leaves room for 250 words of source.
    sentences = [f"Sentence {i} " + " ".join(f"w{i}x{j}" for j in range(18)) + "." for i in range(30)]
    source = " ".join(sentences)
    judge = ScriptedJudge(
        claims=["First claim.", "Second claim."],
        questions=["Is one thing so?", "Is another so?"],
        # Windows outer, claims inner; a supported claim is not asked again.
        claim_probabilities=[0.9, 0.2, 0.3, 0.8],
        question_probabilities=[1.0] * 10,
        context_size=669 + 250,  # the instructions and the longest answer (the highlights') take 669
    )
    r = create_summarization_scorer(judge, max_questions=4, claims="extracted").run(input=source, output=SUMMARY)
    windows = r.provenance.source_windows
    assert windows is not None and len(windows) == 3
    assert windows[0].start == 0 and windows[-1].end == len(source)
    assert all(b.start < a.end for a, b in zip(windows, windows[1:]))  # they overlap
    assert sum(w.questions for w in windows) == 4
    assert all(source[w.start : w.end].strip().endswith(".") for w in windows)  # cut at sentence ends
    a, b = r.preprocess_step_result.alignment
    assert (a.supported, a.window, a.probability) == (True, 0, 0.9)
    assert (b.supported, b.window, b.probability) == (True, 2, 0.8)
    assert "source window 3 of" in b.reason
    asked = [c.prompt for c in judge.calls if c.step == "alignment"]
    assert len(asked) == 4 and sentences[0] in asked[0] and sentences[0] not in asked[-1]
    assert f"judged in {len(windows)} overlapping windows" in r.reason
    # Questions come from every window but never more than max_questions are asked.
    assert len(r.analyze_step_result.coverage) <= 4


def test_provenance_records_steps_and_versions():
    s, _ = scorer(
        claims=["A claim."],
        questions=["Is it so?"],
        claim_probabilities=[1.0],
        question_probabilities=[1.0],
        highlights=["A highlight of the source."],
        key_facts=["A fact of the source."],
    )
    r = s.run(input=SOURCE, output=SUMMARY)
    # key facts are on by default: highlights beside the source, their split in a context of its own
    assert [st.step for st in r.provenance.steps] == STEPS
    assert r.provenance.key_facts is True
    assert r.provenance.model == "scripted"
    assert r.provenance.prompt_version


def test_summaries_of_one_source_share_one_question_set():
    s, judge = scorer(
        claims=["A claim here."],
        questions=["Is it so?", "Is it not?"],
        claim_probabilities=[1.0, 1.0],
        question_probabilities=[1.0, 0.0, 1.0, 1.0],
    )
    first = s.run(input=SOURCE, output=SUMMARY)
    second = s.run(input=SOURCE, output="Another summary of the same source.")
    assert [c.step for c in judge.calls].count("questions") == 1
    assert second.preprocess_step_result.questions == first.preprocess_step_result.questions
    assert first.provenance.shared_steps == [] and second.provenance.shared_steps == ["answerable", "questions"]
    assert "questions" not in [st.step for st in second.provenance.steps]
    s.run(input=SOURCE + " A different source.", output=SUMMARY)
    assert [c.step for c in judge.calls].count("questions") == 2


def test_prompt_version_is_the_newest_step_version():
    from localsumm.summarization import prompts

    def order(version: str) -> tuple[str, int]:
        day, n = version.split(".")
        return day, int(n)

    assert prompts.PROMPT_VERSION == max(prompts.STEP_VERSIONS.values(), key=order)
    with pytest.raises(ValueError, match="unknown judge step"):
        prompts.step_version("summarise")


def test_a_source_of_several_passages_is_asked_passage_by_passage():
    from localsumm.summarization.plan import PASSAGE_TOKENS

    # 60 sentences of 8 words: 480 "tokens" (the scripted judge counts words), 3 passages of 160.
    sentences = [f"Fact {i} says that thing {i} is true." for i in range(60)]
    source = " ".join(sentences)
    assert 2 * PASSAGE_TOKENS < len(source.split()) <= 3 * PASSAGE_TOKENS
    judge = ScriptedJudge(
        claims=["A claim."],
        question_sets=[
            ["Is fact 0 true?", "Is fact 1 true?"],
            ["Is fact 25 true?", "Is fact 0 true?"],
            ["Is fact 50 true?"],
        ],
        claim_probabilities=[1.0],
        question_probabilities=[1.0, 0.0, 1.0, 0.0],
    )
    r = create_summarization_scorer(judge, claims="extracted").run(input=source, output=SUMMARY)
    asked = [c.prompt for c in judge.calls if c.step == "questions"]
    assert len(asked) == 3
    for i, prompt in enumerate(asked):
        assert source in prompt  # the whole document, for context
        passage = prompt.split("<passage>\n", 1)[1].split("\n</passage>", 1)[0]
        assert sentences[20 * i] in passage and sentences[20 * i - 1 if i else 20] not in passage
    # In passage order, a repeated question once.
    assert r.preprocess_step_result.questions == [
        "Is fact 0 true?",
        "Is fact 1 true?",
        "Is fact 25 true?",
        "Is fact 50 true?",
    ]
    assert r.coverage_score == 0.5


def test_a_short_source_or_a_small_max_questions_asks_the_whole_source():
    judge = ScriptedJudge(claims=["A claim."], questions=["Is it so?"])
    long_source = " ".join(f"Fact {i} says that thing {i} is true." for i in range(60))
    create_summarization_scorer(judge, claims="extracted").run(input=SOURCE, output=SUMMARY)
    create_summarization_scorer(judge, max_questions=5, claims="extracted").run(input=long_source, output=SUMMARY)
    asked = [c.prompt for c in judge.calls if c.step == "questions"]
    assert len(asked) == 2 and not any("<passage>" in p for p in asked)


def test_a_claim_naming_a_number_or_name_absent_from_the_source_is_not_supported():
    # The scripted judge supports every claim; the literal check still refuses the two that name
    # what the source never mentions (2021, Portland), and says so in the verdict's reason.
    kwargs = dict(
        questions=["Was it founded in 1995?"], claim_probabilities=[0.9, 0.9, 0.9], question_probabilities=[0.9]
    )
    claims = ["The company was founded in 1995 by John Smith.", "It was sold in 2021.", "It is based in Portland."]
    checked = create_summarization_scorer(ScriptedJudge(claims=claims, **kwargs), claims="extracted").run(
        input=SOURCE, output=SUMMARY
    )
    verdicts = checked.preprocess_step_result.alignment
    assert [v.supported for v in verdicts] == [True, False, False]
    assert [v.unmatched for v in verdicts] == [[], ["2021"], ["Portland"]]
    assert verdicts[1].probability == 0.9
    assert verdicts[1].reason.startswith('judge probability 0.90 ≥ threshold 0.50; not in the source: "2021"')
    assert checked.alignment_score == pytest.approx(1 / 3, abs=1e-4) and checked.provenance.literal_check
    assert '"It was sold in 2021."' in checked.reason

    trusted = create_summarization_scorer(
        ScriptedJudge(claims=claims, **kwargs), claims="extracted", literal_check=False
    ).run(input=SOURCE, output=SUMMARY)
    assert all(v.supported and not v.unmatched for v in trusted.preprocess_step_result.alignment)
    assert trusted.alignment_score == 1.0 and not trusted.provenance.literal_check


def test_graded_scoring_counts_a_claim_the_literal_check_refused_as_zero():
    claims = ["The company was founded in 1995 by John Smith.", "It was sold in 2021."]
    judge = ScriptedJudge(
        claims=claims,
        questions=["Was it founded in 1995?"],
        claim_probabilities=[0.8, 0.9],
        question_probabilities=[0.7],
    )
    result = create_summarization_scorer(judge, claims="extracted", scoring="graded").run(input=SOURCE, output=SUMMARY)
    assert result.alignment_score == pytest.approx(1 / 2, abs=1e-4)  # 2021 is nowhere in the source: 0, not 1
    assert result.coverage_score == pytest.approx(0.9, abs=1e-4) and result.score == 0.5
    assert result.provenance.scoring == "graded"


def test_a_chinese_summary_gets_its_questions_and_claims_asked_in_chinese():
    source = "青川市政府周二宣布，新大桥将于2021年5月通车。大桥全长1.2公里。"
    summary = "新大桥将于2021年5月通车。大桥全长1.2公里。"
    judge = ScriptedJudge(
        claims=["新大桥将于2021年5月通车。"],
        questions=["新大桥是否于2021年5月通车？"],
        claim_probabilities=[0.9, 0.9],
        question_probabilities=[0.9],
    )
    r = create_summarization_scorer(judge).run(input=source, output=summary)
    assert r.provenance.language == "zh"
    assert [v.claim for v in r.preprocess_step_result.alignment] == ["新大桥将于2021年5月通车。", "大桥全长1.2公里。"]
    [ask] = [c for c in judge.calls if c.step == "questions"]
    assert "Write the questions in Chinese." in ask.prompt and "是否于1932年" in ask.prompt
    english = ScriptedJudge(
        questions=["Was it founded in 1995?"], claim_probabilities=[0.9], question_probabilities=[0.9]
    )
    english_result = create_summarization_scorer(english).run(input=SOURCE, output=SUMMARY)
    assert english_result.provenance.language == "en"
    assert not any("Write the questions in" in c.prompt for c in english.calls)


def test_a_question_the_source_does_not_answer_is_dropped_before_coverage_and_recorded():
    s, judge = scorer(
        claims=["The company was founded in 1995."],
        questions=["Was it founded in 1995?", "Did David Chen become chair?", "Is it based in Seattle?"],
        claim_probabilities=[0.9],
        answerable_probabilities=[0.9, 0.1, 0.8],
        question_probabilities=[0.9, 0.2],
    )
    r = s.run(input=SOURCE, output=SUMMARY)
    assert r.preprocess_step_result.questions == ["Was it founded in 1995?", "Is it based in Seattle?"]
    [dropped] = r.preprocess_step_result.dropped_questions
    assert dropped.question == "Did David Chen become chair?" and dropped.probability == 0.1
    assert dropped.reason.startswith('the source does not answer it "yes": judge probability 0.10 < threshold 0.50')
    # Coverage asks only the kept questions, in the summary context, and counts only them.
    assert [v.question for v in r.analyze_step_result.coverage] == r.preprocess_step_result.questions
    assert r.coverage_score == 0.5
    checks = [c for c in judge.calls if c.step == "answerable"]
    assert len(checks) == 3 and all(SOURCE in c.prompt for c in checks)
    assert r.provenance.question_check is True


def test_without_the_check_every_question_is_asked():
    s, judge = scorer(
        {"question_check": False},
        claims=["A claim here."],
        questions=["Is it so?", "Is it not?"],
        claim_probabilities=[1.0],
        answerable_probabilities=[0.0, 0.0],
        question_probabilities=[1.0, 1.0],
    )
    r = s.run(input=SOURCE, output=SUMMARY)
    assert (
        r.preprocess_step_result.questions == ["Is it so?", "Is it not?"]
        and not r.preprocess_step_result.dropped_questions
    )
    assert not [c for c in judge.calls if c.step == "answerable"] and r.provenance.question_check is False


def test_if_every_question_would_be_dropped_the_most_answerable_is_kept():
    s, _ = scorer(
        claims=["A claim here."],
        questions=["Is it so?", "Is it not?"],
        claim_probabilities=[1.0],
        answerable_probabilities=[0.2, 0.4],
        question_probabilities=[1.0],
    )
    r = s.run(input=SOURCE, output=SUMMARY)
    assert r.preprocess_step_result.questions == ["Is it not?"]
    assert [d.question for d in r.preprocess_step_result.dropped_questions] == ["Is it so?"]
    assert r.scorable


def test_a_later_summary_of_the_source_reuses_the_checked_questions():
    s, judge = scorer(
        claims=["A claim here."],
        questions=["Is it so?", "Is it not?"],
        claim_probabilities=[1.0, 1.0],
        answerable_probabilities=[0.9, 0.1],
        question_probabilities=[1.0, 1.0],
    )
    first = s.run(input=SOURCE, output=SUMMARY)
    second = s.run(input=SOURCE, output=SUMMARY + " More.")
    assert second.preprocess_step_result.dropped_questions == first.preprocess_step_result.dropped_questions
    assert len([c for c in judge.calls if c.step == "answerable"]) == 2
    assert {"questions", "answerable"} <= set(second.provenance.shared_steps)


KEY_FACT_JUDGE = dict(
    claims=["The company was founded in 1995."],
    questions=["Was it founded in 1995?", "Is it based in Seattle?"],
    claim_probabilities=[0.9, 0.9],
    question_probabilities=[0.9, 0.2, 0.8, 0.1, 0.9, 0.2, 0.8, 0.1],
    highlights=["John Smith founded the company in 1995, and it is based in Seattle."],
    key_facts=["John Smith founded the company in 1995.", "The company is based in Seattle."],
)


def test_key_facts_are_asked_after_the_questions_and_count_as_they_do():
    s, judge = scorer(**KEY_FACT_JUDGE)
    r = s.run(input=SOURCE, output=SUMMARY)
    pre = r.preprocess_step_result
    assert pre.highlights == KEY_FACT_JUDGE["highlights"] and pre.key_facts == KEY_FACT_JUDGE["key_facts"]
    assert pre.questions == KEY_FACT_JUDGE["questions"]
    assert [v.question for v in r.analyze_step_result.coverage] == pre.questions + [
        "Is it true that John Smith founded the company in 1995?",
        "Is it true that The company is based in Seattle?",
    ]
    # Questions 1 and 2 count 1 and 0, the facts their probabilities 0.8 and 0.1 (the default, scoring "facts").
    assert r.coverage_score == 0.475 and r.provenance.key_facts is True
    # The highlights are written beside the source; the split and coverage never see it.
    [highlights] = [c for c in judge.calls if c.step == "highlights"]
    [split] = [c for c in judge.calls if c.step == "key_facts"]
    assert (
        SOURCE in highlights.prompt and SOURCE not in split.prompt and KEY_FACT_JUDGE["highlights"][0] in split.prompt
    )
    assert not any(SOURCE in c.prompt for c in judge.calls if c.step == "coverage")
    assert "does not answer 2 of 4 questions" in r.reason and "each key fact by its probability" in r.reason
    # Without key facts the default rule counts every verdict, and the reason does not mention it.
    plain, _ = scorer({"key_facts": False}, **KEY_FACT_JUDGE)
    without = plain.run(input=SOURCE, output=SUMMARY)
    assert without.provenance.scoring == "facts" and "key fact" not in without.reason


def test_a_later_summary_reuses_the_key_facts_and_without_the_option_none_are_written():
    s, judge = scorer(**KEY_FACT_JUDGE)
    first = s.run(input=SOURCE, output=SUMMARY)
    second = s.run(input=SOURCE, output=SUMMARY + " More.")
    assert second.preprocess_step_result.key_facts == first.preprocess_step_result.key_facts
    assert len([c for c in judge.calls if c.step in ("highlights", "key_facts")]) == 2
    assert {"highlights", "key_facts"} <= set(second.provenance.shared_steps)

    plain, judge = scorer({"key_facts": False}, **KEY_FACT_JUDGE)
    r = plain.run(input=SOURCE, output=SUMMARY)
    assert not r.preprocess_step_result.key_facts and r.provenance.key_facts is False
    assert not [c for c in judge.calls if c.step in ("highlights", "key_facts")]
    assert len(r.analyze_step_result.coverage) == 2


def test_key_facts_the_source_does_not_answer_are_dropped_as_questions_are():
    # The 2 questions pass their check; of the 2 facts, the second does not.
    judge = ScriptedJudge(**KEY_FACT_JUDGE, answerable_probabilities=[0.9, 0.9, 0.9, 0.2])
    s = create_summarization_scorer(judge, key_facts=True)
    r = s.run(input=SOURCE, output=SUMMARY)
    pre = r.preprocess_step_result
    seattle = "Is it true that The company is based in Seattle?"
    assert pre.key_facts == KEY_FACT_JUDGE["key_facts"][:1]
    assert [(d.question, d.probability) for d in pre.dropped_questions] == [(seattle, 0.2)]
    assert 'does not answer it "yes": judge probability 0.20' in pre.dropped_questions[0].reason
    assert (
        seattle not in [v.question for v in r.analyze_step_result.coverage] and len(r.analyze_step_result.coverage) == 3
    )
    # Checked in the source context, like the questions; a later summary shares the verdicts.
    checks = [c for c in judge.calls if c.step == "answerable"]
    assert len(checks) == 4 and all(SOURCE in c.prompt for c in checks) and seattle in checks[-1].prompt
    later = s.run(input=SOURCE, output=SUMMARY + " More.")
    assert later.preprocess_step_result.dropped_questions == pre.dropped_questions
    assert len([c for c in judge.calls if c.step == "answerable"]) == 4

    unchecked = ScriptedJudge(**KEY_FACT_JUDGE, answerable_probabilities=[0.9, 0.9, 0.9, 0.2])
    r = create_summarization_scorer(unchecked, key_facts=True, question_check=False).run(input=SOURCE, output=SUMMARY)
    assert (
        r.preprocess_step_result.key_facts == KEY_FACT_JUDGE["key_facts"]
        and not r.preprocess_step_result.dropped_questions
    )


def test_key_facts_are_english_only():
    source = "这家公司由约翰·史密斯于1995年创立。它位于西雅图。"
    s, judge = scorer(
        claims=["公司成立于1995年。"],
        questions=["公司是否成立于1995年？"],
        claim_probabilities=[0.9],
        question_probabilities=[0.9],
        highlights=["公司成立于1995年。"],
        key_facts=["公司成立于1995年。"],
    )
    r = s.run(input=source, output="这家公司成立于1995年，位于西雅图。")
    assert r.provenance.language == "zh" and not r.preprocess_step_result.key_facts
    assert not [c for c in judge.calls if c.step in ("highlights", "key_facts")]


def failing_at(step: str, message: str) -> type[ScriptedJudge]:
    """A scripted judge whose generation at ``step`` fails as a judge that runs to its token cap does."""
    from localsumm.errors import JudgeError

    class Failing(ScriptedJudge):
        def generate(self, step_, messages, output_type, max_tokens):
            if step_ == step:
                self.failures = getattr(self, "failures", 0) + 1
                raise JudgeError(message)
            return super().generate(step_, messages, output_type, max_tokens)

    return Failing


def test_a_split_that_fails_leaves_the_highlights_as_the_key_facts():
    judge = failing_at("key_facts", "key_facts: the generation hit its cap of 80 tokens")(**KEY_FACT_JUDGE)
    r = create_summarization_scorer(judge, claims="extracted", key_facts=True).run(input=SOURCE, output=SUMMARY)
    assert r.preprocess_step_result.key_facts == KEY_FACT_JUDGE["highlights"]


def test_highlights_that_fail_cost_the_key_facts_not_the_score():
    message = "highlights: the judge's answer hit its cap of 480 tokens"
    judge = failing_at("highlights", message)(**KEY_FACT_JUDGE)
    s = create_summarization_scorer(judge, claims="extracted")
    r = s.run(input=SOURCE, output=SUMMARY)
    pre = r.preprocess_step_result
    assert not pre.key_facts and not pre.highlights and pre.key_facts_failed == [message]
    assert len(r.analyze_step_result.coverage) == len(pre.questions) == 2 and r.coverage_score == 0.5
    # A later summary of the source keeps the record without generating the highlights again.
    later = s.run(input=SOURCE, output=SUMMARY + " More.")
    assert later.preprocess_step_result.key_facts_failed == [message] and judge.failures == 1
    assert "highlights" in later.provenance.shared_steps


def test_a_sentence_with_no_letter_or_digit_is_no_claim():
    """Tokenised summaries (SummEval's systems) set a closing quote after the stop: the splitter leaves it alone,
    and the scorer must not ask the judge whether "'" is supported."""
    summary = "Bolt insists he does ` his best to make his country proud . ' He will run in May ."
    claims = summary_claims(ScriptedJudge(), summary, "sentences", StepLog())
    assert claims == ["Bolt insists he does ` his best to make his country proud .", "He will run in May ."]


def test_a_judge_that_writes_questions_without_a_question_mark_scores_as_the_reference_would():
    """The reference's own mocked judges write "Question A": a judge without our grammar may too. Its questions are
    asked as written, a "?" added, and counted as every question is; never a validation traceback."""
    s, _ = scorer(
        {"key_facts": False},
        claims=["Founded in 1995 by John Smith."],
        questions=["Question A", "  Question B ", ""],
        claim_probabilities=[0.9],
        question_probabilities=[0.9, 0.1],
    )
    result = s.run(input=SOURCE, output=SUMMARY)
    assert [v.question for v in result.analyze_step_result.coverage] == ["Question A?", "Question B?"]
    assert result.alignment_score == 1 and result.coverage_score == 0.5 and result.score == 0.5


def test_a_judge_that_writes_nothing_to_ask_fails_that_item_clearly():
    from localsumm import run_evals
    from localsumm.errors import JudgeError

    s, _ = scorer({"key_facts": False}, claims=["Founded in 1995."], questions=[], claim_probabilities=[0.9])
    with pytest.raises(JudgeError, match="the judge wrote no question and no key fact of this source"):
        s.run(input=SOURCE, output=SUMMARY)
    run = run_evals(data=[{"input": SOURCE, "output": SUMMARY}], scorers=[s])
    assert (
        run.scores[s.id] is None and "JudgeError: questions: the judge wrote no question" in run.items[0].errors[s.id]
    )
