"""The shape of `verifiers.math` (issue: math part 2): small functions, one rule each."""

from __future__ import annotations

import ast
from pathlib import Path

import verifiers.math

MAX_FUNCTION_LINES = 60


def test_no_function_in_verifiers_math_is_over_60_lines() -> None:
    long = []
    for path in sorted(Path(verifiers.math.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.name}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, long
