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

Constrained against unconstrained generation: the claims prompt of the first
item, generated with our grammar (outlines-core's automaton, numpy mask), then
the same number of tokens greedily without it, then with llama.cpp's native
grammar built from the same JSON schema (its own sampler, as
``create_completion(grammar=...)`` runs it).
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..config.options import Options, make_options
from ..errors import ConfigError
from ..summarization.plan import claims_bound, claims_token_budget
from ..summarization.prompts import claims_messages
from ..summarization.schemas import claim_list
from ..summarization.scorer import create_summarization_scorer


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
    per_step_seconds: dict[str, float] = field(default_factory=dict)


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

    def floor(self, c: EvaluationCost) -> float:
        return (c.source_tokens + 2 * c.summary_tokens) / self.prompt_rate + c.completion_tokens / self.generation_rate

    def token_floor(self, c: EvaluationCost) -> float:
        return c.prompt_tokens / self.prompt_rate + c.completion_tokens / self.generation_rate

    def summary(self) -> dict[str, Any]:
        secs = [c.seconds for c in self.items]
        median = lambda xs: round(statistics.median(xs), 2)
        return {
            "model": self.model,
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
        }

    def markdown(self) -> str:
        s = self.summary()
        lines = [
            f"judge {s['model']}, {s['threads']} threads; load and verify {s['load_seconds']} s (once per process)",
            "",
            "| item | seconds | calls | prompt tokens evaluated / reused | generated | in llama.cpp | engine floor | ratio |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for c in self.items:
            lines.append(
                f"| {c.id} | {c.seconds:.1f} | {c.calls} | {c.prompt_tokens} / {c.reused_prompt_tokens} | {c.completion_tokens} "
                f"| {c.engine_seconds / c.seconds:.0%} | {self.floor(c):.1f} | {c.seconds / self.floor(c):.2f} |"
            )
        lines += [
            "",
            f"median {s['median_seconds']} s per evaluation (min {s['min_seconds']}, max {s['max_seconds']}); "
            f"{s['tokens_per_second']} tokens/s; {s['engine_share']:.0%} of the wall time inside llama.cpp",
            f"bare llama.cpp in the same run: {s['raw_prompt_tokens_per_second']} prompt tokens/s, "
            f"{s['raw_generation_tokens_per_second']} generated tokens/s",
            f"median time / engine floor (source once, summary twice, generated tokens) = {s['median_ratio_to_engine_floor']}; "
            f"/ token floor (the tokens actually evaluated) = {s['median_ratio_to_token_floor']}",
            f"generation: {s['constrained_ms_per_token']} ms per token with the grammar, "
            f"{s['unconstrained_ms_per_token']} ms without, {s['native_grammar_ms_per_token']} ms with llama.cpp's native grammar",
        ]
        return "\n".join(lines) + "\n"

    def to_json(self) -> str:
        return json.dumps({**self.summary(), "rows": [asdict(c) for c in self.items]})


def first_item_per_source(path: Path, n: int) -> list[dict[str, Any]]:
    seen: set[str] = set()
    items = []
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        doc = (item.get("meta") or {}).get("doc_id") or item["source"]
        if doc not in seen:
            seen.add(doc)
            items.append(item)
        if len(items) == n:
            break
    return items


def run_speed(
    data: Path, *, model: str | None = None, items: int = 5, options: Options | None = None, **settings: object
) -> SpeedReport:
    """The first summary of each of the first ``items`` sources, timed; the judge-call cache is never used."""
    options = make_options(options, **settings).replace(cache=False)
    start = time.perf_counter()
    scorer = create_summarization_scorer(model, options=options)
    load = time.perf_counter() - start
    judge = scorer.judge
    if not hasattr(judge, "engine_seconds"):
        raise ConfigError(f"bench speed measures the llama.cpp judge; {judge.info.name} is not one")
    costs = []
    chosen = first_item_per_source(data, items)
    for item in chosen:
        engine = judge.engine_seconds
        t = time.perf_counter()
        result = scorer.run(input=item["source"], output=item["summary"])
        seconds = time.perf_counter() - t
        steps = result.provenance.steps
        costs.append(EvaluationCost(
            id=item["id"], seconds=seconds, calls=sum(s.calls for s in steps),
            prompt_tokens=sum(s.prompt_tokens for s in steps),
            reused_prompt_tokens=sum(s.reused_prompt_tokens for s in steps),
            completion_tokens=sum(s.completion_tokens for s in steps), engine_seconds=judge.engine_seconds - engine,
            source_tokens=judge.count_tokens(item["source"]), summary_tokens=judge.count_tokens(item["summary"]),
            per_step_seconds={s.step: round(s.seconds, 2) for s in steps},
        ))
    summary = chosen[0]["summary"]
    bound = claims_bound(summary)
    constrained, unconstrained, native = judge.generation_costs(
        "claims", claims_messages(summary), claim_list(bound), claims_token_budget(judge.count_tokens(summary), bound)
    )
    prompt_rate, generation_rate = judge.bare_rates(chosen[0]["source"])
    return SpeedReport(
        model=judge.info.name, threads=getattr(judge, "n_threads", 0), load_seconds=load,
        prompt_rate=prompt_rate, generation_rate=generation_rate, items=costs,
        constrained_seconds_per_token=constrained, unconstrained_seconds_per_token=unconstrained,
        native_grammar_seconds_per_token=native,
    )
