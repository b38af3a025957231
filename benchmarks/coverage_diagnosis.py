"""Why do copying summarizers win coverage? Length, position and salience on the systems set (issue 47).

Lab script, not product: reads one ``localsumm eval`` results file of
``benchmarks/data/summeval.systems.dev.jsonl`` (every system asked one question file) and prints

1. per system: the experts' relevance, mean coverage, mean coverage-verdict probability, length, bigram overlap;
2. Kendall tau over the 16 systems of coverage (and of the mean verdict probability) with relevance,
   bigram overlap and length;
3. the extractive - abstractive coverage gap, with document fixed effects, alone and with length and
   bigram overlap beside it: how much of the gap do they account for; and what 10 more words of summary add to
   coverage and to relevance within a document;
4. position: the share of questions whose evidence sentence is in the source's lead (first 3
   sentences), and each group's answer rate on lead and later questions;
5. salience: per question, whether the 11 reference summaries state its content words (a lexical
   proxy: at least half of the question's content words in one reference), and each group's answer
   rate on salient and other questions;
6. power: tau(coverage, relevance) - tau(bigram, relevance), paired over 1,000 resamples of the documents
   (seed 0): how large a difference these 12 documents can tell apart;
7. where the copying association lives: coverage counted on the lead's questions alone, on the
   others alone (by each verdict's evidence pointer), and on all with the lead weighted to its share of
   the source's sentences; tau over systems with relevance, bigram overlap and length (exploratory: not
   a candidate, no halves).
8. what any recall can do here: against the experts' 12- and 100-document means, tau over systems of coverage, of
   ROUGE-1/2 recall, precision and F1 against the 11 reference summaries (rouge-score, stemmed; ``pip install -e
   '.[lab]'``), of bigram overlap with the source, of redundancy and of the experts' own ratings; each one's tau
   with bigram overlap and length (the issue's dev test); and per summary, Spearman with its relevance within each
   document (exploratory).
9. given a second results file (SummEval dev, 12 other documents, 8 systems each): coverage's tau over the systems,
   each system's effect with one intercept per document, on all 24 documents, with the experts' relevance, bigram
   overlap and length.

    python benchmarks/coverage_diagnosis.py systems.jsonl [summeval-dev-results.jsonl]
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from localsumm.bench.items import bigram_overlap
from localsumm.bench.metrics import bootstrap_ci, document_values, kendall, per_document, spearman
from localsumm.bench.systems import read_expert_means
from localsumm.summarization.grounding import source_sentences

EXPERTS = Path(__file__).parent / "data" / "summeval.systems.experts100.json"
EXTRACTIVE = {"M0", "M1", "M2", "M5"}
LEAD = 3
STOP = set(
    "a an the of to in on at for by with from and or but is was were are be been did does do has have had "
    "will would can could that this these those it its he she they his her their who what when where how "
    "as after before over into about than then there any not no yes".split()
)


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def content(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOP and len(w) > 2}


def load(path: str) -> list[dict]:
    lines = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    return [r for r in lines if r["localsumm"]["status"] == "scored" and r["localsumm"]["scorable"]]


def verdicts(r: dict) -> list[dict]:
    return r["localsumm"]["result"]["analyze_step_result"]["coverage"]


def item_table(rows: list[dict]) -> dict[str, np.ndarray]:
    t: dict[str, list] = defaultdict(list)
    for r in rows:
        v = verdicts(r)
        t["system"].append(r["meta"]["system"])
        t["doc"].append(r["meta"]["doc_id"])
        t["relevance"].append(r["label_coverage"])  # the 1-5 mean mapped to 0..1, as bench systems reads it
        t["coverage"].append(r["localsumm"]["coverage_score"])
        t["probability"].append(float(np.mean([x["probability"] for x in v])) if v else np.nan)
        t["length"].append(len(words(r["summary"])))
        t["bigram"].append(bigram_overlap(r["summary"], r["source"], split_punctuation=True))
    return {k: np.array(v) for k, v in t.items()}


def system_means(t: dict[str, np.ndarray]) -> tuple[list[str], dict[str, np.ndarray]]:
    systems = sorted(set(t["system"]), key=lambda s: int(s[1:]))
    keys = ["relevance", "coverage", "probability", "length", "bigram"]
    return systems, {k: np.array([t[k][t["system"] == s].mean() for s in systems]) for k in keys}


def fixed_effects_gap(t: dict[str, np.ndarray], covariates: list[str]) -> float:
    """The extractive coefficient of coverage ~ extractive + covariates, with one intercept per document."""
    docs = sorted(set(t["doc"]))
    x = [np.isin(t["system"], list(EXTRACTIVE)).astype(float)]
    x += [(t[c] - t[c].mean()) / t[c].std() for c in covariates]
    x += [(t["doc"] == d).astype(float) for d in docs]
    coef, *_ = np.linalg.lstsq(np.column_stack(x), t["coverage"], rcond=None)
    return float(coef[0])


def per_ten_words(t: dict[str, np.ndarray], y: str) -> float:
    """The slope of ``y`` on summary length, per 10 words, with one intercept per document: within a source."""
    docs = sorted(set(t["doc"]))
    x = np.column_stack([t["length"] / 10] + [(t["doc"] == d).astype(float) for d in docs])
    coef, *_ = np.linalg.lstsq(x, t[y], rcond=None)
    return float(coef[0])


def paired_per_document(
    measure: Callable[[list[float], list[float]], float], a: list[float], b: list[float], labels: list, docs: list[str]
) -> tuple[int, float, float, float, float, float]:
    """Per document, ``measure`` of ``a`` and of ``b`` with the labels: (the documents both can say something of,
    mean of a's, mean of b's, a - b, its 95% interval over 1,000 resamples of those documents, seed 0)."""
    first = dict(document_values(measure, a, labels, docs))
    second = dict(document_values(measure, b, labels, docs))
    names = sorted(set(first) & set(second))
    diff = np.array([first[d] - second[d] for d in names])
    low, high = bootstrap_ci(lambda i: float(diff[i].mean()), len(diff), groups=names)
    mean_a, mean_b = (float(np.mean([v[d] for d in names])) for v in (first, second))
    return len(names), mean_a, mean_b, float(diff.mean()), low, high


def paired_tau_difference(t: dict[str, np.ndarray], a: str, b: str, resamples: int = 1000) -> tuple[float, float]:
    """95% interval of tau(a, relevance) - tau(b, relevance) over the systems, resampling documents (both sides
    on the same draws)."""
    docs = sorted(set(t["doc"]))
    systems = sorted(set(t["system"]))
    cell = {
        k: np.array([[t[k][(t["system"] == s) & (t["doc"] == d)].mean() for d in docs] for s in systems])
        for k in ("relevance", a, b)
    }
    rng = np.random.default_rng(0)
    diffs = []
    for _ in range(resamples):
        d = rng.integers(0, len(docs), len(docs))
        m = {k: v[:, d].mean(axis=1) for k, v in cell.items()}
        diffs.append(kendall(m[a], m["relevance"]) - kendall(m[b], m["relevance"]))
    low, high = np.nanquantile(diffs, [0.025, 0.975])
    return float(low), float(high)


def question_rows(rows: list[dict]) -> list[dict]:
    """One row per (summary, question): its group, the position of its evidence, its salience, answered."""
    out = []
    for r in rows:
        refs = [content(ref) for ref in r["meta"]["reference_summaries"]]
        for v in verdicts(r):
            q = content(v["question"])
            salient = bool(q) and max(len(q & ref) / len(q) for ref in refs) >= 0.5
            out.append(
                {
                    "group": "extractive" if r["meta"]["system"] in EXTRACTIVE else "abstractive",
                    "lead": is_lead(v),
                    "salient": salient,
                    "answered": v["answered"],
                    "probability": v["probability"],
                }
            )
    return out


def is_lead(v: dict) -> bool:
    """Whether a coverage verdict's evidence pointer (the source sentence its question's words match best) is in
    the source's lead."""
    ev = v.get("evidence") or []
    return bool(ev) and ev[0]["index"] < LEAD


def coverage_where(rows: list[dict], keep: Callable[[dict], bool]) -> np.ndarray:
    """Each summary's coverage counted on the questions ``keep`` selects (nan where it selects none)."""
    out = []
    for r in rows:
        kept = [v["answered"] for v in verdicts(r) if keep(v)]
        out.append(np.mean(kept) if kept else np.nan)
    return np.array(out, dtype=float)


def coverage_lead_weighted(rows: list[dict]) -> np.ndarray:
    """Each summary's coverage with its lead's questions weighted down (or up) to the lead's share of the source's
    sentences: what coverage would be if the questions sampled the source evenly by position."""
    out = []
    for r in rows:
        vs = verdicts(r)
        lead = np.array([is_lead(v) for v in vs], dtype=bool)
        spans = len(source_sentences(r["source"]).spans)
        share_q, share_s = lead.mean() if vs else 0.0, min(LEAD, spans) / spans
        w = np.where(lead, share_s / share_q, (1 - share_s) / (1 - share_q)) if 0 < share_q < 1 else np.ones(len(vs))
        out.append(np.average([v["answered"] for v in vs], weights=w) if vs else np.nan)
    return np.array(out, dtype=float)


def reference_scores(rows: list[dict]) -> dict[str, np.ndarray]:
    """ROUGE-1/2 recall, precision and F1 of each summary against its 11 reference summaries (rouge-score, Porter
    stemmer), each the mean over the references."""
    try:
        from rouge_score import rouge_scorer
    except ImportError:
        sys.exit("section 8 needs rouge-score: pip install -e '.[lab]'")
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2"], use_stemmer=True)
    found: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        scores = [scorer.score(ref, r["summary"]) for ref in r["meta"]["reference_summaries"]]
        for n in ("1", "2"):
            for part in ("recall", "precision", "fmeasure"):
                found[f"ROUGE-{n} {part}"].append(float(np.mean([getattr(x[f"rouge{n}"], part) for x in scores])))
    return {k: np.array(v) for k, v in found.items()}


def redundancy(summary: str) -> float:
    """The share of a summary's word bigrams that repeat an earlier one."""
    w = words(summary)
    grams = list(zip(w, w[1:]))
    return 1 - len(set(grams)) / len(grams) if grams else 0.0


def against_experts(
    rows: list[dict],
    t: dict[str, np.ndarray],
    systems: list[str],
    m: dict[str, np.ndarray],
    reference: dict[str, np.ndarray],
) -> None:
    experts = json.loads(EXPERTS.read_text())
    relevance = [experts[s]["relevance"] for s in systems]
    measures = {
        "coverage": t["coverage"],
        **reference,
        "bigram overlap with the source": t["bigram"],
        "redundancy (repeated bigrams)": np.array([redundancy(r["summary"]) for r in rows]),
        "the experts' coherence": np.array([r["meta"]["expert_mean_coherence_1to5"] for r in rows]),
        "the experts' consistency": np.array([r["meta"]["expert_mean_consistency_1to5"] for r in rows]),
    }
    print(
        "\nagainst the experts' relevance: tau over systems with their means over these 12 documents / over 100, and"
        " the dev target's test, tau with bigram overlap / length; then Spearman per document (12, a constant"
        " document counts 0) with each summary's relevance"
    )
    for name, values in measures.items():
        means = np.round([values[t["system"] == s].mean() for s in systems], 9)  # equal means tie, in any order
        taus = [kendall(means, y) for y in (m["relevance"], relevance, m["bigram"], m["length"])]
        within = per_document(spearman, list(values), list(t["relevance"]), list(t["doc"]))
        print(f"  {name}: {taus[0]:.2f} / {taus[1]:.2f}; {taus[2]:.2f} / {taus[3]:.2f}; {within:.3f}")
    for other in ("coherence", "fluency"):
        print(
            f"  the experts' {other}, 100 documents: - / {kendall([experts[s][other] for s in systems], relevance):.2f}"
        )


def system_effects(t: dict[str, np.ndarray], key: str, systems: list[str]) -> np.ndarray:
    """Each system's effect on ``key`` with one intercept per document (least squares): its mean where not every
    system summarised every document."""
    docs = sorted(set(t["doc"]))
    x = [(t["system"] == s).astype(float) for s in systems] + [(t["doc"] == d).astype(float) for d in docs[1:]]
    coef, *_ = np.linalg.lstsq(np.column_stack(x), t[key], rcond=None)
    return coef[: len(systems)]


def more_documents(rows: list[dict], reference: dict[str, np.ndarray], path: str, systems: list[str]) -> None:
    """Section 9: the systems ranked over these documents and another results file's (SummEval dev: 8 systems a
    document), each system's effect with one intercept per document; 95% intervals from 1,000 resamples of the
    documents (seed 0)."""
    other = load(path)
    t = item_table(rows + other)
    t |= {k: np.concatenate([v, more]) for (k, v), more in zip(reference.items(), reference_scores(other).values())}
    hundred = read_expert_means(EXPERTS, systems)["relevance"]

    def tau(measure: str, target: str) -> Callable[[np.ndarray], float]:
        """tau of the systems' effects on ``measure`` and on ``target`` (or the experts' 100-document relevance)
        from the items ``i``: a document drawn twice weighs twice, one intercept serving both copies."""

        def on(i: np.ndarray) -> float:
            part = {key: v[i] for key, v in t.items()}
            y = hundred if target == "100" else system_effects(part, target, systems)
            return kendall(system_effects(part, measure, systems), y)

        return on

    every, docs = np.arange(len(t["doc"])), list(t["doc"])
    print(
        f"\n{len(set(docs))} documents, {len(docs)} summaries: tau over systems (effects with one intercept per"
        " document) with the experts' 100-document relevance / their relevance here; with bigram overlap / length"
    )
    for measure in ("coverage", "ROUGE-1 recall", "ROUGE-1 fmeasure", "bigram", "relevance"):
        cells = []
        for target in ("100", "relevance", "bigram", "length"):
            if target == measure:
                cells.append("-")
                continue
            low, high = bootstrap_ci(tau(measure, target), len(every), groups=docs)
            cells.append(f"{tau(measure, target)(every):.2f} [{low:.2f}, {high:.2f}]")
        print(f"  {measure}: {cells[0]} / {cells[1]}; {cells[2]} / {cells[3]}")


def rate(rows: list[dict], **where: object) -> str:
    sel = [r for r in rows if all(r[k] == v for k, v in where.items())]
    if not sel:
        return "-"
    return (
        f"{np.mean([r['answered'] for r in sel]):.2f} (p {np.mean([r['probability'] for r in sel]):.2f}, n {len(sel)})"
    )


def main(path: str, more: str | None = None) -> None:
    rows = load(path)
    t = item_table(rows)
    systems, m = system_means(t)
    print(f"{path}: {len(rows)} scored items, {len(set(t['doc']))} documents, {len(systems)} systems\n")
    print("| system | kind | relevance | coverage | verdict p | length | bigram |\n|---|---|---:|---:|---:|---:|---:|")
    for i in np.argsort(-m["relevance"]):
        kind = "extractive" if systems[i] in EXTRACTIVE else "abstractive"
        print(
            f"| {systems[i]} | {kind} | {m['relevance'][i]:.2f} | {m['coverage'][i]:.3f} | "
            f"{m['probability'][i]:.3f} | {m['length'][i]:.0f} | {m['bigram'][i]:.2f} |"
        )
    print("\nKendall tau over systems")
    for ours in ("coverage", "probability"):
        for other in ("relevance", "bigram", "length"):
            print(f"  {ours} ~ {other}: {kendall(m[ours], m[other]):.2f}")
    print(f"  relevance ~ bigram: {kendall(m['relevance'], m['bigram']):.2f}")
    print(f"  relevance ~ length: {kendall(m['relevance'], m['length']):.2f}")
    print("\nextractive - abstractive coverage, document fixed effects (covariates standardised)")
    for cov in ([], ["length"], ["bigram"], ["length", "bigram"]):
        print(f"  + {cov or 'nothing'}: {fixed_effects_gap(t, cov):+.3f}")
    slopes = {y: per_ten_words(t, y) for y in ("coverage", "relevance")}
    print(
        "  within a document, per 10 more words: "
        + ", ".join(f"{y} {v:+.3f}" for y, v in slopes.items())
        + f" (the median summary: {np.median(t['length']):.0f} words)"
    )
    q = question_rows(rows)
    print("\nanswer rate (mean verdict probability, n) by group")
    for key in ("lead", "salient"):
        share = np.mean([r[key] for r in q if r["group"] == "extractive"])
        print(f"  share of questions {key}: {share:.2f}")
        for val in (True, False):
            cells = [rate(q, group=g, **{key: val}) for g in ("extractive", "abstractive")]
            print(f"  {key}={val}: extractive {cells[0]}; abstractive {cells[1]}")
    for other in ("bigram", "length"):
        low, high = paired_tau_difference(t, "coverage", other)
        gap = kendall(m["coverage"], m["relevance"]) - kendall(m[other], m["relevance"])
        print(f"\ntau(coverage, relevance) - tau({other}, relevance): {gap:+.2f} [{low:+.2f}, {high:+.2f}]")
    print("\ncoverage counted on part of the questions: tau over systems with relevance / bigram / length")
    lead = np.mean([sum(map(is_lead, verdicts(r))) for r in rows])
    others = np.mean([len(verdicts(r)) for r in rows]) - lead
    parts = {
        f"the lead's questions ({lead:.1f} a summary)": coverage_where(rows, is_lead),
        f"the others ({others:.1f})": coverage_where(rows, lambda v: not is_lead(v)),
        "all, the lead weighted to its share of the source's sentences": coverage_lead_weighted(rows),
    }
    for name, part in parts.items():
        means = np.array([np.nanmean(part[t["system"] == s]) for s in systems])
        print(f"  {name}: " + " / ".join(f"{kendall(means, m[k]):.2f}" for k in ("relevance", "bigram", "length")))

    reference = reference_scores(rows)
    against_experts(rows, t, systems, m, reference)
    if more:
        more_documents(rows, reference, more, systems)


if __name__ == "__main__":
    main(*sys.argv[1:3])
