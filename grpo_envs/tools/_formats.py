"""Every tool-call format by name, and the one a tokenizer's chat template speaks."""

from __future__ import annotations

from grpo_envs.tools._call import ToolFormat, ToolFormatError
from grpo_envs.tools._fenced import FencedBash
from grpo_envs.tools._harmony import Harmony
from grpo_envs.tools._llama import LlamaJson
from grpo_envs.tools._mistral import Mistral
from grpo_envs.tools._qwen import QwenJson
from grpo_envs.tools._qwen_xml import QwenXml

FORMATS: dict[str, type[ToolFormat]] = {f.name: f for f in (QwenJson, QwenXml, LlamaJson, Harmony, Mistral, FencedBash)}
"""Every tool-call format by its name."""


def tool_format(name: str) -> ToolFormat:
    """The format called ``name`` (a key of `FORMATS`).

    Raises:
        ToolFormatError: no format has that name.
    """
    if name not in FORMATS:
        raise ToolFormatError(f"tool format must be one of {', '.join(sorted(FORMATS))}, got {name!r}")
    return FORMATS[name]()


_MARKS = (  # a mark in the chat template -> the family's format (first match wins)
    ("<function=", "qwen-xml"),
    ("<tool_call>", "qwen"),
    ("<|channel|>", "harmony"),
    ("<|python_tag|>", "llama"),
    ("ipython", "llama"),
    ("[TOOL_CALLS]", "mistral"),
)


def detect_format(tokenizer: object) -> ToolFormat:
    """The tool-call format a tokenizer's chat template speaks, read from marks in the template;
    `FencedBash` for a template without tools.

    Examples:
        >>> class T: chat_template = "{{ '<|im_start|>' }}... <tool_call> ..."
        >>> detect_format(T()).name
        'qwen'
    """
    template = getattr(tokenizer, "chat_template", None) or ""
    for mark, name in _MARKS:
        if mark in template:
            return tool_format(name)
    return FencedBash()
