"""SPEC §4: finding the summary and the source in an agent run."""

import pytest

from localsumm.errors import InputError
from localsumm.summarization.inputs import extract_tool_results, resolve_source, resolve_summary


def user(text, id="u"):
    return {"id": id, "role": "user", "content": text}


def assistant(content, id="a"):
    return {"id": id, "role": "assistant", "content": content}


def tool_call(name, result, call_id="c1", state="result"):
    return {
        "type": "tool-invocation",
        "toolInvocation": {
            "toolName": name,
            "toolCallId": call_id,
            "args": {"url": "x"},
            "result": result,
            "state": state,
        },
    }


def test_plain_strings_are_accepted():
    assert resolve_summary("  A summary.  ") == "A summary."
    assert resolve_source("The source.", "s") == "The source."


def test_summary_is_the_last_assistant_message_with_text():
    output = [assistant("first draft", "a1"), {"role": "user", "content": "shorter"}, assistant("final", "a2")]
    assert resolve_summary(output) == "final"


def test_tool_only_assistant_turns_are_skipped():
    output = [assistant("the summary", "a1"), assistant([tool_call("log", "ok")], "a2")]
    assert resolve_summary(output) == "the summary"


def test_parts_content_joins_text_parts():
    output = [
        assistant([{"type": "text", "text": "Part one."}, tool_call("t", 1), {"type": "text", "text": "Part two."}])
    ]
    assert resolve_summary(output) == "Part one.\nPart two."


def test_mastra_stored_format_with_parts_key():
    output = [assistant({"format": 2, "parts": [{"type": "text", "text": "stored"}]})]
    assert resolve_summary(output) == "stored"


def test_no_assistant_text_gives_empty_summary():
    assert resolve_summary([assistant([tool_call("t", 1)])]) == ""
    assert resolve_summary([]) == ""


def test_source_is_the_first_user_message():
    run_input = {"inputMessages": [user("the document", "u1"), user("a follow-up", "u2")]}
    assert resolve_source(run_input, []) == "the document"


def test_source_option_beats_the_input_and_extractor_beats_both():
    run_input = {"inputMessages": [user("from input")]}
    assert resolve_source(run_input, [], source="fixed") == "fixed"
    got = resolve_source(run_input, [], source="fixed", source_extractor=lambda i, o: "extracted")
    assert got == "extracted"


def test_no_user_message_and_no_source_is_a_clear_error():
    with pytest.raises(InputError, match="no user message"):
        resolve_source({"inputMessages": [{"role": "system", "content": "x"}]}, [])


def test_extractor_must_return_text():
    with pytest.raises(InputError, match="must return a string"):
        resolve_source("x", [], source_extractor=lambda i, o: 42)


def test_extract_tool_results_returns_completed_invocations_in_order():
    output = [
        assistant([tool_call("fetchDocument", "Doc A", "c1"), tool_call("search", ["r"], "c2")]),
        assistant([tool_call("fetchDocument", None, "c3", state="call")]),  # still running
        assistant([tool_call("fetchDocument", "Doc B", "c4"), {"type": "text", "text": "summary"}]),
    ]
    results = extract_tool_results(output)
    assert [(r["tool_name"], r["tool_call_id"]) for r in results] == [
        ("fetchDocument", "c1"),
        ("search", "c2"),
        ("fetchDocument", "c4"),
    ]
    assert results[0] == {"tool_name": "fetchDocument", "tool_call_id": "c1", "args": {"url": "x"}, "result": "Doc A"}


def test_documented_recipe_for_a_source_from_tools():
    output = [assistant([tool_call("fetchDocument", "Doc A", "c1"), tool_call("fetchDocument", "Doc B", "c2")])]

    def extractor(i, o):
        return "\n\n".join(str(r["result"]) for r in extract_tool_results(o) if r["tool_name"] == "fetchDocument")

    assert (
        resolve_source({"inputMessages": [user("summarize the doc")]}, output, source_extractor=extractor)
        == "Doc A\n\nDoc B"
    )


def test_malformed_messages_are_clear_errors():
    with pytest.raises(InputError, match="not an object"):
        resolve_summary(["just a string in a list"])
