"""Question files (summarization.questionset): parsing, refusals, and the scorer asking a given set.

Pure logic and a scripted judge here; the real engine writes and reads question files in test_questions.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localsumm.config.options import Options
from localsumm.errors import ConfigError, InputError
from localsumm.summarization.questionset import (
    SCHEMA,
    DataSource,
    QuestionFile,
    QuestionSet,
    json_schema,
    reference_question_set,
    source_sha256,
)
from localsumm.summarization.questionset.reference import clean_fact
from localsumm.summarization.scorer import SummarizationScorer

from .scripted import ScriptedJudge

SOURCE = "The bridge opened in May 2021. It is 1.2 km long."
SUMMARY = "The bridge opened in May 2021."


def line(**changes: object) -> str:
    data = {
        "schema": SCHEMA,
        "source_sha256": source_sha256(SOURCE),
        "language": "en",
        "questions": ["Did the bridge open in May 2021?"],
        "key_facts": ["The bridge is 1.2 km long."],
    }
    data.update(changes)
    return json.dumps(data)


def write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_written_set_reads_back_as_it_was(tmp_path):
    qs = QuestionSet(
        source_sha256=source_sha256(SOURCE),
        id="a",
        language="en",
        questions=["Did it open?"],
        key_facts=["It opened."],
        provenance={"origin": "person"},
    )
    file = QuestionFile.load(write(tmp_path, qs.to_line()))
    found = file.find(SOURCE)
    assert found is not None and found.question_set == qs and found.origin.line == 1
    assert found.origin.origin == "file" and found.origin.file_sha256 == file.sha256
    assert json.loads(qs.to_line())["schema"] == SCHEMA
    assert file.find(SOURCE + " ") is None  # the exact text, as scored


@pytest.mark.parametrize(
    "bad, message",
    [
        ("{not json", "line 2 is not JSON"),
        ("[1, 2]", "line 2 is a JSON list"),
        (
            json.dumps({"id": "x", "source": "text", "summary": "s"}),
            "line 2 is not a question set: it has no schema and source_sha256 (it looks like a data record",
        ),
        (
            line(schema="localsumm.questions/9"),
            "line 2 has schema 'localsumm.questions/9'; this localsumm reads 'localsumm.questions/1'",
        ),
        (line(source_sha256="abc"), "line 2: source_sha256: must be 64 lowercase hex digits"),
        (line(questions=[], key_facts=[]), "line 2: the line: it has no questions and no key facts"),
        (line(questions=["The bridge opened."]), "line 2: questions: question 1 does not end with '?'"),
        (line(questions=["  "]), "line 2: questions: question 1 is empty"),
        (line(colour="red"), "line 2: colour: Extra inputs are not permitted"),
    ],
)
def test_a_bad_line_is_refused_with_its_number(tmp_path, bad, message):
    other = line(source_sha256=source_sha256("another source"))
    with pytest.raises(InputError) as e:
        QuestionFile.load(write(tmp_path, other, bad))
    assert message in str(e.value)
    assert str(e.value).count("\n") <= 2


def test_two_sets_for_one_source_are_refused(tmp_path):
    with pytest.raises(InputError, match="line 3 repeats the source of line 1"):
        QuestionFile.load(write(tmp_path, line(), line(source_sha256=source_sha256("x")), line()))


def test_an_empty_file_is_refused(tmp_path):
    with pytest.raises(InputError, match="holds no question set"):
        QuestionFile.load(write(tmp_path, ""))


def test_a_source_edited_since_is_refused_with_both_hashes(tmp_path):
    file = QuestionFile.load(write(tmp_path, line(id="r1")))
    edited = SOURCE.replace("May", "June")
    with pytest.raises(InputError) as e:
        file.check_record(DataSource("r1", edited, "data.jsonl: line 4", required=False))
    text = str(e.value)
    assert "the source has changed since" in text and "line 1 was written for record r1" in text
    assert source_sha256(SOURCE)[:16] in text and source_sha256(edited)[:16] in text
    # another record: not in the file, and not required to be
    assert file.check_record(DataSource("r2", edited, "data.jsonl: line 5", required=False)) is None


def test_a_data_file_is_checked_against_the_question_file_in_one_place(tmp_path):
    file = QuestionFile.load(write(tmp_path, line(id="r1")))
    ok = DataSource("r1", SOURCE, "data.jsonl: line 1 (id r1)", required=True)
    other = DataSource("r2", "another source", "data.jsonl: line 2 (id r2)", required=False)
    file.check_data([ok, other], "data.jsonl")  # one source found, the other generated: accepted
    with pytest.raises(
        InputError, match=r"line 2 \(id r2\): .* holds no question set for this source .* --questions-only"
    ):
        file.check_data([ok, other._replace(required=True)], "data.jsonl")
    with pytest.raises(InputError, match="holds question sets for 1 sources, none of them a source of data.jsonl"):
        file.check_data([other], "data.jsonl")


def test_the_schema_documents_every_field():
    schema = json_schema()
    assert set(schema["properties"]) == {
        "schema",
        "source_sha256",
        "id",
        "language",
        "questions",
        "key_facts",
        "facts_as",
        "highlights",
        "dropped",
        "provenance",
    }
    assert schema["properties"]["schema"]["const"] == SCHEMA


def scorer(path: Path | None = None, **judge: object) -> tuple[SummarizationScorer, ScriptedJudge]:
    j = ScriptedJudge(claim_probabilities=[0.9], question_probabilities=[0.9, 0.1], **judge)  # type: ignore[arg-type]
    return SummarizationScorer(j, options=Options(questions=str(path) if path else None)), j


def test_a_file_set_is_asked_exactly_with_no_question_step(tmp_path):
    path = write(tmp_path, line(id="r1", provenance={"origin": "person", "by": "ana"}))
    s, judge = scorer(path, questions=["Never asked?"])
    result = s.run(input=SOURCE, output=SUMMARY)
    assert [c.step for c in judge.calls] == ["alignment", "coverage", "coverage"]
    assert [v.question for v in result.analyze_step_result.coverage] == [
        "Did the bridge open in May 2021?",
        "Is it true that The bridge is 1.2 km long?",
    ]
    assert result.coverage_score == 0.55 and result.score == 0.55  # 1 for the question, 0.1 for the fact
    origin = result.provenance.questions
    assert origin is not None and origin.origin == "file" and origin.line == 1
    assert origin.file_sha256 == QuestionFile.load(path).sha256 and origin.written_by == {
        "origin": "person",
        "by": "ana",
    }


def test_a_file_asks_all_its_questions_whatever_max_questions(tmp_path):
    many = [f"Question number {i}?" for i in range(12)]
    path = write(tmp_path, line(questions=many, key_facts=[]))
    j = ScriptedJudge(claim_probabilities=[0.9], question_probabilities=[0.9] * 12)
    result = SummarizationScorer(j, options=Options(questions=str(path), max_questions=3)).run(
        input=SOURCE, output=SUMMARY
    )
    assert len(result.analyze_step_result.coverage) == 12 and result.coverage_score == 1.0


def test_a_source_not_in_the_file_is_generated_or_refused(tmp_path):
    path = write(tmp_path, line(source_sha256=source_sha256("another source")))
    s, judge = scorer(path, questions=["Did the bridge open?"], highlights=[])
    result = s.run(input=SOURCE, output=SUMMARY)
    assert result.provenance.questions.origin == "generated"  # type: ignore[union-attr]
    assert "questions" in [c.step for c in judge.calls]
    strict = SummarizationScorer(ScriptedJudge(), options=Options(questions=str(path), questions_only=True))
    with pytest.raises(InputError, match="holds no question set for this source .* questions_only is set"):
        strict.run(input=SOURCE, output=SUMMARY)


def test_questions_only_needs_a_file():
    with pytest.raises(ConfigError, match="questions_only needs a question file"):
        Options(questions_only=True)


def test_a_set_in_another_language_is_refused(tmp_path):
    path = write(tmp_path, line(language="de"))
    s, _ = scorer(path)
    with pytest.raises(InputError, match="holds questions in 'de', and the summary is in 'en'"):
        s.run(input=SOURCE, output=SUMMARY)


def test_questions_given_with_the_run_win_and_are_recorded():
    s, judge = scorer()
    result = s.run({"input": SOURCE, "output": SUMMARY, "questions": ["Is the bridge 1.2 km long?"]})
    assert [v.question for v in result.analyze_step_result.coverage] == ["Is the bridge 1.2 km long?"]
    assert result.provenance.questions.origin == "given"  # type: ignore[union-attr]
    assert "questions" not in [c.step for c in judge.calls]
    with pytest.raises(InputError, match="questions must be a list of strings"):
        s.run(input=SOURCE, output=SUMMARY, questions="Is it?")  # type: ignore[arg-type]


def test_generated_results_say_so():
    s, _ = scorer(questions=["Did the bridge open?"], highlights=[])
    assert s.run(input=SOURCE, output=SUMMARY).provenance.questions.origin == "generated"  # type: ignore[union-attr]


def test_a_worker_rebuilds_the_scorer_from_the_files_absolute_path(tmp_path, monkeypatch):
    path = write(tmp_path, line())
    monkeypatch.chdir(tmp_path)
    s = SummarizationScorer(ScriptedJudge(), options=Options(questions="q.jsonl"))
    s.model = "smollm2-135m"
    assert s.spec().options.questions == str(path)


def test_the_provider_takes_the_given_set_then_the_file_then_the_judge(tmp_path):
    """One provider picks each source's set; the judge writes a source's set once, for all its summaries."""
    path = write(tmp_path, line())
    s, judge = scorer(path, questions=["Is it long?"], highlights=[])
    given = s.run(input=SOURCE, output=SUMMARY, questions=["Is it new?"])
    from_file = s.run(input=SOURCE, output=SUMMARY)
    first = s.run(input="Another source. It has two sentences.", output="Another summary.")
    later = s.run(input="Another source. It has two sentences.", output="A later summary.")
    origins = [r.provenance.questions.origin for r in (given, from_file, first, later)]
    assert origins == ["given", "file", "generated", "generated"]
    assert [c.step for c in judge.calls].count("questions") == 1
    assert "questions" in later.provenance.shared_steps and "questions" not in first.provenance.shared_steps
    assert later.preprocess_step_result.questions == first.preprocess_step_result.questions == ["Is it long?"]


def test_a_result_of_an_earlier_version_is_read_through_an_explicit_upgrade():
    """Provenance has no defaults: a result that lacks a setting is upgraded with what its version did."""
    from localsumm.summarization.result import SummarizationResult, upgrade

    s, _ = scorer(questions=["Did the bridge open?"], highlights=[])
    now = s.run(input=SOURCE, output=SUMMARY).to_dict()
    assert upgrade(now) is now
    old = json.loads(json.dumps(now))
    for key in ("literal_check", "scoring", "claims", "question_check", "key_facts", "questions", "language"):
        del old["provenance"][key]
    read = SummarizationResult.from_stored(old).provenance
    assert (read.claims, read.literal_check, read.question_check, read.key_facts) == ("extracted", False, False, False)
    assert read.scoring == "count" and read.questions.origin == "generated" and read.language is None
    with pytest.raises(ValueError):
        SummarizationResult.model_validate(old)  # no silent default: only the upgrade fills them


def test_a_sets_facts_as_statements_are_asked_in_any_words_and_an_older_sets_as_written(tmp_path):
    statements = write(tmp_path, line(facts_as="statements", key_facts=["The bridge is 1.2 km long"]))
    s, judge = scorer(statements)
    result = s.run(input=SOURCE, output=SUMMARY)
    assert [c.step for c in judge.calls] == ["alignment", "coverage", "statements"]
    assert [v.question for v in result.analyze_step_result.coverage] == [
        "Did the bridge open in May 2021?",
        "The bridge is 1.2 km long.",
    ]
    asked = judge.calls[-1].prompt
    assert "in any words" in asked and "more generally" in asked and SOURCE not in asked
    assert result.coverage_score == 0.55  # the question counted (0.9: 1), the statement its probability 0.1
    # A file written before 0.3.2 has no facts_as: its facts are asked as they always were.
    older, judge = scorer(write(tmp_path, line()))
    assert [v.question for v in older.run(input=SOURCE, output=SUMMARY).analyze_step_result.coverage][-1] == (
        "Is it true that The bridge is 1.2 km long?"
    )
    assert [c.step for c in judge.calls] == ["alignment", "coverage", "coverage"]


def test_a_persons_fact_is_cleaned_of_tokenised_spacing_and_a_sentence_capital():
    assert clean_fact("Bayern Munich won  6 - 1 .") == "Bayern Munich won 6-1"
    assert clean_fact("The museum 's roof ( glass ) was n't fixed") == "the museum's roof (glass) wasn't fixed"
    assert clean_fact("Up to a third of meat ?") == "up to a third of meat?"
    # A first word that may be a name keeps its capital.
    assert clean_fact("Drew Miller was cut.") == "Drew Miller was cut"
    assert clean_fact("Woman reported missing") == "Woman reported missing"


def test_a_reference_set_holds_its_facts_cleaned_as_statements():
    qs = reference_question_set(
        SOURCE, ["The bridge is 1.2 km long .", "The bridge is 1.2 km long"], field="f", language="en"
    )
    assert qs.key_facts == ["the bridge is 1.2 km long"] and qs.facts_as == "statements"
    assert QuestionSet.model_validate_json(qs.to_line()) == qs
