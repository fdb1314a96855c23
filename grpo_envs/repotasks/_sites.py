"""Where a mutation can go: the entities of a Python source (its functions, methods and classes)
and, in each, the sites every technique can break. Pure `ast`; nothing is changed here.

A site is one node plus a technique name; `_mutate` turns a site into new source text. Statements
qualify only when they sit on lines of their own (``a = 1; b = 2`` is skipped), so a mutation can
replace whole lines and leave the rest of the file byte-identical."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

_COMMUTATIVE = (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)
_NON_COMMUTATIVE = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift)
SWAPPED_BINOPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv, ast.LShift: ast.RShift, ast.RShift: ast.LShift,
    ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
}  # fmt: skip
SWAPPED_CMPOPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}  # fmt: skip

TECHNIQUES = (
    "invert_if_else", "remove_conditional", "remove_loop", "remove_assignment", "remove_wrapper",
    "change_constant", "change_operator", "swap_operands", "shuffle_lines", "break_chain",
    "remove_base", "remove_method", "off_by_one_slice", "swap_arguments",
)  # fmt: skip
"""Every technique: SWE-smith's procedural ones, plus off-by-one in a slice and swapped arguments."""


@dataclass(frozen=True)
class Site:
    """One place to break: ``technique`` applied to ``node`` inside entity ``entity``; ``block``
    is the statement list holding ``node`` (for a removal that must leave ``pass``)."""

    technique: str
    entity: str
    node: ast.AST
    block: list[ast.stmt] = field(default_factory=list, compare=False, hash=False)


def entities(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]]:
    """The module's functions, classes and methods, by qualified name, in source order."""
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, node))
        if isinstance(node, ast.ClassDef):
            found += [
                (f"{node.name}.{item.name}", item)
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
    return found


def own_lines(node: ast.stmt, lines: list[str]) -> bool:
    """Whether ``node`` fills whole lines: only indentation before it, at most a comment after."""
    start = first_line(node)
    end = node.end_lineno or start
    before = lines[start - 1][: node.col_offset] if start == node.lineno else ""
    after = lines[end - 1][node.end_col_offset :].strip() if node.end_col_offset is not None else "x"
    return before.strip() == "" and (after == "" or after.startswith("#"))


def first_line(node: ast.stmt) -> int:
    """The first line of a statement, its decorators included."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _statement_sites(entity: str, body: list[ast.stmt], lines: list[str]) -> list[Site]:
    """The statement-level sites of one block and of the blocks nested in it (not in nested
    functions or classes: those are entities of their own, or stay whole)."""
    sites: list[Site] = []
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if own_lines(stmt, lines):
            technique = _statement_technique(stmt)
            if technique:
                sites.append(Site(technique, entity, stmt, body))
            if isinstance(stmt, ast.If) and stmt.orelse:
                sites.append(Site("invert_if_else", entity, stmt, body))
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                sites += _statement_sites(entity, inner, lines)
        for handler in getattr(stmt, "handlers", []):
            sites += _statement_sites(entity, handler.body, lines)
    return sites


def _statement_technique(stmt: ast.stmt) -> str | None:
    """The removal a statement invites, if any."""
    if isinstance(stmt, ast.If) and not stmt.orelse:
        return "remove_conditional"
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
        return "remove_loop"
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        return "remove_assignment"
    if isinstance(stmt, (ast.With, ast.AsyncWith, ast.Try)):
        return "remove_wrapper"
    return None


def _expression_technique(node: ast.AST) -> list[str]:
    """The expression-level techniques one node invites."""
    found = []
    if isinstance(node, ast.Constant) and type(node.value) is int:
        found.append("change_constant")
    if isinstance(node, ast.BinOp) and type(node.op) in SWAPPED_BINOPS:
        found.append("change_operator")
    if isinstance(node, ast.BinOp) and isinstance(node.op, _NON_COMMUTATIVE):
        found.append("swap_operands")
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        found += ["change_operator", "swap_operands"] if type(node.ops[0]) in SWAPPED_CMPOPS else []
    if isinstance(node, ast.BoolOp):
        found.append("change_operator")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        found += ["break_chain"] if isinstance(node.func.value, ast.Call) else []
    if (
        isinstance(node, ast.Call)
        and len(node.args) >= 2
        and not any(isinstance(a, ast.Starred) for a in node.args[:2])
    ):
        found += ["swap_arguments"] if ast.dump(node.args[0]) != ast.dump(node.args[1]) else []
    if isinstance(node, ast.Slice) and (node.lower is not None or node.upper is not None):
        found.append("off_by_one_slice")
    return found


def _expression_sites(entity: str, root: ast.AST, skip: set[int]) -> list[Site]:
    """The expression-level sites under ``root`` (nested function and class bodies left out;
    a slice's own integer bounds are left to ``off_by_one_slice``)."""
    sites: list[Site] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node is not root and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if id(node) not in skip and getattr(node, "end_col_offset", None) is not None:
            sites += [Site(t, entity, node) for t in _expression_technique(node)]
        if isinstance(node, ast.Slice):
            skip |= {id(b) for b in (node.lower, node.upper) if b is not None}
        if isinstance(node, ast.JoinedStr):
            continue  # f-string parts have no reliable positions to edit
        stack += reversed(list(ast.iter_child_nodes(node)))
    return sites


def sites_of(entity: str, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lines: list[str]) -> list[Site]:
    """Every site of one entity, in a fixed order."""
    if isinstance(node, ast.ClassDef):
        sites = [Site("remove_base", entity, node)] if node.bases and _header_alone(node) else []
        methods = [m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if len(node.body) > 1:
            sites += [Site("remove_method", entity, m, node.body) for m in methods if own_lines(m, lines)]
        return sites
    sites = _statement_sites(entity, node.body, lines)
    if len(node.body) >= 2 and all(own_lines(s, lines) for s in node.body):
        sites.append(Site("shuffle_lines", entity, node, node.body))
    for stmt in node.body:
        sites += _expression_sites(entity, stmt, set())
    return sites


def _header_alone(node: ast.ClassDef) -> bool:
    """Whether a class's header ends on a line before its body starts (so it can be rewritten)."""
    last = max([node.lineno, *(b.end_lineno or 0 for b in node.bases), *(k.end_lineno or 0 for k in node.keywords)])
    return last < node.body[0].lineno
