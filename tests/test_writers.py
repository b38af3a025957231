"""One writer per results or question file (runs.lock): real processes holding, dying and contending."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from localsumm.errors import FileInUseError, InputError, LocalsummWarning
from localsumm.runs.evaluate import evaluate_file
from localsumm.runs.lock import lock_path, one_writer
from localsumm.runs.questions import write_questions

from .conftest import ROOT, SMALL, SOURCE, SUMMARY, assert_refused, quick_eval_files, run_cli, second_writer
from .scripted import ScriptedJudge

HOLD = """
import sys
from pathlib import Path
from localsumm.runs.lock import one_writer
with one_writer(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()  # until the test closes our stdin
"""


def hold(path: Path) -> subprocess.Popen:
    """Another process holding the lock on ``path`` until its stdin is closed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def data_file(path: Path, n: int) -> Path:
    path.write_text("".join(json.dumps({"id": f"i{k}", "source": SOURCE, "summary": SUMMARY}) + "\n" for k in range(n)))
    return path


def test_a_second_writer_is_refused_at_once_naming_the_holder(tmp_path):
    out = tmp_path / "out.jsonl"
    holder = hold(out)
    try:
        started = time.monotonic()
        with pytest.raises(FileInUseError) as refused:
            with one_writer(out):
                pytest.fail("two writers held one file")
        assert time.monotonic() - started < 1.0
        assert f"{out} is being written by process {holder.pid} on {socket.gethostname()}" in str(refused.value)
        assert refused.value.exit_code == 2 and len(str(refused.value).splitlines()) <= 3
        # eval and questions are refused before they read, load or write anything.
        data = data_file(tmp_path / "data.jsonl", 2)
        with pytest.raises(FileInUseError, match=f"process {holder.pid}"):
            evaluate_file(data, out, resume=True, model=ScriptedJudge())
        with pytest.raises(FileInUseError, match=f"process {holder.pid}"):
            write_questions(data, out, resume=True, from_reference="summary")
        assert not out.exists()
    finally:
        holder.communicate("")  # closes its stdin: it releases the lock and ends
    assert holder.returncode == 0 and not lock_path(out).exists()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a lock released cleanly is taken without a word
        with one_writer(out):
            assert lock_path(out).exists()
    assert not lock_path(out).exists()


def test_one_process_cannot_hold_a_file_twice(tmp_path):
    out = tmp_path / "out.jsonl"
    with one_writer(out):
        with pytest.raises(FileInUseError, match=f"process {os.getpid()}"):
            with one_writer(out):
                pass
    with one_writer(out):  # released
        pass


def test_the_cli_refuses_a_second_eval_and_questions_with_exit_2(tmp_path):
    data = data_file(tmp_path / "data.jsonl", 2)
    out = tmp_path / "out.jsonl"
    holder = hold(out)
    try:
        assert_refused(run_cli("eval", str(data), "--out", str(out), "--resume", "--model", SMALL), holder.pid)
        assert_refused(run_cli("questions", str(data), "--out", str(out), "--model", SMALL), holder.pid)
    finally:
        holder.communicate("")
    assert not out.exists()


def test_a_lock_left_by_a_dead_process_is_taken_over_with_a_warning(tmp_path):
    out = tmp_path / "out.jsonl"
    holder = hold(out)
    holder.send_signal(signal.SIGKILL)  # dies holding it: its marker stays
    holder.communicate()
    assert lock_path(out).exists()
    with pytest.warns(LocalsummWarning, match=f"left locked by process {holder.pid} on .*no longer running; took"):
        with one_writer(out):
            assert f"pid={os.getpid()}\n" in lock_path(out).read_text()
    assert not lock_path(out).exists()


def test_a_lock_whose_holders_process_id_was_reused_is_taken_over_with_a_warning(tmp_path):
    """The holder died and its process id now names another, later process (here a sleeping child): filelock
    tells them apart by the start time the marker records, takes the lock over, and the warning says why."""
    out = tmp_path / "out.jsonl"
    holder = hold(out)
    marker = lock_path(out).read_text()
    holder.send_signal(signal.SIGKILL)
    holder.communicate()
    later = subprocess.Popen(["sleep", "60"])
    try:
        lock_path(out).write_text(marker.replace(f"pid={holder.pid}\n", f"pid={later.pid}\n"))
        reused = f"left locked by process {later.pid} on .*no longer running \\(process id {later.pid} now names"
        with pytest.warns(LocalsummWarning, match=reused):
            with one_writer(out):
                assert f"pid={os.getpid()}\n" in lock_path(out).read_text()
    finally:
        later.kill()
        later.wait()
    assert not lock_path(out).exists()


def test_a_lock_released_by_a_live_holder_is_taken_without_a_warning(tmp_path):
    out = tmp_path / "out.jsonl"
    holder = hold(out)
    holder.communicate("")  # releases it and exits normally: nothing was left behind
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with one_writer(out):
            pass


def test_two_evals_on_one_out_as_in_the_issue_write_every_id_once(tmp_path):
    """One plain ``eval``, then one with ``--resume`` a moment later on the same --out (a relaunched or retried
    job): the second is refused at once, and the first writes each of the 6 ids once."""
    data, questions = quick_eval_files(tmp_path, 6)
    out = tmp_path / "out.jsonl"
    args = ["eval", str(data), "--out", str(out), "--model", SMALL, "--questions", str(questions), "--no-cache"]
    second, pid = second_writer(args, out, [*args, "--resume"])
    assert_refused(second, pid)
    ids = [json.loads(text)["id"] for text in out.read_text().splitlines()]
    assert sorted(ids) == [f"i{k}" for k in range(6)]


def test_a_file_that_cannot_be_written_is_a_clear_error(tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(InputError, match="a-file/out.jsonl cannot be written: "):
        with one_writer(tmp_path / "a-file" / "out.jsonl"):
            pass
