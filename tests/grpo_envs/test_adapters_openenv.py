"""OpenEnv (openenv-core 0.3): our envs behind OpenEnv's own server, OpenEnv environments as ours.

Every test speaks to a real server on 127.0.0.1 with OpenEnv's own code on both ends
(``create_app`` under uvicorn; ``GenericEnvClient``, raw WebSockets and HTTP). The multi-turn
env is PythonTool with a `FakeSandbox`, so nothing needs Docker.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import gymnasium
import pytest

pytest.importorskip("openenv")

import grpo_envs  # noqa: E402
from grpo_envs.adapters import openenv as adapter  # noqa: E402
from grpo_envs.adapters._openenv_client import load_openenv  # noqa: E402
from grpo_envs.adapters.openenv import OpenEnvEnv, OpenEnvServer, OpenEnvSessionError  # noqa: E402
from grpo_envs.errors import GrpoEnvsError  # noqa: E402
from verifiers.sandbox import ExecResult, FakeSandbox  # noqa: E402

ARITH, PYTOOL = "grpo_envs/Arithmetic-v0", "grpo_envs/PythonTool-v0"
ROOT = Path(__file__).resolve().parents[2]


def fake_python(code: str, stdin: str) -> ExecResult:
    """The sandbox of these tests: a program "prints" the integer literals it passes to print()."""
    return ExecResult(stdout="".join(f"{n}\n" for n in re.findall(r"print\((-?\d+)\)", code)), exit_code=0)


TOOL_KWARGS: dict[str, Any] = {"difficulty": 1, "sandbox": FakeSandbox(on_run=fake_python)}


@pytest.fixture(scope="module")
def arith() -> Iterator[OpenEnvServer]:
    with OpenEnvServer(ARITH, max_sessions=8, reveal_reference=True) as server:
        yield server


@pytest.fixture(scope="module")
def tools() -> Iterator[OpenEnvServer]:
    with OpenEnvServer(PYTOOL, max_sessions=8, env_kwargs=TOOL_KWARGS) as server:
        yield server


def raw_client(url: str) -> Any:
    load_openenv()  # openenv.core without its gradio UI (6 s of imports)
    from openenv.core import GenericEnvClient

    return GenericEnvClient(base_url=url).sync()


def wait_for(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


# -- serve: OpenEnv's own client against our env ------------------------------------------------
def test_openenvs_client_plays_our_env_and_gets_our_verdict_in_explicit_fields(arith: OpenEnvServer) -> None:
    local = gymnasium.make(ARITH).unwrapped
    prompt, _ = local.reset(seed=3)
    with raw_client(arith.url) as client:
        state = client.state()
        assert state["protocol"] == "grpo-envs/1" and state["env_id"] == ARITH and state["max_turns"] == 1
        first = client.reset(seed=3)
        assert first.observation["text"] == prompt and first.reward is None and not first.done
        assert first.observation["reference_completion"] == local.reference_completion(local.task)  # revealed here
        result = client.step({"text": "\\boxed{-1}"})
        _, reward, terminated, _, info = local.step("\\boxed{-1}")
        assert result.done and terminated and result.reward == reward == 0.0
        for key in ("correct", "status", "reason", "extracted", "reward_parts", "verifier", "messages", "task_id"):
            assert result.observation[key] == info[key], key
        assert result.observation["status"] == "incorrect" and "metadata" not in result.observation
        after = client.step({"text": "\\boxed{1}"})  # the episode is over: an answer, not a crash
        assert after.done and after.reward is None and after.observation["status"] == "no_episode"


def test_http_makes_a_fresh_env_per_request(arith: OpenEnvServer) -> None:
    import requests

    local = gymnasium.make(ARITH).unwrapped
    prompt, _ = local.reset(seed=4)
    right = local.reference_completion(local.task)
    assert requests.get(f"{arith.url}/health", timeout=5).json()["status"] == "healthy"
    assert "text" in requests.get(f"{arith.url}/schema", timeout=5).json()["action"]["properties"]
    reset = requests.post(f"{arith.url}/reset", json={"seed": 4}, timeout=5).json()
    assert reset["observation"]["text"] == prompt
    lost = requests.post(f"{arith.url}/step", json={"action": {"text": right}}, timeout=5).json()
    assert lost["observation"]["status"] == "no_episode" and "/ws" in lost["observation"]["reason"]
    judged = requests.post(f"{arith.url}/step", json={"action": {"text": right}, "seed": 4}, timeout=5).json()
    assert judged["reward"] == 1.0 and judged["done"] and judged["observation"]["correct"] is True
    bad = requests.post(f"{arith.url}/step", json={"action": {"text": 3}}, timeout=5)
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["text"]


def test_malformed_messages_get_openenvs_errors_and_the_session_goes_on(arith: OpenEnvServer) -> None:
    from websockets.sync.client import connect

    with connect(arith.url.replace("http", "ws") + "/ws") as ws:

        def ask(message: Any) -> dict[str, Any]:
            ws.send(message if isinstance(message, str) else json.dumps(message))
            reply: dict[str, Any] = json.loads(ws.recv(timeout=10))
            return reply

        assert ask({"type": "reset", "data": {"seed": 5}})["type"] == "observation"
        for data in ({"txt": "\\boxed{1}"}, {"text": 5}, {"text": "x", "extra": 1}):
            reply = ask({"type": "step", "data": data})
            assert reply["type"] == "error" and reply["data"]["code"] == "VALIDATION_ERROR", data
            assert reply["data"]["errors"]  # pydantic's own account of the fault
        assert ask("{not json")["data"]["code"] == "INVALID_JSON"
        unknown = ask({"type": "reset", "data": {"seed": 5, "sed": 1}})["data"]
        assert unknown["code"] == "EXECUTION_ERROR" and "unknown sed" in unknown["message"]
        still = ask({"type": "step", "data": {"text": "\\boxed{0}"}})  # the same episode, undisturbed
        assert still["type"] == "observation" and still["data"]["done"] and still["data"]["observation"]["turn"] == 1


# -- consume: OpenEnvEnv is one of our envs --------------------------------------------------
def test_check_env_and_a_group_work_on_an_openenv_env(arith: OpenEnvServer) -> None:
    grpo_envs.check_env(gymnasium.make(adapter.ENV_ID, base_url=arith.url))
    env = OpenEnvEnv(arith.url)
    try:
        assert env.env_id == ARITH and env.max_turns == 1 and env.reward_bounds == (0.0, 1.0)
        remote = grpo_envs.make_group(env, seed=7, num_generations=4)
        local = grpo_envs.make_group(ARITH, seed=7, num_generations=4)
        assert (remote.group_id, remote.prompt, remote.messages) == (local.group_id, local.prompt, local.messages)
        completions = [local.env.reference_completion(local.task), "no idea", "\\boxed{0}", ""]
        theirs, ours = remote.score(completions), local.score(completions)
        assert theirs.rewards == ours.rewards and theirs.rewards[0] == 1.0
        assert theirs.infos == ours.infos and theirs.judgements == ours.judgements
        assert env.step(completions[0])[1] == 1.0  # the group's episode at turn 0 is still there
    finally:
        env.close()


def test_a_multi_turn_episode_is_the_env_itself(tools: OpenEnvServer) -> None:
    local = gymnasium.make(PYTOOL, **TOOL_KWARGS).unwrapped
    env = gymnasium.make(adapter.ENV_ID, base_url=tools.url, render_mode="ansi")
    assert env.unwrapped.max_turns == 4 and env.unwrapped.env_classes[:2] == ["PythonTool", "ReasoningEnv"]
    assert env.reset(seed=2) == local.reset(seed=2)
    answer = str(local.task.answer)
    for turn in ("```python\nprint(7)\n```", "```python\nprint(8)\n```", f"\\boxed{{{answer}}}"):
        theirs, ours = env.step(turn), local.step(turn)
        assert theirs == ours
    assert theirs[1:4] == (1.0, True, False) and theirs[4]["turn"] == 3
    assert "Output:\n8" in env.unwrapped.render()
    with pytest.raises(GrpoEnvsError, match="after the episode ended"):
        env.step("\\boxed{1}")
    env.close()


def test_concurrent_sessions_stay_independent(tools: OpenEnvServer) -> None:
    def episode(seed: int) -> tuple[list[Any], list[Any]]:
        env, local = OpenEnvEnv(tools.url), gymnasium.make(PYTOOL, **TOOL_KWARGS).unwrapped
        theirs, ours = [env.reset(seed=seed)], [local.reset(seed=seed)]
        for k in range(4):  # 4 tool calls: truncated
            theirs.append(env.step(f"```python\nprint({seed * 10 + k})\n```"))
            ours.append(local.step(f"```python\nprint({seed * 10 + k})\n```"))
            time.sleep(0.01)
        env.close()
        return theirs, ours

    with ThreadPoolExecutor(4) as pool:
        for theirs, ours in pool.map(episode, range(4)):
            assert theirs == ours and theirs[-1][3] is True  # truncated, each with its own outputs


def test_a_session_over_the_limit_is_refused() -> None:
    with OpenEnvServer(ARITH, max_sessions=2) as server:
        first, second = OpenEnvEnv(server.url), OpenEnvEnv(server.url)
        with pytest.raises(OpenEnvSessionError, match="at capacity") as refused:
            OpenEnvEnv(server.url)
        assert refused.value.code == "CAPACITY_REACHED" and server.active_sessions == 2
        assert first.reset(seed=1)[0] and second.reset(seed=2)[0]  # the two sessions are unharmed
        first.close()
        wait_for(lambda: server.active_sessions == 1)
        third = OpenEnvEnv(server.url)
        assert third.reset(seed=1)[0]
        second.close(), third.close()


@pytest.mark.slow
def test_an_idle_session_is_closed_but_its_socket_stays_open() -> None:
    """OpenEnv's reaper (every 5 s here) closes the env of a session idle past session_timeout
    and frees its slot; the socket stays open, its resets and steps are refused, its state says why."""
    with OpenEnvServer(ARITH, max_sessions=2, session_timeout_s=0.5) as server:
        env, raw = OpenEnvEnv(server.url), raw_client(server.url)
        prompt, _ = env.reset(seed=1)
        raw.reset(seed=1)
        wait_for(lambda: server.active_sessions == 0, timeout_s=12)
        assert raw.state()["closed"].startswith("this OpenEnv session is closed: the server closed it (idle")
        for call in (lambda: raw.step({"text": "\\boxed{1}"}), lambda: raw.reset(seed=2)):
            with pytest.raises(RuntimeError, match=r"this OpenEnv session is closed.*\(code: EXECUTION_ERROR\)"):
                call()
        with pytest.raises(OpenEnvSessionError, match="this OpenEnv session is closed") as closed:
            env.step("\\boxed{1}")
        assert closed.value.code == "SESSION_CLOSED"
        with raw_client(server.url) as other:  # both slots are free although both old sockets are open
            assert other.reset(seed=1).observation["text"] == prompt
        wait_for(lambda: server.active_sessions == 0)
        assert env.reset(seed=1)[0] == prompt  # OpenEnvEnv's reset opens a new session itself
        assert env.step("\\boxed{0}")[2] is True and server.active_sessions == 1
        env.close(), raw.close()


def test_an_openenv_environment_of_someone_else() -> None:
    """Any OpenEnv environment: the text goes in ``action_field``, comes out of ``observation_field``."""
    import uvicorn

    load_openenv()
    from openenv.core.env_server import Action, Environment, Observation, State, create_app

    class Say(Action):  # type: ignore[misc]
        message: str

    class Heard(Observation):  # type: ignore[misc]
        echoed: str = ""

    class Echo(Environment):  # type: ignore[misc]
        def reset(self, seed: Any = None, episode_id: Any = None, **kwargs: Any) -> Heard:
            self.n = 0
            return Heard(echoed=f"say something ({seed})")

        def step(self, action: Say, timeout_s: Any = None, **kwargs: Any) -> Heard:
            self.n += 1
            return Heard(echoed=action.message.upper(), reward=float(len(action.message)), done=self.n == 2)

        @property
        def state(self) -> State:
            return State(step_count=getattr(self, "n", 0))

    server = uvicorn.Server(
        uvicorn.Config(create_app(Echo, Say, Heard), port=0, log_config=None, ws="websockets-sansio")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for(lambda: server.started)
    port = server.servers[0].sockets[0].getsockname()[1]
    env = OpenEnvEnv(f"http://127.0.0.1:{port}", action_field="message", observation_field="echoed", max_turns=3)
    assert not env.ours and env.reset(seed=9)[0] == "say something (9)"
    assert env.step("hi")[:4] == ("HI", 2.0, False, False)
    text, reward, terminated, _, info = env.step("bye")
    assert (text, reward, terminated) == ("", 3.0, True) and [m["role"] for m in info["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    env.close()
    server.should_exit = True
    thread.join(10)


# -- errors and the command line -----------------------------------------------------------
def test_our_errors() -> None:
    with pytest.raises(OpenEnvSessionError, match="no OpenEnv server answers") as no_server:
        OpenEnvEnv("http://127.0.0.1:9", connect_timeout_s=2)
    assert no_server.value.code == "CONNECTION"
    with pytest.raises(GrpoEnvsError, match="cannot make env 'grpo_envs/Nope-v0'"):
        OpenEnvServer("grpo_envs/Nope-v0")
    with pytest.raises(GrpoEnvsError, match="max_sessions must be an int >= 1"):
        OpenEnvServer(ARITH, max_sessions=0)
    with pytest.raises(GrpoEnvsError, match="environment_factory supports envs built on PythonTool or CodeRepair"):
        with OpenEnvServer(ARITH) as server:
            adapter.environment_factory(server.url)


def test_without_openenv_core_the_module_imports_and_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['openenv'] = None\n"
        "from grpo_envs.adapters.openenv import OpenEnvServer\n"
        "from grpo_envs.errors import SetupError\n"
        "try:\n    OpenEnvServer('grpo_envs/Arithmetic-v0')\nexcept SetupError as exc:\n    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert "pip install 'grpo-envs[openenv]'" in out.stdout


def test_serve_openenv_refuses_what_openenv_cannot_do(capsys: Any) -> None:
    from grpo_envs._commands import serve_main

    assert serve_main(["--openenv", "--env", ARITH, "--token", "secret"]) == 2
    assert "not with --token" in capsys.readouterr().err


@pytest.mark.slow
def test_grpo_envs_serve_openenv_runs_the_real_console_script() -> None:
    script = Path(sys.executable).with_name("grpo-envs")
    with subprocess.Popen(
        [str(script), "serve", "--openenv", "--env", ARITH, "--port", "0", "--max-sessions", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # an ignored SIGINT is inherited
    ) as proc:
        try:
            assert proc.stdout is not None and proc.stderr is not None
            line = proc.stdout.readline()
            match = re.search(r"through OpenEnv at (http://\S+)", line)
            assert match, line + proc.stderr.read()
            env = OpenEnvEnv(match.group(1))
            assert env.reset(seed=0)[0] == gymnasium.make(ARITH).reset(seed=0)[0]
            env.close()
        finally:
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
        assert "Application startup complete" in err and "Traceback" not in err
