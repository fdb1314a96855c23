"""Qwen's ``<tool_call>`` with a JSON body: Hermes 2/3, Qwen2.5, QwQ and Qwen3 (``{"name": ...,
"arguments": {...}}`` between ``<tool_call>`` and ``</tool_call>``); results return as a user turn
holding ``<tool_response>`` (the templates render the ``tool`` role so)."""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from grpo_envs.tools._call import ToolCall, ToolFormat, after_thinking, json_object

_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)


class QwenJson(ToolFormat):
    """``<tool_call>\\n{"name": "bash", "arguments": {"command": "ls"}}\\n</tool_call>``.

    Examples:
        >>> QwenJson().parse('<tool_call>\\n{"name": "bash", "arguments": {"command": "ls"}}\\n</tool_call>')
        [ToolCall(name='bash', arguments={'command': 'ls'}, id='call00001')]
    """

    name: ClassVar[str] = "qwen"
    end_tokens: ClassVar[tuple[str, ...]] = ("<|im_end|>",)
    stop_tokens: ClassVar[tuple[str, ...]] = ("<|im_end|>",)

    def parse(self, text: str, tools: list[dict[str, Any]] | None = None) -> list[ToolCall]:
        calls = []
        for body in _BLOCK.findall(after_thinking(text)):
            call = json_object(body.replace("<|im_end|>", "").strip())
            if call is None or not isinstance(call.get("name"), str):
                continue
            arguments = call.get("arguments", call.get("parameters", {}))
            if isinstance(arguments, str):  # some models write the arguments as a JSON string
                arguments = json_object(arguments)
            if isinstance(arguments, dict):
                calls.append(ToolCall(call["name"], arguments))
        return calls

    def write(self, call: ToolCall) -> str:
        body = json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False)
        return f"<tool_call>\n{body}\n</tool_call>"
