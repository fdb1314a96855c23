"""``--chat``: a `Generator` over a server's ``/v1/chat/completions``, where the server applies its
own chat template (what hosted APIs offer). It takes chat messages (``takes = "messages"``), so
the trainer's rollout loop (``trainer._rollout``) runs it as it runs every other backend, single-
and multi-turn: the transcript grows by our turn and the env's reply. Results may differ from the
other backends, which all build prompts with the model's template themselves. Token counts are
the server's (a whitespace count where it gives none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trainer._sampling import Continuation, Message, SamplingParams
from trainer.errors import TrainerError
from trainer.eval._http import Client, choice

__all__ = ["ChatGenerator"]


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
            text, truncated, tokens = choice(self.client.post("/chat/completions", body), url, chat=True)
            count = tokens if tokens is not None else len(text.split())
            return Continuation((), truncated, text=text, num_tokens=count)

        return list(self.client.map(one, list(range(len(contexts)))))
