"""The arrows between the three packages (`../shared/ARCHITECTURE.md`): `verifiers` imports
neither other package, `grpo_envs` never imports `trainer`, and no package reaches into
another's private modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("verifiers", "grpo_envs", "trainer")
FORBIDDEN = {"verifiers": {"grpo_envs", "trainer"}, "grpo_envs": {"trainer"}, "trainer": set()}


def _imports(package: str) -> list[tuple[str, int, str]]:
    """(file, line, imported module) for every import statement in ``package``, lazy ones too."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found += [(str(path.relative_to(ROOT)), node.lineno, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.append((str(path.relative_to(ROOT)), node.lineno, node.module))
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_no_package_imports_one_above_it(package: str) -> None:
    wrong = [
        f"{f}:{line} imports {mod}" for f, line, mod in _imports(package) if mod.split(".")[0] in FORBIDDEN[package]
    ]
    assert wrong == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_package_imports_another_packages_private_modules(package: str) -> None:
    wrong = [
        f"{f}:{line} imports {mod}"
        for f, line, mod in _imports(package)
        if mod.split(".")[0] in PACKAGES
        and mod.split(".")[0] != package
        and any(part.startswith("_") for part in mod.split(".")[1:])
    ]
    assert wrong == []


def test_the_cli_names_each_packages_commands_without_importing_them() -> None:
    from grpo_envs._cli import COMMANDS

    owners = {name: target.split(".")[0] for name, (target, _) in COMMANDS.items()}
    assert owners == {
        "doctor": "grpo_envs",
        "envs": "grpo_envs",
        "serve": "grpo_envs",
        "sandbox": "verifiers",
        "check-verifier": "verifiers",
        "train": "trainer",
        "eval": "trainer",
    }


def test_no_module_of_the_three_packages_is_over_400_lines() -> None:
    sizes = {
        str(p.relative_to(ROOT)): len(p.read_text().splitlines())
        for pkg in PACKAGES
        for p in (ROOT / pkg).rglob("*.py")
    }
    assert {name: n for name, n in sizes.items() if n > 400} == {}
