"""Hand-labeled cases for the same answer in another notation (issue #59): general solutions
with another parameter name, ``\\pm`` shorthand for tuples, ratios against their quotient,
percents against fractions, sets of reals, qualifiers, words and marks. Each pattern has the
rows that must be equal and the look-alikes that must stay unequal.

Same row format as `math_table.py`.
"""

# ruff: noqa: E501  (one row per line keeps the table readable)

from __future__ import annotations

from math_table import Case

# fmt: off
CASES: list[Case] = [
    # --- general solutions: an integer parameter is a bound name (MathConfig.rename_parameters) ---
    Case("parameters", r"\varphi = \frac{\pi}{6} + t\pi", r"Every solution has the form $\boxed{\frac{\pi}{6} + q\pi}$.", "correct"),
    Case("parameters", r"\varphi = \frac{\pi}{6} + t\pi", r"\boxed{\varphi = \frac{\pi}{6} + n\pi, \ n \in \mathbb{Z}}", "correct"),
    Case("parameters", r"y = \frac{2\pi}{5} + \frac{2m\pi}{5}, m \in \mathbb{Z}", r"So $\boxed{y = \frac{2(j+1)\pi}{5}}$ where $j$ is any integer.", "correct"),
    Case("parameters", r"x = (-1)^n \frac{\pi}{3} + n\pi", r"\boxed{x = (-1)^k \frac{\pi}{3} + k\pi \text{ for any integer } k}", "correct"),
    Case("parameters", r"x = 2s\pi \text{ or } x = \frac{\pi}{3} + 2s\pi", r"The two families are \boxed{x = \frac{\pi}{3} + 2r\pi \text{ or } x = 2r\pi}.", "correct"),
    Case("parameters", r"(m\pi, 3m\pi), m \in \mathbb{Z}", r"\boxed{(l\pi, 3l\pi)}, where $l$ is an integer.", "correct"),
    Case("parameters", r"(m\pi, 3m\pi), m \in \mathbb{Z}", r"\boxed{(l\pi, 3l\pi) \text{ for any integer } l}", "correct"),
    Case("parameters", r"\left\{\frac{\pi}{3} + k\pi, k \in \mathbb{Z}\right\}", r"\boxed{\frac{\pi}{3} + m\pi}", "correct"),
    Case("parameters", r"\{\frac{\pi}{3} + k\pi \mid k \in \mathbb{Z}\}", r"\boxed{x = \frac{\pi}{3} + m\pi \ (m \in Z)}", "correct"),
    Case("parameters", r"x = 2k\pi \pm \frac{\pi}{5}, k \in \mathbb{Z}", r"\boxed{x = \pm \frac{\pi}{5} + 2j\pi}", "correct"),
    Case("parameters", r"\alpha = 30^\circ + k \cdot 180^\circ", r"\boxed{\alpha = 30^\circ + m \cdot 180^\circ}", "correct"),
    Case("parameters", r"y = \frac{m\pi}{4}", r"\boxed{y = \frac{l\pi}{4}}", "correct"),
    # look-alikes: another multiple, one place renamed, one family of two, a restricted domain, a real variable
    Case("parameters", r"\varphi = \frac{\pi}{6} + t\pi", r"\boxed{\frac{\pi}{6} + 2q\pi}", "incorrect"),
    Case("parameters", r"x = 2k\pi \pm \frac{\pi}{5}, k \in \mathbb{Z}", r"\boxed{x = \pm \frac{\pi}{5} + j\pi}", "incorrect"),
    Case("parameters", r"x = 2k\pi \pm \frac{\pi}{5}, k \in \mathbb{Z}", r"\boxed{x = \frac{\pi}{5} + 2j\pi}", "incorrect"),
    Case("parameters", r"(m\pi, 3m\pi), m \in \mathbb{Z}", r"\boxed{(l\pi, 3m\pi)}", "incorrect"),
    Case("parameters", r"x = 2s\pi \text{ or } x = \frac{\pi}{3} + 2s\pi", r"\boxed{x = 2r\pi \text{ or } x = \frac{\pi}{3} + 2s\pi}", "incorrect"),
    Case("parameters", r"x = 2s\pi \text{ or } x = \frac{\pi}{3} + 2s\pi", r"\boxed{x = 2r\pi}", "incorrect"),
    Case("parameters", r"x = \frac{\pi}{6} + k\pi, k \in \mathbb{Z}", r"\boxed{x = \frac{\pi}{6} + k\pi, k \in \mathbb{N}}", "incorrect"),
    Case("parameters", r"x = \frac{\pi}{6} + k\pi", r"\boxed{x = \frac{\pi}{6} + n\pi \text{ for all positive integers } n}", "incorrect"),
    Case("parameters", r"4\pi r^2", r"The surface area is \boxed{4\pi h^2}.", "incorrect"),
    Case("parameters", r"\alpha = 30^\circ + k \cdot 180^\circ", r"\boxed{\alpha = 30^\circ + m \cdot 90^\circ}", "incorrect"),
    Case("parameters", r"2\pi r", r"\boxed{2\pi k}", "incorrect"),
    Case("parameters", r"y = \frac{m\pi}{4}", r"\boxed{y = \frac{l\pi}{2}}", "incorrect"),

    # --- \pm in a tuple: shorthand for every choice of signs (MathConfig.expand_plus_minus) ---
    Case("plus-minus", r"(\pm 2, 7, \pm 5)", r"The solutions are $\boxed{(2, 7, 5), (2, 7, -5), (-2, 7, 5), (-2, 7, -5)}$.", "correct"),
    Case("plus-minus", r"(4, 1), (-4, 1), (4, -1), (-4, -1)", r"\boxed{(\pm 4, \pm 1)}", "correct"),
    Case("plus-minus", r"(a, b) = (\pm 3, 8)", r"So $(a, b)$ is \boxed{(-3, 8)} or \boxed{(3, 8)}.", "correct"),
    Case("plus-minus", r"(2 \pm \sqrt{3}, 1)", r"\boxed{(2 - \sqrt{3}, 1), (2 + \sqrt{3}, 1)}", "correct"),
    Case("plus-minus", r"(\pm 6, \mp 1)", r"\boxed{(6, -1), (-6, 1)}", "correct"),
    Case("plus-minus", r"u = \pm 3, v = 1", r"\boxed{(u, v) = (3, 1), (-3, 1)}", "correct"),
    # look-alikes: a sign choice missing, a sign choice too many, signs that go together written apart
    Case("plus-minus", r"(\pm 2, 7, \pm 5)", r"\boxed{(2, 7, 5), (2, 7, -5), (-2, 7, 5)}", "incorrect"),
    Case("plus-minus", r"(\pm 2, 7, \pm 5)", r"\boxed{(2, 7, 5), (-2, 7, -5)}", "incorrect"),
    Case("plus-minus", r"(\pm 6, \mp 1)", r"\boxed{(6, -1), (-6, 1), (6, 1), (-6, -1)}", "incorrect"),
    Case("plus-minus", r"(\pm 6, \mp 1)", r"\boxed{(6, 1), (-6, -1)}", "incorrect"),
    Case("plus-minus", r"(\pm 2, 7)", r"\boxed{(2, 7)}", "incorrect"),
    Case("plus-minus", r"u = \pm 3, v = 1", r"\boxed{(3, 1), (-3, -1)}", "incorrect"),

    # --- a ratio of two terms is its quotient (MathConfig.ratio_as_quotient) ---
    Case("ratios", r"9:4", r"The ratio of the areas is $\boxed{2.25}$.", "correct"),
    Case("ratios", r"9:4", r"\boxed{\frac{9}{4}}", "correct"),
    Case("ratios", r"3 : \frac{6}{5}", r"\boxed{\frac{5}{2}}", "correct"),
    Case("ratios", r"\sqrt{2} : 1", r"The sides are in the ratio \boxed{\sqrt{2}}.", "correct"),
    Case("ratios", r"BD:DC = 5:2", r"\boxed{\frac{5}{2}}", "correct"),
    # look-alikes: the inverse, a rounded quotient, a ratio of three terms, a ratio where a number is asked
    Case("ratios", r"9:4", r"\boxed{\frac{4}{9}}", "incorrect"),
    Case("ratios", r"9:4", r"\boxed{0.44}", "incorrect"),
    Case("ratios", r"7:3", r"\boxed{2.33}", "incorrect"),
    Case("ratios", r"1:2:3", r"\boxed{\frac{1}{6}}", "incorrect"),
    Case("ratios", r"\frac{11}{3}", r"\boxed{11 : 3}", "incorrect"),

    # --- a percent gold is its value over 100 (MathConfig.percent_as_fraction) ---
    Case("percent", r"62.5\%", r"So the share is $\boxed{\frac{5}{8}}$.", "correct"),
    Case("percent", r"12\%", r"\boxed{0.12}", "correct"),
    Case("percent", r"12\%", r"\boxed{\frac{3}{25}}", "correct"),
    Case("percent", r"12\%", r"\boxed{12}", "correct"),
    # look-alikes: off by a factor of ten, the number over 100 twice, a fraction's digits read as a percent
    Case("percent", r"12\%", r"\boxed{1.2}", "incorrect"),
    Case("percent", r"12\%", r"\boxed{0.0012}", "incorrect"),
    Case("percent", r"\frac{5}{8}", r"\boxed{5.8\%}", "incorrect"),

    # --- sets of reals in other notation: a point removed, an equation among inequalities, a stray period ---
    Case("sets of reals", r"(-2, 3) \cup (3, \infty)", r"The domain is $\boxed{\{t \mid t > -2\} \setminus \{3\}}$.", "correct"),
    Case("sets of reals", r"\{t \mid t > -2\} \setminus \{3\}", r"\boxed{(-2, 3) \cup (3, +\infty)}", "correct"),
    Case("sets of reals", r"(-\infty, 0) \cup (0, 6) \cup (6, \infty)", r"\boxed{\mathbb{R} \setminus \{0, 6\}}", "correct"),
    Case("sets of reals", r"(-\infty, -1) \cup (1, \infty)", r"\boxed{\mathbb{R} \setminus [-1, 1]}", "correct"),
    Case("sets of reals", r"c \ge 4 \text{ or } c = 0", r"So $c$ lies in $\boxed{\{0\} \cup [4, \infty)}$.", "correct"),
    Case("sets of reals", r"\{-3\} \cup [2, \infty)", r"\boxed{c = -3 \text{ or } c \geq 2}", "correct"),
    Case("sets of reals", r"(-\infty, 5]", r"\boxed{(-\infty, 5.]}", "correct"),
    Case("sets of reals", r"[1, 9)", r"\boxed{[1., 9)}", "correct"),
    Case("sets of reals", r"[1, 9)", r"\boxed{[1 , 9 .)}", "correct"),
    # look-alikes: another point removed, the endpoints kept, the lone point dropped, another point, another bound
    Case("sets of reals", r"(-2, 3) \cup (3, \infty)", r"\boxed{\{t \mid t > -2\} \setminus \{2\}}", "incorrect"),
    Case("sets of reals", r"(-2, 3) \cup (3, \infty)", r"\boxed{(-2, \infty)}", "incorrect"),
    Case("sets of reals", r"(-\infty, -1) \cup (1, \infty)", r"\boxed{\mathbb{R} \setminus (-1, 1)}", "incorrect"),
    Case("sets of reals", r"c \ge 4 \text{ or } c = 0", r"\boxed{[4, \infty)}", "incorrect"),
    Case("sets of reals", r"c \ge 4 \text{ or } c = 0", r"\boxed{\{1\} \cup [4, \infty)}", "incorrect"),
    Case("sets of reals", r"(-\infty, 5]", r"\boxed{(-\infty, 5.5]}", "incorrect"),

    # --- qualifiers after a function or a tuple, and a gold that names its quantity ---
    Case("qualifiers", r"h(s) = 5 \text{ for every real } s", r"So the only such function is $\boxed{h(s) = 5}$.", "correct"),
    Case("qualifiers", r"h(s) = 5", r"\boxed{h(x) = 5 \text{ for all } x \in \mathbb{R}}", "correct"),
    Case("qualifiers", r"(p(n), q(n)) = (3n, n^3)", r"\boxed{p(n) = 3n, \ q(n) = n^3}", "correct"),
    Case("qualifiers", r"(p(n), q(n)) = (3n, n^3)", r"\boxed{q(m) = m^3, p(m) = 3m}", "correct"),
    Case("qualifiers", r"T_{\max} = 4m - 1", r"The largest total is $\boxed{4m - 1}$.", "correct"),
    Case("qualifiers", r"L_{\min} = \frac{9}{2}", r"\boxed{\frac{9}{2}}", "correct"),
    Case("qualifiers", r"b_n = 3n - 2 \ (n \in \mathbb{N}^*)", r"So the general term is $\boxed{b_n = 3n - 2}$.", "correct"),
    Case("qualifiers", r"b_n = 4^{n} + 1 \ (n \geq 1)", r"\boxed{4^n + 1}", "correct"),
    Case("qualifiers", r"h(s) = 5 \quad \forall s \in \mathbb{R}", r"\boxed{h(s) = 5}", "correct"),
    Case("qualifiers", r"h(s) = 5, \ s \in \mathbb{R}", r"\boxed{h(t) = 5}", "correct"),
    Case("qualifiers", r"\mathbb{Z}", r"So $n$ can be any integer: $\boxed{n \in \mathbb{Z}}$.", "correct"),
    Case("qualifiers", r"g(y) = y^3 \text{ for all } y > 0", r"So $\boxed{g(y) = y^3}$.", "correct"),
    Case("qualifiers", r"g(y) = y^3 \text{ for all } y > 0", r"\boxed{g(y) = y^3 \text{ for all positive reals } y}", "correct"),
    Case("qualifiers", r"g(y) = y^3 \text{ for all } y \in \mathbb{R}^+", r"\boxed{g(t) = t^3}", "correct"),
    # look-alikes: a domain restricted differently, the bodies swapped, one of the two, another value
    Case("qualifiers", r"h(s) = 5 \text{ for every real } s", r"\boxed{h(s) = 5 \text{ for every positive integer } s}", "incorrect"),
    Case("qualifiers", r"h(s) = 5 \text{ for every real } s", r"\boxed{h(s) = 5 \text{ for all } s \in \mathbb{N}}", "incorrect"),
    Case("qualifiers", r"(p(n), q(n)) = (3n, n^3)", r"\boxed{p(n) = n^3, q(n) = 3n}", "incorrect"),
    Case("qualifiers", r"(p(n), q(n)) = (3n, n^3)", r"\boxed{p(n) = 3n}", "incorrect"),
    Case("qualifiers", r"T_{\max} = 4m - 1", r"\boxed{4m + 1}", "incorrect"),
    Case("qualifiers", r"b_n = 4^{n} + 1 \ (n \geq 1)", r"\boxed{4^n + 1 \ (n \geq 2)}", "incorrect"),
    Case("qualifiers", r"b_n = 3n - 2 \ (n \in \mathbb{N}^*)", r"\boxed{b_n = 3n + 2}", "incorrect"),
    Case("qualifiers", r"h(s) = 5, \ s \in \mathbb{R}", r"\boxed{h(s) = 5, s \in \mathbb{Z}}", "incorrect"),
    Case("qualifiers", r"\mathbb{Z}", r"\boxed{n \in \mathbb{N}}", "incorrect"),
    Case("qualifiers", r"g(y) = y^3 \text{ for all } y > 0", r"\boxed{g(y) = y^3 \text{ for all } y \geq 0}", "incorrect"),
    Case("qualifiers", r"g(y) = y^3", r"\boxed{g(y) = y^3 \text{ for all } y > 0}", "incorrect"),

    # --- words and marks for values (infinity_words, choice_marks, chain_as_order) ---
    Case("words and marks", r"\text{infinitely many solutions}", r"So the system has $\boxed{\infty}$ solutions.", "correct"),
    Case("words and marks", r"\infty", r"\boxed{\text{infinitely many}}", "correct"),
    Case("words and marks", r"②③", r"The true statements are \boxed{2, 3}.", "correct"),
    Case("words and marks", r"②③", r"\boxed{3, 2}", "correct"),
    Case("words and marks", r"②, ⑤", r"\boxed{②⑤}", "correct"),
    Case("words and marks", r"b < d < a < c", r"From smallest to largest: \boxed{b, d, a, c}.", "correct"),
    Case("words and marks", r"c > a > d > b", r"\boxed{c, a, d, b}", "correct"),
    Case("words and marks", r"b, d, a, c", r"\boxed{b < d < a < c}", "correct"),
    Case("words and marks", r"\text{no real solutions}", r"The equation has no real roots, so the solution set is $\boxed{\varnothing}$.", "correct"),
    Case("words and marks", r"\emptyset", r"\boxed{\text{No solution}}", "correct"),
    Case("words and marks", r"\text{infinitely many solutions}", r"\boxed{\text{There are infinitely many solutions}}", "correct"),
    # look-alikes: a count where infinity is asked, another choice, the choices run together, another order, the order reversed
    Case("words and marks", r"\text{infinitely many solutions}", r"\boxed{2}", "incorrect"),
    Case("words and marks", r"\text{no real solutions}", r"\boxed{\{0\}}", "incorrect"),
    Case("words and marks", r"\emptyset", r"\boxed{\infty}", "incorrect"),
    Case("words and marks", r"②③", r"\boxed{2, 4}", "incorrect"),
    Case("words and marks", r"②③", r"\boxed{23}", "incorrect"),
    Case("words and marks", r"②③", r"\boxed{2, 3, 4}", "incorrect"),
    Case("words and marks", r"b < d < a < c", r"\boxed{b, a, d, c}", "incorrect"),
    Case("words and marks", r"b < d < a < c", r"\boxed{c, a, d, b}", "incorrect"),
    Case("words and marks", r"1 < 4 < 9", r"\boxed{1, 4, 9}", "incorrect"),
]
# fmt: on
