"""Math answers judged by mathematics: extraction, a safe parser, sympy equivalence.

The grading policy is a careful MATH grader's; each rule is a `MathConfig` field:

- **Which answer.** The *final* answer statement or the *final run* of boxes (grammar in
  `verifiers.math._statements`): ``\\boxed{}``/``\\fbox{}``; "the answer is", "The final
  answer is", ``A: 42``, ``**Answer:** 42``, "Answer (in digits): 42", a ``**Final Answer**``
  heading, ``####`` (also inside math: ``\\(#### 42\\)``), a label then display math on its
  line (``Answer \\[ 9 \\]``); else the value the last complete sentence asserts ("..., so the
  probability is 2/3."); else a whole completion that is one short line (``bare_max_chars``);
  else a whole completion that is nothing but math, read whole and never picked apart: one
  display block over any lines (``\\[ ... \\]``, ``$$ ... $$``, a ``pmatrix``) or one longer
  line with no word of prose (up to three unit words may end it); a completion of two to eight
  lines that each label a value (``Minimum: 0`` then ``Maximum: 4``) is those labelled values;
  with ``last_number_fallback`` the last number. Only text after
  ``</think>`` and before chat-template tokens counts; courtesy sentences ("I hope it is
  correct.") are ignored. Earlier answers are reasoning and the last one stands
  (self-correction). Boxes side by side (``\\boxed{1}, \\boxed{2}``) are one collection answer,
  correct only for a gold collection (in a *gold*, boxes apart by a short label are one list
  too: ``\\boxed{3} apples and \\boxed{7} pears``; in a completion the last box stands);
  several values where the gold has one ("3 or 4", ``\\boxed{3, 4}``, ``\\boxed{3} \\boxed{4}``)
  are incorrect. An explicit answer that does not parse is "unparseable"; nothing committed
  (or a cut-off output) is "no_answer".
- **Formatting never matters**: ``$``, ``\\(\\)``, ``\\left``, ``\\dfrac``, ``\\text{}``, ``\\quad``
  (also glued: ``x_1=4,\\quadx_2=9``), thousands separators (``11,\\! 111``), unicode minus,
  trailing units, case of text and choice letters, ordinals (``7^{\\text{th}}``,
  ``7\\textsuperscript{th}`` and "21st" are 7 and 21; ``2th`` is not an ordinal), ``\\vec{v}``
  (the name ``v``), ``:=`` (``=``), quotes around an answer, a doubled escape (``\\\\frac``,
  ``\\\\le``: a stored gold escaped twice; never inside a matrix, where ``\\\\`` ends a row).
  "$5$ is the answer" states 5; a number inside a word (``H2O``, ``AZ3B``) is none.
- **Numbers**: exact. Integers are never approximate; an exact gold equals a decimal only if
  it is the same number (``0.375 = 3/8``, ``0.\\overline{3} = 1/3``, but ``3.14 != \\pi``); a
  decimal gold equals a more precise prediction that rounds to it (``decimal_rounding``).
  ``25\\%`` equals ``25``, and ``0.25`` and ``\\frac{1}{4}`` (``percent_as_fraction``, on: the
  datasets that store percent golds are graded so; a number without the sign is never read
  as a percent); degrees are dropped. An exact value
  followed by its approximation is the exact value (``x = 2/7 \\approx 0.29`` is 2/7, whatever
  the approximation), in a gold too (``\\frac{3+\\sqrt{5}}{2} \\approx 2.62``, "4\\pi (about
  12.57)", "..., approximately 2.62" are golds 3+sqrt5/2 and 4pi: 2.62 does not equal them);
  ``x \\approx 0.29`` states 0.29. Mixed numbers,
  scientific notation, ``i``, ``e`` and principal roots are read. A decimal comma (``3,5`` =
  3.5) is read only with ``decimal_comma`` (off: it conflicts with thousands separators and
  with lists written without spaces). Inside brackets whose commas are all unspaced
  (``(101,202,303)``, ``(2,1004),(4,251)``) a ``d,ddd`` group takes the other side's reading:
  separate elements against a tuple, one number against a number; written so on both sides it is
  compared element by element. A bracketed ``1,000`` is always one number when a spaced comma
  stands beside it (``(1,000, 2)`` is (1000, 2), never (1, 0, 2)) or a group starts with 0
  (``(3,000)``: no one writes the element 000).
- **Reflexivity**: the gold, stated as the answer, is always correct, read or not (an answer
  written exactly as the gold, up to formatting and spacing, equals it). A gold stored with more
  than its answer (boxes apart by prose, ``\\boxed{1} papers and \\boxed{2} bins``; a whole
  worked solution) is correct when the completion commits to it exactly as stored, in any form
  that states an answer; otherwise it stands for its answer: its final run of boxes, its
  ``####``, or, for a worked solution that does not read as an answer, the answer its last
  statement states ("The final answer is $28\\%$": 28%).
- **Structures**: ordered tuples (``(0;-2;6)`` too); unordered sets and lists by ``,``, ``;``,
  "or", "and" (complete matches only; ``p=5, q=2; p=7, q=2`` is two solutions, equal to
  ``(5, 2), (7, 2)``); ``\\pm``; intervals with their ends, unions and one-variable inequalities
  (either way round: ``-x > -1`` is ``x < 1``; ``x \\neq 1``; ``1 \\le |z| \\le 2`` and ``|z| > 2``
  are two intervals, ``|z| < 2`` one; a finite set among intervals is its points; the variable
  may be a function's value: ``0 < f(x) < 1`` is ``(0, 1)``); inequalities or intervals joined
  by "or" (``\\lor``) are the union of their sets, on either side (``x < 1 \\text{ or } x \\ge 4`` is
  ``(-\\infty, 1) \\cup [4, \\infty)``), and joined by "and" (``\\land``, or by commas in a
  set-builder) their intersection (``x > 2 \\text{ and } x \\le 9`` is ``(2, 9]``); a set-builder
  set is its condition (``\\{x \\mid 1 < x < 2\\}`` is ``(1, 2)``; over ``\\mathbb{R}`` only:
  ``\\{x \\in \\mathbb{Z} \\mid ...\\}`` is not read). Matrices in any bracket (``\\mathbf{M} =`` a
  matrix is that matrix); ``A^T`` (``A^{\\top}``) is the transposed matrix; a column or row vector (and
  ``\\langle 2, -3 \\rangle``) equals the tuple of its entries in order (never an unbracketed
  list; a matrix of more rows and columns never a tuple).
  ``x = v`` equals ``v`` (``equation_as_value``; also a quantity of names equal to a constant,
  ``AB = 4``, ``|AB| = 2\\sqrt{3}``, ``S_{ABC} = 12``, ``\\frac{AM}{MB} = \\frac{2}{3}``, but not
  ``2x = 4``; and ``(p, q) = (3, 2)``); two or more values named on both sides must match by
  name (``q = 2, p = 3`` is ``(p, q) = (3, 2)``, ``k = 2, n = 45`` is not ``k = 45, n = 2``);
  values without names take a named gold's names in order (``k = 2, n = 45`` is ``2, 45``, not
  ``45, 2``). Labelled values are named values: ``Minimum: 0, Maximum: 4``, ``Min = 0, Max = 4``,
  ``\\text{Max: } 4``, a last sentence "the minimum is 0 and the maximum is 4" (a label is prose
  of up to four words, "the" and "value" aside, min/max for minimum/maximum; never a letter, a
  Greek letter, a function or a keyword, so ``x: 3`` stays a ratio; one labelled value is its
  value). Equations are equal up to a factor. A function definition ``h(t) = t^2+1`` equals the
  same definition with its arguments renamed (``h(s) = s^2+1``; also ``f^{-1}(x)``,
  ``g(s, t)``, ``:=``), never one of another name (``g(t) = t^2+1``) nor ``y = t^2+1``; with
  ``equation_as_value`` its right side alone, in its own variable (``t^2+1``, not ``s^2+1``),
  either way round. Ratios ``7:32`` (also ``S_1:S_2 = 7:32``) equal proportional ratios with
  the terms in order; a gold ratio of two terms also equals its quotient (``ratio_as_quotient``:
  ``7:2`` is ``3.5``, never ``2/7``).
  Other comparisons are compared term by term (``f(2) < f(1) < f(4)`` = ``f(4) > f(1) > f(2)``);
  ``AB \\perp CD`` and ``AB \\parallel CD`` either way round.
- **Another notation** (each switch named in the reason when it decided): a general solution's
  integer parameter is a bound name (``rename_parameters``: ``\\frac{\\pi}{4} + j\\pi`` is
  ``\\frac{\\pi}{4} + k\\pi``, renamed consistently), and a qualifier after an answer
  (``k \\in \\mathbb{Z}``, "where n is an integer", "for every real t") is read and compared on
  its own; a tuple with ``\\pm`` is every choice of signs (``expand_plus_minus``); "infinitely
  many" is ``\\infty`` (``infinity_words``); ``①④`` is the choices 1 and 4 (``choice_marks``);
  a chain of names ``q < p < s < r`` is the list in that order (``chain_as_order``). Read
  exactly: ``(u(k), v(k)) = (2k, k^2)`` is two definitions, ``S_{\\min} = 2k+1`` is ``2k+1``,
  ``A \\setminus \\{4\\}`` is ``A`` without 4, ``b \\ge 5`` or ``b = 0`` is
  ``\\{0\\} \\cup [5, \\infty)``.
- **Symbolic**: expansion, factoring, trig identities (sympy, then random-point sampling);
  towers like ``4^{2^{99}}`` compared exactly without being computed.

Safety: model text is parsed by our own recursive-descent parser; no string ever reaches
``sympify``/``parse_expr``/``eval``. Plain numeric answers are judged in-process (the fast
path); anything needing sympy runs in a worker process killed at ``timeout_s``.

Examples:
    >>> from verifiers import math as vm
    >>> r = vm.verify("\\\\frac{1}{2}", "Half of them, so the answer is $0.5$.")
    >>> r.correct, r.status, r.extracted
    (True, 'correct', '$0.5$')
    >>> vm.equivalent("(x+1)^2", "x^2 + 2x + 1")
    True
"""

from __future__ import annotations

from verifiers.errors import VerifyTimeout
from verifiers.math._api import equivalent, extract_answer, final_answers, verify, verify_many
from verifiers.math._config import MathConfig
from verifiers.math._extract import reduce_gold

__all__ = [
    "MathConfig",
    "VerifyTimeout",
    "equivalent",
    "extract_answer",
    "final_answers",
    "reduce_gold",
    "verify",
    "verify_many",
]
