"""The arrows between the three packages (`../shared/ARCHITECTURE.md`): `verifiers` imports
neither other package, `grpo_envs` never imports `trainer`, and no package reaches into
another's private modules. No import cycle in or across the three packages (lazy, type-only and
relative imports count, and so do the ``"module:function"`` names the CLI and the env registry
import at run time), and executors and verifiers meet only at the workload seam
(`verifiers._workload`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("verifiers", "grpo_envs", "trainer")
FORBIDDEN = {"verifiers": {"grpo_envs", "trainer"}, "grpo_envs": {"trainer"}, "trainer": set()}


def _modules(*packages: str, root: Path = ROOT) -> dict[str, Path]:
    """Every module of ``packages`` by dotted name (a package by its own name)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _targets(node: ast.AST, name: str, path: Path, modules: dict[str, Path]) -> list[str]:
    """The modules one AST node of module ``name`` (at ``path``) imports: an import statement
    (relative ones resolved), or a ``"module:function"`` string that a registry or the CLI
    imports by name at run time."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
            base = ".".join([*package[: len(package) - node.level + 1], *([base] if base else [])])
        return [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and ":" in node.value:
        return [node.value.split(":", 1)[0]] if node.value.split(":", 1)[0] in modules else []
    return []


def _module_graph(*packages: str, root: Path = ROOT) -> dict[str, set[str]]:
    """module -> the modules of ``packages`` it imports, by any import statement (lazy ones and
    those under ``TYPE_CHECKING`` too) or ``"module:function"`` entry; ``from a import b`` is
    module ``a.b`` when that is one."""
    modules = _modules(*packages, root=root)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            for target in _targets(node, name, path, modules):
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


def test_no_import_cycle_in_the_three_packages() -> None:
    graph = _module_graph(*PACKAGES)
    assert sum(map(len, graph.values())) > 400  # the graph is read (472 arrows today)
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_through_a_lazy_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]] and _cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_lazy_type_only_relative_and_by_name_imports(tmp_path: Path) -> None:
    files = {
        "p/__init__.py": "from p.a import A\n",
        "p/a.py": "def f():\n    from .b import B\n",
        "p/b.py": "import typing\nif typing.TYPE_CHECKING:\n    import q.c\n",
        "q/__init__.py": "",
        "q/c.py": 'COMMANDS = {"x": "p.d:main"}\n',
        "p/d.py": "from p import A\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = _module_graph("p", "q", root=tmp_path)
    assert graph == {"p": {"p.a"}, "p.a": {"p.b"}, "p.b": {"q.c"}, "p.d": {"p"}, "q": set(), "q.c": {"p.d"}}
    assert _cycles(graph) == [["p", "p.a", "p.b", "p.d", "q.c"]]


def test_executors_import_no_verifier_and_verifiers_no_executor() -> None:
    graph = _module_graph("verifiers")
    kinds = ("verifiers.math", "verifiers.code", "verifiers.testing", "verifiers.structure")

    def under(name: str, prefixes: tuple[str, ...]) -> bool:
        return any(name == p or name.startswith(p + ".") for p in prefixes)

    executors = {m for m in graph if under(m, ("verifiers.executors",))}
    assert {(m, t) for m in executors for t in graph[m] if under(t, kinds)} == set()
    # nor the sandbox, nor anything else of verifiers but the seam, the errors, the result and the
    # worker-process machinery (a workload's needs say how they are checked: `_workload.docker_here`)
    seam = {
        "verifiers",
        "verifiers._workload",
        "verifiers.errors",
        "verifiers.result",
        "verifiers._pool",
        "verifiers._supervisor",
    }
    wider = {(m, t) for m in executors for t in graph[m] if t not in seam and not under(t, ("verifiers.executors",))}
    assert wider == set()
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
        "tasks": "grpo_envs",
        "sandbox": "verifiers",
        "check-verifier": "verifiers",
        "train": "trainer",
        "eval": "trainer",
        "audit": "trainer",
    }


MAX_MODULE_LINES = 500  # the guide's cap: it is there to notice a second concept, never to cut one


def test_no_module_of_the_three_packages_is_over_500_lines() -> None:
    sizes = {
        str(p.relative_to(ROOT)): len(p.read_text().splitlines())
        for pkg in PACKAGES
        for p in (ROOT / pkg).rglob("*.py")
    }
    assert {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES} == {}


MAX_FUNCTION_LINES = 60


def _functions(path: Path) -> dict[str, int]:
    """``qualified.name -> lines`` (its whole span, docstring included) of every function in ``path``."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    found[name] = (child.end_lineno or child.lineno) - child.lineno + 1
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text()), "")
    return found


def test_no_function_of_the_three_packages_is_over_60_lines() -> None:
    long = {
        f"{path.relative_to(ROOT)}:{name}": lines
        for pkg in PACKAGES
        for path in sorted((ROOT / pkg).rglob("*.py"))
        for name, lines in _functions(path).items()
        if lines > MAX_FUNCTION_LINES
    }
    assert long == {}, "split by responsibility: one function, one job"


def test_functions_are_measured_by_their_whole_span(tmp_path: Path) -> None:
    source = "class A:\n    def f(self):\n        '''doc'''\n\n        def g():\n            pass\n        return g\n"
    (tmp_path / "m.py").write_text(source)
    assert _functions(tmp_path / "m.py") == {"A.f": 6, "A.f.g": 2}
