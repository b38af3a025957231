"""`bench speed` on the real engine: the figures exist and hang together."""

import json

from .conftest import FIRST_PARAGRAPH, SUMMARY, run_cli


def test_bench_speed_measures_an_evaluation_against_the_bare_engine(tmp_path):
    data = tmp_path / "data.jsonl"
    later = "Harbor Lights makes beer in Maine."
    # The example's first paragraph: the bench scores each summary once per lever, six times.
    rows = (("a", SUMMARY), ("b", later))
    data.write_text("".join(json.dumps({"id": i, "source": FIRST_PARAGRAPH, "summary": s}) + "\n" for i, s in rows))
    out = tmp_path / "speed.json"
    done = run_cli(
        "bench",
        "speed",
        "--data",
        str(data),
        "--items",
        "1",
        "--model",
        "smollm2-135m",
        "--json",
        str(out),
        "--evidence",
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text())
    (row,) = figures["rows"]
    assert row["calls"] >= 3 and row["completion_tokens"] > 0 and row["prompt_tokens"] > 0
    assert 0 < row["engine_seconds"] < row["seconds"]
    assert 0 < figures["engine_share"] < 1
    assert figures["raw_prompt_tokens_per_second"] > 0 and figures["median_ratio_to_engine_floor"] > 0
    assert figures["constrained_ms_per_token"] > 0 and figures["unconstrained_ms_per_token"] > 0
    assert figures["native_grammar_ms_per_token"] > 0
    assert "engine floor" in done.stdout
    # The later summary of the same source, and each lever measured in the same run.
    assert 0 < row["later_seconds"] < row["seconds"] and figures["median_later_seconds"] == round(
        row["later_seconds"], 2
    )
    engine = {"verdicts side by side in one batch", "prompt-lookup drafts in generation"}
    setting = "key facts (a setting; below 1: their cost)"  # on by default, so its cost is timed too
    modes = {f"verification {m} (a setting; ratio = seconds with it / without)" for m in ("evidence", "both")}
    assert set(figures["levers"]) == engine | {setting} | modes
    assert 0 < row["pointer_seconds"] < row["seconds"] and figures["median_pointer_ms"] > 0
    assert "evidence pointers (words only, no judge call)" in done.stdout
    for name, lever in figures["levers"].items():
        assert lever["median_ratio_first"] > 0 and lever["median_ratio_later"] > 0
        # The engine levers change no verdict. Key facts leave the questions' verdicts as they are and add
        # their own (a difference of 1.0), unless the question check dropped every fact (none then).
        difference = lever["largest_probability_difference"]
        if name in engine:
            assert 0 <= difference < 0.1
        elif name == setting:
            assert difference in (0.0, 1.0)
        else:  # the judged modes ask the same claims of other premises: some probability moves, by at most 1
            assert 0 < difference <= 1
    assert "AVX" in figures["build"] or "NEON" in figures["build"]
    # The token budget: per step, what a new source and a later summary of it cost, adding up to the row.
    budget = figures["budget"]
    assert {"questions", "answerable", "highlights", "key_facts", "alignment", "coverage"} <= set(budget)
    assert sum(step["new"]["calls"] for step in budget.values()) == row["calls"]
    assert sum(step["new"]["prompt_tokens"] for step in budget.values()) == row["prompt_tokens"]
    assert sum(step["new"]["completion_tokens"] for step in budget.values()) == row["completion_tokens"]
    assert budget["questions"]["new"]["completion_tokens"] > 0
    # The later summary shares the source's questions and key facts: it pays for its own verdicts only.
    assert budget["questions"]["later"]["calls"] == budget["key_facts"]["later"]["calls"] == 0
    assert budget["alignment"]["later"]["calls"] > 0 and budget["coverage"]["later"]["calls"] > 0
    assert "| question checks |" in done.stdout and "| all |" in done.stdout
