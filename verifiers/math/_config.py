"""`MathConfig`: the grading policy of `verifiers.math`, one documented field at a time."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, fields

from verifiers.errors import VerifierInputError
from verifiers.structure import THINKING_FORMATS, ThinkingFormat

__all__ = ["MathConfig"]


@dataclass(frozen=True)
class MathConfig:
    """How `verifiers.math` extracts and compares answers. Defaults are a careful MATH grader's.

    Examples:
        >>> from verifiers.math import MathConfig
        >>> gsm8k = MathConfig(last_number_fallback=True)
        >>> gsm8k.boxed, gsm8k.last_number_fallback
        (True, True)
    """

    boxed: bool = True
    """The last ``\\boxed{}`` / ``\\fbox{}`` is the committed answer."""
    anchors: tuple[str, ...] = (
        "final answer is",
        "final answer:",
        "the answer is",
        "answer is",
        "answer:",
        "####",
    )
    """Phrases (case-insensitive) that state the answer when nothing is boxed."""
    think_end: str | None = "</think>"
    """A closing thinking delimiter of your own, tried before `thinking_formats` (the default is
    already one of them); ``None`` switches thinking detection off: the whole completion is read."""
    think_start: str = "<think>"
    """The opening delimiter that goes with ``think_end`` (to spot a thinking section cut off)."""
    thinking_formats: tuple[ThinkingFormat, ...] = THINKING_FORMATS
    """The reasoning-model families' thinking formats, detected automatically
    (`verifiers.structure`): only a completion's final section is read, and a thinking section
    that never closed is no answer. Add your own `ThinkingFormat` here."""
    thought_opened: str | None = None
    """The name of the thinking format (in `thinking_formats`, e.g. ``"think"``) whose section the
    chat template opens in the prompt: DeepSeek-R1 and its distills, Qwen3-Thinking-2507 and QwQ
    end the generation prompt with ``<think>``, so their completions carry only ``</think>``.
    Set (``verifiers.structure.opened_thought(tokenizer)`` finds it; an env takes it as
    ``ReasoningEnv.thought_opened``), text before the closing delimiter is thinking, and a
    completion with no closing delimiter is a thought cut off by the token limit: no answer,
    whatever value it wrote while thinking. ``None`` (the default): a completion without
    delimiters is read as a plain answer."""
    bare_max_chars: int = 100
    """A whole completion of one line this short may itself be the answer, and when it does not
    read whole as math, its one value is (``She has 18 apples``: 18). A longer one-line completion,
    or one display-math block over several lines, is the answer only when all of it reads as
    math (no word of prose outside a math block, nothing picked out of it), up to 4,000
    characters. The default stays 100: a longer prose line has more room for a stray number
    (a plan, a restated question) to be taken for the answer; raising it admits those too."""
    last_number_fallback: bool = False
    """With no explicit answer at all, use the last number in the text (GSM8K style)."""
    spray_limit: int | None = None
    """Deprecated, no effect: the final statement or final run of boxes is the commitment, so
    earlier answers are reasoning and a run of several boxes is one collection answer."""
    rel_tol: float = 0.0
    """Relative numeric tolerance; 0 means exact (integers are always exact)."""
    decimal_rounding: bool = True
    """A decimal gold equals a prediction with no finite decimal form that rounds to it
    (12.57 ~ 4\\pi, 0.33 ~ 1/3); any other prediction must equal it exactly (2.54 != 2.5)."""
    percent_as_fraction: bool = True
    """Whether ``25\\%`` may equal ``0.25`` and ``37.5\\%`` equal ``3/8`` (a percent always equals
    its number, ``25``; a number without the mark is never read as a percent: ``0.25`` against
    ``25`` stays unequal). On by default: the datasets that store percent golds (MATH's
    "what percent" problems, NuminaMath, OlympiadBench, Omni-MATH) are graded by Math-Verify,
    which reads ``X\\%`` as ``X/100``, or by a judge model that accepts the same share written
    as a fraction; the percent sign itself says which number is meant, so ``\\frac{3}{8}``
    against ``37.5\\%`` is the same answer, not a different one. Off: a percent equals only its
    number (MATH's string graders, which drop the sign)."""
    equation_as_value: bool = True
    """Whether ``x = 2`` equals ``2`` (and vice versa), and a function definition
    ``h(t) = t^2 + 1`` equals its right side ``t^2 + 1`` written alone (and vice versa)."""
    rename_parameters: bool = True
    """An integer parameter of a general solution is a bound name: ``\\frac{\\pi}{4} + j\\pi`` equals
    ``\\frac{\\pi}{4} + k\\pi`` (renamed consistently in the whole answer; never ``2j\\pi``, and
    not one of several families renamed alone). A parameter is a name a qualifier makes an
    integer (``k \\in \\mathbb{Z}``, "where n is an integer"), or one of the letters k n m j l t s
    r p q used only inside multiples of pi (or as the exponent of -1)."""
    expand_plus_minus: bool = True
    """A tuple with ``\\pm`` entries is shorthand for the tuples of every choice of signs:
    ``(\\pm 1, 2, \\pm 3)`` equals the four tuples written out (never three of them); with a
    ``\\mp`` among the entries the signs go together (``(\\pm 1, \\mp 2)`` is two tuples)."""
    ratio_as_quotient: bool = True
    """A gold stored as a ratio of two terms equals the number it stands for: ``7:2`` is ``3.5``
    and ``\\frac{7}{2}``, ``4 : \\frac{8}{5}`` is ``\\frac{5}{2}``; never the inverse
    (``\\frac{2}{7}``), and a ratio of three terms is never one number. A gold number is not
    answered by a ratio (``1:2`` against ``\\frac{1}{2}``: the question asked for a number). Off:
    a ratio equals only a proportional ratio."""
    infinity_words: bool = True
    """"infinitely many solutions" (also "infinitely many", "an infinite number of ...") equals
    ``\\infty``, either side the words."""
    empty_set_words: bool = True
    """"no solution" (also "no real solutions", "none", "does not exist", "the empty set")
    equals ``\\emptyset`` / ``\\varnothing`` / ``\\{\\}``, either side the words."""
    choice_marks: bool = True
    """Enumerated choice marks name the choices: ``①④`` (or ``①, ④``) equals ``1, 4`` in any
    order, never ``1, 3`` or ``14``."""
    chain_as_order: bool = True
    """An order written as a strict chain of names, ``q < p < s < r``, equals the list of the
    names in the order written, ``q, p, s, r`` (never another order; ``r > s > p > q`` is the
    list ``r, s, p, q``); a chain of numbers is a statement, not an order."""
    ignore_degrees: bool = True
    """A bare number equals the same number of degrees."""
    thousands_separators: bool = True
    """``1,000``, ``1{,}000``, ``1\\,000`` and ``1 000`` are one number, 1000. Inside brackets whose
    commas are all unspaced, ``(4,251)`` is the pair (4, 251) against a tuple and 4251 against a
    number; ``(1,000, 2)`` (a spaced comma beside it) and ``(3,000)`` (a group starting with 0)
    hold the number."""
    decimal_comma: bool = False
    """``3,5`` and ``3{,}5`` are 3.5, as many non-English datasets write them. Off by default:
    it conflicts with thousands separators (with it on, a comma never separates thousands;
    ``1 000,5`` still reads 1000.5) and with lists written without spaces (``(1,5)`` reads as
    the number 1.5; ``1, 5`` and ``1;5`` stay two values)."""
    mixed_numbers: bool = True
    """``1\\frac{3}{4}`` is the mixed number 7/4 (not 1 times 3/4)."""
    imaginary_i: bool = True
    """``i`` is the imaginary unit (not a variable)."""
    euler_e: bool = True
    """``e`` is Euler's number (not a variable)."""
    case_sensitive_text: bool = False
    """Whether text answers compare case-sensitively."""
    numeric_samples: int = 6
    """Random points used when sympy cannot decide symbolically (0 disables the fallback)."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool",) and not isinstance(value, bool):
                raise VerifierInputError(f"MathConfig.{f.name} must be a bool, got {value!r}")
        if not isinstance(self.anchors, tuple) or not all(isinstance(a, str) and a.strip() for a in self.anchors):
            raise VerifierInputError(f"MathConfig.anchors must be a tuple of non-empty strings, got {self.anchors!r}")
        if not isinstance(self.rel_tol, (int, float)) or not 0 <= self.rel_tol < 1:
            raise VerifierInputError(f"MathConfig.rel_tol must be in [0, 1), got {self.rel_tol!r}")
        if self.spray_limit is not None:
            warnings.warn(
                "MathConfig.spray_limit is deprecated and has no effect: the final statement or final run of "
                "boxes is the committed answer (several boxes side by side are one collection answer); "
                "drop the argument",
                DeprecationWarning,
                stacklevel=3,
            )
        if not isinstance(self.thinking_formats, tuple) or not all(
            isinstance(f, ThinkingFormat) for f in self.thinking_formats
        ):
            raise VerifierInputError(
                f"MathConfig.thinking_formats must be a tuple of ThinkingFormat, got {self.thinking_formats!r}"
            )
        if self.thought_opened is not None and not any(
            f.name == self.thought_opened and f.start for f in self.formats()
        ):
            known = ", ".join(repr(f.name) for f in self.formats() if f.start)
            raise VerifierInputError(
                f"MathConfig.thought_opened must name one of the thinking formats ({known}) or be None, "
                f"got {self.thought_opened!r}"
            )
        for name in ("bare_max_chars", "numeric_samples"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise VerifierInputError(f"MathConfig.{name} must be an int >= 0, got {value!r}")

    def formats(self) -> tuple[ThinkingFormat, ...]:
        """The thinking formats this config detects, ``think_start``/``think_end`` first when
        they are not the default pair; none when ``think_end`` is None.

        Examples:
            >>> MathConfig(think_end=None).formats(), MathConfig().formats()[0].name
            ((), 'think')
        """
        if not self.think_end:
            return ()
        if (self.think_start, self.think_end) == ("<think>", "</think>"):
            return self.thinking_formats
        start = (self.think_start,) if self.think_start else ()
        return (ThinkingFormat("custom", start, (self.think_end,)), *self.thinking_formats)
