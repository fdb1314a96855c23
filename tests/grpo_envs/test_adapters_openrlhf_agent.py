"""OpenRLHF's multi-turn agents (issue #54): a registered Terminal (the scripted session, no Docker)
as an ``AgentExecutor`` run by OpenRLHF 0.11.2's own ``MultiTurnAgentExecutor`` (a stub engine
stands in for the model): the reference commands written as Qwen tool calls reach reward 1 (a
wrong script 0), and the feedback OpenRLHF tokenizes is the template's observation, id for id."""

from __future__ import annotations

import asyncio
import json
import types
from pathlib import Path
from typing import Any

import pytest

from grpo_envs.adapters._openrlhf_agent import agent_executor, write_agent_dataset
from grpo_envs.tools import ToolCall, bash_tool, observation_ids, tool_format
from tests.grpo_envs import test_adapters_openrlhf as single_turn
from tests.grpo_envs.test_adapters_trl_terminal import SHELL, TASKS
from tests.grpo_envs.test_terminal import FakeSession
from tests.grpo_envs.test_tool_formats import family_tokenizer

peer = single_turn.peer  # the fixture: OpenRLHF's modules from its folder beside .venv


class ScriptedEngine:
    """Turn k writes ``commands[k]`` as a Qwen call, then "Done."; every turn ends with <|im_end|>."""

    def __init__(self, tokenizer: Any, commands: list[str]) -> None:
        self.tokenizer, self.commands = tokenizer, commands

    async def generate(self, prompt_ids: list[int], params: Any, multi_modal_data: Any = None) -> Any:
        k = self.tokenizer.decode(prompt_ids, skip_special_tokens=False).count("<tool_response>")
        call = ToolCall("bash", {"command": self.commands[k]}) if k < len(self.commands) else None
        text = tool_format("qwen").write(call) if call else "Done."
        ids = [*self.tokenizer(text, add_special_tokens=False)["input_ids"], self.tokenizer.eos_token_id]
        output = types.SimpleNamespace(token_ids=ids, text=text, finish_reason="stop", logprobs=None)
        return types.SimpleNamespace(outputs=[output])


@pytest.mark.parametrize("right", [True, False])
def test_openrlhf_multi_turn_executor_runs_our_terminal_token_exactly(peer: Any, tmp_path: Path, right: bool) -> None:
    tokenizer = family_tokenizer("qwen")
    started: list[FakeSession] = []
    counted = lambda: started.append(FakeSession()) or started[-1]  # noqa: E731
    write_agent_dataset(SHELL, 2, 0, tmp_path / "c.jsonl", tokenizer, session=counted)
    assert started == []  # a Terminal's prompts are its tasks': no session per row
    rows = [
        json.loads(line)
        for line in write_agent_dataset(SHELL, 2, 0, tmp_path / "d.jsonl", tokenizer).read_text().splitlines()
    ]
    Executor = agent_executor(SHELL, tokenizer)
    for row in rows:
        task = TASKS[json.loads(row["label"])["seed"] % len(TASKS)]
        assert row["prompt"].endswith("<|im_start|>assistant\n") and '"name": "bash"' in row["prompt"]
        commands = list(task.reference) if right else [task.reference[0], "echo 0 > answer.txt"]
        params = types.SimpleNamespace(max_tokens=256, logprobs=None)
        engine = ScriptedEngine(tokenizer, commands)
        out = asyncio.run(Executor().execute(row["prompt"], row["label"], params, 4096, tokenizer, engine))
        assert out["reward"] == (1.0 if right else 0.0)
        ranges, ids = out["action_ranges"], out["observation_tokens"]
        assert len(ranges) == 3  # two calls, then done
        first_output = "42\n" if task is TASKS[0] else "".join(f"{i}\n" for i in range(1, 8))
        results = [(ToolCall("bash", {"command": commands[0]}), first_output)]
        expected = observation_ids(tokenizer, tool_format("qwen"), results, [bash_tool()])
        assert ids[ranges[0][1] : ranges[1][0]] == expected  # what OpenRLHF tokenized: the template's ids
