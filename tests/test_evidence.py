"""Evidence: each verdict's source sentence, by offsets into the source as given; what the summary left out;
the opt-in verification modes that ask the judge about the evidence sentences."""

from __future__ import annotations

import pytest

from localsumm import Options, create_summarization_scorer
from localsumm.errors import ConfigError
from localsumm.text import LexicalIndex, pieces, sentence_spans, sentences

from .conftest import SOURCE, SUMMARY, load_script
from .scripted import ScriptedJudge

PLAIN = "The company was founded in 1995 by John Smith. It grew to 500 employees by 2020. It is based in Seattle."


def check_offsets(source: str, evidence) -> None:
    """Every pointer names its text by offsets into the source as given: exactly, whitespace excluded."""
    for e in evidence:
        assert source[e.start : e.end] == e.text == e.text.strip() and e.text


def run(source: str, summary: str, *, options: dict | None = None, **judge):
    return create_summarization_scorer(ScriptedJudge(**judge), **(options or {})).run(input=source, output=summary)


def test_pieces_are_the_sentences_and_a_sentence_without_ends_is_cut_at_clause_marks():
    assert pieces(PLAIN) == sentence_spans(PLAIN)
    line = ", ".join(f"clause {i} of a line that never stops" for i in range(40))  # 1,400 characters, no stop
    cut = pieces(line, limit=200)
    assert len(cut) > 6 and all(b - a <= 200 for a, b in cut)
    assert all(line[a:b].endswith(",") for a, b in cut[:-1])  # after a clause mark, not mid-word
    assert " ".join(line[a:b] for a, b in cut) == line  # nothing lost: the gaps are the spaces after the cuts
    chinese = "字" * 450  # no punctuation, no space: cut between characters
    assert pieces(chinese, limit=200) == [(0, 200), (200, 400), (400, 450)]


def test_bm25_prefers_the_sentence_sharing_the_rare_words_and_breaks_ties_in_source_order():
    docs = ["The company opened a bar.", "The company opened in Seattle.", "The company hired a chef."]
    index = LexicalIndex.of(docs)
    assert index.ranked("Seattle company")[0][0] == 1  # "company" is in every sentence, "Seattle" in one
    assert [i for i, _ in index.ranked("nothing shared")] == [0, 1, 2]
    assert index.ranked("company opened", among=[2, 0])[0][0] == 0


def test_each_verdict_points_at_its_source_sentence_and_the_rest_is_left_out():
    result = run(
        PLAIN,
        "John Smith founded the company in 1995. It is based in Seattle. Yes.",
        questions=["Did it grow to 500 employees by 2020?", "Is it based in Seattle?"],
        claim_probabilities=[0.9, 0.9, 0.1],
        question_probabilities=[0.1, 0.9],
    )
    founded, seattle, bare = result.preprocess_step_result.alignment
    assert [e.index for e in founded.evidence] == [0] and [e.index for e in seattle.evidence] == [2]
    assert bare.evidence == []  # "Yes." shares no word with the source: no pointer rather than a guess
    assert founded.evidence[0].ranked_by == "lexical" and founded.evidence[0].probability is None
    assert founded.evidence[0].lexical_score > 0 and founded.whole_probability is None
    employees, based = result.analyze_step_result.coverage
    assert [e.index for e in employees.evidence] == [1] and [e.index for e in based.evidence] == [2]
    for v in [founded, seattle, employees, based]:
        check_offsets(PLAIN, v.evidence)
    # Sentence 1 answers only a question the summary misses: left out. 0 and 2 are in the summary.
    [left] = result.analyze_step_result.left_out
    assert (left.index, left.text) == (1, "It grew to 500 employees by 2020.")
    check_offsets(PLAIN, [left])
    assert result.provenance.verification == "whole"
    assert "evidence" not in {step.step for step in result.provenance.steps}


def test_a_chinese_source_points_at_its_own_sentences():
    source = "青川市政府周二宣布，新大桥将于2021年5月通车。大桥全长1.2公里。\n\n市长表示，大桥投资五亿元。"
    result = run(
        source,
        "大桥全长1.2公里。新大桥将于2021年5月通车。",
        questions=["大桥是否投资五亿元？"],
        claim_probabilities=[0.9, 0.9],
        question_probabilities=[0.1],
    )
    length, opening = result.preprocess_step_result.alignment
    assert [e.text for e in length.evidence] == ["大桥全长1.2公里。"]
    assert [e.text for e in opening.evidence] == ["青川市政府周二宣布，新大桥将于2021年5月通车。"]
    [question] = result.analyze_step_result.coverage
    assert [e.text for e in question.evidence] == ["市长表示，大桥投资五亿元。"]
    check_offsets(source, length.evidence + opening.evidence + question.evidence)
    assert [s.text for s in result.analyze_step_result.left_out] == ["市长表示，大桥投资五亿元。"]


def test_a_source_without_sentence_ends_points_at_a_bounded_clause():
    clauses = [f"the {w} committee met on day {i} and approved item {w}{i}" for i, w in enumerate(["red", "blue"] * 15)]
    source = "minutes of the meeting: " + ", ".join(clauses)  # one line of 1,500 characters, no stop
    result = run(source, "The blue committee approved item blue13.", claim_probabilities=[0.9], questions=["Q?"])
    [evidence] = result.preprocess_step_result.alignment[0].evidence
    check_offsets(source, [evidence])
    assert len(evidence.text) <= 400 and "blue13" in evidence.text and evidence.text.endswith(",")


def test_a_windowed_source_points_into_the_whole_source_within_the_supporting_window():
    sentences = [f"Sentence {i} " + " ".join(f"w{i}x{j}" for j in range(18)) + "." for i in range(30)]
    source = " ".join(sentences)
    result = create_summarization_scorer(
        ScriptedJudge(
            # The second claim shares more with sentence 3 (window 1) than with 25, but window 3 supports it.
            claims=["w3x1 and w3x2 hold.", "w25x4 holds beside w3x1 and w3x2."],
            questions=["Is one thing so?"],
            claim_probabilities=[0.9, 0.2, 0.3, 0.8],
            context_size=669 + 250,  # three windows (see test_scorer)
        ),
        max_questions=4,
        claims="extracted",
    ).run(input=source, output=SUMMARY)
    windows = result.provenance.source_windows
    assert windows is not None and len(windows) == 3
    first, late = result.preprocess_step_result.alignment
    assert late.window == 2 and [e.text for e in late.evidence] == [sentences[25]]
    [e] = late.evidence
    assert windows[2].start <= e.start < e.end <= windows[2].end  # offsets into the whole source, not the window
    check_offsets(source, first.evidence + late.evidence)


def test_verification_evidence_asks_each_best_matching_sentence_alone_and_keeps_the_most_supportive():
    judge = ScriptedJudge(
        questions=["Is it based in Seattle?"],
        # Candidates of "John Smith founded it in Seattle.", in source order of the batches (one per sentence):
        # sentence 0 (0.3), 1 (0.2), 2 (0.8); the whole source is never asked.
        evidence_probabilities=[0.3, 0.2, 0.8],
        question_probabilities=[0.9],
    )
    scorer = create_summarization_scorer(judge, verification="evidence")
    result = scorer.run(input=PLAIN, output="John Smith founded it in Seattle.")
    [verdict] = result.preprocess_step_result.alignment
    assert verdict.probability == 0.8 and verdict.supported and verdict.whole_probability is None
    assert [(e.index, e.probability, e.ranked_by) for e in verdict.evidence] == [
        (2, 0.8, "judge"),
        (0, 0.3, "judge"),
        (1, 0.2, "judge"),
    ]
    check_offsets(PLAIN, verdict.evidence)
    asked = [c.prompt for c in judge.calls if c.step == "evidence"]
    assert len(asked) == 3 and not [c for c in judge.calls if c.step == "alignment"]
    assert all(PLAIN not in p for p in asked) and "<document>\nIt is based in Seattle.\n</document>" in asked[2]
    assert "(the most supportive of 3 source sentences judged alone)" in verdict.reason
    assert 'closest source sentence: "It is based in Seattle."' in verdict.reason
    assert result.provenance.verification == "evidence" and "evidence" in {s.step for s in result.provenance.steps}


def test_verification_both_averages_the_whole_source_and_the_best_sentence():
    judge = ScriptedJudge(
        questions=["Is it based in Seattle?"],
        claim_probabilities=[0.4, 0.9],
        # One batch per sentence, the two claims in each: "founded" 0.7, 0.0, 0.1; "sold" 0.2, 0.9, 0.3.
        evidence_probabilities=[0.7, 0.2, 0.0, 0.9, 0.1, 0.3],
        question_probabilities=[0.9],
    )
    summary = "The company was founded in 1995 by John Smith. It was sold in 2021 in Seattle."
    result = create_summarization_scorer(judge, verification="both").run(input=PLAIN, output=summary)
    founded, sold = result.preprocess_step_result.alignment
    assert founded.whole_probability == 0.4 and founded.probability == pytest.approx((0.4 + 0.7) / 2)
    assert founded.supported and founded.evidence[0].index == 0
    assert "(mean of 0.40 on the whole source and 0.70 on the best of 3 source sentences)" in founded.reason
    # The judge's support does not outweigh the literal check: 2021 is nowhere in the source.
    assert sold.probability == pytest.approx((0.9 + 0.9) / 2) and not sold.supported and sold.unmatched == ["2021"]
    assert [c.step for c in judge.calls].index("alignment") < [c.step for c in judge.calls].index("evidence")


def test_verification_is_an_option_checked_recorded_and_a_flag():
    import click
    import typer.main

    from localsumm.cli import app

    with pytest.raises(ConfigError, match="verification must be one of whole, evidence, both"):
        Options(verification="sentence")  # type: ignore[arg-type]
    assert Options(verification="both").recorded()["verification"] == "both"
    root = typer.main.get_command(app)
    score = root.get_command(click.Context(root), "score")  # type: ignore[attr-defined]
    [flag] = [p for p in score.params if p.name == "verification"]
    assert flag.opts == ["--verification"] and flag.default == "whole"


def test_a_result_stored_before_evidence_reads_as_whole_verification():
    from localsumm.summarization.result import SummarizationResult

    stored = run(PLAIN, SUMMARY, questions=["Q?"]).to_dict()
    del stored["provenance"]["verification"]
    for v in stored["preprocess_step_result"]["alignment"] + stored["analyze_step_result"]["coverage"]:
        del v["evidence"]
    assert SummarizationResult.from_stored(stored).provenance.verification == "whole"


def test_evidence_on_the_real_engine(small_judge):
    questions = ["Was Harbor Lights Brewing founded in 1995?", "Did the company open a brewery in Burlington?"]
    scorer = create_summarization_scorer(small_judge, verification="both")
    calls = []
    result = scorer.run(input=SOURCE, output=SUMMARY, questions=questions, on_call=calls.append)
    claims = result.preprocess_step_result.alignment
    assert len(claims) == 3
    for v in claims:
        assert len(v.evidence) == 3 and all(e.ranked_by == "judge" for e in v.evidence)
        probabilities = [e.probability for e in v.evidence]
        assert probabilities == sorted(probabilities, reverse=True) and all(0 <= p <= 1 for p in probabilities)
        assert v.probability == pytest.approx((v.whole_probability + probabilities[0]) / 2, abs=2e-4)
        check_offsets(SOURCE, v.evidence)
    assert claims[0].evidence[0].lexical_score > 0
    [burlington] = [v for v in result.analyze_step_result.coverage if "Burlington" in v.question]
    assert "Burlington" in burlington.evidence[0].text
    check_offsets(SOURCE, result.analyze_step_result.left_out)
    evidence_calls = [c for c in calls if c.step == "evidence"]
    assert len(evidence_calls) == 9 and all(SOURCE not in c.prompt for c in evidence_calls)


def test_the_terminal_shows_each_claims_sentence_and_what_was_left_out():
    import io

    from rich.console import Console

    from localsumm.reports.terminal import print_result

    source = PLAIN + " " + " ".join(f"Fact {i} happened on day {i}." for i in range(8))
    result = run(
        source,
        "John Smith founded the company in 1995. It is based in Seattle.",
        options={"verification": "evidence"},
        questions=["Is it based in Seattle?"],
        evidence_probabilities=[0.9, 0.1, 0.2, 0.3, 0.4, 0.8],  # founded: sentence 0 best; Seattle: sentence 2
        question_probabilities=[0.9],
    )
    buffer = io.StringIO()
    print_result(result, Console(file=buffer, width=200))
    shown = buffer.getvalue()
    assert '↳ source sentence 1 (p 0.90 alone): "The company was founded in 1995 by John Smith."' in shown
    assert '↳ source sentence 3 (p 0.80 alone): "It is based in Seattle."' in shown
    assert "Left out of the summary: 9 source sentences that no answered question, key fact or supported" in shown
    assert "  2. It grew to 500 employees by 2020." in shown and "  7. Fact 3 happened" in shown
    assert "Fact 4 happened" not in shown and "... and 4 more (--json lists them all)" in shown


def test_the_report_leaves_a_source_unmarked_when_the_offsets_are_not_its_own():
    from localsumm.reports.html import render
    from localsumm.runs.results import ResultLine

    result = run(PLAIN, "It is based in Seattle.", claim_probabilities=[0.9], questions=["Q?"])
    stored = {"status": "scored", "result": result.to_dict()}
    same = render([ResultLine({"id": "x", "source": PLAIN, "summary": "s", "localsumm": stored}, 1)], "t")
    edited = PLAIN.replace("The company", "A firm")
    other = render([ResultLine({"id": "x", "source": edited, "summary": "s", "localsumm": stored}, 1)], "t")
    assert '<span id="i1-s2" class="supports"' in same and 'href="#i1-s2"' in same
    assert "<span id=" not in other and "A firm was founded" in other


def test_a_copied_claims_evidence_is_the_sentence_it_was_copied_from_on_the_real_engine(small_judge):
    """Issue 46's checkable target on a shipped sample: the extractive systems' summaries of 2 SummEval documents
    (their sentences are source sentences, near-verbatim), judged whole; the full set is
    ``benchmarks/verification_modes.py extractive``."""
    vm = load_script("benchmarks/verification_modes.py")
    items = [i for i in vm.read_jsonl(vm.SETS["systems"]) if i["meta"]["system"] in vm.EXTRACTIVE]
    documents = sorted({i["meta"]["doc_id"] for i in items})[:2]
    scorer = create_summarization_scorer(small_judge)
    checked = 0
    for item in (i for i in items if i["meta"]["doc_id"] in documents):
        source, summary = item["source"], item["summary"]
        claims = sentences(summary)
        verdicts, _ = scorer.verdicts_on(source, summary, claims, [])
        for v in verdicts:
            copied, ratio = vm.copied_sentence(v.claim, source)
            if ratio < 0.8:
                continue
            checked += 1
            assert v.evidence and v.evidence[0].index == copied, (item["id"], v.claim)
            check_offsets(source, v.evidence)
    assert checked >= 12
