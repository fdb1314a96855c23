"""The arrows between the three packages (`../shared/ARCHITECTURE.md`): `verifiers` imports
neither other package, `grpo_envs` never imports `trainer`, and no package reaches into
another's private modules. Inside `verifiers`, no import cycle (lazy and type-only imports
count), and executors and verifiers meet only at the workload seam (`verifiers._workload`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("verifiers", "grpo_envs", "trainer")
FORBIDDEN = {"verifiers": {"grpo_envs", "trainer"}, "grpo_envs": {"trainer"}, "trainer": set()}


def _modules(package: str) -> dict[str, Path]:
    """Every module of ``package`` by dotted name (a package by its own name)."""
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _module_graph(package: str) -> dict[str, set[str]]:
    """module -> the modules of ``package`` it imports, by any import statement (lazy ones and
    those under ``TYPE_CHECKING`` too); ``from a import b`` is module ``a.b`` when that is one."""
    modules = _modules(package)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [
                    f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                    for a in node.names
                ]
            else:
                continue
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_in_verifiers() -> None:
    assert _cycles(_module_graph("verifiers")) == []


def test_the_cycle_finder_finds_a_cycle_through_a_lazy_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]] and _cycles({"a": {"b"}, "b": set()}) == []


def test_executors_import_no_verifier_and_verifiers_no_executor() -> None:
    graph = _module_graph("verifiers")
    kinds = ("verifiers.math", "verifiers.code", "verifiers.testing", "verifiers.structure")

    def under(name: str, prefixes: tuple[str, ...]) -> bool:
        return any(name == p or name.startswith(p + ".") for p in prefixes)

    executors = {m for m in graph if under(m, ("verifiers.executors",))}
    assert {(m, t) for m in executors for t in graph[m] if under(t, kinds)} == set()
    assert {(m, t) for m in graph if under(m, kinds) for t in graph[m] if under(t, ("verifiers.executors",))} == set()


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
