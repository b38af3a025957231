"""Reading a GGUF file's metadata without loading the model, and what a context will cost in memory.

llama.cpp allocates (and clears) the whole KV cache when it creates a context,
so a context too large for the machine swaps or gets killed before any error
can be raised. Checking first, from the file's header, turns that into a
clear message.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import ConfigError, ModelError, ResourceError

GGUF_MAGIC = b"GGUF"

# Scalar value types of the GGUF format (spec: ggml/docs/gguf.md), by type id.
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9

# Beyond the weights and the KV cache: compute buffers, the vocabulary, Python and outlines.
_OVERHEAD_BYTES = 512 * 2**20


def _read(f: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = f.read(size)
    if len(data) != size:
        raise EOFError
    return struct.unpack(fmt, data)[0]


def _value(f: BinaryIO, kind: int) -> Any:
    if kind in _SCALARS:
        return _read(f, _SCALARS[kind])
    if kind == _STRING:
        return f.read(_read(f, "<Q")).decode("utf-8", errors="replace")
    if kind == _ARRAY:
        item, n = _read(f, "<I"), _read(f, "<Q")
        if item in _SCALARS:  # skip: only the tokenizer's arrays are large, and we need none of them
            f.seek(n * struct.calcsize(_SCALARS[item]), os.SEEK_CUR)
            return None
        if item == _STRING:
            for _ in range(n):
                f.seek(_read(f, "<Q"), os.SEEK_CUR)
            return None
        return [_value(f, item) for _ in range(n)]
    raise ValueError(f"unknown GGUF value type {kind}")


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The header's key/value pairs (arrays left out); ModelError if it is not a readable GGUF file."""
    try:
        with open(path, "rb") as f:
            if f.read(4) != GGUF_MAGIC:
                raise ModelError(f"{path} is not a GGUF file (it does not start with the GGUF magic bytes)")
            version = _read(f, "<I")
            if version < 2:
                raise ModelError(f"{path} is GGUF version {version}; llama.cpp reads version 2 and later")
            _read(f, "<Q")  # tensor count
            meta = {}
            for _ in range(_read(f, "<Q")):
                key = f.read(_read(f, "<Q")).decode("utf-8", errors="replace")
                meta[key] = _value(f, _read(f, "<I"))
            return meta
    except (EOFError, ValueError, struct.error):
        raise ModelError(f"{path}: the GGUF header is truncated or corrupt") from None


def kv_bytes_per_token(meta: dict[str, Any]) -> int:
    """Bytes of KV cache per context token (f16 keys and values, llama.cpp's default)."""
    arch = meta.get("general.architecture", "")
    try:
        layers = int(meta[f"{arch}.block_count"])
        heads = int(meta[f"{arch}.attention.head_count"])
        kv_heads = int(meta.get(f"{arch}.attention.head_count_kv") or heads)
        width = int(meta[f"{arch}.embedding_length"])
    except (KeyError, TypeError, ValueError):
        return 0  # an architecture we cannot size; llama.cpp will still refuse what it cannot allocate
    key = int(meta.get(f"{arch}.attention.key_length") or width // heads)
    value = int(meta.get(f"{arch}.attention.value_length") or key)
    return layers * kv_heads * (key + value) * 2


def available_memory() -> int | None:
    """Bytes this process can still use: MemAvailable, lowered by a cgroup limit (containers)."""
    available = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                available = int(line.split()[1]) * 1024
    except OSError:
        return None
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = int(Path("/sys/fs/cgroup/memory.current").read_text())
        if limit != "max" and available is not None:
            available = min(available, int(limit) - used)
    except (OSError, ValueError):
        pass
    return available


def check_context(path: str | Path, n_ctx: int, *, extra_bytes: int = 0, available: int | None = None) -> None:
    """Refuse a context the model was not trained for, or one this machine cannot hold."""
    meta = read_metadata(path)
    arch = meta.get("general.architecture", "")
    trained = meta.get(f"{arch}.context_length")
    if trained and n_ctx > int(trained):
        raise ConfigError(f"--n-ctx {n_ctx:,} is more than {Path(path).name} was trained for ({int(trained):,} tokens)")
    kv = n_ctx * kv_bytes_per_token(meta)
    needed = Path(path).stat().st_size + kv + extra_bytes + _OVERHEAD_BYTES
    available = available_memory() if available is None else available
    if available is not None and needed > available:

        def gib(n: float) -> str:
            return f"{n / 2**30:.1f} GiB"

        raise ResourceError(
            f"a {n_ctx:,}-token context for {Path(path).name} needs about {gib(needed)} of memory "
            f"({gib(kv)} of it for the KV cache) but {gib(max(available, 0))} is available. "
            f"Use a smaller --n-ctx (long sources are judged in windows) or free memory."
        )
