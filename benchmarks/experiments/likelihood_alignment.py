"""Alignment from token likelihoods: how surprising is each summary token given the source, against without it?

    .venv/bin/python benchmarks/experiments/likelihood_alignment.py DATA.jsonl [--limit N] [--part I/N] [--threads T] [--model NAME]
    .venv/bin/python benchmarks/experiments/likelihood_alignment.py DATA.jsonl --report

No verdict is asked. The judge reads the summary as its own answer to
"summarize this document" twice: once after the document, once after the
same request with no document. For each summary token, the log-probability
with the document (``lp_doc``) and without (``lp_plain``); their difference is
the token's pointwise mutual information with the source. An edit that
contradicts the source (a changed number, a swapped name, a negation) makes
its token unlikely given the document although it is not unlikely in itself:
a strongly negative PMI, wherever it sits in the summary. Predictors per item:
the lowest PMI of any token, the mean of the three lowest, the lowest
``lp_doc``, and the mean ``lp_doc``. Reported like ``verdict_prompts.py``
(ROC-AUC and held-out balanced accuracy for binary labels, per-document
Spearman for graded ones). Per-token values are stored in
``benchmarks/results/`` so the predictors can be changed without the model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import numpy as np
from localsumm.bench import metrics
from localsumm.files import read_jsonl
from localsumm.summarization import prompts
from localsumm.summarization.literals import unmatched_literals

from common import RESULTS, arguments, dev_set, doc_id, held_out_accuracy, labelled_part, stored

SUMMEDITS = dev_set("summedits")
ASK = "Summarize the following document in a few sentences."
ASK_PLAIN = "Write a short summary of a document."


class Reader:
    """A llama.cpp context that returns the log-probabilities of an answer's tokens after a prompt."""

    def __init__(self, path: str, threads: int | None) -> None:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.llm = Llama(model_path=path, n_ctx=2048, n_threads=threads, n_threads_batch=threads, seed=0,
                         logits_all=True, use_mmap=False, verbose=False)
        eos = self.llm.detokenize([self.llm.token_eos()]).decode()
        self.format = Jinja2ChatFormatter(template=self.llm.metadata["tokenizer.chat_template"], eos_token=eos,
                                          bos_token="", add_generation_prompt=True)

    def answer_logprobs(self, user: str, answer: str) -> tuple[list[str], list[float]]:
        prompt = self.format(messages=[{"role": "user", "content": user}]).prompt
        head = self.llm.tokenize(prompt.encode(), add_bos=True, special=True)  # BOS only where the model wants one
        body = self.llm.tokenize(answer.encode(), add_bos=False, special=False)
        tokens = head + body
        live = list(self.llm.input_ids[: self.llm.n_tokens])
        common = next((i for i, (a, b) in enumerate(zip(live, tokens)) if a != b), min(len(live), len(tokens)))
        self.llm.n_tokens = min(common, len(head) - 1)  # the row that predicts the first answer token is recomputed
        self.llm.eval(tokens[self.llm.n_tokens :])
        logits = np.asarray(self.llm.scores[len(head) - 1 : len(tokens) - 1], dtype=np.float64)
        top = logits.max(axis=1, keepdims=True)
        logz = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
        lps = logits[np.arange(len(body)), body] - logz
        pieces = [self.llm.detokenize([t]).decode("utf-8", errors="replace") for t in body]
        return pieces, [round(float(x), 4) for x in lps]


def out_path(data: Path, part: str) -> Path:
    return RESULTS / f"likelihood.{data.stem}.{part.replace('/', 'of')}.jsonl"


def run(data: Path, limit: int | None, part: str, threads: int | None, model: str | None) -> None:
    from localsumm.models.registry import resolve_model

    out = out_path(data, part)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {row["id"] for row in read_jsonl(out)} if out.exists() else set()
    todo = [line for line in labelled_part(data, limit, part) if line["id"] not in done]
    if not todo:
        return
    path = str(resolve_model(model).path)
    with_doc, plain = Reader(path, threads), Reader(path, threads)  # two contexts: the document prefix stays cached
    for line in todo:
        user = ASK + "\n\n" + prompts.fence("document", line["source"])
        pieces, lp_doc = with_doc.answer_logprobs(user, line["summary"])
        _, lp_plain = plain.answer_logprobs(ASK_PLAIN, line["summary"])
        row = {"id": line["id"], "doc": doc_id(line), "label": line["label_alignment"],
               "tokens": pieces, "lp_doc": lp_doc, "lp_plain": lp_plain}
        with out.open("a", encoding="utf-8") as sink:
            sink.write(json.dumps(row) + "\n")
        pmi = np.subtract(lp_doc, lp_plain)
        worst = int(np.argmin(pmi))
        print(f"{line['id']}: label {line['label_alignment']}, min PMI {pmi[worst]:.2f} at {pieces[worst]!r}", flush=True)


def _lowest(k: int) -> Callable[[dict[str, Any]], float]:
    return lambda r: float(np.sort(np.subtract(r["lp_doc"], r["lp_plain"]))[:k].mean())


PREDICTORS: dict[str, Callable[[dict[str, Any]], float]] = {
    "lowest PMI": _lowest(1),
    "mean of the 3 lowest PMI": _lowest(3),
    "mean PMI": lambda r: float(np.mean(np.subtract(r["lp_doc"], r["lp_plain"]))),
    "lowest lp_doc": lambda r: float(np.min(r["lp_doc"])),
    "mean lp_doc": lambda r: float(np.mean(r["lp_doc"])),
}


def _logistic(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Logistic regression weights by Newton's method (a small ridge keeps separable folds finite)."""
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ w))
        hessian = (x * (p * (1 - p))[:, None]).T @ x + 1e-3 * np.eye(len(w))
        w += np.linalg.solve(hessian, x.T @ (y - p))
    return w


def _features(
    items: list[dict[str, Any]], verdicts: dict[str, dict[str, Any]], call: str, sources: dict[str, str] | None = None
) -> np.ndarray:
    """Per item: a constant, the weakest sentence verdict of ``call`` in log-odds, the mean of the 3 lowest PMI.
    With ``sources``, a sentence the literal check refuses counts as 0, as in the scorer."""
    def weakest_of(r: dict[str, Any]) -> float:
        row = verdicts[r["id"]]
        return min(0.0 if sources and unmatched_literals(s, sources[r["id"]]) else p for s, p in zip(row["sentences"], row["p"][call]))

    weakest = np.clip([weakest_of(r) for r in items], 1e-6, 1 - 1e-6)
    return np.column_stack([np.ones(len(items)), np.log(weakest / (1 - weakest)), [_lowest(3)(r) for r in items]])


def _with_verdicts(items: list[dict[str, Any]], data: Path, call: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    verdicts = {row["id"]: row for row in stored("verdict_prompts", data)}
    return [r for r in items if call in verdicts.get(r["id"], {}).get("p", {}) and verdicts[r["id"]]["sentences"]], verdicts


def transferred(items: list[dict[str, Any]], data: Path, fit_on: Path) -> None:
    """Graded labels: the verdict + PMI combination fitted on all of ``fit_on`` (SummEdits), frozen, scored here.
    The test that the combination was not chosen for: other documents, another dataset, another label."""
    items, verdicts = _with_verdicts(items, data, "current")
    train, train_verdicts = _with_verdicts([r for r in stored("likelihood", fit_on) if r["tokens"]], fit_on, "current")
    if not items or not train:
        return
    w = _logistic(_features(train, train_verdicts, "current"), np.array([float(r["label"]) for r in train]))
    labels = [float(r["label"]) for r in items]
    docs = [r["doc"] for r in items]
    x = _features(items, verdicts, "current")
    print(f"\nfitted on {fit_on.name} ({len(train)} items), weights {np.round(w, 3).tolist()}; "
          f"here {len(items)} items:\n| predictor | Spearman per document | Spearman pooled |\n|---|---:|---:|")
    for name, score in (("current verdict, weakest sentence", x[:, 1]), ("3 lowest PMI", x[:, 2]),
                        ("current verdict + 3 lowest PMI", x @ w)):
        score = list(score)
        print(f"| {name} | {metrics.per_document(metrics.spearman, score, labels, docs):.3f} "
              f"| {metrics.spearman(score, labels):.3f} |")


def combined(items: list[dict[str, Any]], data: Path) -> None:
    """The weakest verdict of each ``verdict_prompts.py`` call, in log-odds, beside the mean of the 3 lowest PMI:
    a logistic combination fitted on one half of the documents and scored on the other (2 folds, pooled)."""
    items, verdicts = _with_verdicts(items, data, "current")
    if not items:
        return
    labels = np.array([float(r["label"]) for r in items])
    docs = [r["doc"] for r in items]
    fold = {doc: i % 2 for i, doc in enumerate(dict.fromkeys(docs))}
    calls = set.intersection(*(set(verdicts[r["id"]]["p"]) for r in items)) - {"prior", "contradict"}
    sources = {line["id"]: line["source"] for line in read_jsonl(data)}
    variants = [(call, None) for call in sorted(calls)] + [("current", sources)]
    for call, checked in variants:
        x = _features(items, verdicts, call, checked)
        score = np.zeros(len(items))
        for held in (0, 1):
            fit = np.array([fold[d] != held for d in docs])
            score[~fit] = x[~fit] @ _logistic(x[fit], labels[fit])
        name = f"{call} verdict{' with the literal check' if checked else ''} + 3 lowest PMI, fitted on the other documents"
        print(f"| {name} | {metrics.roc_auc(list(score), list(labels)):.3f} "
              f"| {metrics.balanced_accuracy(list(score >= 0), list(labels)):.3f} | – |")


def report(data: Path) -> None:
    items = [r for r in stored("likelihood", data) if r["tokens"]]
    labels = [float(r["label"]) for r in items]
    docs = [r["doc"] for r in items]
    binary = set(labels) <= {0.0, 1.0}
    print(f"\n{data.name}: {len(items)} items, {len(set(docs))} documents")
    if binary:
        print("| predictor | ROC-AUC | balanced accuracy, threshold fitted on the other documents | Spearman per document |\n|---|---:|---:|---:|")
    else:
        print("| predictor | Spearman per document | Spearman pooled |\n|---|---:|---:|")
    for name, predictor in PREDICTORS.items():
        x = [predictor(r) for r in items]
        per_doc = metrics.per_document(metrics.spearman, x, labels, docs)
        if binary:
            print(f"| {name} | {metrics.roc_auc(x, labels):.3f} | {held_out_accuracy(x, labels, docs):.3f} | {per_doc:.3f} |")
        else:
            print(f"| {name} | {per_doc:.3f} | {metrics.spearman(x, labels):.3f} |")
    if binary:
        combined(items, data)
    else:
        transferred(items, data, SUMMEDITS)


def main() -> None:
    args = arguments(__doc__.splitlines()[0]).parse_args()
    if not args.report:
        run(args.data, args.limit, args.part, args.threads, args.model)
    report(args.data)


if __name__ == "__main__":
    main()
