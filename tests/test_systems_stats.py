"""The statistics of `localsumm compare`, against examples worked out by hand or by exact enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from localsumm.compare import stats


def exact_sign_flip_p(d: list[float]) -> float:
    """The exact two-sided p-value: every one of the 2^n sign patterns."""
    observed = abs(np.mean(d))
    patterns = list(itertools.product([-1.0, 1.0], repeat=len(d)))
    return sum(abs(np.mean(np.array(s) * d)) >= observed - 1e-12 for s in patterns) / len(patterns)


def test_bootstrap_interval_of_one_success_in_five_sources():
    # The mean of a resample is k/5, k ~ Binomial(5, 0.2): P(k = 0) = 0.328 > 0.025, so the low end is 0;
    # P(k <= 2) = 0.942 < 0.975 <= P(k <= 3) = 0.993, so the high end is 3/5.
    assert stats.bootstrap_interval([0, 0, 0, 0, 1], resamples=1000, seed=3) == (0.0, pytest.approx(0.6))


def test_bootstrap_interval_is_seeded_constant_for_constant_values_and_absent_below_five_sources():
    values = [0.2, 0.5, 0.4, 0.9, 0.1, 0.3]
    assert stats.bootstrap_interval(values, seed=1) == stats.bootstrap_interval(values, seed=1)
    assert stats.bootstrap_interval(values, seed=1) != stats.bootstrap_interval(values, seed=2)
    low, high = stats.bootstrap_interval(values, seed=1)  # type: ignore[misc]
    assert low < np.mean(values) < high
    assert stats.bootstrap_interval([0.4] * 7) == (pytest.approx(0.4), pytest.approx(0.4))
    assert stats.bootstrap_interval([0.1, 0.2, 0.3, 0.4]) is None


def test_sign_flip_p_by_hand_and_against_exact_enumeration():
    # |sum| >= 1.45 of (+-0.1, +-0.2, +-0.3, +-0.4, +-0.5, +-0.05): the flipped values must sum to <= 0.05 or
    # >= 1.5, i.e. none, only 0.05, or their complements: 4 of 64 patterns.
    d = [0.1, 0.2, 0.3, 0.4, 0.5, -0.05]
    assert exact_sign_flip_p(d) == pytest.approx(4 / 64)
    assert stats.sign_flip_p(d, permutations=10000, seed=0) == pytest.approx(4 / 64, abs=0.01)
    rng = np.random.default_rng(7)
    for _ in range(3):
        random = list(rng.normal(0.05, 0.1, size=8))
        assert stats.sign_flip_p(random, permutations=20000, seed=1) == pytest.approx(
            exact_sign_flip_p(random), abs=0.015
        )


def test_one_sided_sign_flip_p():
    # All 6 differences below 0: only the observed pattern is as low, 1/64; above 0, all but the all-negative one.
    assert stats.sign_flip_p([-0.1] * 6, below=True, seed=0) == pytest.approx(1 / 64, abs=0.004)
    assert stats.sign_flip_p([0.1] * 6, below=True, seed=0) == pytest.approx(1.0, abs=0.004)
    assert stats.sign_flip_p([0.0] * 6, below=True) == 1.0


def test_five_equal_differences_cannot_reach_significance_and_no_difference_gives_p_one():
    # Only the two all-same-sign patterns are as extreme: 2/32 = 0.0625 > 0.05.
    assert stats.sign_flip_p([0.1] * 5, seed=0) == pytest.approx(0.0625, abs=0.008)
    assert stats.sign_flip_p([0.1] * 8, seed=0) == pytest.approx(2 / 256, abs=0.003)
    assert stats.sign_flip_p([0.0] * 6) == 1.0


def test_paired_difference_interval_and_win_tie_loss():
    a = [0.5, 0.6, 0.7, 0.8, 0.9, 0.4]
    b = [0.6, 0.7, 0.7, 0.7, 1.0, 0.5]
    p = stats.paired(a, b, seed=0)
    assert p.sources == 6 and p.mean_difference == pytest.approx(0.05)
    assert (p.wins, p.ties, p.losses) == (4, 1, 1)
    assert p.interval is not None and p.interval[0] < 0.05 < p.interval[1]
    # The bootstrap of the differences themselves: pairing is differencing first.
    assert p.interval == stats.bootstrap_interval(np.array(b) - np.array(a), seed=0)
    assert stats.paired(b, a, seed=0).interval == pytest.approx((-p.interval[1], -p.interval[0]))
    with pytest.raises(ValueError):
        stats.paired([0.1, 0.2], [0.3])


def test_holm_by_hand():
    # Sorted 0.005, 0.01, 0.03, 0.04: x4 = 0.02, x3 = 0.03, x2 = 0.06, x1 = 0.04 -> raised to 0.06.
    assert stats.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.holm([0.2, 0.6]) == pytest.approx([0.4, 0.6])
    assert stats.holm([0.03]) == [0.03]
    assert stats.holm([0.5, 0.9, 0.4]) == [1.0, 1.0, 1.0]
