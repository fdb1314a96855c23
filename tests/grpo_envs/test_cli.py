"""The `grpo-envs` console script, run as a user runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

SCRIPT = shutil.which("grpo-envs", path=os.path.dirname(sys.executable))
NO_ENGINE = "unix:///nonexistent.sock"


def cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    assert SCRIPT is not None, "the console script grpo-envs is not installed next to python"
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, timeout=120, env={**os.environ, **env})


def test_version() -> None:
    proc = cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == "grpo-envs 0.1.0"


def test_python_dash_m_grpo_envs_is_the_same_command() -> None:
    proc = subprocess.run([sys.executable, "-m", "grpo_envs", "--version"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == cli("--version").stdout.strip()


def test_help_lists_the_commands() -> None:
    proc = cli("--help")
    assert proc.returncode == 0
    assert "doctor" in proc.stdout and "sandbox" in proc.stdout


def test_unknown_subcommand_is_a_usage_error_naming_it() -> None:
    proc = cli("frobnicate")
    assert proc.returncode == 2
    assert "invalid choice: 'frobnicate'" in proc.stderr
    assert "doctor" in proc.stderr  # the valid choices are listed


def test_no_command_prints_help_and_fails() -> None:
    proc = cli()
    assert proc.returncode == 2
    assert "doctor" in proc.stderr


def test_sandbox_without_subcommand_shows_its_help() -> None:
    proc = cli("sandbox")
    assert proc.returncode == 2
    assert "build-image" in proc.stderr


@pytest.mark.parametrize("flags", [(), ("--offline",)])
def test_build_image_without_engine_says_how_to_start_one(flags: tuple[str, ...]) -> None:
    proc = cli("sandbox", "build-image", *flags, DOCKER_HOST=NO_ENGINE)
    assert proc.returncode == 1
    assert "No Docker engine answers at unix:///nonexistent.sock" in proc.stderr
    assert "grpo-envs doctor" in proc.stderr
    assert "DOCKER_HOST is set" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert "mmdebstrap" not in proc.stderr  # it checked the engine before building anything


def test_doctor_without_engine_fails_and_names_the_fix() -> None:
    proc = cli("doctor", DOCKER_HOST=NO_ENGINE)
    assert proc.returncode == 1
    engine = next(line for line in proc.stdout.splitlines() if "docker engine" in line)
    assert engine.split()[0] == "FAIL"
    assert "fix: Start a Docker engine" in proc.stdout
    assert "systemctl start docker" in proc.stdout
    assert "problem(s) found" in proc.stdout


@pytest.mark.docker
def test_doctor_passes_on_a_set_up_machine() -> None:
    proc = cli("doctor")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = {line.split()[1]: line.split()[0] for line in proc.stdout.splitlines()[1:] if line}
    for name in ("python", "gymnasium", "sympy", "docker", "torch", "transformers"):
        assert lines.get(name) == "ok", proc.stdout
    assert "storage driver" in proc.stdout
    assert "Everything grpo-envs needs is here." in proc.stdout


@pytest.mark.slow
def test_doctor_names_a_distribution_that_clashes_with_ours(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # A fake installed distribution called `verifiers` (PrimeIntellect's name), as pip writes it.
    info = tmp_path / "verifiers-0.1.9.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: verifiers\nVersion: 0.1.9\n")
    (info / "top_level.txt").write_text("verifiers\n")
    (info / "RECORD").write_text("verifiers/__init__.py,,\n")
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    proc = cli("doctor", PYTHONPATH=path, DOCKER_HOST=NO_ENGINE)
    assert proc.returncode == 1
    line = next(line for line in proc.stdout.splitlines() if "package names" in line)
    assert line.split()[0] == "FAIL"
    assert "`verifiers` also comes from verifiers" in line
    assert "pip uninstall verifiers" in proc.stdout
