"""Where localsumm keeps things on disk; every location can be moved by an environment variable."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import ModelError

_PACKAGE_DIR = Path(__file__).resolve().parents[1]


def _user_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "localsumm"


def cache_root() -> Path:
    """Where the grammar and judge-call caches live: $LOCALSUMM_CACHE, else the user's cache directory."""
    configured = os.environ.get("LOCALSUMM_CACHE")
    return Path(configured).expanduser() if configured else _user_cache()


def models_dir() -> Path:
    """Where judge files live: $LOCALSUMM_MODELS, else ``models/`` in the user's cache directory.

    Independent of $LOCALSUMM_CACHE, so a fresh cache does not hide the installed judges.
    """
    configured = os.environ.get("LOCALSUMM_MODELS")
    return Path(configured).expanduser() if configured else _user_cache() / "models"


def config_dir() -> Path:
    """Where the user's settings live (the calibrated thresholds): $LOCALSUMM_CONFIG, else ~/.config/localsumm."""
    configured = os.environ.get("LOCALSUMM_CONFIG")
    if configured:
        return Path(configured).expanduser()
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "localsumm"


def registry_path() -> Path:
    """The registry shipped in the wheel, or the repository's ``models/`` in a checkout."""
    for candidate in (_PACKAGE_DIR / "registry.toml", _PACKAGE_DIR.parent / "models" / "registry.toml"):
        if candidate.is_file():
            return candidate
    raise ModelError("the model registry is missing from this installation of localsumm")
