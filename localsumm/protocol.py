"""The judge protocol: what a scorer needs from a model, and nothing about any scorer.

A judge does two things: generate JSON constrained to a pydantic type, and give
the probability that the answer to a yes/no prompt is "yes". The llama.cpp
backend (``localsumm.backends.llamacpp``) is one implementation, a hosted
OpenAI-compatible endpoint another, the scripted judge for unit tests a third;
anything with these methods plugs in (``localsumm.backends.register_backend``).

A prompt is a chat: a list of :class:`Message`. Its content may be a list of
segments, the points where a judge that caches its KV state may cut.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, TypedDict, TypeVar, runtime_checkable

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


class Message(TypedDict):
    role: str
    content: str | list[str]
    """A string, or a list of strings to concatenate: the list marks the points
    (after the fenced text, after the fixed instructions) where a judge that
    caches its KV state may cut, so the same segment is always evaluated the same way."""


Messages = list[Message]


def content_text(content: str | list[str]) -> str:
    """A message's content as one string."""
    return content if isinstance(content, str) else "".join(content)


@dataclass(frozen=True)
class Thresholds:
    """A verdict is positive when the judge's probability of "yes" reaches the threshold."""

    alignment: float = 0.5
    coverage: float = 0.5


@dataclass(frozen=True)
class JudgeInfo:
    name: str
    path: str | None = None
    sha256: str | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)
    seed: int = 0
    engine: str | None = None
    """The inference engine and its build, where the build can move a verdict (a local engine's instruction
    sets): part of every cache key and recorded with every result."""


@dataclass(frozen=True)
class JudgeCall:
    """One model call, as the audit trail records it."""

    step: str
    prompt: str
    """The complete text the model received, chat template applied."""
    output: str
    prompt_tokens: int
    """Prompt tokens the engine evaluated for this call."""
    reused_prompt_tokens: int
    """Prompt tokens served from the KV cache of an earlier call (prefix reuse)."""
    completion_tokens: int
    seconds: float
    cached: bool = False
    """Answered by the on-disk judge-call cache: no model ran."""

    def to_dict(self) -> dict[str, object]:
        return {
            "step": self.step,
            "prompt": self.prompt,
            "output": self.output,
            "prompt_tokens": self.prompt_tokens,
            "reused_prompt_tokens": self.reused_prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "seconds": round(self.seconds, 4),
            "cached": self.cached,
        }


@runtime_checkable
class Judge(Protocol):
    info: JudgeInfo
    context_size: int
    """Tokens the judge can hold: prompt and answer together."""

    def count_tokens(self, text: str) -> int: ...

    def generate(self, step: str, messages: Messages, output_type: type[T], max_tokens: int) -> tuple[T, JudgeCall]:
        """Generate an instance of ``output_type``; raise JudgeError if it hits ``max_tokens``."""
        ...

    def yes_probability(self, step: str, messages: Messages) -> tuple[float, JudgeCall]:
        """P("yes") / (P("yes") + P("no")) for the first token of the answer."""
        ...


def yes_probabilities(judge: Judge, step: str, batch: list[Messages]) -> list[tuple[float, JudgeCall]]:
    """``judge.yes_probability`` for each prompt of ``batch``, in order.

    A judge may also define ``yes_probabilities(step, batch)`` with the same result, to evaluate
    prompts that share a prefix together (the llama.cpp judge does); one without it is asked one by one.
    """
    many = getattr(judge, "yes_probabilities", None)
    if many is not None:
        answers: list[tuple[float, JudgeCall]] = many(step, batch)
        return answers
    return [judge.yes_probability(step, messages) for messages in batch]
