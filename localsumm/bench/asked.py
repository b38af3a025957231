"""`localsumm bench asked`: how many of a reference's facts a source's question set asks about.

Question selection measured on its own: coverage can only reward a summary for a fact it asks, so a fact no
question touches is lost before any verdict. For each source of a results file, each fact of the reference
(REALSumm's SCUs, RoSE's ACUs: a field of the records) is matched against every question and key fact coverage
asked of that source, lexically:

- a fact's content words (``text.content_words``) are weighted by how rare they are among that source's facts
  and questions (inverse document frequency), so that the names every fact of a news story repeats ("Bayern
  Munich") count for little and the words that make the fact this fact ("semi-finals", "7 - 4") for much;
- the fact is **asked** when one question holds at least ``ASKED`` of its weight.

A lexical rule, not a judge: it says whether a question is about the fact's particulars, not whether its answer
decides the fact. It was checked by hand on a sample (RESULTS); ``--json`` lists every fact with its closest
question and share, to check more.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from ..compare.stats import bootstrap_interval
from ..errors import InputError
from ..runs.questions import field_value
from ..runs.results import read_results
from ..text import content_words

ASKED = 0.5
"""A fact is asked when one question holds this share of its weighted content words. Set before any figure
against a label was read, as the middle of the range (a question that repeats most of a fact's particulars)."""


@dataclass(frozen=True)
class FactMatch:
    source: str
    """The source's sha256 (the results file's ``source_sha256``)."""
    fact: str
    question: str | None
    """The closest question or key fact asked of the source (None if none shares a word)."""
    share: float
    by_questions: float
    """The share the closest of the judge's questions holds (its key facts left out)."""
    by_key_facts: float

    @property
    def asked(self) -> bool:
        return self.share >= ASKED


@dataclass(frozen=True)
class AskedReport:
    results: str
    field: str
    sources: int
    facts: int
    asked: float
    """The mean over sources of the share of their facts asked."""
    interval: tuple[float, float] | None
    """95%, sources resampled."""
    by_questions: float
    """The same, counting only the judge's questions (not its key facts)."""
    by_key_facts: float
    questions_per_source: float
    matches: list[FactMatch]

    def markdown(self) -> str:
        interval = "" if self.interval is None else f" [{self.interval[0]:.3f}, {self.interval[1]:.3f}]"
        return (
            f"{self.results}: {self.facts} facts ({self.field}) of {self.sources} sources, "
            f"{self.questions_per_source:.1f} questions and key facts asked per source.\n\n"
            "| facts asked (mean share per source, 95% CI) | by the questions alone | by the key facts alone |\n"
            "|---:|---:|---:|\n"
            f"| {self.asked:.3f}{interval} | {self.by_questions:.3f} | {self.by_key_facts:.3f} |\n\n"
            f"A fact is asked when one question holds {ASKED:g} of its content words, each weighted by its rarity "
            "among the source's facts and questions.\n"
        )

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, ensure_ascii=False)


def weights(texts: list[str]) -> dict[str, float]:
    """Each content word's inverse document frequency over ``texts`` (smoothed, so that none is 0)."""
    frequency = Counter(word for text in texts for word in content_words(text))
    n = len(texts)
    return {word: math.log((1 + n) / (1 + df)) + 1 for word, df in frequency.items()}


def closest(fact: str, asked: list[str], weight: dict[str, float]) -> tuple[int | None, float]:
    """The index of the question holding most of ``fact``'s weight, and that share (None, 0 if none)."""
    words = content_words(fact)
    total = sum(weight.get(w, 1.0) for w in words)
    best, share = None, 0.0
    for k, question in enumerate(asked):
        held = sum(weight.get(w, 1.0) for w in words & content_words(question)) / total if total else 0.0
        if held > share:
            best, share = k, held
    return best, share


def source_matches(source: str, facts: list[str], questions: list[str], key_facts: list[str]) -> list[FactMatch]:
    """Every fact against the questions and the key facts asked of one source."""
    asked = questions + key_facts
    weight = weights(facts + asked)
    matches = []
    for fact in facts:
        k, share = closest(fact, asked, weight)
        by_questions, by_key_facts = closest(fact, questions, weight)[1], closest(fact, key_facts, weight)[1]
        matches.append(FactMatch(source, fact, None if k is None else asked[k], share, by_questions, by_key_facts))
    return matches


def asked_report(results: Path, field: str) -> AskedReport:
    """Each source's facts at ``field`` (a dotted path in the records) against what coverage asked of it."""
    seen: dict[str, list[FactMatch]] = {}
    sizes = []
    for line in read_results(results):
        result, source = line.result, line.source_sha256
        if result is None or source is None or source in seen:
            continue
        facts = field_value(line.fields, field)
        if not isinstance(facts, list) or not all(isinstance(f, str) for f in facts):
            raise InputError(f"{results}: line {line.number} has no list of facts at {field!r}")
        # The coverage verdicts hold the questions' verdicts, then the key facts' (as questions or as statements).
        asked = [v.question for v in result.analyze_step_result.coverage]
        split = len(result.preprocess_step_result.questions)
        seen[source] = source_matches(source, facts, asked[:split], asked[split:])
        sizes.append(len(asked))
    if not seen:
        raise InputError(f"{results}: no scored line to read question sets from")

    def share(held: Callable[[FactMatch], float]) -> list[float]:
        return [statistics.fmean(held(m) >= ASKED for m in ms) if ms else 0.0 for ms in seen.values()]

    shares = share(lambda m: m.share)
    return AskedReport(
        str(results),
        field,
        len(seen),
        sum(len(m) for m in seen.values()),
        statistics.fmean(shares),
        bootstrap_interval(shares),
        statistics.fmean(share(lambda m: m.by_questions)),
        statistics.fmean(share(lambda m: m.by_key_facts)),
        statistics.fmean(sizes),
        [m for matches in seen.values() for m in matches],
    )
