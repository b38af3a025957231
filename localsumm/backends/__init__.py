"""Judge backends; each implements the judge protocol (``localsumm.protocol.Judge``).

- ``llamacpp``: a local GGUF model in-process (the default: a registry name or a ``.gguf`` path).
- ``openai``: an OpenAI-compatible chat-completions endpoint (``openai:<name>``).

A backend is found by the prefix of the model name. The built-in ``openai:``
registers through :func:`register_backend`, the same hook a plugin uses, either
by calling it or by naming an opener in the ``localsumm.backends`` entry-point
group (``myjudge = "my_package:open_judge"`` makes ``--model myjudge:NAME`` work).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from ..config.options import Options, make_options
from ..config.thresholds import threshold_override
from ..errors import ModelError
from ..models.registry import resolve_model
from ..protocol import Judge, Thresholds

Opener = Callable[[str, Options], Judge]
"""Opens the judge ``NAME`` of ``prefix:NAME`` with the given options."""

_BACKENDS: dict[str, Opener] = {}


def register_backend(prefix: str, opener: Opener) -> None:
    """Make ``--model PREFIX:NAME`` (and ``model="PREFIX:NAME"``) open a judge with ``opener``."""
    _BACKENDS[prefix] = opener


def _plugin(prefix: str) -> Opener | None:
    for entry in entry_points(group="localsumm.backends"):
        if entry.name == prefix:
            register_backend(prefix, entry.load())
            return _BACKENDS[prefix]
    return None


def _open_openai(name: str, options: Options) -> Judge:
    from .llamacpp import DEFAULT_SEED
    from .openai import DEFAULT_CONTEXT, OpenAIJudge

    return OpenAIJudge(
        name,
        base_url=options.base_url,
        context_size=options.n_ctx or DEFAULT_CONTEXT,
        seed=DEFAULT_SEED if options.seed is None else options.seed,
        response_format=options.response_format or "json_schema",
    )


register_backend("openai", _open_openai)


def _open_gguf(model: str | os.PathLike[str] | None, options: Options) -> Judge:
    from .llamacpp import DEFAULT_N_CTX, DEFAULT_SEED, load_judge

    resolved = resolve_model(model)
    # A local calibration (`localsumm calibrate`) wins over the registry's thresholds.
    thresholds = threshold_override(resolved.sha256) or (resolved.spec.thresholds if resolved.spec else Thresholds())
    return load_judge(
        str(resolved.path),
        name=resolved.name,
        sha256=resolved.sha256,
        thresholds=thresholds,
        n_ctx=options.n_ctx or DEFAULT_N_CTX,
        n_threads=options.threads,
        n_gpu_layers=options.gpu_layers or 0,
        seed=DEFAULT_SEED if options.seed is None else options.seed,
    )


def backend_prefix(model: Any) -> str | None:
    """The backend prefix of ``model`` ("openai" for "openai:gpt-4o"), or None for a local GGUF."""
    if not isinstance(model, str) or ":" not in model or os.path.exists(model):
        return None
    prefix = model.split(":", 1)[0]
    # A Windows drive ("C:\\models\\x.gguf") is a path, not a backend.
    return prefix if len(prefix) > 1 else None


def open_judge(model: str | os.PathLike[str] | None = None, options: Options | None = None, **settings: Any) -> Judge:
    """The judge for a registry name or a GGUF path (None: the default judge), run by llama.cpp, or for
    ``PREFIX:NAME``, the registered backend's judge (``openai:NAME``: that model behind ``base_url``).

    ``settings`` are :class:`~localsumm.config.Options` fields (``n_ctx=8192``), for calls without an
    options object.
    """
    options = make_options(options, **settings)
    prefix = backend_prefix(model)
    if prefix is None:
        return _open_gguf(model, options)
    opener = _BACKENDS.get(prefix) or _plugin(prefix)
    if opener is None:
        known = ", ".join(f"{p}:NAME" for p in _BACKENDS)
        raise ModelError(
            f"no judge backend for {prefix!r} in {model!r}; known: {known}, a registry name or a .gguf path"
        )
    return opener(str(model).split(":", 1)[1], options)


__all__ = ["Opener", "backend_prefix", "open_judge", "register_backend"]
