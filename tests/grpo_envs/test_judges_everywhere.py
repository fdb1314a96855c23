"""Judges where a verifier goes: an env (`judge_verifier` around a rule-then-judge), the reward
server (`RewardServer(verifier="math", judge=...)`, ``grpo-envs serve --judge-url``) and an
executor, against a scripted OpenAI-compatible judge on 127.0.0.1 that the test starts."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest

from grpo_envs import GrpoEnvsError, JudgeConfig, judge_verifier
from grpo_envs._commands import serve_main
from grpo_envs.adapters import openrlhf
from grpo_envs.envs.math_dataset import MathDataset
from tests.verifiers.judge_server import JudgeServer, slots
from verifiers import math as vm
from verifiers.executors import LocalExecutor
from verifiers.judges import LLMJudge, with_judge

ROWS = [{"question": "How many minutes are 2.5 hours?", "answer": "150"}]


def minutes(body: dict[str, Any]) -> tuple[int, str, float]:
    """A judge that knows 2 hours and 30 minutes are 150 minutes."""
    s = slots(body)
    same = s["reference"].strip() == "150" and s["answer"] == "2 hours and 30 minutes"
    return 200, "VERDICT: " + ("CORRECT" if same else "INCORRECT"), 0.0


@pytest.fixture
def server() -> Iterator[JudgeServer]:
    srv = JudgeServer(minutes)
    yield srv
    srv.close()


def test_an_env_judged_by_a_rule_then_a_judge(server: JudgeServer) -> None:
    hybrid = with_judge(vm.verify, LLMJudge(base_url=server.url, model="judge"))
    env = MathDataset(rows=ROWS, verifier=judge_verifier(hybrid), eval_fraction=0.0)
    _, info = env.reset(seed=0)
    _, reward, *_, step = env.step("So it takes $\\boxed{2 hours and 30 minutes}$.")
    judgement = step["judgement"]
    assert reward == 1.0 and judgement.status == "correct" and judgement.result.reason.startswith("The judge decided")
    assert slots(server.requests[0][1])["question"] == env.prompt_text(env.task)  # the task's prompt
    env.reset(seed=0)
    _, reward, *_, step = env.step("\\boxed{150}")
    assert reward == 1.0 and len(server.requests) == 1  # the rule accepted: no call
    executor = LocalExecutor()
    try:
        results = env.verifier.verify_many(
            ["150"] * 2, ["The answer is 2 hours and 30 minutes.", "\\boxed{7}"], ["q"] * 2, executor=executor
        )
    finally:
        executor.close()
    assert [r.status for r in results] == ["correct", "incorrect"]
    assert judge_verifier(hybrid).name == "rule_then_judge" and judge_verifier(hybrid.judge).name == "llm_judge"
    with pytest.raises(TypeError, match="must have verify and verify_many"):
        judge_verifier(vm.verify)


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request("POST", "/get_reward", body=json.dumps(body), headers={"Content-Type": "application/json"})
    answer = json.loads(conn.getresponse().read())
    conn.close()
    return answer  # type: ignore[no-any-return]


def test_the_reward_server_asks_the_judge_about_the_rules_rejections(server: JudgeServer) -> None:
    judge = LLMJudge(base_url=server.url, model="judge")
    srv = openrlhf.RewardServer(verifier="math", judge=judge, port=0).start()
    try:
        answers = ["The answer is 2 hours and 30 minutes.", "\\boxed{150}", "The answer is 3 hours."]
        body = {"query": [f"Q: {a}" for a in answers], "prompts": ["Q: "] * 3, "labels": ["150"] * 3}
        out = post(srv.url, body)
    finally:
        srv.close()
    assert out["rewards"] == [1.0, 1.0, 0.0] and out["correct"] == [True, True, False]
    assert sorted(slots(b)["answer"] for _, b in server.requests) == ["2 hours and 30 minutes", "3 hours"]
    assert {slots(b)["question"] for _, b in server.requests} == {"Q: "}
    with pytest.raises(ValueError, match="backs the math verifier only"):
        openrlhf.RewardServer(verifier="code", judge=judge, port=0)


def test_the_reward_server_judges_an_envs_tasks_with_judge_settings(server: JudgeServer) -> None:
    """``RewardServer(env_id, judge=JudgeConfig(...))`` (``grpo-envs serve --env ... --judge-url``):
    the env's verifier first, the judge on its rejections; mode "judge": the judge alone."""
    env_id, kwargs = "grpo_envs/MathDataset-v0", {"rows": ROWS, "eval_fraction": 0.0}
    answers = ["So it takes $\\boxed{2 hours and 30 minutes}$.", "$\\boxed{150}$", "$\\boxed{3 hours}$"]
    label = openrlhf.task_key(env_id, "train", 0)
    body = {"query": [f"Q: {a}" for a in answers], "prompts": ["Q: "] * 3, "labels": [label] * 3}
    for mode, asked in (("hybrid", 2), ("judge", 5)):
        settings = JudgeConfig(url=server.url, model="judge", mode=mode, options={"retries": 0})
        srv = openrlhf.RewardServer(env_id, env_kwargs=kwargs, judge=settings, port=0).start()
        try:
            out = post(srv.url, body)
        finally:
            srv.close()
        # hybrid: the rule pays the box, the judge its 2 rejections (both verdicts kept); judge mode:
        # the judge alone, shown the final section as the env's format reads it (this scripted
        # judge knows only the bare "2 hours and 30 minutes", so it pays none, not even the box)
        assert out["correct"] == ([True, True, False] if mode == "hybrid" else [False] * 3), (mode, out)
        assert len(server.requests) == asked  # hybrid: only the rule's 2 rejections; judge: all 3 more
    with pytest.raises(GrpoEnvsError, match="must be a grpo_envs.JudgeConfig"):
        openrlhf.RewardServer(env_id, env_kwargs=kwargs, judge=LLMJudge(base_url=server.url, model="j"), port=0)


def test_a_judge_that_is_down_is_masked_by_the_reward_server() -> None:
    judge = LLMJudge(base_url="http://127.0.0.1:9/v1", model="judge", retries=0)
    srv = openrlhf.RewardServer(verifier="math", judge=judge, port=0).start()
    try:
        out = post(srv.url, {"query": ["Q: It is 2 hours and 30 minutes."], "prompts": ["Q: "], "labels": ["150"]})
    finally:
        srv.close()
    assert out["correct"] == [None] and out["extra_logs"]["masked_frac"] == 1.0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--verifier", "code", "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "m"],
            "--judge-url needs --env or --verifier math",
        ),
        (["--verifier", "math", "--judge-url", "http://127.0.0.1:9/v1"], "--judge-url needs --judge-model NAME"),
        (
            ["--verifier", "math", "--judge-url", "127.0.0.1:9", "--judge-model", "m"],
            "base_url must start with http://",
        ),
        (["--verifier", "math", "--judge-model", "m"], "the --judge-* flags need --judge-url"),
        (
            [
                "--verifier",
                "math",
                "--judge-url",
                "http://127.0.0.1:9/v1",
                "--judge-model",
                "m",
                "--judge-mode",
                "judge",
            ],
            "--judge-mode judge needs --env",
        ),
        (
            [
                "--verifier",
                "math",
                "--judge-url",
                "http://127.0.0.1:9/v1",
                "--judge-model",
                "m",
                "--judge-options",
                "[1]",
            ],
            "--judge-options must be a JSON object",
        ),
    ],
)
def test_serve_judge_url_errors_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert serve_main([*argv, "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_trl_reward_function_over_an_env_judged_by_a_hybrid(server: JudgeServer) -> None:
    from grpo_envs.adapters import trl

    hybrid = with_judge(vm.verify, LLMJudge(base_url=server.url, model="judge", retries=0))
    reward = trl.reward_function(
        "grpo_envs/MathDataset-v0", rows=ROWS, eval_fraction=0.0, verifier=judge_verifier(hybrid)
    )
    completions = ["So it takes $\\boxed{2 hours and 30 minutes}$.", "\\boxed{150}", "\\boxed{3 hours}"]
    assert reward(completions=completions, task_seed=[0, 0, 0]) == [1.0, 1.0, 0.0]
    down = with_judge(vm.verify, LLMJudge(base_url="http://127.0.0.1:9/v1", model="judge", retries=0))
    masked = trl.reward_function(
        "grpo_envs/MathDataset-v0", rows=ROWS, eval_fraction=0.0, verifier=judge_verifier(down)
    )
    assert masked(completions=completions, task_seed=[0, 0, 0]) == [None, 1.0, None]  # a failed judge: masked


def test_envs_sharing_a_rule_and_a_judge_share_one_verifier_kept_only_while_they_live() -> None:
    import gc

    from grpo_envs import _judging

    config = JudgeConfig("http://127.0.0.1:9/v1", "judge")
    judge = config.judge()
    make = config.factory(lambda: MathDataset(rows=ROWS, eval_fraction=0.0))
    before = set(_judging._MADE.keys())
    envs = [make() for _ in range(3)]
    assert len({id(env.verifier) for env in envs}) == 1  # their tasks' items go in one batch
    assert config.verifier(envs[0].verifier, judge) is not envs[0].verifier  # another judge: its own
    made = set(_judging._MADE.keys()) - before
    assert made
    del envs
    gc.collect()
    assert not made & set(_judging._MADE.keys())  # nothing kept once no env holds it
