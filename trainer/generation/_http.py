"""The OpenAI-compatible backend: vLLM's and SGLang's servers, ``transformers serve``, hosted APIs.

`Client` is `verifiers.http.Client` (the LLM judge's too): bounded concurrency, transient errors
(connection refused or reset, timeouts, 429 and 5xx) retried with exponential backoff, and one
clear `TrainerError` naming the URL when the server is down or answers garbage.
`CompletionsGenerator` is a `Generator` over ``/v1/completions``: the prompt is the text of the
context our tokenizer built (same chat template as the other backends), one request per sample
with ``n=1`` and the sample's own seed (servers such as ``transformers serve`` ignore ``n``), and
the completion text tokenized back into ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trainer.errors import TrainerError
from trainer.generation._decode import kept_special_ids
from trainer.generation._generator import Continuation, SamplingParams
from verifiers import ServerError, http

__all__ = ["Client", "CompletionsGenerator"]


class Client(http.Client):
    """`verifiers.http.Client` (shared with the LLM judge) for ``--base-url``: its errors are one
    `TrainerError` naming the URL.

    Examples:
        >>> Client("127.0.0.1:8000/v1", model="m")
        Traceback (most recent call last):
        ...
        trainer.errors.TrainerError: --base-url must start with http:// or https://, got '127.0.0.1:8000/v1'
    """

    def __init__(self, base_url: str, *, model: str, **options: Any) -> None:
        try:
            super().__init__(base_url, model=model, option="--base-url", **options)
        except ServerError as exc:
            raise TrainerError(str(exc).replace("concurrency", "--concurrency", 1)) from None

    def post(self, route: str, body: dict[str, Any]) -> dict[str, Any]:
        """The JSON answer to ``body`` at ``route`` (e.g. ``/completions``), retrying transient errors."""
        try:
            return super().post(route, body)
        except ServerError as exc:
            raise TrainerError(str(exc)) from None


def choice(answer: dict[str, Any], url: str, *, chat: bool) -> tuple[str, bool, int | None]:
    """(text, truncated?, completion tokens if the server counted them) of an answer's first
    choice; a chat message of tool calls only (its content null) has the text ""."""
    first = answer["choices"][0]
    text = None
    if isinstance(first, dict):
        message = first.get("message") or {}
        text = message.get("content") if chat else first.get("text")
        if chat and text is None and message.get("tool_calls"):
            text = ""
    if not isinstance(text, str):
        raise TrainerError(f"the server at {url} answered a choice without text: {str(first)[:200]}")
    usage = answer.get("usage") or {}
    tokens = usage.get("completion_tokens") if isinstance(usage, dict) else None
    return text, first.get("finish_reason") == "length", tokens if isinstance(tokens, int) else None


class CompletionsGenerator:
    """`Generator` over a server's ``/v1/completions``. ``tokenizer`` (a `FileTokenizer` or a
    transformers tokenizer) turns the context ids into the prompt text and the completion back
    into ids; a completion that stopped (not cut at ``max_tokens``) gets the EOS id appended, as
    the in-process backends count it. Where the tokenizer adds a BOS itself, a leading BOS is left
    to the server, which adds its own.
    """

    def __init__(self, client: Client, tokenizer: Any) -> None:
        self.client, self.tokenizer = client, tokenizer
        self.eos = getattr(tokenizer, "eos_token_id", None)
        bos, bos_id = getattr(tokenizer, "bos_token", None), getattr(tokenizer, "bos_token_id", None)
        adds_bos = bos_id is not None and tokenizer("a", add_special_tokens=True)["input_ids"][:1] == [bos_id]
        self.bos = bos if adds_bos else None  # the server's tokenizer adds it: not sent twice
        # a vocabulary whose thinking delimiters are special tokens ([THINK], Harmony): ask the server
        # (vLLM, SGLang) to keep them in its text, or the verifier cannot tell thinking from answer
        self.keep_special = bool(kept_special_ids(tokenizer)[1])

    def generate(self, contexts: Sequence[list[int]], params: SamplingParams) -> list[Continuation]:
        if params.min_new_tokens:
            raise TrainerError("the OpenAI-compatible backend has no min_new_tokens")
        url = self.client.base_url + "/completions"

        def one(k: int) -> Continuation:
            prompt = self.tokenizer.decode(contexts[k], skip_special_tokens=False)
            if self.bos and prompt.startswith(self.bos):
                prompt = prompt[len(self.bos) :]
            body: dict[str, Any] = {"prompt": prompt, "max_tokens": params.max_new_tokens}
            body.update(temperature=params.temperature, top_p=params.top_p, n=1)
            if self.keep_special:
                body["skip_special_tokens"] = False
            if params.seeds is not None:
                body["seed"] = int(params.seeds[k])
            text, truncated, _ = choice(self.client.post("/completions", body), url, chat=False)
            ids = list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
            if not truncated and self.eos is not None:
                ids.append(int(self.eos))
            return Continuation(tuple(ids), truncated)

        return list(self.client.map(one, list(range(len(contexts)))))
