"""The calibrated-threshold store: thresholds that ``localsumm calibrate`` fitted, per model file.

Stored by sha256 in ``thresholds.json`` in the user's config directory; an entry
takes precedence over the registry's thresholds for that file only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..protocol import Thresholds
from .paths import config_dir


def overrides_path() -> Path:
    return config_dir() / "thresholds.json"


def threshold_override(sha256: str | None) -> Thresholds | None:
    """Thresholds calibrated for this model file, if any."""
    path = overrides_path()
    if not sha256 or not path.is_file():
        return None
    try:
        entry = json.loads(path.read_text(encoding="utf-8")).get(sha256)
    except (OSError, ValueError):
        return None
    return Thresholds(alignment=float(entry["alignment"]), coverage=float(entry["coverage"])) if entry else None


def store_override(sha256: str, entry: dict[str, Any]) -> Path:
    path = overrides_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    data[sha256] = entry
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path
