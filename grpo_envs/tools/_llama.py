"""Llama 3.1/3.2/3.3's JSON tool call (``{"name": ..., "parameters": {...}}`` as the whole
assistant turn, ``<|python_tag|>`` optionally before it); results return in the ``ipython``
role (``<|start_header_id|>ipython<|end_header_id|>``)."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from grpo_envs.tools._call import ToolCall, ToolFormat

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
    markers: ClassVar[tuple[str, ...]] = ("<|python_tag|>",)

    def parse(self, text: str, tools: list[dict[str, Any]] | None = None) -> list[ToolCall]:
        calls = []
        for piece in text.replace("<|python_tag|>", "").split(";"):  # 3.2 allows calls joined by ';'
            piece = piece.split("<|eot_id|>")[0].split("<|eom_id|>")[0].strip()
            start = piece.find("{")
            if start < 0:
                continue
            try:
                call, _ = _DECODER.raw_decode(piece[start:])
            except ValueError:
                continue
            arguments = call.get("parameters", call.get("arguments")) if isinstance(call, dict) else None
            if isinstance(call.get("name"), str) and isinstance(arguments, dict):
                calls.append(ToolCall(call["name"], arguments))
        return calls

    def write(self, call: ToolCall) -> str:
        return json.dumps({"name": call.name, "parameters": call.arguments}, ensure_ascii=False)
