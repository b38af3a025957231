"""Each framework adapter in a real run of its framework, on the real engine: the same score as ``localsumm score``."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from .conftest import ROOT, SMALL, SOURCE, SUMMARY, run_cli

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")


def same_as_cli(cli: dict, score: float, alignment: float, coverage: float, claims: list[float] | None = None) -> None:
    assert (score, alignment, coverage) == (cli["score"], cli["alignment_score"], cli["coverage_score"])
    if claims is not None:
        assert claims == [v["probability"] for v in cli["preprocess_step_result"]["alignment"]]


def test_importing_localsumm_imports_no_framework():
    code = (
        "import sys, localsumm, localsumm.testing, localsumm.integrations; "
        "print(sorted(m for m in ('deepeval', 'inspect_ai', 'langsmith', 'openevals') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


# -- DeepEval ---------------------------------------------------------------------------------


def test_deepeval_metric_in_assert_test(cli):
    from deepeval import assert_test
    from deepeval.test_case import LLMTestCase

    from localsumm.integrations.deepeval import LocalSummarizationMetric

    metric = LocalSummarizationMetric(threshold=0.0, model=SMALL)
    assert_test(LLMTestCase(input=SOURCE, actual_output=SUMMARY), [metric], run_async=False)
    assert metric.success is True and metric.reason.startswith(metric.result.reason)
    v = metric.verdicts()
    same_as_cli(cli, metric.score, v["alignment"], v["coverage"], [c["probability"] for c in v["claims"]])

    # The async path (a_measure) runs on a copy DeepEval makes of the metric: the same judge, the same score.
    failing = LocalSummarizationMetric(threshold=1.01, model=SMALL)
    with pytest.raises(AssertionError) as e:
        assert_test(LLMTestCase(input=SOURCE, actual_output=SUMMARY), [failing])
    assert f"score: {cli['score']}" in str(e.value) and cli["reason"] in str(e.value)


def test_deepeval_metric_refuses_a_case_without_a_summary():
    from deepeval.test_case import LLMTestCase

    from localsumm.integrations.deepeval import LocalSummarizationMetric

    with pytest.raises(ValueError, match="actual_output"):
        LocalSummarizationMetric(model=SMALL).measure(LLMTestCase(input=SOURCE, actual_output=""))


DEEPEVAL_USER_TEST = """
from pathlib import Path
from deepeval import assert_test
from deepeval.test_case import LLMTestCase
from localsumm.integrations.deepeval import LocalSummarizationMetric

ROOT = Path({root!r})

def test_digest():
    case = LLMTestCase(input=(ROOT / "examples" / "source.txt").read_text(encoding="utf-8"),
                       actual_output=(ROOT / "examples" / "summary.txt").read_text(encoding="utf-8"))
    metric = LocalSummarizationMetric(threshold=0.0, model={model!r})
    assert_test(case, [metric], run_async=False)
    print("SCORE", metric.score)
"""


def test_deepeval_test_run(tmp_path, cli):
    (tmp_path / "test_digest.py").write_text(DEEPEVAL_USER_TEST.format(root=str(ROOT), model=SMALL), encoding="utf-8")
    deepeval = Path(sys.executable).with_name("deepeval")
    done = subprocess.run(
        [str(deepeval), "test", "run", "test_digest.py", "-s"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "DEEPEVAL_TELEMETRY_OPT_OUT": "1"},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"SCORE {cli['score']}" in done.stdout


SHORT_SOURCE = (
    "Harbor Lights Brewing was founded in Portland, Maine, in 1995 by Maria Chen. "
    "In 2018 it opened a second brewery in Burlington, Vermont."
)
SHORT_SUMMARY = "Harbor Lights Brewing, founded in 1995, was sold to a national beverage group in 2021."


class _PlainModel:
    """DeepEval's own summarization metric on the same GGUF, prompted without a grammar (as a plain local model is)."""

    def __init__(self, path: str) -> None:
        from llama_cpp import Llama

        self.llm = Llama(model_path=path, n_ctx=8192, seed=0, verbose=False)

    def generate(self, prompt: str, **_: object) -> str:
        out = self.llm.create_chat_completion([{"role": "user", "content": prompt}], temperature=0, max_tokens=1024)
        return out["choices"][0]["message"]["content"]


@pytest.mark.default_judge
def test_deepevals_own_metric_parses_on_the_local_judge(default_judge):
    # Not the small judge: under the grammar, SmolLM2-135M runs DeepEval's statements to the 1024-token cap.
    from deepeval.metrics import SummarizationMetric
    from deepeval.models import DeepEvalBaseLLM
    from deepeval.test_case import LLMTestCase

    from localsumm.integrations.deepeval import LocalJudgeModel
    from localsumm.text import sentences

    # A two-sentence source and a one-sentence summary: this metric's five prompts each repeat the texts, which
    # the 1.5B reads slowly on one CPU. Questions given and truths limited, as DeepEval's users may: every
    # structured step still runs (truths, claims, answers, verdicts).
    case = LLMTestCase(input=SHORT_SOURCE, actual_output=SHORT_SUMMARY)
    settings = {
        "async_mode": False,
        "include_reason": False,
        "truths_extraction_limit": 3,
        "assessment_questions": ["Was Harbor Lights Brewing founded in 1995?", "Did it open a second brewery?"],
    }
    metric = SummarizationMetric(model=LocalJudgeModel(judge=default_judge), **settings)
    metric.measure(case)
    assert (
        0.0 <= metric.score <= 1.0
        and metric.error is None
        and metric.evaluation_model == "localsumm:qwen2.5-coder-1.5b"
    )

    plain = _PlainModel(default_judge.info.path)

    class Plain(DeepEvalBaseLLM):
        def load_model(self):
            return plain

        def generate(self, prompt: str, **kwargs: object) -> str:
            return plain.generate(prompt)

        async def a_generate(self, prompt: str, **kwargs: object) -> str:
            return plain.generate(prompt)

        def get_model_name(self) -> str:
            return "plain"

    # The same GGUF and prompt without a grammar: its verdicts do not parse (they come as a bare list in a code
    # fence). A plain model's whole run fails at this step, so only the step is asked (DeepEval's own method for
    # it): every earlier step of a plain run would be judge time spent for nothing. It is asked of the grammar
    # run's truths and the example summary's three sentences as claims; of this case's short claims the plain
    # model wrote a list that parsed, so a plain model fails often, not always.
    unconstrained = SummarizationMetric(model=Plain("plain"), **settings)
    unconstrained.truths, unconstrained.claims = metric.truths, sentences(SUMMARY)
    try:
        with pytest.raises(Exception, match="(?i)json|schema|validation"):
            unconstrained._generate_alignment_verdicts()
    finally:  # the raised error's frames keep it to shutdown, when Llama.__del__ can no longer free it
        plain.llm.close()


# -- Inspect AI -------------------------------------------------------------------------------


def test_inspect_scorer_in_a_real_eval(tmp_path, cli):
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate

    from localsumm.integrations.inspect import summarization

    samples = [
        Sample(id="digest", input="Summarize the report.", metadata={"source": SOURCE}),
        Sample(id="empty", input="Say nothing.", metadata={"source": SOURCE}),
    ]

    def write(messages, tools, tool_choice, config):  # Inspect's own mock model is the solver
        out = ModelOutput.from_content("mockllm", " " if "nothing" in messages[-1].text else SUMMARY)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # else tiktoken downloads a vocabulary
        return out

    solver_model = get_model("mockllm/model", custom_outputs=write)
    task = Task(dataset=samples, solver=generate(), scorer=summarization(model=SMALL))
    [log] = inspect_eval(task, model=solver_model, log_dir=str(tmp_path), display="none", max_samples=1)
    assert log.status == "success", log.error
    scores = {s.id: s.scores["summarization"] for s in log.samples}
    d = scores["digest"].metadata
    same_as_cli(cli, scores["digest"].value, d["alignment"], d["coverage"], [c["probability"] for c in d["claims"]])
    assert scores["digest"].answer == SUMMARY and scores["digest"].metadata["claims"]
    assert math.isnan(scores["empty"].value) and "summary" in scores["empty"].explanation  # unscored, not 0
    metrics = log.results.scores[0].metrics
    assert metrics["mean"].value == pytest.approx(cli["score"])  # the unscored sample is left out


# -- promptfoo --------------------------------------------------------------------------------


def test_promptfoo_assertion_contract(cli):
    from localsumm.integrations.promptfoo import get_assert

    graded = get_assert(SUMMARY, {"vars": {"source": SOURCE}, "config": {"model": SMALL, "threshold": 0.99}})
    assert graded["pass"] is (cli["score"] >= 0.99)
    same_as_cli(cli, graded["score"], graded["namedScores"]["alignment"], graded["namedScores"]["coverage"])
    missing = get_assert(SUMMARY, {"vars": {"text": SOURCE}, "config": {"model": SMALL}})
    assert missing["pass"] is False and "vars.source" in missing["reason"]


PROMPTFOO_CONFIG = """
description: localsumm in promptfoo
prompts: ["{{{{summary}}}}"]
providers: [echo]
tests:
  - vars:
      source: {source}
      summary: {summary}
    assert:
      - type: python
        value: file://localsumm_assert.py
        config: {{threshold: 0.0, model: {model}}}
"""


def test_promptfoo_cli_end_to_end(tmp_path):
    promptfoo = os.environ.get("LOCALSUMM_PROMPTFOO") or shutil.which("promptfoo")
    if not promptfoo or not Path(promptfoo).exists():
        if os.environ.get("LOCALSUMM_PROMPTFOO"):
            pytest.fail(f"promptfoo is not at {promptfoo}: run `make test`, which installs it")
        pytest.skip("the promptfoo CLI is not installed (make test installs it)")
    (tmp_path / "localsumm_assert.py").write_text("from localsumm.integrations.promptfoo import get_assert\n")
    (tmp_path / "promptfooconfig.yaml").write_text(
        PROMPTFOO_CONFIG.format(source=json.dumps(SOURCE.strip()), summary=json.dumps(SUMMARY.strip()), model=SMALL)
    )  # JSON strings are YAML
    env = {
        **os.environ,
        "PROMPTFOO_PYTHON": sys.executable,
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_CONFIG_DIR": str(tmp_path / ".promptfoo"),
        "PROMPTFOO_CACHE_ENABLED": "false",
    }
    out = tmp_path / "out.json"
    done = subprocess.run(
        [
            str(Path(promptfoo).resolve()),
            "eval",
            "-c",
            "promptfooconfig.yaml",
            "-o",
            str(out),
            "--no-progress-bar",
            "--no-table",
            "--no-write",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert out.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    [row] = json.loads(out.read_text())["results"]["results"]
    assert row["success"] is True, row
    [graded] = [c for c in row["gradingResult"]["componentResults"] if c["assertion"]["type"] == "python"]
    # promptfoo trims its variables and outputs: the CLI scores the same trimmed texts.
    (tmp_path / "source.txt").write_text(SOURCE.strip())
    (tmp_path / "summary.txt").write_text(SUMMARY.strip())
    done = run_cli(
        "score",
        "--source",
        str(tmp_path / "source.txt"),
        "--summary",
        str(tmp_path / "summary.txt"),
        "--model",
        SMALL,
        "--json",
    )
    same_as_cli(
        json.loads(done.stdout), graded["score"], graded["namedScores"]["alignment"], graded["namedScores"]["coverage"]
    )


# -- LangSmith --------------------------------------------------------------------------------


def test_langsmith_evaluate_offline(cli, monkeypatch):
    from langsmith import evaluate
    from langsmith.schemas import Example

    from localsumm.integrations.langsmith import summarization_evaluator

    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    dataset = uuid.uuid4()
    examples = [Example(id=uuid.uuid4(), dataset_id=dataset, inputs={"source": SOURCE}, outputs={})]
    evaluator = summarization_evaluator(model=SMALL)
    runs = list(
        evaluate(lambda inputs: {"summary": SUMMARY}, data=examples, evaluators=[evaluator], upload_results=False)
    )
    [result] = runs[0]["evaluation_results"]["results"]
    assert result.key == "localsumm_summarization" and result.comment.startswith(cli["reason"])
    m = result.metadata
    same_as_cli(cli, result.score, m["alignment"], m["coverage"], [c["probability"] for c in m["claims"]])


def test_langsmith_evaluator_on_plain_dicts(cli):
    from localsumm.integrations.langsmith import summarization_evaluator

    evaluator = summarization_evaluator(model=SMALL)
    graded = evaluator(inputs={"document": SOURCE}, outputs={"summary": SUMMARY}, reference_outputs=None)
    m = graded["metadata"]
    same_as_cli(cli, graded["score"], m["alignment"], m["coverage"], [c["probability"] for c in m["claims"]])
    with pytest.raises(ValueError, match="no 'summary' key"):
        evaluator(inputs={"source": SOURCE}, outputs={"a": SUMMARY, "b": SUMMARY})
