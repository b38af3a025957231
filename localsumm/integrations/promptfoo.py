"""promptfoo: a Python assertion (``get_assert``) that scores the output against its source.

promptfoo runs a Python file's ``get_assert(output, context)``; point it at a
one-line file in your project (promptfoo needs a path)::

    # localsumm_assert.py
    from localsumm.integrations.promptfoo import get_assert

    # promptfooconfig.yaml
    defaultTest:
      assert:
        - type: python
          value: file://localsumm_assert.py
          config: {threshold: 0.5, source_var: source}

The source is the test's ``vars[source_var]`` (default ``source``). ``config`` may
also name a ``model`` and ``options`` (Options fields). Each promptfoo worker is
a Python process: the judge loads once per worker.
"""

from __future__ import annotations

from typing import Any

from ..testing import explanation, shared_scorer
from ._common import score


def get_assert(output: str, context: dict[str, Any]) -> dict[str, Any]:
    """``{pass, score, reason, namedScores}`` for promptfoo: pass when the score reaches ``threshold``."""
    config = context.get("config") or {}
    source_var = config.get("source_var", "source")
    source = (context.get("vars") or {}).get(source_var)
    if not isinstance(source, str) or not source.strip():
        return {
            "pass": False,
            "score": 0.0,
            "reason": f"localsumm: the test has no source text in vars.{source_var} (set config.source_var)",
        }
    threshold = float(config.get("threshold", 0.5))
    scorer = shared_scorer(config.get("model"), **(config.get("options") or {}))
    result = score(scorer, source, output)
    if not result.scorable:
        return {"pass": False, "score": 0.0, "reason": f"localsumm: unscorable: {result.reason}"}
    return {
        "pass": result.score >= threshold,
        "score": result.score,
        "reason": explanation(result),
        "namedScores": {"alignment": result.alignment_score, "coverage": result.coverage_score},
    }


__all__ = ["get_assert"]
