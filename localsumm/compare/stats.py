"""The statistics of a systems comparison, as pure functions of per-source values.

Every function takes one value per *source* (a system's summaries of that source averaged first): the
sources are the independent units, and the questions and claims nested in a source are not, so only
sources are ever resampled. Written with numpy's seeded ``Generator``, so a comparison is reproducible:
the same seed gives the same intervals and p-values on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MIN_SOURCES = 5
"""Below this many sources a bootstrap interval is not given: a resample of 4 sources repeats one in
almost every draw (1 - 4!/4^4 = 91%), so its percentiles describe the resampling, not the systems."""
RESAMPLES = 1000
PERMUTATIONS = 10000
LEVEL = 0.95
TIE = 1e-9
"""Per-source means closer than this are a tie (scores are rounded to 0.01, their means only add float noise)."""

Values = Sequence[float] | np.ndarray


def _array(values: Values) -> np.ndarray:
    a = np.asarray(values, dtype=float)
    if a.ndim != 1 or not len(a):
        raise ValueError("needs one value per source, at least one")
    return a


def bootstrap_interval(values: Values, *, resamples: int = RESAMPLES, seed: int = 0) -> tuple[float, float] | None:
    """The 95% percentile interval of the mean of ``values`` (one per source) over ``resamples`` resamples of
    the sources; None below ``MIN_SOURCES`` sources."""
    a = _array(values)
    if len(a) < MIN_SOURCES:
        return None
    rng = np.random.default_rng(seed)
    means = a[rng.integers(0, len(a), size=(resamples, len(a)))].mean(axis=1)
    low, high = np.quantile(means, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return float(low), float(high)


def sign_flip_p(differences: Values, *, permutations: int = PERMUTATIONS, seed: int = 0, below: bool = False) -> float:
    """p-value of a paired permutation test: under "A and B are exchangeable", swapping A and B on a source
    flips the sign of its difference, so each source's sign is flipped at random and the mean difference
    compared with the observed one. Two-sided, or with ``below`` one-sided against "the mean difference is
    not below 0". (1 + as extreme) / (1 + permutations): never 0, and valid at any number of sources
    (Phipson and Smyth 2010)."""
    d = _array(differences)
    rng = np.random.default_rng(seed)
    signs = rng.choice(np.array([-1.0, 1.0]), size=(permutations, len(d)))
    flipped = (signs * d).mean(axis=1)
    # The same tolerance as ties: a permuted mean equal to the observed one in exact arithmetic counts.
    if below:
        extreme = int((flipped <= d.mean() + TIE).sum())
    else:
        extreme = int((np.abs(flipped) >= abs(d.mean()) - TIE).sum())
    return (1 + extreme) / (1 + permutations)


@dataclass(frozen=True)
class Paired:
    """B against A over the sources both have: B - A per source."""

    sources: int
    mean_difference: float
    interval: tuple[float, float] | None
    """95% paired bootstrap interval of the mean difference (None below ``MIN_SOURCES`` sources)."""
    p_value: float
    """Two-sided paired permutation p-value (A/B swapped per source)."""
    wins: int
    """Sources where B is higher."""
    ties: int
    losses: int


def paired(
    a: Values, b: Values, *, resamples: int = RESAMPLES, permutations: int = PERMUTATIONS, seed: int = 0
) -> Paired:
    """B - A paired by source: ``a[i]`` and ``b[i]`` are the two systems' values on source ``i``."""
    x, y = _array(a), _array(b)
    if len(x) != len(y):
        raise ValueError(f"paired values need one per source on both sides, got {len(x)} and {len(y)}")
    d = y - x
    return Paired(
        sources=len(d),
        mean_difference=float(d.mean()),
        interval=bootstrap_interval(d, resamples=resamples, seed=seed),
        p_value=sign_flip_p(d, permutations=permutations, seed=seed),
        wins=int((d > TIE).sum()),
        ties=int((np.abs(d) <= TIE).sum()),
        losses=int((d < -TIE).sum()),
    )


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: with m tests, the k-th smallest p is multiplied by m - k + 1, and an adjusted
    p is never below the one before it (so the family's error rate stays at the level, whatever the tests'
    dependence). One test is left as it is."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
