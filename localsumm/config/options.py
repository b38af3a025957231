"""One options object for every entry point: the API, ``score``, ``eval``, ``bench`` and ``calibrate``.

Built once from keyword arguments or command-line flags and checked when built,
so a bad value is refused before any model loads and no layer checks it again.
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError

# What alignment judges. "sentences": each sentence of the summary, as written. "extracted": the atomic
# claims the judge lists from the summary (SPEC §2). With the 1.5B default judge, sentences agree better
# with human consistency labels (SummEval per-document Spearman 0.627 against 0.436, SummEdits ROC-AUC
# 0.696 against 0.694; benchmarks/RESULTS.md): a small judge's extraction can paraphrase away the very
# word an error is in, or add what the summary does not say. They also skip a generation step.
CLAIM_UNITS = ("sentences", "extracted")
# How a hosted endpoint is asked for JSON: OpenAI's json_schema, or json_object with a schema
# (llama-cpp-python's server).
RESPONSE_FORMATS = ("json_schema", "json_object")


def _whole(name: str, value: Any, minimum: int, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be a whole number, got {value!r}")
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, got {value}")


@dataclass(frozen=True)
class Options:
    """Every setting of a scorer. ``Options(max_questions=5)``; ``options.replace(claims="extracted")``."""

    # -- what a result depends on: recorded in its provenance ------------------------
    max_questions: int = 10
    """Cap on the coverage questions asked (the reference's default: 10)."""
    scale: float = 1.0
    """Multiplier of the final score."""
    claims: str = "sentences"
    """What alignment judges: the summary's "sentences" as written, or the claims the judge "extracted"."""
    check_literals: bool = True
    """Refuse support to a claim naming a number or a capitalised name found nowhere in the source."""
    check_questions: bool = True
    """Drop a generated question, or key fact, that the source itself does not answer "yes" before coverage
    asks it."""
    key_facts: bool = True
    """Also ask the summary the source's key facts: the judge writes the source's highlights, splits them
    into single facts, and coverage asks each ("Is it true that ...?") beside the questions (English).
    On by default since it met issue 17's adoption criteria (benchmarks/RESULTS.md)."""

    # -- where coverage's questions come from: recorded per result in provenance.questions --
    questions: str | os.PathLike[str] | None = None
    """A question file (``localsumm questions``): a source it holds is asked exactly its questions and key
    facts, with no question or key-facts step; another source gets generated ones (or is refused with
    ``questions_only``)."""
    questions_only: bool = False
    """With ``questions``: refuse a source the question file does not hold instead of generating its questions."""

    # -- how the judge runs ----------------------------------------------------------
    n_ctx: int | None = None
    """Judge context in tokens (None: the backend's default, 4,096 for a local GGUF)."""
    n_threads: int | None = None
    """CPU threads of a local judge (None: all cores)."""
    seed: int | None = None
    """Sampling seed (None: 0). Decoding is greedy; the seed is recorded and keys the cache."""
    cache: bool | str | os.PathLike[str] = False
    """Keep judge answers on disk (True: the default file; or a path to a SQLite file)."""
    base_url: str | None = None
    """For ``openai:NAME`` judges: the endpoint."""
    response_format: str | None = None
    """For ``openai:NAME`` judges: one of RESPONSE_FORMATS (None: json_schema)."""

    def __post_init__(self) -> None:
        _whole("max_questions", self.max_questions, 1)
        if not isinstance(self.scale, (int, float)) or isinstance(self.scale, bool) or not math.isfinite(self.scale):
            raise ConfigError(f"scale must be a finite number, got {self.scale!r}")
        if self.scale <= 0:
            raise ConfigError(f"scale must be greater than 0, got {self.scale}")
        if self.claims not in CLAIM_UNITS:
            raise ConfigError(f"claims must be one of {', '.join(CLAIM_UNITS)}; got {self.claims!r}")
        for name in ("check_literals", "check_questions", "key_facts", "questions_only"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.questions_only and self.questions is None:
            raise ConfigError("questions_only needs a question file (questions=PATH, --questions FILE)")
        if self.questions is not None and not isinstance(self.questions, (str, os.PathLike)):
            raise ConfigError(f"questions must be the path of a question file, got {type(self.questions).__name__}")
        _whole("n_ctx", self.n_ctx, 1, optional=True)
        _whole("n_threads", self.n_threads, 1, optional=True)
        _whole("seed", self.seed, 0, optional=True)
        if self.response_format is not None and self.response_format not in RESPONSE_FORMATS:
            raise ConfigError(f"response format {self.response_format!r}: use one of {', '.join(RESPONSE_FORMATS)}")

    def replace(self, **changes: Any) -> Options:
        """A copy with ``changes``, checked again."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise TypeError(f"unknown option(s): {', '.join(sorted(unknown))}")
        return dataclasses.replace(self, **changes)

    def recorded(self) -> dict[str, Any]:
        """The settings a result depends on, as its provenance records them."""
        return {
            "max_questions": self.max_questions, "scale": self.scale, "claims": self.claims,
            "literal_check": self.check_literals, "question_check": self.check_questions, "key_facts": self.key_facts,
        }


def make_options(options: Options | None = None, **settings: Any) -> Options:
    """``options`` with ``settings`` applied (keyword arguments of the older API), checked once."""
    return (options or Options()).replace(**settings) if settings else options or Options()
