"""The llama.cpp judge: a local GGUF model run in-process by llama-cpp-python.

Design points (measured facts are in the engineering notes):

- One ``Llama`` per model per process, never ``reset()``: each call keeps the
  KV cache of the longest common token prefix with the previous call, so the
  source, which starts every prompt that needs it, is read once per evaluation.
- Constrained generation drives outlines' token automaton (``grammar.TokenConstraint``)
  from our own greedy loop instead of ``outlines.from_llamacpp(...).generate``:
  that wrapper resets the model after every call (losing the prefix) and runs
  its logits processor inside llama.cpp's sampler callback, where an exception
  is printed and swallowed and the constraint silently disappears. Here an
  exception in the constraint propagates.
- A yes/no verdict is one forward pass: the probability of the constrained
  choice {yes, no} at the answer's first token, read from the logits. Verdicts
  whose prompts share a prefix (one source, several claims; one summary,
  several questions) run as parallel sequences of one batch: the prefix is
  evaluated once and shared in the KV cache, each prompt's own tail is a
  sequence of its own (:meth:`LlamaCppJudge.yes_probabilities`).
- Generation verifies several tokens per forward pass (prompt-lookup decoding):
  the tokens that followed the latest occurrence of the last few tokens, in
  the prompt or the answer so far, are drafted and checked in one batch; a
  draft token is kept only where the grammar-masked greedy choice is that
  token, so decoding stays greedy and every token passes the grammar. Batched
  logits differ from one-token ones in the last bits, so a near tie can go the
  other way: the answer is deterministic, not the undrafted one token for token.
- The coverage step shares no prefix with the source steps (different system
  text), so its KV cache never holds a source token: a separate context.
- Before a call overwrites a long evaluated prefix, its KV entries are copied
  aside (:class:`_Snapshots`); a later call that shares more with a copy than
  with the live cache restores it. In a batch, the second summary of a source
  then reads the source from memory instead of re-evaluating it, although
  claim extraction and coverage ran in between.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ContextOverflowError, JudgeError, ModelError
from ..models.gguf import check_context
from ..protocol import JudgeCall, JudgeInfo, Messages, T, Thresholds, content_text
from .grammar import Grammars, grammar_schema, parse

DEFAULT_N_CTX = 4096
DEFAULT_SEED = 0
_YES = ("yes", "Yes", "YES", " yes", " Yes")
_NO = ("no", "No", "NO", " no", " No")
# A prefix is copied aside only when at least this many evaluated tokens would be lost;
# below it, re-evaluating is about as cheap as the bookkeeping.
SNAPSHOT_MIN_TOKENS = 128
# Memory for copied prefixes. At 28 KB per token (the default judge's KV cache), 160 MB
# holds about 5,800 tokens: several sources of a batch.
SNAPSHOT_BUDGET_BYTES = 160 * 2**20
# Verdict tails evaluated side by side in one batch, each its own sequence (seq 0 holds the prefix).
PARALLEL_SEQUENCES = 16
# Prompt-lookup decoding: match the last DRAFT_NGRAM tokens (down to 2) earlier in the text and draft
# up to DRAFT_TOKENS of what followed. Generation is memory-bound here, so a batch of a few tokens
# costs little more than one. Of (3, 8), (3, 4), (4, 6), (2, 3), on the questions of 3 SummEval dev sources,
# (2, 3) was fastest: 15.3 s against 24.0 s undrafted, 20.1 s for (3, 8) (benchmarks/RESULTS.md).
DRAFT_NGRAM = 2
DRAFT_TOKENS = 3


class LlamaCppJudge:
    """A judge backed by a GGUF file. Build one with :func:`load_judge` to share it within a process."""

    def __init__(
        self,
        path: str | Path,
        *,
        name: str | None = None,
        sha256: str | None = None,
        thresholds: Thresholds = Thresholds(),
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        n_batch: int = 512,
        seed: int = DEFAULT_SEED,
        parallel: bool = True,
        draft: bool = True,
    ) -> None:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        path = Path(path)
        check_context(path, n_ctx, extra_bytes=SNAPSHOT_BUDGET_BYTES)
        self.info = JudgeInfo(
            name=name or path.name, path=str(path), sha256=sha256, thresholds=thresholds, seed=seed, engine=engine_build()
        )
        self.n_threads = n_threads or os.cpu_count() or 1
        try:
            self._llm = Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                n_batch=n_batch,
                seed=seed,
                logits_all=False,
                # Read the weights instead of mapping them: llama.cpp repacks most of them
                # into its own buffers at load, and a mapped file stays resident beside
                # the repacked copy (peak 2,334 MiB against 1,743 MiB; benchmarks/experiments/memory.py).
                use_mmap=False,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as e:
            raise ModelError(f"llama.cpp could not load {path}: the file is corrupt, truncated or not a supported GGUF ({e})") from None
        self.parallel = parallel
        self.draft = draft
        self._allow_sequences(PARALLEL_SEQUENCES + 1)
        self.context_size = self._llm.n_ctx()
        self._n_vocab = self._llm.n_vocab()
        self._eos = self._llm.token_eos()
        self._bos_text = self._token_text(self._llm.token_bos())
        template = self._llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelError(f"{path} has no chat template; localsumm needs an instruction-tuned (chat) model")
        self._formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=self._token_text(self._eos),
            bos_token=self._bos_text,
            add_generation_prompt=True,
        )
        self._yes = self._single_tokens(_YES)
        self._no = self._single_tokens(_NO)
        if not self._yes or not self._no:
            raise ModelError(f"{path}: the vocabulary has no single token for yes/no, so verdict probabilities cannot be read")
        self._grammars = Grammars(self._outlines_vocabulary, sha256, self._n_vocab)
        self._snapshots = _Snapshots(SNAPSHOT_BUDGET_BYTES)
        self._engine_seconds = 0.0
        self._drafted = self._accepted = 0

    # -- the Judge protocol ---------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def yes_probability(self, step: str, messages: Messages) -> tuple[float, JudgeCall]:
        text, tokens, starts = self._prompt(messages)
        self._check_fits(step, tokens, 1)
        start = time.perf_counter()
        evaluated, reused = self._feed(tokens, starts)
        p = self._p_yes(self._last_logits())
        call = JudgeCall(step, text, f"p(yes)={p:.4f}", evaluated, reused, 0, time.perf_counter() - start)
        return p, call

    def yes_probabilities(self, step: str, batch: list[Messages]) -> list[tuple[float, JudgeCall]]:
        """:meth:`yes_probability` for each prompt of ``batch``; prompts that share their leading segments
        are evaluated together: the shared prefix once, the tails as parallel sequences of one batch.

        The probabilities differ from one-by-one calls' by up to a few hundredths: the tails' batch
        changes the kernels' summation order, and the activations' 8-bit quantisation magnifies it.
        The same batch always gives the same values.
        """
        prompts = [self._prompt(m) for m in batch]
        for _, tokens, _ in prompts:
            self._check_fits(step, tokens, 1)
        shared = self._shared_boundary(prompts) if self.parallel and len(batch) > 1 else 0
        if not shared:
            return [self.yes_probability(step, m) for m in batch]
        first_tokens, first_starts = prompts[0][1], prompts[0][2]
        start = time.perf_counter()
        evaluated, reused = self._feed(first_tokens[:shared], [s for s in first_starts if s < shared], need_logits=False)
        prefix_seconds = time.perf_counter() - start
        results: list[tuple[float, JudgeCall] | None] = [None] * len(batch)
        groups: list[list[int]] = [[]]
        for i, (_, tokens, _) in enumerate(prompts):
            tail = len(tokens) - shared
            if tail > self._llm.n_batch:  # a tail longer than one batch runs on its own
                results[i] = self.yes_probability(step, batch[i])
                continue
            group = groups[-1]
            size = sum(len(prompts[j][1]) - shared for j in group)
            if group and (len(group) == PARALLEL_SEQUENCES or size + tail > self._llm.n_batch or shared + size + tail > self.context_size):
                groups.append(group := [])
            group.append(i)
        first = True
        for group in (g for g in groups if g):
            if self._llm.n_tokens != shared:  # a long tail ran alone in between: read the prefix again
                evaluated_again, _ = self._feed(first_tokens[:shared], [s for s in first_starts if s < shared], need_logits=False)
                evaluated += evaluated_again
            start = time.perf_counter()
            rows = self._parallel_tails(shared, [prompts[i][1][shared:] for i in group])
            seconds = time.perf_counter() - start
            total = sum(len(prompts[i][1]) - shared for i in group)
            for i, row in zip(group, rows):
                tail = len(prompts[i][1]) - shared
                p = self._p_yes(row)
                share = seconds * tail / total + (prefix_seconds if first else 0.0)
                prompt_tokens = tail + (evaluated if first else 0)
                reused_tokens = (reused if first else shared)
                results[i] = (p, JudgeCall(step, prompts[i][0], f"p(yes)={p:.4f}", prompt_tokens, reused_tokens, 0, share))
                first = False
        return [r for r in results if r is not None]

    def generate(self, step: str, messages: Messages, output_type: type[T], max_tokens: int) -> tuple[T, JudgeCall]:
        text, tokens, starts = self._prompt(messages)
        self._check_fits(step, tokens, max_tokens)
        constraint = self._grammars.constraint(output_type)
        start = time.perf_counter()
        evaluated, reused = self._feed(tokens, starts)
        out: list[int] = []
        logits = self._last_logits().copy()
        while True:
            token = self._greedy(step, constraint, logits, out)
            if token == self._eos:
                break
            if len(out) == max_tokens:
                raise JudgeError(
                    f"{step}: the judge's answer hit its cap of {max_tokens} tokens before the JSON was complete"
                )
            out.append(token)
            constraint.advance(token)
            draft = _lookup_draft(tokens + out, DRAFT_NGRAM, min(DRAFT_TOKENS, max_tokens - len(out))) if self.draft else []
            if not draft:
                self._eval([token])
                logits = self._last_logits().copy()
                continue
            # Rows[j] holds the logits after [token, *draft][j]: a draft token is kept while it is the greedy choice.
            before = self._llm.n_tokens
            rows = self._eval_rows([token, *draft])
            self._drafted += len(draft)
            kept = 0
            for guess, row in zip(draft, rows):
                choice = self._greedy(step, constraint, row, out)
                if choice != guess or choice == self._eos:
                    break
                out.append(guess)
                constraint.advance(guess)
                kept += 1
            self._accepted += kept
            self._rewind(before + 1 + kept)
            logits = rows[kept]
        output = self._decode(out)
        seconds = time.perf_counter() - start
        try:
            value = parse(output_type, output)
        except JudgeError as e:
            raise JudgeError(f"{step}: {e}") from None
        return value, JudgeCall(step, text, output, evaluated, reused, len(out), seconds)

    # -- measurement (localsumm bench speed, benchmarks/experiments) -----------------------

    def prepare(self, output_type: type[T]) -> None:
        """Build, or load from the grammar cache, the token index of ``output_type`` now, so that the first
        generation of that type does not pay for it (and a measurement can time it on its own)."""
        self._grammars.constraint(output_type)

    def outlines_vocabulary(self) -> Any:
        """outlines-core's view of this judge's vocabulary: what the token indexes are built from."""
        return self._outlines_vocabulary()

    @property
    def engine_seconds(self) -> float:
        """Seconds spent inside llama.cpp's decode by this judge's calls since it was loaded."""
        return self._engine_seconds

    def forget_prefixes(self) -> None:
        """Drop the live KV cache and the copied prefixes, so the next call reads its prompt afresh."""
        self._snapshots = _Snapshots(SNAPSHOT_BUDGET_BYTES)
        self._llm.n_tokens = 0

    @property
    def draft_counts(self) -> tuple[int, int]:
        """Tokens drafted by prompt lookup and tokens of those kept, since the judge was loaded."""
        return self._drafted, self._accepted

    @property
    def build(self) -> str:
        """The instruction sets this llama.cpp build uses, e.g. "AVX2 AVX512 AVX512_VNNI"."""
        return engine_build().split(", ", 1)[1]

    def bare_rates(self, text: str, generated: int = 32) -> tuple[float, float]:
        """Prompt and generation tokens/s of the bare engine on ``text`` (no template, no grammar).

        Clears the KV cache before and after, so the next call reads its prompt afresh.
        """
        llm = self._llm
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=False)
        llm.n_tokens = 0
        start = time.perf_counter()
        llm.eval(tokens)
        prompt_rate = len(tokens) / (time.perf_counter() - start)
        start = time.perf_counter()
        for token in tokens[:generated]:
            llm.eval([token])  # one token per decode, as generation does
        generation_rate = min(generated, len(tokens)) / (time.perf_counter() - start)
        llm.n_tokens = 0
        return prompt_rate, generation_rate

    def generation_costs(self, step: str, messages: Messages, output_type: type[T], max_tokens: int) -> tuple[float, float, float]:
        """Seconds per generated token for one prompt: with our grammar, without any, and with llama.cpp's
        native grammar built from the same JSON schema (its own sampler, as ``create_completion(grammar=...)``
        runs it). Each timing starts from the same KV cache (the prompt's prefix)."""
        from llama_cpp import LlamaGrammar

        _, call = self.generate(step, messages, output_type, max_tokens)
        n = max(call.completion_tokens, 1)
        _, tokens, starts = self._prompt(messages)
        start = time.perf_counter()
        self._feed(tokens, starts)
        for _ in range(n):
            self._llm.eval([int(np.argmax(self._last_logits()))])
        unconstrained = (time.perf_counter() - start) / n
        start = time.perf_counter()
        self.generate(step, messages, output_type, max_tokens)
        constrained = (time.perf_counter() - start) / n
        native = LlamaGrammar.from_json_schema(json.dumps(grammar_schema(output_type)), verbose=False)
        self._feed(tokens[: starts[-1]], starts[:-1])  # create_completion evaluates the last segment itself
        start = time.perf_counter()
        out = self._llm.create_completion(tokens, grammar=native, max_tokens=max_tokens, temperature=0.0)
        native_seconds = (time.perf_counter() - start) / max(out["usage"]["completion_tokens"], 1)
        self._llm.n_tokens = 0  # create_completion's cache bookkeeping is not the judge's: start clean
        return constrained, unconstrained, native_seconds

    # -- the engine ------------------------------------------------------------------

    def _eval(self, tokens: list[int]) -> None:
        start = time.perf_counter()
        self._llm.eval(tokens)
        self._engine_seconds += time.perf_counter() - start

    def _eval_rows(self, tokens: list[int]) -> np.ndarray:
        """Evaluate ``tokens`` (at most one batch) after the live cache; the logits after each, one row per token."""
        llm = self._llm
        start = time.perf_counter()
        llm._ctx.kv_cache_seq_rm(0, llm.n_tokens, -1)
        llm._batch.set_batch(batch=tokens, n_past=llm.n_tokens, logits_all=True)
        llm._ctx.decode(llm._batch)
        llm.input_ids[llm.n_tokens : llm.n_tokens + len(tokens)] = tokens
        llm.n_tokens += len(tokens)
        rows = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(len(tokens), self._n_vocab)).copy()
        self._engine_seconds += time.perf_counter() - start
        return rows

    def _rewind(self, n_tokens: int) -> None:
        """Forget the live cache past ``n_tokens`` (draft tokens that were not kept)."""
        self._llm._ctx.kv_cache_seq_rm(0, n_tokens, -1)
        self._llm.n_tokens = n_tokens

    def _greedy(self, step: str, constraint: Any, logits: np.ndarray, out: list[int]) -> int:
        masked = constraint.mask(logits.copy())
        token = int(np.argmax(masked))
        if not np.isfinite(masked[token]):
            raise JudgeError(f"{step}: the grammar allows no token after {self._decode(out)!r}")
        return token

    def _p_yes(self, logits: np.ndarray) -> float:
        logits = logits.astype(np.float64)
        yes, no = logits[self._yes], logits[self._no]
        top = max(yes.max(), no.max())
        p_yes, p_no = np.exp(yes - top).sum(), np.exp(no - top).sum()
        return float(p_yes / (p_yes + p_no))

    def _allow_sequences(self, n: int) -> None:
        """Rebuild the context to hold ``n`` sequences in one KV cache of the full size (llama-cpp-python
        offers no argument for it; split per sequence, each would get only n_ctx / n cells)."""
        from llama_cpp._internals import LlamaContext

        llm = self._llm
        params = llm.context_params
        params.n_seq_max = n
        params.kv_unified = True
        old = llm._ctx
        try:
            llm._ctx = LlamaContext(model=llm._model, params=params, verbose=False)
        except ValueError as e:
            raise ModelError(f"llama.cpp could not make a context of {n} sequences: {e}") from None
        old.close()

    def _shared_boundary(self, prompts: list[tuple[str, list[int], list[int]]]) -> int:
        """The last segment start that every prompt has, at the same token offset, with the same tokens before
        it, and before each prompt's last token; 0 if none."""
        tokens0, starts0 = prompts[0][1], prompts[0][2]
        common = min(_common_prefix(tokens0, tokens) for _, tokens, _ in prompts[1:])
        shared = [s for s in starts0 if s <= common and all(s in starts and s < len(tokens) for _, tokens, starts in prompts)]
        return max(shared, default=0)

    def _parallel_tails(self, shared: int, tails: list[list[int]]) -> list[np.ndarray]:
        """Evaluate each tail after the live cache's first ``shared`` tokens as its own sequence, all in one batch;
        the logits after each tail. The live cache (sequence 0) is left holding the shared prefix."""
        import llama_cpp

        llm = self._llm
        memory = llm._ctx.memory
        batch = llm._batch.batch
        start = time.perf_counter()
        outputs = []
        k = 0
        try:
            for seq, tail in enumerate(tails, start=1):
                llama_cpp.llama_memory_seq_cp(memory, 0, seq, 0, shared)
                for offset, token in enumerate(tail):
                    batch.token[k] = token
                    batch.pos[k] = shared + offset
                    batch.n_seq_id[k] = 1
                    batch.seq_id[k][0] = seq
                    batch.logits[k] = offset == len(tail) - 1
                    k += 1
                outputs.append(k - 1)
            batch.n_tokens = k
            llm._ctx.decode(llm._batch)
            rows = [np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, i), shape=(self._n_vocab,)).copy() for i in outputs]
        finally:
            for seq in range(1, len(tails) + 1):
                llama_cpp.llama_memory_seq_rm(memory, seq, -1, -1)
            self._engine_seconds += time.perf_counter() - start
        return rows

    def _prompt(self, messages: Messages) -> tuple[str, list[int], list[int]]:
        """The templated prompt text, its tokens, and the token offsets where its segments start.

        Each segment (see ``protocol.Message``) is tokenized on its own, so its
        tokens, and the batch that evaluates them, never depend on what precedes it.
        """
        sentinel = "\x00\x1esegment\x1e\x00"
        while any(sentinel in content_text(m["content"]) for m in messages):
            sentinel += "\x00"
        joined = [{"role": m["role"], "content": sentinel.join([m["content"]] if isinstance(m["content"], str) else m["content"])} for m in messages]
        pieces = self._formatter(messages=joined).prompt.split(sentinel)
        tokens: list[int] = []
        starts: list[int] = []
        for i, piece in enumerate(pieces):
            if i:
                starts.append(len(tokens))
            add_bos = i == 0 and not (self._bos_text and piece.startswith(self._bos_text))
            tokens += self._llm.tokenize(piece.encode("utf-8"), add_bos=add_bos, special=True)
        return "".join(pieces), tokens, starts

    def _check_fits(self, step: str, tokens: list[int], answer_tokens: int) -> None:
        if len(tokens) + answer_tokens > self.context_size:
            raise ContextOverflowError(
                f"the {step} prompt is {len(tokens):,} tokens and its answer may take {answer_tokens:,} more, "
                f"but the judge's context holds {self.context_size:,} tokens"
            )

    def _feed(self, tokens: list[int], starts: list[int], need_logits: bool = True) -> tuple[int, int]:
        """Evaluate ``tokens``, reusing cached KV entries; returns (evaluated, reused).

        Reuse stops at the last segment start inside the common prefix, and each
        remaining segment is evaluated as one batch. A segment's KV entries are
        then always computed from the same batch, whatever the cache held before:
        llama.cpp's kernels differ by batch size in the last bits, and without
        this a result would depend on what was scored before it. A restored
        snapshot holds entries computed by the same rule, so it changes nothing
        but the time.
        """
        llm = self._llm
        bounds = [0, *starts, len(tokens)]

        def reusable(cached: Any) -> int:  # the last segment runs when its logits are needed
            common = _common_prefix(cached, tokens)
            return max(b for b in (bounds[:-1] if need_logits else bounds) if b <= common)

        live = list(llm.input_ids[: llm.n_tokens])
        reused = reusable(live)
        best = self._snapshots.best(reusable)
        if len(live) - reused >= SNAPSHOT_MIN_TOKENS:
            self._snapshots.add(self._capture(live))
        if best is not None and best[1] > reused:
            self._restore(best[0])
            reused = best[1]
        llm.n_tokens = reused  # eval() drops the KV entries past n_tokens before decoding
        for start, end in zip(bounds, bounds[1:]):
            if end > reused and end > start:
                self._eval(tokens[start:end])
        return len(tokens) - reused, reused

    def _capture(self, tokens: list[int]) -> _Snapshot:
        import llama_cpp

        size = llama_cpp.llama_state_seq_get_size(self._llm.ctx, 0)
        data = (ctypes.c_uint8 * size)()
        if llama_cpp.llama_state_seq_get_data(self._llm.ctx, data, size, 0) != size:
            raise JudgeError("llama.cpp could not copy its KV cache")
        return _Snapshot(tuple(tokens), data)

    def _restore(self, snapshot: _Snapshot) -> None:
        import llama_cpp

        llm = self._llm
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        if not llama_cpp.llama_state_seq_set_data(llm.ctx, snapshot.data, len(snapshot.data), 0):
            raise JudgeError("llama.cpp could not restore a copied KV cache")
        llm.input_ids[: len(snapshot.tokens)] = snapshot.tokens
        llm.n_tokens = len(snapshot.tokens)

    def _last_logits(self) -> np.ndarray:
        import llama_cpp

        pointer = llama_cpp.llama_get_logits_ith(self._llm.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self._n_vocab,))

    def _outlines_vocabulary(self) -> Any:
        import outlines
        from outlines.backends.outlines_core import OutlinesCoreBackend

        return OutlinesCoreBackend(outlines.from_llamacpp(self._llm)).vocabulary

    def _decode(self, tokens: list[int]) -> str:
        return self._llm.detokenize(tokens).decode("utf-8", errors="replace")

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        return self._llm.detokenize([token], special=True).decode("utf-8", errors="replace")

    def _single_tokens(self, words: tuple[str, ...]) -> list[int]:
        ids = set()
        for word in words:
            tokens = self._llm.tokenize(word.encode("utf-8"), add_bos=False, special=False)
            if len(tokens) == 1:
                ids.add(tokens[0])
        return sorted(ids)


def _lookup_draft(tokens: list[int], ngram: int, limit: int) -> list[int]:
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


def _common_prefix(a: Any, b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


@dataclass(frozen=True)
class _Snapshot:
    tokens: tuple[int, ...]
    data: Any
    """The sequence's KV entries as llama.cpp serialises them (a ctypes byte array)."""


class _Snapshots:
    """Copied KV prefixes, most recently used last, within a byte budget."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._items: OrderedDict[tuple[int, ...], _Snapshot] = OrderedDict()

    def add(self, snapshot: _Snapshot) -> None:
        if len(snapshot.data) > self.budget:
            return
        n = len(snapshot.tokens)
        for key in list(self._items):  # a copy that extends another makes the shorter one useless
            if key == snapshot.tokens[: len(key)] or snapshot.tokens == key[:n]:
                if len(key) <= n:
                    del self._items[key]
                else:
                    return
        self._items[snapshot.tokens] = snapshot
        while sum(len(s.data) for s in self._items.values()) > self.budget:
            self._items.popitem(last=False)

    def best(self, score: Any) -> tuple[_Snapshot, int] | None:
        """The snapshot with the highest positive ``score(tokens)`` and that score; marked as recently used."""
        scored = [(score(key), key) for key in self._items]
        if not scored:
            return None
        top, key = max(scored, key=lambda pair: pair[0])
        if top <= 0:
            return None
        self._items.move_to_end(key)
        return self._items[key], top


@lru_cache(maxsize=1)
def engine_build() -> str:
    """llama-cpp-python's version and the instruction sets its llama.cpp was built for (its system info)."""
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode("utf-8", errors="replace")
    features = re.findall(r"\b([A-Z][A-Z0-9_]+) = 1\b", info)
    wanted = [f for f in features if f.startswith(("AVX", "AMX", "F16C", "FMA", "BMI", "SSE", "NEON", "SVE"))]
    return f"llama-cpp-python {llama_cpp.__version__}, {' '.join(dict.fromkeys(wanted)) or 'no SIMD'}"


@lru_cache(maxsize=4)
def load_judge(
    path: str,
    *,
    name: str | None = None,
    sha256: str | None = None,
    thresholds: Thresholds = Thresholds(),
    n_ctx: int = DEFAULT_N_CTX,
    n_threads: int | None = None,
    seed: int = DEFAULT_SEED,
) -> LlamaCppJudge:
    """The judge for these settings, loaded once per process."""
    return LlamaCppJudge(path, name=name, sha256=sha256, thresholds=thresholds, n_ctx=n_ctx, n_threads=n_threads, seed=seed)
