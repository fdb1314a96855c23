"""The shape of `trainer/` (issue: the GRPO step reads top to bottom)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import trainer

ROOT = Path(trainer.__file__).parent


def _name(path: Path) -> str:
    """A module's path under ``trainer/`` (its rooms: ``rollouts/_rollout.py``)."""
    return path.relative_to(ROOT).as_posix()


def _functions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((_name(path), node))
    return found


def test_no_function_in_trainer_is_over_60_lines_and_the_update_reads_in_50() -> None:
    sizes = {f"{name}:{node.name}": (node.end_lineno or node.lineno) - node.lineno + 1 for name, node in _functions()}
    assert {k: n for k, n in sizes.items() if n > 60} == {}
    assert sizes["grpo.py:_update"] <= 50


def test_fsdp_is_asked_in_one_place() -> None:
    """``Dist.fsdp`` (sharded over ranks) is the one test; in one process the mode changes nothing."""
    inline = []
    for path in sorted(ROOT.rglob("*.py")):
        for k, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"mode == \"fsdp\"", line) and not (
                path.name == "_distributed.py" and "return self.enabled" in line
            ):
                inline.append(f"{_name(path)}:{k}")
    assert inline == []


def test_one_unwrap_and_one_single_turn_test() -> None:
    text = {_name(p): p.read_text() for p in sorted(ROOT.rglob("*.py"))}
    assert [n for n, t in text.items() if 'DistributedDataParallel"' in t and "def " in t and "module" in t] == [
        "_distributed.py"
    ]
    assert [n for n, t in text.items() if "max_turns == 1" in t] == ["rollouts/_rollout.py"]


def test_the_loop_never_asks_which_parallelism_it_runs() -> None:
    """FSDP vs DDP is decided once, in `Dist` (``collective_forwards``, ``frozen``,
    ``completion_width``, ``check``): the step reads no mode."""
    tree = ast.parse((ROOT / "grpo.py").read_text())
    asked = [
        node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr in ("fsdp", "mode")
    ]
    assert asked == []
