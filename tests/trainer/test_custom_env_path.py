"""The README's path for an env of one's own, as a new user takes it: the custom-env block saved as
``my_envs.py`` in an empty folder, then the README's ``grpo-envs train`` and ``grpo-envs eval``
commands run verbatim from that folder by the installed console script, with no ``PYTHONPATH``.
And a folder of the user's named ``trainer/`` or ``verifiers/`` never replaces ours."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def test_the_docs_environments_page_shows_the_readmes_blocks() -> None:
    """docs/environments.md repeats the README's custom env and commands (this test runs them)."""
    page = (ROOT / "docs" / "environments.md").read_text()
    assert readme_block("custom-env", "python") in page
    assert readme_block("custom-env-train", "bash") in page


def readme_block(marker: str, language: str) -> str:
    block = README.split(f"<!-- {marker} -->")[1].split(f"<!-- /{marker} -->")[0]
    return block.split(f"```{language}\n")[1].split("```")[0]


def readme_commands() -> list[list[str]]:
    """The custom-env-train block's commands, as a shell would split them."""
    text = readme_block("custom-env-train", "bash").replace("\\\n", " ")
    return [shlex.split(line) for line in text.strip().splitlines()]


def user_shell() -> dict[str, str]:
    """A user's environment: this virtualenv's scripts on PATH (as after `source .venv/bin/activate`),
    no PYTHONPATH, no hub."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return {**env, "HF_HUB_OFFLINE": "1"}


@pytest.mark.slow
def test_the_readme_custom_env_commands_run_verbatim_from_the_users_folder(tmp_path: Path) -> None:
    (tmp_path / "my_envs.py").write_text(readme_block("custom-env", "python"))
    train, evaluate = readme_commands()
    assert train[:2] == ["grpo-envs", "train"] and evaluate[:2] == ["grpo-envs", "eval"]
    done = subprocess.run(train, cwd=tmp_path, env=user_shell(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    run = tmp_path / train[train.index("--output-dir") + 1]
    assert (run / "final" / "config.json").exists()
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    steps = int(train[train.index("--steps") + 1])
    assert [r["step"] for r in rows if "reward_mean" in r] == list(range(1, steps + 1))
    done = subprocess.run(evaluate, cwd=tmp_path, env=user_shell(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    n, samples = int(evaluate[evaluate.index("-n") + 1]), int(evaluate[evaluate.index("--samples") + 1])
    assert "pass@1" in done.stdout and f"({n} tasks, {n * samples} samples)" in done.stdout
    summary = json.loads((tmp_path / evaluate[evaluate.index("--out") + 1] / "summary.json").read_text())
    assert summary["env"] == "my_envs:my_envs/Multiply-v0" and summary["samples"] == n * samples


USES_OURS = """
import gymnasium
import trainer.errors  # trainer is not imported yet by `envs show`: it must be ours, not the folder's
from grpo_envs.envs.digits import Digits

gymnasium.register("mine/Digits-v0", entry_point=Digits)
"""


@pytest.mark.slow
def test_a_users_trainer_or_verifiers_folder_does_not_shadow_ours(tmp_path: Path) -> None:
    (tmp_path / "my_envs.py").write_text(readme_block("custom-env", "python"))
    (tmp_path / "uses_ours.py").write_text(USES_OURS)
    for name in ("trainer", "verifiers", "grpo_envs"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"raise ImportError('the user folder {name}/ was imported')\n")

    def run(*args: str, timeout: int = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args), cwd=tmp_path, env=user_shell(), capture_output=True, text=True, timeout=timeout
        )

    show = run("grpo-envs", "envs", "show", "uses_ours:mine/Digits-v0")
    assert show.returncode == 0 and "--- sampled prompt (seed 0) ---" in show.stdout, show.stderr[-2000:]
    evaluate = ["grpo-envs", "eval", "--env", "my_envs:my_envs/Multiply-v0", "--model", "demo", "-n", "1"]
    done = run(*evaluate, "--samples", "1", "--max-new-tokens", "2", "--device", "cpu", "--no-progress", timeout=300)
    assert done.returncode == 0 and "(1 tasks, 1 samples)" in done.stdout, done.stderr[-2000:]
    assert "user folder" not in done.stderr
    # `python -m grpo_envs` imports grpo_envs and verifiers before it runs: only trainer/ is kept out there
    for name in ("verifiers", "grpo_envs"):
        (tmp_path / name / "__init__.py").unlink()
        (tmp_path / name).rmdir()
    helped = run(sys.executable, "-m", "grpo_envs", "train", "--help")
    assert helped.returncode == 0 and "--max-new-tokens" in helped.stdout, helped.stderr[-2000:]


@pytest.mark.slow
def test_a_missing_module_is_one_line_from_each_command(tmp_path: Path) -> None:
    commands = [
        ["train", "--env", "nope:nope/X-v0", "--steps", "1"],
        ["eval", "--env", "nope:nope/X-v0", "--model", "demo"],
        ["serve", "--env", "nope:nope/X-v0", "--port", "0"],
        ["envs", "show", "nope:nope/X-v0"],
        ["check-verifier", "nope:verify"],
    ]
    for args in commands:
        done = subprocess.run(
            ["grpo-envs", *args], cwd=tmp_path, env=user_shell(), capture_output=True, text=True, timeout=120
        )
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
        assert f"there is no nope.py or nope/ in {tmp_path}" in done.stderr, (args, done.stderr)
