"""``--chat`` with tools (issue #54) against a scripted OpenAI-compatible server on 127.0.0.1 that
the test starts, over the Terminal env and its scripted session (no Docker): the request carries
the env's ``tools=``; a server whose tool parser is on answers ``tool_calls``, read without text
parsing and run in the env's own format for every family; the results go back as ``role: tool``
messages answering the server's call ids. A server without a tool parser answers the call in its
text: the env parses it in its family's format, and its results answer ids of ours. A model
without tools (fenced) gets no ``tools=`` and its results as a user turn."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from grpo_envs.envs.terminal import Terminal
from grpo_envs.tools import FORMATS, ToolCall, bash_tool, tool_format
from tests.grpo_envs.test_terminal import TASK, FakeSession
from tests.trainer.test_eval_http import Answer, Server
from trainer.eval import evaluate

ARGS: dict[str, Any] = dict(n=2, samples=2, max_new_tokens=64, temperature=1.0, ks=[1, 2])
COMMANDS = ("cat key.txt", "echo 42 > answer.txt")  # the task's reference, one per turn, then "Done."


@pytest.fixture
def serve() -> Iterator[Callable[[Answer], Server]]:
    servers: list[Server] = []

    def start(answer: Answer) -> Server:
        servers.append(Server(answer))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def reply(message: dict[str, Any], finish: str = "stop") -> tuple[int, bytes]:
    body = {"choices": [{"message": {"role": "assistant", **message}, "finish_reason": finish}]}
    return 200, json.dumps({**body, "usage": {"completion_tokens": 7}}).encode()


def turn_of(messages: list[dict[str, Any]]) -> int:
    """How many of our turns the transcript already holds."""
    return sum(1 for m in messages if m["role"] == "assistant")


def with_parser(route: str, body: dict[str, Any]) -> tuple[int, bytes]:
    """A server whose tool parser is on: the reference commands as ``tool_calls``, then text."""
    k = turn_of(body["messages"])
    if k >= len(COMMANDS):
        return reply({"content": "Done: the key is in answer.txt."})
    arguments = json.dumps({"command": COMMANDS[k]})
    call = {"id": f"chatcmpl-tool-{k}x", "type": "function", "function": {"name": "bash", "arguments": arguments}}
    return reply({"content": None, "tool_calls": [call]}, finish="tool_calls")


def _run(server: Server, name: str, tmp_path: Path) -> dict[str, Any]:
    make = lambda: Terminal([TASK], session=FakeSession, tool_format=name)  # noqa: E731
    return evaluate(make, "m", base_url=server.url, chat=True, out=tmp_path / name, **ARGS)


@pytest.mark.parametrize("name", sorted(set(FORMATS) - {"fenced"}))
def test_a_servers_tool_calls_run_in_the_envs_format_and_results_return_as_tool_messages(
    serve: Callable[[Answer], Server], tmp_path: Path, name: str
) -> None:
    server = serve(with_parser)
    summary = _run(server, name, tmp_path)
    bodies = [body for _, body in server.requests]
    assert len(bodies) == 4 * 3  # 4 episodes of three turns: two calls, then done
    assert all(b["tools"] == [bash_tool()] for b in bodies)
    assert summary["pass@1"]["value"] == 1.0  # the calls ran: answer.txt holds the key
    last = [b["messages"] for b in bodies if turn_of(b["messages"]) == 2]
    assert len(last) == 4
    for messages in last:
        assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "tool"]
        for k, (turn, result) in enumerate([messages[1:3], messages[3:5]]):
            (listed,) = turn["tool_calls"]
            assert turn["content"] is None and listed["id"] == f"chatcmpl-tool-{k}x"
            assert json.loads(listed["function"]["arguments"]) == {"command": COMMANDS[k]}
            assert result["tool_call_id"] == listed["id"]
        assert messages[2]["content"] == "42\n" and messages[4]["content"] == ""  # cat's output; echo's none
    rows = [json.loads(line) for line in (tmp_path / name / "samples.jsonl").read_text().splitlines()]
    written = tool_format(name).write(ToolCall("bash", {"command": COMMANDS[0]}, "chatcmpl-tool-0x"))
    assert all(r["completion"].startswith(written) for r in rows)  # what the env read: its own format


def test_without_a_tool_parser_the_env_parses_the_text_and_results_answer_our_ids(
    serve: Callable[[Answer], Server], tmp_path: Path
) -> None:
    qwen = tool_format("qwen")

    def no_parser(route: str, body: dict[str, Any]) -> tuple[int, bytes]:
        k = turn_of(body["messages"])
        if k >= len(COMMANDS):
            return reply({"content": "Done."})
        return reply({"content": "Let me look.\n" + qwen.write(ToolCall("bash", {"command": COMMANDS[k]}))})

    server = serve(no_parser)
    assert _run(server, "qwen", tmp_path)["pass@1"]["value"] == 1.0
    messages = [b["messages"] for _, b in server.requests if turn_of(b["messages"]) == 2][0]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "tool"]
    assert "tool_calls" not in messages[1] and messages[1]["content"].endswith("</tool_call>")
    assert [messages[2]["tool_call_id"], messages[4]["tool_call_id"]] == ["call00001", "call00002"]
    assert messages[2]["content"] == "42\n"


def test_a_model_without_tools_gets_no_schema_and_its_results_as_a_user_turn(
    serve: Callable[[Answer], Server], tmp_path: Path
) -> None:
    def fenced(route: str, body: dict[str, Any]) -> tuple[int, bytes]:
        k = turn_of(body["messages"])
        return reply({"content": "Done." if k >= len(COMMANDS) else f"```bash\n{COMMANDS[k]}\n```"})

    server = serve(fenced)
    assert _run(server, "fenced", tmp_path)["pass@1"]["value"] == 1.0
    assert all("tools" not in body for _, body in server.requests)
    messages = [b["messages"] for _, b in server.requests if turn_of(b["messages"]) == 1][0]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"] and messages[2]["content"] == "42\n"


def test_a_tool_call_without_a_name_is_one_clear_error(serve: Callable[[Answer], Server], tmp_path: Path) -> None:
    from trainer import TrainerError

    server = serve(lambda route, body: reply({"content": None, "tool_calls": [{"id": "c", "function": {}}]}))
    with pytest.raises(TrainerError, match="answered a tool call without a function name"):
        _run(server, "qwen", tmp_path)
