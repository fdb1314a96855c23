"""``grpo-envs envs init NAME``: the scaffold is a package that keeps check_env's laws, and once
``pip install -e``'d into a fresh virtualenv its env is listed, shown, tested, trained and
evaluated by its id (the commands of docs/environments.md, "Your env as a package")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import gymnasium
import pytest

import grpo_envs
from grpo_envs._cli import main as cli
from grpo_envs._scaffold import Scaffold
from grpo_envs.errors import GrpoEnvsError

ID = "kit57_adder/Kit57Adder-v0"


def test_names_follow_the_package_and_bad_names_are_one_line() -> None:
    s = Scaffold.of("my-multiply")
    assert (s.package, s.cls, s.env_id) == ("my_multiply", "MyMultiply", "my_multiply/MyMultiply-v0")
    for bad in ("1abc", "class", "trainer", "a/b", ""):
        with pytest.raises(GrpoEnvsError, match="name"):
            Scaffold.of(bad)


def test_the_scaffold_keeps_every_law_and_refuses_to_overwrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["envs", "init", "kit57-adder", "--dir", str(tmp_path)]) == 0
    root = tmp_path / "kit57-adder"
    assert ID in capsys.readouterr().out
    assert {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} == {
        "pyproject.toml",
        "README.md",
        "kit57_adder/__init__.py",
        "kit57_adder/env.py",
        "tests/test_env.py",
    }
    assert (
        '[project.entry-points."grpo_envs.envs"]\nkit57_adder = "kit57_adder:register"'
        in (root / "pyproject.toml").read_text()
    )
    monkeypatch.syspath_prepend(str(root))
    import kit57_adder  # type: ignore[import-not-found]

    kit57_adder.register()
    report = grpo_envs.check_env(gymnasium.make(ID), seeds=range(3))
    assert report.env_id == ID and report.distinct_prompts == 3
    doc = gymnasium.make(ID).unwrapped.__doc__
    assert all(f"## {part}" in doc for part in ("Task", "Prompt format", "Answer format", "Reward", "Arguments"))
    assert cli(["envs", "init", "kit57-adder", "--dir", str(tmp_path)]) == 1
    assert "already exists" in capsys.readouterr().err


def _fresh_venv(where: Path) -> Path:
    """A virtualenv without our package: this one's site-packages reach it only as a path for the
    third-party libraries (a .pth), so pip installs offline; returns its python."""
    venv.create(where, with_pip=False, symlinks=True)
    python = where / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "_libraries.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


@pytest.mark.slow
def test_installed_in_a_fresh_virtualenv_the_env_is_listed_trained_and_evaluated_by_its_id(tmp_path: Path) -> None:
    # About 60 s on 2 busy cores: the venv, two editable installs, envs list/show, the scaffold's own
    # tests, 1 training step and an eval of 2 tasks.
    python = _fresh_venv(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{tmp_path / 'venv' / 'bin'}{os.pathsep}{env['PATH']}", HF_HUB_OFFLINE="1", MPLBACKEND="Agg")
    user = tmp_path / "user"
    user.mkdir()

    def run(*cmd: str | Path, cwd: Path = user) -> str:
        done = subprocess.run(list(map(str, cmd)), cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{cmd}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        return done.stdout

    pip = [python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index", "-e"]
    run(*pip, Path(__file__).resolve().parents[2])
    grpo = tmp_path / "venv" / "bin" / "grpo-envs"
    run(grpo, "envs", "init", "kit57-adder")
    run(*pip, ".", cwd=user / "kit57-adder")
    assert ID in run(grpo, "envs", "list")
    assert "## Task" in run(grpo, "envs", "show", ID)
    run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", cwd=user / "kit57-adder")
    common = ["--max-new-tokens", "8", "--no-progress"]
    run(grpo, "train", "--env", ID, "--model", "demo", "--steps", "1", "--prompts-per-step", "2",
        "--num-generations", "2", "--eval-prompts", "2", "--output-dir", "runs/a", *common)  # fmt: skip
    run(grpo, "eval", "--env", ID, "--model", "runs/a/final", "-n", "2", "--samples", "1", "--out", "runs/e", *common)
    assert json.loads((user / "runs" / "e" / "summary.json").read_text())["env"] == ID
    assert sys.prefix not in run(python, "-c", "import sys; print(sys.prefix)")
