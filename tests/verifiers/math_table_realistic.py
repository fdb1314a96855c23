"""Realistic labeled cases for verifiers.math (MATH and GSM8K style), written blind from the policy."""
# ruff: noqa: E501

from __future__ import annotations

from math_table import Case

# fmt: off
CASES: list[Case] = [
    # --- extraction: reasoning-model output shapes ---
    Case("extraction", r"18", r"""<think>
Janet's ducks lay 16 eggs. She eats 3 and uses 4 for muffins, so 16 - 3 - 4 = 9 remain. At 2 dollars each that is 18 dollars.
</think>
Janet has 16 - 3 - 4 = 9 eggs left to sell. At \$2 per egg she makes 9 * 2 = 18 dollars per day.
#### 18""", "correct"),
    Case("extraction", r"18", r"""<think>
16 - 3 - 4 = 9 eggs, and 9 * 2 = 18. So the answer is \boxed{18}.
</think>""", "no_answer"),
    Case("extraction", r"18", r"""<think>
Okay, so Janet's ducks lay 16 eggs per day. She eats three for breakfast, that leaves 13. Then she bakes muffins with four, so 13 - 4 = 9. She sells each for 2 dollars, so 9 times 2 is 18. Wait, let me re-read the problem to make sure I haven't missed anything. The ducks lay 16 eggs per day, she eats three""", "no_answer"),
    Case("extraction", r"\frac{25\pi}{4}", r"""<think>
The area of a circle with radius 5/2 is pi * 25/4. So \boxed{\frac{25\pi}{4}}. Hmm, but wait, the problem says the diameter is 5, so the radius is""", "no_answer"),
    Case("extraction", r"\frac{7}{12}", r"""<think>
Maybe it's 5/12? So the answer is \boxed{\frac{5}{12}}? No wait, 5/12 is the complement, so 1 - 5/12 = 7/12.
</think>
The probability of the complementary event is $\frac{5}{12}$, so the requested probability is $1 - \frac{5}{12} = \frac{7}{12}$.

**Final Answer**
\[
\boxed{\frac{7}{12}}
\]""", "correct"),
    Case("extraction", r"10", r"""<think>
Sum of roots = -b/a = -(-10)/1 = 10. So the answer is 10.
</think>
By Vieta's formulas, the sum of the roots is $-\frac{b}{a} = -10$.

The final answer is $\boxed{-10}$.""", "incorrect"),
    Case("extraction", r"\frac{5}{324}", r"""We need the probability that four dice show a sum of 7. Let's count carefully.

The number of favorable outcomes is $\binom{6}{3} = 20$ and the total is $6^4 = 1296$, so the probability is $\frac{20}{1296} = \frac{5}{324}$.

**Final Answer**
\[
\boxed{\frac{5}{324}}
\]""", "correct"),
    Case("extraction", r"2.4", r"""Solution: The combined rate is $\frac{1}{4} + \frac{1}{6} = \frac{5}{12}$ of the job per hour, so together they need $\frac{12}{5} = 2.4$ hours.
Final Answer: The final answer is $2.4$. I hope it is correct.""", "correct"),
    Case("extraction", r"120", r"""## Step 1: Choose 3 of the 10 people
The order does not matter, so we use combinations.

## Step 2: Compute
$\binom{10}{3} = \frac{10 \cdot 9 \cdot 8}{6} = 120$.

Therefore, the final answer is: $\boxed{120}$. I hope it is correct.""", "correct"),
    Case("extraction", r"42", r"The product is \fbox{42}.", "correct"),
    Case("extraction", r"\frac{\sqrt{3}}{2}", r"Since $\sin 60^\circ = \frac{\sqrt{3}}{2}$, the answer is $\boxed{\frac{\sqrt{3}}{2}}$.", "correct"),
    Case("extraction", r"3", r"""The powers of 7 cycle through the units digits 7, 9, 3, 1. Since 2023 leaves a remainder of 3 when divided by 4, we look at the third term of the cycle. That gives a units digit of 3, matching the pattern we found.""", "no_answer"),
    Case("extraction", r"\frac{25\pi}{4}", r"\frac{25\pi}{4}", "correct"),
    Case("extraction", r"42", r"""We multiply 6 by 7.

Answer: 42""", "correct"),
    Case("extraction", r"18", r"""She earns $9 \times 2 = 18$ dollars each day, so the answer is $\boxed{18}$.

I hope this helps! Let me know if you have any other questions.""", "correct"),
    Case("extraction", r"7", r"The discriminant is $\boxed{49}$, so the positive root is $\sqrt{49} = 7$ and the answer is $\boxed{7}$.", "correct"),
    Case("extraction", r"7", r"""First we compute the discriminant of $x^2 + x - 12$:
$$b^2 - 4ac = \boxed{49}.$$""", "incorrect"),
    Case("extraction", r"15", r"""The first guess gives $\boxed{12}$, but that ignores the three extra boxes.

Final Answer: 15""", "correct"),
    Case("extraction", r"36", r"""<think>
6 * 6 = 36 unit squares.
</think>

The square has side 6, so its area is $6^2 = 36$.

**Answer:** $\boxed{36}$""", "correct"),
    Case("extraction", r"9", r"""<think>
16 - 3 - 4 = 9.
</think>
The answer is 9.""", "correct"),
    Case("extraction", r"9", r"""<think>
16 - 3 - 4 = 9.
</think>
We subtract the eggs she eats and the eggs she bakes with from the total. Then we count what is left over. This gives the number of eggs she can sell.""", "no_answer"),
    Case("extraction", r"12", r"""<think>
The answer should be 12 since 3 * 4 = 12. \boxed{12}
</think>
Multiplying the 3 rows by the 4 columns gives the total.

The answer is $\boxed{12}$.""", "correct"),
    Case("extraction", r"12", r"""<think>
The answer should be 12 since 3 * 4 = 12. \boxed{12}
</think>
Multiplying the 3 rows by the 4 columns and adding the 2 extra seats gives the total.

The answer is $\boxed{14}$.""", "incorrect"),
    Case("extraction", r"120", r"There are 120 ways.", "correct"),
    Case("extraction", r"20", r"""**Solution:**

The mean of the five numbers is $\frac{100}{5} = 20$.

**Final Answer:** **20**""", "correct"),

    # --- algebra ---
    Case("structures", r"(-\infty, -2) \cup (3, \infty)", r"""We factor $x^2 - x - 6 = (x - 3)(x + 2) > 0$. The product is positive when both factors have the same sign.

**Final Answer**
\[
\boxed{(-\infty, -2) \cup (3, \infty)}
\]""", "correct"),
    Case("structures", r"(-\infty, -2) \cup (3, \infty)", r"The final answer is $\boxed{(3, \infty) \cup (-\infty, -2)}$.", "correct"),
    Case("structures", r"(-\infty, -2) \cup (3, \infty)", r"The final answer is $\boxed{\left(-\infty,-2\right)\cup\left(3,\infty\right)}$.", "correct"),
    Case("structures", r"(-\infty, -2) \cup (3, \infty)", r"So the solution set is $\boxed{(-\infty, -2] \cup [3, \infty)}$.", "incorrect"),
    Case("structures", r"(-\infty, -2) \cup (3, \infty)", r"So the solution set is $\boxed{(-\infty, -2)}$.", "incorrect"),
    Case("structures", r"(-\infty, -2) \cup (3, \infty)", r"The expression is negative between the roots, so the answer is $\boxed{(-2, 3)}$.", "incorrect"),
    Case("structures", r"[-2, 7]", r"Thus $\boxed{-2 \le x \le 7}$.", "correct"),
    Case("structures", r"[-2, 7]", r"Thus the answer is $\boxed{(-2, 7)}$.", "incorrect"),
    Case("structures", r"(-\infty, 5]", r"Solving, $-3x \ge -15$ gives $\boxed{x \le 5}$.", "correct"),
    Case("structures", r"(-\infty, 5]", r"Solving, $-3x > -15$ gives $\boxed{x < 5}$.", "incorrect"),
    Case("structures", r"(-\infty, 5]", r"Dividing by $-3$ flips the inequality: $\boxed{[5, \infty)}$.", "incorrect"),
    Case("structures", r"[1, \infty)", r"The radicand must be nonnegative, so the domain is $\boxed{[1,\infty)}$.", "correct"),
    Case("structures", r"[1, \infty)", r"The radicand must be positive, so the domain is $\boxed{(1, \infty)}$.", "incorrect"),
    Case("structures", r"3, -5", r"The solutions are $\boxed{-5, 3}$.", "correct"),
    Case("structures", r"3, -5", r"Since $x$ must be positive here, the answer is $\boxed{3}$.", "incorrect"),
    Case("structures", r"3, -5", r"The solutions are $\boxed{-5, 0, 3}$.", "incorrect"),
    Case("numbers", r"\frac{3}{2}", r"Therefore $x = \boxed{1.5}$.", "correct"),
    Case("equations", r"\frac{3}{2}", r"Therefore $\boxed{x = \frac{3}{2}}$.", "correct"),
    Case("numbers", r"-\frac{1}{2}", r"The slope is $\boxed{\frac{1}{2}}$.", "incorrect"),
    Case("numbers", r"-\frac{1}{2}", r"The slope is $\boxed{-0.5}$.", "correct"),
    Case("equations", r"6", r"Squaring both sides we get $\boxed{x^2 = 36}$.", "incorrect"),
    Case("equations", r"4", r"For the system to have infinitely many solutions we need $\boxed{k = 4}$.", "correct"),
    Case("equations", r"y = -\frac{1}{2}x + 4", r"The line is $\boxed{x + 2y - 8 = 0}$.", "correct"),
    Case("equations", r"y = -\frac{1}{2}x + 4", r"The line is $\boxed{y = -2x + 4}$.", "incorrect"),
    Case("equations", r"10", r"Adding the two equations, $\boxed{2x + 2y = 20}$.", "incorrect"),
    Case("equations", r"10", r"Adding the equations and halving, $x + y = \boxed{\frac{20}{2} = 10}$.", "correct"),
    Case("numbers", r"-7", r"The value of $f(-2)$ is $\boxed{−7}$.", "correct"),
    Case("symbolic", r"2x^2 + 7x - 4", r"The answer is $\boxed{(2x - 1)(x + 4)}$.", "correct"),
    Case("numbers", r"\frac{1}{16}", r"$\left(\frac{1}{2}\right)^4 = \boxed{0.0625}$", "correct"),

    # --- counting & probability ---
    Case("formatting", r"\frac{5}{324}", r"The probability is $\boxed{\dfrac{5}{324}}$.", "correct"),
    Case("numbers", r"\frac{5}{324}", r"The probability is approximately $\boxed{0.0154}$.", "incorrect"),
    Case("numbers", r"\frac{5}{324}", r"The probability is $\frac{5}{324}$.", "correct"),
    Case("symbolic", r"120", r"The number of committees is $\boxed{\dbinom{10}{3}}$.", "correct"),
    Case("equations", r"120", r"The number of committees is $\boxed{\binom{10}{3} = 120}$.", "correct"),
    Case("numbers", r"120", r"Since the order matters, $10 \cdot 9 \cdot 8 = \boxed{720}$.", "incorrect"),
    Case("numbers", r"\frac{2}{9}", r"The probability is $\boxed{0.\overline{2}}$.", "correct"),
    Case("numbers", r"\frac{2}{9}", r"The probability is $\boxed{0.22}$.", "incorrect"),
    Case("units", r"\frac{2}{9}", r"The probability is $\boxed{22.2\%}$.", "incorrect"),
    Case("symbolic", r"\frac{2}{9}", r"The probability is $\boxed{\frac{\binom{5}{2}}{\binom{10}{2}}}$.", "correct"),
    Case("numbers", r"\frac{1}{3}", r"So the probability is $\boxed{0.\overline{3}}$.", "correct"),
    Case("numbers", r"\frac{1}{3}", r"So the probability is $\boxed{0.333}$.", "incorrect"),
    Case("units", r"\frac{1}{4}", r"So the probability is $\boxed{25\%}$.", "correct"),
    Case("symbolic", r"5040", r"The letters can be arranged in $\boxed{7!}$ ways.", "correct"),
    Case("numbers", r"\frac{3}{8}", r"Exactly two heads: $\frac{\binom{4}{2}}{16} = \boxed{0.375}$.", "correct"),
    Case("numbers", r"\frac{3}{8}", r"Exactly two heads: $\frac{\binom{4}{2}}{16} = \boxed{0.38}$.", "incorrect"),
    Case("numbers", r"\frac{1}{6}", r"The probability is $\boxed{0.1\overline{6}}$.", "correct"),
    Case("units", r"3.5", r"The expected winnings are $\boxed{\$3.50}$.", "correct"),
    Case("symbolic", r"\frac{1}{221}", r"The probability both cards are aces is $\boxed{\frac{4}{52} \cdot \frac{3}{51}}$.", "correct"),
    Case("numbers", r"\frac{1}{221}", r"The probability both cards are aces is $\boxed{\frac{1}{169}}$.", "incorrect"),
    Case("numbers", r"252", r"""We need $\binom{10}{5}$.
#### 252""", "correct"),

    # --- geometry ---
    Case("symbolic", r"18\sqrt{3}", r"""The hexagon is made of 6 equilateral triangles with side $2\sqrt{3}$, each of area $3\sqrt{3}$.

**Final Answer**
\[
\boxed{18\sqrt{3}}
\]""", "correct"),
    Case("symbolic", r"18\sqrt{3}", r"The area is $\boxed{\sqrt{972}}$.", "correct"),
    Case("numbers", r"18\sqrt{3}", r"The area is approximately $\boxed{31.18}$.", "incorrect"),
    Case("units", r"18\sqrt{3}", r"The area is $\boxed{18\sqrt{3}\text{ square units}}$.", "correct"),
    Case("formatting", r"18\sqrt{3}", r"The area is $\boxed{18 \sqrt 3}$.", "correct"),
    Case("numbers", r"\frac{25\pi}{4}", r"The area is $\boxed{6.25\pi}$.", "correct"),
    Case("numbers", r"\frac{25\pi}{4}", r"The area is $\pi \cdot 2.5^2 \approx \boxed{19.63}$.", "incorrect"),
    Case("units", r"\frac{25\pi}{4}", r"The area is $\boxed{\frac{25\pi}{4} \text{ cm}^2}$.", "correct"),
    Case("units", r"45^\circ", r"So $\angle ABC = \boxed{45}$.", "correct"),
    Case("units", r"45^\circ", r"The exterior angle is $\boxed{135^\circ}$.", "incorrect"),
    Case("units", r"36", r"Each base angle measures $\boxed{36^\circ}$.", "correct"),
    Case("numbers", r"5\sqrt{2}", r"The diagonal is $\boxed{7.07}$.", "incorrect"),
    Case("symbolic", r"5\sqrt{2}", r"The diagonal is $\boxed{\sqrt{50}}$.", "correct"),
    Case("symbolic", r"5\sqrt{2}", r"The diagonal is $\boxed{\frac{10}{\sqrt{2}}}$.", "correct"),
    Case("numbers", r"12\pi", r"The circumference is $\boxed{37.7}$.", "incorrect"),
    Case("symbolic", r"\frac{\sqrt{3}}{4}", r"The area is $\boxed{\frac{1}{4}\sqrt{3}}$.", "correct"),
    Case("equations", r"8", r"By the Pythagorean theorem, $\boxed{c = 8}$.", "correct"),
    Case("equations", r"8", r"By the Pythagorean theorem, $\boxed{c^2 = 64}$.", "incorrect"),
    Case("structures", r"(3, -4)", r"The reflected point is $\boxed{(-4, 3)}$.", "incorrect"),
    Case("structures", r"(3, -4)", r"The reflected point is $\boxed{\left(3, -4\right)}$.", "correct"),
    Case("numbers", r"24", r"The area is $6 \cdot 8 = \boxed{48}$.", "incorrect"),
    Case("numbers", r"\frac{500\pi}{3}", r"The volume is $\frac{4}{3}\pi (5)^3 = \boxed{166.67\pi}$.", "incorrect"),
    Case("symbolic", r"\frac{500\pi}{3}", r"The volume is $\boxed{\frac{4}{3}\pi \cdot 125}$.", "correct"),

    # --- number theory ---
    Case("numbers", r"1011_2", r"Converting, $11_{10} = \boxed{1011_2}$.", "correct"),
    Case("numbers", r"1011_2", r"Converting, $11_{10} = \boxed{1101_2}$.", "incorrect"),
    Case("numbers", r"6", r"""<think>
2^10 = 1024 = 7*146 + 2... let me just do 1000 mod 7: 7*142 = 994, remainder 6.
</think>
Since $7 \cdot 142 = 994$, the remainder when $1000$ is divided by $7$ is $\boxed{6}$.""", "correct"),
    Case("numbers", r"12", r"The number $72 = 2^3 \cdot 3^2$ has $(3+1)(2+1) = \boxed{12}$ divisors.", "correct"),
    Case("numbers", r"12", r"The number $72 = 2^3 \cdot 3^2$ has $3 \cdot 2 = \boxed{6}$ divisors.", "incorrect"),
    Case("numbers", r"0", r"The sum telescopes to $\boxed{10^{-10}}$.", "incorrect"),
    Case("numbers", r"0", r"The sum telescopes to $\boxed{0.0}$.", "correct"),

    # --- precalculus ---
    Case("structures", r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"$\mathbf{M} = \boxed{\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}}$", "correct"),
    Case("structures", r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"$\mathbf{M} = \boxed{\begin{pmatrix} 1 & 3 \\ 2 & 4 \end{pmatrix}}$", "incorrect"),
    Case("structures", r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"""Therefore,
\[
\mathbf{M} = \boxed{\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}}.
\]""", "correct"),
    Case("structures", r"\begin{pmatrix} -1 \\ 2 \end{pmatrix}", r"The projection is $\boxed{\begin{pmatrix} 1 \\ -2 \end{pmatrix}}$.", "incorrect"),
    Case("structures", r"\begin{pmatrix} \frac{1}{2} \\ 0 \\ -\frac{3}{2} \end{pmatrix}", r"So $\mathbf{v} = \boxed{\begin{pmatrix} 0.5 \\ 0 \\ -1.5 \end{pmatrix}}$.", "correct"),
    Case("structures", r"\left( 2, \frac{5 \pi}{3} \right)", r"In polar coordinates the point is $\boxed{(2, \frac{5\pi}{3})}$.", "correct"),
    Case("structures", r"\left( 2, \frac{5 \pi}{3} \right)", r"In polar coordinates the point is $\boxed{\left(2, 5\pi/3\right)}$.", "correct"),
    Case("structures", r"\left( 2, \frac{5 \pi}{3} \right)", r"In polar coordinates the point is $\boxed{\left(2, -\frac{\pi}{3}\right)}$.", "incorrect"),
    Case("structures", r"\left( 2, \frac{5 \pi}{3} \right)", r"In polar coordinates the point is $\boxed{\left(\frac{5\pi}{3}, 2\right)}$.", "incorrect"),
    Case("structures", r"\left( 3, \frac{\pi}{2}, \frac{\pi}{4} \right)", r"The spherical coordinates are $\boxed{(3, \pi/2, \pi/4)}$.", "correct"),
    Case("structures", r"\left( 3, \frac{\pi}{2}, \frac{\pi}{4} \right)", r"The spherical coordinates are $\boxed{(3, \pi/4, \pi/2)}$.", "incorrect"),
    Case("numbers", r"\frac{\pi}{3}", r"So $\theta = \boxed{\frac{2\pi}{6}}$.", "correct"),
    Case("numbers", r"\frac{\pi}{3}", r"So $\theta \approx \boxed{1.047}$.", "incorrect"),
    Case("symbolic", r"\cot x", r"The expression simplifies to $\boxed{\frac{\cos x}{\sin x}}$.", "correct"),
    Case("symbolic", r"\cos 2x", r"The expression simplifies to $\boxed{1 - 2\sin^2 x}$.", "correct"),
    Case("symbolic", r"\cos 2x", r"The expression simplifies to $\boxed{2\cos^2 x + 1}$.", "incorrect"),

    # --- intermediate algebra ---
    Case("symbolic", r"x^3 - 2x^2 + 4", r"Thus $p(x) = \boxed{4 - 2x^2 + x^3}$.", "correct"),
    Case("symbolic", r"x^3 - 2x^2 + 4", r"Thus the polynomial is $\boxed{x^3 - 2x^2 - 4}$.", "incorrect"),
    Case("symbolic", r"x^3 - 2x^2 + 4", r"Thus the polynomial is $\boxed{x^2(x - 2) + 4}$.", "correct"),
    Case("symbolic", r"\sqrt{2}+1", r"The minimum value is $\boxed{1+\sqrt{2}}$.", "correct"),
    Case("symbolic", r"\sqrt{2}+1", r"The minimum value is $\boxed{\frac{1}{\sqrt{2}-1}}$.", "correct"),
    Case("numbers", r"\sqrt{2}+1", r"The minimum value is $\boxed{2.414}$.", "incorrect"),
    Case("symbolic", r"3 - 4i", r"So $\bar{z} = \boxed{3 + 4i}$.", "incorrect"),
    Case("symbolic", r"3 - 4i", r"So $z = \boxed{\frac{25}{3+4i}}$.", "correct"),
    Case("symbolic", r"2i", r"The answer is $\boxed{\sqrt{-4}}$.", "correct"),
    Case("structures", r"\sqrt{5}, -\sqrt{5}", r"The real roots are $\boxed{\pm \sqrt{5}}$.", "correct"),
    Case("structures", r"3, -3", r"So $x = \boxed{\pm 3}$.", "correct"),
    Case("structures", r"3, -3", r"So $x = \boxed{3}$.", "incorrect"),
    Case("structures", r"1, 2, 3", r"The roots are $\boxed{3, 1, 2}$.", "correct"),
    Case("structures", r"1, 2, 3", r"The roots are $\boxed{1, 2}$.", "incorrect"),
    Case("symbolic", r"(x - 1)(x + 2)(x - 3)", r"The polynomial is $\boxed{x^3 - 2x^2 - 5x + 6}$.", "correct"),
    Case("symbolic", r"-3x + 5", r"The remainder is $\boxed{5 - 3x}$.", "correct"),
    Case("symbolic", r"-3x + 5", r"The remainder is $\boxed{-3x - 5}$.", "incorrect"),
    Case("numbers", r"e^2", r"The limit equals $\boxed{7.389}$.", "incorrect"),
    Case("symbolic", r"e^2", r"The limit equals $\boxed{e \cdot e}$.", "correct"),
    Case("symbolic", r"\frac{1}{e}", r"The maximum is $\boxed{e^{-1}}$.", "correct"),
    Case("numbers", r"\ln 2", r"The integral is $\boxed{0.693}$.", "incorrect"),
    Case("structures", r"(-\infty, 1) \cup (1, \infty)", r"The domain is $\boxed{(1, \infty) \cup (-\infty, 1)}$.", "correct"),
    Case("structures", r"(-\infty, 1) \cup (1, \infty)", r"The domain is $\boxed{(-\infty, \infty)}$.", "incorrect"),
    Case("numbers", r"\frac{9}{4}", r"The maximum value is $\boxed{2\frac{1}{4}}$.", "correct"),
    Case("numbers", r"-\frac{7}{2}", r"By Vieta, the sum of the roots is $\boxed{\frac{7}{2}}$.", "incorrect"),
    Case("numbers", r"-\frac{7}{2}", r"By Vieta, the sum of the roots is $\boxed{-3.5}$.", "correct"),

    # --- prealgebra ---
    Case("units", r"\$1.35", r"She pays $\boxed{\$1.35}$.", "correct"),
    Case("units", r"\$1.35", r"She pays $\boxed{1.35}$ dollars.", "correct"),
    Case("units", r"\$1.35", r"She pays $\boxed{\$1.53}$.", "incorrect"),
    Case("numbers", r"\$1.35", r"Rounded, she pays $\boxed{\$1.4}$.", "incorrect"),
    Case("units", r"17\%", r"The percent increase is $\boxed{17}$.", "correct"),
    Case("units", r"17\%", r"The percent increase is $\boxed{17\%}$.", "correct"),
    Case("units", r"17\%", r"The percent increase is $\boxed{0.17}$.", "correct"),
    Case("units", r"17\%", r"The percent increase is $\boxed{0.017}$.", "incorrect"),
    Case("units", r"40", r"So $\boxed{40\%}$ of the students chose soccer.", "correct"),
    Case("units", r"25\%", r"The discount is $\boxed{25 \text{ percent}}$.", "correct"),
    Case("units", r"25\%", r"The discount is $\boxed{0.25}$.", "correct"),
    Case("numbers", r"2.4", r"The answer is $\boxed{\frac{12}{5}}$.", "correct"),
    Case("numbers", r"2.4", r"The answer is $\boxed{2\frac{2}{5}}$.", "correct"),
    Case("numbers", r"\frac{7}{12}", r"Adding, $\frac{1}{3} + \frac{1}{4} = \boxed{\frac{14}{24}}$.", "correct"),
    Case("numbers", r"\frac{7}{12}", r"Adding, $\frac{1}{3} + \frac{1}{4} \approx \boxed{0.58}$.", "incorrect"),
    Case("extraction", r"\frac{7}{12}", r"""$\frac{1}{3} + \frac{1}{4} = \frac{4}{12} + \frac{3}{12} = \frac{7}{12}$.
Final Answer: The final answer is $\frac{7}{12}$. I hope it is correct.""", "correct"),
    Case("extraction", r"\frac{7}{12}", r"""$\frac{2}{3} - \frac{1}{4} = \frac{8}{12} - \frac{3}{12} = \frac{5}{12}$.
Final Answer: The final answer is $\frac{5}{12}$. I hope it is correct.""", "incorrect"),
    Case("numbers", r"2\frac{1}{4}", r"The recipe needs $\boxed{\frac{9}{4}}$ cups.", "correct"),
    Case("numbers", r"2\frac{1}{4}", r"The recipe needs $\boxed{2\frac{1}{2}}$ cups.", "incorrect"),
    Case("formatting", r"2\frac{1}{4}", r"The recipe needs $\boxed{2 \tfrac{1}{4}}$ cups.", "correct"),
    Case("formatting", r"0.6", r"The answer is $\boxed{.6}$.", "correct"),
    Case("numbers", r"12.57", r"The answer is $\boxed{12.6}$.", "incorrect"),
    Case("numbers", r"12.57", r"The answer is $\boxed{12.570}$.", "correct"),
    Case("numbers", r"3.2 \times 10^{-4}", r"The answer is $\boxed{0.00032}$.", "correct"),
    Case("numbers", r"3.2 \times 10^{-4}", r"The answer is $\boxed{3.2 \times 10^{-3}}$.", "incorrect"),
    Case("numbers", r"12000", r"The answer is $\boxed{1.2 \times 10^4}$.", "correct"),
    Case("formatting", r"1000", r"There are $\boxed{1{,}000}$ of them.", "correct"),
    Case("numbers", r"\frac{1}{8}", r"The fraction shaded is $\boxed{0.125}$.", "correct"),
    Case("units", r"\frac{1}{8}", r"The fraction shaded is $\boxed{12.5\%}$.", "correct"),
    Case("formatting", r"-5", r"The answer is \[\boxed{-5.0}\]", "correct"),

    # --- text answers and multiple choice ---
    Case("text", r"\text{Saturday}", r"Counting forward 40 days lands on a $\boxed{\text{Saturday}}$.", "correct"),
    Case("text", r"\text{Saturday}", r"Counting forward 40 days, the answer is Saturday.", "correct"),
    Case("text", r"\text{Saturday}", r"Counting forward 40 days lands on a $\boxed{\text{Sunday}}$.", "incorrect"),
    Case("text", r"\text{Saturday}", r"Counting forward 40 days lands on a $\boxed{\text{saturday}}$.", "correct"),
    Case("text", r"\text{odd}", r"Since $f(-x) = -f(x)$, the function is $\boxed{\text{odd}}$.", "correct"),
    Case("text", r"\text{odd}", r"Since $f(-x) = f(x)$, the function is $\boxed{\text{even}}$.", "incorrect"),
    Case("text", r"\text{neither}", r"The function is $\boxed{\mathrm{Neither}}$.", "correct"),
    Case("text", r"\text{(C)}", r"The answer is $\boxed{C}$.", "correct"),
    Case("text", r"\text{(C)}", r"The answer is $\boxed{\textbf{(C)}}$.", "correct"),
    Case("text", r"\text{(C)}", r"The answer is (C) 24.", "correct"),
    Case("text", r"\text{(C)}", r"The answer is $\boxed{(B)}$.", "incorrect"),
    Case("text", r"\text{(C)}", r"The answer is $\boxed{(C) \text{ or } (D)}$.", "incorrect"),
    Case("text", r"\text{(C)}", r"The answer is $\boxed{(c)}$.", "correct"),
    Case("text", r"\text{(E)}", r"""Checking each option, only (E) satisfies both conditions.

**Answer: (E)**""", "correct"),
    Case("text", r"\text{(E)}", r"""Checking each option, only (D) satisfies both conditions.

**Answer: (D)**""", "incorrect"),
    Case("text", r"B", r"The correct choice is $\boxed{\textbf{(B) } 24}$.", "correct"),
    Case("text", r"B", r"The answer is $\boxed{B, D}$.", "incorrect"),

    # --- GSM8K ---
    Case("extraction", r"18", r"""Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.
She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer's market.
#### 18""", "correct"),
    Case("extraction", r"18", r"""Janet sells 16 - 3 - 4 = 9 duck eggs a day.
She makes 9 * 2 - 1 = 17 dollars every day.
#### 17""", "incorrect"),
    Case("formatting", r"18", r"The answer is \$18.", "correct"),
    Case("units", r"18", r"""She makes 9 * 2 = 18 dollars.
#### \$18""", "correct"),
    Case("formatting", r"18", r"""She makes 9 * 2 = 18 dollars.
#### 18.00""", "correct"),
    Case("formatting", r"1200", r"""He saves 100 dollars a month for 12 months, so 100 * 12 = 1200.
#### 1,200""", "correct"),
    Case("units", r"1200", r"Over a year he saves $\boxed{\$1,200}$.", "correct"),
    Case("numbers", r"1200", r"""He saves 100 dollars a month for 12 months, so 100 + 12 = 112... no, 10 * 12 = 120.
#### 120""", "incorrect"),
    # new rule (was no_answer): a complete concluding sentence ("So ...") that names one value commits to it
    Case("extraction", r"624", r"""First, the cost per week is 52 dollars. Over 12 weeks that is 52 * 12 = 624 dollars. So he pays 624 dollars in total.""", "correct"),
    Case("extraction", r"3", r"""Each friend gets 12 / 4 = 3 cookies.

**Answer:** 3""", "correct"),
    Case("extraction", r"3", r"""Each friend gets 12 / 3 = 4 cookies.

**Answer: 4**""", "incorrect"),
    Case("formatting", r"70000", r"""The house cost 80,000 + 50,000 = 130,000. Its value increased to 80,000 * 2.5 = 200,000. The profit is 200,000 - 130,000 = 70,000.
#### 70,000""", "correct"),
    Case("numbers", r"70000", r"""The profit is 200,000 - 80,000 = 120,000.
#### 120,000""", "incorrect"),
    Case("units", r"35", r"""It takes 5 * 7 = 35 minutes.
Answer: 35 minutes""", "correct"),
    Case("units", r"35", r"""It takes 5 + 7 = 12 minutes.
Answer: 12 minutes""", "incorrect"),
    Case("extraction", r"460", r"""<think>
Eliza works 40 regular hours at 10 dollars = 400, plus 5 overtime hours at 12 = 60. Total 460.
</think>

Eliza earns $40 \times 10 = 400$ dollars for regular hours and $5 \times 12 = 60$ dollars overtime.

**Final Answer**
\[
\boxed{460}
\]""", "correct"),
    Case("extraction", r"460", r"""<think>
Eliza works 45 hours at 10 dollars = 450.
</think>

Eliza earns $45 \times 10 = 450$ dollars.

**Final Answer**
\[
\boxed{450}
\]""", "incorrect"),
    Case("extraction", r"460", r"""<think>
Eliza works 40 regular hours at 10 dollars = 400, plus 5 overtime hours at 1.2 * 10 = 12 dollars per hour, so 60 more. Total 460. Let me double check the overtime rate. The problem says 1.2 times her regular""", "no_answer"),
    Case("units", r"5", r"He runs $\boxed{50 \text{ miles}}$ per week.", "incorrect"),

    # --- self-correction vs spraying ---
    # a self-check's conclusion after the answer ("the answer is correct") remarks on it, it does not replace it
    Case("spraying", r"50", "So the number of students is $\\boxed{50}$.\n\nLet me verify: $25 \\cdot 2 = 50$. Therefore, the answer is correct.", "correct"),
    Case("spraying", r"50", r"The answer is 50. I double-checked each step, and the answer is indeed right.", "correct"),
    Case("spraying", r"48", r"The answer is $\boxed{50}$. Checking: $25 \cdot 2 = 50$, so the answer is consistent.", "incorrect"),
    Case("spraying", r"5", r"So $x = \boxed{5}$. Wait, plugging it back in, the answer is wrong.", "incorrect"),  # a retraction never lets the box stand
    Case("text", r"\text{right}", r"The angle measures $90^\circ$, so the answer is right.", "correct"),  # alone, "right" is the answer
    Case("spraying", r"\{0, 7\}", r"So the answer is $\boxed{\{0, 7\}, 7}$.", "incorrect"),  # a set and more is not the set
    Case("spraying", r"\{0, 7\}", r"So the answer is $\boxed{\{0, 7\}}$.", "correct"),
    # a closing self-affirmation states nothing: the sentence before it is the last one
    Case("spraying", r"194", "Area ratio is (25/4)/(169/4) = 25/169.\n\nYes, that seems correct.\n\nSo, m = 25 and n = 169, and m + n = 194.\n\nI think that's the answer.", "correct"),
    Case("spraying", r"8", "Adding them, 3 + 4 = 7, so the total is 7.\n\nYes, that seems correct.", "incorrect"),
    Case("spraying", r"7", r"So $x = \boxed{5}$. Wait, I dropped a sign when expanding. Redoing it: $2x - 3 = 11$, so $x = \boxed{7}$.", "correct"),
    Case("spraying", r"5", r"So $x = \boxed{5}$. Wait, I dropped a sign when expanding. Redoing it: $2x - 3 = 11$, so $x = \boxed{7}$.", "incorrect"),
    Case("spraying", r"7", r"Possible answers: $\boxed{5}$, or maybe $\boxed{6}$, or $\boxed{7}$.", "incorrect"),
    Case("spraying", r"7", r"""The answer is 5.

Hmm, I miscounted. Actually, the answer is 6.

Let me recount once more.
Final Answer: $\boxed{7}$""", "correct"),  # new rule (was: three answers is spraying): the last statement stands
    Case("spraying", r"7", r"""So $x = \boxed{7}$.

Verification: $2(7) - 3 = 11$. Confirmed, $x = \boxed{7}$, i.e. $\boxed{7.0}$.""", "correct"),
    Case("spraying", r"\frac{1}{2}", r"The probability is $\boxed{0.5}$, i.e. $\boxed{\frac{1}{2}}$.", "correct"),
    Case("spraying", r"7", r"So $x = \boxed{7 \text{ or } 8}$.", "incorrect"),
    Case("spraying", r"7", r"So $x = \boxed{6, 7}$.", "incorrect"),
    Case("spraying", r"7", r"The answer is either 7 or 8.", "incorrect"),
    Case("spraying", r"3, -5", r"From the first factor, $x = \boxed{3}$. From the second factor, $x = \boxed{-5}$.", "incorrect"),
    Case("spraying", r"12", r"""The answer is 10.

Hmm, I forgot the two corner pieces. Recounting gives 12.

The answer is 12.""", "correct"),
    Case("spraying", r"10", r"""The answer is 10.

Hmm, I forgot the two corner pieces. Recounting gives 12.

The answer is 12.""", "incorrect"),
    Case("spraying", r"\frac{3}{8}", r"So the probability is $\boxed{\frac{3}{8}}$. As a decimal, that is $\boxed{0.375}$.", "correct"),
    Case("spraying", r"24", r"It could be 12, 24, or 48.", "no_answer"),  # a bare sentence with three numbers commits to none
    Case("spraying", r"18", r"""She sells 16 - 3 - 5 = 8 eggs, so 8 * 2 = 16.
#### 16
Wait, she uses 4 eggs for muffins, not 5. So 16 - 3 - 4 = 9 and 9 * 2 = 18.
#### 18""", "correct"),
    Case("spraying", r"45", r"The answer is 45. $\boxed{45}$", "correct"),
    Case("spraying", r"\text{(C)}", r"At first I picked $\boxed{(B)}$, but (B) fails the second condition, so the answer is $\boxed{(C)}$.", "correct"),
    Case("spraying", r"\text{(C)}", r"The answer is $\boxed{(B), (C)}$.", "incorrect"),
    Case("spraying", r"9", r"""<think>
Maybe 8? \boxed{8}. Or 10? \boxed{10}. Let me recompute: 16 - 3 - 4 = 9.
</think>
She has $16 - 3 - 4 = \boxed{9}$ eggs left.""", "correct"),
    Case("spraying", r"9", r"""<think>
16 - 3 - 4 = 9.
</think>
She has $\boxed{8}$ eggs left... no, $\boxed{10}$... actually $\boxed{9}$.""", "correct"),  # new rule (was incorrect): "no", "actually" are reasoning: the last box stands

    # --- huge ---
    Case("huge", r"2^{100}", r"The answer is $\boxed{1267650600228229401496703205376}$.", "correct"),
    Case("huge", r"2^{100}", r"The answer is $\boxed{4^{50}}$.", "correct"),
    Case("huge", r"2^{100}", r"The answer is $\boxed{2^{99}}$.", "incorrect"),
    Case("huge", r"2^{100}", r"The answer is approximately $\boxed{1.27 \times 10^{30}}$.", "incorrect"),
    Case("huge", r"2^{2^{100}}", r"The answer is $\boxed{4^{2^{99}}}$.", "correct"),
    Case("huge", r"2^{2^{100}}", r"The answer is $\boxed{2^{2^{99}}}$.", "incorrect"),
    Case("huge", r"10^{100}", r"The answer is $\boxed{10^{99}}$.", "incorrect"),
    Case("huge", r"3^{2023}", r"The answer is $\boxed{3 \cdot 9^{1011}}$.", "correct"),
    Case("huge", r"7^{7^{7}}", r"The answer is $\boxed{7^{823543}}$.", "correct"),
    Case("huge", r"100!", r"The answer is $\boxed{\frac{101!}{101}}$.", "correct"),
    Case("huge", r"100!", r"The answer is $\boxed{99!}$.", "incorrect"),

    # --- garbage, truncation, unparseable answers ---
    Case("garbage", r"18", r"", "no_answer"),
    Case("garbage", r"18", r"""

   """, "no_answer"),
    Case("garbage", r"\frac{7}{12}", r"""Let me think. Let me think. Let me think. Let me think. Let me think. Let me think. Let me think. Let me think. Let me think. Let me think. Let me think. Let me think.""", "no_answer"),
    Case("garbage", r"\frac{3}{4}", r"The answer is $\boxed{\frac{3}{}}$.", "unparseable"),
    Case("garbage", r"5", r"The answer is $\boxed{2 +* 3}$.", "unparseable"),
    Case("garbage", r"\sqrt{2}", r"Final Answer: The final answer is $\sqrt{$. I hope it is correct.", "unparseable"),
    Case("garbage", r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"$\mathbf{M} = \boxed{\begin{pmatrix} 1 & 2 \\ 3 & 4}$", "unparseable"),
    Case("garbage", r"12", r"The answer is $\boxed{)(}$.", "unparseable"),
    Case("garbage", r"\frac{1}{2}", r"Final Answer: $1/2/$", "unparseable"),
    Case("garbage", r"6", r"""#### \frac{}{}""", "unparseable"),
    Case("garbage", r"24", r"Answer: $\sqrt[]{}$ \times \times", "unparseable"),
    Case("garbage", r"9", r"""<think>
16 - 3 - 4 = 9
</think>
The answer is $\boxed{= =}$.""", "unparseable"),
    Case("garbage", r"10", r"""<think>
Let me set up the equation. If x + y = 10 and x - y = 2, then adding gives 2x = 12 so x = 6 and y = 4. The question asks for x + y, which is</think>""", "no_answer"),
    Case("garbage", r"10", r"""Step 1: Add the equations. Step 2: Solve for x. Step 3: Substitute back into the first equation. Step 4: Report the sum of x and y as required by the problem.""", "no_answer"),
    Case("garbage", r"\frac{25\pi}{4}", r"""To find the area, we first need the radius. The diameter is 5, so the radius is half of that. Then we apply the formula for the area of a circle, which involves squaring the radius and multiplying by pi. Substituting the radius into""", "no_answer"),
]
# fmt: on
