"""`localsumm bench systems`: does localsumm rank summarizers as people do?

From a results file of a systems set (every document summarised by every system), each system's mean over the
documents (its summaries of a document averaged first, the tables ``localsumm compare`` ranks by) against the
labels' mean. Two kinds of labels:

- SummEval's experts (``benchmarks/data/summeval.systems.dev.jsonl``: 12 documents, 16 systems): relevance,
  consistency and their mean; relevance also rewards precision, which no recall sees;
- a content recall alone (``label_coverage`` without ``label_alignment``: REALSumm's Lite-Pyramid in
  ``realsumm.systems.dev.jsonl``, 12 documents, 24 systems), what coverage is by its definition: coverage
  against it, and, where the items carry their reference (``meta.reference``), the reference's unigram recall
  as a label-side baseline.

For each:

- Kendall's tau-b over the systems, and pairwise accuracy (the share of the system pairs the experts
  order that the predictor orders alike);
- for coverage against relevance (or the recall), alignment against consistency, the score against the mean;
- beside summary length and bigram overlap with the source on the same items (the baselines), and, given
  the labels' system means over all 100 documents (``--experts``), the labels' own 12-document means
  against those: how far 12 documents can go;
- each with a 95% interval from resampling documents (the same resamples for every predictor).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..compare.stats import LEVEL, MIN_SOURCES
from ..compare.tables import WORDS, Tables, read_tables
from ..errors import InputError
from ..files import json_object, read_text
from ..runs.results import ResultLine
from . import metrics
from .items import bigram_overlap, reference_unigram_recall

EXPERTS = {"relevance": "label_coverage", "consistency": "label_alignment", "mean rating": "label_mean"}
"""The experts' dimension and the label that holds it (SummEval's 1-5 means mapped to 0..1)."""
RECALL = {"content recall": "label_coverage"}
"""A set labelled with a content recall only (REALSumm's Lite-Pyramid, RoSE's ACUs)."""
OURS = {
    "relevance": "coverage_score",
    "consistency": "alignment_score",
    "mean rating": "score",
    "content recall": "coverage_score",
}
BASELINES = {"length": WORDS, "bigram overlap": "bigram_overlap", "reference unigram recall": "reference_recall"}
CEILING = "labels, 12 documents"
RECALL_KEYS = ("litepyramid_recall", "acu_recall", "recall")
"""The key of a system's mean in a recall set's means file (``realsumm.systems.pyramid100.json``)."""
Measure = Callable[[np.ndarray, np.ndarray], float]


def line_values(line: ResultLine) -> dict[str, float]:
    """The labels and the baselines of one scored line (length is in every table: ``WORDS``); a label or a reference
    the line lacks is NaN."""
    alignment, coverage = line.label_alignment, line.label_coverage
    if coverage is None:
        raise InputError(
            f"line {line.number} (id {line.id}) has no label_coverage: bench systems needs the experts' labels "
            "(benchmarks/data/summeval.systems.dev.jsonl) or a content recall (realsumm.systems.dev.jsonl)"
        )
    source, summary = line.texts()
    reference = _reference(line.fields.get("meta"))
    nan = float("nan")
    return {
        "label_alignment": nan if alignment is None else float(alignment),
        "label_coverage": float(coverage),
        "label_mean": nan if alignment is None else (float(alignment) + float(coverage)) / 2,
        "bigram_overlap": bigram_overlap(summary, source, split_punctuation=True),
        "reference_recall": nan if reference is None else reference_unigram_recall(summary, reference),
    }


def _reference(meta: object) -> str | None:
    """The item's reference summary: ``meta.reference``, else the first of ``meta.reference_summaries``."""
    if not isinstance(meta, dict):
        return None
    reference = meta.get("reference")
    if isinstance(reference, str) and reference.strip():
        return reference
    references = meta.get("reference_summaries")
    if isinstance(references, list) and references and isinstance(references[0], str):
        return references[0]
    return None


@dataclass(frozen=True)
class SystemFigure:
    expert: str
    """relevance, consistency or mean rating."""
    predictor: str
    kendall: float
    kendall_interval: tuple[float, float] | None
    accuracy: float
    """Pairwise accuracy."""
    accuracy_interval: tuple[float, float] | None


@dataclass(frozen=True)
class SystemsReport:
    results: str
    systems: list[str]
    documents: int
    figures: list[SystemFigure]
    ranks: dict[str, dict[str, tuple[float, float]]]
    """Per expert dimension, per system: (experts' rank, localsumm's rank), 1 the best."""
    excluded: dict[str, int]
    """Failed and unscorable items, left out."""
    resamples: int
    seed: int

    def markdown(self) -> str:
        out = [
            f"{self.results}: {len(self.systems)} systems on {self.documents} documents; system-level agreement "
            f"with the labels (95% intervals, {self.resamples} resamples of the documents, seed {self.seed})",
            "",
            "| labels | predictor | Kendall tau | pairwise accuracy |",
            "|---|---|---:|---:|",
        ]
        for f in self.figures:
            out.append(
                f"| {f.expert} | {f.predictor} | {_cell(f.kendall, f.kendall_interval)} | "
                f"{_cell(f.accuracy, f.accuracy_interval)} |"
            )
        out += ["", "Ranks (1 the best): the labels' over these documents, then localsumm's", ""]
        names = list(self.ranks)
        out.append("| system | " + " | ".join(f"{n}: labels / {OURS[n].replace('_score', '')}" for n in names) + " |")
        out.append("|---|" + "---:|" * len(names))
        order = sorted(self.systems, key=lambda s: self.ranks[names[-1]][s][0])
        for system in order:
            cells = [f"{self.ranks[n][system][0]:g} / {self.ranks[n][system][1]:g}" for n in names]
            out.append(f"| {system} | " + " | ".join(cells) + " |")
        out.append("")
        out.append(f"left out: {self.excluded['failed']} failed, {self.excluded['unscorable']} unscorable items")
        return "\n".join(out) + "\n"

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, ensure_ascii=False)


def _cell(value: float, interval: tuple[float, float] | None) -> str:
    if math.isnan(value):
        return "-"
    return f"{value:.2f}" + ("" if interval is None else f" [{interval[0]:.2f}, {interval[1]:.2f}]")


def _means(values: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Per-system means over the documents ``docs`` (a fixed vector of means is itself), rounded so that two
    systems with equal labels tie: summed in another order, their means can differ in the last bit."""
    return np.round(values[:, docs].mean(axis=1), 12) if values.ndim == 2 else values


def _agreement(
    measure: Measure, x: np.ndarray, y: np.ndarray, draws: list[np.ndarray]
) -> tuple[float, tuple[float, float] | None]:
    everything = np.arange(x.shape[1])
    value = measure(_means(x, everything), _means(y, everything))
    if not draws:
        return value, None
    resampled = [v for d in draws if not math.isnan(v := measure(_means(x, d), _means(y, d)))]
    if not resampled:
        return value, None
    low, high = np.quantile(resampled, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return value, (float(low), float(high))


def _figure(expert: str, predictor: str, x: np.ndarray, y: np.ndarray, draws: list[np.ndarray]) -> SystemFigure:
    tau, tau_interval = _agreement(metrics.kendall, x, y, draws)
    accuracy, accuracy_interval = _agreement(metrics.pairwise_accuracy, x, y, draws)
    return SystemFigure(expert, predictor, tau, tau_interval, accuracy, accuracy_interval)


def read_recall_means(path: Path, systems: list[str]) -> dict[str, np.ndarray]:
    """A recall set's system means over all its documents (JSON: system -> {litepyramid_recall: 0..1, ...}), as
    one vector in the order of ``systems``."""
    data = json_object(read_text(str(path), "the labels' means"), str(path), "an object of systems")
    missing = [s for s in systems if not isinstance(data.get(s), dict)]
    if missing:
        raise InputError(f"{path} has no means of the systems {', '.join(missing)}")
    values = []
    for system in systems:
        found = [data[system][k] for k in RECALL_KEYS if isinstance(data[system].get(k), (int, float))]
        if not found:
            raise InputError(f"{path}: system {system} has no recall ({', '.join(RECALL_KEYS)}: a number)")
        values.append(float(found[0]))
    return {"content recall": np.array(values)}


def read_expert_means(path: Path, systems: list[str]) -> dict[str, np.ndarray]:
    """The experts' means over all documents (JSON: system -> {relevance, consistency, ...} on 1-5), as
    vectors in the order of ``systems``, with the mean rating (the mean of relevance and consistency)."""
    data = json_object(read_text(str(path), "experts' means"), str(path), "an object of systems")
    missing = [s for s in systems if not isinstance(data.get(s), dict)]
    if missing:
        raise InputError(f"{path} has no means of the systems {', '.join(missing)}")
    try:
        relevance = np.array([float(data[s]["relevance"]) for s in systems])
        consistency = np.array([float(data[s]["consistency"]) for s in systems])
    except (KeyError, TypeError, ValueError):
        raise InputError(f"{path}: every system needs a relevance and a consistency (numbers, 1-5)") from None
    return {"relevance": relevance, "consistency": consistency, "mean rating": (relevance + consistency) / 2}


def systems_report(
    results: Path, *, experts: Path | None = None, resamples: int = 1000, seed: int = 0
) -> SystemsReport:
    tables = read_tables([results], extra=line_values)
    documents = len(tables.sources)
    rng = np.random.default_rng(seed)
    # The same document resamples for every predictor: their intervals are comparable, pair by pair.
    draws = [rng.integers(0, documents, documents) for _ in range(resamples)] if documents >= MIN_SOURCES else []
    experts_labelled = ~np.isnan(tables.values["label_alignment"])
    if experts_labelled.any() and not experts_labelled.all():
        raise InputError(f"{results}: some items have label_alignment and some do not; one set of labels per file")
    labels = EXPERTS if experts_labelled.all() else RECALL
    if experts is None:
        everything = None
    else:
        everything = (read_expert_means if labels is EXPERTS else read_recall_means)(experts, tables.systems)
    baselines = {n: k for n, k in BASELINES.items() if not np.isnan(tables.values[k]).any()}
    figures, ranks = [], {}
    for expert, label in labels.items():
        y = tables.values[label]
        predictors = {OURS[expert].replace("_score", ""): tables.values[OURS[expert]]}
        predictors |= {name: tables.values[key] for name, key in baselines.items()}
        figures += [_figure(expert, name, x, y, draws) for name, x in predictors.items()]
        if everything:
            figures.append(_figure(expert, CEILING + " against 100", y, everything[expert], draws))
        ranks[expert] = _ranks(tables, label, OURS[expert])
    excluded = {"failed": sum(tables.failed.values()), "unscorable": sum(tables.unscorable.values())}
    return SystemsReport(str(results), tables.systems, documents, figures, ranks, excluded, resamples, seed)


def _ranks(tables: Tables, label: str, ours: str) -> dict[str, tuple[float, float]]:
    n = len(tables.systems)
    everything = np.arange(len(tables.sources))
    theirs = n + 1 - metrics.ranks(_means(tables.values[label], everything))
    mine = n + 1 - metrics.ranks(_means(tables.values[ours], everything))
    return {s: (float(theirs[i]), float(mine[i])) for i, s in enumerate(tables.systems)}
