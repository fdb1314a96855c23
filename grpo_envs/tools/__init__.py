"""Tool calls as each chat family writes them, and their results rendered token-exactly.

A `ToolFormat` per family parses the calls out of a completion, writes a call as that family's
model does, and builds the messages its chat template takes; `observation_ids` renders a tool
result to append after the sampled turn without re-rendering earlier turns.

| name | families | a call | the result |
|---|---|---|---|
| ``qwen`` | Hermes 2/3, Qwen2.5, QwQ, Qwen3 | ``<tool_call>`` JSON | user turn with ``<tool_response>`` |
| ``qwen-xml`` | Qwen3-Coder, Qwen3.5+ | ``<function=..><parameter=..>`` in ``<tool_call>`` | as ``qwen`` |
| ``llama`` | Llama 3.1-3.3 | ``{"name", "parameters"}`` | ``ipython`` role |
| ``harmony`` | gpt-oss | ``to=functions.NAME`` … ``<|call|>`` | ``functions.NAME to=assistant`` |
| ``mistral`` | Mistral, Mixtral, Nemo, Small | ``[TOOL_CALLS]`` | ``[TOOL_RESULTS]`` |
| ``fenced`` | a model without tools | ```` ```bash ```` block | user turn |

Examples:
    >>> from grpo_envs.tools import ToolCall, tool_format
    >>> fmt = tool_format("qwen")
    >>> fmt.parse(fmt.write(ToolCall("bash", {"command": "ls"})))[0].arguments
    {'command': 'ls'}
"""

from __future__ import annotations

from grpo_envs.tools._call import ToolCall, ToolFormat, ToolFormatError, bash_tool
from grpo_envs.tools._fenced import FencedBash
from grpo_envs.tools._formats import FORMATS, detect_format, stop_ids, tool_format
from grpo_envs.tools._harmony import Harmony
from grpo_envs.tools._llama import LlamaJson
from grpo_envs.tools._mistral import Mistral
from grpo_envs.tools._qwen import QwenJson
from grpo_envs.tools._qwen_xml import QwenXml
from grpo_envs.tools._render import observation_ids, reply_ids

__all__ = [
    "FORMATS",
    "FencedBash",
    "Harmony",
    "LlamaJson",
    "Mistral",
    "QwenJson",
    "QwenXml",
    "ToolCall",
    "ToolFormat",
    "ToolFormatError",
    "bash_tool",
    "detect_format",
    "observation_ids",
    "reply_ids",
    "stop_ids",
    "tool_format",
]
