"""LinearEquations: solve a linear equation in one unknown, or a 2x2 linear system."""

from __future__ import annotations

import random
from typing import Any

from grpo_envs._env import ReasoningEnv
from grpo_envs._task import Task
from grpo_envs.errors import EnvConfigError

__all__ = ["LinearEquations"]


class LinearEquations(ReasoningEnv):
    """Solve ``a x + b = c x + d`` (or a system in ``x, y``); built and solved with sympy.

    ## Task
    Coefficients are drawn around a chosen solution (an integer, or a fraction with
    ``fractions=True``); sympy writes the equations in LaTeX and checks the solution is unique.

    ## Prompt format
    "Solve for x: $3 x + 5 = x - 7$" (or "Solve the system: ..." for ``unknowns=2``).

    ## Answer format
    ``\\boxed{}``: the value of x (``x = -6`` or ``-6``), or the ordered pair ``(x, y)``.

    ## Reward
    1.0 when `verifiers.math` judges the answer equal to the solution, else 0.0.

    ## Episode end
    One step (terminated).

    ## Arguments
    ``unknowns`` (1 or 2, default 1), ``max_value`` (default 12), ``fractions`` (default False).

    ## Version history
    v0: initial version.

    Examples:
        >>> env = LinearEquations(unknowns=2)
        >>> env.reset(seed=5)[0].startswith("Solve the system")
        True
    """

    levels = ({"unknowns": 1, "max_value": 6}, {"unknowns": 1, "max_value": 12}, {"unknowns": 2, "max_value": 12})

    def __init__(self, *, unknowns: int = 1, max_value: int = 12, fractions: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        if unknowns not in (1, 2):
            raise EnvConfigError("LinearEquations", "unknowns", "1 or 2", unknowns)
        self.unknowns, self.max_value, self.fractions = unknowns, max_value, fractions

    def _value(self, rng: random.Random) -> Any:
        import sympy

        n = rng.randint(-self.max_value, self.max_value)
        if self.fractions and rng.random() < 0.5:
            return sympy.Rational(n, rng.randint(2, 6))
        return sympy.Integer(n)

    def _coef(self, rng: random.Random) -> Any:
        import sympy

        return sympy.Integer(rng.choice([k for k in range(-self.max_value, self.max_value + 1) if k]))

    def make_task(self, rng: random.Random) -> Task:
        import sympy

        x, y = sympy.symbols("x y")
        if self.unknowns == 1:
            x0 = self._value(rng)
            a, c = self._coef(rng), self._coef(rng)
            while c == a:
                c = self._coef(rng)
            b = self._coef(rng)
            d = (a - c) * x0 + b
            equation = sympy.Eq(a * x + b, c * x + d, evaluate=False)
            assert sympy.solve(equation, x) == [x0]
            prompt = f"Solve for $x$: ${sympy.latex(equation)}$"
            answer = sympy.latex(x0)
        else:
            x0, y0 = self._value(rng), self._value(rng)
            while True:
                a, b, c, d = (self._coef(rng) for _ in range(4))
                if a * d - b * c != 0:
                    break
            eq1 = sympy.Eq(a * x + b * y, a * x0 + b * y0)
            eq2 = sympy.Eq(c * x + d * y, c * x0 + d * y0)
            assert sympy.solve([eq1, eq2], [x, y]) == {x: x0, y: y0}
            prompt = (
                f"Solve the system for $(x, y)$: ${sympy.latex(eq1)}$ and ${sympy.latex(eq2)}$. "
                "Answer with the ordered pair $(x, y)$."
            )
            answer = f"({sympy.latex(x0)}, {sympy.latex(y0)})"
        return Task(
            task_id=f"linear-{self.split}-{rng.getrandbits(48):012x}",
            prompt=prompt,
            answer=answer,
            metadata={"unknowns": self.unknowns},
        )
