"""Llama 3.1/3.2/3.3's JSON tool call (``{"name": ..., "parameters": {...}}`` as the whole
assistant turn, ``<|python_tag|>`` optionally before it); results return in the ``ipython``
role (``<|start_header_id|>ipython<|end_header_id|>``)."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from grpo_envs.tools._call import ToolCall, ToolFormat, after_thinking

_DECODER = json.JSONDecoder()


class LlamaJson(ToolFormat):
    """``{"name": "bash", "parameters": {"command": "ls"}}``.

    Examples:
        >>> LlamaJson().parse('<|python_tag|>{"name": "bash", "parameters": {"command": "ls"}}<|eot_id|>')
        [ToolCall(name='bash', arguments={'command': 'ls'}, id='call00001')]
    """

    name: ClassVar[str] = "llama"
    result_role: ClassVar[str] = "ipython"
    end_tokens: ClassVar[tuple[str, ...]] = ("<|eot_id|>", "<|eom_id|>")
    stop_tokens: ClassVar[tuple[str, ...]] = ("<|eot_id|>", "<|eom_id|>")
    markers: ClassVar[tuple[str, ...]] = ("<|python_tag|>",)

    def parse(self, text: str, tools: list[dict[str, Any]] | None = None) -> list[ToolCall]:
        text, calls, at = after_thinking(text).replace("<|python_tag|>", ""), [], 0
        while (start := text.find("{", at)) >= 0:  # each JSON object in turn (3.2 joins calls by ';')
            try:
                call, at = _DECODER.raw_decode(text, start)
            except ValueError:
                at = start + 1
                continue
            arguments = call.get("parameters", call.get("arguments")) if isinstance(call, dict) else None
            if isinstance(call.get("name") if isinstance(call, dict) else None, str) and isinstance(arguments, dict):
                calls.append(ToolCall(call["name"], arguments))
        return calls

    def write(self, call: ToolCall) -> str:
        return json.dumps({"name": call.name, "parameters": call.arguments}, ensure_ascii=False)
