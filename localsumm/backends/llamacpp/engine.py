"""Loading: a GGUF model in llama-cpp-python, its chat template, and the few engine calls the judge makes.

:class:`Engine` is the judge's documented low-level interface (``LlamaCppJudge.engine``): the benchmarks
time the bare engine through it. Everything that reaches into llama-cpp-python's private objects is here.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import re
import time
import weakref
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ConfigError, ContextOverflowError, JudgeError, ModelError
from ...models.gguf import check_context
from ...protocol import Messages, content_text

DEFAULT_N_CTX = 4096
DEFAULT_SEED = 0

_OPEN: weakref.WeakSet[Engine] = weakref.WeakSet()
"""The engines of this process that hold a model: each is closed at exit (:func:`close_all`)."""


@atexit.register
def close_all() -> None:
    """Free every open engine's model while llama-cpp-python still works.

    An engine still referenced at interpreter shutdown (a judge kept by ``load_judge``'s cache, a test's
    session fixture) would otherwise be freed by ``Llama.__del__`` after llama_cpp's module globals are
    gone: "Exception ignored in Llama.__del__ ... 'NoneType' object is not callable". atexit runs first.
    """
    for engine in list(_OPEN):
        engine.close()


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity (taskset, a container's cpuset), not the machine's count.
    More llama.cpp threads than CPUs make its threads wait on each other, many times slower."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # no affinity on this platform (macOS)
        return os.cpu_count() or 1


class Engine:
    """One ``Llama`` with a context of ``sequences`` sequences in one KV cache, and its chat template."""

    def __init__(
        self,
        path: Path,
        *,
        n_ctx: int,
        n_threads: int | None,
        n_gpu_layers: int = 0,
        n_batch: int,
        seed: int,
        sequences: int,
        extra_bytes: int,
    ) -> None:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        check_context(path, n_ctx, extra_bytes=extra_bytes)
        check_gpu_layers(n_gpu_layers)
        self.n_threads = n_threads or usable_cpus()
        try:
            self.llm = Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                n_batch=n_batch,
                n_gpu_layers=n_gpu_layers,
                seed=seed,
                logits_all=False,
                # Read the weights instead of mapping them: llama.cpp repacks most of them into its own
                # buffers at load, and a mapped file would stay resident beside the repacked copy.
                use_mmap=False,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as e:
            raise ModelError(
                f"llama.cpp could not load {path}: the file is corrupt, truncated or not a supported GGUF ({e})"
            ) from None
        _OPEN.add(self)
        self._allow_sequences(sequences)
        self.context_size: int = self.llm.n_ctx()
        self.n_batch: int = self.llm.n_batch
        self.n_vocab: int = self.llm.n_vocab()
        self.eos: int = self.llm.token_eos()
        self._bos_text = self.token_text(self.llm.token_bos())
        template = self.llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelError(f"{path} has no chat template; localsumm needs an instruction-tuned (chat) model")
        self._formatter = Jinja2ChatFormatter(
            template=template, eos_token=self.token_text(self.eos), bos_token=self._bos_text, add_generation_prompt=True
        )
        self.seconds = 0.0
        """Seconds spent inside llama.cpp's decode since the model was loaded."""

    def close(self) -> None:
        """Free the model and its context now (the engine is unusable after); closing twice is harmless."""
        _OPEN.discard(self)
        self.llm.close()

    # -- text and tokens ----------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        return len(self.tokenize(text))

    def tokenize(self, text: str) -> list[int]:
        return self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)

    def prompt(self, messages: Messages) -> tuple[str, list[int], list[int]]:
        """The templated prompt text, its tokens, and the token offsets where its segments start.

        Each segment (see ``protocol.Message``) is tokenized on its own, so its
        tokens, and the batch that evaluates them, never depend on what precedes it.
        """
        sentinel = "\x00\x1esegment\x1e\x00"
        while any(sentinel in content_text(m["content"]) for m in messages):
            sentinel += "\x00"
        joined: Any = [
            {
                "role": m["role"],
                "content": sentinel.join([m["content"]] if isinstance(m["content"], str) else m["content"]),
            }
            for m in messages
        ]
        pieces = self._formatter(messages=joined).prompt.split(sentinel)
        tokens: list[int] = []
        starts: list[int] = []
        for i, piece in enumerate(pieces):
            if i:
                starts.append(len(tokens))
            add_bos = i == 0 and not (self._bos_text and piece.startswith(self._bos_text))
            tokens += self.llm.tokenize(piece.encode("utf-8"), add_bos=add_bos, special=True)
        return "".join(pieces), tokens, starts

    def check_fits(self, step: str, tokens: list[int], answer_tokens: int) -> None:
        if len(tokens) + answer_tokens > self.context_size:
            raise ContextOverflowError(
                f"the {step} prompt is {len(tokens):,} tokens and its answer may take {answer_tokens:,} more, "
                f"but the judge's context holds {self.context_size:,} tokens"
            )

    def decode(self, tokens: list[int]) -> str:
        return self.llm.detokenize(tokens).decode("utf-8", errors="replace")

    def token_text(self, token: int) -> str:
        if token < 0:
            return ""
        return self.llm.detokenize([token], special=True).decode("utf-8", errors="replace")

    def single_tokens(self, words: tuple[str, ...]) -> list[int]:
        """The ids of those ``words`` that are one token each."""
        ids = set()
        for word in words:
            tokens = self.tokenize(word)
            if len(tokens) == 1:
                ids.add(tokens[0])
        return sorted(ids)

    # -- the live KV cache (sequence 0) ---------------------------------------------------

    @property
    def n_tokens(self) -> int:
        """Tokens the live cache holds."""
        return int(self.llm.n_tokens)

    def live_tokens(self) -> list[int]:
        return list(self.llm.input_ids[: self.llm.n_tokens])

    def keep(self, n_tokens: int) -> None:
        """Keep the first ``n_tokens`` of the live cache; the next :meth:`eval` decodes after them."""
        self.llm.n_tokens = n_tokens

    def eval(self, tokens: list[int]) -> None:
        """Decode ``tokens`` after the live cache (llama-cpp-python drops the KV entries past it first)."""
        start = time.perf_counter()
        self.llm.eval(tokens)
        self.seconds += time.perf_counter() - start

    def eval_rows(self, tokens: list[int]) -> np.ndarray:
        """Evaluate ``tokens`` (at most one batch) after the live cache; the logits after each, one row per token."""
        llm = self.llm
        start = time.perf_counter()
        llm._ctx.kv_cache_seq_rm(0, llm.n_tokens, -1)
        llm._batch.set_batch(batch=tokens, n_past=llm.n_tokens, logits_all=True)
        llm._ctx.decode(llm._batch)
        llm.input_ids[llm.n_tokens : llm.n_tokens + len(tokens)] = tokens
        llm.n_tokens += len(tokens)
        rows = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(len(tokens), self.n_vocab)).copy()
        self.seconds += time.perf_counter() - start
        return rows

    def rewind(self, n_tokens: int) -> None:
        """Forget the live cache past ``n_tokens`` (draft tokens that were not kept)."""
        self.llm._ctx.kv_cache_seq_rm(0, n_tokens, -1)
        self.llm.n_tokens = n_tokens

    def last_logits(self) -> np.ndarray:
        """The logits after the last evaluated token (a view into llama.cpp's buffer: copy to keep)."""
        import llama_cpp

        pointer = llama_cpp.llama_get_logits_ith(self.llm.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self.n_vocab,))

    # -- more sequences ------------------------------------------------------------------

    def eval_tails(self, shared: int, tails: list[list[int]]) -> list[np.ndarray]:
        """Evaluate each tail after the live cache's first ``shared`` tokens as its own sequence, all in one batch;
        the logits after each tail. The live cache (sequence 0) is left holding the shared prefix."""
        import llama_cpp

        llm = self.llm
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
            rows = [
                np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, i), shape=(self.n_vocab,)).copy()
                for i in outputs
            ]
        finally:
            for seq in range(1, len(tails) + 1):
                llama_cpp.llama_memory_seq_rm(memory, seq, -1, -1)
            self.seconds += time.perf_counter() - start
        return rows

    def _allow_sequences(self, n: int) -> None:
        """Rebuild the context to hold ``n`` sequences in one KV cache of the full size (llama-cpp-python
        offers no argument for it; split per sequence, each would get only n_ctx / n cells)."""
        from llama_cpp._internals import LlamaContext

        llm = self.llm
        params = llm.context_params
        params.n_seq_max = n
        params.kv_unified = True
        old = llm._ctx
        try:
            llm._ctx = LlamaContext(model=llm._model, params=params, verbose=False)
        except ValueError as e:
            raise ModelError(f"llama.cpp could not make a context of {n} sequences: {e}") from None
        old.close()

    # -- sequence 0's state, for KV reuse ------------------------------------------------

    def save_state(self) -> Any:
        """Sequence 0's KV entries as llama.cpp serialises them (a ctypes byte array)."""
        import llama_cpp

        size = llama_cpp.llama_state_seq_get_size(self.llm.ctx, 0)
        data = (ctypes.c_uint8 * size)()
        if llama_cpp.llama_state_seq_get_data(self.llm.ctx, data, size, 0) != size:
            raise JudgeError("llama.cpp could not copy its KV cache")
        return data

    def load_state(self, tokens: tuple[int, ...], data: Any) -> None:
        """Make the live cache hold ``tokens`` from a :meth:`save_state` copy of their KV entries."""
        import llama_cpp

        llm = self.llm
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        if not llama_cpp.llama_state_seq_set_data(llm.ctx, data, len(data), 0):
            raise JudgeError("llama.cpp could not restore a copied KV cache")
        llm.input_ids[: len(tokens)] = tokens
        llm.n_tokens = len(tokens)

    def outlines_vocabulary(self) -> Any:
        """outlines-core's view of the vocabulary: what the grammars' token indexes are built from."""
        import outlines
        from outlines.backends.outlines_core import OutlinesCoreBackend

        return OutlinesCoreBackend(outlines.from_llamacpp(self.llm)).vocabulary


def check_gpu_layers(n_gpu_layers: int) -> None:
    """Refuse layers for a GPU that this llama.cpp build cannot use: it would run them on the CPU without a word."""
    import llama_cpp

    if n_gpu_layers and not llama_cpp.llama_supports_gpu_offload():
        raise ConfigError(
            f"--gpu-layers {n_gpu_layers}: this llama.cpp build ({engine_build()}) has no GPU support; build one with "
            "`make gpu GPU=cuda` (or metal; docs/backends.md), or leave out --gpu-layers"
        )


@lru_cache(maxsize=4)
def engine_build(n_gpu_layers: int = 0) -> str:
    """llama-cpp-python's version and the instruction sets its llama.cpp was built for (its system info), and the
    layers offloaded to a GPU, if any: a GPU's kernels can move a verdict, so the cache keys and results say so."""
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode("utf-8", errors="replace")
    features = re.findall(r"\b([A-Z][A-Z0-9_]+) = 1\b", info)
    wanted = [f for f in features if f.startswith(("AVX", "AMX", "F16C", "FMA", "BMI", "SSE", "NEON", "SVE"))]
    build = f"llama-cpp-python {llama_cpp.__version__}, {' '.join(dict.fromkeys(wanted)) or 'no SIMD'}"
    if n_gpu_layers:
        build += f", GPU layers {'all' if n_gpu_layers < 0 else n_gpu_layers}"
    return build
