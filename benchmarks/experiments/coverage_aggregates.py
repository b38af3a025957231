"""Coverage recomputed from stored verdicts: question importance and the question's content in the summary.

    .venv/bin/python benchmarks/experiments/coverage_aggregates.py RESULTS.jsonl... [--judge] [--ensemble] [--headline] [--lead]

Reads `bench quality` results files (SummEval, REALSumm, RoSE: any with a
coverage label). Without flags it asks nothing of a judge: every candidate is
arithmetic on the coverage verdicts' probabilities, the questions, the summary
and the source; each flag adds what the default judge answers about them.

Per question ``q`` of an item:

- ``p``: the judge's probability that the summary answers ``q`` "yes" (stored);
- ``m``: the share of ``q``'s content words the summary contains (a word matches
  a summary word with the same first five letters: "reported" ~ "report");
- ``pos``: where in the source ``q``'s content sits (the position, 0..1, of the
  source sentence sharing most content words with it);
- ``rep``: how often the source repeats ``q``'s content (mean, over its content
  words, of the share of source sentences that contain the word);
- with ``--judge`` (the default judge, asked in the source context, once per
  question of a source; stored in ``benchmarks/results/``, so a rerun asks
  nothing): ``ans``, the question check's probability that the source answers
  ``q`` "yes", and ``imp``, the probability that a two- or three-sentence
  summary of the source would state what ``q`` asks (``IMPORTANCE_TASK``);
- with ``--ensemble`` (the default judge, in the summary context, stored the
  same way): ``p2``, the probability that the summary *mentions* what ``q``
  asks about (``MENTION_TASK``, more lenient than the scorer's "answer yes");
- with ``--headline`` (the default judge writes one headline per source, in the
  source context, stored the same way): ``h``, the share of ``q``'s content
  words the headline contains: what a headline would keep;
- with ``--lead`` (the default judge, the scorer's own coverage prompt, stored the
  same way): ``pl``, the probability that the source's first three sentences
  (its lead, as a pseudo-summary) answer ``q`` "yes". Used two ways: as an
  importance weight (a news lead states what matters), and to put each source's
  coverage on a common level, dividing by the lead's own coverage (a source
  whose questions are hard for every summary no longer looks worse covered).

Candidates, each a per-item coverage value: the scorer's share of ``p >= 0.5``;
the evidence ``e = (1 - beta - delta) p + beta m + delta p2`` as a share of
``e >= 0.5`` or as a mean; each weighted by ``exp(-lam pos)`` (the lead matters
most) or by ``rep ** gamma``, ``ans ** gamma``, ``imp ** gamma``, ``pl ** gamma``
or ``1 + kappa h``, or only the questions with ``imp`` at or above a cut; and
the share over the lead's share. Discipline: every dataset's documents are split
in two halves by a hash of the document id; a family's parameters are fitted on one half of
every dataset together (the mean over datasets of pooled and per-document
Pearson with the coverage label), then reported on the other half, and the
halves swapped. The baselines and the scorer's own coverage are reported on the
same held-out items, with a paired bootstrap of the change (documents
resampled, ``--resamples`` draws, 2,000 unless told).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Callable, Iterable

import numpy as np
from pydantic import BaseModel, ConfigDict, StringConstraints

from localsumm.bench import metrics
from localsumm.bench.quality import bigram_overlap
from localsumm.files import read_jsonl
from localsumm.protocol import Judge, yes_probabilities
from localsumm.runs.results import read_results
from localsumm.summarization import prompts
from localsumm.text import content_words, sentences, tokens

from common import RESULTS, document_halves

THRESHOLD = 0.5

# Worded as the question check is, in the same source context (the prefix is shared).
IMPORTANCE_TASK = """\
Would a summary of the document in two or three sentences state the information needed to answer the following question? Answer with one word: yes or no.

Question:"""

MENTION_TASK = """\
Does the summary mention the facts that the following question asks about? Answer with one word: yes or no.

Question:"""

HEADLINE_TASK = """\
Write the headline of this document: one sentence of at most 15 words that states its most important news.
Answer in JSON, for example: {"headline": "City council approves new bridge over the Elm River"}"""


class Headline(BaseModel):
    model_config = ConfigDict(extra="forbid")
    headline: Annotated[str, StringConstraints(min_length=10, max_length=200)]


def context(system: str, tag: str, text: str, *segments: str) -> prompts.Messages:
    """A prompt laid out as the scorer's are: the fenced text first, so verdicts on it share a prefix."""
    return [{"role": "system", "content": system}, {"role": "user", "content": [prompts.fence(tag, text) + "\n\n", *segments]}]


Ask = Callable[[Judge, str, list[str]], list[Any]]


def stored_answers(name: str, wanted: Iterable[tuple[str, list[str]]], ask: Ask) -> dict[tuple[str, str], Any]:
    """One answer per (text, question): read from ``benchmarks/results/coverage_NAME.jsonl``, and what it
    lacks asked of the default judge with ``ask(judge, text, questions)`` and appended as it comes."""
    path = RESULTS / f"coverage_{name}.jsonl"

    def key(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    wanted = list(wanted)
    stored = {(row["text"], row["question"]): row["value"] for row in read_jsonl(path)} if path.exists() else {}
    missing: dict[str, list[str]] = {}
    for text, qs in wanted:
        for q in qs:
            if (key(text), q) not in stored and q not in missing.setdefault(text, []):
                missing[text].append(q)
    todo = [(text, qs) for text, qs in missing.items() if qs]
    if todo:
        from localsumm.backends import open_judge

        judge = open_judge()
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as out:
            for n, (text, qs) in enumerate(todo, 1):
                for q, value in zip(qs, ask(judge, text, qs)):
                    stored[(key(text), q)] = value
                    out.write(json.dumps({"text": key(text), "question": q, "value": value}, ensure_ascii=False) + "\n")
                if n % 12 == 0 or n == len(todo):
                    print(f"{name}: asked about {n} of {len(todo)} texts", flush=True)
    return {(text, q): stored[(key(text), q)] for text, qs in wanted for q in qs}


def probabilities(judge: Judge, step: str, batch: list[prompts.Messages]) -> list[float]:
    return [round(p, 4) for p, _ in yes_probabilities(judge, step, batch)]


def ask_source(judge: Judge, source: str, qs: list[str]) -> list[list[float]]:
    """(ans, imp) per question: the question check's verdict and the importance verdict."""
    batch = [prompts.answerable_messages(source, q) for q in qs]
    batch += [context(prompts.SOURCE_SYSTEM, "document", source, IMPORTANCE_TASK, " " + q) for q in qs]
    ps = probabilities(judge, "answerable", batch)
    return [list(pair) for pair in zip(ps[: len(qs)], ps[len(qs) :])]


def ask_mention(judge: Judge, summary: str, qs: list[str]) -> list[float]:
    return probabilities(judge, "coverage", [context(prompts.SUMMARY_SYSTEM, "summary", summary, MENTION_TASK, " " + q) for q in qs])


def ask_lead(judge: Judge, source: str, qs: list[str]) -> list[float]:
    """The scorer's coverage verdict, with the source's first three sentences as the summary."""
    lead = " ".join(sentences(source)[:3])
    return probabilities(judge, "coverage", [prompts.coverage_messages(lead, q) for q in qs])


def ask_headline(judge: Judge, source: str, qs: list[str]) -> list[str]:
    value, _ = judge.generate("questions", context(prompts.SOURCE_SYSTEM, "document", source, HEADLINE_TASK), Headline, 60)
    return [value.headline]  # type: ignore[attr-defined]


def stems(words: Iterable[str]) -> set[str]:
    return {w[:5] if re.fullmatch(r"[a-z]+", w) else w for w in words}


@dataclass(frozen=True)
class Question:
    p: float
    m: float
    pos: float
    rep: float
    ans: float = 1.0
    imp: float = 1.0
    p2: float = 0.0
    h: float = 0.0
    pl: float = 1.0


@dataclass(frozen=True)
class Item:
    dataset: str
    doc: str
    label: float
    length: float
    bigram: float
    coverage: float
    questions: tuple[Question, ...]


def question_features(
    question: str, summary_stems: set[str], source_sentences: list[set[str]], headline_stems: set[str]
) -> tuple[float, float, float, float]:
    """(m, pos, rep, h) of one question."""
    words = stems(content_words(question))
    if not words:
        return 0.0, 0.0, 0.0, 0.0
    m = len(words & summary_stems) / len(words)
    overlaps = [len(words & s) for s in source_sentences]
    best = int(np.argmax(overlaps)) if overlaps else 0
    pos = best / max(len(source_sentences) - 1, 1)
    rep = float(np.mean([sum(1 for s in source_sentences if w in s) / len(source_sentences) for w in words]))
    return m, pos, rep, len(words & headline_stems) / len(words)


def load(path: Path, judge: bool, ensemble: bool, headline: bool, lead: bool) -> list[Item]:
    dataset = path.name.split(".")[0]
    items = []
    source_cache: dict[str, list[set[str]]] = {}
    lines = [line for line in read_results(path) if line.result is not None and line.label_coverage is not None]
    sources = [(line.texts()[0], [v.question for v in line.result.analyze_step_result.coverage]) for line in lines]
    summaries = [(line.texts()[1], [v.question for v in line.result.analyze_step_result.coverage]) for line in lines]
    asked = stored_answers("source_verdicts", sources, ask_source) if judge else {}
    mentions = stored_answers("mentions", summaries, ask_mention) if ensemble else {}
    leads = stored_answers("lead", sources, ask_lead) if lead else {}
    heads = stored_answers("headlines", [(source, [""]) for source, _ in sources], ask_headline) if headline else {}
    for line in lines:
        result = line.result
        source, summary = line.texts()
        if source not in source_cache:
            source_cache[source] = [stems(content_words(s)) for s in sentences(source)] or [set()]
        summary_stems = stems(content_words(summary))
        headline_stems = stems(content_words(heads[(source, "")])) if heads else set()
        questions = []
        for verdict in result.analyze_step_result.coverage:
            m, pos, rep, h = question_features(verdict.question, summary_stems, source_cache[source], headline_stems)
            ans, imp = asked.get((source, verdict.question), (1.0, 1.0))
            p2 = mentions.get((summary, verdict.question), 0.0)
            pl = leads.get((source, verdict.question), 1.0)
            questions.append(Question(verdict.probability or 0.0, m, pos, rep, ans, imp, p2, h, pl))
        items.append(Item(
            dataset, line.doc, float(line.label_coverage), float(len(tokens(summary))), bigram_overlap(summary, source),
            result.coverage_score, tuple(questions),
        ))
    return items


# -- candidates: (name, parameter grid, per-item coverage from the questions and the parameters) ----------

Aggregate = Callable[[tuple[Question, ...], dict[str, float]], float]


def evidence(q: Question, beta: float, delta: float = 0.0) -> float:
    return (1 - beta - delta) * q.p + beta * q.m + delta * q.p2


def weighted(values: list[float], weights: list[float]) -> float:
    total = sum(weights)
    return sum(v * w for v, w in zip(values, weights)) / total if total else 0.0


def weight(q: Question, params: dict[str, float]) -> float:
    by = {"rep": q.rep, "ans": q.ans, "imp": q.imp, "pl": q.pl}[params.get("by", "rep")]  # type: ignore[index]
    kept = q.imp >= params.get("cut", 0.0)
    headline = 1 + params.get("kappa", 0.0) * q.h
    return math.exp(-params.get("lam", 0.0) * q.pos) * by ** params.get("gamma", 0.0) * headline * kept


def keep_one(qs: tuple[Question, ...], params: dict[str, float]) -> tuple[Question, ...]:
    """A cut on ``imp`` keeps at least the most important question."""
    cut = params.get("cut", 0.0)
    if not qs or any(q.imp >= cut for q in qs):
        return qs
    best = max(qs, key=lambda q: q.imp)
    return tuple(q if q is not best else replace(q, imp=cut) for q in qs)


def share(qs: tuple[Question, ...], params: dict[str, float]) -> float:
    qs = keep_one(qs, params)
    e = [evidence(q, params.get("beta", 0.0), params.get("delta", 0.0)) for q in qs]
    return weighted([float(x >= THRESHOLD) for x in e], [weight(q, params) for q in qs])


def mean(qs: tuple[Question, ...], params: dict[str, float]) -> float:
    qs = keep_one(qs, params)
    return weighted([evidence(q, params.get("beta", 0.0), params.get("delta", 0.0)) for q in qs], [weight(q, params) for q in qs])


BETAS = [round(0.1 * i, 1) for i in range(11)]
LAMS = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0]
GAMMAS = [0.0, 0.5, 1.0, 2.0]

CANDIDATES: list[tuple[str, Aggregate, list[dict[str, float]]]] = [
    ("share of p >= 0.5 (the scorer)", share, [{}]),
    ("mean p", mean, [{}]),
    ("share of e >= 0.5, e = (1-beta) p + beta m", share, [{"beta": b} for b in BETAS]),
    ("mean e", mean, [{"beta": b} for b in BETAS]),
    ("share, weighted by exp(-lam pos)", share, [{"lam": lam} for lam in LAMS]),
    ("share, weighted by rep^gamma", share, [{"gamma": g} for g in GAMMAS]),
    ("share of e >= 0.5, weighted by exp(-lam pos)", share, [{"beta": b, "lam": lam} for b, lam in itertools.product(BETAS, LAMS)]),
    ("mean e, weighted by exp(-lam pos)", mean, [{"beta": b, "lam": lam} for b, lam in itertools.product(BETAS, LAMS)]),
    ("mean e, weighted by rep^gamma", mean, [{"beta": b, "gamma": g} for b, g in itertools.product(BETAS, GAMMAS)]),
]
ENSEMBLE: list[tuple[str, Aggregate, list[dict[str, float]]]] = [
    ("share of (p + p2) / 2 >= 0.5", share, [{"delta": 0.5}]),
    ("mean (p + p2) / 2", mean, [{"delta": 0.5}]),
    ("share of (1-delta) p + delta p2 >= 0.5", share, [{"delta": d} for d in BETAS]),
    ("mean (1-beta-delta) p + beta m + delta p2", mean,
     [{"beta": b, "delta": d} for b, d in itertools.product(BETAS, BETAS) if b + d <= 1.0]),
]
KAPPAS = [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
HEADLINE: list[tuple[str, Aggregate, list[dict[str, float]]]] = [
    ("share, weighted by 1 + kappa h", share, [{"kappa": k} for k in KAPPAS]),
    ("mean e, weighted by 1 + kappa h", mean, [{"beta": b, "kappa": k} for b, k in itertools.product(BETAS, KAPPAS)]),
]


def lead_relative(qs: tuple[Question, ...], params: dict[str, float]) -> float:
    """The share answered, over the share the source's lead answers (floored at ``floor``), capped at 1."""
    if not qs:
        return 0.0
    mine = sum(q.p >= THRESHOLD for q in qs) / len(qs)
    lead = sum(q.pl >= THRESHOLD for q in qs) / len(qs)
    return min(1.0, mine / max(lead, params.get("floor", 0.1)))


LEAD: list[tuple[str, Aggregate, list[dict[str, float]]]] = [
    ("share, weighted by pl^gamma", share, [{"by": "pl", "gamma": g} for g in GAMMAS]),  # type: ignore[dict-item]
    ("share / the lead's share (floored)", lead_relative, [{"floor": f} for f in (0.1, 0.2, 0.3, 0.5, 1.0)]),
]
CUTS = [0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
JUDGED: list[tuple[str, Aggregate, list[dict[str, float]]]] = [
    ("share, weighted by ans^gamma", share, [{"by": "ans", "gamma": g} for g in GAMMAS]),  # type: ignore[dict-item]
    ("share, weighted by imp^gamma", share, [{"by": "imp", "gamma": g} for g in GAMMAS]),  # type: ignore[dict-item]
    ("share of questions with imp >= cut", share, [{"cut": c} for c in CUTS]),
    ("mean e, questions with imp >= cut", mean, [{"beta": b, "cut": c} for b, c in itertools.product(BETAS, CUTS)]),
]


# -- measures ---------------------------------------------------------------------------------------------

def halves(items: list[Item]) -> dict[int, list[Item]]:
    """Each dataset's documents in two halves (``document_halves``)."""
    split: dict[int, list[Item]] = {0: [], 1: []}
    for dataset in sorted({i.dataset for i in items}):
        mine = [i for i in items if i.dataset == dataset]
        side = document_halves(i.doc for i in mine)
        for i in mine:
            split[side[i.doc]].append(i)
    return split


def figures(values: np.ndarray, labels: np.ndarray, docs: list[str]) -> tuple[float, float]:
    pooled = metrics.pearson(values, labels)
    per_doc = metrics.per_document(metrics.pearson, values.tolist(), labels.tolist(), docs)
    return (0.0 if math.isnan(pooled) else pooled), (0.0 if math.isnan(per_doc) else per_doc)


def objective(items: list[Item], fn: Aggregate, params: dict[str, float]) -> float:
    total = []
    for dataset in sorted({i.dataset for i in items}):
        subset = [i for i in items if i.dataset == dataset]
        values = np.array([fn(i.questions, params) for i in subset])
        total.extend(figures(values, np.array([i.label for i in subset]), [i.doc for i in subset]))
    return float(np.mean(total))


def paired_change(
    subset: list[Item], new: np.ndarray, old: np.ndarray, per_doc: bool, resamples: int
) -> tuple[float, float, float]:
    labels = np.array([i.label for i in subset])
    docs = np.array([i.doc for i in subset])

    def stat(idx: np.ndarray) -> float:
        def one(x: np.ndarray) -> float:
            if per_doc:
                return metrics.per_document(metrics.pearson, x[idx].tolist(), labels[idx].tolist(), docs[idx].tolist())
            return metrics.pearson(x[idx], labels[idx])
        return one(new) - one(old)

    value = stat(np.arange(len(subset)))
    if not resamples:
        return value, math.nan, math.nan
    low, high = metrics.bootstrap_ci(stat, len(subset), groups=docs.tolist(), resamples=resamples)
    return value, low, high


@dataclass(frozen=True)
class Comparison:
    """A candidate against the scorer's own coverage on the same items."""

    candidate: tuple[float, float]
    """(pooled, per-document) Pearson with the coverage label."""
    scorer: tuple[float, float]
    pooled_change: tuple[float, float, float]
    """(change, low, high): paired, documents resampled."""
    per_doc_change: tuple[float, float, float]


def compare(subset: list[Item], fn: Aggregate, params: dict[str, float], resamples: int) -> Comparison:
    labels = np.array([i.label for i in subset])
    docs = [i.doc for i in subset]
    new = np.array([fn(i.questions, params) for i in subset])
    old = np.array([i.coverage for i in subset])
    return Comparison(
        figures(new, labels, docs), figures(old, labels, docs),
        paired_change(subset, new, old, False, resamples), paired_change(subset, new, old, True, resamples),
    )


def report(items: list[Item], resamples: int, judged: bool, ensemble: bool, headline: bool, lead: bool) -> None:
    split = halves(items)
    datasets = sorted({i.dataset for i in items})
    print(f"{len(items)} items; documents per half: " + ", ".join(
        f"{d} {len({i.doc for i in split[0] if i.dataset == d})}/{len({i.doc for i in split[1] if i.dataset == d})}" for d in datasets))
    # Pooled figures mix two things: ranking within a document, and each document's level. Here the level alone.
    for dataset in datasets:
        by_doc: dict[str, list[Item]] = {}
        for i in items:
            if i.dataset == dataset:
                by_doc.setdefault(i.doc, []).append(i)
        label = [np.mean([i.label for i in v]) for v in by_doc.values()]
        levels = {name: [np.mean([get(i) for i in v]) for v in by_doc.values()] for name, get in (
            ("coverage", lambda i: i.coverage), ("length", lambda i: i.length), ("bigram", lambda i: i.bigram))}
        print(f"{dataset}: per-document means, Pearson with the label's mean over {len(by_doc)} documents: "
              + ", ".join(f"{name} {metrics.pearson(v, label):+.2f}" for name, v in levels.items()))
    if judged:
        every = [q for i in items for q in i.questions]
        print(f"imp: mean {np.mean([q.imp for q in every]):.2f}, share >= 0.5 {np.mean([q.imp >= 0.5 for q in every]):.2f}; "
              f"ans: mean {np.mean([q.ans for q in every]):.2f}")
    if headline:
        every = [q for i in items for q in i.questions]
        print(f"h: mean {np.mean([q.h for q in every]):.2f}, share > 0 {np.mean([q.h > 0 for q in every]):.2f}")
    extra = (JUDGED if judged else []) + (ENSEMBLE if ensemble else []) + (HEADLINE if headline else []) + (LEAD if lead else [])
    for name, fn, grid in CANDIDATES + extra:
        print(f"\n## {name}")
        for fit, held in ((0, 1), (1, 0)):
            best = max(grid, key=lambda params: objective(split[fit], fn, params))
            print(f"fit on half {fit}: {best or 'no parameter'} (fit objective {objective(split[fit], fn, best):.3f}); "
                  f"held-out half {held}:")
            for dataset in datasets:
                subset = [i for i in split[held] if i.dataset == dataset]
                labels = np.array([i.label for i in subset])
                docs = [i.doc for i in subset]
                c = compare(subset, fn, best, resamples)
                row = {
                    "candidate": c.candidate,
                    "scorer": c.scorer,
                    "length": figures(np.array([i.length for i in subset]), labels, docs),
                    "bigram": figures(np.array([i.bigram for i in subset]), labels, docs),
                }
                pooled, per_doc = c.pooled_change, c.per_doc_change
                print(f"  {dataset:9} ({len(set(docs))} docs) pooled / per-document Pearson: "
                      + "  ".join(f"{k} {a:+.3f}/{b:+.3f}" for k, (a, b) in row.items())
                      + f"  change pooled {pooled[0]:+.3f} [{pooled[1]:+.3f}, {pooled[2]:+.3f}]"
                      + f" per-doc {per_doc[0]:+.3f} [{per_doc[1]:+.3f}, {per_doc[2]:+.3f}]")


# Candidates with no parameter to fit: measured on every document, with intervals.
A_PRIORI: list[tuple[str, Aggregate, dict[str, float], str]] = [
    ("mean p", mean, {}, ""),
    ("mean (p + m) / 2", mean, {"beta": 0.5}, ""),
    ("share of (p + p2) / 2 >= 0.5", share, {"delta": 0.5}, "p2"),
    ("mean (p + p2) / 2", mean, {"delta": 0.5}, "p2"),
]


def report_a_priori(items: list[Item], resamples: int, ensemble: bool) -> None:
    print("\n## a-priori candidates on all documents (change against the scorer, paired, documents resampled)")
    for name, fn, params, needs in A_PRIORI:
        if needs == "p2" and not ensemble:
            continue
        print(f"{name}:")
        for dataset in sorted({i.dataset for i in items}):
            subset = [i for i in items if i.dataset == dataset]
            comparison = compare(subset, fn, params, resamples)
            (a, b), (c, d) = comparison.candidate, comparison.scorer
            pooled, per_doc = comparison.pooled_change, comparison.per_doc_change
            print(f"  {dataset:9} ({len({i.doc for i in subset})} docs) pooled {a:+.3f} (scorer {c:+.3f}; change {pooled[0]:+.3f} "
                  f"[{pooled[1]:+.3f}, {pooled[2]:+.3f}])  per document {b:+.3f} (scorer {d:+.3f}; change "
                  f"{per_doc[0]:+.3f} [{per_doc[1]:+.3f}, {per_doc[2]:+.3f}])")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap draws of each change (0: none)")
    parser.add_argument("--judge", action="store_true", help="also ask the default judge for ans and imp per question")
    parser.add_argument("--ensemble", action="store_true", help="also ask the default judge for p2 per question")
    parser.add_argument("--headline", action="store_true", help="also ask the default judge for a headline per source")
    parser.add_argument("--lead", action="store_true", help="also ask the default judge the questions of the source's lead")
    args = parser.parse_args()
    items = [item for path in args.results for item in load(path, args.judge, args.ensemble, args.headline, args.lead)]
    report(items, args.resamples, args.judge, args.ensemble, args.headline, args.lead)
    report_a_priori(items, args.resamples, args.ensemble)


if __name__ == "__main__":
    main()
