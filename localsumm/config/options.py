"""One options object for every entry point: the API, ``score``, ``eval``, ``bench`` and ``calibrate``.

Built once from keyword arguments or command-line flags and checked when built,
so a bad value is refused before any model loads and no layer checks it again.
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ..errors import ConfigError

# What alignment judges. "sentences": each sentence of the summary, as written. "extracted": the atomic
# claims the judge lists from the summary (SPEC §2). Sentences are the default: a small judge's extraction
# can paraphrase away the very word an error is in (measured in benchmarks/RESULTS.md).
ClaimUnit = Literal["sentences", "extracted"]
CLAIM_UNITS: tuple[str, ...] = get_args(ClaimUnit)
# How a hosted endpoint is asked for JSON: OpenAI's json_schema, or json_object with a schema
# (llama-cpp-python's server).
ResponseFormat = Literal["json_schema", "json_object"]
RESPONSE_FORMATS: tuple[str, ...] = get_args(ResponseFormat)
# How verdicts make a dimension. "count": the share of verdicts at or above their threshold (SPEC §3, the
# reference's rule). "graded": a verdict near its threshold counts in proportion (``rules.votes``), so a
# probability that moves a little (another engine build) moves the score a little, not by a whole verdict.
# "facts": questions counted as by "count", and each fact coverage asks as a statement (a key fact, a reference's
# fact) counted by its probability: paraphrased facts get verdicts under 0.5 that still rank summaries
# (pre-registered: benchmarks/preregistered/statement-counting-2026-12-07.md).
ScoringRule = Literal["count", "graded", "facts"]
SCORING_RULES: tuple[str, ...] = get_args(ScoringRule)
# What a claim is judged against. "whole": the source (or its windows), the default.
# "evidence": each of its top sentences by shared words alone, keeping the best (MiniCheck's maximum over
# chunks; short premises are what small verifiers judge best). "both": the mean of the two probabilities.
Verification = Literal["whole", "evidence", "both"]
VERIFICATIONS: tuple[str, ...] = get_args(Verification)


def _whole(name: str, value: Any, minimum: int, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be a whole number, got {value!r}")
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, got {value}")


def _setting(default: Any, help: str, *, recorded: bool = False) -> Any:
    """A field of :class:`Options`: its help is the API's and the command line's (``--NAME``, derived from the
    field's name), and a ``recorded`` one is kept, under the same name, in every result's provenance."""
    return field(default=default, metadata={"help": help, "recorded": recorded})


@dataclass(frozen=True)
class Options:
    """Every setting of a scorer. ``Options(max_questions=5)``; ``options.replace(claims="extracted")``.

    One name per setting: the field, the command-line flag (``literal_check`` is ``--literal-check`` /
    ``--no-literal-check``) and, for the settings a result depends on, the provenance key.
    """

    # -- what a result depends on: recorded in its provenance ------------------------
    max_questions: int = _setting(
        10, "Cap on generated coverage questions (a question file's are asked as they are).", recorded=True
    )
    scale: float = _setting(1.0, "Multiplier of the final score.", recorded=True)
    claims: ClaimUnit = _setting(
        "sentences",
        "What alignment judges: the summary's 'sentences' as written, or the claims the judge 'extracted'.",
        recorded=True,
    )
    scoring: ScoringRule = _setting(
        "facts",
        "How verdicts make alignment and coverage: 'facts' counts claims and questions at their threshold and each "
        "key fact (the judge's, or a reference's asked as a statement) by its probability; 'count' counts every "
        "verdict at its threshold (the reference's rule); 'graded': a verdict within 0.25 of its threshold counts in "
        "proportion (steadier across engine builds).",
        recorded=True,
    )
    literal_check: bool = _setting(
        True,
        "Refuse support to a claim naming a number or name found nowhere in the source, whatever the judge says.",
        recorded=True,
    )
    question_check: bool = _setting(
        True,
        "Drop a generated question, or key fact, that the source itself does not answer 'yes' before coverage asks it.",
        recorded=True,
    )
    key_facts: bool = _setting(
        True,
        "Also ask the source's key facts: the judge writes its highlights and coverage asks each single fact "
        "(English).",
        recorded=True,
    )
    verification: Verification = _setting(
        "whole",
        "What each claim is judged against: the 'whole' source; its 3 best-matching source sentences, each alone, "
        "keeping the most supportive ('evidence'); or the mean of the two ('both'; measured in benchmarks/RESULTS.md).",
        recorded=True,
    )

    # -- where coverage's questions come from: recorded per result in provenance.questions --
    questions: str | os.PathLike[str] | None = _setting(
        None, "A question file (localsumm questions): a source it holds is asked exactly its questions, none generated."
    )
    questions_only: bool = _setting(
        False, "With a question file: refuse a source the file lacks instead of generating its questions."
    )

    # -- how the judge runs ----------------------------------------------------------
    n_ctx: int | None = _setting(None, "Judge context size in tokens [default: 4096 for a local judge].")
    threads: int | None = _setting(None, "CPU threads for a local judge [default: every CPU this process may use].")
    gpu_layers: int | None = _setting(
        None,
        "Layers of a local judge to offload to a GPU, -1 for all [default: 0]; needs a CUDA or Metal build of "
        "llama.cpp (docs/backends.md).",
    )
    seed: int | None = _setting(None, "Sampling seed [default: 0]; decoding is greedy, the seed keys the cache.")
    cache: bool | str | os.PathLike[str] = _setting(
        False,
        "Answer repeated judge calls from the on-disk cache (in the API: True for the default file, or a SQLite file's "
        "path).",
    )
    base_url: str | None = _setting(None, "With --model openai:NAME: the endpoint, e.g. http://127.0.0.1:8000/v1.")
    response_format: ResponseFormat | None = _setting(
        None, "With --model openai:NAME: json_schema (OpenAI, the default), or json_object (llama-cpp-python's server)."
    )

    def __post_init__(self) -> None:
        _whole("max_questions", self.max_questions, 1)
        if not isinstance(self.scale, (int, float)) or isinstance(self.scale, bool) or not math.isfinite(self.scale):
            raise ConfigError(f"scale must be a finite number, got {self.scale!r}")
        if self.scale <= 0:
            raise ConfigError(f"scale must be greater than 0, got {self.scale}")
        if self.claims not in CLAIM_UNITS:
            raise ConfigError(f"claims must be one of {', '.join(CLAIM_UNITS)}; got {self.claims!r}")
        if self.scoring not in SCORING_RULES:
            raise ConfigError(f"scoring must be one of {', '.join(SCORING_RULES)}; got {self.scoring!r}")
        if self.verification not in VERIFICATIONS:
            raise ConfigError(f"verification must be one of {', '.join(VERIFICATIONS)}; got {self.verification!r}")
        for name in ("literal_check", "question_check", "key_facts", "questions_only"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.questions_only and self.questions is None:
            raise ConfigError("questions_only needs a question file (questions=PATH, --questions FILE)")
        if self.questions is not None and not isinstance(self.questions, (str, os.PathLike)):
            raise ConfigError(f"questions must be the path of a question file, got {type(self.questions).__name__}")
        _whole("n_ctx", self.n_ctx, 1, optional=True)
        _whole("threads", self.threads, 1, optional=True)
        _whole("gpu_layers", self.gpu_layers, -1, optional=True)
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
        """The settings a result depends on, under their own names, as its provenance records them."""
        return {name: getattr(self, name) for name in RECORDED}

    @staticmethod
    def help(name: str) -> str:
        """The help text of the setting ``name``, shared by the API's docs and the command line."""
        return str(OPTION_FIELDS[name].metadata["help"])


OPTION_FIELDS: dict[str, dataclasses.Field[Any]] = {f.name: f for f in dataclasses.fields(Options)}
RECORDED: tuple[str, ...] = tuple(name for name, f in OPTION_FIELDS.items() if f.metadata["recorded"])
"""The settings a result depends on: a resumed results file must have the same."""


def make_options(options: Options | None = None, **settings: Any) -> Options:
    """``options`` with ``settings`` applied (keyword arguments of the older API), checked once."""
    return (options or Options()).replace(**settings) if settings else options or Options()
