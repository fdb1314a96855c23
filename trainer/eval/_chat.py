"""``--chat``: episodes through a server's ``/v1/chat/completions``, where the server applies its
own chat template (what hosted APIs offer). Results may then differ from the other backends,
which all build prompts with the model's template themselves. Token counts are the server's.
Single-turn groups are judged as `rollout` judges them (all of a call's groups at once on an
executor); multi-turn episodes are judged by their envs' ``step``, here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from grpo_envs import Judgement, make_group, stable_seed
from trainer._rollout import Rollout, _scores, is_single_turn, step_reward
from trainer.eval._http import Client, choice

if TYPE_CHECKING:
    from verifiers.executors import Executor

__all__ = ["chat_rollout"]


def chat_rollout(
    client: Client,
    envs: Sequence[Any],
    seeds: Sequence[int],
    num_generations: int,
    *,
    max_new_tokens: int,
    temperature: float,
    sample_seed: int,
    max_turns: int = 16,
    executor: Executor | None = None,
) -> list[list[Rollout]]:
    """``num_generations`` episodes per seed, as `trainer._rollout.rollout` gives them (the
    rollouts carry no token ids: ``mask`` counts the server's completion tokens); ``executor``
    judges single-turn groups, as in `rollout`."""
    url = client.base_url + "/chat/completions"

    def ask(item: tuple[list[dict[str, str]], tuple[int, int, int]]) -> tuple[str, bool, int]:
        messages, key = item
        body = {"messages": messages, "max_tokens": max_new_tokens, "temperature": temperature, "n": 1}
        body["seed"] = stable_seed(sample_seed, "sample", *key) % (2**31)
        text, truncated, tokens = choice(client.post("/chat/completions", body), url, chat=True)
        return text, truncated, tokens if tokens is not None else len(text.split())

    if is_single_turn(envs[0]):
        groups = [make_group(env, seed, num_generations) for env, seed in zip(envs, seeds, strict=True)]
        answers = []
        for grp, seed in zip(groups, seeds, strict=True):
            messages = list(grp.messages) or [{"role": "user", "content": grp.prompt}]
            answers.append(client.map(ask, [(messages, (int(seed), j, 0)) for j in range(num_generations)]))
        scores = _scores(groups, [[a[0] for a in group] for group in answers], executor)
        out = []
        for group, score in zip(answers, scores, strict=True):
            rollouts = []
            for (text, truncated, tokens), judgement in zip(group, score.judgements, strict=True):
                r = Rollout(prompt_ids=[], mask=[1] * tokens, truncated=truncated, text=text)
                r.record(judgement, judgement.reward)
                rollouts.append(r)
            out.append(rollouts)
        return out
    return _stepped(client, ask, list(envs), seeds, num_generations, max_turns)


def _stepped(
    client: Client, ask: Callable[..., Any], envs: list[Any], seeds: Sequence[int], g: int, max_turns: int
) -> list[list[Rollout]]:
    """Multi-turn episodes: the transcript grows by our turn and the env's reply (its
    ``info["messages"]`` when it keeps one)."""
    rollouts: list[Rollout] = []
    transcripts: list[list[dict[str, str]]] = []
    for k, env in enumerate(envs):
        observation, info = env.reset(seed=int(seeds[k // g]))
        messages = info.get("messages") if isinstance(info, dict) else None
        transcripts.append(list(messages) if messages else [{"role": "user", "content": str(observation)}])
        rollouts.append(Rollout(prompt_ids=[], reward=0.0))
    active = list(range(len(envs)))
    for turn in range(max_turns):
        if not active:
            break
        still = []
        results = client.map(ask, [(transcripts[k], (int(seeds[k // g]), k % g, turn)) for k in active])
        for k, (text, truncated, tokens) in zip(active, results, strict=True):
            r = rollouts[k]
            r.mask += [1] * tokens
            r.truncated, r.text = truncated, r.text + text
            observation, reward, terminated, truncated_env, info = envs[k].step(text)
            r.record(Judgement.of_step(reward, info), step_reward(reward))
            info = info if isinstance(info, dict) else {}
            if terminated or truncated_env:
                continue
            if info.get("messages"):
                transcripts[k] = list(info["messages"])
            else:
                transcripts[k] += [
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": str(observation)},
                ]
            still.append(k)
        active = still
    return [rollouts[k * g : (k + 1) * g] for k in range(len(seeds))]
