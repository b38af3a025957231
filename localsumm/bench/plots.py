"""PNG plots for `localsumm bench quality` (needs matplotlib: ``pip install 'localsumm[bench]'``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, never a window
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .items import BIGRAM_OVERLAP, WEAKEST_CLAIM, Item  # noqa: E402
from .metrics import known  # noqa: E402


def _roc(ax: Any, scores: list[float], labels: list[float], name: str) -> None:
    s, y = np.asarray(scores), np.asarray(labels) >= 0.5
    points = [(1.0, 1.0)]
    for t in sorted(set(s)):
        predicted = s >= t
        points.append(((predicted & ~y).sum() / max((~y).sum(), 1), (predicted & y).sum() / max(y.sum(), 1)))
    points.append((0.0, 0.0))
    xs, ys = zip(*sorted(points))
    ax.plot(xs, ys, label=name)


def quality_plot(path: Path, dataset: str, items: list[Item], threshold: float) -> None:
    """Score against label for each label the dataset has; a ROC curve for binary alignment labels."""
    panels = []
    aligned = [i for i in items if i.label_alignment is not None]
    covered = [i for i in items if i.label_coverage is not None]
    if aligned:
        panels.append(
            ("alignment", [i.alignment for i in aligned], "label_alignment", [i.label_alignment for i in aligned])
        )
    if covered:
        panels.append(
            ("coverage", [i.coverage for i in covered], "label_coverage", [i.label_coverage for i in covered])
        )
    binary = bool(aligned) and {i.label_alignment for i in aligned} <= {0.0, 1.0}
    fig, axes = plt.subplots(1, len(panels) + binary, figsize=(4.5 * (len(panels) + binary), 4), squeeze=False)
    rng = np.random.default_rng(0)
    for ax, (name, x, label, y) in zip(axes[0], panels):
        jitter = rng.uniform(-0.01, 0.01, len(x))  # many items share a score; jitter shows how many
        ax.scatter(np.asarray(x) + jitter, y, s=12, alpha=0.6)
        ax.set(xlabel=f"localsumm {name}", ylabel=f"human {label}", title=f"{dataset}: {name}", xlim=(-0.05, 1.05))
    if binary:
        ax = axes[0][-1]
        labels = known([i.label_alignment for i in aligned])
        for predictor in (WEAKEST_CLAIM, BIGRAM_OVERLAP):
            _roc(ax, predictor.values(aligned), labels, predictor.name)
        ax.plot([0, 1], [0, 1], color="grey", linewidth=0.5)
        ax.set(xlabel="false positive rate", ylabel="true positive rate", title=f"{dataset}: ROC")
        ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
