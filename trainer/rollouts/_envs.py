"""Where the trainer's environments come from: an id, an instance or a factory; an id that is
unknown or arguments it does not take are one `TrainerError` that names the fix. Envs made for a
policy whose chat template opens the thought are told so (`told_opened_thought`)."""

from __future__ import annotations

import difflib
import importlib
import inspect
import logging
import re
from collections.abc import Callable
from typing import Any

import gymnasium

from grpo_envs import GrpoEnvsError, JudgeConfig, resolve_env_id
from trainer.errors import TrainerError

__all__ = ["check_engine", "env_factory", "make_env", "told_opened_thought"]

log = logging.getLogger("trainer")


def accepted_kwargs(env_id: str) -> list[str]:
    """The keyword arguments the env registered as ``env_id`` takes (its class's ``__init__``
    and its bases', up to the first that takes none by name), or [] when they cannot be read."""
    try:
        entry = gymnasium.spec(env_id).entry_point
        target = entry if callable(entry) else _load(str(entry))
    except Exception:  # an unknown id, or an entry point that does not load
        return []
    names: list[str] = []
    for cls in inspect.getmro(target) if inspect.isclass(target) else [target]:
        init = cls.__init__ if inspect.isclass(cls) else cls
        try:
            params = inspect.signature(init).parameters.values()
        except (TypeError, ValueError):
            break
        names += [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self"]
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            break
    return sorted(dict.fromkeys(n for n in names if n != "render_mode"))


def _load(entry: str) -> Any:
    module, _, name = entry.partition(":")
    return getattr(importlib.import_module(module), name)


def make_env(env_id: str, **kwargs: Any) -> gymnasium.Env[Any, Any]:
    """``gymnasium.make(env_id, **kwargs)``; an unknown id, an argument the env does not take or
    a bad value is one `TrainerError` naming it (did-you-mean, the accepted arguments)."""
    try:
        resolve_env_id(env_id)  # imports the module of 'module:Name-vN' from the current folder
    except GrpoEnvsError as exc:
        raise TrainerError(str(exc)) from None
    try:
        return gymnasium.make(env_id, **kwargs)
    except gymnasium.error.Error as exc:
        raise TrainerError(
            f"cannot make env {env_id!r}: {exc} `grpo-envs envs list` shows the known ids; an env of your own "
            "is found by the module that registers it: pass --env 'my_module:MyEnv-v0'"
        ) from None
    except (TypeError, ValueError) as exc:
        message = re.sub(r" was raised from the environment creator for .*$", "", str(exc))
        accepted = accepted_kwargs(env_id)
        bad = re.search(r"unexpected keyword argument '(\w+)'", message)
        if bad:
            close = difflib.get_close_matches(bad.group(1), accepted, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            takes = f"it takes: {', '.join(accepted)}" if accepted else "its constructor names no keyword arguments"
            raise TrainerError(f"env {env_id!r} takes no argument {bad.group(1)!r}{hint}; {takes}") from None
        raise TrainerError(f"env {env_id!r} refused env_kwargs {kwargs}: {message}") from None
    except GrpoEnvsError as exc:  # our envs' own checks (split, answer_format, ...)
        raise TrainerError(f"env {env_id!r} refused env_kwargs {kwargs}: {exc}") from None


def env_factory(
    env: Any, env_kwargs: dict[str, Any], judge: JudgeConfig | None = None
) -> Callable[..., gymnasium.Env[Any, Any]]:
    """Make envs from an id, an instance (its first use is itself) or a factory; with ``judge``,
    their verifier is the judge's (`JudgeConfig.apply`; one judge shared by every env made)."""
    make = _factory(env, env_kwargs)
    if judge is None:
        return make
    try:
        judged = judge.factory(make)
    except GrpoEnvsError as exc:
        raise TrainerError(str(exc)) from None

    def made(**extra: Any) -> gymnasium.Env[Any, Any]:
        try:
            return judged(**extra)  # type: ignore[no-any-return]
        except GrpoEnvsError as exc:  # not a ReasoningEnv: no verifier to put the judge into
            raise TrainerError(str(exc)) from None

    return made


def template_opens(tokenizer: Any) -> str | None:
    """The thinking format whose section ``tokenizer``'s chat template opens in the generation
    prompt (`verifiers.structure.opened_thought`), or None: no tokenizer, no chat template, or a
    template that does not render (a warning: the envs then judge completions as written)."""
    if tokenizer is None or not getattr(tokenizer, "chat_template", None):
        return None
    from verifiers.errors import VerifierInputError
    from verifiers.structure import opened_thought

    try:
        return opened_thought(tokenizer)
    except VerifierInputError as exc:
        log.warning("%s; envs judge completions as written (a cut-off thought may read as an answer)", exc)
        return None


def tell_opened_thought(env: Any, name: str) -> None:
    """Set ``thought_opened`` to ``name`` on ``env`` (its unwrapped env) when it has the attribute
    and it is not set yet (an env's own setting wins); other envs are left as they are."""
    base = getattr(env, "unwrapped", env)
    if hasattr(base, "thought_opened") and base.thought_opened is None:
        base.thought_opened = name


def told_opened_thought(
    make: Callable[..., gymnasium.Env[Any, Any]], tokenizer: Any, *made: Any, say: bool = True
) -> Callable[..., gymnasium.Env[Any, Any]]:
    """``make``, and ``made`` (envs it already made), told that the policy's chat template opens
    the thought when ``tokenizer``'s does (R1 distills, Qwen3-Thinking, QwQ: the generation prompt
    ends with ``<think>``): each completion is then judged inside that thought, so one cut off
    before its close is a cut-off thought (no answer), never a plain answer. Only envs with a
    ``thought_opened`` attribute (`grpo_envs.ReasoningEnv`) are told; ``say``: log it (once per run).
    A template that does not open one: ``make`` as it is."""
    name = template_opens(tokenizer)
    if name is None:
        return make
    if say:
        log.info("the chat template opens the thought (%r): envs judge each completion inside it", name)
    for env in made:
        tell_opened_thought(env, name)

    def told(**extra: Any) -> gymnasium.Env[Any, Any]:
        env = make(**extra)
        tell_opened_thought(env, name)
        return env

    return told


def _factory(env: Any, env_kwargs: dict[str, Any]) -> Callable[..., gymnasium.Env[Any, Any]]:
    kwargs = dict(env_kwargs)
    if isinstance(env, str):
        return lambda **extra: make_env(env, **{**kwargs, **extra})
    if isinstance(env, gymnasium.Env):
        first = [env]

        def again(**extra: Any) -> gymnasium.Env[Any, Any]:
            if first and not extra:
                return first.pop()
            if env.spec is None:
                raise TrainerError("this env instance has no spec: pass an id or a factory to make more copies")
            return gymnasium.make(env.spec, **extra)

        return again
    if callable(env):
        return lambda **extra: env(**extra) if extra else env()
    raise TrainerError(f"env must be an id, an Env or a factory, got {type(env).__name__}")


def needs_engine(env: Any) -> bool:
    """Whether ``env`` runs code in the default Docker sandbox: a code verifier, a sandbox tool
    (an env with a ``sandbox`` of None: the process-wide pool), or an env that says so
    (``needs_engine`` True: the terminal env over task folders, whose sessions are containers)."""
    base = getattr(env, "unwrapped", env)
    name = str(getattr(getattr(base, "verifier", None), "name", ""))
    own = getattr(base, "needs_engine", False) is True
    return own or name.partition("+")[0] == "code" or (hasattr(base, "sandbox") and base.sandbox is None)


def check_engine(env: Any) -> None:
    """Before a command spends time: a `TrainerError` with ``grpo-envs doctor``'s line when
    ``env`` needs the Docker engine (`needs_engine`) and none answers (a few ms when one does)."""
    if not needs_engine(env):
        return
    from verifiers.errors import EngineUnavailableError
    from verifiers.sandbox import engine_client

    try:
        engine_client(timeout_s=3).close()
    except EngineUnavailableError as exc:
        first = str(exc).splitlines()[0].rstrip(".")
        raise TrainerError(
            f"{getattr(env.unwrapped, 'env_id', 'this env')} runs code in the Docker sandbox: {first} "
            "(`grpo-envs doctor` says how to start one)"
        ) from None
