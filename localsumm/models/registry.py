"""The registry of known judges, and resolving ``model=`` to a verified GGUF file.

``model`` is a registry name, a path to a ``.gguf`` file, or ``None`` for the
default judge. A registry file is loaded only once its sha256 matches the
registry's; an arbitrary path is the user's own file and is only checked to be
GGUF.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..config.paths import models_dir, registry_path
from ..errors import ModelError
from ..protocol import Thresholds
from .gguf import GGUF_MAGIC


@dataclass(frozen=True)
class ModelSpec:
    name: str
    description: str
    file: str
    size: int
    sha256: str
    context_length: int
    license: str
    thresholds: Thresholds
    calibrated_on: str
    hub: dict[str, str] | None = None
    pypi_packages: tuple[str, ...] = ()
    pypi_member: str | None = None

    @property
    def path(self) -> Path:
        return models_dir() / self.file

    @property
    def installed(self) -> bool:
        return self.path.is_file()


@lru_cache(maxsize=1)
def load_registry() -> tuple[str, dict[str, ModelSpec]]:
    data = tomllib.loads(registry_path().read_text(encoding="utf-8"))
    specs = {}
    for name, entry in data["models"].items():
        thresholds = dict(entry.get("thresholds", {}))
        pypi = entry.get("pypi", {})
        specs[name] = ModelSpec(
            name=name,
            description=entry["description"],
            file=entry["file"],
            size=int(entry["size"]),
            sha256=entry["sha256"],
            context_length=int(entry["context_length"]),
            license=entry["license"],
            thresholds=Thresholds(
                alignment=float(thresholds.get("alignment", 0.5)),
                coverage=float(thresholds.get("coverage", 0.5)),
            ),
            calibrated_on=str(thresholds.get("calibrated_on", "uncalibrated")),
            hub=entry.get("hub"),
            pypi_packages=tuple(pypi.get("packages", ())),
            pypi_member=pypi.get("member"),
        )
    return data["default"], specs


def default_model_name() -> str:
    return load_registry()[0]


def get_spec(name: str) -> ModelSpec:
    default, specs = load_registry()
    if name not in specs:
        known = ", ".join(specs)
        raise ModelError(f"unknown model {name!r}; known models: {known} (or pass a path to a .gguf file)")
    return specs[name]


def looks_like_path(model: str) -> bool:
    return model.endswith(".gguf") or os.sep in model or Path(model).exists()


def sha256_of(path: Path, chunk: int = 1 << 22) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def check_gguf(path: Path) -> None:
    """A clear error for a path that is missing, unreadable or not GGUF at all."""
    if not path.exists():
        raise ModelError(f"model file not found: {path}")
    if not path.is_file():
        raise ModelError(f"model path is not a file: {path}")
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise ModelError(f"cannot read model file {path}: {e.strerror or e}") from None
    if magic != GGUF_MAGIC:
        raise ModelError(f"{path} is not a GGUF file (it does not start with the GGUF magic bytes)")


# Hashes computed in this process: a file is hashed before its first load, not on every load.
_hashes: dict[tuple[str, int, int], str] = {}


def file_sha256(path: Path) -> str:
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _hashes:
        _hashes[key] = sha256_of(path)
    return _hashes[key]


def verify(spec: ModelSpec, path: Path | None = None) -> Path:
    """The spec's file, after checking its size and sha256; refuses a file that does not match."""
    path = path or spec.path
    if not path.is_file():
        raise ModelError(
            f"judge {spec.name!r} is not installed (no file at {path}); "
            f"install it with: localsumm models pull {spec.name} --from pypi"
        )
    check_gguf(path)
    size = path.stat().st_size
    if size != spec.size:
        raise ModelError(
            f"refusing to load {path}: it is {size:,} bytes, judge {spec.name!r} is {spec.size:,} bytes "
            f"(truncated or a different file); delete it and pull it again"
        )
    actual = file_sha256(path)
    if actual != spec.sha256:
        raise ModelError(
            f"refusing to load {path}: its sha256 is {actual}, judge {spec.name!r} must be {spec.sha256}; "
            f"delete it and pull it again"
        )
    return path


@dataclass(frozen=True)
class ResolvedModel:
    name: str
    path: Path
    spec: ModelSpec | None
    sha256: str


def resolve_model(model: str | os.PathLike[str] | None) -> ResolvedModel:
    """A registry name, a GGUF path or None (the default judge) -> a file that is safe to load."""
    if model is None:
        model = default_model_name()
    model = os.fspath(model)
    if looks_like_path(model):
        path = Path(model).expanduser()
        check_gguf(path)
        return ResolvedModel(name=path.name, path=path.resolve(), spec=None, sha256=file_sha256(path))
    spec = get_spec(model)
    path = verify(spec)
    return ResolvedModel(name=spec.name, path=path, spec=spec, sha256=spec.sha256)
