"""Issue 46: alignment judged against the whole source, against the best evidence sentences alone, or both.

Pre-registered in ``preregistered/verification-modes-2026-12-06.md``. One run with ``verification="both"``
gives all three modes' probabilities for the same claims, so every comparison is paired::

    python benchmarks/verification_modes.py run --out vm --sets summedits zhnews summeval   # the judge, ~1 hour
    python benchmarks/verification_modes.py run --out vm --sets systems --half report        # 6 documents
    python benchmarks/verification_modes.py report --out vm     # the figures, fit and report halves
    python benchmarks/verification_modes.py extractive --out vm # evidence at rank 1 on the copying systems
    python benchmarks/verification_modes.py handcheck           # the 60 claims of evidence-handcheck.md

``run`` writes one line per item (``vm/<set>.jsonl``, resumable): each claim's whole-source probability,
its judged evidence sentences, its lexical pointer and its unmatched literals. Alignment only: coverage
does not depend on the verification mode.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
from collections.abc import Callable, Sequence
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import numpy as np

from localsumm import create_summarization_scorer
from localsumm.bench import metrics
from localsumm.bench.calibrate import split_documents
from localsumm.bench.items import bigram_overlap
from localsumm.bench.systems import read_expert_means
from localsumm.summarization.claims import summary_claims
from localsumm.summarization.grounding import source_sentences
from localsumm.summarization.plan import evaluation_language
from localsumm.summarization.steplog import StepLog
from localsumm.text import tokens

DATA = Path(__file__).parent / "data"
SETS = {
    "summedits": DATA / "summedits.dev.jsonl",
    "summeval": DATA / "summeval.dev.jsonl",
    "zhnews": DATA / "zhnews.jsonl",
    "systems": DATA / "summeval.systems.dev.jsonl",
}
EXPERTS = DATA / "summeval.systems.experts100.json"
MODES = ("whole", "evidence", "both")
EXTRACTIVE = ("M0", "M1", "M2", "M5")
THRESHOLD = 0.5
SEED = 0


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def run(out: Path, sets: Sequence[str], half: str = "all") -> None:
    scorer = create_summarization_scorer(verification="both", cache=True)
    out.mkdir(parents=True, exist_ok=True)
    for name in sets:
        target = out / f"{name}.jsonl"
        done = {row["id"] for row in read_jsonl(target)} if target.exists() else set()
        items = read_jsonl(SETS[name])
        fit, held = split_documents([i["meta"]["doc_id"] for i in items])
        wanted = {"fit": fit, "report": held}.get(half, fit | held)
        with target.open("a", encoding="utf-8") as f:
            for item in items:
                if item["id"] in done or item["meta"]["doc_id"] not in wanted:
                    continue
                source, summary = item["source"], item["summary"]
                claims = summary_claims(
                    scorer.judge, summary, "sentences", StepLog(), evaluation_language(summary, source)
                )
                verdicts, _ = scorer.verdicts_on(source, summary, claims, [])
                sentences = source_sentences(source)
                row = {
                    "id": item["id"],
                    "doc": item["meta"]["doc_id"],
                    "system": item["meta"].get("system"),
                    "label_alignment": item["label_alignment"],
                    "length": len(tokens(summary)),
                    "bigram_overlap": bigram_overlap(summary, source, split_punctuation=True),
                    "claims": [
                        {
                            "claim": v.claim,
                            "whole": v.whole_probability,
                            "evidence": [[e.index, e.probability] for e in v.evidence],
                            "pointer": [e.index for e in sentences.pointer(v.claim)],
                            "unmatched": v.unmatched,
                        }
                        for v in verdicts
                    ],
                }
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
                f.flush()
                print(name, item["id"], flush=True)


def support(claim: dict[str, Any], mode: str) -> float:
    """A claim's probability under ``mode``, 0 for a claim the literal check refuses (as the scorer counts)."""
    if claim["unmatched"]:
        return 0.0
    whole = claim["whole"] or 0.0
    best = max((p or 0.0 for _, p in claim["evidence"]), default=0.0)
    return {"whole": whole, "evidence": best, "both": (whole + best) / 2}[mode]


def weakest(row: dict[str, Any], mode: str) -> float:
    return min((support(c, mode) for c in row["claims"]), default=0.0)


def alignment(row: dict[str, Any], mode: str) -> float:
    claims = row["claims"]
    return sum(support(c, mode) >= THRESHOLD for c in claims) / len(claims) if claims else 0.0


Figure = Callable[[list[dict[str, Any]], Callable[[dict[str, Any]], float]], float]


def auc(rows: list[dict[str, Any]], value: Callable[[dict[str, Any]], float]) -> float:
    return metrics.roc_auc([value(r) for r in rows], [r["label_alignment"] for r in rows])


def spearman_per_doc(rows: list[dict[str, Any]], value: Callable[[dict[str, Any]], float]) -> float:
    return metrics.per_document(
        metrics.spearman, [value(r) for r in rows], [r["label_alignment"] for r in rows], [r["doc"] for r in rows]
    )


def systems_tau(rows: list[dict[str, Any]], value: Callable[[dict[str, Any]], float]) -> float:
    systems = sorted({r["system"] for r in rows})
    ours = [np.mean([value(r) for r in rows if r["system"] == s]) for s in systems]
    return metrics.kendall(ours, read_expert_means(EXPERTS, systems)["consistency"])


# What each set's figure is, and what of a line it reads under a mode (the baselines read the line alone).
FIGURES: dict[str, tuple[str, Figure, Callable[[dict[str, Any], str], float]]] = {
    "summedits": ("ROC-AUC, weakest sentence", auc, weakest),
    "summeval": ("Spearman per document, alignment", spearman_per_doc, alignment),
    "zhnews": ("ROC-AUC, weakest sentence", auc, weakest),
    "systems": ("Kendall tau, systems' mean alignment", systems_tau, alignment),
}


def figure_with_interval(
    name: str, rows: list[dict[str, Any]], value: Callable[[dict[str, Any]], float], paired_with: Any = None
) -> tuple[float, tuple[float, float]]:
    """The figure, and a 95% interval over resampled documents (of the difference from ``paired_with``)."""
    _, figure, _ = FIGURES[name]

    def statistic(idx: np.ndarray) -> float:
        picked = [rows[i] for i in idx]
        here = figure(picked, value)
        return here - figure(picked, paired_with) if paired_with else here

    point = statistic(np.arange(len(rows)))
    return point, metrics.bootstrap_ci(statistic, len(rows), groups=[r["doc"] for r in rows], seed=SEED)


def report(out: Path) -> None:
    gains: dict[str, dict[str, dict[str, float]]] = {}
    for name in SETS:
        path = out / f"{name}.jsonl"
        if not path.exists():
            print(f"{name}: not run")
            continue
        rows = read_jsonl(path)
        title, _, reads = FIGURES[name]
        # The halves of the whole set, whatever part of it was run (the systems set: its report half only).
        fit, held = split_documents([i["meta"]["doc_id"] for i in read_jsonl(SETS[name])])
        print(f"\n{name} ({len(rows)} items): {title}")
        for half, docs in (("fit", fit), ("report", held), ("all", fit | held)):
            part = [r for r in rows if r["doc"] in docs]
            if not part:  # a set still being run
                continue
            cells = []
            for mode in MODES:
                value, (lo, hi) = figure_with_interval(name, part, lambda r, m=mode, f=reads: f(r, m))
                cells.append(f"{mode} {value:.3f} [{lo:.3f}, {hi:.3f}]")
                if mode != "whole":
                    d, (dlo, dhi) = figure_with_interval(
                        name, part, lambda r, m=mode, f=reads: f(r, m), paired_with=lambda r, f=reads: f(r, "whole")
                    )
                    gains.setdefault(half, {}).setdefault(mode, {})[name] = d
                    cells.append(f"  {mode} - whole {d:+.3f} [{dlo:+.3f}, {dhi:+.3f}]")
            for baseline in ("bigram_overlap", "length"):
                value, _ = figure_with_interval(name, part, lambda r, b=baseline: float(r[b]))
                cells.append(f"{baseline} {value:.3f}")
            print(f"  {half} ({len({r['doc'] for r in part})} documents): " + "; ".join(cells))
    for half, by_mode in gains.items():
        for mode, by_set in by_mode.items():
            finite = [v for v in by_set.values() if not math.isnan(v)]
            print(f"{half}: {mode} mean gain over whole {np.mean(finite):+.3f} over {len(finite)} figures")


def copied_sentence(claim: str, source: str) -> tuple[int, float]:
    """The source sentence a copying system took this claim from: the closest by word sequence."""
    sentences = source_sentences(source)
    words = re.findall(r"\w+", claim.lower())
    best = (-1, 0.0)
    for i, (a, b) in enumerate(sentences.spans):
        ratio = SequenceMatcher(None, words, re.findall(r"\w+", source[a:b].lower()), autojunk=False).ratio()
        if ratio > best[1]:
            best = (i, ratio)
    return best


def extractive(out: Path, near: float = 0.8) -> None:
    """How often a copied claim's evidence at rank 1 is the sentence it was copied from (target: 95%): by words
    (``verification`` "whole", no judge needed) and, where ``run`` has judged the systems set, by the judge."""
    judged = {}
    if (out / "systems.jsonl").exists():
        for row in read_jsonl(out / "systems.jsonl"):
            judged.update({(row["id"], c["claim"]): c["evidence"] for c in row["claims"]})
    counts = {"pointer": 0, "judge": 0, "judged": 0, "claims": 0, "not near-verbatim": 0}
    for item in read_jsonl(SETS["systems"]):
        if item["meta"]["system"] not in EXTRACTIVE:
            continue
        source, summary = item["source"], item["summary"]
        for claim in summary_claims(None, summary, "sentences", StepLog(), "en"):  # type: ignore[arg-type]
            copied, ratio = copied_sentence(claim, source)
            if ratio < near:
                counts["not near-verbatim"] += 1
                continue
            counts["claims"] += 1
            pointer = source_sentences(source).pointer(claim)
            counts["pointer"] += bool(pointer) and pointer[0].index == copied
            if (item["id"], claim) in judged:
                counts["judged"] += 1
                evidence = judged[item["id"], claim]
                counts["judge"] += bool(evidence) and evidence[0][0] == copied
    n, j = counts["claims"], counts["judged"]
    print(
        f"{n} near-verbatim claims of {', '.join(EXTRACTIVE)} ({counts['not near-verbatim']} below {near} left out): "
        f"rank 1 is the copied sentence for {counts['pointer']} ({counts['pointer'] / n:.1%}) by words "
        "(verification whole)"
        + (f"; {counts['judge']} of {j} ({counts['judge'] / j:.1%}) by the judge (evidence, both)" if j else "")
    )


def handcheck(seed: int = 46) -> None:
    """The claims a reader checks by hand, with the sentence their evidence names at rank 1 (verification whole):
    40 from the systems set's abstractive systems, 20 from the faithful summaries of RoSE, REALSumm and SummEdits."""
    draws = [
        (40, [DATA / "summeval.systems.dev.jsonl"]),
        (20, [DATA / f"{name}.dev.jsonl" for name in ("rose", "summedits", "realsumm")]),
    ]
    k = 0
    for count, files in draws:
        pool = []
        for path in files:
            for item in read_jsonl(path):
                if item["meta"].get("system") in EXTRACTIVE or (count == 20 and item["label_alignment"] == 0.0):
                    continue  # abstractive systems; elsewhere, summaries people found faithful
                for claim in summary_claims(None, item["summary"], "sentences", StepLog(), "en"):  # type: ignore[arg-type]
                    pool.append((item["id"], claim, item["source"]))
        for item_id, claim, source in random.Random(seed).sample(pool, count):
            k += 1
            print(f"{k}. {item_id}\n   claim: {claim}")
            for e in source_sentences(source).pointer(claim):
                print(f"   evidence [{e.index}]: {e.text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("run", "report", "extractive", "handcheck"))
    parser.add_argument("--out", type=Path, default=Path("vm"))
    parser.add_argument("--sets", nargs="+", choices=list(SETS), default=list(SETS))
    parser.add_argument("--half", choices=("all", "fit", "report"), default="all", help="run: these documents only")
    args = parser.parse_args()
    if args.step == "run":
        run(args.out, args.sets, args.half)
    elif args.step == "report":
        report(args.out)
    elif args.step == "extractive":
        extractive(args.out)
    else:
        handcheck()


if __name__ == "__main__":
    main()
