"""The distribution as a whole: public API pins and cheap imports."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import pytest

import grpo_envs
import grpo_envs.adapters
import grpo_envs.tools
import trainer
import trainer.audit
import trainer.eval
import verifiers
import verifiers.agentic
import verifiers.code
import verifiers.commandline
import verifiers.executors
import verifiers.http
import verifiers.judges
import verifiers.math
import verifiers.sandbox
import verifiers.structure
import verifiers.testing
import verifiers.testing.laws

PUBLIC_MODULES = [
    grpo_envs,
    grpo_envs.adapters,
    grpo_envs.tools,
    verifiers,
    verifiers.agentic,
    verifiers.code,
    verifiers.commandline,
    verifiers.executors,
    verifiers.http,
    verifiers.judges,
    verifiers.math,
    verifiers.sandbox,
    verifiers.structure,
    verifiers.testing,
    verifiers.testing.laws,
    trainer,
    trainer.audit,
    trainer.eval,
]
GOLDEN = Path(__file__).with_name("public_api.txt")


def _public_names(module: types.ModuleType) -> set[str]:
    """What ``module`` offers: its names that are not private, not submodules, not ``annotations``."""
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and name != "annotations" and not isinstance(value, types.ModuleType)
    }


@pytest.mark.parametrize("module", PUBLIC_MODULES, ids=lambda m: m.__name__)
def test_a_packages_public_names_are_its_all(module: types.ModuleType) -> None:
    """httpx's rule: nothing public by accident (implementation lives in private modules);
    names loaded lazily count once loaded."""
    for name in module.__all__:
        getattr(module, name)
    offered = {
        n for n in module.__all__ if not n.startswith("_") and not isinstance(getattr(module, n), types.ModuleType)
    }
    assert _public_names(module) == offered


def test_the_public_api_matches_the_golden_file() -> None:
    """Changing a public API is a decision: update tests/public_api.txt on purpose."""
    listing = sorted(f"{m.__name__}: {name}" for m in PUBLIC_MODULES for name in m.__all__)
    assert listing == GOLDEN.read_text().split("\n")[:-1], (
        f"the public API changed; if on purpose, update {GOLDEN.name}"
    )


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {m.split(".")[0] for m in out.split()}


def test_import_grpo_envs_imports_neither_docker_nor_torch() -> None:
    loaded = _modules_after("import grpo_envs")
    assert "grpo_envs" in loaded
    assert "docker" not in loaded
    assert "torch" not in loaded


def test_import_verifiers_does_not_import_torch_or_docker() -> None:
    loaded = _modules_after(
        "import verifiers, verifiers.sandbox, verifiers.code, verifiers.judges; verifiers.sandbox.image_tag()"
    )
    assert "verifiers" in loaded
    assert "torch" not in loaded
    assert "docker" not in loaded
    assert "sympy" not in loaded


def test_import_trainer_and_its_eval_metrics_does_not_import_torch() -> None:
    loaded = _modules_after("import trainer, trainer.eval; trainer.eval.summarize([], ks=[1]); trainer.TrainerError")
    assert "trainer" in loaded and "torch" not in loaded and "transformers" not in loaded
    assert "torch" in _modules_after("import trainer; trainer.GRPOConfig")  # loaded when used


def test_plain_numeric_math_needs_neither_sympy_nor_torch() -> None:
    loaded = _modules_after("from verifiers import math; assert math.verify('0.5', r'\\boxed{1/2}').correct")
    assert "sympy" not in loaded  # the fast path is sympy-free
    assert "torch" not in loaded


def test_version_matches_distribution_metadata() -> None:
    from importlib.metadata import version

    assert grpo_envs.__version__ == version("grpo-envs") == "0.1.0"


def test_error_hierarchy() -> None:
    assert issubclass(verifiers.EngineUnavailableError, verifiers.SandboxError)
    assert issubclass(verifiers.ImageBuildError, verifiers.SandboxError)
    assert issubclass(verifiers.SandboxError, verifiers.VerifiersError)
    assert issubclass(grpo_envs.SetupError, grpo_envs.GrpoEnvsError)
