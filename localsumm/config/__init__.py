"""Configuration: where things live on disk, calibrated thresholds, and the validated options object."""

from .options import CLAIM_UNITS, RESPONSE_FORMATS, Options, make_options
from .paths import cache_root, config_dir, models_dir, registry_path
from .thresholds import store_override, threshold_override

__all__ = [
    "CLAIM_UNITS",
    "RESPONSE_FORMATS",
    "Options",
    "make_options",
    "cache_root",
    "config_dir",
    "models_dir",
    "registry_path",
    "store_override",
    "threshold_override",
]
