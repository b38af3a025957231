"""``localsumm compare``: which summarizer is better, on the same sources and questions.

A system's figure is the mean over the shared sources of its per-source means (a source's summaries
averaged first), for the score, alignment and coverage alike. The score is the mean of per-summary
scores, not min(mean alignment, mean coverage): that is the mean of what a user is shown per summary,
it decomposes by source (so a paired difference, its interval and win/tie/loss exist), and a system
whose summaries are each either unfaithful or incomplete cannot rank high by having one kind of
failure on some sources and the other on the rest.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, InputError
from ..runs.results import DIMENSIONS
from . import stats
from .tables import WORDS, Tables, read_tables

SIGNIFICANCE = 0.05
LONGER = 1.15
"""Systems whose mean summary lengths differ by this ratio or more get a note. On SummEval's 16 systems, within a
source, 10 more words add 0.049 coverage and 0.004 expert relevance (RESULTS.md, Coverage and copying): 15% is
about 10 words at their median of 64."""


@dataclass(frozen=True)
class SystemRow:
    system: str
    means: dict[str, float]
    """Per dimension: the mean over the shared sources of the system's per-source means."""
    intervals: dict[str, tuple[float, float] | None]
    """Per dimension: 95% cluster-bootstrap interval (sources resampled); None below ``stats.MIN_SOURCES``."""
    failed: int
    unscorable: int
    left_out: list[str]
    """Its sources that another system lacks (ids)."""
    words: float
    """Its summaries' mean length in words (a CJK character counts as one), over the shared sources as ``means``."""


@dataclass(frozen=True)
class PairRow:
    """``first`` against ``second`` on one dimension: first - second, paired by source."""

    first: str
    second: str
    dimension: str
    paired: stats.Paired
    p_holm: float
    """The permutation p-value after Holm's correction over every pair of this dimension."""

    @property
    def significant(self) -> bool:
        return self.p_holm < SIGNIFICANCE


@dataclass(frozen=True)
class Settings:
    seed: int = 0
    resamples: int = stats.RESAMPLES
    permutations: int = stats.PERMUTATIONS

    def __post_init__(self) -> None:
        if self.resamples < 100 or self.permutations < 100:
            raise ConfigError(
                f"--resamples and --permutations need at least 100 (got {self.resamples} and {self.permutations}): "
                "fewer cannot place a 2.5% percentile or a p-value near 0.05"
            )
        if self.seed < 0:
            raise ConfigError(f"--seed must be 0 or more, got {self.seed}")


@dataclass(frozen=True)
class Comparison:
    sources: int
    """Sources every system has: what every figure rests on."""
    systems: list[SystemRow]
    """Ranked by mean score, highest first."""
    pairs: list[PairRow]
    settings: Settings
    notes: list[str] = field(default_factory=list)

    @property
    def no_interval(self) -> str | None:
        """Why no interval is given, if none is."""
        if self.sources >= stats.MIN_SOURCES:
            return None
        return (
            f"no intervals: {self.sources} shared source{'s' if self.sources != 1 else ''}, and a bootstrap over "
            f"fewer than {stats.MIN_SOURCES} sources mostly resamples the same ones; score more sources"
        )

    def pair(self, first: str, second: str, dimension: str = "score") -> PairRow:
        """The pair ``first`` - ``second`` on ``dimension``, oriented that way."""
        for row in self.pairs:
            if row.dimension != dimension or {row.first, row.second} != {first, second}:
                continue
            if row.first == first:
                return row
            p = row.paired
            interval = None if p.interval is None else (-p.interval[1], -p.interval[0])
            flipped = stats.Paired(p.sources, -p.mean_difference, interval, p.p_value, p.losses, p.ties, p.wins)
            return PairRow(first, second, dimension, flipped, row.p_holm)
        raise KeyError((first, second, dimension))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["no_interval"] = self.no_interval
        for row, pair in zip(data["pairs"], self.pairs):
            row["significant"] = pair.significant
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)


def compare_tables(tables: Tables, settings: Settings | None = None) -> Comparison:
    """Every system's means and intervals, and every pair's paired difference, on every dimension."""
    settings = settings or Settings()
    rows = []
    for i, system in enumerate(tables.systems):
        means, intervals = {}, {}
        for k, dimension in enumerate(DIMENSIONS):
            values = tables.values[dimension][i]
            means[dimension] = float(values.mean())
            # Seeded by (seed, system, dimension): a figure does not move when another system is added.
            seed = _seed(settings.seed, 0, i, k)
            intervals[dimension] = stats.bootstrap_interval(values, resamples=settings.resamples, seed=seed)
        failed, unscorable, left_out = tables.failed[system], tables.unscorable[system], tables.left_out[system]
        words = float(tables.values[WORDS][i].mean())
        rows.append(SystemRow(system, means, intervals, failed, unscorable, left_out, words))
    order = sorted(range(len(rows)), key=lambda i: -rows[i].means["score"])
    pairs = []
    for k, dimension in enumerate(DIMENSIONS):
        found = []
        for i, j in combinations(order, 2):
            a, b = tables.values[dimension][i], tables.values[dimension][j]
            seed = _seed(settings.seed, 1, i, j, k)
            found.append(
                stats.paired(b, a, resamples=settings.resamples, permutations=settings.permutations, seed=seed)
            )
        adjusted = stats.holm([p.p_value for p in found])
        for (i, j), p, q in zip(combinations(order, 2), found, adjusted):
            pairs.append(PairRow(rows[i].system, rows[j].system, dimension, p, q))
    notes = list(tables.notes) + _too_few_for_significance(len(tables.sources), len(rows)) + _lengths_differ(rows)
    return Comparison(len(tables.sources), [rows[i] for i in order], pairs, settings, notes)


def _too_few_for_significance(sources: int, systems: int) -> list[str]:
    """Say so when no pair can be significant, whatever the data: the smallest p-value a sign-flip test over n
    sources can give is 2 / 2^n (every source favouring one system), and Holm multiplies it by the pairs."""
    tests = systems * (systems - 1) // 2
    smallest = min(1.0, 2 / 2**sources * tests)
    if smallest < SIGNIFICANCE:
        return []
    return [
        f"with {sources} shared sources and {tests} pair{'s' if tests > 1 else ''}, no difference can reach p < "
        f"{SIGNIFICANCE:g} (the smallest possible is {smallest:.2g}); read the intervals, or score more sources"
    ]


def _lengths_differ(rows: list[SystemRow]) -> list[str]:
    """Say so when the systems' summaries differ in length: a longer summary keeps more of what the questions ask,
    so coverage favours it whatever the experts would say."""
    longest, shortest = max(rows, key=lambda r: r.words), min(rows, key=lambda r: r.words)
    if shortest.words <= 0 or longest.words < LONGER * shortest.words:
        return []
    return [
        f"summary lengths differ: {longest.system} {longest.words:.0f} words on average, {shortest.system} "
        f"{shortest.words:.0f} ({longest.words / shortest.words:.2f}x); coverage grows with length (about 0.05 per "
        "10 words on SummEval's systems, where experts' relevance barely moves): compare summarizers of like length, "
        "or read coverage beside their words"
    ]


def _seed(*parts: int) -> int:
    """One integer seed from several (numpy's SeedSequence mixes them), so each statistic has its own stream."""
    return int(np.random.SeedSequence(list(parts)).generate_state(1)[0])


def compare_files(paths: list[Path], settings: Settings | None = None) -> Comparison:
    return compare_tables(read_tables(paths), settings)


@dataclass(frozen=True)
class Gate:
    """``--fail-if-worse``: the candidate against the baseline on the score."""

    baseline: str
    candidate: str
    margin: float
    pair: PairRow
    """candidate - baseline."""
    p_worse: float
    """One-sided paired permutation p-value of "the candidate is not worse by more than the margin"."""

    @property
    def worse(self) -> bool:
        """Worse with 95% confidence: the whole 95% interval of candidate - baseline lies below -margin, and the
        permutation test agrees at the level of the interval's upper end (one-sided 2.5%). The percentile
        bootstrap alone is optimistic with few sources: with no true difference (2,000 simulated comparisons of
        normal differences) its interval lay below 0 in 6.4% of 6-source comparisons and 4.6% of 12-source ones,
        against the 2.5% its level promises; the permutation test held 1.4% and 2.7%."""
        interval = self.pair.paired.interval
        return interval is not None and interval[1] < -self.margin and self.p_worse < (1 - stats.LEVEL) / 2

    def message(self) -> str:
        p = self.pair.paired
        low, high = p.interval or (float("nan"), float("nan"))
        verdict = "worse" if self.worse else "not worse"
        by = f" by more than {self.margin:g}" if self.margin else ""
        return (
            f"{self.candidate} is {verdict} than {self.baseline}{by} with 95% confidence: score difference "
            f"{p.mean_difference:+.3f} [{low:+.3f}, {high:+.3f}] over {p.sources} sources "
            f"(won/tied/lost {p.wins}/{p.ties}/{p.losses}; one-sided permutation p {self.p_worse:.3g})"
        )


def gate(
    tables: Tables, baseline: str, candidate: str, margin: float = 0.0, settings: Settings | None = None
) -> tuple[Comparison, Gate]:
    """The comparison of ``tables``, and the gate of ``candidate`` against ``baseline``."""
    if margin < 0:
        raise ConfigError(f"--margin must be 0 or more, got {margin:g}")
    settings = settings or Settings()
    comparison = compare_tables(tables, settings)
    if comparison.no_interval:
        raise InputError(f"--fail-if-worse cannot decide: {comparison.no_interval}")
    scores = tables.values["score"]
    shifted = scores[tables.systems.index(candidate)] - scores[tables.systems.index(baseline)] + margin
    p_worse = stats.sign_flip_p(shifted, permutations=settings.permutations, seed=_seed(settings.seed, 2), below=True)
    return comparison, Gate(baseline, candidate, margin, comparison.pair(candidate, baseline), p_worse)


def gate_files(
    baseline: Path, candidate: Path, margin: float = 0.0, settings: Settings | None = None
) -> tuple[Comparison, Gate]:
    """The comparison of two results files of one system each, and the gate of the second against the first."""
    return gate_two_files(read_tables([baseline, candidate]), baseline, candidate, margin, settings)


def gate_two_files(
    tables: Tables, baseline: Path, candidate: Path, margin: float = 0.0, settings: Settings | None = None
) -> tuple[Comparison, Gate]:
    """:func:`gate_files` on the tables already read from ``[baseline, candidate]``."""
    if len(tables.systems) != 2:
        raise InputError(
            f"--fail-if-worse needs one system per file, and {baseline} and {candidate} hold "
            f"{len(tables.systems)}: {', '.join(tables.systems)}"
        )
    return gate(tables, tables.systems[0], tables.systems[1], margin, settings)


def compare_paths(
    paths: list[Path], settings: Settings | None = None, *, fail_if_worse: bool = False, margin: float = 0.0
) -> tuple[Tables, Comparison, Gate | None]:
    """``localsumm compare``: the tables of ``paths`` (kept for the HTML panel's verdicts), their comparison, and
    with ``fail_if_worse`` the gate of the second file against the first."""
    if fail_if_worse and len(paths) != 2:
        raise ConfigError(f"--fail-if-worse compares two files, a baseline then a candidate; got {len(paths)}")
    tables = read_tables(paths)
    if not fail_if_worse:
        return tables, compare_tables(tables, settings), None
    comparison, verdict = gate_two_files(tables, paths[0], paths[1], margin, settings)
    return tables, comparison, verdict
