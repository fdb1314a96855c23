"""Hand-labeled cases for what equals what (issue #36): commas inside brackets, golds with a
note, vectors, ordinals, renamed function arguments, answer-only completions, labelled values,
set-builder sets, inequalities joined by "or", the GSM8K marker inside math, percents, and
golds that must equal themselves. Each pattern has its reflexive rows and look-alikes that must
stay unequal.

Same row format as `math_table.py`.
"""

# ruff: noqa: E501  (one row per line keeps the table readable)

from __future__ import annotations

from math_table import Case

# fmt: off
CASES: list[Case] = [
    # --- commas inside brackets: a bracket whose commas are all unspaced may separate elements ---
    Case("brackets", r"(15, 270, 905)", r"Listing the three sums in order gives $\boxed{(15,270,905)}$.", "correct"),
    Case("brackets", r"(15,270,905)", r"The triple is \boxed{(15, 270, 905)}.", "correct"),
    Case("brackets", r"(15,270,905)", r"\boxed{(15,270,905)}", "correct"),
    Case("brackets", r"(15,270,905)", r"\boxed{(15, 905, 270)}", "incorrect"),
    Case("brackets", r"(15,270,905)", r"\boxed{(15, 270, 906)}", "incorrect"),
    Case("brackets", r"(3,1006),(6,503)", r"The pairs are $\boxed{(3, 1006), (6, 503)}$.", "correct"),
    Case("brackets", r"(3, 1006), (6, 503)", r"So the solutions are \boxed{(6,503),(3,1006)}.", "correct"),
    Case("brackets", r"(3,1006),(6,503)", r"\boxed{(3, 1006), (503, 6)}", "incorrect"),
    Case("brackets", r"[7,125]", r"The interval is $\boxed{[7, 125]}$.", "correct"),
    Case("brackets", r"[7,125]", r"\boxed{(7, 125]}", "incorrect"),
    # written with a spaced comma beside it, a d,ddd group is one number
    Case("brackets", r"(1,500, 4)", r"\boxed{(1500, 4)}", "correct"),
    Case("brackets", r"(1,500, 4)", r"\boxed{(1, 500, 4)}", "incorrect"),
    Case("brackets", r"(2000, 7)", r"The point is \boxed{(2,000, 7)}.", "correct"),
    Case("brackets", r"(2, 0, 7)", r"The point is \boxed{(2,000, 7)}.", "incorrect"),
    # a group with a leading zero is a thousands group: no one writes the element 000
    Case("brackets", r"(3, 0)", r"\boxed{(3,000)}", "incorrect"),
    Case("brackets", r"3000", r"The population is \boxed{3,000}.", "correct"),

    # --- golds with a note on an approximation: the exact value is the gold ---
    Case("notes", r"\frac{1+\sqrt{13}}{2} \approx 2.30", r"By the quadratic formula the positive root is $\boxed{\frac{1+\sqrt{13}}{2}}$.", "correct"),
    Case("notes", r"\frac{1+\sqrt{13}}{2} \approx 2.30", r"\boxed{\frac{1+\sqrt{13}}{2} \approx 2.30}", "correct"),
    Case("notes", r"\frac{1+\sqrt{13}}{2} \approx 2.30", r"The root is about \boxed{2.30}.", "incorrect"),
    Case("notes", r"\frac{1-\sqrt{13}}{2} \approx -1.30", r"\boxed{\frac{1+\sqrt{13}}{2}}", "incorrect"),
    Case("notes", r"4\pi \text{ (about } 12.57)", r"The circumference is $\boxed{4\pi}$.", "correct"),
    Case("notes", r"4\pi \text{ (about } 12.57)", r"\boxed{4\pi \text{ (about } 12.57)}", "correct"),
    Case("notes", r"4\pi \text{ (about } 12.57)", r"\boxed{2\pi}", "incorrect"),
    Case("notes", r"\sqrt{7}", r"The side is $\boxed{\sqrt{7} \text{ (approximately 2.65)}}$.", "correct"),
    Case("notes", r"\frac{5+\sqrt{5}}{4}, approximately 1.81", r"\boxed{\frac{5+\sqrt{5}}{4}}", "correct"),
    Case("notes", r"\frac{5+\sqrt{5}}{4} \text{ or about } 1.81", r"\boxed{1.81}", "incorrect"),

    # --- vectors: a column or row vector is the tuple of its entries, in order ---
    Case("vectors", r"\begin{pmatrix} 5 \\ 0 \\ -1 \end{pmatrix}", r"The cross product is $\boxed{(5, 0, -1)}$.", "correct"),
    Case("vectors", r"(5, 0, -1)", r"$\boxed{\begin{pmatrix} 5 \\ 0 \\ -1 \end{pmatrix}}$", "correct"),
    Case("vectors", r"(5, 0, -1)", r"$\boxed{\begin{bmatrix} 5 & 0 & -1 \end{bmatrix}}$", "correct"),
    Case("vectors", r"\begin{pmatrix} 5 \\ 0 \\ -1 \end{pmatrix}", r"\boxed{\langle 5, 0, -1 \rangle}", "correct"),
    Case("vectors", r"\begin{pmatrix} 3 \\ -4 \end{pmatrix}", r"\boxed{[3, -4]}", "correct"),
    Case("vectors", r"\begin{pmatrix} 5 \\ 0 \\ -1 \end{pmatrix}", r"$\boxed{(0, 5, -1)}$", "incorrect"),
    Case("vectors", r"\begin{pmatrix} 5 \\ 0 \\ -1 \end{pmatrix}", r"$\boxed{(5, 0)}$", "incorrect"),
    Case("vectors", r"\begin{pmatrix} 5 \\ 0 \\ -1 \end{pmatrix}", r"$\boxed{5, 0, -1}$", "incorrect"),
    Case("vectors", r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"$\boxed{(1, 2, 3, 4)}$", "incorrect"),
    Case("vectors", r"(5, 0, -1)", r"The direction is $\boxed{\vec{d} = (5, 0, -1)}$.", "correct"),
    Case("vectors", r"\begin{pmatrix} 5 \\ 0 \\ -1 \end{pmatrix}", r"\boxed{\begin{pmatrix} 5 & 0 & -1 \end{pmatrix}^T}", "correct"),
    Case("vectors", r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"\boxed{\begin{pmatrix} 1 & 3 \\ 2 & 4 \end{pmatrix}^{\top}}", "correct"),
    Case("vectors", r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"\boxed{\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}^T}", "incorrect"),
    Case("vectors", r"\begin{pmatrix} 5 \\ 0 \\ -1 \end{pmatrix}", r"\boxed{\mathbf{d} = \langle 5, 0, -1 \rangle}", "correct"),
    Case("vectors", r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"So $\boxed{\mathbf{M} = \begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}}$.", "correct"),

    # --- ordinals: 7^{th}, 21st and 2^{\text{nd}} are their numbers ---
    Case("ordinals", r"9", r"She finishes in $\boxed{9^{\text{th}}}$ place.", "correct"),
    Case("ordinals", r"9^{\text{th}}", r"\boxed{9}", "correct"),
    Case("ordinals", r"33", r"The term is the 33rd one, so the answer is 33rd.", "correct"),
    Case("ordinals", r"33rd", r"\boxed{33}", "correct"),
    Case("ordinals", r"52", r"\boxed{52^{nd}}", "correct"),
    Case("ordinals", r"12", r"\boxed{12^{\text{th}}}", "correct"),
    Case("ordinals", r"9", r"\boxed{8^{\text{th}}}", "incorrect"),
    Case("ordinals", r"33", r"The answer is 32nd.", "incorrect"),
    Case("ordinals", r"4", r"\boxed{4\textsuperscript{th}}", "correct"),

    # --- function definitions: the argument is a bound name; the name of the function is not ---
    Case("functions", r"p(x)=3x^2-x", r"Therefore $\boxed{p(u) = 3u^2 - u}$.", "correct"),
    Case("functions", r"p(x)=3x^2-x", r"\boxed{p(x) = x(3x - 1)}", "correct"),
    Case("functions", r"p(x)=3x^2-x", r"\boxed{p(x)=3x^2-x}", "correct"),
    Case("functions", r"f^{-1}(x) = \frac{x-5}{2}", r"Swapping and solving, $\boxed{f^{-1}(y) = \frac{y-5}{2}}$.", "correct"),
    Case("functions", r"g(s, t) = s^2 t", r"\boxed{g(a, b) = a^2 b}", "correct"),
    Case("functions", r"g(s, t) = s^2 t", r"\boxed{g(a, b) = b^2 a}", "incorrect"),
    Case("functions", r"p(x)=3x^2-x", r"\boxed{q(x) = 3x^2 - x}", "incorrect"),
    Case("functions", r"p(x)=3x^2-x", r"\boxed{p(u) = 3x^2 - x}", "incorrect"),
    Case("functions", r"p(x)=3x^2-x", r"\boxed{p(x) = 3x^2 + x}", "incorrect"),
    # the right side alone is the value (equation_as_value), in the definition's own variable
    Case("functions", r"p(x)=3x^2-x", r"The polynomial is $\boxed{3x^2 - x}$.", "correct"),
    Case("functions", r"3x^2-x", r"\boxed{p(x) = 3x^2 - x}", "correct"),
    Case("functions", r"p(x)=3x^2-x", r"\boxed{3u^2 - u}", "incorrect"),
    Case("functions", r"p(x)=3x^2-x", r"\boxed{y = 3x^2 - x}", "incorrect"),
    Case("functions", r"p(x)=3x^2-x", r"\boxed{p(t) := 3t^2 - t}", "correct"),

    # --- answer-only completions: one display block over lines, or one long line of math ---
    Case("answer-only", r"x^2-5x+6", "\\[\n  x^2 - 5x + 6\n\\]", "correct"),
    Case("answer-only", r"x^2-5x+6", "$$\n(x-2)(x-3)\n$$", "correct"),
    Case("answer-only", r"x^2-5x+6", "\\[\n  x^2 - 5x + 7\n\\]", "incorrect"),
    Case("answer-only", r"\begin{pmatrix} 2 & 0 \\ 1 & 3 \end{pmatrix}", "\\begin{pmatrix}\n2 & 0 \\\\\n1 & 3\n\\end{pmatrix}", "correct"),
    Case("answer-only", r"\frac{3\sqrt{2} + 2\sqrt{3} + \sqrt{30} + 5}{12}", r"\frac{3\sqrt{2}}{12} + \frac{2\sqrt{3}}{12} + \frac{\sqrt{30}}{12} + \frac{5}{12} + \frac{0}{12} + \frac{0}{7}", "correct"),
    Case("answer-only", r"\frac{3\sqrt{2} + 2\sqrt{3} + \sqrt{30} + 5}{12}", r"\frac{3\sqrt{2}}{12} + \frac{2\sqrt{3}}{12} + \frac{\sqrt{30}}{12} + \frac{5}{12} + \frac{1}{12} + \frac{0}{7}", "incorrect"),
    # a long line of prose is not an answer, whatever number it ends with
    Case("answer-only", r"18", r"We could count the pairs directly or use symmetry, and either way we will eventually find something like 18", "no_answer"),
    Case("answer-only", r"18", "\\[\n 18 \\text{ pairs}\n\\]", "correct"),
    # a label followed by a display block on its line
    Case("answer-only", r"36", "Answer \\[\n 36\n\\]", "correct"),
    Case("answer-only", r"36", "Answer $$ 35 $$", "incorrect"),
    Case("answer-only", r"12\sqrt{3} + 4\pi", r"12\sqrt{3} + 4\pi + 0 \cdot \frac{1}{2} + 0 \cdot \frac{1}{3} + 0 \cdot \frac{1}{4} + 0 \cdot \frac{1}{5} square centimeters", "correct"),

    # --- labelled values: labels match labels in any order; bare values follow the gold's order ---
    Case("labels", r"Minimum: -2, Maximum: 7", r"\boxed{-2, 7}", "correct"),
    Case("labels", r"Minimum: -2, Maximum: 7", r"\boxed{7, -2}", "incorrect"),
    Case("labels", r"-2, 7", r"Minimum: -2, Maximum: 7", "correct"),
    Case("labels", r"-2, 7", r"$\boxed{\text{Minimum: } -2,\ \text{Maximum: } 7}$", "correct"),
    Case("labels", r"Minimum: -2, Maximum: 7", r"\boxed{\text{Max: } 7, \text{ Min: } -2}", "correct"),
    Case("labels", r"Minimum: -2, Maximum: 7", r"\boxed{\text{Max: } -2, \text{ Min: } 7}", "incorrect"),
    Case("labels", r"Minimum: -2, Maximum: 7", r"\boxed{\text{Minimum: } -2, \text{ Maximum: } 7}", "correct"),
    Case("labels", r"-2, 7", r"Comparing the endpoints, the minimum value is $-2$ and the maximum value is $7$.", "correct"),
    Case("labels", r"Minimum: -2, Maximum: 7", r"So the maximum is 7, and the minimum is -2.", "correct"),
    Case("labels", r"Minimum: -2, Maximum: 7", r"So the maximum is -2, and the minimum is 7.", "incorrect"),
    Case("labels", r"Width: 6, Height: 9", r"Hence the width is 6 and the height is 8.", "incorrect"),
    # a gold that names its values takes bare values in its own order
    Case("labels", r"s = 4, t = 11", r"\boxed{4, 11}", "correct"),
    Case("labels", r"s = 4, t = 11", r"\boxed{11, 4}", "incorrect"),
    # code in a box is not a label
    Case("labels", r"7", r"Define it as code: $\boxed{return: 7}$", "unparseable"),
    Case("labels", r"-2, 7", r"Min = -2, Max = 7", "correct"),
    Case("labels", r"Minimum: -2, Maximum: 7", "**Minimum:** -2\n**Maximum:** 7", "correct"),
    Case("labels", r"Minimum: -2, Maximum: 7", "Maximum: -2\nMinimum: 7", "incorrect"),

    # --- sets written by a condition ---
    Case("set-builder", r"(-3, 5)", r"The solution set is $\boxed{\{x \mid -3 < x < 5\}}$.", "correct"),
    Case("set-builder", r"(-3, 5)", r"\boxed{\{x : -3 < x < 5\}}", "correct"),
    Case("set-builder", r"(-3, 5)", r"\boxed{\{x \in \mathbb{R} \mid -3 < x < 5\}}", "correct"),
    Case("set-builder", r"\{x \mid -3 < x < 5\}", r"\boxed{(-3, 5)}", "correct"),
    Case("set-builder", r"\{x \mid -3 < x < 5\}", r"\boxed{\{x \mid -3 < x < 5\}}", "correct"),
    Case("set-builder", r"\{x \mid x \neq 2\}", r"\boxed{(-\infty, 2) \cup (2, \infty)}", "correct"),
    Case("set-builder", r"(-3, 5)", r"\boxed{\{x \mid -3 \le x < 5\}}", "incorrect"),
    Case("set-builder", r"(-3, 5)", r"\boxed{\{x \mid x > -3, x < 5\}}", "correct"),
    Case("set-builder", r"(-3, 5)", r"\boxed{\{x \in \mathbb{Z} \mid -3 < x < 5\}}", "unparseable"),

    # --- inequalities joined by "or" (a union) and by "and" (both at once) ---
    Case("or-inequalities", r"x \le -1 \text{ or } x > 6", r"The solution is $\boxed{(-\infty, -1] \cup (6, \infty)}$.", "correct"),
    Case("or-inequalities", r"x \le -1 \text{ or } x > 6", r"\boxed{(6, \infty) \cup (-\infty, -1]}", "correct"),
    Case("or-inequalities", r"x \le -1 \text{ or } x > 6", r"\boxed{x > 6 \text{ or } x \le -1}", "correct"),
    Case("or-inequalities", r"x \le -1 \text{ or } x > 6", r"\boxed{x \le -1 \text{ or } x > 6}", "correct"),
    Case("or-inequalities", r"(-\infty, -1] \cup (6, \infty)", r"\boxed{x \le -1 \lor x > 6}", "correct"),
    Case("or-inequalities", r"x \le -1 \text{ or } x > 6", r"\boxed{(-\infty, -1) \cup (6, \infty)}", "incorrect"),
    Case("or-inequalities", r"x \le -1 \text{ or } x > 6", r"\boxed{-1, 6}", "incorrect"),
    Case("or-inequalities", r"(-\infty, -1] \cup (6, \infty)", r"\boxed{x \le -1 \text{ and } x > 6}", "incorrect"),
    Case("or-inequalities", r"(2, 9]", r"\boxed{x > 2 \text{ and } x \le 9}", "correct"),
    Case("or-inequalities", r"(2, 9]", r"\boxed{x > 2 \text{ or } x \le 9}", "incorrect"),
    Case("or-inequalities", r"(-\infty, -1] \cup (6, \infty)", r"\boxed{(-\infty, -1] \text{ or } (6, \infty)}", "correct"),
    Case("or-inequalities", r"x < -5 \text{ or } x > 5", r"\boxed{|x| > 5}", "correct"),
    Case("or-inequalities", r"(-5, 5]", r"\boxed{|x| \le 5}", "incorrect"),

    # --- percents and fractions: a percent is its number, and its value over 100 (percent_as_fraction) ---
    Case("percent", r"37.5\%", r"The share that voted yes is $\boxed{37.5\%}$.", "correct"),
    Case("percent", r"37.5\%", r"\boxed{37.5}", "correct"),
    Case("percent", r"37.5\%", r"\boxed{\frac{3}{8}}", "correct"),
    Case("percent", r"\frac{3}{8}", r"\boxed{37.5\%}", "correct"),
    Case("percent", r"37.5\%", r"\boxed{\frac{3}{80}}", "incorrect"),
    Case("percent", r"37.5\%", r"\boxed{38\%}", "incorrect"),

    # --- golds stored with more than their answer equal themselves, stated in any form ---
    Case("stored golds", r"\boxed{4} red and \boxed{9} blue", r"\boxed{4} red and \boxed{9} blue", "correct"),
    Case("stored golds", r"\boxed{4} red and \boxed{9} blue", r"So the bag holds $\boxed{4} red and \boxed{9} blue$.", "correct"),
    Case("stored golds", r"\boxed{4} red and \boxed{9} blue", r"The answer is \boxed{\boxed{4} red and \boxed{9} blue}.", "correct"),
    Case("stored golds", r"\boxed{4} red and \boxed{9} blue", r"Counting each colour: \boxed{4, 9}", "correct"),
    Case("stored golds", r"\boxed{4} red and \boxed{9} blue", r"\boxed{4} red and \boxed{8} blue", "incorrect"),
    Case("stored golds", r"\boxed{4} red and \boxed{9} blue", r"It is either \boxed{4} red and \boxed{9} blue or 5 of each.", "incorrect"),
    Case("stored golds", r"Let the price be $p$. A 20\% rise gives $1.2p$ and a 20\% fall then gives $0.96p$, so the price fell by $4\%$. Final Answer: The final answer is $4\%$. I hope it is correct.", r"Let the price be $p$. A 20\% rise gives $1.2p$ and a 20\% fall then gives $0.96p$, so the price fell by $4\%$. Final Answer: The final answer is $4\%$. I hope it is correct.", "correct"),
    Case("stored golds", r"Let the price be $p$. A 20\% rise gives $1.2p$ and a 20\% fall then gives $0.96p$, so the price fell by $4\%$. Final Answer: The final answer is $4\%$. I hope it is correct.", r"Overall the price drops by $\boxed{4\%}$.", "correct"),
    Case("stored golds", r"Let the price be $p$. A 20\% rise gives $1.2p$ and a 20\% fall then gives $0.96p$, so the price fell by $4\%$. Final Answer: The final answer is $4\%$. I hope it is correct.", r"Overall the price drops by $\boxed{0\%}$.", "incorrect"),
    Case("stored golds", r"Let the price be $p$. A 20\% rise gives $1.2p$ and a 20\% fall then gives $0.96p$, so the price fell by $4\%$. Final Answer: The final answer is $4\%$. I hope it is correct.", r"The answer is 96\%.", "incorrect"),

    # --- formatting: quotes around an answer, a doubled escape, a number inside a word ---
    Case("formatting", r"5\text{ and }6", r'Final Answer: The final answer is "$5$ and $6$". I hope it is correct.', "correct"),
    Case("formatting", r"\frac{2}{9}", r"The answer is “$\frac{2}{9}$”.", "correct"),
    Case("formatting", r"\\frac{2}{9}", r"\boxed{\frac{2}{9}}", "correct"),
    Case("formatting", r"1 \\le y \\le 8", r"\boxed{y \in [1, 8]}", "correct"),
    Case("formatting", r"1 \\le y \\le 8", r"\boxed{y \in [1, 9]}", "incorrect"),
    Case("formatting", r"3", r"WXYZ3B", "no_answer"),
    Case("formatting", r"3", r"It is 3", "correct"),

    # --- GSM8K's marker written inside math delimiters ---
    Case("marker", r"56", r"Adding the two weeks, the total is \(#### 56\)", "correct"),
    Case("marker", r"56", r"So Tom saved $#### 56$", "correct"),
    Case("marker", r"56", r"So Tom saved \(#### 65\)", "incorrect"),
]
# fmt: on
