"""What each step of one evaluation cost, and the hook that sees every judge call (``--trace``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..protocol import JudgeCall
from .result import StepStats

OnCall = Callable[[JudgeCall], None]


@dataclass
class StepLog:
    """Per-step costs of one run, forwarding each call to the trace hook."""

    on_call: OnCall | None = None
    steps: dict[str, StepStats] = field(default_factory=dict)
    shared: set[str] = field(default_factory=set)
    """Steps whose result was reused from an earlier evaluation instead of asked again."""

    def add(self, call: JudgeCall) -> None:
        old = self.steps.get(call.step) or StepStats(step=call.step)
        self.steps[call.step] = StepStats(
            step=call.step,
            calls=old.calls + 1,
            prompt_tokens=old.prompt_tokens + call.prompt_tokens,
            reused_prompt_tokens=old.reused_prompt_tokens + call.reused_prompt_tokens,
            completion_tokens=old.completion_tokens + call.completion_tokens,
            seconds=old.seconds + call.seconds,
            cached_calls=old.cached_calls + call.cached,
        )
        if self.on_call is not None:
            self.on_call(call)
