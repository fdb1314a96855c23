"""The Makefile's two commands, as planned by ``make -n`` for a fresh machine (no virtualenv yet):
`make demo` sets up only what the demo runs and ends saying how to use the CLI; `make test` still
sets up everything; both repeat no install work once their stamps exist."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FULL_SETUP = (
    "ensure-docker.sh",
    "build-image",
    "ensure-vllm.sh",
    "ensure-verl.sh",
    "openrlhf",
    "[train,dev]",
    "install -y -qq --no-install-recommends chromium",
)

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")


def plan(*goals: str, venv: Path) -> str:
    done = subprocess.run(["make", "-n", *goals, f"VENV={venv}"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_fresh_make_demo_sets_up_only_the_demo_and_says_how_to_use_the_cli(tmp_path: Path) -> None:
    steps = plan("demo", venv=tmp_path / "venv")
    assert not [s for s in FULL_SETUP if s in steps], steps
    assert "-m venv" in steps and "torch" in steps and "-e '.[train,demo]'" in steps
    assert (
        steps.index("torch") < steps.index("[train,demo]") < steps.index("grpo-envs train --config configs/demo.toml")
    )
    assert "scripts/check_demo.py runs/demo" in steps  # the numbers
    assert f"source {tmp_path / 'venv'}/bin/activate" in steps and "grpo-envs --help" in steps


def test_a_fresh_make_test_still_sets_up_everything(tmp_path: Path) -> None:
    steps = plan("test", venv=tmp_path / "venv")
    assert [s for s in FULL_SETUP if s not in steps] == []
    assert "[train,demo]" not in steps


def test_with_their_stamps_in_place_neither_installs_again(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    for stamp in (".grpo-envs-venv", ".grpo-envs-installed", ".grpo-envs-demo"):
        (venv / stamp).touch()
    demo = plan("demo", venv=venv)
    assert "pip install" not in demo and "-m venv" not in demo
    assert "pip install" not in plan("lint", venv=venv)
