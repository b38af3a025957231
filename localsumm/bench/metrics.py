"""Agreement measures between scores and human labels, as pure functions.

Correlations (Pearson, Spearman, Kendall tau-b), ROC-AUC and balanced accuracy
for binary labels, per-document averaging, and percentile bootstrap intervals.
Written out with numpy so that the benchmark needs no statistics package; tests
check them against values worked out by hand.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

Values = Sequence[float] | np.ndarray
Measure = Callable[[Values, Values], float]


def known(labels: Sequence[float | None]) -> list[float]:
    """The labels of items already chosen for having them (a None here is a caller's bug)."""
    if any(label is None for label in labels):
        raise ValueError("an item without this label was not filtered out")
    return [label for label in labels if label is not None]


def pearson(x: Values, y: Values) -> float:
    a, b = np.asarray(x, float), np.asarray(y, float)
    if len(a) < 2 or a.std() == 0 or b.std() == 0:
        return math.nan  # undefined for a constant series
    return float(np.corrcoef(a, b)[0, 1])


def ranks(x: Values) -> np.ndarray:
    """1-based ranks, ties sharing their average rank."""
    a = np.asarray(x, float)
    order = np.argsort(a, kind="mergesort")
    r = np.empty(len(a))
    i = 0
    while i < len(a):
        j = i
        while j + 1 < len(a) and a[order[j + 1]] == a[order[i]]:
            j += 1
        r[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(x: Values, y: Values) -> float:
    return pearson(ranks(x), ranks(y))


def kendall(x: Values, y: Values) -> float:
    """Kendall's tau-b (ties in either series accounted for)."""
    a, b = np.asarray(x, float), np.asarray(y, float)
    da = np.sign(a[:, None] - a[None, :])
    db = np.sign(b[:, None] - b[None, :])
    upper = np.triu_indices(len(a), 1)
    da, db = da[upper], db[upper]
    concordance = float((da * db).sum())
    denominator = math.sqrt(float((da != 0).sum()) * float((db != 0).sum()))
    return concordance / denominator if denominator else math.nan


def pairwise_accuracy(predicted: Values, reference: Values) -> float:
    """The share of the pairs the reference orders (not tied) that ``predicted`` orders the same way; a tie in
    ``predicted`` is not the same order. System-level agreement as Deutsch et al. (2022) read it."""
    a, b = np.asarray(predicted, float), np.asarray(reference, float)
    upper = np.triu_indices(len(a), 1)
    da, db = np.sign(a[:, None] - a[None, :])[upper], np.sign(b[:, None] - b[None, :])[upper]
    ordered = db != 0
    return float((da[ordered] == db[ordered]).mean()) if ordered.any() else math.nan


def roc_auc(scores: Values, labels: Values) -> float:
    """Probability that a random positive scores above a random negative (ties count half)."""
    s, y = np.asarray(scores, float), np.asarray(labels, float) >= 0.5
    pos, neg = s[y], s[~y]
    if not len(pos) or not len(neg):
        return math.nan
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(wins / (len(pos) * len(neg)))


def balanced_accuracy(predicted: Sequence[bool] | np.ndarray, labels: Values) -> float:
    p, y = np.asarray(predicted, bool), np.asarray(labels, float) >= 0.5
    if y.all() or not y.any():
        return math.nan
    return float((p[y].mean() + (~p[~y]).mean()) / 2)


def document_values(measure: Measure, x: Values, y: Values, docs: Sequence[str]) -> list[tuple[str, float]]:
    """``measure`` within each document that can say anything, as (document, value).

    A document whose labels are all equal is left out: no predictor can agree or disagree with
    it. A document where the predictor gave every item the same value, and the measure is then
    undefined (a correlation), counts as 0: the predictor ranked nothing, and leaving such
    documents out would report the scorer only where it happened to vary.
    """
    groups: dict[str, list[int]] = defaultdict(list)
    for i, doc in enumerate(docs):
        groups[doc].append(i)
    values = []
    for doc, idx in groups.items():
        xs, ys = [x[i] for i in idx], [y[i] for i in idx]
        if len(idx) < 2 or len(set(ys)) < 2:
            continue
        value = measure(xs, ys)
        if math.isnan(value) and len(set(xs)) < 2:
            value = 0.0
        if not math.isnan(value):
            values.append((doc, value))
    return values


def per_document(measure: Measure, x: Values, y: Values, docs: Sequence[str]) -> float:
    """The mean of ``measure`` within each document (see ``document_values`` for which count, and how)."""
    values = [v for _, v in document_values(measure, x, y, docs)]
    return float(np.mean(values)) if values else math.nan


def documents_counted(x: Values, y: Values, docs: Sequence[str]) -> tuple[int, int]:
    """(documents a per-document figure rests on, of which the predictor was constant in how many)."""
    counted = document_values(lambda a, b: 1.0 if len(set(a)) > 1 else math.nan, x, y, docs)
    return len(counted), sum(1 for _, v in counted if v == 0.0)


def bootstrap_ci(
    statistic: Callable[[np.ndarray], float],
    n: int,
    *,
    groups: Sequence[str] | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> tuple[float, float]:
    """95% percentile interval of ``statistic(indices)`` over resampled items (or whole documents, if ``groups``)."""
    rng = np.random.default_rng(seed)
    if groups is None:
        units = [np.array([i]) for i in range(n)]
    else:
        by_group: dict[str, list[int]] = defaultdict(list)
        for i, g in enumerate(groups):
            by_group[g].append(i)
        units = [np.array(v) for v in by_group.values()]
    values = []
    for _ in range(resamples):
        picked = rng.integers(0, len(units), len(units))
        value = statistic(np.concatenate([units[k] for k in picked]))
        if not math.isnan(value):
            values.append(value)
    if not values:
        return math.nan, math.nan
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Agreement of two raters' yes/no verdicts beyond what their base rates give by chance."""
    x, y = np.asarray(a, bool), np.asarray(b, bool)
    if not len(x):
        return math.nan
    observed = float((x == y).mean())
    chance = float(x.mean() * y.mean() + (1 - x.mean()) * (1 - y.mean()))
    return (observed - chance) / (1 - chance) if chance < 1 else math.nan
