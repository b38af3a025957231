"""The OpenAI-compatible backend against a real server on loopback: llama-cpp-python's own.

No mock: the server runs SmolLM2 with llama.cpp, and the client is the openai package.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from localsumm import create_summarization_scorer
from localsumm.backends import open_judge
from localsumm.errors import NetworkError
from localsumm.models.registry import get_spec
from localsumm.summarization.schemas import claim_list

from .conftest import EXAMPLE, FIRST_PARAGRAPH, ROOT, SMALL, SOURCE, SUMMARY, run_cli, start_cli

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


# -- bench judges: a local and a hosted judge side by side ----------------------------------------------------------


class FaultyProxy:
    """A loopback proxy to the real server that turns faulty once ``armed()`` says so: "down" drops each connection
    without an answer, "slow" answers after the client has given up, "garbage" returns the server's completion with
    its content cut to text that is not JSON. Until then, and in mode "ok", it passes everything through."""

    def __init__(self, upstream: str, armed) -> None:
        self.upstream, self.armed, self.mode = upstream.removesuffix("/v1"), armed, "ok"
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                self._forward(None)

            def do_POST(self) -> None:
                self._forward(self.rfile.read(int(self.headers["Content-Length"])))

            def _forward(self, body: bytes | None) -> None:
                faulty = proxy.mode if proxy.mode != "ok" and proxy.armed() else "ok"
                if faulty == "down":
                    self.close_connection = True
                    return
                if faulty == "slow":
                    time.sleep(4)
                request = urllib.request.Request(proxy.upstream + self.path, data=body, method=self.command)
                request.add_header("Content-Type", "application/json")
                with urllib.request.urlopen(request, timeout=600) as response:
                    answer = response.read()
                if faulty == "garbage":  # every answer: a list cut short, a verdict with no yes or no
                    completion = json.loads(answer)
                    completion["choices"][0]["message"]["content"] = '{"claims": ["cut'
                    completion["choices"][0]["logprobs"] = None
                    answer = json.dumps(completion).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


BENCH_ITEMS = [
    {"id": f"s{k}", "source": FIRST_PARAGRAPH, "summary": s, "label_alignment": float(k % 2 == 0)}
    for k, s in enumerate([SUMMARY.split(". ")[0] + ".", "Harbor Lights was founded in 1995.", SUMMARY.split(". ")[1]])
]
# What these tests are about is runs, not verdicts: as few judge calls per item as the pipeline allows.
FEW_CALLS = {"key_facts": False, "question_check": False, "max_questions": 2}
FEW_CALL_FLAGS = ["--no-key-facts", "--no-question-check", "--max-questions", "2"]


def bench_data(folder) -> object:
    data = folder / "mine.dev.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in BENCH_ITEMS), encoding="utf-8")
    return data


def lines_of(path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.browser
def test_bench_judges_puts_a_local_and_a_hosted_judge_side_by_side(server, tmp_path):
    from .test_html_report import chromium

    out = tmp_path / "bench"
    args = ["bench", "judges", "--judge", SMALL, "--judge", "openai:smollm2", "--judge", SMALL, "--base-url", server]
    args += [
        "--response-format",
        "json_object",
        "--data",
        str(bench_data(tmp_path)),
        "--out",
        str(out),
        *FEW_CALL_FLAGS,
    ]
    done = run_cli(*args, "--price", "openai:smollm2=0.15/0.6", "--no-cache", env=KEY)
    assert done.returncode == 0, done.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["judges"] == [SMALL, "openai:smollm2", f"{SMALL} #2"] and report["datasets"] == {"mine": 3}
    same = [p for p in report["pairs"] if (p["first"], p["second"]) == (SMALL, f"{SMALL} #2")]
    assert [(p["difference"], p["p_value"]) for p in same] == [(0.0, 1.0)]  # the same judge twice: no difference
    hosted = report["costs"][1]
    assert hosted["items"] == 3 and hosted["prompt_tokens"] > 0 and hosted["dollars"] > 0
    assert report["costs"][0]["dollars"] is None and report["costs"][0]["new_sources"] == 1
    hosted_agreement = report["agreement"][0]
    assert hosted_agreement["claims"] > 0 and hosted_agreement["questions"] > 0  # it ruled on the local one's
    assert {p["measure"] for p in report["pairs"]} == {"ROC-AUC"}
    assert "| mine | label_alignment | ROC-AUC | openai:smollm2 - smollm2-135m |" in done.stdout
    dom = chromium("--dump-dom", (out / "report.html").as_uri(), tmp_path=tmp_path)
    assert "Each pair, paired by document" in dom and "openai:smollm2 − smollm2-135m" in dom
    assert "$" in dom and "<svg" in dom


@pytest.mark.parametrize("fault", ["down", "slow", "garbage"])
def test_a_faulty_endpoint_stops_or_fails_its_items_and_a_rerun_resumes(server, fault, tmp_path):
    from localsumm.backends.openai import OpenAIJudge
    from localsumm.bench.judges import run_judges

    out, data = tmp_path / "bench", bench_data(tmp_path)
    hosted_file = out / "results" / "mine.openai:smollm2.jsonl"
    proxy = FaultyProxy(server, lambda: hosted_file.exists() and hosted_file.read_text().count("\n") >= 1)
    proxy.mode = fault

    def judges():
        hosted = OpenAIJudge("smollm2", base_url=proxy.url, api_key="x", response_format="json_object", timeout=2)
        return [open_judge(SMALL), hosted]

    report = run_judges(judges(), [data], out, cache=False, **FEW_CALLS)
    local, hosted = report.costs
    assert local.items == 3 and local.stopped is None
    first = hosted_file.read_text().splitlines()[0]
    if fault == "garbage":  # the judge's malformed answers fail their items, clearly; the run goes on
        assert hosted.stopped is None and hosted.failed == 2 and len(lines_of(hosted_file)) == 3
        assert all("JudgeError" in e and "Traceback" not in e for e in hosted.first_errors)
        return
    assert hosted.stopped is not None and hosted.stopped.startswith("NetworkError: ")
    assert "cannot reach the judge endpoint" in hosted.stopped
    assert len(lines_of(hosted_file)) == 1  # what was done is kept; nothing failed in its name
    if fault == "slow":
        return  # resuming is the same whatever stopped the run: "down" resumes below
    proxy.mode = "ok"
    again = run_judges(judges(), [data], out, cache=False, **FEW_CALLS)
    assert again.costs[1].stopped is None and again.costs[1].items == 3 and again.datasets == {"mine": 3}
    rows = hosted_file.read_text().splitlines()
    assert rows[0] == first and sorted(json.loads(r)["id"] for r in rows) == ["s0", "s1", "s2"]


def test_killing_bench_judges_and_running_it_again_loses_nothing_and_scores_nothing_twice(server, tmp_path):
    out = tmp_path / "bench"
    args = ["bench", "judges", "--judge", SMALL, "--judge", "openai:smollm2", "--base-url", server]
    args += ["--response-format", "json_object", "--data", str(bench_data(tmp_path)), "--out", str(out), "--no-cache"]
    args += FEW_CALL_FLAGS
    local_file = out / "results" / f"mine.{SMALL}.jsonl"
    proc = start_cli(args, env={**os.environ, **KEY})
    deadline = time.time() + 600
    while time.time() < deadline and not (local_file.exists() and local_file.read_text().count("\n") >= 1):
        time.sleep(0.1)
    proc.kill()
    proc.communicate(timeout=60)
    kept = local_file.read_text().splitlines()
    assert 1 <= len(kept) < 3
    done = run_cli(*args, env=KEY)
    assert done.returncode == 0, done.stderr
    for path in (out / "results").glob("*.jsonl"):
        ids = [row["id"] for row in lines_of(path)]
        assert sorted(ids) == sorted(set(ids)), path  # scored (or ruled on) once each
    rows = local_file.read_text().splitlines()
    assert rows[: len(kept)] == kept and len(rows) == 3
    assert json.loads((out / "report.json").read_text())["datasets"] == {"mine": 3}
