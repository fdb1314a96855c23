"""``--chat``: a `Generator` over a server's ``/v1/chat/completions``, where the server applies its
own chat template (what hosted APIs offer). It takes chat messages (``takes = "messages"``), so
the trainer's rollout loop (``trainer.rollouts._rollout``) runs it as it runs every other backend, single-
and multi-turn: the transcript grows by our turn and the env's reply. Results may differ from the
other backends, which all build prompts with the model's template themselves. Token counts are
the server's (a whitespace count where it gives none).

Tools: for a tool-using env (its context a `Transcript` with ``tools``) the request carries
``tools=``; a server whose tool parser is on (vLLM ``--enable-auto-tool-choice
--tool-call-parser NAME``, SGLang ``--tool-call-parser NAME``) answers ``tool_calls``, read here
as `grpo_envs.tools.ToolCall` values with the server's ids (no text parsing); the rollout writes
them in the env's format for its ``step`` and returns the results as ``role: tool`` messages.
Without a tool parser the calls stay in the text, and the env parses them in its family's format.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from grpo_envs.tools import ToolCall
from trainer.errors import TrainerError
from trainer.generation._generator import Continuation, Message, SamplingParams
from trainer.generation._http import Client, choice

__all__ = ["ChatGenerator", "tool_calls"]


class ChatGenerator:
    """`Generator` over ``/v1/chat/completions``: one request per context (a transcript), ``n=1``
    and the context's seed; the answer's text comes back as `Continuation.text`, without ids.

    Examples:
        >>> ChatGenerator(Client("http://127.0.0.1:9/v1", model="m")).takes
        'messages'
    """

    takes = "messages"

    def __init__(self, client: Client) -> None:
        self.client = client

    def generate(self, contexts: Sequence[list[Message]], params: SamplingParams) -> list[Continuation]:
        if params.min_new_tokens:
            raise TrainerError("the OpenAI-compatible backend has no min_new_tokens")
        url = self.client.base_url + "/chat/completions"

        def one(k: int) -> Continuation:
            body: dict[str, Any] = {"messages": contexts[k], "max_tokens": params.max_new_tokens}
            body.update(temperature=params.temperature, n=1)
            if params.top_p != 1.0:
                body["top_p"] = params.top_p
            if params.seeds is not None:
                body["seed"] = int(params.seeds[k])
            tools = getattr(contexts[k], "tools", None)
            if tools:
                body["tools"] = list(tools)
            answer = self.client.post("/chat/completions", body)
            text, truncated, tokens = choice(answer, url, chat=True)
            calls = tool_calls(answer, url)
            count = tokens if tokens is not None else len(text.split()) + len(calls)
            return Continuation((), truncated, text=text, num_tokens=count, tool_calls=calls)

        return list(self.client.map(one, list(range(len(contexts)))))


def tool_calls(answer: dict[str, Any], url: str) -> tuple[ToolCall, ...]:
    """The calls a server's tool parser read out of an answer's first choice (OpenAI's
    ``message.tool_calls``, arguments a JSON string); () when it gave none. Arguments that are not
    a JSON object come back as {} (the env then answers that the call lacks its arguments).

    Examples:
        >>> f = {"name": "bash", "arguments": '{"command": "ls"}'}
        >>> tool_calls({"choices": [{"message": {"tool_calls": [{"id": "c1", "function": f}]}}]}, "u")
        (ToolCall(name='bash', arguments={'command': 'ls'}, id='c1'),)
    """
    listed = ((answer["choices"][0] or {}).get("message") or {}).get("tool_calls") or []
    calls = []
    for k, item in enumerate(listed if isinstance(listed, list) else []):
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise TrainerError(f"the server at {url} answered a tool call without a function name: {str(item)[:200]}")
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = None
        call_id = item.get("id") or f"call{k + 1:05d}"
        calls.append(ToolCall(function["name"], arguments if isinstance(arguments, dict) else {}, str(call_id)))
    return tuple(calls)
