"""`localsumm bench quality`: agreement of the scorer with human labels, beside trivial baselines.

Each dataset (schema: benchmarks/data/README.md) is scored through the batch
runner into a resumable results file, then measured from that file alone, so a
finished run can be re-measured without a model. Every figure carries a 95%
bootstrap interval (items resampled; whole documents for per-document figures).
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable, Sequence
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
from ..text import tokens
from . import metrics

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


@dataclass(frozen=True)
class Item:
    """One scored item, reduced to what the measures need."""

    doc: str
    score: float
    alignment: float
    coverage: float
    weakest_claim: float
    """The smallest claim probability: a continuous alignment score for ROC curves."""
    label_alignment: float | None
    label_coverage: float | None
    bigram_overlap: float
    length: float
    coverage_probability: float = 0.0
    """The mean of the coverage verdicts' probabilities: a continuous coverage, measured beside the score's
    count as a diagnostic (it is not the score)."""


def bigram_overlap(summary: str, source: str) -> float:
    """Share of the summary's word bigrams found in the source: the lexical baseline for alignment. A CJK
    character counts as a word (those scripts have no spaces), so the baselines mean the same there."""

    def bigrams(text: str) -> set[tuple[str, str]]:
        words = [w for w in tokens(text) if any(c.isalnum() for c in w)]
        return set(zip(words, words[1:]))

    mine = bigrams(summary)
    return len(mine & bigrams(source)) / len(mine) if mine else 0.0


def items_from_results(lines: list[ResultLine]) -> list[Item]:
    """The scored lines of a results file (a dataset's records plus our verdicts)."""
    items = []
    for line in lines:
        result = line.result
        if result is None:
            continue
        source, summary = line.texts()
        probabilities = [v.support for v in result.preprocess_step_result.alignment if v.probability is not None]
        answers = [v.probability for v in result.analyze_step_result.coverage if v.probability is not None]
        items.append(
            Item(
                doc=line.doc,
                score=result.score,
                alignment=result.alignment_score,
                coverage=result.coverage_score,
                weakest_claim=min(probabilities, default=0.0),
                label_alignment=line.label_alignment,
                label_coverage=line.label_coverage,
                bigram_overlap=bigram_overlap(summary, source),
                length=float(len(tokens(summary))),
                coverage_probability=statistics.fmean(answers) if answers else 0.0,
            )
        )
    return items


def _pooled(measure: metrics.Measure, x: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], float]:
    """``measure`` on the items a bootstrap resample picks."""
    return lambda idx: measure(x[idx], y[idx])


def _per_document(
    measure: metrics.Measure, x: np.ndarray, y: np.ndarray, docs: np.ndarray
) -> Callable[[np.ndarray], float]:
    """``measure`` within each document, averaged, on the items a bootstrap resample picks."""
    return lambda idx: metrics.per_document(measure, x[idx], y[idx], docs[idx].tolist())


def _difference(
    first: Callable[[np.ndarray], float], second: Callable[[np.ndarray], float]
) -> Callable[[np.ndarray], float]:
    """``first`` minus ``second`` on the same resample: a paired comparison on the same items."""
    return lambda idx: first(idx) - second(idx)


MEASURES: dict[str, metrics.Measure] = {
    "pearson": metrics.pearson,
    "spearman": metrics.spearman,
    "kendall": metrics.kendall,
}


def _figure(
    dataset: str,
    label: str,
    predictor: str,
    name: str,
    measure: Callable[[np.ndarray], float],
    n: int,
    groups: Sequence[str] | None,
    documents: tuple[int, int] | None = None,
) -> Figure:
    value = measure(np.arange(n))
    low, high = metrics.bootstrap_ci(measure, n, groups=groups)
    counted, constant = documents or (None, None)
    return Figure(dataset, label, predictor, name, value, low, high, n, counted, constant)


def dataset_figures(dataset: str, items: list[Item], threshold: float) -> list[Figure]:
    """Every figure the dataset's labels allow, for localsumm and for the baselines."""
    figures: list[Figure] = []

    def correlations(
        label: str, subset: list[Item], labels: list[float], predictors: dict[str, list[float]], kinds: list[str]
    ) -> None:
        """Each predictor's agreement with ``labels``; then localsumm's (the first predictor) minus each
        baseline's, on the same bootstrap resamples: the paired difference and its interval."""
        docs = [i.doc for i in subset]
        y = np.asarray(labels, float)
        d = np.asarray(docs)
        ours, ours_values = next(iter(predictors.items()))
        counted = metrics.documents_counted(ours_values, labels, docs)
        for predictor, values in predictors.items():
            x = np.asarray(values, float)
            for kind in kinds:
                fn = MEASURES[kind]
                figures.append(_figure(dataset, label, predictor, kind, _pooled(fn, x, y), len(y), None))
                figures.append(
                    _figure(
                        dataset,
                        label,
                        predictor,
                        f"{kind} per document",
                        _per_document(fn, x, y, d),
                        len(y),
                        docs,
                        metrics.documents_counted(values, labels, docs),
                    )
                )
        x = np.asarray(ours_values, float)
        for predictor, values in predictors.items():
            if not predictor.startswith("baseline: "):
                continue
            b = np.asarray(values, float)
            versus = f"{ours} minus {predictor}"
            for kind in kinds:
                fn = MEASURES[kind]
                pooled = _difference(_pooled(fn, x, y), _pooled(fn, b, y))
                per_document = _difference(_per_document(fn, x, y, d), _per_document(fn, b, y, d))
                figures.append(_figure(dataset, label, versus, kind, pooled, len(y), None))
                figures.append(
                    _figure(dataset, label, versus, f"{kind} per document", per_document, len(y), docs, counted)
                )

    aligned = [i for i in items if i.label_alignment is not None]
    if aligned:
        labels = metrics.known([i.label_alignment for i in aligned])
        correlations(
            "label_alignment",
            aligned,
            labels,
            {
                "alignment": [i.alignment for i in aligned],
                "baseline: bigram overlap": [i.bigram_overlap for i in aligned],
                "baseline: summary length": [i.length for i in aligned],
            },
            ["spearman", "kendall"],
        )
        if set(labels) <= {0.0, 1.0}:
            y = np.asarray(labels)
            for predictor, values in {
                "weakest claim probability": [i.weakest_claim for i in aligned],
                "baseline: bigram overlap": [i.bigram_overlap for i in aligned],
                "baseline: summary length": [i.length for i in aligned],
            }.items():
                x = np.asarray(values)
                figures.append(
                    _figure(
                        dataset,
                        "label_alignment",
                        predictor,
                        "ROC-AUC",
                        _pooled(metrics.roc_auc, x, y),
                        len(y),
                        None,
                    )
                )
            predicted = np.asarray([i.weakest_claim >= threshold for i in aligned])
            figures.append(
                _figure(
                    dataset,
                    "label_alignment",
                    f"all claims supported (threshold {threshold:g})",
                    "balanced accuracy",
                    lambda idx: metrics.balanced_accuracy(predicted[idx], y[idx]),
                    len(y),
                    None,
                )
            )
    covered = [i for i in items if i.label_coverage is not None]
    if covered:
        correlations(
            "label_coverage",
            covered,
            metrics.known([i.label_coverage for i in covered]),
            {
                "coverage": [i.coverage for i in covered],
                "baseline: bigram overlap": [i.bigram_overlap for i in covered],
                "baseline: summary length": [i.length for i in covered],
                "mean verdict probability (diagnostic, not the score)": [i.coverage_probability for i in covered],
            },
            ["pearson", "spearman"],
        )
    both = [i for i in items if i.label_alignment is not None and i.label_coverage is not None]
    if both:
        correlations(
            "label_mean",
            both,
            [
                (a + c) / 2
                for a, c in zip(
                    metrics.known([i.label_alignment for i in both]), metrics.known([i.label_coverage for i in both])
                )
            ],
            {
                "score": [i.score for i in both],
                "baseline: bigram overlap": [i.bigram_overlap for i in both],
                "baseline: summary length": [i.length for i in both],
            },
            ["spearman", "kendall"],
        )
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
    """Each dataset scored into ``out_dir/<dataset>.<judge>[.<questions>].jsonl`` (resumable); its lines, by dataset.

    ``questions``: a question file, or "reference": each dataset's own facts (``REFERENCE_FIELDS``), written
    once into ``out_dir/<dataset>.reference-questions.jsonl`` and asked in place of generated questions."""
    options = make_options(options)
    out_dir.mkdir(parents=True, exist_ok=True)
    lines_by_dataset = {}
    for data in data_files:
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
            name, these = (
                f"{name}.reference-questions",
                options.replace(questions=str(question_file), questions_only=True),
            )
        elif questions is not None:
            # Named by the file's version, as provenance.questions records it: another version gets its own results.
            digest = QuestionFile.load(questions).sha256[:12]
            name, these = f"{name}.questions-{digest}", options.replace(questions=str(questions))
        if options.scoring != "count":  # its own results: a folder may hold both rules' figures
            name += f".scoring-{options.scoring}"
        if options.verification != "whole":  # likewise for the verification modes
            name += f".verification-{options.verification}"
        results = out_dir / f"{name}.jsonl"
        evaluate_file(data, results, resume=True, model=judge, options=these, limit=limit, progress=progress)
        # --limit may be lower than in an earlier run of the same folder: measure what was asked for.
        lines_by_dataset[dataset] = read_results(results)[:limit]
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
