"""Verdict probabilities: a yes/no verdict is one forward pass, read from the logits, never generated.

The probability of the constrained choice {yes, no} at the answer's first token. Verdicts whose prompts
share a prefix (one source, several claims; one summary, several questions) run as parallel sequences of
one batch: the prefix is evaluated once and shared in the KV cache, each prompt's own tail is a sequence
of its own.
"""

from __future__ import annotations

import time

import numpy as np

from ...errors import ModelError
from ...protocol import JudgeCall, Messages
from .engine import Engine
from .kv import Prefixes, common_prefix

YES = ("yes", "Yes", "YES", " yes", " Yes")
NO = ("no", "No", "NO", " no", " No")
# Verdict tails evaluated side by side in one batch, each its own sequence (sequence 0 holds the prefix).
PARALLEL_SEQUENCES = 16

Prompt = tuple[str, list[int], list[int]]
"""A templated prompt: its text, its tokens, and where its segments start (``Engine.prompt``)."""


class YesNo:
    """The probability of "yes" against "no" from an engine's logits."""

    def __init__(self, engine: Engine, name: str) -> None:
        self.yes = engine.single_tokens(YES)
        self.no = engine.single_tokens(NO)
        if not self.yes or not self.no:
            raise ModelError(
                f"{name}: the vocabulary has no single token for yes/no, so verdict probabilities cannot be read"
            )

    def p_yes(self, logits: np.ndarray) -> float:
        logits = logits.astype(np.float64)
        yes, no = logits[self.yes], logits[self.no]
        top = max(yes.max(), no.max())
        p_yes, p_no = np.exp(yes - top).sum(), np.exp(no - top).sum()
        return float(p_yes / (p_yes + p_no))


def one_verdict(
    engine: Engine, prefixes: Prefixes, yes_no: YesNo, step: str, prompt: Prompt
) -> tuple[float, JudgeCall]:
    text, tokens, starts = prompt
    engine.check_fits(step, tokens, 1)
    start = time.perf_counter()
    evaluated, reused = prefixes.feed(tokens, starts)
    p = yes_no.p_yes(engine.last_logits())
    return p, JudgeCall(step, text, f"p(yes)={p:.4f}", evaluated, reused, 0, time.perf_counter() - start)


def shared_boundary(prompts: list[Prompt]) -> int:
    """The last segment start that every prompt has, at the same token offset, with the same tokens before
    it, and before each prompt's last token; 0 if none."""
    tokens0, starts0 = prompts[0][1], prompts[0][2]
    common = min(common_prefix(tokens0, tokens) for _, tokens, _ in prompts[1:])
    shared = [
        s for s in starts0 if s <= common and all(s in starts and s < len(tokens) for _, tokens, starts in prompts)
    ]
    return max(shared, default=0)


def side_by_side(
    engine: Engine, prefixes: Prefixes, yes_no: YesNo, step: str, prompts: list[Prompt], shared: int
) -> list[tuple[float, JudgeCall]]:
    """The verdicts of ``prompts``, which share their first ``shared`` tokens: the prefix once, the tails as
    parallel sequences of as few batches as fit.

    The probabilities differ from one-by-one calls' by up to a few hundredths: the tails' batch changes the
    kernels' summation order, and the activations' 8-bit quantisation magnifies it. The same batch always
    gives the same values.
    """
    first_tokens, first_starts = prompts[0][1], prompts[0][2]
    prefix_starts = [s for s in first_starts if s < shared]
    start = time.perf_counter()
    evaluated, reused = prefixes.feed(first_tokens[:shared], prefix_starts, need_logits=False)
    prefix_seconds = time.perf_counter() - start
    results: list[tuple[float, JudgeCall] | None] = [None] * len(prompts)
    groups: list[list[int]] = [[]]
    for i, (_, tokens, _) in enumerate(prompts):
        tail = len(tokens) - shared
        if tail > engine.n_batch:  # a tail longer than one batch runs on its own
            results[i] = one_verdict(engine, prefixes, yes_no, step, prompts[i])
            continue
        group = groups[-1]
        size = sum(len(prompts[j][1]) - shared for j in group)
        if group and (
            len(group) == PARALLEL_SEQUENCES
            or size + tail > engine.n_batch
            or shared + size + tail > engine.context_size
        ):
            groups.append(group := [])
        group.append(i)
    first = True
    for group in (g for g in groups if g):
        if engine.n_tokens != shared:  # a long tail ran alone in between: read the prefix again
            evaluated_again, _ = prefixes.feed(first_tokens[:shared], prefix_starts, need_logits=False)
            evaluated += evaluated_again
        start = time.perf_counter()
        rows = engine.eval_tails(shared, [prompts[i][1][shared:] for i in group])
        seconds = time.perf_counter() - start
        total = sum(len(prompts[i][1]) - shared for i in group)
        for i, row in zip(group, rows):
            tail = len(prompts[i][1]) - shared
            p = yes_no.p_yes(row)
            share = seconds * tail / total + (prefix_seconds if first else 0.0)
            prompt_tokens = tail + (evaluated if first else 0)
            reused_tokens = reused if first else shared
            results[i] = (p, JudgeCall(step, prompts[i][0], f"p(yes)={p:.4f}", prompt_tokens, reused_tokens, 0, share))
            first = False
    return [r for r in results if r is not None]


def verdicts(
    engine: Engine, prefixes: Prefixes, yes_no: YesNo, step: str, batch: list[Messages], parallel: bool = True
) -> list[tuple[float, JudgeCall]]:
    """One verdict per prompt of ``batch``; side by side where they share leading segments and ``parallel``."""
    prompts = [engine.prompt(m) for m in batch]
    for _, tokens, _ in prompts:
        engine.check_fits(step, tokens, 1)
    shared = shared_boundary(prompts) if parallel and len(batch) > 1 else 0
    if not shared:
        return [one_verdict(engine, prefixes, yes_no, step, p) for p in prompts]
    return side_by_side(engine, prefixes, yes_no, step, prompts, shared)
