"""The same answer in another notation: rules that read one kind of answer as another when the
policy allows it, each behind its own `MathConfig` switch and named in the verdict's reason.

- a gold ratio of two terms is the number it stands for, the quotient of its terms
  (``7:2`` is ``3.5`` and ``\\frac{7}{2}``, never ``\\frac{2}{7}``): `ratio_as_quotient`.

- a percent is its value over 100 (``37.5\\%`` is ``\\frac{3}{8}``): `percent_as_fraction`, decided
  in the scalar comparison and named here (`noted`).

Read by the judge (`_judge`), which passes its scalar comparison.
"""

from __future__ import annotations

from collections.abc import Callable

from verifiers.math._config import MathConfig
from verifiers.math._nodes import Div, Node, Pct, Ratio, Relation
from verifiers.math._numeric import rational

__all__ = ["noted", "quotient"]

Verdict = tuple[bool, str]


def quotient(eq: Callable[[Node, Node], bool], gold: Node, pred: Node, config: MathConfig) -> Verdict:
    """A gold ratio of two terms against one value: equal when the value is the quotient of the
    terms in their order (with `MathConfig.ratio_as_quotient`); any other pairing of a ratio
    differs (a gold number asks for a number: ``1:2`` does not answer ``\\frac{1}{2}``)."""
    if not (config.ratio_as_quotient and isinstance(gold, Ratio) and len(gold.items) == 2 and pred.scalar):
        return False, f"a {gold.noun} and a {pred.noun} differ"
    same = eq(Div(gold.items[0], gold.items[1]), pred)
    why = "is" if same else "is not"
    return same, f"the value {why} the quotient of the ratio's terms" + (" (ratio_as_quotient)" if same else "")


def noted(gold: Node, pred: Node, verdict: Verdict, config: MathConfig) -> Verdict:
    """``verdict`` with `MathConfig.percent_as_fraction` named when it decided: a percent on one
    side only, whose number is not the other side's (``37.5\\%`` and ``\\frac{3}{8}``)."""
    if not (verdict[0] and config.percent_as_fraction):
        return verdict
    g, p = (n.exprs[-1] if isinstance(n, Relation) and n.is_equation else n for n in (gold, pred))
    if isinstance(g, Pct) == isinstance(p, Pct):
        return verdict
    percent, other = (g, p) if isinstance(g, Pct) else (p, g)
    assert isinstance(percent, Pct)
    if rational(percent.arg) is not None and rational(percent.arg) == rational(other):
        return verdict
    return verdict[0], verdict[1] + " (percent_as_fraction: a percent is its value over 100)"
