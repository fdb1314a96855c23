"""The eval's generation backends behind one shape: `Backend.run` gives the rollouts of a chunk of
tasks. Every backend is a `Generator` run by the trainer's `rollout` (same loop, single- and
multi-turn): transformers, vLLM and ``/v1/completions`` continue token ids built with the model's
chat template; ``--chat``'s `ChatGenerator` continues chat messages, and the server applies its
own template.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trainer.errors import TrainerError

if TYPE_CHECKING:
    from verifiers.executors import Executor

__all__ = ["BACKENDS", "Backend", "open_backend"]

BACKENDS = ("transformers", "vllm", "openai")
Run = Callable[[list[Any], Sequence[int], Callable[[], Any], int], list[list[Any]]]
"""(envs, task seeds, make_env, chunk seed) -> one list of rollouts per task."""


@dataclass
class Backend:
    """A backend ready to sample: its ``run``, how its samples are seeded and how their rewards are
    shaped (`trainer.eval._shaping.shaped`)."""

    name: str
    run: Run
    seeding: str  # "per chunk" (one torch stream per chunk of tasks) or "per sample"
    overlong: tuple[int, int] | None = None  # (L_max, L_cache) of the overlong shaping of its rewards
    tokenizer: Any = None  # the one the prompts are rendered with (None: the server's template, --chat)

    def facts(self) -> dict[str, Any]:
        """What an eval's summary says of the backend."""
        return {"backend": self.name, "seeding": self.seeding, "overlong": list(self.overlong or ()) or None}


@dataclass(frozen=True)
class Options:
    """What a backend needs besides the model: sampling, where the server is, and where
    single-turn groups are judged (``executor``; None: here)."""

    samples: int
    seed: int
    temperature: float
    max_new_tokens: int
    device: str = "auto"
    tokenizer: Any = None
    base_url: str | None = None
    api_key: str | None = None
    concurrency: int = 64
    chat: bool = False
    engine_kwargs: dict[str, Any] = field(default_factory=dict)
    executor: Executor | None = None


def open_backend(name: str, model: Any, probe: Any, opts: Options) -> Backend:
    """The backend ``name`` (`BACKENDS`) over ``model``; ``probe`` is an instance of the env."""
    if name not in BACKENDS:
        raise TrainerError(f"unknown backend {name!r}: choose one of {', '.join(BACKENDS)}")
    if name == "openai" or opts.base_url:
        return _openai(model, opts)
    if opts.chat:
        raise TrainerError("--chat is for an OpenAI-compatible server: pass --base-url too")
    if name == "vllm":
        return _vllm(model, opts)
    return _transformers(model, probe, opts)


def _sampling(opts: Options) -> dict[str, Any]:
    return {"max_new_tokens": opts.max_new_tokens, "temperature": opts.temperature}


def _transformers(model: Any, probe: Any, opts: Options) -> Backend:
    import torch

    from trainer.generation._transformers import TransformersGenerator
    from trainer.policy._model import env_alphabet, load_policy, pick_device
    from trainer.rollouts._rollout import rollout

    device = pick_device(opts.device)
    alphabet = env_alphabet(probe) if model == "demo" and opts.tokenizer is None else None
    policy, tok = load_policy(model, opts.tokenizer, alphabet=alphabet, seed=opts.seed)
    policy.to(device).eval()
    generator = TransformersGenerator(policy, tok, device)

    def run(envs: list[Any], seeds: Sequence[int], make_env: Callable[[], Any], chunk_seed: int) -> list[list[Any]]:
        torch.manual_seed(chunk_seed)
        with torch.no_grad():
            return rollout(
                generator,
                tok,
                envs,
                seeds,
                opts.samples,
                make_env=make_env,
                executor=opts.executor,
                **_sampling(opts),
            )

    return Backend("transformers", run, "per chunk", tokenizer=tok)


def _vllm(model: Any, opts: Options) -> Backend:
    from grpo_envs.tools import stop_ids
    from trainer.generation._vllm_offline import VLLMGenerator, load_vllm

    if not isinstance(model, str) or model == "demo":
        raise TrainerError('the vllm backend loads a saved model: pass a folder or a hub name, not "demo" or a module')
    llm = load_vllm(model, seed=opts.seed, **opts.engine_kwargs)
    tok = opts.tokenizer or llm.get_tokenizer()
    return Backend("vllm", _seeded_run(tok, VLLMGenerator(llm, stop_ids(tok)), opts), "per sample", tokenizer=tok)


def _openai(model: Any, opts: Options) -> Backend:
    from trainer.generation._chat import ChatGenerator
    from trainer.generation._http import Client, CompletionsGenerator
    from trainer.generation._tokenizer import FileTokenizer

    if not opts.base_url:
        raise TrainerError("the openai backend needs --base-url (e.g. http://127.0.0.1:8000/v1)")
    if not isinstance(model, str):
        raise TrainerError("with --base-url, --model is the name the server serves the model under")
    client = Client(opts.base_url, model=model, api_key=opts.api_key, concurrency=opts.concurrency)
    if opts.chat:  # the server applies its template: contexts are messages, no tokenizer here
        return Backend("openai", _seeded_run(None, ChatGenerator(client), opts), "per sample")
    tok = opts.tokenizer if opts.tokenizer is not None and not isinstance(opts.tokenizer, str) else None
    tok = tok if tok is not None else FileTokenizer(opts.tokenizer or model)
    return Backend("openai", _seeded_run(tok, CompletionsGenerator(client, tok), opts), "per sample", tokenizer=tok)


def _seeded_run(tok: Any, generator: Any, opts: Options) -> Run:
    """The trainer's `rollout` over ``generator``, each (task, sample, turn) seeded from ``opts.seed``."""
    from trainer.rollouts._rollout import rollout

    def run(envs: list[Any], seeds: Sequence[int], make_env: Callable[[], Any], chunk_seed: int) -> list[list[Any]]:
        return rollout(
            generator,
            tok,
            envs,
            seeds,
            opts.samples,
            make_env=make_env,
            sample_seed=opts.seed,
            executor=opts.executor,
            **_sampling(opts),
        )

    return run
