"""The same answer in another notation: rules that read one kind of answer as another when the
policy allows it, each behind its own `MathConfig` switch and named in the match's reason.

- a gold ratio of two terms is the number it stands for, the quotient of its terms
  (``7:2`` is ``3.5`` and ``\\frac{7}{2}``, never ``\\frac{2}{7}``): `ratio_as_quotient`.

- words and marks for values: "infinitely many solutions" is ``\\infty`` (`infinity_words`);
  "no solution" is ``\\emptyset`` (`empty_set_words`);
  enumerated choice marks ``①④`` are the choices 1 and 4, in any order (`choice_marks`); an
  order written as a chain ``q < p < s < r`` is the list ``q, p, s, r`` in that order
  (`chain_as_order`): `in_notation`.
- a percent is its value over 100 (``37.5\\%`` is ``\\frac{3}{8}``): `percent_as_fraction`, decided
  in the scalar comparison and named here (`noted`).

Read by the comparison (`_compare`), which passes its scalar comparison.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from verifiers.math._config import MathConfig
from verifiers.math._nodes import OO, Div, Domain, List, Node, Pct, Ratio, Relation, Set, Text, Tup, num
from verifiers.math._numeric import rational
from verifiers.math._params import Match
from verifiers.math._shapes import is_quantity

__all__ = ["MARKS", "in_notation", "noted", "quotient"]


def quotient(eq: Callable[[Node, Node], bool], gold: Node, pred: Node, config: MathConfig) -> Match:
    """A gold ratio of two terms against one value: equal when the value is the quotient of the
    terms in their order (with `MathConfig.ratio_as_quotient`); any other pairing of a ratio
    differs (a gold number asks for a number: ``1:2`` does not answer ``\\frac{1}{2}``)."""
    if not (config.ratio_as_quotient and isinstance(gold, Ratio) and len(gold.items) == 2 and pred.scalar):
        return False, f"a {gold.noun} and a {pred.noun} differ"
    same = eq(Div(gold.items[0], gold.items[1]), pred)
    why = "is" if same else "is not"
    return same, f"the value {why} the quotient of the ratio's terms" + (" (ratio_as_quotient)" if same else "")


def noted(gold: Node, pred: Node, match: Match, config: MathConfig, note: str = "") -> Match:
    """``match`` with the switches that decided it named: ``note`` (`in_notation`'s), and
    `MathConfig.percent_as_fraction` for a percent on one side only whose number is not the
    other side's (``37.5\\%`` and ``\\frac{3}{8}``)."""
    if match[0] and note:
        match = match[0], f"{match[1]} ({note})"
    if not (match[0] and config.percent_as_fraction):
        return match
    g, p = (n.exprs[-1] if isinstance(n, Relation) and n.is_equation else n for n in (gold, pred))
    if isinstance(g, Pct) == isinstance(p, Pct):
        return match
    percent, other = (g, p) if isinstance(g, Pct) else (p, g)
    assert isinstance(percent, Pct)
    if rational(percent.arg) is not None and rational(percent.arg) == rational(other):
        return match
    return match[0], match[1] + " (percent_as_fraction: a percent is its value over 100)"


_CIRCLED = {chr(0x2460 + k): k + 1 for k in range(20)}  # ① .. ⑳
MARKS = re.compile(r"[\u2460-\u2473](?:\s*(?:,|、|;|and)?\s*[\u2460-\u2473])*")
"""A run of enumerated choice marks (``①④``, ``①, ③ and ④``), as written."""
_INFINITELY_MANY = re.compile(
    r"(?:there\s+(?:are|is)\s+)?(?:infinitely\s+many|an\s+infinite\s+number\s+of|infinite(?:ly)?)"
    r"(?:\s+(?:solutions?|values?|roots?|such\s+\w+|ones|pairs|triples|numbers|integers|points|ways))?"
)


EMPTY = Set(())
_NONE = re.compile(
    r"(?:there\s+(?:are|is)\s+)?(?:no\s+(?:real\s+|such\s+|integer\s+)?(?:solutions?|roots?|values?|such\s+\w+)"
    r"|none|no\s+solution\s+exists|(?:the\s+)?(?:solution\s+set\s+is\s+)?empty(?:\s+set)?|does\s+not\s+exist)"
)


def in_notation(gold: Node, pred: Node, config: MathConfig) -> tuple[Node, Node, str]:
    """``gold`` and ``pred`` with words and marks read as the values they write, and the note
    naming each switch that read one (empty when none did)."""
    notes: list[str] = []
    if isinstance(gold, Domain) or isinstance(pred, Domain):  # \mathbb{Z} against x \in \mathbb{Z}: the names
        gold, pred = _domain_name(gold), _domain_name(pred)
    gold, pred = _infinity(gold, pred, config, notes)
    gold, pred = _marks(gold, config, notes), _marks(pred, config, notes)
    if config.empty_set_words and EMPTY in (gold, pred) and any(_says_none(n) for n in (gold, pred)):
        gold, pred = (EMPTY if _says_none(gold) else gold), (EMPTY if _says_none(pred) else pred)
        notes.append("empty_set_words: no solution is the empty set")
    if config.chain_as_order and isinstance(pred, List | Tup) and (chain := _order(gold)) is not None:
        gold, pred = chain, Tup(pred.items)
        notes.append("chain_as_order: the chain is the list in its order")
    elif config.chain_as_order and isinstance(gold, List | Tup) and (chain := _order(pred)) is not None:
        gold, pred = Tup(gold.items), chain
        notes.append("chain_as_order: the chain is the list in its order")
    return gold, pred, "; ".join(dict.fromkeys(notes))


def _infinity(gold: Node, pred: Node, config: MathConfig, notes: list[str]) -> tuple[Node, Node]:
    """ "infinitely many solutions" against ``\\infty`` (either side) is ``\\infty``."""
    words = [isinstance(n, Text) and _INFINITELY_MANY.fullmatch(n.text) is not None for n in (gold, pred)]
    if not config.infinity_words or not any(words) or not (all(words) or OO in (gold, pred)):
        return gold, pred
    notes.append("infinity_words: infinitely many is \\infty")
    return (OO if words[0] else gold), (OO if words[1] else pred)


def _domain_name(node: Node) -> Node:
    """A set of numbers (``\\mathbb{Z}``, or ``x \\in \\mathbb{Z}`` alone) as its name, compared as text."""
    if isinstance(node, Relation) and node.ops == ("in",) and isinstance(node.exprs[1], Domain):
        node = node.exprs[1]
    return Text(f"mathbb {node.name}") if isinstance(node, Domain) else node


def _says_none(node: Node) -> bool:
    return isinstance(node, Text) and _NONE.fullmatch(node.text) is not None


def _marks(node: Node, config: MathConfig, notes: list[str]) -> Node:
    """``①④`` (a `Text` of choice marks) as the set of the choices it marks."""
    if not (config.choice_marks and isinstance(node, Text) and MARKS.fullmatch(node.text)):
        return node
    notes.append("choice_marks: the marked choices")
    return Set(tuple(num(_CIRCLED[c]) for c in node.text if c in _CIRCLED))


def _order(node: Node) -> Tup | None:
    """A strict chain of names in one direction (``q < p < s < r``) as the tuple of its terms
    in the order written; None for anything else (a chain of numbers states a fact)."""
    if not isinstance(node, Relation) or len(node.exprs) < 3 or len(set(node.ops)) != 1:
        return None
    if node.ops[0] not in ("<", ">") or not all(is_quantity(e) for e in node.exprs):
        return None
    return Tup(node.exprs)
