"""Agreement measures, checked against values worked out by hand."""

import math

import numpy as np
import pytest

from localsumm.bench import metrics


def test_pearson_and_its_undefined_case():
    assert metrics.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1)
    assert metrics.pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1)
    assert math.isnan(metrics.pearson([1, 1, 1], [1, 2, 3]))


def test_ranks_share_ties():
    assert metrics.ranks([10, 20, 20, 30]).tolist() == [1, 2.5, 2.5, 4]


def test_spearman_and_kendall_on_one_swapped_pair():
    x, y = [1, 2, 3, 4], [10, 20, 40, 30]
    assert metrics.spearman(x, y) == pytest.approx(1 - 6 * 2 / (4 * 15))  # 0.8
    assert metrics.kendall(x, y) == pytest.approx((5 - 1) / 6)


def test_kendall_tau_b_with_ties():
    # Pairs: (0,1) tied in x; (0,2) and (1,2) concordant. tau-b = 2 / sqrt(2 * 3)
    assert metrics.kendall([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / math.sqrt(6))


def test_roc_auc_counts_ties_half():
    assert metrics.roc_auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == pytest.approx(0.75)
    assert metrics.roc_auc([0.5, 0.5], [0, 1]) == pytest.approx(0.5)
    assert math.isnan(metrics.roc_auc([0.1, 0.2], [1, 1]))


def test_balanced_accuracy():
    # Positives: 1 of 2 found; negatives: 0 of 2 rejected.
    assert metrics.balanced_accuracy([True, False, True, True], [1, 1, 0, 0]) == pytest.approx(0.25)
    assert metrics.balanced_accuracy([True, False], [1, 0]) == pytest.approx(1.0)


def test_per_document_counts_a_constant_predictor_as_zero_and_drops_constant_labels():
    x = [1, 2, 3, 5, 5, 1, 2]
    y = [1, 2, 3, 1, 2, 4, 4]
    docs = ["a", "a", "a", "b", "b", "c", "c"]  # b: constant scores; c: constant labels
    assert metrics.per_document(metrics.spearman, x, y, docs) == pytest.approx(0.5)  # (1 + 0) / 2, c left out
    assert metrics.documents_counted(x, y, docs) == (2, 1)
    # A measure defined for a constant predictor keeps its own value: ROC-AUC of ties is chance.
    assert metrics.per_document(metrics.roc_auc, [0.5, 0.5], [0, 1], ["d", "d"]) == pytest.approx(0.5)


def test_bootstrap_interval_is_deterministic_and_brackets_the_estimate():
    rng = np.random.default_rng(1)
    x = rng.normal(size=80)
    y = x + rng.normal(scale=0.5, size=80)
    estimate = metrics.spearman(x, y)

    def stat(idx):
        return metrics.spearman(x[idx], y[idx])

    low, high = metrics.bootstrap_ci(stat, 80, resamples=300)
    assert low < estimate < high and high - low < 0.3
    assert (low, high) == metrics.bootstrap_ci(stat, 80, resamples=300)
    docs = [str(i // 8) for i in range(80)]
    g_low, g_high = metrics.bootstrap_ci(stat, 80, groups=docs, resamples=300)
    assert g_low < estimate < g_high


def test_cohen_kappa():
    # 10 items: agree on 4 yes and 4 no, disagree on 2. p_o = 0.8; base rates 0.5 each -> p_e = 0.5.
    a = [True] * 5 + [False] * 5
    b = [True] * 4 + [False] + [True] + [False] * 4
    assert metrics.cohen_kappa(a, b) == pytest.approx((0.8 - 0.5) / 0.5)
    assert metrics.cohen_kappa(a, a) == pytest.approx(1.0)
    assert math.isnan(metrics.cohen_kappa([True, True], [True, True]))  # no variation: undefined
