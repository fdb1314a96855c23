"""Every shell command of the README and docs/ that runs offline on CPU runs where the docs say it
runs: in a fresh virtualenv made as ``make demo`` makes it (``python -m venv``, then ``pip install
torch==2.13.0`` first so pip keeps that build, then the project with its ``train`` and ``demo``
extras, installed from the checkout's path as a user installs a package: not editable), from an
empty folder outside the checkout, without ``PYTHONPATH``. A page that names an extra for its
commands (``pip install 'grpo-envs[testing]'``) gets it installed first, as the page says.

The commands are read from the pages' ```bash blocks (continued lines joined). Each one either runs
here (its page is in `PAGES`) or is in `NOT_HERE` with why (a GPU, a hub name, a Ray cluster, the
network, a Docker engine, minutes of training): `test_every_documented_command_is_run_or_listed`
fails on a new command that is neither. A page's blocks are taken in order: its ``file:`` blocks
are saved (and the README's custom env as ``my_envs.py``, as it says), its bash blocks run (a block
marked ``no-run`` holds only commands of `NOT_HERE`). Its Python blocks are not commands:
tests/test_docs.py runs them, and every block, from the developers' virtualenv; this file checks
what a user's virtualenv lacks (an extra, a file not shipped, a console script).

pip works offline from this machine's indexes and wheels (pip.conf's ``find-links`` and
``extra-index-url``), as ``make`` does.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_docs import DRIVER, PAGES, ROOT, Block, blocks
from tests.trainer.test_custom_env_path import readme_block

TORCH = "torch==2.13.0"  # the Makefile's TORCH_SPEC on a machine without a GPU
EXTRAS = "train,demo"  # make demo's
PAGE_EXTRAS = {"docs/testing-kit.md": "testing"}  # "pip install 'grpo-envs[testing]' installs pytest"
RUN_PAGES = [
    "docs/getting-started.md",
    "README.md",
    "docs/environments.md",
    "docs/evaluation.md",
    "docs/audit.md",
    "docs/testing-kit.md",
]
"""The pages whose commands run here, in this order (the venv gains a page's extra only at its page)."""
CUSTOM_ENV = readme_block("custom-env", "python")
"""README: 'Save the block as my_envs.py' (docs/environments.md shows the same block): saved so, then run."""
PROSE = {
    "README.md": ["python my_envs.py", "grpo-envs audit runs/eval/multiply/samples.jsonl"],
}
"""Commands a page gives in its text, not in a block: run after the page's blocks."""

NOT_HERE = {
    # installs and the developers' set-up
    "pip install grpo-envs": "installs from PyPI (the network); this file installs the checkout",
    "pip install torch": "installs from PyPI; this file pins the CPU build first, as make demo does",
    "pip install 'grpo-envs[train]'": "installs from PyPI; this file installs the checkout's [train,demo]",
    "make demo": "builds .venv in the checkout (minutes); CI runs it, and this file makes the same venv",
    "make test": "the whole suite (20 minutes); CI runs it",
    "PYTHONPATH=. $(bash scripts/ensure-vllm.sh) -m trainer --config configs/demo.toml --generator vllm": (
        "builds vLLM's virtualenv (minutes, once per machine); tests/trainer/test_train_vllm.py"
    ),
    "PYTHONPATH=. $(bash scripts/ensure-vllm.sh) -m grpo_envs eval --backend vllm --env grpo_envs/Digits-v0 "
    "--model demo": "builds vLLM's virtualenv (minutes, once per machine); tests/trainer/test_eval_vllm.py",
    # a Docker engine
    "grpo-envs doctor": "exits 1 where no Docker engine runs; tests/grpo_envs/test_doctor.py",
    "grpo-envs sandbox build-image": "needs a container registry (python:3.11-slim)",
    "grpo-envs sandbox build-image --offline": "builds the sandbox image (minutes, Docker); make test runs it",
    "grpo-envs tasks init hello-task": "its block checks the task in Docker; tests/verifiers/test_agentic_check.py",
    "grpo-envs tasks check hello-task --base-image grpo-envs-task-base=grpo-envs-sandbox:py3.11-1d3ff364a065": (
        "Docker and the task base image; tests/verifiers/test_agentic_check.py"
    ),
    "grpo-envs tasks from-repo path/to/project --out tasks/ --max-tasks 20 --budget-s 300": (
        "Docker and a project of one's own; tests/grpo_envs/test_repotasks_tasks.py"
    ),
    "grpo-envs tasks attack hello-task --base-image grpo-envs-task-base=grpo-envs-sandbox:py3.11-1d3ff364a065": (
        "Docker and the task base image (about a minute); tests/verifiers/test_agentic_attacks.py"
    ),
    "grpo-envs tasks from-repo path/to/project --out tasks/ --wheels wheels/": (
        "Docker and a project of one's own; tests/grpo_envs/test_repotasks_projects.py"
    ),
    "grpo-envs tasks check tasks/ --base-image grpo-envs-task-base=$(python -c "
    '"from verifiers.agentic import build_task_base_image as b; print(b())")': (
        "Docker and the task base image; tests/grpo_envs/test_repotasks_projects.py"
    ),
    "grpo-envs tasks init tasks/hello": (
        "scaffolds the folder tools.md's next Python block reads; tests/verifiers/test_agentic_check.py runs tasks init"
    ),
    'KW=\'{"tasks_dir": "tasks", "split": "train", "base_images": {"grpo-envs-task-base": '
    '"grpo-envs-sandbox:py3.11-1d3ff364a065"}}\'': "sets the variable of the two Docker commands below it",
    'grpo-envs train --env grpo_envs/Terminal-v0 --env-kwargs "$KW" --model Qwen/Qwen2.5-0.5B-Instruct '
    "--num-generations 8": "a hub name and Docker; tests/grpo_envs/test_harbor_env_docker.py trains on task folders",
    'grpo-envs eval --env grpo_envs/Terminal-v0 --env-kwargs "${KW/train/eval}" --model runs/grpo/final '
    "--samples 8 -k 1,8": "Docker and a trained run; tests/grpo_envs/test_harbor_env_docker.py evaluates on task folders",
    # a GPU, hub names, servers, Ray
    "grpo-envs train --model Qwen/Qwen2.5-0.5B-Instruct --device cuda --env grpo_envs/MathDataset-v0 "
    "--max-new-tokens 512 --learning-rate 1e-6": "a hub model on a CUDA GPU",
    "grpo-envs eval --env grpo_envs/Arithmetic-v0 --model Qwen/Qwen2.5-0.5B-Instruct -n 500 --samples 8": (
        "a hub model"
    ),
    "grpo-envs eval --backend vllm --model Qwen/Qwen2.5-0.5B-Instruct --engine-kwargs "
    "'{\"max_model_len\": 4096}' ...": "vLLM and a hub model (a pattern, not a full command)",
    "grpo-envs eval --base-url http://127.0.0.1:8000/v1 --model NAME --tokenizer Qwen/Qwen2.5-0.5B-Instruct "
    "[--api-key-env OPENAI_API_KEY] [--concurrency 64] [--chat] ...": "a served model (a pattern with options)",
    "grpo-envs eval ... --verifier-executor ray": "a Ray cluster (a pattern)",
    "grpo-envs eval ... --judge-url http://127.0.0.1:8000/v1 --judge-model NAME [--judge-mode judge] "
    "[--judge-api-key-env VAR] [--judge-cache DIR] [--judge-options '{\"concurrency\": 32}']": (
        "a served judge model (a pattern with options)"
    ),
    "grpo-envs audit runs/eval/math/samples.jsonl --judge-url http://127.0.0.1:8000/v1 --judge-model "
    "Qwen/Qwen2.5-7B-Instruct --judge-cache judge-cache": "a served judge model; tests/trainer/test_audit.py",
    "grpo-envs audit ../shared/realdata/math/longcot_skyt1_aime_amc.jsonl --out runs/audit/longcot": (
        "our machines' real-data folder beside the checkout, not a user's; tests/trainer/test_audit_realdata.py"
    ),
    "python -c \"from grpo_envs.adapters.openrlhf import write_dataset; write_dataset('grpo_envs/Arithmetic-v0', "
    "10000, 0, 'data/train.jsonl')\"": "the first line of OpenRLHF's Ray training (a hub tokenizer follows)",
    "python -m openrlhf.cli.train_ppo_ray --data.prompt_dataset data/train.jsonl --data.input_key prompt "
    "--data.label_key label --reward.remote_url http://127.0.0.1:5000/get_reward ...": (
        "OpenRLHF's Ray training (GPUs, a hub model); tests/grpo_envs/test_adapters_openrlhf.py"
    ),
    "grpo-envs serve --env grpo_envs/Arithmetic-v0 --port 5000 --tokenizer Qwen/Qwen2.5-0.5B-Instruct &": (
        "a hub tokenizer; tests/grpo_envs/test_adapters_openrlhf.py"
    ),
    "grpo-envs serve --openenv --env grpo_envs/PythonTool-v0 --port 8000 --max-sessions 64 --session-timeout 600": (
        "a server that runs until stopped; the page's Python starts and stops the same server"
    ),
    "RAY_ADDRESS=127.0.0.1:6379 grpo-envs train --config demo --async-level 1 --async-workers-on ray": (
        "a Ray cluster probes the network; tests/trainer/test_async_ray.py runs it in a loopback-only namespace"
    ),
    # minutes of CPU
    "grpo-envs train --config demo --async-level 1": "the whole 500-step demo with workers; tests/trainer/test_async.py",
    "torchrun --standalone --nproc_per_node 2 -m trainer --config demo --async-level 1": (
        "the whole demo on 2 learners and a worker; tests/trainer/test_async.py"
    ),
    "torchrun --standalone --nproc_per_node 2 -m trainer --config demo": "the whole demo on 2 ranks; test_scale.py",
    "torchrun --standalone --nproc_per_node 8 -m trainer --model Qwen/Qwen2.5-0.5B-Instruct --env "
    "grpo_envs/Arithmetic-v0 --distributed fsdp": "a hub model on 8 GPUs",
    "grpo-envs train --config demo --generator vllm": "vLLM (pip install vllm); tests/trainer/test_train_vllm.py",
    "grpo-envs train --config demo --rollout-log --output-dir runs/logged": (
        "the whole 500-step demo; tests/trainer/test_audit.py trains with rollout_log=True"
    ),
    "grpo-envs audit runs/logged/rollouts.jsonl --rescore": "the run above's rollouts; tests/trainer/test_audit.py",
}
"""Documented commands that do not run here, each with why (and where it is tested, if it is)."""


def _command(line: str) -> str:
    """A command as written, its trailing ``# comment`` and extra spaces dropped."""
    return re.sub(r"\s+", " ", re.sub(r"\s+#\s.*$", "", line)).strip()


def commands(b: Block) -> list[str]:
    """The commands of a ```bash block (continued lines joined; comment lines dropped)."""
    text = re.sub(r"\\\n", " ", b.code)
    return [c for c in map(_command, text.splitlines()) if c and not c.startswith("#")]


def _bash_blocks() -> list[Block]:
    return [b for page in PAGES for b in blocks(page) if b.language == "bash"]


def runs_here(b: Block) -> bool:
    """Whether this file runs ``b``: a bash block not marked no-run, none of whose commands is in
    `NOT_HERE` (a ``run-by`` block runs here too: in a user's virtualenv, which its test does not)."""
    return b.language == "bash" and b.mark != "no-run" and not any(c in NOT_HERE for c in commands(b))


def test_every_documented_command_is_run_or_listed() -> None:
    wrong, seen = [], set()
    for b in _bash_blocks():
        listed = [c in NOT_HERE for c in commands(b)]
        seen.update(commands(b))
        if any(listed) and not all(listed):
            wrong.append(f"{b.where}: a block mixes commands that run here with NOT_HERE ones: split it")
        elif runs_here(b) and b.page not in RUN_PAGES:
            wrong.append(f"{b.where}: {commands(b)} neither runs here (add its page to RUN_PAGES) nor is listed")
        elif b.mark == "no-run" and not all(listed):
            wrong.append(f"{b.where}: {commands(b)} is in a no-run block: list it in NOT_HERE with why")
    assert wrong == [], "\n".join(wrong)
    assert sorted(set(NOT_HERE) - seen) == []  # no stale entries
    for page, lines in PROSE.items():
        text = re.sub(r"\s+", " ", (ROOT / page).read_text())
        assert all(f"`{line}`" in text for line in lines), page
    assert len(seen) - len(NOT_HERE) >= 15  # the collection works


def wheelhouse() -> Path:
    """The wheels of torch (the CPU build), the project's dependencies with the extras the docs
    use, and the build back end, downloaded once per machine and pyproject.toml (a minute) outside
    the checkout from pip's configured indexes (this machine's are on its disk): every later pip
    resolves against this folder alone (``PIP_NO_INDEX``), offline and in seconds."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:12]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "grpo-envs" / f"user-wheels-{digest}"
    if not (cache / ".complete").exists():
        specs = [TORCH, "setuptools>=69", "wheel", f"{ROOT}[{EXTRAS},{','.join(sorted(set(PAGE_EXTRAS.values())))}]"]
        partial = cache.with_name(cache.name + f".{os.getpid()}")
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "-d", str(partial), *specs],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        assert done.returncode == 0, f"pip download (a user's wheels, once):\n{done.stderr[-3000:]}"
        for ours in partial.glob("grpo[-_]envs*"):
            ours.unlink()  # the project is installed from the checkout each time
        (partial / ".complete").touch()
        if not (cache / ".complete").exists():
            shutil.rmtree(cache, ignore_errors=True)
            partial.rename(cache)
        else:
            shutil.rmtree(partial, ignore_errors=True)
    return cache


@pytest.fixture(scope="module")
def user(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A fresh virtualenv as make demo makes it; the shell of a user who activated it (pip
    installs from `wheelhouse`, without compiling byte code)."""
    wheels = wheelhouse()
    where = tmp_path_factory.mktemp("user-venv")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(VIRTUAL_ENV=str(where), PATH=f"{where / 'bin'}{os.pathsep}{env['PATH']}")
    env.update(HF_HUB_OFFLINE="1", MPLBACKEND="Agg", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels), PIP_NO_COMPILE="1")
    _pip(env, TORCH)
    _pip(env, f"{ROOT}[{EXTRAS}]")
    print(f"the user's virtualenv: {time.perf_counter() - started:.0f} s")
    return env


def _pip(env: dict[str, str], *specs: str) -> None:
    done = subprocess.run(
        ["python", "-m", "pip", "install", "--quiet", *specs], env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, f"pip install {specs}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"


def _run(b: Block, folder: Path, env: dict[str, str]) -> None:
    script = folder / f"block_{b.line}.{'py' if b.language == 'python' else 'sh'}"
    script.write_text(b.code)
    if b.language == "python":
        (folder / "_driver.py").write_text(DRIVER)
        cmd = ["python", str(folder / "_driver.py"), str(script)]
    else:
        cmd = ["bash", "-e", "-o", "pipefail", str(script)]
    _shell(cmd, folder, env, b.where)


MISSING = re.compile(r"No module named|ModuleNotFoundError|command not found|exit status [2-9]")
"""What a command that the page lets fail (``|| echo "exit status $?"``: a verifier that breaks a
law) must still never print: a module or command the user's virtualenv lacks, or an exit status
other than the law's 1 (2: a usage error, pytest's 4: no such option)."""


def _shell(cmd: list[str], folder: Path, env: dict[str, str], where: str) -> None:
    done = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, text=True, timeout=900)
    said = f"{where} failed in the user's virtualenv:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert done.returncode == 0, said
    assert not MISSING.search(done.stdout + done.stderr), said


# Measured on our 2 cores (load 5-9 from other work): 320 s in all, the virtualenv 125 s of it (torch
# unpacked), then environments.md 64 s, evaluation.md 56 s (60 steps), README 39 s, testing-kit 30 s.
@pytest.mark.slow
@pytest.mark.timeout(900)  # the first page builds the virtualenv
@pytest.mark.parametrize("page", RUN_PAGES)
def test_the_pages_commands_run_in_a_users_virtualenv(page: str, user: dict[str, str], tmp_path: Path) -> None:
    assert not str(tmp_path).startswith(str(ROOT))  # a folder outside the checkout
    if page in PAGE_EXTRAS:
        _pip(user, f"{ROOT}[{EXTRAS},{PAGE_EXTRAS[page]}]")
    for b in blocks(page):
        if b.mark == "file":
            (tmp_path / b.value).write_text(b.code)
            continue
        if b.code == CUSTOM_ENV:
            (tmp_path / "my_envs.py").write_text(b.code)
        if runs_here(b):
            _run(b, tmp_path, user)
    for line in PROSE.get(page, []):
        _shell(["bash", "-e", "-c", line], tmp_path, user, f"{page}: {line!r}")
