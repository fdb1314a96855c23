"""Bound parameters and their qualifiers.

A general solution names an integer parameter (``\\frac{\\pi}{4} + k\\pi``): the name is bound, so
an answer that renames it consistently (``\\frac{\\pi}{4} + j\\pi``) is the same answer, while
``2j\\pi`` or one family renamed alone is not. A qualifier after an answer (``k \\in \\mathbb{Z}``,
``where k is an integer``, ``for every real t``: a `Relation` ``in`` a `Domain`) says which names
are parameters and over what; it is read off the answer here and compared on its own.

Read by the comparison (`_compare`); nothing is compared here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import fields, replace
from itertools import permutations
from typing import TypeGuard

from verifiers.math._config import MathConfig
from verifiers.math._nodes import (
    NEG_OO,
    OO,
    Add,
    Const,
    Deg,
    Div,
    Domain,
    Interval,
    List,
    Mul,
    Neg,
    Node,
    Num,
    Or,
    Pow,
    Relation,
    Set,
    Sym,
    Text,
    substitute,
    walk,
)

__all__ = ["Match", "Qualifiers", "domains_differ", "renamings", "split_qualifiers", "with_parameters"]

Match = tuple[bool, str]
"""(equal, reason): what comparing two parsed answers finds (`_compare`)."""

Qualifiers = dict[str, str]
"""name -> domain (``Z``, ``N``, ``Z+``, ``R``...) that a qualifier gives it."""

# Letters that name an integer parameter in the general solutions models and datasets write.
PARAMETER_NAMES = frozenset("k n m j l t s r p q".split())
_UNRESTRICTED = frozenset({"Z", "R"})  # what an unqualified parameter (Z) or variable (R) ranges over
_PI = Const("pi")


_HOLDERS = (List, Or, Mul, Set)  # where a qualifier stands: an item after the answer, a bracket beside it


def _bound(node: Node) -> TypeGuard[Relation]:
    """``n \\ge 1`` on a parameter letter, in a bracket beside the answer (``2^n - 1 \\ (n \\ge 1)``)."""
    return (
        isinstance(node, Relation)
        and len(node.ops) == 1
        and node.ops[0] in ("<", "<=", ">", ">=")
        and isinstance(node.exprs[0], Sym)
        and node.exprs[0].name in PARAMETER_NAMES
        and isinstance(node.exprs[1], Num)
    )


def _is_qualifier(node: Node) -> TypeGuard[Relation]:
    return isinstance(node, Relation) and node.ops == ("in",) and isinstance(node.exprs[1], Domain)


def split_qualifiers(node: Node) -> tuple[Node, Qualifiers]:
    """``node`` without its qualifiers (items of a list, factors of a product), and what they say.

    Examples:
        >>> from verifiers.math._parser import parse
        >>> split_qualifiers(parse(r"x = k\\pi, k \\in \\mathbb{Z}"))[1]
        {'k': 'Z'}
    """
    found: Qualifiers = {}
    if isinstance(node, Num | Sym | Const | Text):  # most answers: nothing to read off
        return node, found
    if _is_qualifier(node) and node.exprs[1] == Domain("R"):  # x \in \mathbb{R} alone: every real
        return Interval(False, NEG_OO, OO, False), found
    if not any(_is_qualifier(n) or _bound(n) for n in walk(node)):
        return node, found
    return _drop(node, found), found


def _drop(node: Node, found: Qualifiers) -> Node:
    changes: dict[str, object] = {}
    for field in fields(node):
        value = getattr(node, field.name)
        if isinstance(value, Node):
            changes[field.name] = _drop(value, found)
        elif isinstance(value, tuple) and value and isinstance(value[0], Node):
            kept = []
            for item in value:
                if isinstance(node, _HOLDERS) and _is_qualifier(item):
                    name, domain = item.exprs
                    assert isinstance(name, Sym) and isinstance(domain, Domain)
                    found[name.name] = domain.name
                elif isinstance(node, Mul) and _bound(item):
                    name, value = item.exprs
                    assert isinstance(name, Sym) and isinstance(value, Num)
                    found[name.name] = f"{item.ops[0]}{value.value}"
                else:
                    kept.append(_drop(item, found))
            if isinstance(node, _HOLDERS) and not isinstance(node, Set) and len(kept) == 1:
                return kept[0]  # "x = k\pi, k \in \mathbb{Z}": the answer without its qualifier
            changes[field.name] = tuple(kept)
    return replace(node, **changes) if changes else node


def _symbols(node: Node) -> set[str]:
    return {n.name for n in walk(node) if isinstance(n, Sym)}


def _has_pi(node: Node) -> bool:
    if node == _PI or isinstance(node, Deg):  # k\pi, or k \cdot 180^\circ
        return True
    if isinstance(node, Div):
        return _has_pi(node.num)
    return isinstance(node, Mul) and any(_has_pi(f) for f in node.factors)


def _periodic_uses(node: Node, name: str, under_pi: bool = False) -> bool:
    """Every use of ``name`` in ``node`` is a linear term of a multiple of pi (``k\\pi``,
    ``\\frac{(2k+1)\\pi}{4}``) or the exponent of -1 (``(-1)^k``): where an integer parameter of a
    general solution stands (never ``\\pi r^2``)."""
    if isinstance(node, Sym):
        return node.name != name or under_pi
    if isinstance(node, Pow):
        return (_minus_one(node.base) or name not in _symbols(node)) and _periodic_uses(node.base, name)
    if node.scalar and not isinstance(node, Add | Mul | Neg | Div):  # inside sin, a root, ...
        return name not in _symbols(node)
    if isinstance(node, Div) and name in _symbols(node.den):
        return False
    here = under_pi or (isinstance(node, Mul) and _has_pi(node))
    return all(_periodic_uses(child, name, here) for child in _children(node))


def _shifted(node: Node, name: str) -> bool:
    """A base value plus multiples of the parameter (``\\frac{\\pi}{6} + k\\pi``), a sign
    ``(-1)^k``, or a variable solved for (``x = k\\pi``): the shape of a general solution, which a
    lone ``2\\pi r`` does not have."""
    return any(
        (isinstance(n, Add) and len({name in _symbols(t) for t in n.terms}) == 2)
        or (isinstance(n, Pow) and _minus_one(n.base) and name in _symbols(n.exp))
        or (isinstance(n, Relation) and n.ops == ("=",) and isinstance(n.exprs[0], Sym) and n.exprs[0].name != name)
        for n in walk(node)
    )


def _minus_one(node: Node) -> bool:
    return isinstance(node, Neg) and isinstance(node.arg, Num) and node.arg.value == 1


def _children(node: Node) -> Iterator[Node]:
    for field in fields(node):
        value = getattr(node, field.name)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Node):
                    yield item
                elif isinstance(item, tuple):
                    yield from (c for c in item if isinstance(c, Node))


def _parameter(node: Node, qualifiers: Qualifiers, name: str, qualified: bool) -> bool:
    """Whether ``name`` is an integer parameter of ``node``: qualified as an integer, or a
    conventional parameter letter used only where a general solution's parameter stands, in the
    shape of one unless the other answer ``qualified`` its own."""
    domain = qualifiers.get(name)
    if domain is not None:
        return domain[0] in "ZN"
    return name in PARAMETER_NAMES and _periodic_uses(node, name) and (qualified or _shifted(node, name))


def _integers(qualifiers: Qualifiers) -> bool:
    return any(domain[0] in "ZN" for domain in qualifiers.values())


def renamings(gold: Node, gold_q: Qualifiers, pred: Node, pred_q: Qualifiers) -> Iterator[dict[str, Node]]:
    """The consistent renamings of the prediction's integer parameters onto the gold's (each a
    bijection of the names only one side uses); none when such names are not parameters."""
    if isinstance(gold, Num | Text) or isinstance(pred, Num | Text):
        return
    gold_names = _symbols(gold) | set(gold_q)
    pred_names = _symbols(pred) | set(pred_q)
    only_gold = sorted(n for n in gold_names - pred_names if _parameter(gold, gold_q, n, _integers(pred_q)))
    only_pred = sorted(n for n in pred_names - gold_names if _parameter(pred, pred_q, n, _integers(gold_q)))
    if not 1 <= len(only_gold) == len(only_pred) <= 3:
        return
    for order in permutations(only_gold):
        yield {p: Sym(g) for p, g in zip(only_pred, order, strict=True)}


def domains_differ(gold_q: Qualifiers, pred_q: Qualifiers, renamed: dict[str, Node]) -> str | None:
    """The name whose qualifiers restrict it differently: both given and different
    (``k \\in \\mathbb{N}`` against ``k \\in \\mathbb{Z}``), or a restriction the prediction adds
    to a gold that has none (the gold's name ranges over the integers, a parameter, or the
    reals, a variable); None when they agree. A prediction that leaves out the gold's qualifier
    (``a_n = 2n + 1`` for ``a_n = 2n + 1 \\ (n \\in \\mathbb{N}^*)``) restricts nothing."""
    pred_named = {}
    for name, domain in pred_q.items():
        target = renamed.get(name, Sym(name))
        pred_named[target.name if isinstance(target, Sym) else name] = domain
    for name in set(gold_q) | set(pred_named):
        g, p = gold_q.get(name), pred_named.get(name)
        if p is not None and g != p and not (g is None and p in _UNRESTRICTED):
            return name
    return None


def with_parameters(gold: Node, pred: Node, rules: Callable[[Node, Node], Match], config: MathConfig) -> Match:
    """``rules`` on the answers without their qualifiers, which must agree; with
    `MathConfig.rename_parameters`, again under each consistent renaming of the prediction's
    integer parameters onto the gold's when the names alone differ."""
    gold, gold_q = split_qualifiers(gold)
    pred, pred_q = split_qualifiers(pred)
    match = rules(gold, pred)
    differ = domains_differ(gold_q, pred_q, {}) if gold_q or pred_q else None
    if match[0] and differ is not None:
        return False, f"the qualifiers restrict {differ} differently"
    if match[0] or not config.rename_parameters:
        return match
    for renamed in renamings(gold, gold_q, pred, pred_q):
        differ = domains_differ(gold_q, pred_q, renamed)
        if differ is not None:
            match = False, f"the qualifiers restrict {differ} differently"
            continue
        other = rules(gold, substitute(pred, renamed))
        if other[0]:
            names = ", ".join(f"{p} as {g.name}" for p, g in renamed.items() if isinstance(g, Sym))
            return True, f"{other[1]} (rename_parameters: the integer parameter {names})"
    return match
