"""Every output the README states for a Python line (``expr  # 'value' (why)``) is what the line
gives: each python block runs statement by statement, and a statement whose comment starts with
a Python literal is checked against it. Blocks with no such comment are not run here (they name
hub models or need a GPU); other statements that fail (undefined names such as ``golds``) are
skipped, never the checked ones."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def stated(comment: str) -> tuple[bool, Any]:
    """(True, value) when the comment starts with a Python literal; the longest prefix that parses
    before a " (" note."""
    candidates = [comment] + [comment[: m.start()] for m in re.finditer(r" \(", comment)][::-1]
    for text in candidates:
        try:
            return True, ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            continue
    return False, None


def checked_blocks() -> list[tuple[int, str]]:
    text = README.read_text()
    out = []
    for m in re.finditer(r"```python\n(.*?)```", text, flags=re.S):
        block = m.group(1)
        lines = block.splitlines()
        if any(stated(line.split("  # ", 1)[1])[0] for line in lines if "  # " in line):
            out.append((text[: m.start()].count("\n") + 2, block))
    return out


@pytest.mark.parametrize(("line", "block"), checked_blocks(), ids=lambda v: str(v) if isinstance(v, int) else "")
def test_the_readmes_stated_outputs_hold(line: int, block: str) -> None:
    namespace: dict[str, Any] = {}
    source = block.splitlines()
    checked = 0
    for node in ast.parse(block).body:
        last = source[node.end_lineno - 1] if node.end_lineno else ""
        is_output, expected = stated(last.split("  # ", 1)[1]) if "  # " in last else (False, None)
        code = ast.get_source_segment(block, node) or ""
        if isinstance(node, ast.Expr) and is_output:
            got = eval(compile(ast.Expression(node.value), "README", "eval"), namespace)
            assert got == expected, (
                f"README line {line + node.lineno - 1}: {code} gives {got!r}, the README says {expected!r}"
            )
            checked += 1
            continue
        try:
            exec(compile(ast.Module([node], []), "README", "exec"), namespace)
        except Exception:  # e.g. `vm.verify_many(golds, ...)`: golds is the reader's
            continue
    assert checked >= 1
