"""`localsumm bench speed`: where the seconds of an evaluation go, against what the engine allows.

On the first summary of each of N SummEval-style sources (no question set
shared, model loaded once), per evaluation: wall seconds, model calls, prompt
tokens evaluated and reused, generated tokens, and the share of the wall time
spent inside llama.cpp's decode. In the same run, the bare engine's prompt and
generation rates on the same GGUF give two references:

- the *engine floor*: the source read once and the summary twice at the raw
  prompt rate, plus the tokens the run generated at the raw generation rate
  (issue 6's definition: what the work would cost with no overhead at all);
- the *token floor*: the prompt tokens localsumm actually evaluated and the
  tokens it generated, at the same rates (how well each token is spent).

Where a source has a second summary in the data, it is timed right after the
first (*later summary*: the questions are shared, the source comes back from
the KV prefix kept in memory).

The engine's levers, each as a ratio in the same run: the same items again with
one lever off (verdicts one call each instead of side by side; generation one
token per pass instead of prompt-lookup drafts), from an empty KV cache each
time, with the largest difference any verdict probability shows between the
runs. The build in use (its instruction sets) and its bare rates are printed;
the build itself is a lever of set-up, not of the process
(``benchmarks/experiments/build_rates.py`` sets builds side by side). With
``--key-facts`` the items are also timed without them, so their cost is a
ratio of the same run; with ``--questions FILE``, the items are also timed
asking that question file's questions (no question or key-facts step).

Constrained against unconstrained generation: the claims prompt of the first
item, generated with our grammar (outlines-core's automaton, numpy mask), then
the same number of tokens greedily without it, then with llama.cpp's native
grammar built from the same JSON schema (its own sampler, as
``create_completion(grammar=...)`` runs it).
"""

from __future__ import annotations

import json
import os
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..backends.llamacpp import LlamaCppJudge
from ..config.options import Options, make_options
from ..errors import ConfigError
from ..protocol import Judge
from ..summarization.grounding import SourceSentences, left_out
from ..summarization.plan import claims_bound, claims_token_budget
from ..summarization.prompts import claims_messages
from ..summarization.result import SummarizationResult
from ..summarization.schemas import claim_list
from ..summarization.scorer import create_summarization_scorer
from .rates import bare_rates, generation_costs

# The steps of an evaluation as the budget names them, in the order they run (provenance's step names).
BUDGET_STEPS = {
    "questions": "questions",
    "answerable": "question checks",
    "highlights": "highlights",
    "key_facts": "key facts",
    "claims": "claims",
    "alignment": "claim verdicts",
    "coverage": "coverage verdicts",
}


# What the budget reads of each step's ``StepStats`` (prompt tokens: read by the engine; reused: from its KV cache).
BUDGET_FIELDS = ("calls", "prompt_tokens", "reused_prompt_tokens", "completion_tokens", "seconds")
StepCosts = dict[str, dict[str, float]]
"""Per step of one evaluation, its ``BUDGET_FIELDS``."""


def step_costs(result: SummarizationResult) -> StepCosts:
    return {s.step: {k: getattr(s, k) for k in BUDGET_FIELDS} for s in result.provenance.steps}


@dataclass
class EvaluationCost:
    id: str
    seconds: float
    calls: int
    prompt_tokens: int
    reused_prompt_tokens: int
    completion_tokens: int
    engine_seconds: float
    """Of ``seconds``, the time inside llama.cpp's decode."""
    source_tokens: int
    summary_tokens: int
    steps: StepCosts = field(default_factory=dict)
    later_seconds: float | None = None
    """A second summary of the same source, scored right after (None: the data has none)."""
    later_steps: StepCosts | None = None
    pointer_seconds: float = 0.0
    """Of ``seconds``, an estimate of the evidence pointers' share (words only, no judge call): the source's
    sentences indexed afresh and every claim and question pointed at, timed again after the run."""


@dataclass
class Lever:
    name: str
    seconds_off: list[float]
    """Per item, seconds with this lever off (in the order of ``SpeedReport.items``)."""
    later_off: list[float | None]
    largest_difference: float
    """The largest difference of any verdict probability between the run with the lever and without."""


@dataclass
class SpeedReport:
    model: str
    threads: int
    load_seconds: float
    prompt_rate: float
    generation_rate: float
    items: list[EvaluationCost]
    constrained_seconds_per_token: float
    unconstrained_seconds_per_token: float
    native_grammar_seconds_per_token: float
    build: str = ""
    levers: list[Lever] = field(default_factory=list)
    drafted_tokens: int = 0
    kept_draft_tokens: int = 0

    def floor(self, c: EvaluationCost) -> float:
        return (c.source_tokens + 2 * c.summary_tokens) / self.prompt_rate + c.completion_tokens / self.generation_rate

    def token_floor(self, c: EvaluationCost) -> float:
        return c.prompt_tokens / self.prompt_rate + c.completion_tokens / self.generation_rate

    def summary(self) -> dict[str, Any]:
        secs = [c.seconds for c in self.items]

        def median(xs: list[float]) -> float:
            return round(statistics.median(xs), 2)

        later = [c.later_seconds for c in self.items if c.later_seconds is not None]
        return {
            "model": self.model,
            "build": self.build,
            "threads": self.threads,
            "items": len(self.items),
            "load_seconds": round(self.load_seconds, 2),
            "median_seconds": median(secs),
            "min_seconds": round(min(secs), 2),
            "max_seconds": round(max(secs), 2),
            "median_calls": median([c.calls for c in self.items]),
            "median_prompt_tokens": median([c.prompt_tokens for c in self.items]),
            "median_reused_prompt_tokens": median([c.reused_prompt_tokens for c in self.items]),
            "median_generated_tokens": median([c.completion_tokens for c in self.items]),
            "tokens_per_second": round(sum(c.prompt_tokens + c.completion_tokens for c in self.items) / sum(secs), 1),
            "engine_share": round(sum(c.engine_seconds for c in self.items) / sum(secs), 3),
            "raw_prompt_tokens_per_second": round(self.prompt_rate, 1),
            "raw_generation_tokens_per_second": round(self.generation_rate, 1),
            "median_ratio_to_engine_floor": median([c.seconds / self.floor(c) for c in self.items]),
            "median_ratio_to_token_floor": median([c.seconds / self.token_floor(c) for c in self.items]),
            "constrained_ms_per_token": round(1000 * self.constrained_seconds_per_token, 1),
            "unconstrained_ms_per_token": round(1000 * self.unconstrained_seconds_per_token, 1),
            "native_grammar_ms_per_token": round(1000 * self.native_grammar_seconds_per_token, 1),
            "median_later_seconds": median(later) if later else None,
            "draft_tokens_kept": f"{self.kept_draft_tokens}/{self.drafted_tokens}",
            "median_pointer_ms": round(1000 * statistics.median(c.pointer_seconds for c in self.items), 1),
            "median_pointer_share": round(statistics.median(c.pointer_seconds / c.seconds for c in self.items), 4),
            "levers": {lever.name: self.lever_summary(lever) for lever in self.levers},
            "budget": self.budget(),
        }

    def budget(self) -> dict[str, dict[str, dict[str, float]]]:
        """Per step, the mean cost per item of a new source ("new") and of a later summary of it ("later")."""

        def mean(rows: list[StepCosts], step: str) -> dict[str, float]:
            return {k: round(statistics.fmean(row.get(step, {}).get(k, 0) for row in rows), 2) for k in BUDGET_FIELDS}

        firsts = [c.steps for c in self.items]
        laters = [c.later_steps for c in self.items if c.later_steps is not None]
        seen = {step for row in firsts + laters for step in row}
        return {
            step: {"new": mean(firsts, step), **({"later": mean(laters, step)} if laters else {})}
            for step in [*BUDGET_STEPS, *sorted(seen - set(BUDGET_STEPS))]
            if step in seen
        }

    def budget_markdown(self) -> list[str]:
        """The budget as a table: calls, prompt tokens read (evaluated / reused), tokens generated, seconds."""
        budget = self.budget()
        parts = ["new", "later"] if any("later" in row for row in budget.values()) else ["new"]
        zero = dict.fromkeys(BUDGET_FIELDS, 0.0)
        total = {part: {k: sum(row.get(part, zero)[k] for row in budget.values()) for k in zero} for part in parts}
        head = "| step (mean per item) | new source: calls | read / reused | generated | seconds |"
        lines = [head + (" later summary: calls | read / reused | generated | seconds |" if len(parts) > 1 else "")]
        lines.append("|---|" + "---:|" * 4 * len(parts))
        for name, row in [*((BUDGET_STEPS.get(step, step), row) for step, row in budget.items()), ("all", total)]:
            cells = [
                f"{c['calls']:.1f} | {c['prompt_tokens']:.0f} / {c['reused_prompt_tokens']:.0f} | "
                f"{c['completion_tokens']:.0f} | {c['seconds']:.2f}"
                for c in (row.get(part, zero) for part in parts)
            ]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        return lines

    def lever_summary(self, lever: Lever) -> dict[str, Any]:
        """Median of per-item ratios: seconds without the lever / with it (above 1: the lever saves time)."""
        first = [off / c.seconds for off, c in zip(lever.seconds_off, self.items)]
        later = [
            off / c.later_seconds for off, c in zip(lever.later_off, self.items) if off is not None and c.later_seconds
        ]
        return {
            "median_ratio_first": round(statistics.median(first), 2),
            "median_ratio_later": round(statistics.median(later), 2) if later else None,
            "largest_probability_difference": round(lever.largest_difference, 4),
        }

    def markdown(self) -> str:
        s = self.summary()
        lines = [
            f"judge {s['model']}, {s['threads']} threads, llama.cpp build {s['build'] or 'unknown'}; "
            f"load and verify {s['load_seconds']} s (once per process)",
            "",
            "| item | seconds | calls | prompt tokens evaluated / reused | generated | in llama.cpp | engine floor | "
            "ratio | later summary (s) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for c in self.items:
            later = "–" if c.later_seconds is None else f"{c.later_seconds:.1f}"
            lines.append(
                f"| {c.id} | {c.seconds:.1f} | {c.calls} | {c.prompt_tokens} / {c.reused_prompt_tokens} | "
                f"{c.completion_tokens} "
                f"| {c.engine_seconds / c.seconds:.0%} | {self.floor(c):.1f} | {c.seconds / self.floor(c):.2f} | "
                f"{later} |"
            )
        lines += [
            "",
            f"median {s['median_seconds']} s per evaluation (min {s['min_seconds']}, max {s['max_seconds']}); "
            f"{s['tokens_per_second']} tokens/s; {s['engine_share']:.0%} of the wall time inside llama.cpp",
            f"bare llama.cpp in the same run: {s['raw_prompt_tokens_per_second']} prompt tokens/s, "
            f"{s['raw_generation_tokens_per_second']} generated tokens/s",
            "median time / engine floor (source once, summary twice, generated tokens) = "
            f"{s['median_ratio_to_engine_floor']}; "
            f"/ token floor (the tokens actually evaluated) = {s['median_ratio_to_token_floor']}",
            f"generation: {s['constrained_ms_per_token']} ms per token with the grammar, "
            f"{s['unconstrained_ms_per_token']} ms without, {s['native_grammar_ms_per_token']} ms with llama.cpp's "
            "native grammar",
            f"later summary of the same source: median {s['median_later_seconds']} s"
            if s["median_later_seconds"] is not None
            else "later summary: the data has no second summary of these sources",
            f"prompt-lookup drafts kept: {s['draft_tokens_kept']} tokens",
            f"evidence pointers (words only, no judge call): median {s['median_pointer_ms']} ms per new source, "
            f"{s['median_pointer_share']:.2%} of its seconds",
            "",
            *self.budget_markdown(),
        ]
        if self.levers:
            lines += [
                "",
                "| lever (ratio = seconds without it / with it, median per item) | new source | later summary | "
                "largest verdict difference |",
                "|---|---:|---:|---:|",
            ]
            for name, figures in s["levers"].items():
                later = "–" if figures["median_ratio_later"] is None else f"{figures['median_ratio_later']:.2f}"
                lines.append(
                    f"| {name} | {figures['median_ratio_first']:.2f} | {later} | "
                    f"{figures['largest_probability_difference']:.4f} |"
                )
        return "\n".join(lines) + "\n"

    def to_json(self) -> str:
        return json.dumps({**self.summary(), "rows": [asdict(c) for c in self.items]})


def _doc(item: dict[str, Any]) -> str:
    return str((item.get("meta") or {}).get("doc_id") or item["source"])


def first_item_per_source(path: Path, n: int) -> list[dict[str, Any]]:
    seen: set[str] = set()
    items = []
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        doc = _doc(item)
        if doc not in seen:
            seen.add(doc)
            items.append(item)
        if len(items) == n:
            break
    return items


def later_items(path: Path, firsts: list[dict[str, Any]]) -> list[dict[str, Any] | None]:
    """For each of ``firsts``, the next summary of the same source in the file, or None."""
    wanted = {_doc(item): item["id"] for item in firsts}
    found: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        key = _doc(item)
        if key in wanted and item["id"] != wanted[key] and key not in found:
            found[key] = item
    return [found.get(_doc(item)) for item in firsts]


def _time_items(
    model: str | None, options: Options, chosen: list[dict[str, Any]], later: list[dict[str, Any] | None]
) -> tuple[list[EvaluationCost], list[list[float]]]:
    """Each first summary and then its later one, from a KV cache that holds nothing; the costs and,
    per item, every verdict probability (first summary, then later)."""
    scorer = create_summarization_scorer(model, options=options)  # a fresh question memo; the judge is shared
    judge = llamacpp_judge(scorer.judge)
    judge.prefixes.forget()
    costs, probabilities = [], []
    for item, second in zip(chosen, later):
        engine = judge.engine.seconds
        t = time.perf_counter()
        result = scorer.run(input=item["source"], output=item["summary"])
        seconds = time.perf_counter() - t
        engine_seconds = judge.engine.seconds - engine
        ps = _verdict_probabilities(result)
        later_seconds, later_steps = None, None
        if second is not None:
            t = time.perf_counter()
            second_result = scorer.run(input=second["source"], output=second["summary"])
            later_seconds = time.perf_counter() - t
            ps += _verdict_probabilities(second_result)
            later_steps = step_costs(second_result)
        steps = result.provenance.steps
        costs.append(
            EvaluationCost(
                id=item["id"],
                seconds=seconds,
                calls=sum(s.calls for s in steps),
                prompt_tokens=sum(s.prompt_tokens for s in steps),
                reused_prompt_tokens=sum(s.reused_prompt_tokens for s in steps),
                completion_tokens=sum(s.completion_tokens for s in steps),
                engine_seconds=engine_seconds,
                source_tokens=judge.count_tokens(item["source"]),
                summary_tokens=judge.count_tokens(item["summary"]),
                steps=step_costs(result),
                later_seconds=later_seconds,
                later_steps=later_steps,
                pointer_seconds=_pointer_seconds(item["source"], result),
            )
        )
        probabilities.append(ps)
    return costs, probabilities


def _pointer_seconds(source: str, result: SummarizationResult) -> float:
    """The words-only evidence of one result, found again from nothing: its source's sentences and their index,
    a pointer per claim and per question, and the sentences left out."""
    t = time.perf_counter()
    sentences = SourceSentences.of(source)
    alignment, coverage = result.preprocess_step_result.alignment, result.analyze_step_result.coverage
    for text in [v.claim for v in alignment] + [v.question for v in coverage]:
        sentences.pointer(text)
    left_out(sentences, alignment, coverage)
    return time.perf_counter() - t


def llamacpp_judge(judge: Judge) -> LlamaCppJudge:
    if not isinstance(judge, LlamaCppJudge):
        raise ConfigError(f"bench speed measures the llama.cpp judge; {judge.info.name} is not one")
    return judge


def _verdict_probabilities(result: Any) -> list[float]:
    return [v.probability or 0.0 for v in result.preprocess_step_result.alignment] + [
        v.probability or 0.0 for v in result.analyze_step_result.coverage
    ]


def _largest_difference(a: list[list[float]], b: list[list[float]]) -> float:
    """The largest difference between paired verdicts; 1.0 where the runs asked different questions."""
    worst = 0.0
    for x, y in zip(a, b):
        if len(x) != len(y):
            return 1.0
        worst = max([worst, *(abs(p - q) for p, q in zip(x, y))])
    return worst


# The judge's switches for its two in-process levers (``LlamaCppJudge.parallel`` and ``.draft``).
LEVERS = {"verdicts side by side in one batch": "parallel", "prompt-lookup drafts in generation": "draft"}


@dataclass(frozen=True)
class _Timed:
    """The items a run times and the verdict probabilities of its main timing: every other row times the same
    items and is compared with these."""

    model: str | None
    chosen: list[dict[str, Any]]
    later: list[dict[str, Any] | None]
    probabilities: list[list[float]]

    def again(self, name: str, options: Options) -> Lever:
        """The same items timed again with ``options``, as a row beside the main timing."""
        other, other_probabilities = _time_items(self.model, options, self.chosen, self.later)
        seconds, later_seconds = [c.seconds for c in other], [c.later_seconds for c in other]
        return Lever(name, seconds, later_seconds, _largest_difference(self.probabilities, other_probabilities))


def _rows_beside(
    judge: LlamaCppJudge,
    timed: _Timed,
    options: Options,
    questions: str | os.PathLike[str] | None,
    levers: bool,
    evidence: bool,
) -> list[Lever]:
    """With ``levers``, the items timed with each engine lever off; then with or without each setting whose cost
    is read the same way."""
    measured = []
    for name, switch in LEVERS.items() if levers else ():
        setattr(judge, switch, False)
        try:
            measured.append(timed.again(name, options))
        finally:
            setattr(judge, switch, True)
    if options.key_facts:  # a setting, not an engine lever, but its cost is read the same way: without / with
        measured.append(timed.again("key facts (a setting; below 1: their cost)", options.replace(key_facts=False)))
    if evidence and options.verification == "whole":  # the judged modes' cost: seconds with each / without
        for mode in ("evidence", "both"):
            these = options.replace(verification=mode)
            measured.append(timed.again(f"verification {mode} (a setting; ratio = seconds with it / without)", these))
    if questions is not None:  # a setting too: the same items asked a question file's questions
        these = options.replace(questions=questions, questions_only=True)
        measured.append(timed.again("with the question file (a setting; ratio = seconds with it / without)", these))
    return measured


def _claims_generation_costs(judge: LlamaCppJudge, summary: str) -> tuple[float, float, float]:
    """Seconds per token generating the claims of ``summary``: with our grammar, without one, and with llama.cpp's
    native grammar."""
    bound = claims_bound(summary)
    return generation_costs(
        judge,
        "claims",
        claims_messages(summary),
        claim_list(bound),
        claims_token_budget(judge.count_tokens(summary), bound),
    )


def run_speed(
    data: Path,
    *,
    model: str | None = None,
    items: int = 5,
    options: Options | None = None,
    levers: bool = True,
    questions: str | os.PathLike[str] | None = None,
    evidence: bool = False,
    **settings: object,
) -> SpeedReport:
    """The first summary of each of the first ``items`` sources (and a later one of each where the data has
    it), timed, every question generated; with ``levers``, the same again with each engine lever off; with
    ``questions`` (a question file), again asking its questions; with ``evidence``, again with ``verification``
    "evidence" and "both". The judge-call cache is never used."""
    options = make_options(options, **settings).replace(cache=False)
    if options.questions is not None:
        raise ConfigError(
            "bench speed generates the questions it times: give a question file as questions=, timed apart"
        )
    start = time.perf_counter()
    scorer = create_summarization_scorer(model, options=options)
    load = time.perf_counter() - start
    judge = llamacpp_judge(scorer.judge)
    chosen = first_item_per_source(data, items)
    later = later_items(data, chosen)
    drafted, kept = judge.drafts.drafted, judge.drafts.kept
    costs, probabilities = _time_items(model, options, chosen, later)
    drafted, kept = judge.drafts.drafted - drafted, judge.drafts.kept - kept
    measured = _rows_beside(judge, _Timed(model, chosen, later, probabilities), options, questions, levers, evidence)
    constrained, unconstrained, native = _claims_generation_costs(judge, chosen[0]["summary"])
    prompt_rate, generation_rate = bare_rates(judge, chosen[0]["source"])
    return SpeedReport(
        model=judge.info.name,
        threads=judge.engine.n_threads,
        load_seconds=load,
        prompt_rate=prompt_rate,
        generation_rate=generation_rate,
        items=costs,
        constrained_seconds_per_token=constrained,
        unconstrained_seconds_per_token=unconstrained,
        native_grammar_seconds_per_token=native,
        build=judge.build,
        levers=measured,
        drafted_tokens=drafted,
        kept_draft_tokens=kept,
    )
