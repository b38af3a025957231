"""The constraint layer: a pydantic type -> outlines' JSON-schema logits processor.

Two measured costs shape this module (``benchmarks/experiments/grammar_cost.py``):

- A bounded string (``maxLength: 300``) inside a bounded list becomes a regex
  repetition ``{3,300}`` repeated per item; the automaton grows with the
  product, and building outlines' token index took 62–82 s for the claims
  schema even with SmolLM2's 49k vocabulary (1.2 s without the string bound).
  The grammar therefore bounds lists but not string lengths; pydantic enforces the string bounds on the result, and the
  generation's token cap bounds the text in any case.
- Building the index for one schema still takes 4–9 s with Qwen2.5's 151k
  vocabulary, so the built index is pickled in the cache directory, keyed by
  the model's sha256, the regex and the outlines-core version; loading it
  takes 0.2–0.8 s.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, get_args

import numpy as np
from pydantic import BaseModel, TypeAdapter, ValidationError

from ..config.paths import cache_root
from ..errors import JudgeError

T = TypeVar("T", bound=BaseModel)

# Whitespace between JSON tokens: at most one space, so a constrained
# generation cannot loop on whitespace until its token cap.
JSON_WHITESPACE = r"[ ]?"


def grammar_schema(output_type: type[BaseModel]) -> dict[str, Any]:
    """The type's JSON schema without string length maxima (see the module notes)."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if not (k == "maxLength" and node.get("type") == "string")}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    schema: dict[str, Any] = strip(output_type.model_json_schema())
    return schema


def parse(output_type: type[T], text: str) -> T:
    """Validate constrained output, dropping list items that break bounds the grammar leaves out.

    The grammar guarantees the JSON shape; a string longer than its maxLength
    can still appear (see the module notes). Such an item is dropped rather than
    failing the whole answer: one run-on question must not cost a source all of
    its questions. If what remains is still invalid (e.g. no item left), raise.
    """
    try:
        return output_type.model_validate_json(text)
    except ValidationError:
        pass
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise JudgeError(f"the judge's output is not JSON: {e.msg}") from None
    if isinstance(data, dict):
        for name, field in output_type.model_fields.items():
            items = data.get(name)
            args = get_args(field.annotation)
            if isinstance(items, list) and args:
                item_type = TypeAdapter(args[0])
                data[name] = [item for item in items if _valid(item_type, item)]
    try:
        return output_type.model_validate(data)
    except ValidationError as e:
        raise JudgeError(f"the judge's JSON does not match its schema: {e.errors()[0]['msg']}") from None


def _valid(adapter: TypeAdapter[Any], item: Any) -> bool:
    try:
        adapter.validate_python(item)
        return True
    except ValidationError:
        return False


def schema_regex(output_type: type[BaseModel]) -> str:
    from outlines_core.json_schema import build_regex_from_schema

    regex: str = build_regex_from_schema(json.dumps(grammar_schema(output_type), sort_keys=True), JSON_WHITESPACE)
    return regex


class TokenConstraint:
    """One generation's position in a schema's automaton: which tokens may come next.

    Drives outlines-core's ``Guide`` directly and applies its token bitmask
    with numpy. outlines' own numpy kernel does the same with a numba loop,
    which costs a JIT compile per process and ~75 MiB of LLVM for an
    operation numpy does in well under a millisecond per token.
    """

    def __init__(self, index: Any, n_vocab: int) -> None:
        from outlines_core import Guide

        self._guide = Guide(index)
        self._n_vocab = n_vocab
        self._bits = np.full((n_vocab + 31) // 32, -1, dtype=np.int32)

    def mask(self, logits: np.ndarray) -> np.ndarray:
        """``logits`` (modified in place) with every token the grammar forbids at -inf."""
        self._guide.write_mask_into(self._bits.ctypes.data, self._bits.size, self._bits.itemsize)
        # Bit b of word w allows token 32*w + b; little-endian words unpack in token order.
        allowed = np.unpackbits(self._bits.view(np.uint8), bitorder="little")[: self._n_vocab]
        logits[allowed == 0] = -np.inf
        return logits

    def advance(self, token: int) -> None:
        self._guide.advance(token_id=token, return_tokens=False)


class Grammars:
    """Token constraints for one model, each schema's index built once and cached on disk."""

    def __init__(self, build_vocabulary: Callable[[], Any], model_sha256: str | None, n_vocab: int) -> None:
        self._build_vocabulary = build_vocabulary
        self._vocabulary: Any = None
        self._model_sha256 = model_sha256
        self._n_vocab = n_vocab
        self._indexes: dict[type[BaseModel], Any] = {}

    def constraint(self, output_type: type[BaseModel]) -> TokenConstraint:
        """A constraint at the start of ``output_type``'s JSON."""
        if output_type not in self._indexes:
            self._indexes[output_type] = self._index(schema_regex(output_type))
        return TokenConstraint(self._indexes[output_type], self._n_vocab)

    def _index(self, regex: str) -> Any:
        path = self._cache_path(regex)
        if path is not None and path.is_file():
            try:
                with path.open("rb") as f:
                    return pickle.load(f)
            except Exception:  # a damaged cache entry is rebuilt, never trusted
                pass
        from outlines_core import Index

        if self._vocabulary is None:
            self._vocabulary = self._build_vocabulary()
        index = Index(regex, self._vocabulary)
        if path is not None:
            _write_atomically(path, pickle.dumps(index))
        return index

    def _cache_path(self, regex: str) -> Path | None:
        if not self._model_sha256:
            return None
        import outlines_core

        version = getattr(outlines_core, "__version__", "unknown")
        key = hashlib.sha256(f"{self._model_sha256}\n{version}\n{regex}".encode()).hexdigest()[:32]
        return cache_root() / "grammars" / f"{key}.pickle"


def _write_atomically(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs time
