"""The distribution as a whole: public API pins and cheap imports."""

from __future__ import annotations

import subprocess
import sys

import pytest

import grpo_envs
import trainer
import verifiers
import verifiers.code
import verifiers.math
import verifiers.sandbox
import verifiers.testing
import verifiers.testing.laws

# Changing a public API is a decision: update these pins on purpose.
PUBLIC = {
    grpo_envs: {
        "ANSWER_TAGS",
        "BOXED",
        "CODE",
        "THINK_ANSWER",
        "AnswerFormat",
        "EnvCheckError",
        "GrpoEnvsError",
        "Group",
        "GroupScore",
        "ReasoningEnv",
        "RewardTerm",
        "Rubric",
        "SetupError",
        "Task",
        "TextSpace",
        "Verifier",
        "__version__",
        "check_disjoint",
        "check_env",
        "code_verifier",
        "env_ids",
        "format_reward",
        "length_penalty",
        "make_group",
        "math_verifier",
    },
    verifiers: {
        "EngineUnavailableError",
        "ImageBuildError",
        "SandboxError",
        "Status",
        "VerifierInputError",
        "VerifiersError",
        "VerifyResult",
        "VerifyTimeout",
    },
    verifiers.math: {
        "MathConfig",
        "VerifyTimeout",
        "equivalent",
        "extract_answer",
        "verify",
        "verify_many",
    },
    verifiers.sandbox: {
        "IMAGE_REPOSITORY",
        "SANDBOX_UID",
        "DockerSandbox",
        "ExecResult",
        "FakeSandbox",
        "Job",
        "Sandbox",
        "default_sandbox",
        "build_image",
        "engine_client",
        "how_to_start_engine",
        "image_exists",
        "image_tag",
        "recipe",
    },
    verifiers.code: {"extract_code", "first_difference", "tests_from_row", "verify", "verify_many"},
    verifiers.testing: {
        "LAWS",
        "Domain",
        "LawBroken",
        "LawResult",
        "Problem",
        "VerifierReport",
        "answer_sets",
        "answer_statements",
        "as_the_answer",
        "assert_verifier_laws",
        "check_verifier",
        "code_problems",
        "expression_problems",
        "expressions",
        "from_batch_reward",
        "garbage",
        "gaming_completions",
        "intervals",
        "laws",
        "math_problems",
        "matrices",
        "near_misses",
        "numbers",
        "pairs",
        "programs_with_known_output",
        "renderings",
        "test_suites",
        "unbalanced_latex",
        "wrong_programs",
    },  # fmt: skip
    verifiers.testing.laws: {
        "LAWS",
        "LawBroken",
        "consistency",
        "determinism",
        "discrimination",
        "gaming_resistance",
        "latency",
        "reflexivity",
        "rendering_invariance",
        "reward_range",
        "totality",
    },  # fmt: skip
    trainer: {"GRPOConfig", "GRPOTrainer", "TrainerError", "group_advantages", "grpo_loss", "load_config", "pass_at_k"},
}


@pytest.mark.parametrize("module", list(PUBLIC), ids=lambda m: m.__name__)
def test_public_api_is_pinned(module: object) -> None:
    assert set(module.__all__) == PUBLIC[module]  # type: ignore[attr-defined]
    for name in module.__all__:  # type: ignore[attr-defined]
        assert hasattr(module, name), f"{module.__name__}.__all__ names missing {name}"  # type: ignore[attr-defined]


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
    loaded = _modules_after("import verifiers, verifiers.sandbox, verifiers.code; verifiers.sandbox.image_tag()")
    assert "verifiers" in loaded
    assert "torch" not in loaded
    assert "docker" not in loaded
    assert "sympy" not in loaded


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
