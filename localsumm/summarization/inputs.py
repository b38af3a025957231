"""Inputs (before the reference's steps): finding the summary and the source in an agent run (SPEC §4).

A run is shaped like the reference's: ``input`` holds ``inputMessages`` and
``output`` is a list of messages, each ``{id, role, content}`` where content is
a string or a list of parts. Plain strings are accepted for both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypedDict

from ..errors import InputError

SourceExtractor = Callable[[Any, Any], str]


class ToolResult(TypedDict):
    tool_name: str
    tool_call_id: str | None
    args: Any
    result: Any


def _get(obj: Mapping[str, Any], *keys: str, default: Any = None) -> Any:
    """First present key: accept the reference's camelCase and Python's snake_case."""
    for key in keys:
        if key in obj:
            return obj[key]
    return default


def _messages(value: Any, *, what: str) -> list[Mapping[str, Any]]:
    if value is None:
        return []
    if isinstance(value, Mapping):
        if "role" in value:
            return [value]
        value = _get(value, "inputMessages", "input_messages", "messages", default=[])
    if not isinstance(value, (list, tuple)):
        raise InputError(
            f"{what} must be a string, a list of messages or an object with inputMessages; got {type(value).__name__}"
        )
    for i, message in enumerate(value):
        if not isinstance(message, Mapping):
            raise InputError(f"{what} message {i} is a {type(message).__name__}, not an object with role and content")
    return list(value)


def _parts(content: Any) -> list[Any]:
    """Content as a list of parts; Mastra's stored format nests them under "parts"."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, Mapping):
        parts = list(_get(content, "parts", default=[]) or [])
        if not parts and isinstance(content.get("content"), str):
            parts = [{"type": "text", "text": content["content"]}]
        # Older stored messages keep completed tool calls beside the parts.
        for call in _get(content, "toolInvocations", "tool_invocations", default=[]) or []:
            parts.append({"type": "tool-invocation", "toolInvocation": call})
        return parts
    if isinstance(content, (list, tuple)):
        return list(content)
    return [{"type": "text", "text": str(content)}]


def message_text(message: Mapping[str, Any]) -> str:
    """The text parts of a message joined by newlines; tool parts contribute nothing."""
    texts = []
    for part in _parts(message.get("content")):
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, Mapping) and part.get("type", "text") == "text":
            text = part.get("text")
            if isinstance(text, str):
                texts.append(text)
    return "\n".join(texts).strip()


def resolve_summary(output: Any) -> str:
    """The text of the last assistant message that has text ("" if none)."""
    if isinstance(output, str):
        return output.strip()
    for message in reversed(_messages(output, what="output")):
        if message.get("role") == "assistant":
            text = message_text(message)
            if text:
                return text
    return ""


def resolve_source(
    input: Any,
    output: Any,
    *,
    source: str | None = None,
    source_extractor: SourceExtractor | None = None,
) -> str:
    """The text the summary condenses; the extractor wins over ``source``, which wins over the input."""
    if source_extractor is not None:
        text = source_extractor(input, output)
        if not isinstance(text, str):
            raise InputError(f"source_extractor must return a string, it returned {type(text).__name__}")
        return text
    if source is not None:
        return source
    if isinstance(input, str):
        return input
    for message in _messages(input, what="input"):
        if message.get("role") == "user":
            return message_text(message)
    raise InputError("no source: the input has no user message; pass source= or source_extractor=")


def _tool_invocations(parts: Iterable[Any]) -> Iterable[Mapping[str, Any]]:
    for part in parts:
        if not isinstance(part, Mapping):
            continue
        kind = str(part.get("type", ""))
        if kind == "tool-invocation":
            call = _get(part, "toolInvocation", "tool_invocation", default={})
            if isinstance(call, Mapping):
                yield call
        elif kind in ("tool-result", "tool_result"):
            yield part


def extract_tool_results(output: Any) -> list[ToolResult]:
    """Every completed tool invocation in the output, in order.

    A call still in progress (no result yet) is left out. The recipe for a
    source that arrived through a tool::

        lambda input, output: "\\n\\n".join(
            str(r["result"]) for r in extract_tool_results(output) if r["tool_name"] == "fetchDocument")
    """
    if isinstance(output, str):
        return []
    results: list[ToolResult] = []
    for message in _messages(output, what="output"):
        for call in _tool_invocations(_parts(message.get("content"))):
            state = call.get("state", "result")
            if state != "result" or not any(k in call for k in ("result", "output")):
                continue
            results.append(
                ToolResult(
                    tool_name=_get(call, "toolName", "tool_name", default=""),
                    tool_call_id=_get(call, "toolCallId", "tool_call_id"),
                    args=_get(call, "args", "input"),
                    result=_get(call, "result", "output"),
                )
            )
    return results
