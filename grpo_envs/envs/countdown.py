"""Countdown: combine the given numbers, each exactly once, to reach the target."""

from __future__ import annotations

import random
import re
from collections import Counter
from fractions import Fraction
from typing import Any

from grpo_envs._env import ReasoningEnv
from grpo_envs._formats import ANSWER_TAGS
from grpo_envs._task import Task
from grpo_envs._verifier import Verifier
from grpo_envs.errors import EnvConfigError
from verifiers import VerifyResult

__all__ = ["Countdown", "check_countdown"]

_TOKEN = re.compile(r"\s*(?:(\d+)|([-+*/×÷()]))")
MAX_EXPRESSION = 200


class _Bad(ValueError):
    pass


def _evaluate(text: str) -> tuple[Fraction, list[int]]:
    """Parse and evaluate ``+ - * / ( )`` over integers (our own parser; nothing is eval'd): the
    value, and the numbers used in order."""
    parser = _Parser(_tokens(text.strip()))
    value = parser.expr(0)
    if parser.k != len(parser.tokens):
        raise _Bad(f"unexpected {parser.peek()!r}")
    return value, parser.numbers


def _tokens(text: str) -> list[tuple[str, str]]:
    """``text`` as ``("num", "12")`` and ``("op", "+")`` tokens; anything else is `_Bad`."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise _Bad(f"unexpected {text[pos : pos + 10]!r}")
        tokens.append(("num", m.group(1)) if m.group(1) else ("op", m.group(2)))
        pos = m.end()
    return tokens


class _Parser:
    """Recursive descent with exact fractions: ``expr = term (("+" | "-") term)*``,
    ``term = atom (("*" | "/") atom)*``, ``atom = number | "(" expr ")"``; it records each number it reads."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens, self.k = tokens, 0
        self.numbers: list[int] = []

    def peek(self) -> str | None:
        return self.tokens[self.k][1] if self.k < len(self.tokens) else None

    def atom(self, depth: int) -> Fraction:
        if depth > 50:
            raise _Bad("nested too deeply")
        if self.k < len(self.tokens) and self.tokens[self.k][0] == "num":
            number = int(self.tokens[self.k][1])
            self.numbers.append(number)
            self.k += 1
            return Fraction(number)
        if self.peek() == "(":
            self.k += 1
            value = self.expr(depth + 1)
            if self.peek() != ")":
                raise _Bad("unbalanced parentheses")
            self.k += 1
            return value
        raise _Bad(f"expected a number, got {self.peek()!r}")

    def term(self, depth: int) -> Fraction:
        value = self.atom(depth)
        while self.peek() in ("*", "/", "×", "÷"):
            op = self.tokens[self.k][1]
            self.k += 1
            right = self.atom(depth)
            if op in ("/", "÷"):
                if right == 0:
                    raise _Bad("division by zero")
                value /= right
            else:
                value *= right
        return value

    def expr(self, depth: int) -> Fraction:
        value = self.term(depth)
        while self.peek() in ("+", "-"):
            op = self.tokens[self.k][1]
            self.k += 1
            right = self.term(depth)
            value = value + right if op == "+" else value - right
        return value


def check_countdown(reference: Any, answer: str) -> VerifyResult:
    """Judge a Countdown expression: each given number exactly once, value equal to the target."""
    given, target = list(reference["numbers"]), int(reference["target"])
    text = answer.split("=")[0] if answer.count("=") == 1 else answer
    text = text.replace("\\times", "*").replace("\\div", "/").replace("$", "").strip()
    if not text:
        return VerifyResult.judged("no_answer", "No expression was given.")
    if len(text) > MAX_EXPRESSION:
        return VerifyResult.judged("unparseable", "The expression is too long.", extracted=text[:80])
    try:
        value, used = _evaluate(text)
    except _Bad as exc:
        return VerifyResult.judged("unparseable", f"The expression does not parse: {exc}.", extracted=text)
    if Counter(used) != Counter(given):
        return VerifyResult.judged(
            "incorrect",
            f"The expression uses {sorted(used)}, not each of {sorted(given)} once.",
            extracted=text,
        )
    if value != target:
        return VerifyResult.judged("incorrect", f"The expression equals {value}, not {target}.", extracted=text)
    return VerifyResult.judged("correct", f"The expression equals {target}.", extracted=text)


class Countdown(ReasoningEnv):
    """Reach the target with + - * / and parentheses, using each given number exactly once.

    ## Task
    ``count`` numbers in ``[1, max_value]`` and a positive integer target that some
    expression over all of them reaches (built first, so every task is solvable).

    ## Prompt format
    "Using the numbers [3, 7, 25, 50] exactly once each, write an expression equal to 172."

    ## Answer format
    ``<answer>(50 - 25) * 7 - 3</answer>`` by default; a trailing ``= 172`` is allowed.

    ## Reward
    1.0 when the expression (parsed by our own parser, never ``eval``) uses each number once
    and equals the target, else 0.0.

    ## Episode end
    One step (terminated).

    ## Arguments
    ``count`` (3-6, default 4), ``max_value`` (default 50).

    ## Version history
    v0: initial version.

    Examples:
        >>> env = Countdown()
        >>> env.reset(seed=2)[0].startswith("Using the numbers")
        True
        >>> check_countdown({"numbers": [3, 7, 25, 50], "target": 172}, "(50 - 25) * 7 - 3 = 172").status
        'correct'
    """

    default_format = ANSWER_TAGS

    levels = tuple({"count": n} for n in (3, 4, 5, 6))  # numbers to combine

    def __init__(self, *, count: int = 4, max_value: int = 50, **kwargs: Any):
        kwargs.setdefault("verifier", Verifier.from_fn("countdown", check_countdown))
        super().__init__(**kwargs)
        if not 3 <= count <= 6:
            raise EnvConfigError("Countdown", "count", "an int in [3, 6]", count)
        self.count, self.max_value = count, max_value

    def make_task(self, rng: random.Random) -> Task:
        while True:
            numbers = [rng.randint(1, self.max_value) for _ in range(self.count)]
            order = numbers[:]
            rng.shuffle(order)
            text, value = str(order[0]), Fraction(order[0])
            for n in order[1:]:
                op = rng.choice("+-*/")
                if op == "/" and (value % n != 0):
                    op = "+"
                text = f"({text} {op} {n})"
                value = {"+": value + n, "-": value - n, "*": value * n, "/": value / n}[op]
            if value.denominator == 1 and 0 < value <= 10_000:
                break
        target = int(value)
        solution = text[1:-1] if text.startswith("(") else text
        return Task(
            task_id=f"countdown-{self.split}-{rng.getrandbits(48):012x}",
            prompt=f"Using the numbers {numbers} exactly once each, with +, -, *, / and parentheses, "
            f"write an expression equal to {target}.",
            answer={"numbers": numbers, "target": target},
            solution=f"Let me combine them.\n<answer>{solution}</answer>",
        )
