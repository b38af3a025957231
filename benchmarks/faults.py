"""A seeded fault campaign on the small test judge (issue 45): every fault must end in a clear error (an exit
code, an ``error:`` line, no traceback) or a clean recovery, and each results or question file must hold every
id exactly once at the end.

    python benchmarks/faults.py [--seed 0] [--kills 20] [--hostile 1000] [--ray] [--json FILE]

It runs ``localsumm`` of this checkout as a user would, in child processes, with a private cache, and prints a
table: fault, trials, outcome, ids lost, ids duplicated. The same seed gives the same kill points (lines
written, then a delay), the same cuts and the same hostile records; the timings around them are the machine's.
A full disk and a read-only folder are tmpfs mounts, so they need root (else: skipped, with the reason).
tests/test_faults.py runs a fast subset.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL = "smollm2-135m"
SUMMARY = "The mill made paper."
FACT = "It made paper."


@dataclass
class Row:
    """One fault: how its trials ended, and what the files held at the end."""

    fault: str
    trials: int = 0
    errors: int = 0
    """Trials that ended in a clear error (as they should)."""
    recoveries: int = 0
    """Runs after a fault that finished the file cleanly."""
    lost: int = 0
    duplicated: int = 0
    problems: list[str] = field(default_factory=list)
    """What went wrong: a traceback, an unclear exit, an id lost or written twice. Empty when the fault passed."""
    skipped: str | None = None
    note: str = ""

    @property
    def outcome(self) -> str:
        if self.skipped:
            return f"skipped: {self.skipped}"
        if self.problems:
            return "FAILED: " + "; ".join(self.problems[:3])
        kinds = [f"clear error ({self.errors})" if self.errors else "", "clean recovery" if self.recoveries else ""]
        return ", then ".join(k for k in kinds if k)


class Campaign:
    """Runs of ``localsumm`` in a work folder, with a seeded random source."""

    def __init__(self, work: Path, seed: int = 0, model: str = MODEL) -> None:
        self.work = work
        self.rng = random.Random(seed)
        self.model = model
        path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
        # A private cache: the campaign neither reads results the user's runs cached nor leaves its own there.
        self.env = {**os.environ, "PYTHONPATH": path, "LOCALSUMM_CACHE": str(work / "cache")}
        sys.path.insert(0, str(ROOT))
        from localsumm.config.paths import cache_root
        from localsumm.models.registry import get_spec

        # The 135M judge's fact checks sit at 0.42-0.50 whatever the fact: a private coverage threshold of 0.3 (the
        # calibrated-threshold store) keeps the facts, so a killed `questions` run is about the kill, not the judge.
        config = work / "config"
        config.mkdir(parents=True, exist_ok=True)
        entry = {"alignment": 0.5, "coverage": 0.3, "note": "fault campaign"}
        (config / "thresholds.json").write_text(json.dumps({get_spec(model).sha256: entry}))
        self.env["LOCALSUMM_CONFIG"] = str(config)

        grammars = cache_root() / "grammars"
        if grammars.is_dir():  # compiled grammars (each takes a while to build), linked: they are never rewritten
            shutil.copytree(grammars, work / "cache" / "grammars", copy_function=os.link, dirs_exist_ok=True)
        self.chains = 0

    def command(self, *args: str | Path) -> list[str]:
        return [sys.executable, "-m", "localsumm.cli", *map(str, args)]

    def run(self, *args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.command(*args), capture_output=True, text=True, cwd=ROOT, env={**self.env, **(env or {})}, timeout=900
        )

    def start(self, *args: str | Path) -> subprocess.Popen[bytes]:
        log = (self.work / "killed.log").open("ab")  # a killed run's output: kept, never read
        return subprocess.Popen(self.command(*args), stdout=log, stderr=log, cwd=ROOT, env=self.env)

    def data(self, items: int, pad: int = 0) -> tuple[Path, Path]:
        """A fresh data file of ``items`` records, each on its own source (nothing of it cached), and its question
        file (each source's one fact, so a run asks no question step); ``pad`` characters of a carried field make
        each results line longer."""
        self.chains += 1
        tag = f"c{self.chains}"
        folder = self.work / tag
        folder.mkdir(parents=True)
        rows = [
            {
                "id": f"{tag}-{k}",
                "source": f"The {tag} mill number {k} opened in {1700 + k}. It made paper.",
                "summary": SUMMARY,
                "facts": [FACT],
                **({"note": "x" * pad} if pad else {}),
            }
            for k in range(items)
        ]
        data, questions = folder / "data.jsonl", folder / "questions.jsonl"
        data.write_text("".join(json.dumps(row) + "\n" for row in rows))
        done = self.run("questions", data, "--out", questions, "--from-reference", "facts")
        if done.returncode != 0:
            raise RuntimeError(f"cannot write the question file: {done.stderr}")
        return data, questions

    def eval_args(self, data: Path, out: Path, questions: Path) -> list[str | Path]:
        return ["eval", data, "--out", out, "--model", self.model, "--questions", questions]


# -- checks --------------------------------------------------------------------------------------------------


def unclear(done: subprocess.CompletedProcess[str], codes: tuple[int, ...]) -> str | None:
    """What is wrong with how a run ended (None: an expected exit code, and no traceback)."""
    for sign in ("Traceback", "Exception ignored"):
        if sign in done.stderr:
            return f"{sign} in the output of `{' '.join(done.args[3:5])}`"
    if done.returncode not in codes:
        tail = done.stderr.strip().splitlines()[-1:] or [""]
        return f"`{' '.join(done.args[3:5])}` exited {done.returncode}, not {codes}: {tail[0][:200]}"
    return None


def ids_in(path: Path, key: str = "id") -> collections.Counter[str]:
    """How often each id is in a results (or, with ``key="source_sha256"``, question) file, line by line."""
    counts: collections.Counter[str] = collections.Counter()
    if path.exists():
        for text in path.read_text(encoding="utf-8").splitlines():
            if text.strip():
                counts[str(json.loads(text)[key])] += 1
    return counts


def expected_ids(data: Path) -> set[str]:
    return {json.loads(t)["id"] for t in data.read_text().splitlines() if t.strip()}


def tally(row: Row, expected: set[str], found: collections.Counter[str]) -> None:
    """Add ids missing from, and written more than once to, a file that should hold each once."""
    lost = len(expected - set(found))
    duplicated = sum(n - 1 for n in found.values() if n > 1)
    row.lost += lost
    row.duplicated += duplicated
    if lost or duplicated:
        row.problems.append(f"{lost} ids lost, {duplicated} duplicated")


def check(row: Row, done: subprocess.CompletedProcess[str], codes: tuple[int, ...] = (0,)) -> bool:
    problem = unclear(done, codes)
    if problem:
        row.problems.append(problem)
    return problem is None


def expect_error(row: Row, done: subprocess.CompletedProcess[str], code: int, sign: str, what: str) -> None:
    """Count ``done`` as the clear error it should be: exit ``code``, ``sign`` in its message, no traceback."""
    if check(row, done, (code,)) and sign in done.stderr:
        row.errors += 1
    elif not row.problems:
        row.problems.append(f"{what} was not refused: {done.stderr.strip()[-200:]}")


def resuming(out: Path) -> list[str]:
    """``--resume`` where ``out`` holds lines already (a run refuses to append to it without)."""
    return ["--resume"] if out.exists() and out.stat().st_size else []


def lines_of(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def kill_at(proc: subprocess.Popen[bytes], out: Path, lines: int, delay: float, deadline: float = 600) -> bool:
    """SIGKILL ``proc`` ``delay`` seconds after ``out`` holds ``lines`` lines; False when it ended first."""
    limit = time.monotonic() + deadline
    while proc.poll() is None and lines_of(out) < lines and time.monotonic() < limit:
        time.sleep(0.02)
    time.sleep(delay)
    if proc.poll() is not None:
        return False
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return True


# -- SIGKILL, then --resume ----------------------------------------------------------------------------------

Target = tuple[list[str | Path], Path, set[str], str]
"""A run to kill: its arguments, the file it writes, the ids (or source hashes) that file must hold, their key."""


def kill_and_resume(c: Campaign, row: Row, kills: int, make: Callable[[], Target]) -> None:
    """SIGKILL runs at ``kills`` seeded points (after a random number of written lines, then a random delay),
    each resuming what the last left; a file whose run ended before its kill is checked and a new one begun."""
    target: Target | None = None
    tries = 0
    while row.trials < kills and tries < 3 * kills:
        tries += 1
        target = target or make()
        args, out, expected, _ = target
        proc = c.start(*args, *resuming(out))
        if kill_at(proc, out, c.rng.randrange(len(expected)), c.rng.uniform(0.0, 1.5)):
            row.trials += 1
            continue
        if proc.returncode != 0:
            row.problems.append(f"a run after a kill exited {proc.returncode} (see {c.work / 'killed.log'})")
        finish(c, row, target)
        target = None
    if target is not None:
        finish(c, row, target)


def finish(c: Campaign, row: Row, target: Target) -> None:
    """Resume ``target`` to its end, and count its ids."""
    args, out, expected, key = target
    if check(row, c.run(*args, *resuming(out))):
        row.recoveries += 1
    tally(row, expected, ids_in(out, key))


def kill_eval(c: Campaign, kills: int = 20, items: int = 8) -> Row:
    row = Row("SIGKILL during `eval`, then `eval --resume`")

    def make() -> Target:
        data, questions = c.data(items)
        out = data.with_name("results.jsonl")
        return c.eval_args(data, out, questions), out, expected_ids(data), "id"

    kill_and_resume(c, row, kills, make)
    row.note = f"{items} items per file, {c.chains} files"
    return row


def kill_questions(c: Campaign, kills: int = 20, items: int = 6) -> Row:
    import hashlib

    row = Row("SIGKILL during `questions`, then `questions --resume`")

    def make() -> Target:
        data, _ = c.data(items)
        sources = {json.loads(t)["source"] for t in data.read_text().splitlines()}
        hashes = {hashlib.sha256(s.encode("utf-8")).hexdigest() for s in sources}
        out = data.with_name("checked-questions.jsonl")
        # Each fact checked against its source by the judge (one verdict each); the small judge writing whole
        # question sets takes minutes a source on a busy machine.
        args: list[str | Path] = ["questions", data, "--out", out, "--from-reference", "facts", "--question-check"]
        return [*args, "--model", c.model], out, hashes, "source_sha256"

    first = c.chains
    kill_and_resume(c, row, kills, make)
    row.note = f"{items} sources per file, each fact checked by the judge, {c.chains - first} files"
    return row


# -- the disk -------------------------------------------------------------------------------------------------


class Skip(Exception):
    """A fault this machine cannot stage, with the reason."""


@contextmanager
def tmpfs(folder: Path, options: str) -> Iterator[Callable[[str], None]]:
    """A tmpfs mounted on ``folder`` for the block (root only); yields a function that remounts it with other
    options."""
    if os.geteuid() != 0:
        raise Skip(f"mounting a tmpfs needs root (id -u is {os.geteuid()})")
    folder.mkdir(parents=True, exist_ok=True)

    def mount(*how: str) -> None:
        done = subprocess.run(["mount", "-t", "tmpfs", *how, "tmpfs", str(folder)], capture_output=True, text=True)
        if done.returncode != 0:
            raise Skip(f"cannot mount a tmpfs: {done.stderr.strip()}")

    mount("-o", options)
    try:
        yield lambda new: mount("-o", f"remount,{new}")
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def full_disk(c: Campaign, items: int = 6) -> Row:
    """Results on a 16 kB tmpfs: the run stops at the line that does not fit, with a clear error and only whole
    lines in the file; once the disk has room, --resume finishes it."""
    row = Row("full disk (16 kB tmpfs) during `eval`, then `--resume` with room")
    return disk_fault(c, row, items, ("size=16k", "size=4m"), "No space left on device", pad=3000)


def read_only(c: Campaign, items: int = 3) -> Row:
    """An --out in a read-only folder (a tmpfs mounted read-only): refused at once, nothing written; writable
    again, the same command completes."""
    return disk_fault(c, Row("read-only output folder"), items, ("ro,size=1m", "rw"), "Read-only file system")


def disk_fault(c: Campaign, row: Row, items: int, mounts: tuple[str, str], sign: str, pad: int = 0) -> Row:
    """An eval into a tmpfs mounted with ``mounts[0]``, which must fail with ``sign`` in its error and leave
    whole lines only; then, remounted with ``mounts[1]``, the run finished with every id once."""
    data, questions = c.data(items, pad=pad)
    folder = c.work / f"disk{c.chains}"
    try:
        with tmpfs(folder, mounts[0]) as remount:
            out = folder / "results.jsonl"
            row.trials = 1
            expect_error(row, c.run(*c.eval_args(data, out, questions)), 3, sign, sign.lower())
            if out.exists() and out.read_bytes()[-1:] not in (b"", b"\n"):
                row.problems.append("a line cut short was left in the file")
            row.note = f"{lines_of(out)} of {items} lines written before the error"
            remount(mounts[1])
            if check(row, c.run(*c.eval_args(data, out, questions), *resuming(out))):
                row.recoveries += 1
            tally(row, expected_ids(data), ids_in(out))
    except Skip as e:
        row.skipped = str(e)
    return row


# -- files changed under a run --------------------------------------------------------------------------------


def wait_for_line(proc: subprocess.Popen[bytes], out: Path) -> bool:
    """Wait until ``out`` holds a line; False when the run ended first."""
    while proc.poll() is None and lines_of(out) < 1:
        time.sleep(0.02)
    return proc.poll() is None


def truncated_input(c: Campaign, items: int = 6) -> Row:
    """The data file cut mid-line (at a seeded byte) once the run has written a line: the run scores what it
    read; a resume reports the cut line by its number and writes no id twice."""
    row = Row("input file truncated during `eval`, then `--resume`")
    data, questions = c.data(items)
    expected = expected_ids(data)
    out = data.with_name("results.jsonl")
    proc = c.start(*c.eval_args(data, out, questions))
    running = wait_for_line(proc, out)
    lines = data.read_bytes().split(b"\n")
    cut = c.rng.randrange(items // 2, items)  # a line of the second half, 0-based
    at = sum(len(line) + 1 for line in lines[:cut]) + c.rng.randrange(1, len(lines[cut]))
    os.truncate(data, at)
    row.trials = 1
    if proc.wait() != 0:
        row.problems.append(f"the run exited {proc.returncode} (see {c.work / 'killed.log'})")
    done = c.run(*c.eval_args(data, out, questions), "--resume")
    if check(row, done):
        row.recoveries += 1
    reported = [t for t in out.read_text().splitlines() if f"line {cut + 1} is not JSON" in t]
    if len(reported) == 1:
        row.errors += 1
    else:
        row.problems.append(f"the cut line {cut + 1} was reported {len(reported)} times")
    found = ids_in(out)
    del found[f"line-{cut + 1}"]  # the cut line's report
    tally(row, expected, found)
    row.note = f"cut inside line {cut + 1} of {items}" + ("" if running else " (the run had ended: not mid-run)")
    return row


def edited_questions(c: Campaign, items: int = 6) -> Row:
    """The question file edited (one source's fact rewritten) while a run reads it, and the run killed: the
    resume refuses the edited file, naming it; with the file restored, it finishes."""
    row = Row("question file edited during `eval` (killed), then `--resume`")
    data, questions = c.data(items)
    out = data.with_name("results.jsonl")
    original = questions.read_bytes()
    proc = c.start(*c.eval_args(data, out, questions))
    running = wait_for_line(proc, out)
    sets = [json.loads(t) for t in original.decode().splitlines()]
    sets[c.rng.randrange(len(sets))]["key_facts"] = ["It made cloth."]
    questions.write_text("".join(json.dumps(qs) + "\n" for qs in sets))
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    row.trials = 1
    done = c.run(*c.eval_args(data, out, questions), "--resume")
    expect_error(row, done, 3, "question file", "the edited question file")
    questions.write_bytes(original)
    if check(row, c.run(*c.eval_args(data, out, questions), "--resume")):
        row.recoveries += 1
    tally(row, expected_ids(data), ids_in(out))
    row.note = "" if running else "the run had ended before the edit"
    return row


def changed_model(c: Campaign) -> Row:
    """The installed judge's bytes changed after its download (one byte flipped at a seeded offset; the file cut
    short): each refused before it loads, by its size or sha256."""
    from localsumm.models.registry import get_spec

    row = Row("judge file changed after download (a byte flipped; cut short)")
    spec = get_spec(c.model)
    models = c.work / "models"
    models.mkdir()
    copy = models / spec.path.name
    example = ("--source", ROOT / "examples" / "source.txt", "--summary", ROOT / "examples" / "summary.txt")
    for damage in ("flip", "cut"):
        shutil.copyfile(spec.path, copy)
        with copy.open("r+b") as file:
            if damage == "flip":
                file.seek(c.rng.randrange(spec.size // 2, spec.size))
                byte = file.read(1)
                file.seek(-1, os.SEEK_CUR)
                file.write(bytes([byte[0] ^ 0xFF]))
            else:
                file.truncate(c.rng.randrange(spec.size // 2, spec.size))
        done = c.run("score", *example, "--model", c.model, env={"LOCALSUMM_MODELS": str(models)})
        row.trials += 1
        expect_error(row, done, 4, "refusing to load", "a changed judge file")
    copy.unlink()
    row.note = "`localsumm models pull` installs it again, verified"
    return row


RAY_TEST = "tests/test_cluster.py::test_a_worker_killed_mid_run_costs_only_the_items_it_held"


def ray_worker(c: Campaign, run: bool) -> Row:
    """A Ray worker killed mid-item: the test suite's test, run here with ``run``."""
    row = Row("Ray worker SIGKILLed mid-item (`eval --ray`)")
    if not run:
        row.skipped = f"covered by {RAY_TEST} (pass --ray to run it here)"
        return row
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", RAY_TEST],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=c.env,
        timeout=1800,
    )
    row.trials = 1
    if done.returncode == 0:
        row.recoveries = 1
    else:
        row.problems.append(f"{RAY_TEST} failed: {done.stdout.strip()[-300:]}")
    row.note = f"by {RAY_TEST}"
    return row


# -- hostile input ----------------------------------------------------------------------------------------------

SOURCE = "The mill opened in 1850. It made paper."
HUGE = 5_000_000
"""Characters of the one huge summary (the tests use a smaller one)."""


def _line(rid: str, **fields: object) -> bytes:
    return json.dumps({"id": rid, "source": SOURCE, "summary": SUMMARY, **fields}).encode()


def _wrong_type(rng: random.Random, rid: str) -> bytes:
    wrong: list[dict[str, object]] = [
        {"id": {"x": 1}},
        {"id": [rid]},
        {"id": 1.5},
        {"id": True},
        {"id": " "},
        {"source": 5},
        {"source": [SOURCE]},
        {"source": None},
        {"summary": 7},
        {"summary": {"text": SUMMARY}},
        {"questions": "Did the mill make paper?"},
        {"questions": []},
        {"questions": [1, 2]},
        {"system": 3},
        {"system": ""},
    ]
    forms: list[dict[str, object]] = [
        {"id": rid, "input": 5, "output": SUMMARY},
        {"id": rid, "input": {"inputMessages": [{"role": "assistant", "content": SOURCE}]}, "output": SUMMARY},
        {"id": rid, "input": [SOURCE], "output": SUMMARY},
    ]
    k = rng.randrange(len(wrong) + len(forms))
    if k >= len(wrong):
        return json.dumps(forms[k - len(wrong)]).encode()
    return json.dumps({"id": rid, "source": SOURCE, "summary": SUMMARY, **wrong[k]}).encode()


def _not_json(rng: random.Random, rid: str) -> bytes:
    good = _line(rid)
    return rng.choice(
        [
            good[: rng.randrange(1, len(good) - 1)],
            good.replace(b'"', b"'"),
            good[:-1] + b", }",
            bytes(rng.randrange(33, 127) for _ in range(rng.randrange(1, 80))).replace(b"{", b"("),
        ]
    )


HOSTILE: dict[str, Callable[[random.Random, str], bytes]] = {
    "invalid UTF-8": lambda rng, rid: _line(rid).replace(
        b"The mill made", b"The " + rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80", b"\xe2\x82"])
    ),
    "NUL byte": lambda rng, rid: (lambda b, at: b[:at] + b"\x00" + b[at:])(_line(rid), rng.randrange(40)),
    "NUL character (\\u0000)": lambda rng, rid: _line(rid, summary="The mill\u0000 made paper."),
    "deep nesting": lambda rng, rid: (lambda d: _line(rid)[:-1] + b', "meta": ' + b"[" * d + b"]" * d + b"}")(
        rng.randrange(1_100, 50_000)
    ),
    "wrong type": _wrong_type,
    "empty source": lambda rng, rid: _line(rid, source=rng.choice(["", "   ", "\n\t "])),
    "duplicate key": lambda rng, rid: (lambda k: _line(rid)[:-1] + f', "{k}": "again"}}'.encode())(
        rng.choice(["id", "source", "summary"])
    ),
    "not JSON": _not_json,
    "not an object": lambda rng, rid: rng.choice([b"[1, 2]", b'"text"', b"42", b"null", b"true"]),
    "missing field": lambda rng, rid: json.dumps(
        rng.choice([{"source": SOURCE, "summary": SUMMARY}, {"id": rid, "source": SOURCE}, {"id": rid}])
    ).encode(),
    "lone surrogate": lambda rng, rid: _line(rid)[:-1] + b', "note": "half \\ud800 a pair"}',
    "huge integer": lambda rng, rid: _line(rid)[:-1] + b', "n": ' + b"7" * rng.randrange(4_400, 9_000) + b"}",
    "BOM inside the file": lambda rng, rid: b"\xef\xbb\xbf" + _line(rid),
}


def hostile_file(
    path: Path, rng: random.Random, n: int, good: int, huge: int = HUGE
) -> tuple[dict[int, str], set[str]]:
    """``n`` hostile records (one a summary of ``huge`` characters, the others of every kind in turn, in a seeded
    order) among ``good`` good ones: the first after a BOM that starts the file, the last with no newline, and a
    quarter of all lines ending in CRLF. Returns each hostile line's number and kind, and the good ids."""
    kinds = [list(HOSTILE)[k % len(HOSTILE)] for k in range(n - 1)] + ["5 MB summary"]
    rng.shuffle(kinds)
    rows: list[tuple[str, bytes]] = [
        (kind, _line(f"h{k}", summary=SUMMARY * (huge // len(SUMMARY))) if kind == "5 MB summary" else b"")
        for k, kind in enumerate(kinds)
    ]
    rows = [(kind, line or HOSTILE[kind](rng, f"h{k}")) for k, (kind, line) in enumerate(rows)]
    for g in range(good):
        rows.insert(0 if g == 0 else len(rows) if g == good - 1 else rng.randrange(1, len(rows)), ("", _line(f"g{g}")))
    ends = [b"\r\n" if rng.random() < 0.25 else b"\n" for _ in rows]
    ends[-1] = b""
    path.write_bytes(b"\xef\xbb\xbf" + b"".join(line + end for (_, line), end in zip(rows, ends, strict=True)))
    return {number: kind for number, (kind, _) in enumerate(rows, 1) if kind}, {f"g{g}" for g in range(good)}


def hostile_input(c: Campaign, n: int = 1000, good: int = 20, huge: int = HUGE) -> tuple[Row, dict[str, list[int]]]:
    """``n`` hostile records through one ``eval``: each must be reported by its line number (a failed line in
    the results), none may raise a traceback, and the good records around them are scored. Returns the row and,
    per kind, [records, reported]."""
    row = Row(f"{n:,} hostile records among {good} good ones (`eval`)")
    folder = c.work / "hostile"
    folder.mkdir()
    data, out = folder / "hostile.jsonl", folder / "results.jsonl"
    hostile, good_ids = hostile_file(data, c.rng, n, good, huge)
    reference = folder / "reference.jsonl"
    reference.write_text(json.dumps({"id": "r", "source": SOURCE, "summary": SUMMARY, "facts": [FACT]}) + "\n")
    questions = folder / "questions.jsonl"
    check(row, c.run("questions", reference, "--out", questions, "--from-reference", "facts"))
    done = c.run(*c.eval_args(data, out, questions))
    row.trials = n
    check(row, done)
    lines = [json.loads(t) for t in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []
    named = collections.Counter(
        int(m.group(1))
        for line in lines
        if line["localsumm"]["status"] == "failed"
        for m in [re.search(r": line (\d+)\b", line["localsumm"]["error"] or "")]
        if m
    )
    by_kind: dict[str, list[int]] = {}
    for number, kind in hostile.items():
        by_kind.setdefault(kind, [0, 0])[0] += 1
        by_kind[kind][1] += named[number] == 1
    row.errors = sum(reported for _, reported in by_kind.values())
    scored = {line["id"] for line in lines if line["localsumm"]["status"] == "scored"}
    row.recoveries = int(good_ids <= scored)
    if scored != good_ids:
        row.problems.append(f"scored {sorted(scored)[:5]}..., not the {len(good_ids)} good records")
    row.lost = n - row.errors + len(good_ids - scored)
    row.duplicated = sum(k - 1 for k in ids_in(out).values() if k > 1)
    if row.lost or row.duplicated:
        row.problems.append(f"{n - row.errors} of {n} hostile records not reported by their line")
    row.note = f"{row.errors:,} of {n:,} reported by line number; {len(good_ids & scored)} of {good} good scored"
    return row, by_kind


# -- the campaign -----------------------------------------------------------------------------------------------


def markdown(rows: list[Row]) -> str:
    out = ["| fault | trials | outcome | ids lost | ids duplicated | note |", "|---|---:|---|---:|---:|---|"]
    for r in rows:
        counts = ("–", "–") if r.skipped else (str(r.lost), str(r.duplicated))
        out.append(f"| {r.fault} | {r.trials or '–'} | {r.outcome} | {counts[0]} | {counts[1]} | {r.note} |")
    return "\n".join(out)


def campaign(
    work: Path, *, seed: int = 0, kills: int = 20, hostile: int = 1000, huge: int = HUGE, ray: bool = False
) -> tuple[list[Row], dict[str, list[int]]]:
    """Every fault in turn, in ``work``: the rows of the table, and the hostile records per kind."""
    c = Campaign(work, seed)
    rows = [kill_eval(c, kills), kill_questions(c, kills)]
    rows += [full_disk(c), read_only(c), truncated_input(c), edited_questions(c), changed_model(c)]
    rows.append(ray_worker(c, ray))
    row, by_kind = hostile_input(c, hostile, huge=huge)
    return [*rows, row], by_kind


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kills", type=int, default=20, help="SIGKILLs of eval, and of questions")
    parser.add_argument("--hostile", type=int, default=1000, help="hostile records through eval")
    parser.add_argument("--ray", action="store_true", help=f"also run {RAY_TEST}")
    parser.add_argument("--work", type=Path, help="folder for the runs' files (default: a new temporary one)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="localsumm-faults-"))
    started = time.monotonic()
    rows, by_kind = campaign(work, seed=args.seed, kills=args.kills, hostile=args.hostile, ray=args.ray)
    print(markdown(rows))
    print("\n| hostile kind | records | reported by line |\n|---|---:|---:|")
    for kind, (records, reported) in sorted(by_kind.items()):
        print(f"| {kind} | {records} | {reported} |")
    print(f"\nseed {args.seed}, {time.monotonic() - started:.0f} s, files in {work}", file=sys.stderr)
    if args.json:
        figures = {"seed": args.seed, "rows": [asdict(r) | {"outcome": r.outcome} for r in rows], "hostile": by_kind}
        args.json.write_text(json.dumps(figures, indent=2))
    return 1 if any(r.problems for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
