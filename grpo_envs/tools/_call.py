"""A tool call and the seam every chat family's tool-call format implements (`ToolFormat`):
parse the calls out of a completion, write a call as that family's model writes it, and the
messages a chat template takes for a call and for its result (the tool role's message)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from grpo_envs.errors import GrpoEnvsError


class ToolFormatError(GrpoEnvsError):
    """A tool-call format cannot do what was asked (an unknown family, a template whose tool
    turn is not a pure suffix of the conversation); the message names the fix."""


@dataclass(frozen=True)
class ToolCall:
    """One call the model made: the tool's ``name`` and its ``arguments`` (a JSON object).

    Examples:
        >>> ToolCall("bash", {"command": "ls"}).arguments["command"]
        'ls'
    """

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = "call00001"  # Mistral's templates insist on 9 alphanumeric characters


def bash_tool(description: str = "Run a bash command in the task's shell and return its output.") -> dict[str, Any]:
    """The JSON schema (OpenAI function form, as ``apply_chat_template(tools=...)`` takes it) of
    the terminal's one tool: ``bash(command: str)``.

    Examples:
        >>> bash_tool()["function"]["parameters"]["required"]
        ['command']
    """
    command = {"type": "string", "description": "The command line to run."}
    parameters = {"type": "object", "properties": {"command": command}, "required": ["command"]}
    return {"type": "function", "function": {"name": "bash", "description": description, "parameters": parameters}}


class ToolFormat:
    """How one chat family writes tool calls and renders their results. Subclasses set ``name``,
    ``result_role`` and implement `parse` and `write`; the message builders suit the family's
    published chat template (vendored in tests/grpo_envs/chat_templates/)."""

    name: ClassVar[str] = ""
    result_role: ClassVar[str] = "tool"
    takes_tools: ClassVar[bool] = True  # the template renders ``tools=``; False: the prompt must say it
    end_tokens: ClassVar[tuple[str, ...]] = ()  # the tokens that end a sampled turn with its calls
    stop_tokens: ClassVar[tuple[str, ...]] = ()  # where generation stops (with the EOS): the turn is over
    markers: ClassVar[tuple[str, ...]] = ()  # special tokens the parser reads (a decode must keep them)

    def parse(self, text: str, tools: list[dict[str, Any]] | None = None) -> list[ToolCall]:
        """The calls in a completion ``text`` (decoded with its special tokens); [] when none."""
        raise NotImplementedError

    def write(self, call: ToolCall) -> str:
        """``call`` as this family's model writes it (what a scripted generator replays)."""
        raise NotImplementedError

    def call_message(self, calls: list[ToolCall], content: str = "") -> dict[str, Any]:
        """The assistant message a chat template takes for ``calls`` (OpenAI's ``tool_calls``)."""
        tool_calls = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls
        ]
        return {"role": "assistant", "content": content, "tool_calls": tool_calls}

    def result_message(self, output: str, call: ToolCall) -> dict[str, Any]:
        """The tool role's message carrying ``output``, the result of ``call``."""
        return {"role": self.result_role, "content": output, "tool_call_id": call.id, "name": call.name}


_THOUGHTS = (("<think>", "</think>"), ("[THINK]", "[/THINK]"))


def after_thinking(text: str) -> str:
    """What follows the completion's thinking: a call drafted in a thought is no call (the
    thinking's end may be all there is when the template opened it); a thought never closed
    (cut off) leaves nothing.

    Examples:
        >>> after_thinking("<think>maybe ls?</think>\\nrun pwd"), after_thinking("<think>ls, then")
        ('\\nrun pwd', '')
    """
    for opening, closing in _THOUGHTS:
        if closing in text:
            return text.rsplit(closing, 1)[1]
        if opening in text:
            return text.split(opening, 1)[0]
    return text


def json_object(text: str) -> dict[str, Any] | None:
    """``text`` as a JSON object, or None when it is not one."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def schema_of(tools: list[dict[str, Any]] | None, name: str) -> dict[str, Any]:
    """The ``properties`` of tool ``name``'s parameters in ``tools``; {} when unknown."""
    for tool in tools or []:
        function = tool.get("function", tool)
        if function.get("name") == name:
            return dict(function.get("parameters", {}).get("properties", {}))
    return {}
