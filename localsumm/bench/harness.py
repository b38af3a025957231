"""`localsumm bench harness`: what an assertion in a pytest session costs against a `localsumm score` call.

The same N summaries are scored twice, with the judge-call cache off: once as N tests of one pytest
session (the plugin's fixture loads the judge once, every test calls ``assert_summary``), and once as N
separate ``localsumm score`` processes (each loads the judge). Both run here, one after the other, so the
ratios come from one run on one machine. Each side's seconds inside the scorer's steps are read from its
results, so the load and start-up are what is left of its wall time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import ConfigError
from .speed import first_item_per_source

# The session's tests, written beside their items; each records its wall time and its result's step seconds.
_TEST_FILE = """
import json, time
from pathlib import Path

import pytest

from localsumm.testing import assert_summary

HERE = Path(__file__).parent
ITEMS = json.loads((HERE / "items.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("i", range(len(ITEMS)))
def test_summary(i, summarization_scorer):
    start = time.perf_counter()
    result = assert_summary(ITEMS[i]["source"], ITEMS[i]["summary"])
    wall = time.perf_counter() - start
    steps = result.seconds
    with open(HERE / "timings.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps({"i": i, "wall": wall, "steps": steps, "score": result.score}) + "\\n")
"""


@dataclass
class Side:
    """One way of scoring the N summaries."""

    wall: float
    """Seconds from start to end: the pytest process, or the N CLI processes together."""
    steps: float
    """Seconds inside the scorer's steps, summed over the N summaries."""
    per_summary: list[float]
    """Wall seconds of each summary: an assertion inside its test, or a whole CLI process."""
    scores: list[float]

    @property
    def overhead(self) -> float:
        """Start-up and judge loads: the wall time outside the scorer's steps."""
        return self.wall - self.steps


@dataclass
class HarnessReport:
    model: str
    items: int
    pytest: Side
    cli: Side

    def markdown(self) -> str:
        p, c = self.pytest, self.cli
        n = self.items
        rows = [
            ("wall seconds, all summaries", p.wall, c.wall),
            ("  of which start-up and judge loads", p.overhead, c.overhead),
            ("  of which scoring (the scorer's steps)", p.steps, c.steps),
            ("scoring seconds per summary", p.steps / n, c.steps / n),
        ]
        lines = [
            f"{n} summaries on {self.model}, no judge-call cache: one pytest session of {n} `assert_summary` tests "
            f"against {n} `localsumm score` processes, in one run.",
            "",
            "| | pytest session | CLI calls | pytest / CLI |",
            "|---|---:|---:|---:|",
        ]
        lines += [f"| {name} | {a:.1f} | {b:.1f} | {a / b:.2f} |" for name, a, b in rows]
        same = "the same" if p.scores == c.scores else "DIFFERENT"
        lines += ["", f"Scores: {same} on both sides ({', '.join(f'{s:.2f}' for s in p.scores)})."]
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise ConfigError(
            f"{' '.join(args[:4])} ... failed (exit {done.returncode}):\n{(done.stdout + done.stderr)[-2000:]}"
        )
    return wall, done.stdout


def run_harness(data: Path, *, model: str | None = None, items: int = 5) -> HarnessReport:
    chosen = first_item_per_source(data, items)
    if len(chosen) < items:
        raise ConfigError(f"{data} has {len(chosen)} distinct sources; --items {items} needs as many")
    # Neither side may be answered by the other's judge calls, nor load anything but the plugin under test.
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    cli_flags = ["--model", model] if model else []  # `score` never reads the judge-call cache
    with tempfile.TemporaryDirectory(prefix="localsumm-harness-") as tmp:
        root = Path(tmp)
        (root / "items.json").write_text(json.dumps(chosen), encoding="utf-8")
        (root / "test_summaries.py").write_text(_TEST_FILE, encoding="utf-8")
        (root / "pytest.ini").write_text(
            "[pytest]\n" + (f"localsumm_model = {model}\n" if model else "") + "localsumm_options = cache=false\n",
            encoding="utf-8",
        )
        wall, _ = _run(
            [sys.executable, "-m", "pytest", "-q", "-p", "localsumm.pytest_plugin", "-p", "no:cacheprovider"], root, env
        )
        timings = sorted(
            (json.loads(line) for line in (root / "timings.jsonl").read_text().splitlines()), key=lambda t: t["i"]
        )
        in_session = Side(
            wall, sum(t["steps"] for t in timings), [t["wall"] for t in timings], [t["score"] for t in timings]
        )

        walls, steps, scores = [], 0.0, []
        for i, item in enumerate(chosen):
            (root / f"source{i}.txt").write_text(item["source"], encoding="utf-8")
            (root / f"summary{i}.txt").write_text(item["summary"], encoding="utf-8")
            args = ["--source", f"source{i}.txt", "--summary", f"summary{i}.txt", "--json", *cli_flags]
            seconds, out = _run([sys.executable, "-m", "localsumm.cli", "score", *args], root, env)
            result = json.loads(out)
            walls.append(seconds)
            steps += sum(s["seconds"] for s in result["provenance"]["steps"])
            scores.append(result["score"])
        cli = Side(sum(walls), steps, walls, scores)
    return HarnessReport(model or "the default judge", items, in_session, cli)
