"""What a parsed answer stands for: the value an equation states, values under names, the
values a collection holds. Read by the comparison (`_compare`); nothing is compared here.
"""

from __future__ import annotations

from itertools import product

from verifiers.math._config import MathConfig
from verifiers.math._nodes import (
    Abs,
    Add,
    Div,
    Items,
    List,
    Mul,
    Neg,
    Node,
    Or,
    PlusMinus,
    Ratio,
    Relation,
    Set,
    Sym,
    Tup,
    walk,
)
from verifiers.math._numeric import rational

__all__ = [
    "elements",
    "exact",
    "is_name",
    "is_quantity",
    "named_values",
    "signs_expanded",
    "solution",
    "value_of_equation",
]

_COLLECTIONS = (List, Or, Set)


def is_name(node: Node) -> bool:
    """A symbol or a product of symbols written together (``AB``, ``xy``): a quantity's name."""
    return isinstance(node, Sym) or (isinstance(node, Mul) and all(isinstance(f, Sym) for f in node.factors))


def is_quantity(node: Node) -> bool:
    """A name, or names combined without numbers: ``\\frac{NO}{BO}``, ``|AB|``, ``AB \\cdot CD``."""
    match node:
        case Sym():
            return True
        case Mul(factors):
            return all(is_quantity(f) for f in factors)
        case Div(a, b):
            return is_quantity(a) and is_quantity(b)
        case Abs(arg):
            return is_quantity(arg)
    return False


def _constant(node: Node) -> bool:
    """No variable anywhere inside (numbers, ``\\pi``, radicals, functions of those)."""
    return node.scalar and not any(isinstance(n, Sym) for n in walk(node))


def value_of_equation(node: Node, config: MathConfig) -> Node | None:
    """The value an equation states: ``x = 3`` -> 3; ``3 = x`` -> 3; ``AB = 4`` -> 4;
    ``|AB| = 2\\sqrt{3}`` -> 2\\sqrt{3}; ``(p, q) = (3, 2)`` -> (3, 2); ``S_1 : S_2 = 7 : 32`` -> 7:32;
    a chain ``2 + 2 = 4`` -> 4; anything else None.

    Examples:
        >>> from verifiers.math._parser import parse
        >>> value_of_equation(parse("y = 2 + 2 = 4"), MathConfig())
        Num(value=Fraction(4, 1), places=None)
    """
    if not isinstance(node, Relation) or not config.equation_as_value:
        return None
    node = exact(node)
    if not isinstance(node, Relation):
        return node
    if not node.is_equation:
        return None
    match node.exprs:
        case (Sym(), value):
            return value
        case (name, value) if is_quantity(name) and _constant(value):
            return value  # a named quantity: AB = 4, |AB| = 2\sqrt{3}, \frac{NO}{BO} = \frac{1}{\sqrt{6}}
        case (Tup(names), Tup(values) as value) if len(names) == len(values) and all(isinstance(n, Sym) for n in names):
            return value  # named values: (p, q) = (3, 2)
        case (Ratio(names), value) if all(is_name(n) for n in names):
            return value  # a named ratio: S_1 : S_2 = 7 : 32
        case (value, Sym()):
            return value
    if all(rational(e) is not None for e in node.exprs) or isinstance(node.exprs[0], Sym):
        return node.exprs[-1]  # 2 + 2 = 4; x = 2 + 2 = 4
    return None


def exact(node: Relation) -> Node:
    """A chain without its approximations: ``x = \\frac{1}{3} \\approx 0.33`` is ``x = \\frac{1}{3}``,
    ``\\frac{1}{3} \\approx 0.33`` is ``\\frac{1}{3}``; ``x \\approx 11`` states 11 (``x = 11``)."""
    if "~" not in node.ops:
        return node
    k = node.ops.index("~")
    if k > 0:
        return Relation(node.ops[:k], node.exprs[: k + 1])
    if len(node.exprs) == 2 and is_name(node.exprs[0]):
        return Relation(("=",), node.exprs)
    return node.exprs[0]


def named_values(node: Node) -> dict[Node, Node] | None:
    """Two or more values under distinct names (``p = 5, q = 2``, ``(p, q) = (5, 2)``,
    ``AB = 4, CD = 5``) as name -> value; None for anything else."""
    pairs: list[tuple[Node, Node]] = []
    match node:
        case List(items) if all(isinstance(i, Relation) and i.ops == ("=",) for i in items):
            pairs = [(i.exprs[0], i.exprs[1]) for i in items if isinstance(i, Relation)]
        case Relation(("=",), (Tup(names), Tup(values))):
            if len(names) != len(values):
                return None
            pairs = list(zip(names, values, strict=True))
    if len(pairs) < 2 or not all(is_name(name) for name, _ in pairs):
        return None
    named = dict(pairs)
    return named if len(named) == len(pairs) else None


def elements(node: Node, config: MathConfig) -> list[Node]:
    """The values a collection stands for (``\\pm`` expanded, ``x = v`` read as v)."""
    if isinstance(node, _COLLECTIONS):
        assert isinstance(node, Items)
        return [value for item in node.items for value in elements(item, config)]
    if isinstance(node, PlusMinus):
        if node.left is None:
            return [node.right, Neg(node.right)]
        return [Add((node.left, node.right)), Add((node.left, Neg(node.right)))]
    value = value_of_equation(node, config)
    if value is not None and value is not node:
        return elements(value, config)
    return [node]


def solution(group: Node) -> Node:
    """One of several solutions, ``p=5, q=2``, as the named tuple ``(p, q) = (5, 2)`` (the parser
    reads ``p=5,q=2; p=7,q=2`` as a list of these)."""
    if not isinstance(group, List):
        return group
    pairs = [
        item.exprs
        for item in group.items
        if isinstance(item, Relation) and item.ops == ("=",) and isinstance(item.exprs[0], Sym)
    ]
    if len(pairs) != len(group.items) or len({left for left, _ in pairs}) != len(pairs):
        return group
    names, values = zip(*pairs, strict=True)
    return Relation(("=",), (Tup(names), Tup(values)))


MAX_SIGN_CHOICES = 4  # (\pm a, \pm b, \pm c, \pm d): 16 tuples at most


def signs_expanded(node: Node, config: MathConfig) -> Node:
    """With `MathConfig.expand_plus_minus`, a tuple holding ``\\pm`` entries as the tuples it
    stands for: ``(\\pm 1, 2, \\pm 3)`` is the four tuples of every choice of signs; with a
    ``\\mp`` among them, the signs go together (``(\\pm 1, \\mp 2)`` is ``(1, -2), (-1, 2)``). Also
    inside a list and on the right of ``(x, y) = ...``; any other node is returned as it is.

    Examples:
        >>> from verifiers.math._parser import parse
        >>> len(signs_expanded(parse(r"(\\pm 1, 2, \\pm 3)"), MathConfig()).items)
        4
    """
    if not config.expand_plus_minus:
        return node
    match node:
        case Add(terms) if any(isinstance(t, PlusMinus) and t.left is None for t in terms):
            return _leading_sign(terms)
        case Relation(("=",), (name, Add() as value)) if is_name(name):
            signed = signs_expanded(value, config)
            return node if signed is value else Relation(("=",), (name, signed))
        case List(items) if any(isinstance(i, Relation) and isinstance(i.exprs[-1], PlusMinus) for i in items):
            named = solution(node)  # x = \pm 1, y = 2: the named tuple (x, y) = (\pm 1, 2)
            return node if named is node else signs_expanded(named, config)
        case Tup(items) if any(isinstance(i, PlusMinus) for i in items):
            return List(tuple(Tup(t) for t in _sign_choices(items)))
        case List(items) | Or(items) | Set(items) if any(isinstance(i, Tup | Relation | Add) for i in items):
            expanded = [signs_expanded(i, config) for i in items]
            return type(node)(tuple(e for i in expanded for e in (i.items if isinstance(i, List) else (i,))))
        case Relation(("=",), (Tup() as names, Tup() as values)):
            choices = signs_expanded(values, config)
            if isinstance(choices, List):
                return List(tuple(Relation(("=",), (names, t)) for t in choices.items))
    return node


def _leading_sign(terms: tuple[Node, ...]) -> Node:
    """``\\pm \\frac{\\pi}{3} + 2k\\pi`` as ``2k\\pi \\pm \\frac{\\pi}{3}``: the sign of one term, two values."""
    k = next(k for k, t in enumerate(terms) if isinstance(t, PlusMinus) and t.left is None)
    signed = terms[k]
    assert isinstance(signed, PlusMinus)
    rest = terms[:k] + terms[k + 1 :]
    return PlusMinus(rest[0] if len(rest) == 1 else Add(rest), signed.right, signed.mp)


def _sign_choices(items: tuple[Node, ...]) -> list[tuple[Node, ...]]:
    signed = [k for k, i in enumerate(items) if isinstance(i, PlusMinus)]
    if len(signed) > MAX_SIGN_CHOICES:
        return [items]
    together = any(i.mp for i in items if isinstance(i, PlusMinus))
    choices = [(s,) * len(signed) for s in (1, -1)] if together else list(product((1, -1), repeat=len(signed)))
    out = []
    for signs in choices:
        row = list(items)
        for k, s in zip(signed, signs, strict=True):
            pm = items[k]
            assert isinstance(pm, PlusMinus)
            term = pm.right if s == 1 else Neg(pm.right)
            row[k] = term if pm.left is None else Add((pm.left, term))
        out.append(tuple(row))
    return out
