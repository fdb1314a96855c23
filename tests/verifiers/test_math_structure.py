"""The shape of `verifiers.math` (issue: math part 2): small functions, one rule each."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

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


MAX_FILE_LINES = 420


def test_no_module_in_verifiers_math_is_over_about_400_lines() -> None:
    sizes = {p.name: len(p.read_text().splitlines()) for p in Path(verifiers.math.__file__).parent.glob("*.py")}
    assert {name: n for name, n in sizes.items() if n > MAX_FILE_LINES} == {}


def _golds() -> list[str]:
    import math_table
    import math_table_equal
    import math_table_golds
    import math_table_more

    tables = (math_table, math_table_more, math_table_golds, math_table_equal)
    return [c.gold for table in tables for c in table.CASES]


def test_parse_trees_are_typed_nodes_all_the_way_down() -> None:
    from dataclasses import fields
    from fractions import Fraction

    from verifiers.math import MathConfig
    from verifiers.math._core import parse_answer
    from verifiers.math._extract import reduce_gold
    from verifiers.math._nodes import Node, walk

    kinds: set[str] = set()
    for gold in _golds():
        tree = parse_answer(reduce_gold(gold), MathConfig())
        if tree is None:
            continue
        for node in walk(tree):
            assert isinstance(node, Node), (gold, node)
            kinds.add(type(node).__name__)
            for field in fields(node):
                value = getattr(node, field.name)
                leaves = value if isinstance(value, tuple) else (value,)
                for leaf in leaves:
                    cells = leaf if isinstance(leaf, tuple) else (leaf,)  # a matrix row
                    for cell in cells:
                        assert isinstance(cell, Node | str | bool | int | Fraction | None), (gold, field.name, cell)
    # the tables exercise most kinds (a kind the tables never build would be dead code)
    expected = {"Num", "Sym", "Const", "Add", "Mul", "Div", "Pow", "Neg", "Fn", "Root", "Tup", "Set", "List"}
    expected |= {"Interval", "Union", "Relation", "Matrix", "Text", "Ratio", "PlusMinus", "Pct", "Deg", "Abs"}
    expected |= {"Def", "And", "Or"}
    assert expected <= kinds, expected - kinds


def test_latex_reaches_the_grammar_only_through_its_protocol() -> None:
    import inspect

    from verifiers.math import _latex, _parser

    source = inspect.getsource(_latex)
    assert "_parser" not in source.replace("`_parser`", "")  # no import of the parser, even for typing
    declared = {
        name
        for name, _ in inspect.getmembers(_latex.Grammar)
        if not name.startswith("_") and name in _latex.Grammar.__dict__
    }
    assert {"take", "arg", "group", "additive", "subscript"} <= declared
    for name in declared:
        assert callable(getattr(_parser._Parser, name)) or isinstance(
            inspect.getattr_static(_parser._Parser, name), property
        ), name
    called = set(re.findall(r"\bp\.([a-z_]+)\b", source))
    assert called <= declared, called - declared  # the readers use nothing the protocol does not name


LATEX_COMMANDS = [
    # constants
    (r"\pi", "Const(name='pi')"),
    (r"\infty", "Const(name='oo')"),
    (r"\imath", "Const(name='i')"),
    (r"\emptyset", "Set(items=())"),
    (r"\varnothing", "Set(items=())"),
    # names and functions
    (r"\alpha_1", "Sym(name='alpha_1')"),
    (r"\sin x", "Fn(name='sin', arg=Sym(name='x'))"),
    (r"\sqrt[3]{x}", "Root(arg=Sym(name='x'), index=Num(value=Fraction(3, 1), places=None))"),
    # readers of arguments
    (r"\frac12", "Div(num=Num(value=Fraction(1, 1), places=None), den=Num(value=Fraction(2, 1), places=None))"),
    (r"\frac{x}{y}", "Div(num=Sym(name='x'), den=Sym(name='y'))"),
    (r"\binom{n}{k}", "Binom(n=Sym(name='n'), k=Sym(name='k'))"),
    (
        r"\mathbb{R}",
        "Interval(left_closed=False, low=Neg(arg=Const(name='oo')), high=Const(name='oo'), right_closed=False)",
    ),
    (r"\lfloor x \rfloor", "Fn(name='floor', arg=Sym(name='x'))"),
    (r"\lceil x \rceil", "Fn(name='ceiling', arg=Sym(name='x'))"),
    (r"\begin{pmatrix}x\\y\end{pmatrix}", "Matrix(rows=((Sym(name='x'),), (Sym(name='y'),)))"),
    (r"\langle x, y \rangle", "Tup(items=(Sym(name='x'), Sym(name='y')))"),
    (r"\mathbb{Z}", "Domain(name='Z')"),
    (r"\mathbb{Z}^{+}", "Domain(name='Z+')"),
    # refused, with the reason
    (r"\mathbb{C}", "ParseError: unsupported \\mathbb"),
    (r"\lfloor x", "ParseError: expected \\rfloor"),
    (r"\lceil x \rfloor", "ParseError: expected \\rceil"),
    (r"\langle x, y", "ParseError: expected \\rangle"),
    (r"\foo", "ParseError: unsupported command \\foo"),
]


def test_each_latex_command_reads_as_its_node() -> None:
    from verifiers.math._lexer import ParseError
    from verifiers.math._parser import parse

    for text, expected in LATEX_COMMANDS:
        try:
            got = repr(parse(text))
        except ParseError as exc:
            got = f"ParseError: {exc}"
        assert got == expected, text


def test_each_numeric_node_becomes_its_sympy_expression() -> None:
    import sympy

    from verifiers.math import MathConfig
    from verifiers.math._core import parse_answer
    from verifiers.math._symbolic import Unsupported, to_sympy

    def parse(text: str) -> Any:
        return parse_answer(text, MathConfig())

    x = sympy.Symbol("x")
    table = [
        ("-x", -x),
        ("5!", sympy.Integer(120)),
        ("|x|", sympy.Abs(x)),
        (r"50\%", sympy.Rational(1, 2)),
        (r"30^\circ", sympy.Integer(30)),
        (r"\log_2 x", sympy.log(x, 2)),
        (r"\sqrt[3]{x}", sympy.root(x, 3)),
        (r"\binom{5}{2}", sympy.Integer(10)),
        (r"\sin x", sympy.sin(x)),
        (r"\pi x + 1/2", sympy.pi * x + sympy.Rational(1, 2)),
        ("x^2", x**2),
    ]
    for text, expected in table:
        assert sympy.simplify(to_sympy(parse(text)) - expected) == 0, text
    with pytest.raises(Unsupported, match="Set"):
        to_sympy(parse(r"\{1, 2\}"))
