"""Mistral's ``[TOOL_CALLS]``: a JSON list of ``{"name", "arguments", "id"}`` (Nemo, Small 3.x
templates before v11) or ``NAME[ARGS]{...}`` (v11+ tokenizers); results return as
``[TOOL_RESULTS]...[/TOOL_RESULTS]`` for the call's 9-character id."""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from grpo_envs.tools._call import ToolCall, ToolFormat, after_thinking

_DECODER = json.JSONDecoder()
_V11 = re.compile(r"([\w.\-]+)\[ARGS\]")


class Mistral(ToolFormat):
    """``[TOOL_CALLS][{"name": "bash", "arguments": {"command": "ls"}, "id": "call00001"}]``.

    Examples:
        >>> Mistral().parse('[TOOL_CALLS]bash[ARGS]{"command": "ls"}</s>')[0].arguments
        {'command': 'ls'}
    """

    name: ClassVar[str] = "mistral"
    end_tokens: ClassVar[tuple[str, ...]] = ("</s>",)
    stop_tokens: ClassVar[tuple[str, ...]] = ("</s>",)
    markers: ClassVar[tuple[str, ...]] = ("[TOOL_CALLS]", "[ARGS]")

    def parse(self, text: str, tools: list[dict[str, Any]] | None = None) -> list[ToolCall]:
        calls: list[ToolCall] = []
        for chunk in after_thinking(text).split("[TOOL_CALLS]")[1:]:
            chunk = chunk.split("</s>")[0].strip()
            calls += self._v11(chunk) if _V11.match(chunk) else self._listed(chunk)
        return calls

    @staticmethod
    def _listed(chunk: str) -> list[ToolCall]:
        try:
            listed, _ = _DECODER.raw_decode(chunk)
        except ValueError:
            return []
        calls = []
        for call in listed if isinstance(listed, list) else [listed]:
            if isinstance(call, dict) and isinstance(call.get("name"), str) and isinstance(call.get("arguments"), dict):
                calls.append(ToolCall(call["name"], call["arguments"], str(call.get("id", "call00001"))))
        return calls

    @staticmethod
    def _v11(chunk: str) -> list[ToolCall]:
        calls = []
        for match in _V11.finditer(chunk):
            try:
                arguments, _ = _DECODER.raw_decode(chunk[match.end() :].lstrip())
            except ValueError:
                continue
            if isinstance(arguments, dict):
                calls.append(ToolCall(match.group(1), arguments))
        return calls

    def write(self, call: ToolCall) -> str:
        body = json.dumps([{"name": call.name, "arguments": call.arguments, "id": call.id}], ensure_ascii=False)
        return f"[TOOL_CALLS]{body}"
