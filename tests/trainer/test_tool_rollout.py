"""Tool-calling episodes through the trainer's rollout, token-in, token-out, in every family's
format: a scripted generator replays reference commands as that family's tool calls; the env
parses them, answers with tool results (``info["tool_results"]``), and the rollout appends
exactly the template's observation ids after the sampled ones (never re-rendering a turn)."""

from __future__ import annotations

from typing import Any

import gymnasium
import pytest

from grpo_envs.tools import ToolCall, bash_tool, observation_ids, tool_format
from grpo_envs.tools._render import render_ids
from tests.grpo_envs.test_tool_formats import FAMILIES, family_tokenizer
from trainer.generation._generator import Continuation, SamplingParams
from trainer.rollouts._rollout import rollout

OUTPUTS = {"ls": "notes.txt", "cat notes.txt": "the key is 42"}
SCRIPT = ("ls", "cat notes.txt")


class FakeShell(gymnasium.Env[str, str]):
    """A terminal task without a sandbox: known commands print known outputs; the answer
    ``42`` (a turn without a call) earns 1 when both commands ran first."""

    def __init__(self, fmt: str) -> None:
        self.fmt, self.ran = tool_format(fmt), []  # type: list[str]
        self.tools = [bash_tool()] if self.fmt.takes_tools else None

    def reset(self, *, seed: int | None = None, options: Any = None) -> tuple[str, dict[str, Any]]:
        self.ran = []
        prompt = "Find the key in the files."
        return prompt, {"messages": [{"role": "user", "content": prompt}], "tools": self.tools}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        calls = self.fmt.parse(action, self.tools)
        if not calls:
            return "", float("42" in action and self.ran == list(SCRIPT)), True, False, {}
        results = [(c, OUTPUTS.get(c.arguments.get("command", ""), "command not found")) for c in calls]
        self.ran += [c.arguments["command"] for c in calls]
        info = {"tool_format": self.fmt.name, "tool_results": results, "tools": self.tools}
        return "\n".join(out for _, out in results), 0.0, False, False, info


class Replay:
    """A `Generator` that writes the reference commands as ``fmt``'s tool calls (each ended by
    the family's end token), then the answer."""

    def __init__(self, tokenizer: Any, fmt: str) -> None:
        self.tokenizer, self.fmt = tokenizer, tool_format(fmt)
        self.sent: list[list[int]] = []

    def generate(self, contexts: list[list[int]], params: SamplingParams) -> list[Continuation]:
        turn = len(self.sent)
        text = self.fmt.write(ToolCall("bash", {"command": SCRIPT[turn]})) if turn < len(SCRIPT) else "It is 42."
        end = self.fmt.end_tokens[0] if self.fmt.end_tokens else self.tokenizer.eos_token
        ids = [*self.tokenizer(text, add_special_tokens=False)["input_ids"], self.tokenizer.convert_tokens_to_ids(end)]
        self.sent.append(ids)
        return [Continuation(tuple(ids), False) for _ in contexts]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_replayed_tool_episode_is_rewarded_and_token_exact(family: str) -> None:
    tokenizer = family_tokenizer(family)
    fmt = tool_format(FAMILIES[family][0])
    gen = Replay(tokenizer, fmt.name)
    sampling = dict(max_new_tokens=64, temperature=1.0)
    groups = rollout(gen, tokenizer, [FakeShell(fmt.name)], [0], 1, make_env=lambda: FakeShell(fmt.name), **sampling)  # type: ignore[arg-type]
    (r,) = groups[0]
    assert r.reward == 1.0 and len(r.judgements) == 3
    tools = [bash_tool()] if fmt.takes_tools else None
    assert r.prompt_ids == render_ids(
        tokenizer, [{"role": "user", "content": "Find the key in the files."}], tools, add_generation_prompt=True
    )
    expected: list[int] = []
    mask: list[int] = []
    for k, command in enumerate(SCRIPT):  # each sampled turn as sampled, then the template's observation
        call = ToolCall("bash", {"command": command})
        observation = observation_ids(tokenizer, fmt, [(call, OUTPUTS[command])], tools)
        expected += [*gen.sent[k], *observation]
        mask += [1] * len(gen.sent[k]) + [0] * len(observation)
    expected += gen.sent[-1]
    mask += [1] * len(gen.sent[-1])
    assert r.ids == expected and r.mask == mask


def test_a_cut_off_call_turn_gets_the_end_token_before_the_observation() -> None:
    """A turn that hit the token budget without its end token: the reply opens with that token
    (masked), so the observation starts a turn of its own."""
    from grpo_envs.tools import reply_ids

    tokenizer, fmt = family_tokenizer("qwen"), tool_format("qwen")
    call = ToolCall("bash", {"command": "ls"})
    info = {"tool_format": "qwen", "tool_results": [(call, "a")], "tools": [bash_tool()]}
    sampled = tokenizer(fmt.write(call), add_special_tokens=False)["input_ids"]
    whole = observation_ids(tokenizer, fmt, [(call, "a")], [bash_tool()])
    assert reply_ids(tokenizer, info, sampled) == [tokenizer.eos_token_id, *whole]
    assert reply_ids(tokenizer, info, [*sampled, tokenizer.eos_token_id]) == whole
    assert reply_ids(tokenizer, {"messages": []}, sampled) is None


def test_the_terminal_env_replayed_through_the_rollout_is_rewarded() -> None:
    """The terminal env (over a scripted session) in the trainer's rollout: the reference
    commands replayed as Qwen tool calls end with reward 1 and the env's log of commands."""
    from grpo_envs.envs.terminal import Terminal
    from tests.grpo_envs.test_terminal import TASK, FakeSession

    tokenizer, fmt = family_tokenizer("qwen"), tool_format("qwen")
    turns = [fmt.write(ToolCall("bash", {"command": c})) for c in TASK.reference] + ["Done."]

    class ReplayTask:
        def __init__(self) -> None:
            self.turn = 0

        def generate(self, contexts: list[list[int]], params: SamplingParams) -> list[Continuation]:
            ids = [*tokenizer(turns[self.turn], add_special_tokens=False)["input_ids"], tokenizer.eos_token_id]
            self.turn += 1
            return [Continuation(tuple(ids), False) for _ in contexts]

    def make_env() -> Terminal:
        return Terminal([TASK], session=FakeSession)

    sampling = dict(max_new_tokens=64, temperature=1.0)
    (r,) = rollout(ReplayTask(), tokenizer, [make_env()], [0], 1, make_env=make_env, **sampling)[0]  # type: ignore[arg-type]
    assert r.reward == 1.0 and len(r.judgements) == 3
    assert "<tool_response>\n42\n\n</tool_response>" in tokenizer.decode(r.ids)  # cat printed 42 and a newline
