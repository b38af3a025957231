"""A judge behind an OpenAI-compatible chat-completions endpoint (hosted, or a local server).

``--model openai:<name>`` with ``--base-url``; the key comes from the
environment (``LOCALSUMM_API_KEY``, else ``OPENAI_API_KEY``). Structured output
uses the same pydantic types as the local judge, sent as OpenAI's
``json_schema`` response format, or for servers that only know the older
``json_object`` type with a ``schema`` (llama-cpp-python's server) as that.
Verdicts are probabilities when the endpoint returns token log-probabilities
(the same P(yes) / (P(yes) + P(no)) as the local judge), and the answer itself
(1 or 0) when it does not; the verdict's output says which.

This is the only judge that uses the network at scoring time, and only to the
endpoint it is given.
"""

from __future__ import annotations

import math
import os
import time
from typing import Any

from ..config.options import RESPONSE_FORMATS
from ..errors import ConfigError, ContextOverflowError, JudgeError, NetworkError
from ..protocol import JudgeCall, JudgeInfo, Messages, T, Thresholds, content_text
from .grammar import parse

PREFIX = "openai:"
DEFAULT_CONTEXT = 8192
# Without the endpoint's tokenizer, a cautious estimate: English runs about 4 bytes per token.
_BYTES_PER_TOKEN = 3


def _flatten(messages: Messages) -> list[dict[str, str]]:
    return [{"role": m["role"], "content": content_text(m["content"])} for m in messages]


def _answer_word(token: str) -> str | None:
    word = token.strip().strip('"').lower()
    return word if word in ("yes", "no") else None


class OpenAIJudge:
    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        thresholds: Thresholds = Thresholds(),
        context_size: int = DEFAULT_CONTEXT,
        seed: int = 0,
        response_format: str = "json_schema",
        timeout: float = 600,
    ) -> None:
        if response_format not in RESPONSE_FORMATS:
            raise ConfigError(f"response format {response_format!r}: use one of {', '.join(RESPONSE_FORMATS)}")
        try:
            import openai
        except ImportError:
            raise ConfigError("hosted judges need the openai client: pip install 'localsumm[hosted]'") from None
        key = api_key or os.environ.get("LOCALSUMM_API_KEY") or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise ConfigError("no API key: set LOCALSUMM_API_KEY or OPENAI_API_KEY (any value for a local server)")
        self._openai = openai
        self._client = openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=2)
        self.model = model
        self.info = JudgeInfo(name=PREFIX + model, path=base_url, sha256=None, thresholds=thresholds, seed=seed)
        self.context_size = context_size
        self.response_format = response_format

    def count_tokens(self, text: str) -> int:
        return math.ceil(len(text.encode("utf-8")) / _BYTES_PER_TOKEN)

    def _create(self, step: str, **kwargs: Any) -> Any:
        try:
            return self._client.chat.completions.create(model=self.model, temperature=0, seed=self.info.seed, **kwargs)
        except self._openai.APIConnectionError as e:
            raise NetworkError(f"{step}: cannot reach the judge endpoint {self.info.path}: {e}") from None
        except self._openai.BadRequestError as e:
            if "context" in str(e).lower():
                raise ContextOverflowError(f"{step}: the endpoint says the prompt does not fit: {e}") from None
            raise JudgeError(f"{step}: the endpoint refused the request: {e}") from None
        except self._openai.APIError as e:
            raise JudgeError(f"{step}: the endpoint failed: {e}") from None

    def generate(self, step: str, messages: Messages, output_type: type[T], max_tokens: int) -> tuple[T, JudgeCall]:
        start = time.perf_counter()
        schema = output_type.model_json_schema()
        if self.response_format == "json_schema":
            response_format = {
                "type": "json_schema",
                "json_schema": {"name": output_type.__name__, "schema": schema, "strict": True},
            }
        else:
            response_format = {"type": "json_object", "schema": schema}
        response = self._create(
            step, messages=_flatten(messages), max_tokens=max_tokens, response_format=response_format
        )
        choice = response.choices[0]
        output = choice.message.content or ""
        if choice.finish_reason == "length":
            raise JudgeError(
                f"{step}: the judge's answer hit its cap of {max_tokens} tokens before the JSON was complete"
            )
        try:
            value = parse(output_type, output)
        except JudgeError as e:
            raise JudgeError(f"{step}: {e}") from None
        return value, self._call(step, messages, output, response, time.perf_counter() - start)

    def yes_probability(self, step: str, messages: Messages) -> tuple[float, JudgeCall]:
        start = time.perf_counter()
        response = self._create(step, messages=_flatten(messages), max_tokens=1, logprobs=True, top_logprobs=20)
        choice = response.choices[0]
        answer = choice.message.content or ""
        p_yes = p_no = 0.0
        content = getattr(choice.logprobs, "content", None) or []
        for alternative in (content[0].top_logprobs or []) if content else []:
            word = _answer_word(alternative.token)
            if word == "yes":
                p_yes += math.exp(alternative.logprob)
            elif word == "no":
                p_no += math.exp(alternative.logprob)
        if p_yes + p_no > 0:
            p, output = p_yes / (p_yes + p_no), f"p(yes)={p_yes / (p_yes + p_no):.4f}"
        else:  # no log-probabilities: the answer itself is the verdict
            word = _answer_word(answer)
            if word is None:
                raise JudgeError(f"{step}: the judge answered {answer!r} where yes or no was asked")
            p, output = float(word == "yes"), f"answer={word} (no log-probabilities)"
        return p, self._call(step, messages, output, response, time.perf_counter() - start)

    def _call(self, step: str, messages: Messages, output: str, response: Any, seconds: float) -> JudgeCall:
        usage = getattr(response, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", 0) or 0
        completion_tokens = getattr(usage, "completion_tokens", 0) or 0
        prompt = "\n".join(f"[{m['role']}]\n{m['content']}" for m in _flatten(messages))
        return JudgeCall(step, prompt, output, prompt_tokens, 0, completion_tokens, seconds)
