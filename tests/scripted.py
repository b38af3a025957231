"""A judge that replays scripted answers: for testing pipelines without a model.

It records every prompt it receives, so tests can check what each step saw.
It is never the only test of a feature: the llama.cpp path is tested for real.
"""

from __future__ import annotations

from collections.abc import Sequence

from localsumm.protocol import JudgeCall, JudgeInfo, Messages, T, Thresholds, content_text


def _render(messages: Messages) -> str:
    return "\n".join(f"[{m['role']}]\n{content_text(m['content'])}" for m in messages)


class ScriptedJudge:
    def __init__(
        self,
        *,
        claims: Sequence[str] = (),
        questions: Sequence[str] = (),
        question_sets: Sequence[Sequence[str]] = (),
        claim_probabilities: Sequence[float] = (),
        question_probabilities: Sequence[float] = (),
        answerable_probabilities: Sequence[float] = (),
        evidence_probabilities: Sequence[float] = (),
        highlights: Sequence[str] = (),
        key_facts: Sequence[str] = (),
        thresholds: Thresholds = Thresholds(),
        context_size: int = 32768,
    ) -> None:
        self.info = JudgeInfo(name="scripted", thresholds=thresholds)
        self.context_size = context_size
        self._claims = list(claims)
        self._questions = list(questions)
        # One list per questions call, in order (a source asked passage by passage); then ``questions``.
        self._question_sets = [list(q) for q in question_sets]
        self._highlights = list(highlights)
        self._key_facts = list(key_facts)
        self._probabilities = {
            "alignment": list(claim_probabilities),
            "coverage": list(question_probabilities),
            "answerable": list(answerable_probabilities),
            "evidence": list(evidence_probabilities),
        }
        # A reference's facts are coverage verdicts too, asked as statements after the questions.
        self._probabilities["statements"] = self._probabilities["coverage"]
        self.calls: list[JudgeCall] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def _record(self, step: str, messages: Messages, output: str) -> JudgeCall:
        prompt = _render(messages)
        call = JudgeCall(step, prompt, output, self.count_tokens(prompt), 0, self.count_tokens(output), 0.0)
        self.calls.append(call)
        return call

    def generate(self, step: str, messages: Messages, output_type: type[T], max_tokens: int) -> tuple[T, JudgeCall]:
        fields = output_type.model_fields
        if "claims" in fields:
            data = {"claims": self._claims}
        elif "summary" in fields:
            data = {"summary": self._highlights}
        elif "facts" in fields:
            data = {"facts": self._key_facts}
        else:
            data = {"questions": self._question_sets.pop(0) if self._question_sets else self._questions}
        # Unvalidated on purpose: a script may play a judge that ignores the schema's bounds.
        value = output_type.model_construct(**data)
        return value, self._record(step, messages, value.model_dump_json())

    def yes_probability(self, step: str, messages: Messages) -> tuple[float, JudgeCall]:
        queue = self._probabilities[step]
        # An unscripted verdict is a confident "no": tests state what they expect to pass. Except that the
        # source answers its own questions: a test scripts the questions it means to see dropped.
        p = queue.pop(0) if queue else 1.0 if step == "answerable" else 0.0
        return p, self._record(step, messages, f"{p:.4f}")
