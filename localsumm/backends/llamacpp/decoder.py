"""The constrained decoder: greedy generation through outlines' token automaton, drafting several tokens a pass.

Our own loop drives ``grammar.TokenConstraint`` instead of ``outlines.from_llamacpp(...).generate``: that
wrapper resets the model after every call (losing the prefix) and runs its logits processor inside
llama.cpp's sampler callback, where an exception is printed and swallowed and the constraint silently
disappears. Here an exception in the constraint propagates.

Prompt-lookup decoding: the tokens that followed the latest occurrence of the last few tokens, in the
prompt or the answer so far, are drafted and checked in one batch; a draft token is kept only where the
grammar-masked greedy choice is that token, so decoding stays greedy and every token passes the grammar.
Batched logits differ from one-token ones in the last bits, so a near tie can go the other way: the
answer is deterministic, not the undrafted one token for token.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import JudgeError
from .engine import Engine

# Match the last DRAFT_NGRAM tokens (down to 2) earlier in the text and draft up to DRAFT_TOKENS of what
# followed. Generation is memory-bound here, so a batch of a few tokens costs little more than one; (2, 3)
# was the fastest setting measured (benchmarks/RESULTS.md).
DRAFT_NGRAM = 2
DRAFT_TOKENS = 3


@dataclass
class Drafts:
    """Tokens drafted by prompt lookup, and of those the tokens kept, since the judge was loaded."""

    drafted: int = 0
    kept: int = 0


def lookup_draft(tokens: list[int], ngram: int, limit: int) -> list[int]:
    """Prompt-lookup draft: the tokens that followed the latest earlier occurrence of the last ``ngram``
    tokens (trying shorter n-grams down to 2), at most ``limit`` of them."""
    if limit <= 0:
        return []
    n_all = len(tokens)
    for n in range(ngram, 1, -1):
        if n_all <= n:
            continue
        tail = tokens[-n:]
        for i in range(n_all - n - 1, -1, -1):
            if tokens[i : i + n] == tail:
                return tokens[i + n : min(i + n + limit, n_all)]
    return []


def greedy(engine: Engine, step: str, constraint: Any, logits: np.ndarray, out: list[int]) -> int:
    """The most probable token the grammar allows after ``out``."""
    masked = constraint.mask(logits.copy())
    token = int(np.argmax(masked))
    if not np.isfinite(masked[token]):
        raise JudgeError(f"{step}: the grammar allows no token after {engine.decode(out)!r}")
    return token


def decode(
    engine: Engine, step: str, prompt_tokens: list[int], constraint: Any, max_tokens: int, drafts: Drafts | None
) -> list[int]:
    """The answer's tokens, greedy under ``constraint``, from the logits after ``prompt_tokens`` (already
    evaluated); ``drafts`` (None: no drafting) counts the drafted tokens."""
    out: list[int] = []
    logits = engine.last_logits().copy()
    while True:
        token = greedy(engine, step, constraint, logits, out)
        if token == engine.eos:
            return out
        if len(out) == max_tokens:
            raise JudgeError(
                f"{step}: the judge's answer hit its cap of {max_tokens} tokens before the JSON was complete"
            )
        out.append(token)
        constraint.advance(token)
        limit = min(DRAFT_TOKENS, max_tokens - len(out))
        if drafts is None or not (draft := lookup_draft(prompt_tokens + out, DRAFT_NGRAM, limit)):
            engine.eval([token])
            logits = engine.last_logits().copy()
            continue
        # rows[j] holds the logits after [token, *draft][j]: a draft token is kept while it is the greedy choice.
        before = engine.n_tokens
        rows = engine.eval_rows([token, *draft])
        drafts.drafted += len(draft)
        kept = 0
        for guess, row in zip(draft, rows):
            choice = greedy(engine, step, constraint, row, out)
            if choice != guess or choice == engine.eos:
                break
            out.append(guess)
            constraint.advance(guess)
            kept += 1
        drafts.kept += kept
        engine.rewind(before + 1 + kept)
        logits = rows[kept]
