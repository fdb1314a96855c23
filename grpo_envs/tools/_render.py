"""Token-in, token-out: the ids of one observation, rendered by the family's chat template, to
append after the turn the model sampled; earlier turns are never re-rendered (Qwen3's templates
drop earlier thinking, so a re-render changes tokens already sampled).

The observation's ids are the difference between the template's rendering of a short stub
conversation (a user turn, then an assistant turn with the call) with the tool role's messages,
cut after the stub turn's end-of-turn token (the token the model's own turn ended with; what the
template writes after it, such as Qwen's ``\\n``, belongs to the observation); the user turn must
render alike with and without the results (a template that re-renders earlier turns is refused).
The stub turn itself may render differently once a result follows (Qwen3 drops its thinking
before a new user turn): its ids are never used, the model's sampled ones are."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from grpo_envs.tools._call import ToolCall, ToolFormat, ToolFormatError
from grpo_envs.tools._formats import tool_format

_STUB_USER = {"role": "user", "content": "Begin."}


def render_ids(
    tokenizer: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **kw: Any
) -> list[int]:
    """``messages`` through the tokenizer's chat template as ids (``tools=`` passed when given)."""
    extra = {"tools": tools} if tools else {}
    ids = tokenizer.apply_chat_template(messages, tokenize=True, **extra, **kw)
    return list(ids["input_ids"] if hasattr(ids, "keys") else ids)


def observation_ids(
    tokenizer: Any,
    fmt: ToolFormat,
    results: list[tuple[ToolCall, str]],
    tools: list[dict[str, Any]] | None = None,
) -> list[int]:
    """The ids to append after a sampled turn that ended with an end-of-turn token: the tool
    role's messages for ``results`` (each call with its output) as the template renders them,
    then the next turn's generation prompt.

    Raises:
        ToolFormatError: the template renders the user turn before the call differently once
            results follow (it re-renders earlier turns), or the call turn has no end token.
    """
    tools = tools if fmt.takes_tools else None
    calls = [call for call, _ in results]
    stub = {**fmt.call_message(calls), "reasoning_content": "Run it.", "thinking": "Run it."}
    head = render_ids(tokenizer, [_STUB_USER], tools, add_generation_prompt=False)
    before = render_ids(tokenizer, [_STUB_USER, stub], tools, add_generation_prompt=False)
    answered = [_STUB_USER, stub, *(fmt.result_message(output, call) for call, output in results)]
    after = render_ids(tokenizer, answered, tools, add_generation_prompt=True)
    if not (before[: len(head)] == after[: len(head)] == head):
        raise ToolFormatError(
            f"{fmt.name}: the chat template renders earlier turns differently once a tool result follows; "
            "use a template that renders the tool role as a pure suffix"
        )
    ends = _end_ids(tokenizer, fmt)
    turns = sum(1 for i in before if i in ends)  # the stub turn ends at the turns-th end token
    cut = [k + 1 for k, i in enumerate(after) if i in ends]
    if not turns or len(cut) < turns:
        raise ToolFormatError(f"{fmt.name}: the template's assistant turn ends with none of the family's end tokens")
    return after[cut[turns - 1] :]


def _end_ids(tokenizer: Any, fmt: ToolFormat) -> set[int]:
    """The ids of the family's end-of-turn tokens (the EOS when it names none, as the fenced
    fallback, whose turn ends with its template's own EOS)."""
    names = fmt.end_tokens or tuple(t for t in (getattr(tokenizer, "eos_token", None),) if t)
    return {tokenizer.convert_tokens_to_ids(t) for t in names}


def reply_ids(tokenizer: Any, info: dict[str, Any], sampled: Sequence[int]) -> list[int] | None:
    """The ids of an env's tool results, from a step's ``info`` as a tool-calling env gives it
    (``tool_format``: a format's name; ``tool_results``: (`ToolCall`, output) pairs; ``tools``:
    the schemas), to append after the ``sampled`` turn; None when ``info`` holds no results.
    A sampled turn that did not end with the family's end token (cut off by the token budget)
    gets that token first, so the observation opens a turn of its own."""
    results = info.get("tool_results")
    if not results or not info.get("tool_format"):
        return None
    fmt = tool_format(str(info["tool_format"]))
    observation = observation_ids(tokenizer, fmt, list(results), info.get("tools"))
    ends = _end_ids(tokenizer, fmt)
    if sampled and sampled[-1] in ends:
        return observation
    closing = fmt.end_tokens[0] if fmt.end_tokens else tokenizer.eos_token
    return [tokenizer.convert_tokens_to_ids(closing), *observation]
