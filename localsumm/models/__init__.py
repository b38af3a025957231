"""Judge model files: the registry of known judges, sha256 verification, GGUF headers, downloads."""

from .registry import ModelSpec, ResolvedModel, default_model_name, get_spec, load_registry, resolve_model

__all__ = ["ModelSpec", "ResolvedModel", "default_model_name", "get_spec", "load_registry", "resolve_model"]
