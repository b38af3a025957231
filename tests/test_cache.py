"""The judge-call cache under concurrency and damage: real processes, real SQLite files."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from localsumm.backends.cache import JudgeCallCache
from localsumm.errors import LocalsummWarning
from localsumm.runs.evaluate import evaluate_file

from .conftest import ROOT, SOURCE, SUMMARY
from .scripted import ScriptedJudge

WRITER = """
import sys, time
from pathlib import Path
from localsumm.backends.cache import JudgeCallCache
folder, name, start = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
files, keys = int(sys.argv[4]), int(sys.argv[5])
for f in range(files):
    while time.time() < start + f * 0.2:  # both processes open each new file at the same moment
        time.sleep(0.001)
    cache = JudgeCallCache(folder / f"calls-{f}.sqlite3")
    for k in range(keys):
        cache.put(f"{name}-{k}", "prompt", name)
        cache.put(f"shared-{k}", "prompt", "shared")
"""


def test_two_processes_writing_one_cache_at_once_lose_nothing(tmp_path):
    files, keys = 10, 50
    start = time.time() + 2  # after both have imported
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path), name, str(start), str(files), str(keys)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    for writer in writers:
        _, stderr = writer.communicate(timeout=300)
        # No "database is locked" traceback, and no warning that the cache was given up.
        assert writer.returncode == 0 and stderr == "", stderr
    for f in range(files):
        with sqlite3.connect(tmp_path / f"calls-{f}.sqlite3") as db:
            rows = dict(db.execute("SELECT key, output FROM calls").fetchall())
            assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert len(rows) == 3 * keys, f"calls-{f}: {len(rows)} of {3 * keys} answers"
        assert all(rows[f"{name}-{k}"] == name for name in ("a", "b") for k in range(keys))


HOLDER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
db.execute("CREATE TABLE other (x)")
print("writing", flush=True)
time.sleep(1.5)
db.execute("COMMIT")
"""


def test_opening_a_new_cache_waits_for_another_process_writing_it(tmp_path):
    """The race two processes opening a new cache file run into, made certain: SQLite answers the switch to WAL
    with "database is locked" at once, without its busy timeout, while another process writes the file."""
    path = tmp_path / "calls.sqlite3"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "writing\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not given up with a warning either
        cache = JudgeCallCache(path)
    holder.communicate()
    cache.put("k", "prompt", "answer")
    assert JudgeCallCache(path).get("k") == ("prompt", "answer")


def filled(path: Path, n: int = 2000) -> Path:
    """A real cache file of ``n`` answers (several pages deep), its WAL checkpointed into it."""
    JudgeCallCache(path)  # the cache's own schema
    with sqlite3.connect(path) as db:  # one transaction: quick
        db.executemany(
            "INSERT INTO calls VALUES (?, ?, ?, 0)", [(f"k{k}", "prompt " * 50, f"answer {k}") for k in range(n)]
        )
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_a_damaged_cache_is_set_aside_and_rebuilt_with_one_warning(tmp_path, damage):
    path = filled(tmp_path / "calls.sqlite3")
    size = path.stat().st_size
    if damage == "truncated":
        with path.open("r+b") as f:
            f.truncate(size // 2)
    else:
        path.write_bytes(b"not a database at all\n" * 500)
    # Found on opening, or (a file cut short) by the first read of a lost page: either way one warning.
    with pytest.warns(LocalsummWarning, match=r"judge-call cache .*calls.sqlite3 is damaged \(.*\): moved to") as seen:
        cache = JudgeCallCache(path)
        assert cache.get("k1999") is None
    assert len(seen) == 1 and len(str(seen[0].message).splitlines()) == 1
    assert (tmp_path / "calls.sqlite3.damaged").exists()
    assert cache.get("k1") is None  # started afresh...
    cache.put("k1", "prompt", "again")
    assert JudgeCallCache(path).get("k1") == ("prompt", "again")  # ...and kept


def test_a_cache_damaged_while_open_is_rebuilt_and_never_raises(tmp_path):
    path = filled(tmp_path / "calls.sqlite3")
    cache = JudgeCallCache(path)
    assert cache.get("k1") == ("prompt " * 50, "answer 1")
    with path.open("r+b") as f:  # another program cuts the file under us
        f.truncate(path.stat().st_size // 3)
    with pytest.warns(LocalsummWarning, match="is damaged"):
        assert cache.get("k1999") is None
    cache.put("k1999", "prompt", "again")
    assert cache.get("k1999") == ("prompt", "again")


def test_a_cache_that_cannot_be_opened_is_skipped_with_a_warning(tmp_path):
    folder = tmp_path / "cache"
    folder.write_text("a file where the cache's folder should be")
    with pytest.warns(LocalsummWarning, match="cannot be used .*scoring goes on without it"):
        cache = JudgeCallCache(folder / "calls.sqlite3")
    cache.put("k", "prompt", "answer")
    assert cache.get("k") is None


def test_eval_with_a_damaged_cache_scores_every_item(tmp_path):
    path = tmp_path / "calls.sqlite3"
    path.write_bytes(b"\x00garbage" * 1000)
    data, out = tmp_path / "data.jsonl", tmp_path / "out.jsonl"
    data.write_text("".join(json.dumps({"id": f"i{n}", "source": SOURCE, "summary": SUMMARY}) + "\n" for n in range(3)))
    judge = ScriptedJudge(questions=["Is it one?"], claim_probabilities=[0.9] * 9, question_probabilities=[0.9] * 3)
    judge.info = dataclasses.replace(judge.info, sha256="ab" * 32)  # only judges named by sha256 are cached
    with pytest.warns(LocalsummWarning, match="is damaged"):
        summary = evaluate_file(data, out, model=judge, cache=str(path))
    assert (summary.items, summary.scored) == (3, 3)
    steps = [json.loads(text)["localsumm"]["result"]["provenance"]["steps"] for text in out.read_text().splitlines()]
    assert len(steps) == 3 and all(step["cached_calls"] == 0 for step in steps[0])  # nothing came from the damage
    with sqlite3.connect(path) as db:  # the rebuilt cache holds this run's answers
        assert db.execute("SELECT count(*) FROM calls").fetchone()[0] > 0
