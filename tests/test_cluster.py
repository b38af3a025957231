"""Batch evaluation on a real local Ray runtime (no mocks of Ray), with the small test judge."""

from __future__ import annotations

import json
import os
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from localsumm import create_summarization_scorer, run_evals
from localsumm.runs.cluster import RaySettings, shard
from localsumm.runs.records import Item
from localsumm.runs.scoring import ItemResult

from .conftest import (
    SMALL,
    SOURCE,
    SUMMARY,
    assert_refused,
    interrupt_after_first_line,
    quick_eval_files,
    run_cli,
    second_writer,
)

OTHER_SUMMARY = "Harbor Lights Brewing makes beer in Portland, Maine."


def _records() -> list[dict[str, str]]:
    """Two sources of two summaries each: sharding by source gives the two workers one each, and a worker that
    finishes its first item still holds its second."""
    second = SOURCE.replace("Harbor Lights", "Bay Lantern")
    rows = [
        (SOURCE, SUMMARY),
        (SOURCE, OTHER_SUMMARY),
        (second, SUMMARY.replace("Harbor Lights", "Bay Lantern")),
        (second, "Bay Lantern Brewing is a brewery."),
    ]
    return [{"id": f"r{n}", "source": s, "summary": m} for n, (s, m) in enumerate(rows)]


def _comparable(line: dict, *, history: bool = True) -> dict:
    """A results line without what may differ between processes: timings and token costs, and the stamp of
    the run that wrote it; and, with ``history=False``, the per-step costs altogether and whether the question
    set came from an earlier summary (a restarted worker or a resumed run asks its first summary's questions
    again)."""
    line = json.loads(json.dumps(line))
    line["localsumm"].pop("run", None)
    result = line["localsumm"].get("result")
    if result and not history:
        result["provenance"].pop("shared_steps", None)
        result["provenance"].pop("steps", None)
    if result and "steps" in result["provenance"]:
        for step in result["provenance"]["steps"]:
            for key in ("seconds", "prompt_tokens", "reused_prompt_tokens", "completion_tokens", "cached_calls"):
                step.pop(key, None)
    return line


def _lines(path: Path, *, history: bool = True) -> dict[str, dict]:
    lines = [json.loads(text) for text in path.read_text().splitlines()]
    ids = [line["id"] for line in lines]
    assert len(ids) == len(set(ids)), f"an item was written twice: {ids}"
    return {line["id"]: _comparable(line, history=history) for line in lines}


def ray_eval(data: Path, out: Path, ray: str | None, workers: int, *more: str) -> list[str]:
    """``localsumm eval`` arguments for ``data`` on the small judge under Ray with ``workers`` workers, writing
    ``out``: ``ray`` is the cluster's address, or None for a bare ``--ray`` (a runtime of the run's own)."""
    address = [] if ray is None else [ray]
    return ["eval", str(data), "--out", str(out), "--model", SMALL, *more, "--ray", *address, "--workers", str(workers)]


@pytest.fixture(scope="module")
def runtime() -> Iterator[str]:
    """One local Ray runtime, started here, for the module's runs to join as a cluster (``--ray ADDRESS``): a
    start and a shutdown cost about 8 s on one CPU. A bare ``--ray`` (a runtime of the run's own) is tested
    where the workers' environment matters: a worker without the model."""
    import ray

    ray.init(include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ray") / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _records()))
    return path


@pytest.fixture(scope="module")
def one_process(data) -> dict[str, dict]:
    out = data.parent / "one-process.jsonl"
    done = run_cli("eval", str(data), "--out", str(out), "--model", SMALL, "--no-cache", "--threads", "1")
    assert done.returncode == 0, done.stderr
    return _lines(out)


def test_shards_keep_a_source_together_and_split_only_for_idle_workers():
    items = [ItemResult(i, Item(None, f"s{i // 3}", "x")) for i in range(7)]  # sources of 3, 3 and 1 summaries

    def key(item):
        return item.input

    assert [[i.index for i in s] for s in shard(items, key, 2)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [[i.index for i in s] for s in shard(items[:3], key, 2)] == [[0, 1], [2]]
    assert [[i.index for i in s] for s in shard(items[:1], key, 4)] == [[0]]


def test_two_workers_give_the_results_file_of_one_process(data, one_process, runtime, tmp_path):
    out = tmp_path / "ray.jsonl"
    done = run_cli(*ray_eval(data, out, runtime, 2, "--no-cache"))
    assert done.returncode == 0, done.stderr
    assert "failed: 0" in done.stderr
    assert _lines(out) == one_process


def test_a_worker_killed_mid_run_costs_only_the_items_it_held(one_process, runtime):
    scorer = create_summarization_scorer(SMALL, threads=1)
    seen: list[tuple[str, str]] = []
    killed: list[int] = []

    def on_item(item) -> None:
        seen.append((item.id, item.worker))
        if not killed:  # the first worker to finish an item dies at once, with its shard unfinished
            pid = int(item.worker.rsplit(":", 1)[1])
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    run = run_evals(
        [{"id": r["id"], "input": r["source"], "output": r["summary"]} for r in _records()],
        [scorer],
        on_item_complete=on_item,
        ray=RaySettings(address=runtime, workers=2, threads=1),
    )
    assert sorted(i for i, _ in seen) == sorted(one_process), "an item was lost or reported twice"
    assert killed and any(not worker.endswith(f":{killed[0]}") for _, worker in seen[1:])
    # The same scores and verdicts item by item; the restarted worker asked its questions again.
    for item in run.items:
        expected = _comparable(one_process[item.id], history=False)["localsumm"]["result"]
        got = _comparable({"localsumm": {"result": item.scorer_results[scorer.id].to_dict()}}, history=False)
        assert got["localsumm"]["result"] == expected, item.id


def test_an_interrupted_driver_resumes_without_losing_or_repeating(data, one_process, runtime, tmp_path):
    out = tmp_path / "ray.jsonl"
    proc = interrupt_after_first_line(ray_eval(data, out, runtime, 2, "--no-cache"), out)
    assert proc.returncode == 130, proc.stderr
    assert 1 <= len(out.read_text().splitlines()) < len(one_process)
    done = run_cli(*ray_eval(data, out, runtime, 2, "--no-cache", "--resume"))
    assert done.returncode == 0, done.stderr
    # The same scores and verdicts; the resumed run asked the first questions of a source again.
    assert _lines(out, history=False) == {k: _comparable(v, history=False) for k, v in one_process.items()}


def test_resuming_with_another_judge_stops_before_writing(data, one_process, runtime, tmp_path):
    """Under Ray the driver never loads the judge: the first result the workers send names it."""
    out = tmp_path / "ray.jsonl"
    first = json.loads(json.dumps(next(iter(one_process.values()))))
    first["localsumm"]["result"]["provenance"].update(model="another-judge", model_sha256="0" * 64)
    out.write_text(json.dumps(first) + "\n")
    before = out.read_text()
    done = run_cli(*ray_eval(data, out, runtime, 1, "--no-cache", "--resume"))
    assert done.returncode == 3, done.stderr  # InputError
    assert "judged by another-judge" in done.stderr and f"not {SMALL}" in done.stderr and "Traceback" not in done.stderr
    assert out.read_text() == before


def test_a_worker_without_the_model_stops_the_run_naming_its_node(data, tmp_path):
    out = tmp_path / "ray.jsonl"
    empty = tmp_path / "no-models"
    empty.mkdir()
    done = run_cli(*ray_eval(data, out, None, 1), env={"LOCALSUMM_MODELS": str(empty)})
    assert done.returncode == 4, done.stderr
    assert "the worker on node" in done.stderr and "is not installed" in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists() or not out.read_text().strip()


def test_an_endpoint_out_of_reach_stops_the_run_as_in_one_process(data, tmp_path):
    """A hosted judge whose endpoint a worker cannot reach: the run stops with the one process's error (exit 7), and
    writes no line failed in its name (a resumed run scores them)."""
    out = tmp_path / "ray.jsonl"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    args = ["eval", str(data), "--out", str(out), "--model", "openai:none", "--base-url", f"http://127.0.0.1:{port}/v1"]
    done = run_cli(*args, "--ray", "--workers", "1", env={"LOCALSUMM_API_KEY": "x"})
    assert done.returncode == 7, done.stderr
    assert "cannot reach the judge endpoint" in done.stderr and "Traceback" not in done.stderr
    assert not out.exists() or not out.read_text().strip()


def test_more_workers_than_the_runtime_has_cpus_is_a_clear_error(data, runtime, tmp_path):
    done = run_cli(*ray_eval(data, tmp_path / "r.jsonl", runtime, 64))
    assert done.returncode == 2 and "lower --workers or --threads" in done.stderr, done.stderr


def test_a_second_driver_on_the_same_out_is_refused(runtime, tmp_path):
    """Only the driver writes the results file, and one driver at a time: a second is refused at once."""
    data, questions = quick_eval_files(tmp_path, 4)
    out = tmp_path / "ray.jsonl"
    args = ["eval", str(data), "--out", str(out), "--model", SMALL, "--questions", str(questions), "--no-cache"]
    ray = ["--ray", runtime, "--workers", "1"]
    second, pid = second_writer([*args, *ray], out, [*args, "--resume", *ray])
    assert_refused(second, pid)
    assert sorted(_lines(out)) == [f"i{k}" for k in range(4)]  # each id once
