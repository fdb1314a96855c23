"""Harmony (gpt-oss): a call is a message addressed ``to=functions.NAME`` on the commentary
channel, its body JSON, ended by ``<|call|>``; the result returns from ``functions.NAME``
``to=assistant`` on the commentary channel (the template JSON-encodes the output)."""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from grpo_envs.tools._call import ToolCall, ToolFormat, json_object

_CALL = re.compile(
    r"to=functions\.([\w.\-]+)[^<]*(?:<\|channel\|>[^<]*)?(?:<\|constrain\|>[^<]*)?<\|message\|>(.*?)"
    r"(?:<\|call\|>|<\|end\|>|<\|return\|>|$)",
    re.DOTALL,
)


class Harmony(ToolFormat):
    """`` to=functions.bash<|channel|>commentary json<|message|>{"command": "ls"}<|call|>``
    (after the generation prompt ``<|start|>assistant``); the recipient may also follow the
    channel (``<|channel|>commentary to=functions.bash <|constrain|>json<|message|>``).

    Examples:
        >>> text = '<|channel|>commentary to=functions.bash <|constrain|>json<|message|>{"command": "ls"}<|call|>'
        >>> Harmony().parse(text)
        [ToolCall(name='bash', arguments={'command': 'ls'}, id='call00001')]
    """

    name: ClassVar[str] = "harmony"
    end_tokens: ClassVar[tuple[str, ...]] = ("<|call|>", "<|return|>", "<|end|>")
    stop_tokens: ClassVar[tuple[str, ...]] = ("<|call|>", "<|return|>")  # <|end|> ends a message, not the turn
    markers: ClassVar[tuple[str, ...]] = ("<|channel|>", "<|constrain|>", "<|message|>")

    def parse(self, text: str, tools: list[dict[str, Any]] | None = None) -> list[ToolCall]:
        calls = []
        for name, body in _CALL.findall(text):
            arguments = json_object(body.strip())
            if arguments is not None:
                calls.append(ToolCall(name, arguments))
        return calls

    def write(self, call: ToolCall) -> str:
        body = json.dumps(call.arguments, ensure_ascii=False)
        return f" to=functions.{call.name}<|channel|>commentary json<|message|>{body}<|call|>"
