"""A newcomer's mistakes on the command line are one line naming the problem and the fix, never a
traceback (the real console script, in a subprocess, for the first ones; the same `main` in
process for the rest)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from trainer.cli import main as train_main

SCRIPT = shutil.which("grpo-envs", path=os.path.dirname(sys.executable))


def run(*args: str, cwd: Path | None = None, **extra: str) -> subprocess.CompletedProcess[str]:
    assert SCRIPT is not None
    env = {**os.environ, "HF_HUB_OFFLINE": "1", **extra}
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


def one_line(stderr: str, prefix: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.startswith(prefix)]
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.slow
def test_an_unknown_env_id_and_an_unknown_argument_from_the_console_script(tmp_path: Path) -> None:
    bad = run("train", "--env", "grpo_envs/Nope-v0", "--steps", "1", "--output_dir", str(tmp_path / "a"))
    line = one_line(bad.stderr, "grpo-envs train: error:")
    assert bad.returncode == 2 and "cannot make env 'grpo_envs/Nope-v0'" in line and "envs list" in line
    assert "my_module:MyEnv-v0" in line  # how an env of one's own is found
    typo = run("train", "--env_kwargs", '{"opz": "cs"}', "--steps", "1", "--output_dir", str(tmp_path / "b"))
    line = one_line(typo.stderr, "grpo-envs train: error:")
    assert typo.returncode == 2 and "takes no argument 'opz' (did you mean 'ops'?)" in line
    assert "it takes: " in line and "max_turns" in line and "ops" in line


def test_env_kwargs_that_are_not_json_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = train_main(["--env_kwargs", "{ops: cs}", "--steps", "1", "--output_dir", str(tmp_path / "run")])
    assert code == 2 and "env_kwargs" in one_line(capsys.readouterr().err, "grpo-envs train: error:")


def test_train_help_shows_defaults_and_plain_metavars() -> None:
    from trainer.cli import parser

    text = parser().format_help()
    assert "CFG_" not in text and "--steps N" in text and "--env-kwargs JSON" in text
    assert "(default: 200)" in text and "(default: 'grpo_envs/Digits-v0')" in text


@pytest.mark.slow
def test_serve_refuses_an_unknown_env_and_an_unloadable_tokenizer() -> None:
    bad = run("serve", "--env", "grpo_envs/Nope-v0", "--port", "0")
    line = one_line(bad.stderr, "grpo-envs serve: error:")
    assert bad.returncode == 1 and "cannot make env 'grpo_envs/Nope-v0'" in line
    tok = run("serve", "--env", "grpo_envs/Digits-v0", "--port", "0", "--tokenizer", "no-such-org/no-such-tokenizer")
    line = one_line(tok.stderr, "grpo-envs serve: error:")
    assert tok.returncode == 1 and "cannot load the tokenizer 'no-such-org/no-such-tokenizer'" in line


def test_a_dataset_row_of_another_style_is_one_clear_error() -> None:
    from verifiers.code import tests_from_row
    from verifiers.errors import VerifierInputError

    with pytest.raises(
        VerifierInputError,
        match=r"a 'humaneval' row needs the field\(s\) prompt, test, entry_point; this row has question, test_list",
    ):
        tests_from_row({"question": "add", "test_list": ["assert add(1, 2) == 3"]}, style="humaneval")
    with pytest.raises(VerifierInputError, match="needs the field\\(s\\) test_code\\|test"):
        tests_from_row({"prompt": "x"}, style="pytest")


def test_an_engine_named_in_engines_is_blamed_not_docker_host(monkeypatch: pytest.MonkeyPatch) -> None:
    from verifiers.errors import SandboxError
    from verifiers.sandbox import engine_client

    monkeypatch.delenv("DOCKER_HOST", raising=False)
    with pytest.raises(SandboxError) as info:
        engine_client(timeout_s=1, url="unix:///nonexistent-grpo.sock")
    assert "DOCKER_HOST" not in str(info.value) and "'unix:///nonexistent-grpo.sock' was named in engines=" in str(
        info.value
    )


@pytest.mark.slow
def test_no_progress_means_no_bars_and_the_last_eval_is_not_run_twice(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = run(
        "train",
        "--steps",
        "2",
        "--eval_every",
        "1",
        "--eval_prompts",
        "2",
        "--prompts_per_step",
        "2",
        "--num_generations",
        "2",
        "--max_new_tokens",
        "2",
        "--output_dir",
        str(out),
        "--no-progress",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert (
        "Writing model shards" not in done.stderr
        and "Loading weights" not in done.stderr
        and "it/s]" not in done.stderr
    )
    evals = (out / "eval.jsonl").read_text().splitlines()
    assert len(evals) == 2  # steps 1 and 2; the final eval is step 2's, not a third
    assert done.stdout.count("eval at step 2") == 1 and "first step" in done.stdout and "last step" in done.stdout


def test_the_summary_of_a_short_run_compares_its_halves() -> None:
    from trainer.run._logging import summary

    rows = [{"reward_mean": float(k), "correct_rate": 0.0, "completion_len_mean": 1.0} for k in range(8)]
    text = summary(rows, [], [])
    assert "first 4 steps" in text and "last 4 steps" in text
    assert "1.500" in text and "5.500" in text  # mean of steps 0-3, of steps 4-7
    assert "first 10 steps" in summary(rows * 3, [], [])


def test_a_reader_that_leaves_early_is_no_traceback() -> None:
    assert SCRIPT is not None
    # `| true` exits before reading: every write of `envs show` meets a closed pipe
    done = subprocess.run(
        ["bash", "-c", f"'{SCRIPT}' envs show grpo_envs/Countdown-v0 | true; '{SCRIPT}' envs list | head -1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith("grpo_envs/Arithmetic-v0")


NO_ENGINE = "unix:///nonexistent-grpo.sock"  # a Docker engine that does not answer (the real one is left alone)
DIGITS = ["--env", "grpo_envs/Digits-v0", "--model", "demo"]
JUDGE = ["--judge-url", "{dead}", "--judge-model", "j"]
CODE = ["--env", "grpo_envs/CodeTests-v0", "--model", "demo"]
UNREACHABLE = "the judge: cannot reach the server at {dead} ([Errno 111] Connection refused): is it running"
NO_DOCKER = f"runs code in the Docker sandbox: No Docker engine answers at {NO_ENGINE}"
WRONG_USAGES = [  # (command line, environment, the cause the one line names)
    (["audit", "samples.jsonl", *JUDGE], {}, UNREACHABLE),
    (["eval", *DIGITS, *JUDGE, "--judge-mode", "judge"], {}, UNREACHABLE),
    (["train", *JUDGE, "--judge-mode", "judge", "--steps", "1"], {}, UNREACHABLE),
    (["serve", "--env", "grpo_envs/Digits-v0", "--port", "0", *JUDGE], {}, UNREACHABLE),
    (["train", "--env", "grpo_envs/CodeTests-v0", "--steps", "1"], {"DOCKER_HOST": NO_ENGINE}, NO_DOCKER),
    (["eval", *CODE, "-n", "1", "--samples", "1"], {"DOCKER_HOST": NO_ENGINE}, NO_DOCKER),
    (["check-verifier", "mine:verify", "--domain", "code"], {"DOCKER_HOST": NO_ENGINE}, NO_DOCKER[4:]),
    (["eval", *DIGITS, "--split", "test"], {}, "argument --split: invalid choice: 'test'"),
    (["eval", *DIGITS, "--env-kwargs", '{"opz": 1}'], {}, "takes no argument 'opz' (did you mean 'ops'?); it takes: "),
    (["eval", "--env", "grpo_envs/Digits-v0", "--model", "runs/w1/final"], {}, "model folder 'runs/w1/final' does not"),
    (["train", "--model", "runs/w1/final", "--steps", "1"], {}, "model folder 'runs/w1/final' does not exist"),
    (["eval", "--env", "grpo_envs/Digits-v0", "--model", "no-such-model"], {}, "HF_HUB_OFFLINE=1 allows only models"),
    (["train", "--model", "./does/not/exist"], {}, "model folder './does/not/exist' does not exist"),
    (["train", "--stepz", "3"], {}, "unrecognized arguments: --stepz 3 (did you mean --steps?)"),
    (["eval", *DIGITS, "--max-new-token", "3"], {}, "unrecognized arguments: --max-new-token 3"),
    (["check-verifier", "mine:one_argument"], {}, "cannot be called as verify(reference, completion)"),
    (["tasks", "from-repo", "no/such/project", "--out", "tasks"], {}, "no such folder; give the root of a Python"),
    (["check-verifier", "mine:verify", "--domain", "chem"], {}, "the built-in domains are math and code"),
    (["eval", *DIGITS, "-k", "1,x"], {}, "-k takes comma-separated whole numbers, e.g. -k 1,4,8; got '1,x'"),
    (["eval", *DIGITS, "--samples", "0"], {}, "-n and --samples must be >= 1, got -n 100 and --samples 0"),
    (["eval", "--env", "grpo_envs/Digits-v0"], {}, "pass --env ID and --model NAME"),
    (["train", "--learning_rate", "-1", "--steps", "1"], {}, "learning_rate must be > 0, got -1.0"),
    (["train", "--env", "nope/Nope-v0", "--steps", "1"], {}, "Namespace nope not found"),
    (["train", "--env_kwargs", '{"ops": 5}', "--steps", "1"], {}, "env 'grpo_envs/Digits-v0' refused env_kwargs"),
    (["serve", "--env", "grpo_envs/Nope-v0", "--port", "0"], {}, "cannot make env 'grpo_envs/Nope-v0'"),
]


@pytest.mark.parametrize(("argv", "env", "cause"), WRONG_USAGES, ids=[" ".join(row[0])[:60] for row in WRONG_USAGES])
def test_a_wrong_usage_is_one_line_naming_its_cause(
    argv: list[str], env: dict[str, str], cause: str, tmp_path: Path
) -> None:
    """From a folder of the user's own, as a new user runs it: a non-zero exit, no traceback, no
    usage block, and one error line that names the cause."""
    from tests.verifiers.judge_server import closed_port

    (tmp_path / "samples.jsonl").write_text('{"gold": "12", "completion": "The answer is 12."}\n')
    (tmp_path / "mine.py").write_text(
        "def verify(reference, completion):\n    return 1.0\n\n\ndef one_argument(completion):\n    return 1.0\n"
    )
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    done = run(*[a.replace("{dead}", dead) for a in argv], "--no-progress", cwd=tmp_path, **env)
    line = one_line(done.stderr, f"grpo-envs {argv[0]}")
    assert done.returncode != 0 and "usage:" not in done.stderr
    assert cause.replace("{dead}", dead) in line, line
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").rglob("run.json"))  # nothing left behind


def test_serve_says_why_an_item_was_not_judged_and_405s_a_wrong_method() -> None:
    import json
    import urllib.error
    import urllib.request

    from grpo_envs.adapters.openrlhf import RewardServer
    from tests.verifiers.judge_server import closed_port
    from verifiers.judges import LLMJudge

    judge = LLMJudge(base_url=f"http://127.0.0.1:{closed_port()}/v1", model="j", retries=0)
    server = RewardServer(verifier="math", judge=judge, port=0)
    server.start()
    try:
        body = json.dumps({"query": ["Q: \\boxed{7}", "Q: \\boxed{12}"], "prompts": ["Q: "] * 2, "labels": ["12"] * 2})
        request = urllib.request.Request(server.url + "/get_reward", data=body.encode(), method="POST")
        with urllib.request.urlopen(request, timeout=60) as answer:
            out = json.loads(answer.read())
        assert out["correct"] == [None, True] and out["reasons"][1] is None  # the rule's rejection went to the judge
        assert "cannot reach the server at http://127.0.0.1:" in out["reasons"][0]
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(server.url + "/get_reward", timeout=10)
        info.value.close()  # its socket
        assert info.value.code == 405 and info.value.headers["Allow"] == "POST"
    finally:
        server.close()


def test_an_audit_whose_judge_judges_nothing_exits_1_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.verifiers.judge_server import JudgeServer
    from trainer.audit._cli import main as audit_main

    samples = tmp_path / "samples.jsonl"
    samples.write_text('{"gold": "12", "completion": "The answer is 12."}\n{"gold": "3", "completion": "So 4."}\n')
    broken = JudgeServer(lambda body: (400, "no such model", 0.0))  # up (the probe passes), but judges nothing
    try:
        code = audit_main([str(samples), "--judge-url", broken.url, "--judge-model", "j", "--no-progress"])
    finally:
        broken.close()
    err = capsys.readouterr().err
    line = one_line(err, "grpo-envs audit: error:")
    assert code == 1 and "judge j judged none of the 2 samples: The judge failed: the server at" in line
    assert "answered HTTP 400" in line


def test_a_refused_fresh_run_takes_back_its_claim(tmp_path: Path) -> None:
    from trainer import GRPOConfig, GRPOTrainer, TrainerError

    fresh = tmp_path / "fresh"
    with pytest.raises(TrainerError, match="does not exist"):
        GRPOTrainer(GRPOConfig(model="./no/such/model", output_dir=str(fresh), device="cpu"))
    assert not fresh.exists()
    old = tmp_path / "old"
    old.mkdir()
    (old / "metrics.jsonl").write_text('{"step": 1}\n')
    with pytest.raises(TrainerError, match="does not exist"):
        GRPOTrainer(GRPOConfig(model="./no/such/model", output_dir=str(old), device="cpu"), overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old"]  # moved aside, then moved back
    assert (old / "metrics.jsonl").read_text() == '{"step": 1}\n'


def test_every_retry_line_names_its_cause(caplog: pytest.LogCaptureFixture) -> None:
    from tests.verifiers.judge_server import closed_port
    from verifiers.http import Client, ServerError

    client = Client(f"http://127.0.0.1:{closed_port()}/v1", model="m", retries=1, backoff=0.0)
    with caplog.at_level("WARNING", logger="verifiers.http"), pytest.raises(ServerError, match="cannot reach"):
        client.post("/chat/completions", {})
    assert [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()][0].count("Connection refused") == 1


def test_an_eval_in_which_nothing_was_judged_exits_1_with_the_reason(tmp_path: Path) -> None:
    from tests.trainer.test_signal import BROKEN_ENV

    (tmp_path / "broken_w56.py").write_text(BROKEN_ENV)
    flags = ["--model", "demo", "-n", "2", "--samples", "1", "--max-new-tokens", "1", "--device", "cpu"]
    done = run("eval", "--env", "broken_w56:broken/Digits-v0", *flags, "--no-progress", cwd=tmp_path)
    assert done.stderr.count("Traceback") == 1  # the user's verifier's, logged once where it failed
    line = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1 and line.startswith("grpo-envs eval: error: none of the 2 samples was judged: ")
    assert "The verifier down failed" in line
    assert "the judge is down" in line and "statuses: {'error': 2}" in done.stdout


def test_help_shows_defaults_and_no_restructuredtext() -> None:
    from grpo_envs._commands import serve_parser
    from trainer.eval._cli import _parser as eval_parser

    assert (
        "``" not in serve_parser().format_help() and "--env ID (labels are task keys)" in serve_parser().format_help()
    )
    text = " ".join(eval_parser().format_help().split())
    for flag, default in [("-n N", 100), ("--samples SAMPLES", 8), ("--seed SEED", 0), ("--temperature", 0.6)]:
        assert flag in text and f"(default: {default})" in text
    assert "(default: 1024)" in text and "(default: auto)" in text  # --max-new-tokens, --device
