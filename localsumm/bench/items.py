"""What `bench quality` measures and plots: each scored item, and the predictors compared with its labels.

Its own module so that ``quality`` (the figures) and ``plots`` (the PNGs) both read it and neither imports the
other. A predictor is data: its name, how it reads an item, and its kind; the figures subtract each baseline
from localsumm's own output by kind, never by the wording of a name.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..runs.results import ResultLine
from ..text import tokens


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


def bigram_overlap(summary: str, source: str, *, split_punctuation: bool = False) -> float:
    """Share of the summary's word bigrams found in the source: the lexical baseline for alignment. A CJK
    character counts as a word (those scripts have no spaces), so the baselines mean the same there.

    ``split_punctuation``: a word is a run of letters and digits, so a tokenised summary ("london , after") and
    a raw source ("London, after") share their bigrams. SummEval's summaries are tokenised and its sources are
    not, and whole tokens there miss every bigram beside a comma (``bench systems`` splits; ``bench quality``
    keeps the definition its published figures use)."""

    def bigrams(text: str) -> set[tuple[str, str]]:
        if split_punctuation:
            words = [w for token in tokens(text) for w in re.findall(r"\w+", token)]
        else:
            words = [w for w in tokens(text) if any(c.isalnum() for c in w)]
        return set(zip(words, words[1:]))

    mine = bigrams(summary)
    return len(mine & bigrams(source)) / len(mine) if mine else 0.0


def reference_unigram_recall(summary: str, reference: str) -> float:
    """ROUGE-1 recall of ``summary`` against ``reference``: the share of the reference's words (lowercased, counted,
    letters and digits only, no stemming) that the summary repeats. A label-side baseline: it reads the reference
    that the content-recall labels were annotated from."""

    def counts(text: str) -> Counter[str]:
        return Counter(w for token in tokens(text.lower()) for w in re.findall(r"\w+", token))

    wanted = counts(reference)
    total = sum(wanted.values())
    return sum((wanted & counts(summary)).values()) / total if total else 0.0


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


PredictorKind = Literal["localsumm", "baseline", "diagnostic"]


@dataclass(frozen=True)
class Predictor:
    """Something compared with a human label: one of localsumm's outputs, a trivial baseline, or a diagnostic
    (measured beside them, never subtracted from)."""

    name: str
    """As the figures, the table and the plots label it."""
    read: Callable[[Item], float]
    kind: PredictorKind

    def values(self, items: list[Item]) -> list[float]:
        return [self.read(i) for i in items]


BIGRAM_OVERLAP = Predictor("baseline: bigram overlap", lambda i: i.bigram_overlap, "baseline")
SUMMARY_LENGTH = Predictor("baseline: summary length", lambda i: i.length, "baseline")
BASELINES = (BIGRAM_OVERLAP, SUMMARY_LENGTH)
"""What a scorer should beat, in the order the figures list them."""
WEAKEST_CLAIM = Predictor("weakest claim probability", lambda i: i.weakest_claim, "localsumm")
