"""Import paths of the flat layout (before 2026-12-02), kept working for now.

``import localsumm.scorer`` gives the module that now lives at
``localsumm.summarization.scorer``, the very same module object, so code and
tests written against the old paths see no difference. New code should use
the new paths; this table is the whole of the old layout.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType

MOVED: dict[str, str] = {
    "judge": "protocol",
    "judges": "backends",
    "judges.llamacpp": "backends.llamacpp",
    "judges.openai": "backends.openai",
    "judges.scripted": "backends.scripted",
    "cache": "backends.cache",
    "grammar": "backends.grammar",
    "gguf": "models.gguf",
    "registry": "models.registry",
    "download": "models.download",
    "messages": "summarization.inputs",
    "windows": "summarization.windows",
    "prompts": "summarization.prompts",
    "schemas": "summarization.schemas",
    "literals": "summarization.literals",
    "scoring": "summarization.rules",
    "reason": "summarization.reason",
    "result": "summarization.result",
    "scorer": "summarization.scorer",
    "batch": "runs.batch",
    "evaluate": "runs.evaluate",
    "report": "reports.terminal",
    "htmlreport": "reports.html",
    "metrics": "bench.metrics",
    "quality": "bench.quality",
    "plots": "bench.plots",
    "speed": "bench.speed",
    "agree": "bench.agree",
    "calibrate": "bench.calibrate",
}
_PACKAGE = __name__.rsplit(".", 1)[0]


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        prefix = _PACKAGE + "."
        if fullname.startswith(prefix) and fullname[len(prefix):] in MOVED:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(f"{_PACKAGE}.{MOVED[spec.name[len(_PACKAGE) + 1:]]}")

    def exec_module(self, module: ModuleType) -> None:
        pass  # the module is the new one, already executed


def install() -> None:
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())
