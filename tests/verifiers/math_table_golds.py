"""Hand-labeled cases for golds as datasets store them (part 2 of the real-data work, first slice):
every gold equals itself, however we read it, and named values equal the bare values.

Same row format as `math_table.py`.
"""

# ruff: noqa: E501  (one row per line keeps the table readable)

from __future__ import annotations

from math_table import Case

# fmt: off
CASES: list[Case] = [
    # --- reflexivity: the gold stated as the answer equals itself, parsed or not ---
    Case("golds", r"x \in \{-2\} \cup [1,5)", r"So $x \in \{-2\} \cup [1,5)$. \boxed{x \in \{-2\} \cup [1,5)}", "correct"),
    Case("golds", r"x \in \{-2\} \cup [1,5)", r"The answer is $x \in \{-2\} \cup [1, 5)$.", "correct"),
    Case("golds", r"m^k > \frac{2^k}{k}", r"\boxed{m^k > \frac{2^k}{k}}", "correct"),
    Case("golds", r"g(3)<g(1)<g(2)", r"Comparing the three values, \boxed{g(3)<g(1)<g(2)}", "correct"),
    Case("golds", r"2 \le |w| \le 5/2", r"\boxed{2 \le |w| \le 5/2}", "correct"),
    Case("golds", r"y \neq 4", r"The answer is $y \neq 4$.", "correct"),
    Case("golds", r"(a,b)=(5,1)", r"\boxed{(a,b)=(5,1)}", "correct"),
    Case("golds", r"9:40", r"\boxed{9:40}", "correct"),
    Case("golds", r"9:40", r"The ratio is $9 : 40$.", "correct"),
    Case("golds", r"a=3,b=1;a=5,b=1", r"\boxed{a=3,b=1;a=5,b=1}", "correct"),
    Case("golds", r"PQ \perp RS", r"\boxed{PQ \perp RS}", "correct"),
    Case("golds", r"PQ \perp RS", r"PQ \perp RS", "correct"),
    Case("golds", r"T_1:T_2=9:40", r"Hence \boxed{T_1:T_2=9:40}.", "correct"),
    Case("golds", r"\text{the set of even integers}", r"\boxed{\text{the set of even integers}}", "correct"),
    # ... and look-alikes stay unequal
    Case("golds", r"9:40", r"\boxed{40:9}", "incorrect"),
    Case("golds", r"PQ \perp RS", r"\boxed{PQ \parallel RS}", "incorrect"),
    Case("golds", r"y \neq 4", r"\boxed{y \neq 3}", "incorrect"),
    Case("golds", r"(a,b)=(5,1)", r"\boxed{(a,b)=(1,5)}", "incorrect"),
    Case("golds", r"2 \le |w| \le 5/2", r"\boxed{2 \le |w| \le 3}", "incorrect"),

    # --- named values: the values without the names are the answer ---
    Case("golds", r"(a,b)=(5,1)", r"So $a = 5$ and $b = 1$, i.e. $\boxed{(5, 1)}$.", "correct"),
    Case("golds", r"(a,b)=(5,1)", r"\boxed{(1, 5)}", "incorrect"),
    Case("golds", r"PQ=6, RS=8", r"The two sides are \boxed{6, 8}.", "correct"),
    Case("golds", r"PQ=6, RS=8", r"\boxed{PQ = 6, RS = 8}", "correct"),
    Case("golds", r"PQ=6, RS=8", r"\boxed{6, 9}", "incorrect"),
    Case("golds", r"m = 12, k = 3", r"\boxed{12, 3}", "correct"),
    Case("golds", r"m = 12, k = 3", r"\boxed{12, 4}", "incorrect"),
    # --- lists separated by ";" (and several solutions, each a group of named values) ---
    Case("golds", r"3; 8", r"The two roots are \boxed{3, 8}.", "correct"),
    Case("golds", r"3; 8", r"\boxed{8, 3}", "correct"),
    Case("golds", r"3; 8", r"\boxed{3}", "incorrect"),
    Case("golds", r"3; 8", r"\boxed{3, 9}", "incorrect"),
    Case("golds", r"3; 8", r"\boxed{3; 8}", "correct"),
    Case("golds", r"(0,4); (6,1)", r"The points are \boxed{(0,4), (6,1)}.", "correct"),
    Case("golds", r"(0,4); (6,1)", r"\boxed{(4,0), (6,1)}", "incorrect"),
    Case("golds", r"u=4,v=1;u=9,v=3", r"\boxed{(4,1), (9,3)}", "correct"),
    Case("golds", r"u=4,v=1;u=9,v=3", r"Both pairs work: \boxed{(9,3),(4,1)}", "correct"),
    Case("golds", r"u=4,v=1;u=9,v=3", r"\boxed{u=9,v=3; u=4,v=1}", "correct"),
    Case("golds", r"u=4,v=1;u=9,v=3", r"\boxed{(4,1)}", "incorrect"),
    Case("golds", r"u=4,v=1;u=9,v=3", r"\boxed{(1,4), (3,9)}", "incorrect"),
    Case("golds", r"u=4,v=1;u=9,v=3", r"\boxed{u=4,v=1;u=9,v=3}", "correct"),
    Case("golds", r"4 \text{ or } 11", r"\boxed{4, 11}", "correct"),
    Case("golds", r"4 \text{ and } 11", r"So $n=4$ or $n=11$: \boxed{4, 11}", "correct"),
    Case("golds", r"4 \text{ or } 11", r"\boxed{11}", "incorrect"),
    # --- a gold written as several boxes is one list ---
    Case("golds", r"\boxed{6}, \boxed{13}", r"\boxed{6, 13}", "correct"),
    Case("golds", r"\boxed{6}, \boxed{13}", r"\boxed{13} and \boxed{6}", "correct"),
    Case("golds", r"\boxed{6} \text{ or } \boxed{13}", r"\boxed{6} \text{ or } \boxed{13}", "correct"),
    Case("golds", r"\boxed{6}, \boxed{13}", r"\boxed{13}", "incorrect"),
    Case("golds", r"\boxed{6}, \boxed{13}", r"\boxed{6, 12}", "incorrect"),
    Case("golds", r"We get \boxed{6} first; the final answer is \boxed{13}", r"\boxed{13}", "correct"),
    # --- ratios: proportional, in order; a ratio of two terms is its quotient (issue #59), never its inverse ---
    Case("golds", r"5:12", r"The ratio is \boxed{10:24}.", "correct"),
    Case("golds", r"5:12", r"\boxed{5 : 12}", "correct"),
    Case("golds", r"5:12", r"\boxed{12:5}", "incorrect"),
    Case("golds", r"5:12", r"\boxed{\frac{5}{12}}", "correct"),
    Case("golds", r"5:12", r"\boxed{\frac{12}{5}}", "incorrect"),
    Case("golds", r"A_1:A_2=5:12", r"\boxed{5:12}", "correct"),
    Case("golds", r"A_1:A_2=5:12", r"\boxed{A_1 : A_2 = 15 : 36}", "correct"),
    Case("golds", r"A_1:A_2=5:12", r"\boxed{5:13}", "incorrect"),
    Case("golds", r"2:3:7", r"\boxed{4:6:14}", "correct"),
    Case("golds", r"2:3:7", r"\boxed{2:3:8}", "incorrect"),
    Case("golds", r"2:3:7", r"\boxed{2:3}", "incorrect"),
    # --- inequalities either way round, "not equal", |x| between bounds, points among intervals ---
    Case("golds", r"t < 4", r"\boxed{-t > -4}", "correct"),
    Case("golds", r"t < 4", r"\boxed{-t < -4}", "incorrect"),
    Case("golds", r"-6 < -t \le 2", r"\boxed{-2 \le t < 6}", "correct"),
    Case("golds", r"-6 < -t \le 2", r"\boxed{-2 < t < 6}", "incorrect"),
    Case("golds", r"y \neq 4", r"\boxed{y \ne 4}", "correct"),
    Case("golds", r"y \neq 4", r"\boxed{(-\infty, 4) \cup (4, \infty)}", "correct"),
    Case("golds", r"y \neq 4", r"\boxed{(-\infty, 4]}", "incorrect"),
    Case("golds", r"2 \le |w| \le 5/2", r"\boxed{[-5/2, -2] \cup [2, 5/2]}", "correct"),
    Case("golds", r"2 \le |w| \le 5/2", r"\boxed{[2, 5/2]}", "incorrect"),
    Case("golds", r"3 < |w| < 4", r"\boxed{(-4,-3) \cup (3,4)}", "correct"),
    Case("golds", r"3 < |w| < 4", r"\boxed{[-4,-3] \cup [3,4]}", "incorrect"),
    Case("golds", r"x \in \{-2\} \cup [1,5)", r"\boxed{\{-2\} \cup [1, 5)}", "correct"),
    Case("golds", r"x \in \{-2\} \cup [1,5)", r"\boxed{[1, 5) \cup \{-2\}}", "correct"),
    Case("golds", r"x \in \{-2\} \cup [1,5)", r"\boxed{[1, 5)}", "incorrect"),
    Case("golds", r"x \in \{-2\} \cup [1,5)", r"\boxed{\{2\} \cup [1, 5)}", "incorrect"),
    # --- comparisons between expressions, term by term; perpendicular and parallel either way ---
    Case("golds", r"g(3)<g(1)<g(2)", r"\boxed{g(2) > g(1) > g(3)}", "correct"),
    Case("golds", r"g(3)<g(1)<g(2)", r"\boxed{g(1) < g(3) < g(2)}", "incorrect"),
    Case("golds", r"g(3)<g(1)<g(2)", r"\boxed{g(3) \le g(1) < g(2)}", "incorrect"),
    Case("golds", r"m^k > \frac{2^k}{k}", r"\boxed{\frac{2^k}{k} < m^k}", "correct"),
    Case("golds", r"m^k > \frac{2^k}{k}", r"\boxed{m^k > 2^k/k}", "correct"),
    Case("golds", r"m^k > \frac{2^k}{k}", r"\boxed{m^k < \frac{2^k}{k}}", "incorrect"),
    Case("golds", r"PQ \perp RS", r"\boxed{RS \perp PQ}", "correct"),
    Case("golds", r"PQ \perp RS", r"\boxed{PQ \perp RT}", "incorrect"),
    Case("golds", r"EF \parallel GH", r"So the lines are parallel: \boxed{GH \parallel EF}", "correct"),
    Case("golds", r"EF \parallel GH", r"\boxed{EF \perp GH}", "incorrect"),
    # --- names given on both sides must match (values without names stay a collection) ---
    Case("golds", r"PQ=6, RS=8", r"\boxed{RS = 8, PQ = 6}", "correct"),
    Case("golds", r"PQ=6, RS=8", r"\boxed{PQ = 8, RS = 6}", "incorrect"),
    Case("golds", r"m = 12, k = 3", r"\boxed{k = 3, m = 12}", "correct"),
    Case("golds", r"m = 12, k = 3", r"\boxed{m = 3, k = 12}", "incorrect"),
    Case("golds", r"m = 12, k = 3", r"\boxed{m = 12, j = 3}", "incorrect"),
    Case("golds", r"(a,b)=(5,1)", r"\boxed{b = 1, a = 5}", "correct"),
    Case("golds", r"(a,b)=(5,1)", r"\boxed{a = 1, b = 5}", "incorrect"),
    Case("golds", r"(a,b)=(5,1)", r"\boxed{(b,a)=(1,5)}", "correct"),
    Case("golds", r"y_1 = -4, \quad y_2 = 7", r"\boxed{y_1 = -4, y_2 = 7}", "correct"),
    Case("golds", r"y_1 = -4, \quad y_2 = 7", r"\boxed{y_1 = 7, y_2 = -4}", "incorrect"),
    # --- golds as datasets store them, second slice (patterns seen in NuminaMath / OpenThoughts) ---
    # semicolons inside brackets separate coordinates
    Case("golds", r"(1;2),(3;-4)", r"\boxed{(3, -4), (1, 2)}", "correct"),
    Case("golds", r"(1;2),(3;-4)", r"\boxed{(1;2),(3;-4)}", "correct"),
    Case("golds", r"(1;2),(3;-4)", r"\boxed{(2, 1), (3, -4)}", "incorrect"),
    Case("golds", r"(0;5;-1)", r"\boxed{(0, 5, -1)}", "correct"),
    Case("golds", r"(0;5;-1)", r"\boxed{(0, -1, 5)}", "incorrect"),
    # a word as a subscript names a quantity
    Case("golds", r"S_{ABC}=12", r"The area is \boxed{12}.", "correct"),
    Case("golds", r"S_{ABC}=12", r"\boxed{13}", "incorrect"),
    Case("golds", r"v_{max}=30", r"\boxed{v_{max} = 30}", "correct"),
    Case("golds", r"S_{PQRS}:S=3:8", r"\boxed{3:8}", "correct"),
    Case("golds", r"S_{PQRS}:S=3:8", r"\boxed{8:3}", "incorrect"),
    # a quantity made of names equals a constant: the constant is the answer
    Case("golds", r"|PQ|=2\sqrt{5}", r"\boxed{2\sqrt{5}}", "correct"),
    Case("golds", r"|PQ|=2\sqrt{5}", r"\boxed{\sqrt{20}}", "correct"),
    Case("golds", r"|PQ|=2\sqrt{5}", r"\boxed{4\sqrt{5}}", "incorrect"),
    Case("golds", r"\frac{AM}{MB}=\frac{2}{3}", r"\boxed{\frac{2}{3}}", "correct"),
    Case("golds", r"\frac{AM}{MB}=\frac{2}{3}", r"\boxed{\frac{3}{2}}", "incorrect"),
    Case("golds", r"AB \cdot CD = \pi", r"\boxed{\pi}", "correct"),
    Case("golds", r"2y=6", r"\boxed{6}", "incorrect"),
    Case("golds", r"\frac{AM}{MB}=\frac{k}{3}", r"\boxed{\frac{k}{3}}", "incorrect"),
    # a function's range written as an inequality
    Case("golds", r"-1<g(t)<3", r"\boxed{(-1, 3)}", "correct"),
    Case("golds", r"-1<g(t)<3", r"\boxed{[-1, 3]}", "incorrect"),
    Case("golds", r"h(s) \geq 2", r"\boxed{[2, \infty)}", "correct"),
    Case("golds", r"h(s) \geq 2", r"\boxed{(2, \infty)}", "incorrect"),
    # a gold with its spaces removed, and several boxes with short labels between them
    Case("golds", r"u_{1}=4,\quadu_{2}=9", r"\boxed{4, 9}", "correct"),
    Case("golds", r"u_{1}=4,\quadu_{2}=9", r"\boxed{4, 8}", "incorrect"),
    Case("golds", r"\boxed{3} apples and \boxed{7} pears", r"\boxed{3, 7}", "correct"),
    Case("golds", r"\boxed{3} apples and \boxed{7} pears", r"\boxed{7}", "incorrect"),
    Case("golds", r"We find $x=\boxed{3}$. Substituting back into the second equation gives \boxed{7}", r"\boxed{7}", "correct"),
    # MATH's thousands separator with its source spacing
    Case("golds", r"\boxed{2,\! 468,\! 000}", r"\boxed{2468000}", "correct"),
    Case("golds", "2468000", r"The total is $\boxed{2,\! 468,\! 000}$.", "correct"),
    Case("golds", "2468000", r"The total is $\boxed{2,\! 468,\! 001}$.", "incorrect"),
    # an answer stated before "is the answer"
    Case("golds", "14", r"Adding the two counts, $14$ is the final answer.", "correct"),
    Case("golds", "14", r"Adding the two counts, $15$ is the answer.", "incorrect"),
    Case("golds", r"t > 6", r"Hence $t > 6$ is the solution.", "correct"),
    Case("golds", r"t \le 6", r"Hence $t <= 6$ is our answer.", "correct"),
    Case("golds", r"t \le 6", r"Hence $t >= 6$ is our answer.", "incorrect"),
    # an exact value followed by its approximation: the exact value is the answer
    Case("golds", r"\frac{2}{7}", r"\boxed{p = \frac{2}{7} \approx 0.29}", "correct"),
    Case("golds", r"\frac{2}{7}", r"\boxed{\frac{2}{7} \approx 0.2857}", "correct"),
    Case("golds", r"\frac{2}{7}", r"\boxed{p = \frac{3}{7} \approx 0.29}", "incorrect"),
    Case("golds", "0.29", r"\boxed{p \approx 0.29}", "correct"),
    Case("golds", "0.29", r"\boxed{p \approx 0.31}", "incorrect"),
    # the zero-denominator "mixed number" is a value, never a crash
    Case("golds", "4", r"\boxed{4\frac{1}{0}}", "incorrect"),
]
# fmt: on
