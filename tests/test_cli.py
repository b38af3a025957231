"""The command line as a user runs it: a separate process, exit codes, no tracebacks."""

from __future__ import annotations

import json
import shutil

import pytest

from localsumm.models.registry import get_spec

from .conftest import EXAMPLE, ROOT, SOURCE, STEPS, quick_eval_files, run_cli

SMALL = ["--model", "smollm2-135m"]


def assert_clean_error(done, code: int, *needles: str) -> None:
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("error: ")
    assert len(done.stderr.strip().splitlines()) <= 3
    for needle in needles:
        assert needle in done.stderr


def test_score_json_and_trace(cli_run):
    result, lines = cli_run
    assert {"score", "reason", "preprocess_step_result", "analyze_step_result", "provenance"} <= result.keys()
    assert len(lines) == sum(s["calls"] for s in result["provenance"]["steps"])
    for line in lines:
        assert {"step", "prompt", "output", "prompt_tokens", "completion_tokens", "seconds"} <= line.keys()
    assert {line["step"] for line in lines} == set(STEPS[1:])  # sentences: nothing extracted
    # The audit trail shows coverage never saw the source.
    assert all("Burlington" not in line["prompt"] for line in lines if line["step"] == "coverage")


def test_score_literal_check_on_and_off(tmp_path):
    summary = tmp_path / "summary.txt"
    summary.write_text("Harbor Lights Brewing was founded in 1997.")
    args = ["score", "--source", str(ROOT / "examples" / "source.txt"), "--summary", str(summary), *SMALL, "--json"]
    checked, trusted = (json.loads(run_cli(*args, *flag).stdout) for flag in ([], ["--no-literal-check"]))
    (refused,), (judged,) = (r["preprocess_step_result"]["alignment"] for r in (checked, trusted))
    assert refused["unmatched"] == ["1997"] and not refused["supported"] and checked["provenance"]["literal_check"]
    assert judged["unmatched"] == [] and not trusted["provenance"]["literal_check"]
    assert judged["supported"] == (judged["probability"] >= 0.5) and judged["probability"] == refused["probability"]


def test_score_graded_scoring_grades_the_very_verdicts_the_default_counts(cli):
    default, graded = cli, json.loads(run_cli("score", *EXAMPLE, *SMALL, "--json", "--scoring", "graded").stdout)
    claims, asked = graded["preprocess_step_result"]["alignment"], graded["analyze_step_result"]["coverage"]
    # The rule is arithmetic on the same judge calls: the verdicts and their probabilities do not move.
    assert claims == default["preprocess_step_result"]["alignment"] and claims
    assert asked == default["analyze_step_result"]["coverage"] and asked

    def grade(p: float) -> float:  # the judge's thresholds are 0.5
        return min(1.0, max(0.0, (p - 0.5) / 0.5 + 0.5))

    support = [0.0 if c["unmatched"] else grade(c["probability"]) for c in claims]
    assert graded["alignment_score"] == pytest.approx(sum(support) / len(support), abs=1e-3)
    assert graded["coverage_score"] == pytest.approx(sum(grade(q["probability"]) for q in asked) / len(asked), abs=1e-3)
    # The default, "facts": a question counts its verdict, a key fact its probability.
    questions = len(default["preprocess_step_result"]["questions"])
    votes = [q["answered"] for q in asked[:questions]] + [q["probability"] for q in asked[questions:]]
    assert default["coverage_score"] == pytest.approx(sum(votes) / len(asked), abs=1e-3)
    assert graded["score"] == pytest.approx(min(graded["alignment_score"], graded["coverage_score"]), abs=0.006)
    assert (default["provenance"]["scoring"], graded["provenance"]["scoring"]) == ("facts", "graded")
    assert "counts in proportion" in graded["reason"] and "in proportion" not in default["reason"]


def test_score_key_facts_flag(cli):
    with_facts, without = cli, json.loads(run_cli("score", *EXAMPLE, *SMALL, "--json", "--no-key-facts").stdout)
    facts = with_facts["preprocess_step_result"]["key_facts"]
    # asked, or dropped by the question check (the 135M judge's facts copy the prompt's example)
    dropped = [
        d
        for d in with_facts["preprocess_step_result"]["dropped_questions"]
        if d["question"].startswith("Is it true that ")
    ]
    assert (
        facts + dropped
        and with_facts["provenance"]["key_facts"]
        and {"highlights", "key_facts"} <= {s["step"] for s in with_facts["provenance"]["steps"]}
    )
    assert len(with_facts["analyze_step_result"]["coverage"]) == len(
        with_facts["preprocess_step_result"]["questions"]
    ) + len(facts)
    assert not without["preprocess_step_result"]["key_facts"] and not without["provenance"]["key_facts"]


def test_score_camel_case_and_stdin():
    done = run_cli(
        "score",
        "--source",
        "-",
        "--summary",
        str(ROOT / "examples" / "summary.txt"),
        *SMALL,
        "--json",
        "--camel",
        input=SOURCE,
    )
    assert done.returncode == 0, done.stderr
    assert "preprocessStepResult" in json.loads(done.stdout)


def test_human_output_shows_score_dimensions_reason_and_tables_with_no_network_at_all(no_network):
    done = run_cli("score", *EXAMPLE, *SMALL, **no_network)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for needle in ["score", "alignment", "coverage", "Claims", "Questions", "smollm2-135m"]:
        assert needle in out


def test_empty_summary_scores_zero_with_a_reason(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n")
    done = run_cli(
        "score", "--source", str(ROOT / "examples" / "source.txt"), "--summary", str(empty), *SMALL, "--json"
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["score"] == 0 and "summary is empty" in result["reason"]


def test_missing_file_is_a_clear_error():
    done = run_cli("score", "--source", "nope.txt", "--summary", str(ROOT / "examples" / "summary.txt"), *SMALL)
    assert_clean_error(done, 3, "source file nope.txt does not exist")


def test_non_utf8_and_binary_files_are_clear_errors(tmp_path):
    latin = tmp_path / "latin.txt"
    latin.write_bytes("line one\ncaf\xe9\n".encode("latin-1"))
    done = run_cli("score", "--source", str(latin), "--summary", str(ROOT / "examples" / "summary.txt"), *SMALL)
    assert_clean_error(done, 3, "not valid UTF-8", "line 2")
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x00\x01\x02GGUF")
    done = run_cli("score", "--source", str(ROOT / "examples" / "source.txt"), "--summary", str(binary), *SMALL)
    assert_clean_error(done, 3, "looks binary")


def test_bad_model_path_and_unknown_name(tmp_path):
    done = run_cli("score", *EXAMPLE, "--model", str(tmp_path / "missing.gguf"))
    assert_clean_error(done, 4, "model file not found")
    done = run_cli("score", *EXAMPLE, "--model", "gpt-17")
    assert_clean_error(done, 4, "unknown model 'gpt-17'", "qwen2.5-coder-1.5b")
    not_gguf = tmp_path / "notes.gguf"
    not_gguf.write_text("hello")
    done = run_cli("score", *EXAMPLE, "--model", str(not_gguf))
    assert_clean_error(done, 4, "not a GGUF file")


def test_truncated_gguf_is_refused(tmp_path):
    spec = get_spec("smollm2-135m")
    with spec.path.open("rb") as f:
        head = f.read(1 << 20)
    # A registry judge cut short: refused by its size before llama.cpp sees it.
    (tmp_path / spec.file).write_bytes(head)
    done = run_cli("score", *EXAMPLE, *SMALL, env={"LOCALSUMM_MODELS": str(tmp_path)})
    assert_clean_error(done, 4, "refusing to load", "truncated")
    # The same bytes given as a path: its header is cut short, and the error says so plainly.
    done = run_cli("score", *EXAMPLE, "--model", str(tmp_path / spec.file))
    assert_clean_error(done, 4, "header is truncated or corrupt")
    # A whole header with the tensors cut off: llama.cpp cannot load it, and says so plainly.
    with spec.path.open("rb") as f:
        (tmp_path / "cut.gguf").write_bytes(f.read(spec.size // 2))
    done = run_cli("score", *EXAMPLE, "--model", str(tmp_path / "cut.gguf"))
    assert_clean_error(done, 4, "could not load")


def test_registry_file_with_wrong_sha256_is_refused(tmp_path):
    spec = get_spec("smollm2-135m")
    corrupt = tmp_path / spec.file
    shutil.copyfile(spec.path, corrupt)
    with corrupt.open("r+b") as f:  # same size, one byte flipped in the weights
        f.seek(spec.size - 1000)
        byte = f.read(1)
        f.seek(spec.size - 1000)
        f.write(bytes([byte[0] ^ 0xFF]))
    done = run_cli("score", *EXAMPLE, *SMALL, env={"LOCALSUMM_MODELS": str(tmp_path)})
    assert_clean_error(done, 4, "refusing to load", "sha256")


def test_facts_scoring_weighs_each_stated_fact_by_its_probability(tmp_path):
    data, questions = quick_eval_files(tmp_path, 1)  # a reference's fact, asked as a statement
    lines = {}
    for rule in ("count", "facts"):
        out = tmp_path / f"{rule}.jsonl"
        done = run_cli("eval", str(data), "--out", str(out), "--questions", str(questions), *SMALL, "--scoring", rule)
        assert done.returncode == 0, done.stderr
        lines[rule] = json.loads(out.read_text())["localsumm"]["result"]
    counted, facts = lines["count"], lines["facts"]
    (stated,) = facts["analyze_step_result"]["coverage"]
    assert [stated] == counted["analyze_step_result"]["coverage"]  # the same call, other arithmetic
    assert facts["coverage_score"] == pytest.approx(stated["probability"], abs=1e-9)
    assert counted["coverage_score"] == float(stated["answered"])
    assert facts["alignment_score"] == counted["alignment_score"]  # claims are counted as before
    assert facts["provenance"]["scoring"] == "facts" and "scoring 'facts'" in facts["reason"]


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--max-questions", "0"], "max_questions"),
        (["--scale", "0"], "scale"),
        (["--claims", "words"], "sentences, extracted"),
        (["--scoring", "soft"], "count, graded, facts"),
    ],
)
def test_bad_options_are_clear_errors(args, needle):
    done = run_cli("score", *EXAMPLE, *SMALL, *args)
    assert_clean_error(done, 2, needle)


def test_models_list_shows_known_judges():
    done = run_cli("models", "list")
    assert done.returncode == 0, done.stderr
    for name in ["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "smollm2-135m"]:
        assert name in done.stdout


def test_models_pull_says_plainly_that_it_needs_the_network(tmp_path, no_network):
    env = {**no_network["env"], "LOCALSUMM_MODELS": str(tmp_path / "models")}
    env.pop("HF_HUB_OFFLINE")  # really try to connect
    done = run_cli("models", "pull", "smollm2-135m", env=env, prefix=no_network.get("prefix", ()))
    assert_clean_error(done, 7, "cannot reach the model hub", "needs the network")


def test_help_is_instant_and_does_not_load_the_engine():
    done = run_cli("--help")
    assert done.returncode == 0 and "score" in done.stdout


def test_gpu_layers_zero_is_the_cpu_judge_and_more_are_refused_on_a_cpu_build(cli):
    again = run_cli("score", *EXAMPLE, *SMALL, "--json", "--gpu-layers", "0")
    assert again.returncode == 0, again.stderr
    result = json.loads(again.stdout)
    assert result["provenance"]["engine"] == cli["provenance"]["engine"] and "GPU" not in result["provenance"]["engine"]
    assert result["score"] == cli["score"]
    assert result["preprocess_step_result"] == cli["preprocess_step_result"]
    assert result["analyze_step_result"] == cli["analyze_step_result"]
    refused = run_cli("score", *EXAMPLE, *SMALL, "--gpu-layers", "8")
    assert_clean_error(refused, 2, "--gpu-layers 8", "no GPU support", "make gpu GPU=cuda")
    assert_clean_error(run_cli("score", *EXAMPLE, "--gpu-layers", "-2"), 2, "gpu_layers must be at least -1")
