"""The OpenAI-compatible backend against a real server on loopback: llama-cpp-python's own.

No mock: the server runs SmolLM2 with llama.cpp, and the client is the openai package.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from localsumm import create_summarization_scorer
from localsumm.backends import open_judge
from localsumm.errors import NetworkError
from localsumm.models.registry import get_spec
from localsumm.summarization.schemas import claim_list

from .conftest import EXAMPLE, FIRST_PARAGRAPH, ROOT, SOURCE, SUMMARY, run_cli

KEY = {"LOCALSUMM_API_KEY": "not-needed-locally"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = free_port()
    args = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(get_spec("smollm2-135m").path),
        "--model_alias",
        "smollm2",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "4096",
        "--seed",
        "0",
        "--logits_all",
        "true",
        "--verbose",
        "false",
    ]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "/models", timeout=2)
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail("llama_cpp.server exited: " + proc.stderr.read()[-2000:])
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("llama_cpp.server did not start within 120 s")
    yield url
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture
def judge(server, monkeypatch):
    monkeypatch.setenv("LOCALSUMM_API_KEY", KEY["LOCALSUMM_API_KEY"])
    return open_judge("openai:smollm2", base_url=server, response_format="json_object")


def test_structured_output_parses_through_the_endpoint(judge):
    from localsumm.summarization.prompts import claims_messages

    value, call = judge.generate("claims", claims_messages(SUMMARY), claim_list(8), 400)
    assert isinstance(value.claims, list) and call.completion_tokens > 0
    json.loads(call.output)  # the endpoint's grammar made it JSON


def test_verdicts_are_probabilities_from_the_endpoints_logprobs(judge):
    from localsumm.summarization.prompts import claim_verdict_messages

    p, call = judge.yes_probability("alignment", claim_verdict_messages(SOURCE, "Harbor Lights was founded in 1995."))
    assert 0.0 < p < 1.0 and call.output.startswith("p(yes)=")


def test_the_scorer_end_to_end_on_a_hosted_judge(judge):
    result = create_summarization_scorer(judge).run(input=FIRST_PARAGRAPH, output=SUMMARY)
    assert result.provenance.model == "openai:smollm2"
    assert result.preprocess_step_result.alignment and result.preprocess_step_result.questions
    assert all(0 <= v.probability <= 1 for v in result.preprocess_step_result.alignment)


def test_the_cli_scores_through_the_endpoint(server):
    done = run_cli(
        "score",
        *EXAMPLE,
        "--model",
        "openai:smollm2",
        "--base-url",
        server,
        "--response-format",
        "json_object",
        "--json",
        env=KEY,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["provenance"]["model"] == "openai:smollm2"


def test_an_unreachable_endpoint_is_a_network_error(monkeypatch):
    monkeypatch.setenv("LOCALSUMM_API_KEY", "x")
    judge = open_judge("openai:none", base_url=f"http://127.0.0.1:{free_port()}/v1")
    with pytest.raises(NetworkError, match="cannot reach the judge endpoint"):
        create_summarization_scorer(judge).run(input=SOURCE, output=SUMMARY)


def test_no_key_is_a_clear_error():
    env = {k: v for k, v in os.environ.items() if k not in ("LOCALSUMM_API_KEY", "OPENAI_API_KEY")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "localsumm.cli",
            "score",
            *EXAMPLE,
            "--model",
            "openai:x",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 2 and "LOCALSUMM_API_KEY" in done.stderr and "Traceback" not in done.stderr


def test_a_hosted_judge_writes_the_questions_a_local_judge_asks(server, tmp_path):
    """The mission's pairing: a (stronger) hosted judge writes a source's questions once; the local judge,
    in-process, asks exactly those of every summary."""
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"id": "a", "source": SOURCE, "summary": SUMMARY}) + "\n", encoding="utf-8")
    questions = tmp_path / "questions.jsonl"
    done = run_cli(
        "questions",
        str(data),
        "--out",
        str(questions),
        "--model",
        "openai:smollm2",
        "--base-url",
        server,
        "--response-format",
        "json_object",
        env=KEY,
    )
    assert done.returncode == 0, done.stderr
    (line,) = [json.loads(x) for x in questions.read_text(encoding="utf-8").splitlines()]
    assert line["provenance"]["judge"] == "openai:smollm2" and line["questions"]
    out = tmp_path / "results.jsonl"
    done = run_cli(
        "eval", str(data), "--out", str(out), "--questions", str(questions), "--model", "smollm2-135m", "--no-cache"
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text(encoding="utf-8"))["localsumm"]["result"]
    assert result["provenance"]["model"] == "smollm2-135m"
    assert result["provenance"]["questions"]["written_by"]["judge"] == "openai:smollm2"
    asked = [v["question"] for v in result["analyze_step_result"]["coverage"]]
    assert asked == line["questions"] + [f"Is it true that {f.rstrip('.')}?" for f in line["key_facts"]]
