"""OpenRLHF's multi-turn agents (``--agent_func_path FILE``): a tool-using env of ours (one whose
steps give ``info["tool_results"]``, such as a registered `Terminal`) as an ``AgentExecutor``.

OpenRLHF's ``MultiTurnAgentExecutor`` makes one agent instance per prompt, generates from ids and
appends each step's ``environment_feedback`` as text it tokenizes itself. Here the feedback is
the family's observation, rendered by the template (`grpo_envs.tools.observation_ids`) and
decoded with its special tokens, so it re-encodes to the template's ids where the tokenizer
round-trips (checked in the test). The prompts are rendered here with the env's ``tools=``
(`write_agent_dataset`): train without OpenRLHF's ``--apply_chat_template``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium

from grpo_envs._registry import resolve_env_id
from grpo_envs.adapters._common import task_seeds
from grpo_envs.envs.terminal import Terminal
from grpo_envs.errors import GrpoEnvsError
from grpo_envs.tools import observation_ids, tool_format

__all__ = ["agent_executor", "write_agent_dataset"]


def _tokenizer(tokenizer: Any) -> Any:
    if isinstance(tokenizer, str | Path):
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(str(tokenizer))
    return tokenizer


def write_agent_dataset(env_id: str, n: int, seed: int, path: str | Path, tokenizer: Any, **env_kwargs: Any) -> Path:
    """JSONL rows ``{"prompt", "label"}``: the reset's messages rendered by ``tokenizer``'s template
    with the env's ``tools=`` and the generation prompt; the label names the reset seed."""
    tok, env = _tokenizer(tokenizer), gymnasium.make(resolve_env_id(env_id), **env_kwargs).unwrapped
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as f:
        for task_seed in task_seeds(seed, n):
            messages, tools = _opening(env, task_seed)
            extra = {"tools": tools} if tools else {}
            prompt = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False, **extra)
            f.write(json.dumps({"prompt": prompt, "label": json.dumps({"env_id": env_id, "seed": task_seed})}) + "\n")
    env.close()
    return out


def _opening(env: Any, seed: int) -> tuple[list[dict[str, Any]], Any]:
    """The messages and tools an episode of ``env`` opens with: a `Terminal` with a tool format
    reads them off its task (no session is started for a prompt); any other env is reset."""
    if isinstance(env, Terminal) and env.format.takes_tools:
        return [{"role": "user", "content": env.tasks[seed % len(env.tasks)].instruction}], env.tools
    observation, info = env.reset(seed=seed)
    return info.get("messages") or [{"role": "user", "content": str(observation)}], info.get("tools")


def feedback_text(tokenizer: Any, observation: str, info: dict[str, Any]) -> str:
    """What follows our turn, as text: the tool results as the family's template renders them
    (with the next generation prompt); an env without tool results gets its observation on a line."""
    results, name = info.get("tool_results"), info.get("tool_format")
    if not results or not name:
        return f"\n{observation}\n"
    ids = observation_ids(tokenizer, tool_format(str(name)), list(results), info.get("tools"))
    return str(tokenizer.decode(ids, skip_special_tokens=False))


def agent_executor(env_id: str, tokenizer: Any, **env_kwargs: Any) -> type:
    """An ``AgentExecutor`` class for OpenRLHF's ``--agent_func_path``: the file says
    ``AgentExecutor = agent_executor("my/Shell-v0", "Qwen/Qwen3-0.6B")``. Each prompt's label
    (`write_agent_dataset`) resets a fresh env; each step's reward is the env's (the terminal's
    verifier on the end state when the episode ends). Needs OpenRLHF (its ``openrlhf.utils.agent``)."""
    import torch
    from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor  # type: ignore[import-not-found]

    tok = _tokenizer(tokenizer)

    class Agent(AgentInstanceBase):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.env = gymnasium.make(resolve_env_id(env_id), **env_kwargs).unwrapped

        def __del__(self) -> None:  # OpenRLHF has no close hook: an episode cut by its token budget ends here
            if hasattr(self, "env"):
                self.env.close()

        async def reset(self, states: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            try:
                seed = int(json.loads(states["label"])["seed"])
            except (TypeError, ValueError, KeyError):
                raise GrpoEnvsError(
                    f"label {str(states.get('label'))[:80]!r} is not a write_agent_dataset label"
                ) from None
            self.env.reset(seed=seed)
            return {"observation": states["observation"]}

        async def step(self, states: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            observation, reward, terminated, truncated, info = self.env.step(states["action_text"])
            done = bool(terminated or truncated)
            feedback = "" if done else feedback_text(tok, str(observation), info)
            value = torch.tensor(float(reward))
            return {"rewards": value, "scores": value, "environment_feedback": feedback, "done": done, "extra_logs": {}}

    class AgentExecutor(MultiTurnAgentExecutor):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(Agent)

    return AgentExecutor
