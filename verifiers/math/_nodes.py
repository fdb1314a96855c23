"""The parse tree: small frozen node classes that `_parser` builds and `_compare` reads.

Nodes compare by class and fields (``Neg(x) != Abs(x)``), are hashable, and hold nothing but
numbers, names and other nodes; nothing here evaluates anything.

Examples:
    >>> Div(Num(Fraction(1)), Num(Fraction(2))).num
    Num(value=Fraction(1, 1), places=None)
    >>> Tup((Num(Fraction(1)),)).noun, Num(Fraction(1)).scalar
    ('tuple', True)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from typing import ClassVar

__all__ = [
    "NEG_OO",
    "OO",
    "Abs",
    "Add",
    "And",
    "Binom",
    "Const",
    "Def",
    "Deg",
    "Div",
    "Domain",
    "Fact",
    "Fn",
    "InBase",
    "Interval",
    "Items",
    "List",
    "Log",
    "Matrix",
    "Mul",
    "Neg",
    "Node",
    "Num",
    "Or",
    "Pct",
    "PlusMinus",
    "Pow",
    "Ratio",
    "Relation",
    "Root",
    "Set",
    "Sym",
    "Text",
    "Tup",
    "Unary",
    "Union",
    "children",
    "num",
    "product_of",
    "substitute",
    "sum_of",
    "transposed",
    "walk",
]


@dataclass(frozen=True, slots=True)
class Node:
    """Any node. ``scalar``: one value (an expression), not a structure of values; ``noun``:
    how verdict reasons name the kind."""

    scalar: ClassVar[bool] = True
    noun: ClassVar[str] = "value"


# -- values ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Num(Node):
    """A number as written; ``places`` are its decimal places (None: exact, ``3`` or ``1/3``)."""

    value: Fraction
    places: int | None = None


def num(value: int | Fraction, places: int | None = None) -> Num:
    """An exact number node."""
    return Num(Fraction(value), places)


@dataclass(frozen=True, slots=True)
class Sym(Node):
    """A variable: a letter, a Greek name, with a subscript (``x``, ``alpha``, ``a_1``)."""

    name: str


@dataclass(frozen=True, slots=True)
class Const(Node):
    """``pi``, ``e``, ``i`` or ``oo`` (infinity)."""

    name: str


@dataclass(frozen=True, slots=True)
class Unary(Node):
    """An operation on one expression (the subclasses say which)."""

    arg: Node


@dataclass(frozen=True, slots=True)
class Neg(Unary):
    """``-a``."""


@dataclass(frozen=True, slots=True)
class Fact(Unary):
    """``a!``."""


@dataclass(frozen=True, slots=True)
class Abs(Unary):
    """``|a|``."""


@dataclass(frozen=True, slots=True)
class Pct(Unary):
    """``a%``."""


@dataclass(frozen=True, slots=True)
class Deg(Unary):
    """``a°``."""


@dataclass(frozen=True, slots=True)
class Add(Node):
    terms: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Mul(Node):
    factors: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Div(Node):
    num: Node
    den: Node


@dataclass(frozen=True, slots=True)
class Pow(Node):
    base: Node
    exp: Node


@dataclass(frozen=True, slots=True)
class Fn(Node):
    """A named function of one argument (``sin``, ``ln``, ``floor``, ...)."""

    name: str
    arg: Node


@dataclass(frozen=True, slots=True)
class Log(Node):
    """``\\log_{base} arg``."""

    base: Node
    arg: Node


@dataclass(frozen=True, slots=True)
class Root(Node):
    """``\\sqrt[index]{arg}``."""

    arg: Node
    index: Node


@dataclass(frozen=True, slots=True)
class Binom(Node):
    n: Node
    k: Node


@dataclass(frozen=True, slots=True)
class InBase(Node):
    """``1011_2``: digits in another base (the digits are the answer)."""

    digits: str
    base: int


# -- structures -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PlusMinus(Node):
    """``a \\pm b`` (``left`` None for a leading ``\\pm b``): two values, ``a + b`` and ``a - b``;
    ``a \\mp b`` is ``right`` ``-b`` with ``mp`` set (beside a ``\\pm``, its sign is the opposite)."""

    scalar: ClassVar[bool] = False
    noun: ClassVar[str] = "list"
    left: Node | None
    right: Node
    mp: bool = False


@dataclass(frozen=True, slots=True)
class Items(Node):
    """A sequence of nodes (the subclasses say what kind)."""

    scalar: ClassVar[bool] = False
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Tup(Items):
    """``(a, b)`` or ``[a, b, c]``: ordered."""

    noun: ClassVar[str] = "tuple"


@dataclass(frozen=True, slots=True)
class Set(Items):
    """``\\{a, b\\}``: unordered, repeats are one."""

    noun: ClassVar[str] = "set"


@dataclass(frozen=True, slots=True)
class List(Items):
    """``a, b`` (or several solutions ``p=5,q=2; p=7,q=2``): a collection."""

    noun: ClassVar[str] = "list"


@dataclass(frozen=True, slots=True)
class Or(Items):
    """``a or b``: a collection."""

    noun: ClassVar[str] = "list"


@dataclass(frozen=True, slots=True)
class And(Or):
    """``a and b``: a collection of values, and of conditions their intersection
    (``x > 1 and x < 4`` is ``(1, 4)``)."""


@dataclass(frozen=True, slots=True)
class Union(Items):
    """``A \\cup B``."""

    noun: ClassVar[str] = "union of intervals"


@dataclass(frozen=True, slots=True)
class Ratio(Items):
    """``a : b (: c ...)``."""

    noun: ClassVar[str] = "ratio"


@dataclass(frozen=True, slots=True)
class Interval(Node):
    scalar: ClassVar[bool] = False
    noun: ClassVar[str] = "interval"
    left_closed: bool
    low: Node
    high: Node
    right_closed: bool


@dataclass(frozen=True, slots=True)
class Relation(Node):
    """A chain ``a op b op c`` (ops: ``= < <= > >= != ~ perp parallel``)."""

    scalar: ClassVar[bool] = False
    noun: ClassVar[str] = "relation"
    ops: tuple[str, ...]
    exprs: tuple[Node, ...]

    @property
    def is_equation(self) -> bool:
        """Every comparison is ``=``."""
        return set(self.ops) == {"="}


@dataclass(frozen=True, slots=True)
class Matrix(Node):
    scalar: ClassVar[bool] = False
    noun: ClassVar[str] = "matrix"
    rows: tuple[tuple[Node, ...], ...]


@dataclass(frozen=True, slots=True)
class Def(Node):
    """A function definition ``f(x) = body`` (``name`` ``f``, ``args`` ``("x",)``): the
    arguments are bound names, so ``f(t) = t^2`` is the same function."""

    scalar: ClassVar[bool] = False
    noun: ClassVar[str] = "function definition"
    name: str
    args: tuple[str, ...]
    body: Node


@dataclass(frozen=True, slots=True)
class Domain(Node):
    """A set of numbers named by a letter: ``\\mathbb{Z}`` (``Z``), ``\\mathbb{N}``, ``\\mathbb{Z}^+`` (``Z+``)."""

    scalar: ClassVar[bool] = False
    noun: ClassVar[str] = "set of numbers"
    name: str


@dataclass(frozen=True, slots=True)
class Text(Node):
    """An answer in words (``yes``, ``irrational``), compared as normalized text."""

    scalar: ClassVar[bool] = False
    noun: ClassVar[str] = "text"
    text: str


OO = Const("oo")
NEG_OO = Neg(OO)


def children(node: Node) -> Iterator[Node]:
    """The nodes directly inside ``node`` (matrix entries included)."""
    for field in fields(node):
        value = getattr(node, field.name)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Node):
                    yield item
                elif isinstance(item, tuple):  # a matrix row
                    yield from (cell for cell in item if isinstance(cell, Node))


def walk(node: Node) -> Iterator[Node]:
    """``node`` and every node inside it, depth first.

    Examples:
        >>> [type(n).__name__ for n in walk(Neg(Sym("x")))]
        ['Neg', 'Sym']
    """
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(children(current))))


def substitute(node: Node, names: dict[str, Node]) -> Node:
    """``node`` with each symbol named in ``names`` replaced (a function's argument renamed).

    Examples:
        >>> substitute(Neg(Sym("t")), {"t": Sym("x")})
        Neg(arg=Sym(name='x'))
    """
    if isinstance(node, Sym):
        return names.get(node.name, node)
    changes: dict[str, object] = {}
    for field in fields(node):
        value = getattr(node, field.name)
        if isinstance(value, Node):
            changes[field.name] = substitute(value, names)
        elif isinstance(value, tuple) and value and not isinstance(value[0], str):
            changes[field.name] = tuple(
                substitute(v, names) if isinstance(v, Node) else tuple(substitute(c, names) for c in v) for v in value
            )
    return replace(node, **changes) if changes else node


def sum_of(terms: list[Node]) -> Node:
    """One term stands alone; more are their `Add`."""
    return terms[0] if len(terms) == 1 else Add(tuple(terms))


def product_of(factors: list[Node]) -> Node:
    """One factor stands alone; more are their `Mul`."""
    return factors[0] if len(factors) == 1 else Mul(tuple(factors))


def transposed(node: Matrix | Tup) -> Matrix | Tup:
    """A matrix with rows and columns swapped (a tuple, a vector of no orientation, stays).

    Examples:
        >>> transposed(Matrix(((num(1), num(2)),))).rows
        ((Num(value=Fraction(1, 1), places=None),), (Num(value=Fraction(2, 1), places=None),))
    """
    if isinstance(node, Tup):
        return node
    return Matrix(tuple(zip(*node.rows, strict=True)))
