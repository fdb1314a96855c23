"""Qwen's ``<tool_call>`` with an XML-parameter body: Qwen3-Coder and Qwen3.5+
(``<function=NAME>`` holding ``<parameter=KEY>value</parameter>``). Values are text; the tool's
JSON schema coerces them (integer, number, boolean, object, array; a string stays as written)."""

from __future__ import annotations

import ast
import json
import re
from typing import Any, ClassVar

from grpo_envs.tools._call import ToolCall, ToolFormat, after_thinking, schema_of

_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FUNCTION = re.compile(r"<function=([^>\s]+)>(.*?)(?:</function>|$)", re.DOTALL)
_PARAMETER = re.compile(r"<parameter=([^>\s]+)>\n?(.*?)\n?(?:</parameter>|(?=<parameter=)|$)", re.DOTALL)


def coerce(value: str, schema: dict[str, Any]) -> Any:
    """``value`` (a parameter's text) as the type ``schema`` names; unchanged when it does not
    read as that type (the verifier sees what the model wrote).

    Examples:
        >>> coerce("3", {"type": "integer"}), coerce("true", {"type": "boolean"}), coerce("3", {})
        (3, True, '3')
    """
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "string" in kinds or kind is None:
        return value
    for reader in (json.loads, ast.literal_eval):  # the template writes a dict with Python's str()
        try:
            read = reader(value.strip())
        except (ValueError, SyntaxError):
            continue
        if _fits(read, kinds):
            return read
    lowered = value.strip().lower()
    if "boolean" in kinds and lowered in ("true", "false"):
        return lowered == "true"
    return value


def _fits(value: Any, kinds: list[Any]) -> bool:
    types: dict[str, type | tuple[type, ...]] = {
        "integer": int,
        "number": (int, float),
        "boolean": bool,
        "object": dict,
        "array": list,
        "null": type(None),
    }
    return any(
        isinstance(value, types[k]) and not (k in ("integer", "number") and isinstance(value, bool))
        for k in kinds
        if k in types
    )


class QwenXml(ToolFormat):
    """``<tool_call>\\n<function=bash>\\n<parameter=command>\\nls\\n</parameter>\\n</function>\\n</tool_call>``.

    Examples:
        >>> body = "<function=bash>\\n<parameter=command>\\nls -l\\n</parameter>\\n</function>"
        >>> text = f"<tool_call>\\n{body}\\n</tool_call>"
        >>> QwenXml().parse(text)[0].arguments
        {'command': 'ls -l'}
    """

    name: ClassVar[str] = "qwen-xml"
    end_tokens: ClassVar[tuple[str, ...]] = ("<|im_end|>",)
    stop_tokens: ClassVar[tuple[str, ...]] = ("<|im_end|>",)

    def parse(self, text: str, tools: list[dict[str, Any]] | None = None) -> list[ToolCall]:
        calls = []
        for block in _BLOCK.findall(after_thinking(text).replace("<|im_end|>", "")):
            for name, body in _FUNCTION.findall(block):
                schema = schema_of(tools, name)
                arguments = {k: coerce(v, schema.get(k, {})) for k, v in _PARAMETER.findall(body)}
                calls.append(ToolCall(name, arguments))
        return calls

    def write(self, call: ToolCall) -> str:
        parameters = "".join(
            f"<parameter={k}>\n{v if isinstance(v, str) else json.dumps(v)}\n</parameter>\n"
            for k, v in call.arguments.items()
        )
        return f"<tool_call>\n<function={call.name}>\n{parameters}</function>\n</tool_call>"
