"""Verdict wording for alignment: the scorer's claim-verdict prompt against alternatives, on the same sentences.

    .venv/bin/python benchmarks/experiments/verdict_prompts.py DATA.jsonl [--limit N] [--part I/N] [--threads T] [--calls a,b]
    .venv/bin/python benchmarks/experiments/verdict_prompts.py DATA.jsonl --report

(DATA.jsonl: a dev set with alignment labels, e.g. ``benchmarks/data/summedits.dev.jsonl``.)

Every sentence of every labelled summary is put to the judge in several
wordings, each a yes/no question whose answer is read as a probability (as the
scorer does). The calls, all after the same document prefix except ``prior``:

- current: the scorer's prompt (``prompts.claim_verdict_messages``);
- strict: "true according to the document?", with the details a small edit
  changes spelled out (who did what, names, numbers, dates, places, negation);
- evidence: the scorer's prompt, followed by the document sentences sharing
  most content words with the claim, quoted again next to it (a 1.5B judge
  attends poorly to a detail 300 tokens back);
- contradict: "does the document contradict any detail of the claim?"; support
  is p(no);
- fewshot: the scorer's prompt after seven worked examples as earlier chat
  turns (an invented document; a changed number, entity, negation or added
  detail answered "no");
- excerpt: the scorer's prompt with only the three document sentences sharing
  most content words with the claim as the document (no prefix is shared);
- prior: the claim alone, no document: "is it true?". Not a predictor on its
  own: ``contrastive`` subtracts it from ``current`` in log-odds, so that a
  claim the judge would believe anyway gets no credit for it.

The report (``--report``, or after a run) gives, per predictor, what the
scorer would compute from it: for binary labels ROC-AUC of the weakest
sentence and balanced accuracy of "every sentence at >= 0.5"; for graded
labels the per-document Spearman of the fraction supported and of the weakest
sentence. Then the change of each predictor from ``current`` with a paired
bootstrap over documents. Probabilities are appended to
``benchmarks/results/`` as they come, so a run resumes, and ``--part 1/2`` and
``--part 2/2`` split the documents between two processes (``--threads 1``
each on a 2-core machine).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable

import numpy as np
from localsumm.files import read_jsonl
from localsumm.protocol import content_text
from localsumm.summarization import prompts
from localsumm.text import content_words, sentences

from common import RESULTS, arguments, doc_id, labelled_part, measures, stored

STRICT_TASK = """\
Is the following sentence true according to the document? Check every detail: who did what, names, numbers, dates, places, and whether something happened or did not. If any detail differs from the document or is not in it, answer no. Answer with one word: yes or no.

Sentence:"""

CONTRADICT_TASK = """\
Does the document contradict the following claim, or does any detail of the claim (a name, number, date, place or action) differ from the document or go beyond it? Answer with one word: yes or no.

Claim:"""

# Worked examples as earlier chat turns (an invented document, not from any dataset): the
# edits SummEdits makes (a number, an entity, a negation, an added detail) answered "no".
SHOT_DOCUMENT = (
    "The city council of Marlow voted 7 to 2 on Tuesday to build a new public library on Elm Street. "
    "Construction will cost $4.5 million and should finish in 2026, said the mayor, Ruth Okafor."
)
SHOTS = [
    ("The Marlow council approved a new library on Elm Street.", "yes"),
    ("The council voted 8 to 2 for the library.", "no"),
    ("Mayor Ruth Okafor said the library will cost $4.5 million.", "yes"),
    ("The council rejected the plan for a new library.", "no"),
    ("The library should be finished in 2026.", "yes"),
    ("The library will cost $4.5 million and create 50 jobs.", "no"),
    ("Mayor Ruth Okafor voted against the library.", "no"),
]

PRIOR_SYSTEM = "You are a meticulous fact-checker."
PRIOR_TASK = "Is the following claim true? Answer with one word: yes or no.\n\nClaim:"


def related(source: str, claim: str, k: int = 2) -> list[str]:
    """The k source sentences sharing most content words with the claim, in document order."""
    words = content_words(claim)
    found = sentences(source)
    ranked = sorted(range(len(found)), key=lambda i: -len(words & content_words(found[i])))[:k]
    return [found[i] for i in sorted(ranked)]


def _fewshot(source: str, claim: str) -> prompts.Messages:
    turns: prompts.Messages = [{"role": "system", "content": prompts.SOURCE_SYSTEM}]
    for shot, answer in SHOTS:
        asked = prompts.claim_verdict_messages(SHOT_DOCUMENT, shot)[1]["content"]
        turns += [{"role": "user", "content": content_text(asked)}, {"role": "assistant", "content": answer}]
    # The empty first segment puts a segment start after the shots, so every document reuses them.
    last = prompts.claim_verdict_messages(source, claim)[1]["content"]
    return turns + [{"role": "user", "content": ["", *last]}]


def _excerpt(source: str, claim: str) -> prompts.Messages:
    return prompts.claim_verdict_messages("\n".join(related(source, claim, 3)), claim)


def _source(source: str, *segments: str) -> prompts.Messages:
    return [
        {"role": "system", "content": prompts.SOURCE_SYSTEM},
        {"role": "user", "content": [prompts.fence("document", source) + "\n\n", *segments]},
    ]


CALLS: dict[str, Callable[[str, str], prompts.Messages]] = {
    "current": prompts.claim_verdict_messages,
    "strict": lambda source, claim: _source(source, STRICT_TASK, " " + claim),
    "evidence": lambda source, claim: _source(
        source, prompts.CLAIM_VERDICT_TASK, " " + claim + "\n\nThe document's sentences closest to the claim, quoted again:\n"
        + prompts.fence("excerpt", "\n".join(related(source, claim)))),
    "contradict": lambda source, claim: _source(source, CONTRADICT_TASK, " " + claim),
    "fewshot": _fewshot,
    "excerpt": _excerpt,
    "prior": lambda source, claim: [
        {"role": "system", "content": PRIOR_SYSTEM},
        {"role": "user", "content": [PRIOR_TASK, " " + claim]},
    ],
}


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


# Each predictor maps one sentence's call probabilities to a support probability.
PREDICTORS: dict[str, Callable[[dict[str, float]], float]] = {
    "current": lambda p: p["current"],
    "strict": lambda p: p["strict"],
    "evidence": lambda p: p["evidence"],
    "contradict": lambda p: 1 - p["contradict"],
    "contrastive": lambda p: _sigmoid(_logit(p["current"]) - _logit(p["prior"])),
    "fewshot": lambda p: p["fewshot"],
    "excerpt": lambda p: p["excerpt"],
    "current+fewshot": lambda p: (p["current"] + p["fewshot"]) / 2,
    "current+strict": lambda p: (p["current"] + p["strict"]) / 2,
    "current+contradict": lambda p: (p["current"] + 1 - p["contradict"]) / 2,
    "current+evidence": lambda p: (p["current"] + p["evidence"]) / 2,
}


def out_path(data: Path, part: str) -> Path:
    return RESULTS / f"verdict_prompts.{data.stem}.{part.replace('/', 'of')}.jsonl"


def run(data: Path, limit: int | None, part: str, threads: int | None, calls: list[str], model: str | None) -> None:
    from localsumm.backends import open_judge

    out = out_path(data, part)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {row["id"]: row for row in read_jsonl(out)} if out.exists() else {}
    judge = open_judge(model, n_threads=threads)
    rows = []
    for line in labelled_part(data, limit, part):
        row = done.get(line["id"]) or {
            "id": line["id"], "doc": doc_id(line), "label": line["label_alignment"],
            "sentences": sentences(line["summary"]), "p": {},
        }
        missing = [c for c in calls if c not in row["p"]]
        if missing:
            for call in missing:
                row["p"][call] = [judge.yes_probability("alignment", CALLS[call](line["source"], s))[0] for s in row["sentences"]]
            with out.open("a", encoding="utf-8") as sink:  # the last line of an id wins on reading
                sink.write(json.dumps(row) + "\n")
            print(f"{line['id']}: " + ", ".join(f"{c} {min(row['p'][c], default=0):.2f}" for c in calls), flush=True)
        rows.append(row)


def predictions(rows: list[dict[str, Any]], name: str) -> list[list[float]]:
    per = PREDICTORS[name]
    return [[per({c: ps[i] for c, ps in r["p"].items()}) for i in range(len(r["sentences"]))] for r in rows]


def _computable(rows: list[dict[str, Any]], name: str) -> bool:
    """Whether every row holds the calls this predictor reads (runs may have asked only some)."""
    try:
        predictions(rows, name)
    except KeyError:
        return False
    return True


def report(data: Path) -> None:
    rows = stored("verdict_prompts", data)
    rows = [r for r in rows if r["sentences"]]
    names = [n for n in PREDICTORS if _computable(rows, n)]
    labels = [float(r["label"]) for r in rows]
    docs = [r["doc"] for r in rows]
    binary = set(labels) <= {0.0, 1.0}
    ms = measures(binary)
    print(f"\n{data.name}: {len(rows)} items, {len(set(docs))} documents, "
          f"{sum(len(r['sentences']) for r in rows)} sentences, prompts {prompts.step_version('alignment')} (current)")
    print("| predictor | " + " | ".join(ms) + " |\n|---|" + "---:|" * len(ms))
    for name in names:
        ps = predictions(rows, name)
        print(f"| {name} | " + " | ".join(f"{m(ps, labels, docs):.3f}" for m in ms.values()) + " |")
    by_doc: dict[str, list[int]] = {}
    for i, d in enumerate(docs):
        by_doc.setdefault(d, []).append(i)
    units = list(by_doc.values())
    rng = np.random.default_rng(0)
    draws = [rng.integers(0, len(units), len(units)) for _ in range(2000)]
    first = next(iter(ms))
    base = predictions(rows, "current")
    print(f"\nchange from current, {first} (paired, documents resampled, 2,000 draws):")
    for name in names[1:]:
        ps = predictions(rows, name)
        point = ms[first](ps, labels, docs) - ms[first](base, labels, docs)
        changes = []
        for draw in draws:
            idx = [i for u in draw for i in units[u]]
            d = [str(k) for k, u in enumerate(draw) for _ in units[u]]
            y = [labels[i] for i in idx]
            change = ms[first]([ps[i] for i in idx], y, d) - ms[first]([base[i] for i in idx], y, d)
            if not np.isnan(change):
                changes.append(change)
        low, high = np.percentile(changes, [2.5, 97.5])
        print(f"- {name}: {point:+.3f} [{low:+.3f}, {high:+.3f}]")


def main() -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--calls", default=",".join(CALLS))
    args = parser.parse_args()
    if not args.report:
        run(args.data, args.limit, args.part, args.threads, args.calls.split(","), args.model)
    report(args.data)


if __name__ == "__main__":
    main()
