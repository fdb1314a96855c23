"""Every tool-call format by name, and the one a tokenizer's chat template speaks."""

from __future__ import annotations

from typing import Any

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


def stop_ids(tokenizer: Any, fmt: ToolFormat | None = None) -> list[int]:
    """The ids generation stops at for ``tokenizer``'s family: its EOS and the tokens that end a
    turn in ``fmt`` (the format its template speaks when not given), each a table of the family's
    (gpt-oss's call ends in ``<|call|>`` while its EOS is ``<|return|>``; Llama 3.x's in
    ``<|eom_id|>``); a token not in the vocabulary is left out. The EOS first, the rest sorted; [] when none is known.

    Examples:
        >>> class GptOss:
        ...     chat_template, eos_token_id = "<|channel|>", 2
        ...     vocab = {"<|call|>": 5, "<|return|>": 2}
        ...     def convert_tokens_to_ids(self, t): return self.vocab.get(t, 0)
        ...     def convert_ids_to_tokens(self, i): return {v: k for k, v in self.vocab.items()}.get(i, "")
        >>> stop_ids(GptOss())
        [2, 5]
    """
    fmt = fmt if fmt is not None else detect_format(tokenizer)
    eos = [int(tokenizer.eos_token_id)] if getattr(tokenizer, "eos_token_id", None) is not None else []
    if not (hasattr(tokenizer, "convert_tokens_to_ids") and hasattr(tokenizer, "convert_ids_to_tokens")):
        return eos
    ends = set()
    for token in fmt.stop_tokens:
        found = tokenizer.convert_tokens_to_ids(token)
        if isinstance(found, int) and tokenizer.convert_ids_to_tokens(found) == token:
            ends.add(found)
    return eos + sorted(ends - set(eos))
