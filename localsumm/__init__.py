"""localsumm: score a summary against its source, offline, with a local GGUF judge.

    from localsumm import create_summarization_scorer
    scorer = create_summarization_scorer()              # the default judge
    result = scorer.run(input=source_text, output=summary_text)
    print(result.score, result.reason)

The public surface is what this module exports. The package's layers, lowest
first (each imports only from layers below it; ``tests/test_layers.py``):
errors/text → protocol → config → models, backends → summarization → runs,
reports → bench → cli and this facade.
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from ._version import __version__

# Name -> the module that defines it. Imported on first use, so `localsumm --help` and
# `import localsumm` stay light (no numpy, no engine) until a scorer is asked for.
_EXPORTS = {
    "AlignmentVerdict": "summarization.result",
    "CoverageVerdict": "summarization.result",
    "create_summarization_scorer": "summarization.scorer",
    "EvalRun": "runs.batch",
    "extract_tool_results": "summarization.inputs",
    "ItemResult": "runs.scoring",
    "Judge": "protocol",
    "JudgeCall": "protocol",
    "JudgeInfo": "protocol",
    "LocalsummError": "errors",
    "Options": "config.options",
    "run_evals": "runs.batch",
    "SummarizationResult": "summarization.result",
    "SummarizationScorer": "summarization.scorer",
    "Thresholds": "protocol",
}

__all__ = [
    "__version__",
    "AlignmentVerdict",
    "CoverageVerdict",
    "create_summarization_scorer",
    "EvalRun",
    "extract_tool_results",
    "ItemResult",
    "Judge",
    "JudgeCall",
    "JudgeInfo",
    "LocalsummError",
    "Options",
    "run_evals",
    "SummarizationResult",
    "SummarizationScorer",
    "Thresholds",
]

if _TYPE_CHECKING:
    from .config.options import Options
    from .errors import LocalsummError
    from .protocol import Judge, JudgeCall, JudgeInfo, Thresholds
    from .runs.batch import EvalRun, run_evals
    from .runs.scoring import ItemResult
    from .summarization.inputs import extract_tool_results
    from .summarization.result import AlignmentVerdict, CoverageVerdict, SummarizationResult
    from .summarization.scorer import SummarizationScorer, create_summarization_scorer


def __getattr__(name: str) -> _Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
