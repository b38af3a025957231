"""What the experiment scripts share: paths, the dev sets, and the measures of ``verdict_prompts.py``.

Every script of this folder imports this module (never another script), and
the package only through its public modules. It does no work at import.

- ``ROOT``, ``RESULTS`` (``benchmarks/results/``, where the scripts store what
  they measured; not committed) and ``DATA`` (``benchmarks/data/``, the dev sets);
- reading a dev set: :func:`doc_id`, :func:`labelled_part`, :func:`first_item_per_source`;
- the per-sentence verdict rows that ``verdict_prompts.py`` and
  ``likelihood_alignment.py`` store: :func:`stored`, and their shared options, :func:`arguments`;
- the alignment measures they report: :func:`measures`, :func:`held_out_accuracy`,
  :func:`fold_thresholds` (``THRESHOLD``, the verdict threshold, 0.5);
- :func:`document_halves`, the split of documents that fits on one half and reports on the other.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path
from typing import Any, Callable, Iterable

from localsumm.bench import metrics
from localsumm.files import read_jsonl

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
DATA = ROOT / "benchmarks" / "data"
THRESHOLD = 0.5


def dev_set(name: str) -> Path:
    """``benchmarks/data/NAME.dev.jsonl`` (summeval, summedits, realsumm, rose)."""
    return DATA / f"{name}.dev.jsonl"


def doc_id(line: dict[str, Any]) -> str:
    """The document a dataset line belongs to: ``meta.doc_id``, else a hash of its source."""
    return str((line.get("meta") or {}).get("doc_id") or hashlib.sha256(line["source"].encode()).hexdigest()[:12])


def first_item_per_source(path: Path, n: int) -> list[dict[str, Any]]:
    """The first line of each of the first ``n`` documents of a dataset file, in file order."""
    firsts: dict[str, dict[str, Any]] = {}
    for line in read_jsonl(path):
        if len(firsts) == n:
            break
        firsts.setdefault(doc_id(line), line)
    return list(firsts.values())


def labelled_part(data: Path, limit: int | None, part: str) -> list[dict[str, Any]]:
    """The first ``limit`` lines with an alignment label, of the documents ``part`` (I/N) gives this process."""
    lines = [line for line in read_jsonl(data) if line.get("label_alignment") is not None][:limit]
    docs = list(dict.fromkeys(doc_id(line) for line in lines))
    index, count = (int(x) for x in part.split("/"))
    mine = set(docs[index - 1 :: count])
    return [line for line in lines if doc_id(line) in mine]


def stored(name: str, data: Path) -> list[dict[str, Any]]:
    """Every part's stored rows of the script ``name`` for ``data``, the last line of an id winning."""
    rows: dict[str, dict[str, Any]] = {}
    for path in sorted(RESULTS.glob(f"{name}.{data.stem}.*.jsonl")):
        rows.update((row["id"], row) for row in read_jsonl(path))
    return list(rows.values())


def arguments(description: str) -> argparse.ArgumentParser:
    """The options of ``verdict_prompts.py`` and ``likelihood_alignment.py``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("data", type=Path)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--part", default="1/1", help="I/N: every N-th document from the I-th")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--model", default=None)
    parser.add_argument("--report", action="store_true", help="only report what earlier runs stored")
    return parser


def measures(binary: bool) -> dict[str, Callable[[list[list[float]], list[float], list[str]], float]]:
    """What the scorer would compute from per-sentence support probabilities, against the labels: for binary
    labels ROC-AUC of the weakest sentence and balanced accuracy, for graded ones Spearman. Each measure
    takes (per-item sentence probabilities, labels, document ids)."""
    def weakest(ps: list[list[float]]) -> list[float]:
        return [min(p, default=0.0) for p in ps]

    def share(ps: list[list[float]]) -> list[float]:
        return [sum(x >= THRESHOLD for x in p) / len(p) if p else 0.0 for p in ps]

    if binary:
        return {
            "ROC-AUC, weakest": lambda ps, y, d: metrics.roc_auc(weakest(ps), y),
            "balanced accuracy, all >= 0.5": lambda ps, y, d: metrics.balanced_accuracy([w >= THRESHOLD for w in weakest(ps)], y),
            "balanced accuracy, threshold fitted on the other documents": lambda ps, y, d: held_out_accuracy(weakest(ps), y, d),
            "Spearman per document, fraction": lambda ps, y, d: metrics.per_document(metrics.spearman, share(ps), y, d),
        }
    return {
        "Spearman per document, fraction": lambda ps, y, d: metrics.per_document(metrics.spearman, share(ps), y, d),
        "Spearman per document, weakest": lambda ps, y, d: metrics.per_document(metrics.spearman, weakest(ps), y, d),
        "Spearman pooled, fraction": lambda ps, y, d: metrics.spearman(share(ps), y),
    }


def fold_thresholds(scores: list[float], labels: list[float], docs: list[str]) -> tuple[dict[str, int], list[float]]:
    """Documents split into 2 folds (alternately, in order), and per fold the threshold of "score >= t" that
    maximises balanced accuracy on the *other* fold."""
    fold = {doc: i % 2 for i, doc in enumerate(dict.fromkeys(docs))}
    thresholds = []
    for held in (0, 1):
        fit = [i for i, doc in enumerate(docs) if fold[doc] != held]
        cuts = sorted({scores[i] for i in fit})
        candidates = [(a + b) / 2 for a, b in zip(cuts, cuts[1:])] or [THRESHOLD]
        thresholds.append(max(candidates, key=lambda t: metrics.balanced_accuracy([scores[i] >= t for i in fit], [labels[i] for i in fit])))
    return fold, thresholds


def document_halves(docs: Iterable[str]) -> dict[str, int]:
    """Each document's half (0 or 1): sorted by a hash of its id, alternating, so the halves are as even as
    they can be and do not depend on the order of the file."""
    ordered = sorted(set(docs), key=lambda d: hashlib.sha256(d.encode()).hexdigest())
    return {doc: k % 2 for k, doc in enumerate(ordered)}


def held_out_accuracy(scores: list[float], labels: list[float], docs: list[str]) -> float:
    """Balanced accuracy of "score >= t", t fitted on the other half of the documents (2 folds, pooled)."""
    fold, thresholds = fold_thresholds(scores, labels, docs)
    predicted = [s >= thresholds[fold[doc]] for s, doc in zip(scores, docs)]
    return metrics.balanced_accuracy(predicted, labels)
