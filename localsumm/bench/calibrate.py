"""`localsumm calibrate`: verdict thresholds fitted on labelled data, reported on documents held out.

The documents of the data are split in two by a hash of their id: thresholds
are fitted on one half and every reported figure comes from the other, so no
figure is measured on the data its threshold was fitted on. Verdict
probabilities are stored in the results, so trying a threshold is arithmetic
(``scoring.compute_scores``), not a model call.

- alignment: the threshold maximising balanced accuracy of "every claim
  supported" against binary alignment labels (SummEdits);
- coverage: the threshold maximising the Pearson correlation of the coverage
  score with the coverage label (there are no per-question labels to
  classify against).

Fitted thresholds are stored per model file (sha256) by ``config.thresholds``,
and take precedence over the registry's.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..protocol import Thresholds
from ..runs.results import ResultLine
from ..summarization.rules import compute_scores
from . import metrics


@dataclass(frozen=True)
class LabelledItem:
    doc: str
    claim_probabilities: list[float]
    question_probabilities: list[float]
    label_alignment: float | None
    label_coverage: float | None


def labelled_items(lines: list[ResultLine]) -> list[LabelledItem]:
    items = []
    for line in lines:
        result = line.result
        if result is None:
            continue
        items.append(
            LabelledItem(
                doc=line.doc,
                claim_probabilities=[v.support for v in result.preprocess_step_result.alignment],
                # A verdict without a probability (a judge without log-probabilities) has no threshold to fit.
                question_probabilities=[
                    v.probability for v in result.analyze_step_result.coverage if v.probability is not None
                ],
                label_alignment=line.label_alignment,
                label_coverage=line.label_coverage,
            )
        )
    return items


def split_documents(docs: Sequence[str]) -> tuple[set[str], set[str]]:
    """(fit, held out): half of the distinct documents each, by a hash of their id (stable across runs)."""
    ordered = sorted(set(docs), key=lambda d: hashlib.sha256(d.encode("utf-8")).hexdigest())
    half = len(ordered) // 2
    return set(ordered[:half]), set(ordered[half:])


def _all_supported(item: LabelledItem, threshold: float) -> bool:
    return bool(item.claim_probabilities) and all(p >= threshold for p in item.claim_probabilities)


def _coverage(item: LabelledItem, threshold: float) -> float:
    return compute_scores(
        [True], ["?"] * len(item.question_probabilities), [p >= threshold for p in item.question_probabilities]
    ).coverage


def alignment_balanced_accuracy(items: list[LabelledItem], threshold: float) -> float:
    return metrics.balanced_accuracy(
        [_all_supported(i, threshold) for i in items], metrics.known([i.label_alignment for i in items])
    )


def coverage_pearson(items: list[LabelledItem], threshold: float) -> float:
    return metrics.pearson([_coverage(i, threshold) for i in items], metrics.known([i.label_coverage for i in items]))


def _best(candidates: set[float], objective: Callable[[float], float], default: float) -> float:
    """The candidate with the best objective; ties go to the one nearest the default."""
    scored = [(objective(t), t) for t in sorted(candidates)]
    scored = [(v, t) for v, t in scored if not math.isnan(v)]
    if not scored:
        return default
    top = max(v for v, _ in scored)
    return min((t for v, t in scored if v == top), key=lambda t: abs(t - default))


MIN_SIDE = 0.05


def _candidates(probabilities: list[float]) -> set[float]:
    """Every distinct split of the observed probabilities, each placed midway between its neighbours
    (the widest margin on both sides), that leaves at least MIN_SIDE of the verdicts on each side.

    A threshold that makes (nearly) every verdict the same fits a few items by chance: fitted on 6
    REALSumm documents, coverage chose 0.02, and on the held-out documents every summary then had
    coverage 1.0 (no correlation at all).
    """
    ps = sorted(probabilities)
    if not ps:
        return set()
    margin = int(len(ps) * MIN_SIDE)
    low, high = ps[margin], ps[-margin - 1]
    distinct = sorted(set(ps))
    return {round((a + b) / 2, 4) for a, b in zip(distinct, distinct[1:]) if low < (a + b) / 2 <= high}


@dataclass(frozen=True)
class Calibration:
    current: Thresholds
    fitted: Thresholds
    fit_documents: int
    held_out_documents: int
    held_out_items: int
    held_out: dict[str, dict[str, float]]
    """Figure name -> {"current": value at the current threshold, "fitted": value at the fitted one}."""


def calibrate(items: list[LabelledItem], current: Thresholds) -> Calibration:
    fit_docs, held_docs = split_documents([i.doc for i in items])
    fit = [i for i in items if i.doc in fit_docs]
    held = [i for i in items if i.doc in held_docs]
    fitted_alignment, fitted_coverage = current.alignment, current.coverage
    held_out: dict[str, dict[str, float]] = {}

    binary = [i for i in fit if i.label_alignment in (0.0, 1.0) and i.claim_probabilities]
    if binary:
        candidates = _candidates([p for i in binary for p in i.claim_probabilities])
        fitted_alignment = _best(candidates, lambda t: alignment_balanced_accuracy(binary, t), current.alignment)
        test = [i for i in held if i.label_alignment in (0.0, 1.0) and i.claim_probabilities]
        held_out["alignment balanced accuracy"] = {
            "current": alignment_balanced_accuracy(test, current.alignment),
            "fitted": alignment_balanced_accuracy(test, fitted_alignment),
        }
    graded = [i for i in fit if i.label_coverage is not None and i.question_probabilities]
    if graded:
        candidates = _candidates([p for i in graded for p in i.question_probabilities])
        fitted_coverage = _best(candidates, lambda t: coverage_pearson(graded, t), current.coverage)
        test = [i for i in held if i.label_coverage is not None and i.question_probabilities]
        held_out["coverage Pearson"] = {
            "current": coverage_pearson(test, current.coverage),
            "fitted": coverage_pearson(test, fitted_coverage),
        }
    return Calibration(
        current=current,
        fitted=Thresholds(alignment=fitted_alignment, coverage=fitted_coverage),
        fit_documents=len(fit_docs),
        held_out_documents=len(held_docs),
        held_out_items=len(held),
        held_out=held_out,
    )


def as_entry(calibration: Calibration, model: str, data: list[str]) -> dict[str, Any]:
    return {
        "model": model,
        "alignment": calibration.fitted.alignment,
        "coverage": calibration.fitted.coverage,
        "calibrated_on": ", ".join(data),
        "fit_documents": calibration.fit_documents,
        "held_out": calibration.held_out,
        "previous": asdict(calibration.current),
    }
