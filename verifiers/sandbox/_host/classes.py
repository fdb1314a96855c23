"""The test code's class definitions that the program may use without defining them (host side).

LeetCode-style completions use ``ListNode`` or ``TreeNode`` without defining them: the dataset
defines them. The test code's classes therefore run in the program's namespace, before its code,
when the program itself binds no such name (a class the program defines wins). Only the
*definition* goes, stripped to what a program could write itself from the task's text:

- top-level classes of the test code, never a pytest test class (``Test*``);
- of each body: the docstring, annotated fields (a constant or ``field(...)`` default at most,
  as in a dataclass), ``__slots__`` and the special methods (``__init__``, ``__eq__``, ``__repr__``, ...)
  except ``__call__``; ordinary methods, nested classes and class-level data are dropped;
- the test code's standard-library imports, so decorators and bases such as ``@dataclass``
  resolve (they run in a scratch namespace: the program gets the classes, not the imports).

No instance, no expected value and no other test code crosses (see `_in_container.objects`). A definition
that fails to run there (a base the program side lacks) is left out.
"""

from __future__ import annotations

import ast
import copy
import sys
from typing import Any

__all__ = ["shared_classes"]

_NOT_SHARED_IMPORTS = {"__future__", "solution", "pytest", "tester"}


def _bound(tree: ast.AST) -> set[str]:
    """Every name ``tree`` binds anywhere (an over-estimate of what the program defines)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _kept(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
        return True  # the docstring
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.AnnAssign):
        return isinstance(stmt.target, ast.Name) and (stmt.value is None or _field_default(stmt.value))
    if isinstance(stmt, ast.Assign):
        return [getattr(t, "id", None) for t in stmt.targets] == ["__slots__"]
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        name = stmt.name
        return name.startswith("__") and name.endswith("__") and name != "__call__"
    return False


def _field_default(value: ast.expr) -> bool:
    """A constant, or ``field(...)`` of constants and names (``default_factory=list``)."""
    if isinstance(value, ast.Constant):
        return True
    if not (isinstance(value, ast.Call) and getattr(value.func, "id", getattr(value.func, "attr", "")) == "field"):
        return False
    return all(isinstance(v, (ast.Constant, ast.Name)) for v in [*value.args, *(k.value for k in value.keywords)])


def _stdlib_import(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Import):
        modules = [a.name for a in stmt.names]
    elif isinstance(stmt, ast.ImportFrom) and not stmt.level and stmt.module:
        modules = [stmt.module]
    else:
        return False
    tops = {m.split(".")[0] for m in modules}
    return not (tops & _NOT_SHARED_IMPORTS) and tops <= set(sys.stdlib_module_names)


def shared_classes(setup: str, program: str) -> dict[str, Any] | None:
    """The test code's classes the program lacks, as ``{"imports": [...], "classes": [[name,
    source], ...]}`` (in the test's order), or None when there are none.

    Examples:
        >>> shared = shared_classes("class ListNode:\\n    X = 1\\n    def __init__(self, v):\\n"
        ...                         "        self.v = v\\n", "def f(head): return head")
        >>> print(shared["classes"][0][1])
        class ListNode:
        <BLANKLINE>
            def __init__(self, v):
                self.v = v
    """
    try:
        tests, code = ast.parse(setup), ast.parse(program)
    except (SyntaxError, ValueError):
        return None
    own = _bound(code)
    classes = []
    for node in tests.body:
        if isinstance(node, ast.ClassDef) and not node.name.startswith("Test") and node.name not in own:
            stripped = copy.copy(node)
            stripped.body = [stmt for stmt in node.body if _kept(stmt)] or [ast.Pass()]
            classes.append([node.name, ast.unparse(ast.fix_missing_locations(stripped))])
    if not classes:
        return None
    imports = [ast.unparse(stmt) for stmt in tests.body if _stdlib_import(stmt)]
    return {"imports": imports, "classes": classes}
