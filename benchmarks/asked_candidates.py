"""The judge's key facts as a pseudo-reference, as pre-registered in
benchmarks/preregistered/pseudo-reference-facts-2026-12-07.md (issue 58, item 4).

    python benchmarks/asked_candidates.py files P0_RESULTS QUESTIONS_OUT      # S's question file, from P0's results
    localsumm eval DATA --questions QUESTIONS_OUT --out S_RESULTS             # S asked (questions from the cache)
    python benchmarks/asked_candidates.py report --realsumm P0 S --rose P0 S --summeval P0 S

K and KS are recomputed from P0's and S's stored verdicts: no judge call. A lab script: its figures go to RESULTS,
and it to git history once read.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from localsumm.bench import metrics
from localsumm.bench.asked import ASKED, closest, weights
from localsumm.bench.calibrate import split_documents
from localsumm.runs.questions import field_value
from localsumm.runs.results import ResultLine, read_results
from localsumm.summarization.questionset.model import QuestionSet

CANDIDATES = ("P0", "S", "K", "KS")
THRESHOLD = 0.5


@dataclass(frozen=True)
class Asked:
    """One summary's coverage verdicts under P0 and S, split into questions and key facts."""

    id: str
    doc: str
    system: str | None
    label: float
    questions: list[float]
    facts: list[float]
    """P0's key-fact verdicts ("Is it true that ...?")."""
    s_questions: list[float]
    """S's verdicts on the same questions: a few differ in the last digits, since S's questions are decoded side by
    side without the key facts, P0's with them (llama.cpp's sums in another order)."""
    statements: list[float]
    """S's verdicts on the same facts asked as statements."""

    def coverage(self, candidate: str) -> float:
        if candidate in ("P0", "K"):
            counted, facts = [float(p >= THRESHOLD) for p in self.questions], self.facts
        else:
            counted, facts = [float(p >= THRESHOLD) for p in self.s_questions], self.statements
        # K and KS: the facts alone; a source without a key fact keeps P0's (S's) value, as pre-registered.
        votes = facts if candidate in ("K", "KS") and facts else counted + facts
        return sum(votes) / len(votes) if votes else 0.0


def probabilities(line: ResultLine) -> tuple[list[float], list[float]]:
    """(questions, key facts): a result's coverage probabilities, the key facts asked last."""
    result = line.result
    assert result is not None
    p = [v.probability if v.probability is not None else float(v.answered) for v in result.analyze_step_result.coverage]
    facts = len(result.preprocess_step_result.key_facts)
    return p[: len(p) - facts], p[len(p) - facts :]


def write_files(p0: Path, out: Path) -> None:
    """S's question file: each source's questions as P0 asked them, its key facts to be asked as statements."""
    sets: dict[str, QuestionSet] = {}
    for line in read_results(p0):
        result = line.result
        if result is None:
            continue
        asked = [v.question for v in result.analyze_step_result.coverage]
        facts = result.preprocess_step_result.key_facts
        questions = asked[: len(asked) - len(facts)]
        sha = line.fields["localsumm"]["source_sha256"]
        this = QuestionSet(
            source_sha256=sha,
            id=line.id,
            language="en",
            questions=questions,
            key_facts=facts,
            facts_as="statements",
            provenance={"origin": "lab", "candidate": "S", "from": str(p0)},
        )
        if sha in sets:  # every summary of a source was asked the same set
            assert (sets[sha].questions, sets[sha].key_facts) == (this.questions, this.key_facts), line.id
        sets[sha] = sets.get(sha, this)
    out.write_text("".join(s.to_line() + "\n" for s in sets.values()), encoding="utf-8")
    print(f"wrote {len(sets)} question sets to {out}")


def paired(p0: Path, s: Path) -> list[Asked]:
    by_id = {line.id: line for line in read_results(s) if line.result is not None}
    found = []
    for line in read_results(p0):
        other = by_id.get(line.id)
        if line.result is None or other is None or line.label_coverage is None:
            continue
        questions, facts = probabilities(line)
        s_questions, statements = probabilities(other)
        assert len(s_questions) == len(questions) and len(statements) == len(facts), line.id  # S asks P0's items
        item = Asked(
            line.id or "", line.doc, line.system, line.label_coverage, questions, facts, s_questions, statements
        )
        assert abs(item.coverage("S") - other.coverage_score) < 1e-3, line.id  # stored rounded
        found.append(item)
    return found


Figure = Callable[[np.ndarray], float]


def figures(items: list[Asked], candidate: str) -> tuple[Figure, Figure]:
    """(per document, pooled) Pearson with the label, as functions of item indices."""
    x = np.asarray([i.coverage(candidate) for i in items])
    y = np.asarray([i.label for i in items])
    docs = np.asarray([i.doc for i in items])
    return (
        lambda idx: metrics.per_document(metrics.pearson, x[idx], y[idx], docs[idx].tolist()),
        lambda idx: metrics.pearson(x[idx], y[idx]),
    )


def system_tau(items: list[Asked], candidate: str) -> float:
    systems = sorted({i.system for i in items if i.system is not None})
    ours = [np.mean([i.coverage(candidate) for i in items if i.system == s]) for s in systems]
    labels = [np.mean([i.label for i in items if i.system == s]) for s in systems]
    return metrics.kendall(ours, labels)


def difference(items: list[Asked], chosen: str, which: int = 0) -> str:
    a, b = figures(items, "P0")[which], figures(items, chosen)[which]
    every = np.arange(len(items))
    low, high = metrics.bootstrap_ci(lambda idx: b(idx) - a(idx), len(items), groups=[i.doc for i in items])
    return f"{b(every):.3f} against {a(every):.3f}: {b(every) - a(every):+.3f} [{low:+.3f}, {high:+.3f}]"


def mean_difference(sets: list[list[Asked]], chosen: str, resamples: int = 1000, seed: int = 0) -> str:
    """The primary figure: the mean over the sets of (per-document Pearson, chosen − P0), documents resampled
    within each set."""
    diffs = []
    for items in sets:
        a, b = figures(items, "P0")[0], figures(items, chosen)[0]
        groups: dict[str, list[int]] = {}
        for k, item in enumerate(items):
            groups.setdefault(item.doc, []).append(k)
        diffs.append((a, b, [np.array(v) for v in groups.values()]))
    point = float(np.mean([b(np.arange(len(s))) - a(np.arange(len(s))) for (a, b, _), s in zip(diffs, sets)]))
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(resamples):
        per_set = []
        for a, b, units in diffs:
            idx = np.concatenate([units[k] for k in rng.integers(0, len(units), len(units))])
            per_set.append(b(idx) - a(idx))
        values.append(float(np.mean(per_set)))
    low, high = np.percentile(values, [2.5, 97.5])
    return f"{point:+.3f} [{low:+.3f}, {high:+.3f}]"


def report(realsumm: list[Path], rose: list[Path], summeval: list[Path]) -> None:
    named = {"REALSumm systems": paired(*realsumm), "RoSE dev": paired(*rose)}
    halves = {}
    for name, items in named.items():
        fit_docs, report_docs = split_documents([i.doc for i in items])
        halves[name] = ([i for i in items if i.doc in fit_docs], [i for i in items if i.doc in report_docs])
        no_facts = len({i.doc for i in items if not i.facts})
        moved = [abs(a - b) for i in items for a, b in zip(i.questions, i.s_questions, strict=True) if a != b]
        print(
            f"{name}: {len(items)} items, fit {len(fit_docs)} / report {len(report_docs)} documents; "
            f"documents without a key fact: {no_facts}; question verdicts that differ between P0 and S: "
            f"{len(moved)} of {sum(len(i.questions) for i in items)} (largest {max(moved, default=0):.3f})"
        )
    fit_primary = {}
    for c in CANDIDATES:
        per_set = [figures(fit, c)[0](np.arange(len(fit))) for fit, _ in halves.values()]
        fit_primary[c] = float(np.mean(per_set))
        print(
            f"fit half, per document: {c}: " + ", ".join(f"{v:.3f}" for v in per_set) + f"; mean {fit_primary[c]:.3f}"
        )
    best = max(CANDIDATES[1:], key=lambda c: fit_primary[c])
    chosen = best if fit_primary[best] > fit_primary["P0"] else "P0"
    print(f"chosen on the fit half: {chosen}")
    reports = [rep for _, rep in halves.values()]
    print(f"report half, mean per-document difference (primary): {mean_difference(reports, chosen)}")
    for name, (_, rep) in halves.items():
        print(f"report half, {name}, per document: {difference(rep, chosen)}")
        print(f"report half, {name}, pooled: {difference(rep, chosen, 1)}")
        if any(i.system for i in rep):
            print(
                f"report half, {name}, systems tau: {system_tau(rep, chosen):.3f} against {system_tau(rep, 'P0'):.3f}"
            )
    for c in CANDIDATES:  # for the record
        line = []
        for name, (_, rep) in halves.items():
            d, p = figures(rep, c)
            every = np.arange(len(rep))
            line.append(f"{name} {p(every):.3f} / {d(every):.3f}")
        print(f"report half, {c}, pooled / per document: " + "; ".join(line))
    check = paired(*summeval)
    print(f"SummEval dev ({len(check)} items), relevance, per document: {difference(check, chosen)}")
    for c in CANDIDATES:  # every set whole, for the record
        whole = [
            f"{n} {figures(i, c)[1](np.arange(len(i))):.3f} / {figures(i, c)[0](np.arange(len(i))):.3f}"
            for n, i in {**named, "SummEval dev": check}.items()
        ]
        print(f"all documents, {c}, pooled / per document: " + "; ".join(whole))


def diagnose(results: Path, field: str) -> None:
    """Asking against answering: coverage over the judge's items that ask one of the reference's facts (an item
    holding ``ASKED`` of a fact's weight, the rule of ``bench asked``) and over the rest, against the label."""
    rows: list[tuple[str, float, float, float, int]] = []  # doc, label, matched coverage, the rest's, matched count
    for line in read_results(results):
        result = line.result
        if result is None or line.label_coverage is None:
            continue
        facts = field_value(line.fields, field)
        asked = [v.question for v in result.analyze_step_result.coverage]
        questions, key_facts = probabilities(line)
        votes = [float(p >= THRESHOLD) for p in questions] + key_facts  # the default rule, scoring "facts"
        weight = weights(facts + asked)
        matched = [any(closest(f, [q], weight)[1] >= ASKED for f in facts) for q in asked]
        on = [v for v, m in zip(votes, matched, strict=True) if m]
        off = [v for v, m in zip(votes, matched, strict=True) if not m]
        rows.append(
            (line.doc, line.label_coverage, np.mean(on) if on else np.nan, np.mean(off) if off else np.nan, len(on))
        )
    docs = [r[0] for r in rows]
    y = np.asarray([r[1] for r in rows])
    print(
        f"{results}: {len(rows)} items, {len(set(docs))} documents; items asking a reference fact per summary: "
        f"{np.mean([r[4] for r in rows]):.1f}"
    )
    for name, k in (("the items that ask a reference fact", 2), ("the other items", 3)):
        x = np.asarray([r[k] for r in rows])
        keep = ~np.isnan(x)
        kept_docs = [d for d, kk in zip(docs, keep, strict=True) if kk]
        print(
            f"coverage over {name} ({int(keep.sum())} items): Pearson pooled {metrics.pearson(x[keep], y[keep]):.3f}, "
            f"per document {metrics.per_document(metrics.pearson, x[keep], y[keep], kept_docs):.3f}"
        )


@dataclass(frozen=True)
class Pair:
    """One summary's coverage under P0 and a candidate scored by its own run (``three-questions-2026-12-07.md``)."""

    doc: str
    system: str | None
    label: float
    p0: float
    candidate: float

    def coverage(self, which: str) -> float:
        return self.p0 if which == "P0" else self.candidate


def pairs(p0: Path, candidate: Path) -> list[Pair]:
    by_id = {line.id: line for line in read_results(candidate) if line.scored}
    return [
        Pair(line.doc, line.system, line.label_coverage, line.coverage_score, by_id[line.id].coverage_score)
        for line in read_results(p0)
        if line.scored and line.id in by_id and line.label_coverage is not None
    ]


def compare(realsumm: list[Path], rose: list[Path], summeval: list[Path]) -> None:
    """C3 against P0, as pre-registered: one candidate, the report half decides."""
    named = {"REALSumm systems": pairs(*realsumm), "RoSE dev": pairs(*rose)}
    reports = []
    for name, items in named.items():
        fit_docs, report_docs = split_documents([i.doc for i in items])
        fit = [i for i in items if i.doc in fit_docs]
        rep = [i for i in items if i.doc in report_docs]
        reports.append(rep)
        print(f"{name}: {len(items)} items; fit half, per document: {difference(fit, 'C')} (for the record)")
        print(f"{name}: report half, per document: {difference(rep, 'C')}")
        print(f"{name}: report half, pooled: {difference(rep, 'C', 1)}")
        print(f"{name}: all documents, per document: {difference(items, 'C')}; pooled {difference(items, 'C', 1)}")
        if any(i.system for i in items):
            print(
                f"{name}: all documents, systems tau {system_tau(items, 'C'):.3f} against {system_tau(items, 'P0'):.3f}"
            )
    print(f"report half, mean per-document difference (primary): {mean_difference(reports, 'C')}")
    check = pairs(*summeval)
    print(f"SummEval dev ({len(check)} items), relevance, per document: {difference(check, 'C')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    files = sub.add_parser("files")
    files.add_argument("p0", type=Path)
    files.add_argument("out", type=Path)
    diag = sub.add_parser("diagnose")
    diag.add_argument("results", type=Path)
    diag.add_argument("--facts", required=True)
    cmp = sub.add_parser("compare")
    for name in ("realsumm", "rose", "summeval"):
        cmp.add_argument(f"--{name}", nargs=2, type=Path, required=True, metavar=("P0", "C3"))
    rep = sub.add_parser("report")
    for name in ("realsumm", "rose", "summeval"):
        rep.add_argument(f"--{name}", nargs=2, type=Path, required=True, metavar=("P0", "S"))
    args = parser.parse_args()
    if args.command == "files":
        write_files(args.p0, args.out)
    elif args.command == "diagnose":
        diagnose(args.results, args.facts)
    elif args.command == "compare":
        compare(args.realsumm, args.rose, args.summeval)
    else:
        report(args.realsumm, args.rose, args.summeval)


if __name__ == "__main__":
    main()
