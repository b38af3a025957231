"""`localsumm bench quality`: agreement of the scorer with human labels, beside trivial baselines.

Each dataset (schema: benchmarks/data/README.md) is scored through the batch
runner into a resumable results file, then measured from that file alone, so a
finished run can be re-measured without a model. Every figure carries a 95%
bootstrap interval (items resampled; whole documents for per-document figures).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..backends import open_judge
from ..config.options import Options, make_options
from ..errors import ConfigError
from ..protocol import Judge
from ..runs.evaluate import evaluate_file
from ..runs.questions import write_questions
from ..runs.results import ResultLine, read_results
from ..summarization.questionset import QuestionFile
from . import metrics
from .items import BASELINES, WEAKEST_CLAIM, Item, Predictor, items_from_results

if TYPE_CHECKING:
    from ..runs.progress import Progress


@dataclass(frozen=True)
class Figure:
    dataset: str
    label: str
    """Which human label: label_alignment, label_coverage, or label_mean (SummEval)."""
    predictor: str
    """What is compared with it: a localsumm output or a baseline."""
    measure: str
    value: float
    low: float
    high: float
    n: int
    documents: int | None = None
    """For a per-document figure: the documents it rests on (those whose labels differ)."""
    constant_documents: int | None = None
    """Of those, where the predictor gave every summary the same value: counted as 0 for a correlation."""


Statistic = Callable[[np.ndarray], float]
"""A figure as a function of the items a bootstrap resample picks (their indices)."""


def pooled(measure: metrics.Measure, x: np.ndarray, y: np.ndarray) -> Statistic:
    """``measure`` on the items a bootstrap resample picks."""
    return lambda idx: measure(x[idx], y[idx])


def per_document(measure: metrics.Measure, x: np.ndarray, y: np.ndarray, docs: np.ndarray) -> Statistic:
    """``measure`` within each document, averaged, on the items a bootstrap resample picks."""
    return lambda idx: metrics.per_document(measure, x[idx], y[idx], docs[idx].tolist())


def _difference(first: Statistic, second: Statistic) -> Statistic:
    """``first`` minus ``second`` on the same resample: a paired comparison on the same items."""
    return lambda idx: first(idx) - second(idx)


MEASURES: dict[str, metrics.Measure] = {
    "pearson": metrics.pearson,
    "spearman": metrics.spearman,
    "kendall": metrics.kendall,
}


@dataclass(frozen=True)
class HumanLabel:
    """A human label, the predictors compared with it, and the correlations that measure their agreement."""

    name: str
    read: Callable[[Item], float | None]
    """The item's label, or None where the dataset has none for it."""
    predictors: tuple[Predictor, ...]
    """localsumm's output (exactly one), the baselines and any diagnostics, in the order the figures list them."""
    measures: tuple[str, ...]

    @property
    def ours(self) -> Predictor:
        (ours,) = [p for p in self.predictors if p.kind == "localsumm"]
        return ours

    @property
    def baselines(self) -> list[Predictor]:
        return [p for p in self.predictors if p.kind == "baseline"]


def _mean_label(item: Item) -> float | None:
    """SummEval's mean rating: the mean of both labels, where an item has both."""
    if item.label_alignment is None or item.label_coverage is None:
        return None
    return (item.label_alignment + item.label_coverage) / 2


ALIGNMENT = HumanLabel(
    "label_alignment",
    lambda i: i.label_alignment,
    (Predictor("alignment", lambda i: i.alignment, "localsumm"), *BASELINES),
    ("spearman", "kendall"),
)
COVERAGE = HumanLabel(
    "label_coverage",
    lambda i: i.label_coverage,
    (
        Predictor("coverage", lambda i: i.coverage, "localsumm"),
        *BASELINES,
        Predictor(
            "mean verdict probability (diagnostic, not the score)", lambda i: i.coverage_probability, "diagnostic"
        ),
    ),
    ("pearson", "spearman"),
)
MEAN = HumanLabel(
    "label_mean", _mean_label, (Predictor("score", lambda i: i.score, "localsumm"), *BASELINES), ("spearman", "kendall")
)
LABELS = (ALIGNMENT, COVERAGE, MEAN)
"""In the order the figures list them."""


@dataclass(frozen=True)
class _Labelled:
    """A dataset's items that have one label: what every figure of that label is measured on."""

    dataset: str
    label: HumanLabel
    items: list[Item]
    labels: list[float]
    docs: list[str]

    @classmethod
    def of(cls, dataset: str, label: HumanLabel, items: list[Item]) -> _Labelled:
        labelled = [i for i in items if label.read(i) is not None]
        labels = metrics.known([label.read(i) for i in labelled])
        return cls(dataset, label, labelled, labels, [i.doc for i in labelled])

    def figure(
        self, predictor: str, measure: str, statistic: Statistic, documents: tuple[int, int] | None = None
    ) -> Figure:
        """``statistic`` on all the items, with its interval; a per-document figure (one given the ``documents``
        it rests on) resamples whole documents."""
        n = len(self.labels)
        value = statistic(np.arange(n))
        low, high = metrics.bootstrap_ci(statistic, n, groups=None if documents is None else self.docs)
        counted, constant = documents or (None, None)
        return Figure(self.dataset, self.label.name, predictor, measure, value, low, high, n, counted, constant)

    def statistics(self, measure: str, values: list[float]) -> tuple[Statistic, Statistic]:
        """``measure`` of ``values`` against the labels: pooled over the items, and per document."""
        x, y, d = np.asarray(values, float), np.asarray(self.labels, float), np.asarray(self.docs)
        return pooled(MEASURES[measure], x, y), per_document(MEASURES[measure], x, y, d)

    def correlations(
        self, predictor: str, statistics: dict[str, tuple[Statistic, Statistic]], counted: tuple[int, int]
    ) -> list[Figure]:
        """For each measure, its pooled figure and its per-document one (resting on the documents ``counted``)."""
        figures = []
        for measure, (pooled, per_document) in statistics.items():
            figures.append(self.figure(predictor, measure, pooled))
            figures.append(self.figure(predictor, f"{measure} per document", per_document, counted))
        return figures


def _agreement(labelled: _Labelled, predictor: Predictor) -> list[Figure]:
    """The predictor's correlations with the label."""
    values = predictor.values(labelled.items)
    statistics = {m: labelled.statistics(m, values) for m in labelled.label.measures}
    counted = metrics.documents_counted(values, labelled.labels, labelled.docs)
    return labelled.correlations(predictor.name, statistics, counted)


def _versus(labelled: _Labelled, ours: Predictor, baseline: Predictor) -> list[Figure]:
    """localsumm's correlations minus the baseline's, on the same bootstrap resamples: the paired difference and
    its interval. Its per-document figures rest on the documents localsumm's own do."""
    values, base_values = ours.values(labelled.items), baseline.values(labelled.items)
    statistics = {}
    for m in labelled.label.measures:
        pooled, per_document = labelled.statistics(m, values)
        base_pooled, base_per_document = labelled.statistics(m, base_values)
        statistics[m] = (_difference(pooled, base_pooled), _difference(per_document, base_per_document))
    counted = metrics.documents_counted(values, labelled.labels, labelled.docs)
    return labelled.correlations(f"{ours.name} minus {baseline.name}", statistics, counted)


def _classification(labelled: _Labelled, threshold: float) -> list[Figure]:
    """For yes/no alignment labels: how well each continuous predictor ranks the consistent summaries first
    (ROC-AUC), and localsumm's verdict "all claims supported" at the judge's threshold (balanced accuracy)."""
    y = np.asarray(labelled.labels)
    figures = [
        labelled.figure(p.name, "ROC-AUC", pooled(metrics.roc_auc, np.asarray(p.values(labelled.items)), y))
        for p in (WEAKEST_CLAIM, *BASELINES)
    ]
    predicted = np.asarray([i.weakest_claim >= threshold for i in labelled.items])
    figures.append(
        labelled.figure(
            f"all claims supported (threshold {threshold:g})",
            "balanced accuracy",
            lambda idx: metrics.balanced_accuracy(predicted[idx], y[idx]),
        )
    )
    return figures


def dataset_figures(dataset: str, items: list[Item], threshold: float) -> list[Figure]:
    """Every figure the dataset's labels allow, for localsumm and for the baselines."""
    figures: list[Figure] = []
    for label in LABELS:
        labelled = _Labelled.of(dataset, label, items)
        if not labelled.items:
            continue
        figures += [f for p in label.predictors for f in _agreement(labelled, p)]
        figures += [f for b in label.baselines for f in _versus(labelled, label.ours, b)]
        if label is ALIGNMENT and set(labelled.labels) <= {0.0, 1.0}:  # yes/no labels (SummEdits): classified too
            figures += _classification(labelled, threshold)
    return figures


def markdown(figures: list[Figure]) -> str:
    rows = [
        "| dataset | label | predictor | measure | value | 95% CI | n | documents (predictor constant, counted as 0) |",
        "|---|---|---|---|---:|---|---:|---:|",
    ]

    def fmt(v: float) -> str:
        return "n/a" if math.isnan(v) else f"{v:.3f}"

    for f in figures:
        docs = "" if f.documents is None else f"{f.documents} ({f.constant_documents})"
        rows.append(
            f"| {f.dataset} | {f.label} | {f.predictor} | {f.measure} | {fmt(f.value)} | [{fmt(f.low)}, {fmt(f.high)}] "
            f"| {f.n} | {docs} |"
        )
    return (
        "\n".join(rows)
        + "\n"
        + (
            "\nPer-document figures: documents whose labels are all equal are left out; a document where the predictor "
            "gave every summary the same value counts as 0 for a correlation (it ranked nothing).\n"
        )
    )


def write_outputs(
    out_dir: Path, figures: list[Figure], items_by_dataset: dict[str, list[Item]], threshold: float
) -> list[Path]:
    """quality.md, quality.json and, when matplotlib is installed, one PNG per dataset."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / "quality.md", out_dir / "quality.json"]
    written[0].write_text(markdown(figures), encoding="utf-8")
    written[1].write_text(json.dumps([asdict(f) for f in figures], indent=1, allow_nan=True), encoding="utf-8")
    try:
        from .plots import quality_plot
    except ImportError:
        return written
    for dataset, items in items_by_dataset.items():
        path = out_dir / f"quality-{dataset}.png"
        quality_plot(path, dataset, items, threshold)
        written.append(path)
    return written


# Each labelled set's own facts: what its label counts (benchmarks/data/README.md).
REFERENCE_FIELDS = {"realsumm": "meta.keyfacts_scus", "rose": "meta.reference_acus"}
REFERENCE = "reference"


def open_for_bench(model: str | Judge | None, options: Options | None = None) -> Judge:
    return model if isinstance(model, Judge) else open_judge(model, options)


def results_file(
    data: Path,
    out_dir: Path,
    judge: Judge,
    options: Options,
    questions: str | Path | None = None,
    progress: Progress | None = None,
) -> tuple[Path, Options]:
    """Where ``judge``'s results of ``data`` go in ``out_dir``, and the options they are scored with.

    ``questions``: a question file, or "reference": the dataset's own facts (``REFERENCE_FIELDS``), written
    once into ``out_dir/<dataset>.reference-questions.jsonl`` and asked in place of generated questions."""
    dataset = data.name.split(".")[0]
    name, these = f"{dataset}.{judge.info.name}", options
    if questions is not None and str(questions) == REFERENCE:
        field = REFERENCE_FIELDS.get(dataset)
        if field is None:
            raise ConfigError(
                f"--questions reference: {data} is not a set whose reference facts localsumm knows "
                f"({', '.join(REFERENCE_FIELDS)}); write a question file with `localsumm questions "
                "--from-reference FIELD`"
            )
        question_file = out_dir / f"{dataset}.reference-questions.jsonl"
        write_questions(data, question_file, resume=True, from_reference=field, progress=progress)
        name, these = f"{name}.reference-questions", options.replace(questions=str(question_file), questions_only=True)
    elif questions is not None:
        # Named by the file's version, as provenance.questions records it: another version gets its own results.
        digest = QuestionFile.load(questions).sha256[:12]
        name, these = f"{name}.questions-{digest}", options.replace(questions=str(questions))
    if options.scoring != Options().scoring:  # its own results: a folder may hold several rules' figures
        name += f".scoring-{options.scoring}"
    if options.verification != "whole":  # likewise for the verification modes
        name += f".verification-{options.verification}"
    return out_dir / f"{name}.jsonl", these


def score_datasets(
    data_files: list[Path],
    out_dir: Path,
    judge: Judge,
    *,
    options: Options | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
    questions: str | Path | None = None,
) -> dict[str, list[ResultLine]]:
    """Each dataset scored into ``out_dir/<dataset>.<judge>[.<questions>].jsonl`` (resumable, ``results_file``); its
    lines, by dataset."""
    options = make_options(options)
    out_dir.mkdir(parents=True, exist_ok=True)
    lines_by_dataset = {}
    for data in data_files:
        results, these = results_file(data, out_dir, judge, options, questions, progress)
        evaluate_file(data, results, resume=True, model=judge, options=these, limit=limit, progress=progress)
        # --limit may be lower than in an earlier run of the same folder: measure what was asked for.
        lines_by_dataset[data.name.split(".")[0]] = read_results(results)[:limit]
    return lines_by_dataset


def run_quality(
    data_files: list[Path],
    out_dir: Path,
    *,
    model: str | Judge | None = None,
    options: Options | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
    questions: str | Path | None = None,
    **settings: object,
) -> tuple[list[Figure], list[Path]]:
    """Score each dataset (resumable), then measure it against its labels.

    ``options`` (or keyword ``settings``) as for ``localsumm eval``; the judge-call cache is on by default.
    ``questions`` as for :func:`score_datasets`.
    """
    options = make_options(options or Options(cache=True), **settings)  # checked before the judge loads
    judge = open_for_bench(model, options)
    threshold = judge.info.thresholds.alignment
    figures: list[Figure] = []
    items_by_dataset: dict[str, list[Item]] = {}
    scored = score_datasets(
        data_files, out_dir, judge, options=options, limit=limit, progress=progress, questions=questions
    )
    for dataset, lines in scored.items():
        items_by_dataset[dataset] = items_from_results(lines)
        figures += dataset_figures(dataset, items_by_dataset[dataset], threshold)
    return figures, write_outputs(out_dir, figures, items_by_dataset, threshold)
