"""Results files as one table per system: each source's mean score, alignment and coverage.

A comparison is paired only when every system's summaries of a source were judged the same way: the
same judge weights, prompts, localsumm version, recorded options and thresholds, and the same questions
asked of that source. Anything else is refused with the first difference found, never averaged over.
Sources are matched by the sha256 of their text; only the sources every system has are compared, and
the others are named. Failed and unscorable items are left out and counted. A file's repeated ids are
``runs.results.read_results``'s: one line per id kept (with a warning), different results refused.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..config.options import RECORDED
from ..errors import InputError
from ..runs.results import DIMENSIONS, ResultLine, read_results
from ..summarization.result import SummarizationResult
from ..text import tokens

WORDS = "words"
"""The summary's length in words (a CJK character counts as one), tabulated beside the dimensions: coverage grows
with it, so a comparison shows it."""


@dataclass(frozen=True)
class Summary:
    """One usable summary: scored, scorable, its result readable."""

    system: str
    source: str
    """sha256 of its source text."""
    where: str
    """"FILE: line N (id X)", for messages."""
    values: dict[str, float]
    """score, alignment_score, coverage_score (``DIMENSIONS``), ``WORDS``, and what a caller's ``extra`` adds."""
    setup: tuple[tuple[str, Any], ...]
    """How it was judged: what must be equal for a paired comparison."""
    questions: tuple[tuple[str, ...], tuple[str, ...]]
    """The questions and key facts asked of its source."""
    result: SummarizationResult
    engine: str | None = None


@dataclass
class Tables:
    """Per system, per shared source, the mean of each dimension over the system's summaries of that source."""

    systems: list[str]
    """In the order first seen (files in the order given)."""
    sources: list[str]
    """The sources every system has a usable summary of (sha256), in the order first seen."""
    values: dict[str, np.ndarray]
    """Per dimension, ``WORDS`` and ``extra`` value: a (systems x sources) array."""
    source_names: dict[str, str] = field(default_factory=dict)
    """sha256 -> the id of the first item of that source, to name it."""
    failed: dict[str, int] = field(default_factory=dict)
    unscorable: dict[str, int] = field(default_factory=dict)
    left_out: dict[str, list[str]] = field(default_factory=dict)
    """Per system: its sources that some other system lacks (named), left out of every figure."""
    notes: list[str] = field(default_factory=list)
    """What the reader should know but does not unpair the comparison (e.g. two engine builds)."""
    results: dict[tuple[str, str], list[SummarizationResult]] = field(default_factory=dict)
    """(system, shared source) -> the system's usable results of that source: the verdicts behind the means."""


def _setup(result: SummarizationResult) -> tuple[tuple[str, Any], ...]:
    p = result.provenance
    judge = p.model_sha256 or p.model
    recorded = tuple((name, getattr(p, name)) for name in RECORDED)
    thresholds = tuple(sorted(p.thresholds.items()))
    return (
        ("judge", judge),
        ("prompt version", p.prompt_version),
        ("localsumm version", p.localsumm_version),
        *recorded,
        ("thresholds", thresholds),
    )


def _name_systems(path: Path, lines: list[ResultLine]) -> list[str]:
    """Each line's system: its ``system`` field, else (for a file without any) the file's name."""
    named = [line.system for line in lines]
    if all(name is None for name in named):
        return [path.stem] * len(lines)
    for line, name in zip(lines, named):
        if name is None:
            raise InputError(
                f"{path}: line {line.number} (id {line.id}) has no system field, and other lines of the file do: "
                "give every line its system, or put each system in its own results file"
            )
    return [str(name) for name in named]


def _read(path: Path) -> list[tuple[str, ResultLine]]:
    """(system, line) for every line of a results file, checked to be ours and to have an id."""
    lines = read_results(path)
    if not lines:
        raise InputError(f"{path} holds no results")
    for line in lines:
        if not isinstance(line.fields.get("localsumm"), dict):
            raise InputError(
                f"{path}: line {line.number} has no localsumm verdict: is it a data file? Score it with "
                f"`localsumm eval {path} --out RESULTS.jsonl` and compare the results"
            )
        if line.id is None:
            raise InputError(f"{path}: line {line.number} has no id")
    return list(zip(_name_systems(path, lines), lines))


def _rename_clashes(files: list[tuple[Path, list[tuple[str, ResultLine]]]]) -> None:
    """A system name in two files is refused, except one-system files (a baseline and a candidate both named
    by their ``system`` field, or a copy): those are named by their paths."""
    holders: dict[str, list[Path]] = defaultdict(list)
    for path, rows in files:
        for name in dict.fromkeys(s for s, _ in rows):
            holders[name].append(path)
    clashes = {name: paths for name, paths in holders.items() if len(paths) > 1}
    if not clashes:
        return
    paths = [str(p) for p, _ in files]
    one_each = all(len({s for s, _ in rows}) == 1 for _, rows in files)
    if not one_each or len(set(paths)) < len(paths):
        name, where = next(iter(clashes.items()))
        raise InputError(
            f"system {name} is in {where[0]} and in {where[1]}: give each system its own name (a system field), "
            "or give one file per system"
        )
    for i, (path, rows) in enumerate(files):
        files[i] = (path, [(str(path), line) for _, line in rows])


Extra = Callable[[ResultLine], dict[str, float]]
"""More values of a line to tabulate beside the dimensions (``bench systems``: labels and baselines)."""


def _summary(
    system: str, path: Path, line: ResultLine, counts: dict[str, dict[str, int]], extra: Extra | None
) -> Summary | None:
    """The usable summary of a line, or None (and counted) for a failed or unscorable one."""
    where = f"{path}: line {line.number} (id {line.id})"
    try:
        result = line.result
    except InputError as e:
        raise InputError(f"{path}: {e}; it may come from another localsumm version: score it again") from None
    if result is None:
        counts["failed"][system] += 1
        return None
    if not result.scorable:
        counts["unscorable"][system] += 1
        return None
    pre = result.preprocess_step_result
    source = line.source_sha256
    if source is None:
        raise InputError(f"{where} has no source text to pair it by")
    values = {d: float(getattr(line, d)) for d in DIMENSIONS} | {WORDS: float(len(tokens(line.texts()[1])))}
    values |= extra(line) if extra else {}
    asked = (tuple(pre.questions), tuple(pre.key_facts))
    return Summary(system, source, where, values, _setup(result), asked, result, result.provenance.engine)


def _check_paired(summaries: list[Summary]) -> None:
    """Refuse summaries judged differently, or sources asked different questions."""
    first = summaries[0]
    for s in summaries[1:]:
        for (name, mine), (_, theirs) in zip(first.setup, s.setup):
            if mine != theirs:
                raise InputError(
                    f"{first.where} ({first.system}) was judged with {name} {mine}, {s.where} ({s.system}) with "
                    f"{theirs}: a comparison across those is not paired; score every system with one judge, "
                    "options and localsumm version"
                )
    asked: dict[str, Summary] = {}
    for s in summaries:
        earlier = asked.setdefault(s.source, s)
        if earlier.questions != s.questions:
            raise InputError(
                f"{earlier.where} ({earlier.system}) and {s.where} ({s.system}) have the same source and were asked "
                "different questions: their coverage is not paired. Write the questions once (`localsumm questions "
                "DATA --out questions.jsonl`) and score every system with --questions questions.jsonl"
            )


def read_tables(paths: list[Path], extra: Extra | None = None) -> Tables:
    """The per-system, per-source tables of ``paths`` (one file with a ``system`` field, or one file per system)."""
    files = [(path, _read(path)) for path in paths]
    _rename_clashes(files)
    rows = [(path, system, line) for path, named in files for system, line in named]
    counts: dict[str, dict[str, int]] = {"failed": defaultdict(int), "unscorable": defaultdict(int)}
    systems = list(dict.fromkeys(system for _, system, _ in rows))
    if len(systems) < 2:
        raise InputError(
            f"{', '.join(map(str, paths))} hold{'s' if len(paths) == 1 else ''} one system ({systems[0]}): compare "
            "needs two or more; give the records a system field, or pass one results file per system"
        )
    summaries = [s for path, system, line in rows if (s := _summary(system, path, line, counts, extra)) is not None]
    names: dict[str, str] = {}
    for _, _, line in rows:
        names.setdefault(line.source_sha256 or "", str(line.id))
    if not summaries:
        raise InputError(f"{', '.join(map(str, paths))} hold no scored, scorable item to compare")
    _check_paired(summaries)
    tables = _tabulate(systems, summaries, names)
    tables.failed = {s: counts["failed"][s] for s in systems}
    tables.unscorable = {s: counts["unscorable"][s] for s in systems}
    engines = {s.system: s.engine for s in summaries if s.engine}
    if len(set(engines.values())) > 1:
        tables.notes.append(
            "judged on different engine builds ("
            + "; ".join(f"{system}: {engine}" for system, engine in engines.items())
            + "): a verdict near its threshold can differ between builds; --scoring graded makes that smaller"
        )
    return tables


def _tabulate(systems: list[str], summaries: list[Summary], names: dict[str, str]) -> Tables:
    by_summary: dict[tuple[str, str], list[Summary]] = defaultdict(list)
    for s in summaries:
        by_summary[(s.system, s.source)].append(s)
    by_cell = {cell: [s.values for s in found] for cell, found in by_summary.items()}
    has = {system: {source for (sys_, source) in by_cell if sys_ == system} for system in systems}
    order = list(dict.fromkeys(s.source for s in summaries))
    shared = [source for source in order if all(source in has[system] for system in systems)]
    if not shared:
        raise InputError(
            "no source has a usable summary of every system (sources are matched by the sha256 of their text): "
            f"{'; '.join(f'{s} has {len(has[s])}' for s in systems)}"
        )
    values = {
        name: np.array(
            [[float(np.mean([v[name] for v in by_cell[(system, source)]])) for source in shared] for system in systems]
        )
        for name in summaries[0].values
    }
    left_out = {system: [names[src] for src in order if src in has[system] and src not in shared] for system in systems}
    results = {
        (system, source): [s.result for s in by_summary[(system, source)]] for system in systems for source in shared
    }
    return Tables(
        systems, shared, values, source_names={s: names[s] for s in shared}, left_out=left_out, results=results
    )
