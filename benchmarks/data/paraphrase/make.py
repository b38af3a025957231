"""Build and check the paraphrase stress set (benchmarks/data/paraphrase.stress.jsonl) from hand-written rewrites.

    .venv/bin/python benchmarks/data/paraphrase/make.py                # builds the set, then checks it
    .venv/bin/python benchmarks/data/paraphrase/make.py --check        # checks the shipped set, writes nothing
    .venv/bin/python benchmarks/data/paraphrase/make.py --part facts   # prints one part of it (JSONL) to stdout

Two hand-written files in this folder, and two dev sets, give the set:

- ``pairs.jsonl``: for an extractive SummEval summary (``doc_id``, ``system``), a ``paraphrase`` that keeps
  every fact of it in other words. Each gives two records, the summary as the systems set has it
  (``meta.variant`` "original") and the rewrite ("paraphrase"), with the same source, labels and ``meta.pair``.
- ``facts.jsonl``: for a RoSE dev document, its reference ACUs rewritten at a more general level
  (``reference_acus_general``, same order and count) and ``notes`` on ACUs the source does not state as
  written. Each RoSE dev record of that document is copied with them in its ``meta``.
- The systems set (``summeval.systems.dev.jsonl``, not shipped here; ``--systems``) and
  ``benchmarks/data/rose.dev.jsonl``.

The checks, each a violation that fails the run: every original is byte for byte the systems set's summary
(when the systems set is at hand); the paraphrase shares fewer word bigrams with the source than the original
(and the mean share is at most ``MAX_MEAN_OVERLAP``); its length in words is within ±20% of the original's;
it keeps every number and name of the original (below); each record's general ACUs are as many as its ACUs,
differ from them, repeat where they repeat, and are the same for every record of a document.

Words are lower-cased runs of letters and digits, so the tokenised summaries and untokenised sources compare
alike. A number is a word with a digit, or a number word from two up; a name is a word that the source
writes capitalised somewhere other than after a sentence's end, a colon or a bracket, and never in lower
case (the SummEval summaries are lower-cased, so the source decides).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE.parent
OUT = DATA / "paraphrase.stress.jsonl"
ROSE = DATA / "rose.dev.jsonl"
SYSTEMS = Path(os.environ.get("LOCALSUMM_SYSTEMS_DEV", DATA / "summeval.systems.dev.jsonl"))
WRITTEN = "2026-12-06"
MAX_MEAN_OVERLAP = 0.35
LENGTH_RATIO = (0.8, 1.2)
NUMBER_WORDS = frozenset(
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion".split()
)
_WORD = re.compile(r"[^\W_]+")
_LETTERS = re.compile(r"[^\W\d_]+")
# What precedes a capital that says nothing about a name: a sentence's end, a colon, a bracket, or nothing.
_OPENING = re.compile(r"""(?:^|[.!?:;)\]])[\s"'‘’“”`]*$""")

Record = dict[str, Any]


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def bigram_overlap(summary: str, source: str) -> float:
    """Share of the summary's distinct word bigrams that the source has."""

    def bigrams(text: str) -> set[tuple[str, str]]:
        w = words(text)
        return set(zip(w, w[1:]))

    mine = bigrams(summary)
    return len(mine & bigrams(source)) / len(mine) if mine else 0.0


def source_names(source: str) -> set[str]:
    """Words the source writes capitalised away from a sentence's start, and never in lower case."""
    capitalised, lower = set(), set()
    for match in _LETTERS.finditer(source):
        word = match.group()
        if word[0].islower():
            lower.add(word.lower())
        elif len(word) > 1 and not _OPENING.search(source[max(0, match.start() - 40) : match.start()]):
            capitalised.add(word.lower())
    return capitalised - lower


def literals(summary: str, source: str) -> set[str]:
    """The numbers and names of ``summary`` (lower-cased words)."""
    names = source_names(source)
    return {w for w in words(summary) if any(c.isdigit() for c in w) or w in NUMBER_WORDS or w in names}


def read_jsonl(path: Path) -> list[Record]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def pair_records(hand: Record, original: Record) -> list[Record]:
    doc, system = hand["doc_id"], hand["system"]
    meta = {k: v for k, v in original["meta"].items() if k != "reference_summaries"}
    records = []
    for variant, summary in (("original", original["summary"]), ("paraphrase", hand["paraphrase"])):
        provenance = dict(meta["provenance"])
        if variant == "paraphrase":
            provenance["summary"] = f"hand-written for localsumm on {WRITTEN} (benchmarks/data/paraphrase/pairs.jsonl)"
        records.append(
            {
                "id": f"paraphrase:{doc}:{system}:{variant}",
                "dataset": "paraphrase",
                "source": original["source"],
                "summary": summary,
                "label_alignment": original["label_alignment"],
                "label_coverage": original["label_coverage"],
                "meta": {
                    **meta,
                    "part": "pairs",
                    "pair": f"{doc}:{system}",
                    "variant": variant,
                    "origin_dataset": "summeval",
                    "origin_id": original["id"],
                    "provenance": provenance,
                },
            }
        )
    return records


def fact_record(rose: Record, hand: Record) -> Record:
    meta = dict(rose["meta"])
    meta.update(
        part="facts",
        origin_dataset="rose",
        origin_id=rose["id"],
        reference_acus_general=hand["reference_acus_general"],
        reference_acus_general_notes=hand["notes"],
    )
    meta["provenance"] = {
        **meta["provenance"],
        "reference_acus_general": f"hand-written for localsumm on {WRITTEN} (benchmarks/data/paraphrase/facts.jsonl)",
    }
    return {**rose, "id": f"paraphrase:rose:{meta['doc_id']}:{meta['system']}", "dataset": "paraphrase", "meta": meta}


def build(systems: Path = SYSTEMS, rose: Path = ROSE) -> str:
    """The set as JSONL: every hand-written pair (original, paraphrase), then every RoSE dev record."""
    by_key = {(r["meta"]["doc_id"], r["meta"]["system"]): r for r in read_jsonl(systems)}
    facts = {f["doc_id"]: f for f in read_jsonl(HERE / "facts.jsonl")}
    records = [
        rec
        for hand in read_jsonl(HERE / "pairs.jsonl")
        for rec in pair_records(hand, by_key[hand["doc_id"], hand["system"]])
    ]
    records += [fact_record(r, facts[r["meta"]["doc_id"]]) for r in read_jsonl(rose)]
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def pairs_of(records: Iterable[Record]) -> dict[str, dict[str, Record]]:
    pairs: dict[str, dict[str, Record]] = {}
    for r in records:
        if r["meta"].get("part") == "pairs":
            pairs.setdefault(r["meta"]["pair"], {})[r["meta"]["variant"]] = r
    return pairs


def check_pairs(records: list[Record], systems: list[Record] | None) -> tuple[list[str], list[str]]:
    """(violations, report lines) of the pairs part."""
    bad: list[str] = []
    lines = [f"{'pair':<22} {'words':>9} {'ratio':>5}  bigram overlap with the source"]
    by_key = {(r["meta"]["doc_id"], r["meta"]["system"]): r for r in systems or []}
    before, after = [], []
    for pair, variants in pairs_of(records).items():
        if set(variants) != {"original", "paraphrase"}:
            bad.append(f"{pair}: variants {sorted(variants)}, not one original and one paraphrase")
            continue
        o, p = variants["original"], variants["paraphrase"]
        same = ("source", "label_alignment", "label_coverage")
        if any(o[k] != p[k] for k in same) or (o["meta"]["doc_id"], o["meta"]["system"]) != (
            p["meta"]["doc_id"],
            p["meta"]["system"],
        ):
            bad.append(f"{pair}: original and paraphrase differ in source, labels, doc_id or system")
        if systems is not None:
            theirs = by_key.get((o["meta"]["doc_id"], o["meta"]["system"]))
            if theirs is None or theirs["summary"] != o["summary"] or theirs["source"] != o["source"]:
                bad.append(f"{pair}: the original is not the systems set's summary (and source) for it")
        a, b = bigram_overlap(o["summary"], o["source"]), bigram_overlap(p["summary"], p["source"])
        before.append(a)
        after.append(b)
        if b >= a:
            bad.append(f"{pair}: the paraphrase's bigram overlap {b:.2f} does not fall below the original's {a:.2f}")
        n, m = len(words(o["summary"])), len(words(p["summary"]))
        if not LENGTH_RATIO[0] <= m / n <= LENGTH_RATIO[1]:
            bad.append(f"{pair}: {m} words against the original's {n} (ratio {m / n:.2f}, outside ±20%)")
        missing = literals(o["summary"], o["source"]) - set(words(p["summary"]))
        if missing:
            bad.append(f"{pair}: the paraphrase lacks the original's {', '.join(sorted(missing))}")
        lines.append(f"{pair[8:18] + '…' + pair[-3:]:<22} {n:>4}→{m:<4} {m / n:>5.2f}  {a:.2f} → {b:.2f}")
    if before:
        mean_before, mean_after = statistics.mean(before), statistics.mean(after)
        lines.append(
            f"{len(before)} pairs: mean overlap {mean_before:.3f} → {mean_after:.3f} "
            f"(paraphrases {min(after):.2f}–{max(after):.2f})"
        )
        if mean_after > MAX_MEAN_OVERLAP:
            bad.append(f"mean paraphrase overlap {mean_after:.3f} is above {MAX_MEAN_OVERLAP}")
    else:
        bad.append("no pairs")
    return bad, lines


def check_facts(records: list[Record]) -> tuple[list[str], list[str]]:
    """(violations, report lines) of the general-ACU part."""
    bad: list[str] = []
    by_doc: dict[str, list[str]] = {}
    facts = [r for r in records if r["meta"].get("part") == "facts"]
    for r in facts:
        acus, general = r["meta"].get("reference_acus"), r["meta"].get("reference_acus_general")
        if not isinstance(general, list) or not all(isinstance(g, str) and g.strip() for g in general):
            bad.append(f"{r['id']}: reference_acus_general is not a list of texts")
            continue
        if not isinstance(acus, list) or len(acus) != len(general):
            bad.append(f"{r['id']}: {len(general)} general ACUs for {len(acus or [])} ACUs")
            continue
        for i, (acu, g) in enumerate(zip(acus, general)):
            if g.strip().lower() == acu.strip().lower():
                bad.append(f"{r['id']}: general ACU {i} is the ACU as written")
            twins = [j for j, other in enumerate(acus) if other == acu]
            if len({general[j] for j in twins}) > 1:
                bad.append(f"{r['id']}: ACUs {twins} are one ACU, rewritten differently")
        if by_doc.setdefault(r["meta"]["doc_id"], general) != general:
            bad.append(f"{r['id']}: general ACUs differ from another record of its document")
    if not facts:
        bad.append("no RoSE records")
    count = sum(len(g) for g in by_doc.values())
    return bad, [f"{len(facts)} RoSE records, {len(by_doc)} documents, {count} ACUs rewritten at a general level"]


def check(records: list[Record], systems: list[Record] | None = None) -> tuple[list[str], str]:
    """(violations, report) of the whole set; ``systems`` (the systems set's records) to compare the originals."""
    bad: list[str] = []
    ids = [r.get("id") for r in records]
    keys = {"id", "dataset", "source", "summary", "label_alignment", "label_coverage", "meta"}
    bad += [f"{r.get('id')}: fields {sorted(set(r) ^ keys)} differ from the schema" for r in records if set(r) != keys]
    if len(set(ids)) != len(ids):
        bad.append("ids are not unique")
    pair_bad, pair_lines = check_pairs(records, systems)
    fact_bad, fact_lines = check_facts(records)
    note = [] if systems is not None else ["originals not compared: the systems set is not at hand (--systems)"]
    return bad + pair_bad + fact_bad, "\n".join(pair_lines + fact_lines + note)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="check the shipped set (and that it is what the build gives)"
    )
    parser.add_argument("--part", choices=["pairs", "facts"], help="print this part of the shipped set to stdout")
    parser.add_argument("--systems", type=Path, default=SYSTEMS, help="summeval.systems.dev.jsonl")
    args = parser.parse_args()
    if args.part:
        sys.stdout.writelines(
            json.dumps(r, ensure_ascii=False) + "\n" for r in read_jsonl(OUT) if r["meta"]["part"] == args.part
        )
        return 0
    systems = read_jsonl(args.systems) if args.systems.exists() else None
    if not args.check:
        if systems is None:
            print(f"the build needs the systems set: {args.systems} not found (--systems)", file=sys.stderr)
            return 1
        OUT.write_text(build(args.systems), encoding="utf-8")
        print(f"wrote {OUT.relative_to(DATA.parents[1])}")
    elif systems is not None and OUT.read_text(encoding="utf-8") != build(args.systems):
        print(f"{OUT} is not what {Path(__file__).name} builds: run it without --check", file=sys.stderr)
        return 1
    bad, report = check(read_jsonl(OUT), systems)
    print(report)
    for line in bad:
        print(f"VIOLATION {line}")
    print(f"{len(bad)} violations" if bad else "ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
