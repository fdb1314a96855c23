"""Hand-labeled cases for the grammar of final-answer statements and the runs-of-boxes rule.

Written for `verifiers.math._statements` / `_extract`: how real models state the answer they
commit to (labels, headings, answer phrases, concluding sentences), what may follow it
(courtesy, chat-template residue, a new few-shot question), what a cut-off output looks like,
runs of boxes (one collection answer), self-correction, and traps that must stay incorrect.
Same row format as `math_table.py`.
"""

# ruff: noqa: E501  (one row per line keeps the table readable)

from __future__ import annotations

from math_table import Case

# fmt: off
CASES: list[Case] = [
    # --- label lines ---
    Case("statements", r"63", "Each crate holds 9 melons and there are 7 crates: 9 * 7 = 63.\nA: 63", "correct"),
    Case("statements", r"63", "Each crate holds 9 melons and there are 7 crates: 9 * 7 = 63.\nA: 64", "incorrect"),
    Case("statements", r"2.5", "The recipe halves 5 cups.\nA: 2.5", "correct"),
    Case("statements", r"-8", "The temperature fell 11 degrees from 3.\nA: -8", "correct"),
    Case("statements", r"81", "The square has side 9, so its area is 81.\nAnswer: 81", "correct"),
    Case("statements", r"81", "The square has side 9, so its area is 81.\n**Answer:** 81", "correct"),
    Case("statements", r"81", "The square has side 9, so its area is 81.\n**Answer**: 81 square units", "correct"),
    Case("statements", r"81", "Side 9, area 9^2.\n### Answer: $81$", "correct"),
    Case("statements", r"81", "Side 9, area 9^2.\nFinal answer: 81.", "correct"),
    Case("statements", r"81", "Side 9, area 9^2.\nAnswer (in digits): 81.", "correct"),
    Case("statements", r"81", "Side 9, area 9^2.\nAnswer (numerical value only): 81", "correct"),
    Case("statements", r"81", "Side 9, area 9^2.\nAns: 81", "correct"),
    Case("statements", r"81", "Side 9, area 9^2.\nAnswer: 18", "incorrect"),
    # a label line whose value is a sentence
    Case("statements", r"56", "Four rows of fourteen chairs.\nAnswer: There are 56 chairs in the hall.", "correct"),

    # --- heading lines, the value below ---
    Case("statements", r"35", "Seven weeks of five visits each.\n\n**Final Answer**\n\n35", "correct"),
    Case("statements", r"35", "Seven weeks of five visits each.\n\n**Final Answer**\nThe clinic sees 35 visitors.", "correct"),
    Case("statements", r"35", "Seven weeks of five visits each.\n\n## Final Answer\n$$35$$", "correct"),
    Case("statements", r"35", "Seven weeks of five visits each.\n\n### Final Answer:\n\\[ 35 \\]", "correct"),
    Case("statements", r"35", "Seven weeks of five visits each.\n\n**Final Answer**\n\\[\n\\boxed{35}\n\\]", "correct"),
    Case("statements", r"35", "Seven weeks of five visits each.\n\n**Final Answer**\n\n36", "incorrect"),

    # --- answer phrases in a sentence ---
    Case("statements", r"27", "The cube has edge 3, so the answer is 27.", "correct"),
    Case("statements", r"27", "Therefore, the answer (arabic numerals) is 27.", "correct"),
    Case("statements", r"27", "So the answer (with units) is 27 cubic centimetres.", "correct"),
    Case("statements", r"27", "The answer to the question is 27.", "correct"),
    Case("statements", r"27", "My final answer is: 27", "correct"),
    Case("statements", r"27", "The correct answer is $27$, since the edge is 3.", "correct"),
    Case("statements", r"27", "3 cubed, and the answer is **27**.", "correct"),
    Case("statements", r"\frac{4}{9}", "Two draws with replacement; the answer is $\\frac{4}{9}$.", "correct"),
    # a negated statement commits to nothing, whatever follows in its sentence
    Case("statements", r"27", "The answer is not 27; it is 28.", "no_answer"),
    Case("statements", r"27", "The answer is not 27.", "no_answer"),
    Case("statements", r"27", "If the answer is 27, then the edge must be 3, but we have not found the edge yet", "no_answer"),

    # --- courtesy sentences after the answer ---
    Case("statements", r"\frac{3}{5}", "Final Answer: The final answer is $\\frac{3}{5}.$ I hope it is correct.", "correct"),
    Case("statements", r"11", "Final Answer: The final answer is $11.$ I hope it is correct.", "correct"),
    Case("statements", r"11", "Final Answer: The final answer is $12.$ I hope it is correct.", "incorrect"),
    Case("statements", r"11", "So the answer is 11. I hope this helps!", "correct"),
    Case("statements", r"11", "So the answer is 11.\n\nLet me know if you have any other questions.", "correct"),
    Case("statements", r"11", "Hence there are 11 teams in the league. Hope this helps! Feel free to ask more.", "correct"),
    Case("statements", r"11", "Eleven teams play. The answer is 11. Thank you!", "correct"),

    # --- chat-template residue ---
    Case("statements", r"11", "The league has 11 teams.<|im_end|>", "correct"),
    Case("statements", r"11", "So the answer is 11.<|eot_id|>", "correct"),
    Case("statements", r"11", "So the answer is 11.</s>", "correct"),
    Case("statements", r"11", "11<|endoftext|>", "correct"),
    Case("statements", r"11", "So the answer is 11.<|im_end|>\n<|im_start|>user\nAnd if there were 12?<|im_end|>\n<|im_start|>assistant\nThe answer is 12.", "correct"),
    Case("statements", r"12", "So the answer is 11.<|im_end|>\n<|im_start|>user\nAnd if there were 12?<|im_end|>\n<|im_start|>assistant\nThe answer is 12.", "incorrect"),
    Case("statements", r"11", "<|im_start|>assistant\nEleven teams in all, so the answer is 11.", "correct"),

    # --- a new few-shot question ends the completion ---
    Case("statements", r"14", "He walks 2 miles a day for 7 days: 2 * 7 = 14.\nA: 14\n\nQ: Sara has 3 pens and buys 5 more. How many pens?\nA: 8", "correct"),
    Case("statements", r"8", "He walks 2 miles a day for 7 days: 2 * 7 = 14.\nA: 14\n\nQ: Sara has 3 pens and buys 5 more. How many pens?\nA: 8", "incorrect"),
    Case("statements", r"14", "He walks 2 miles a day for 7 days, so he walks 2 * 7 = 14 miles.\n\nQuestion: Sara has 3 pens and buys 5 more. How many pens?\nAnswer: 8", "correct"),

    # --- the last complete sentence states the value ---
    Case("statements", r"\frac{5}{8}", "Of the 8 equally likely outcomes, 5 favour Bo, so the probability that Bo wins is 5/8.", "correct"),
    Case("statements", r"\frac{5}{8}", "Of the 8 equally likely outcomes, 5 favour Bo, so the probability that Bo wins is $\\frac{5}{8}$.", "correct"),
    Case("statements", r"30", "Mia reads 6 pages a night.\nOver 5 nights she reads 6 * 5 = 30 pages.", "correct"),
    Case("statements", r"30", "Mia reads 6 pages a night.\nOver 5 nights, the total number of pages she reads is 30.", "correct"),
    Case("statements", r"30", "Mia reads 6 pages a night for 5 nights.\nTherefore, Mia reads 30 pages in total.", "correct"),
    Case("statements", r"30", "Mia reads 6 pages a night for 5 nights.\nIn total, Mia finishes 30 pages of her novel.", "correct"),
    Case("statements", r"30", "Mia reads 6 pages a night for 5 nights.\nSo, Mia reads $\\$30$ worth of pages.", "correct"),
    Case("statements", r"30", "Mia reads 6 pages a night for 5 nights.\nSo Mia reads 31 pages.", "incorrect"),
    Case("statements", r"48", "A dozen costs 4 dollars, so 12 dozen cost 12 * 4 = $48.", "correct"),
    # neither an assertion ("is", "=") nor a conclusion ("So", "Therefore"): a sentence that merely mentions a value
    Case("statements", r"48", "A dozen costs 4 dollars. Twelve dozen cost $48 in all, which is what Ken paid.", "no_answer"),
    Case("statements", r"48", "A dozen costs 4 dollars. Altogether twelve dozen cost $48, which is what Ken paid.", "correct"),
    # a concluding sentence that names two values commits to neither
    Case("statements", r"48", "A dozen costs 4 dollars.\nSo Ken buys 12 dozen and pays 48 dollars.", "no_answer"),
    # a question, a hedge or a plan is not a statement of the value
    Case("statements", r"48", "A dozen costs 4 dollars. Twelve dozen would then cost 48 dollars, wouldn't they?", "no_answer"),
    Case("statements", r"48", "A dozen costs 4 dollars.\nSo maybe the total is 48.", "no_answer"),
    Case("statements", r"48", "A dozen costs 4 dollars and Ken buys twelve dozen.\nWe need to multiply the two numbers next.", "no_answer"),
    # "next", "could" in a concluding sentence are part of the question's wording, not a hedge
    Case("statements", r"34", "Each term is the sum of the two before it: 13 + 21.\nSo the next term in the sequence is 34.", "correct"),
    Case("statements", r"6", "Each apple costs 2 dollars and Ana has 12 dollars.\nTherefore, Ana could buy 6 apples.", "correct"),

    # --- truncated outputs commit to nothing ---
    Case("statements", r"48", "A dozen costs 4 dollars and Ken buys twelve dozen, so the total cost is 4 * 12 =", "no_answer"),
    Case("statements", r"48", "A dozen costs 4 dollars and Ken buys twelve dozen, so the total cost is 48 dollars and then he", "no_answer"),
    Case("statements", r"48", "A dozen costs 4 dollars.\nKen buys twelve dozen.\nThe total cost is", "no_answer"),
    Case("statements", r"48", "<think>4 * 12 = 48, so the answer is 48. Let me double-check the number of doz", "no_answer"),

    # --- runs of boxes: one collection answer ---
    Case("runs", r"2, 5", r"Factoring $(x-2)(x-5)=0$, the roots are $\boxed{2}$ and $\boxed{5}$.", "correct"),
    Case("runs", r"2, 5", r"The roots are $\boxed{5}, \boxed{2}$.", "correct"),
    Case("runs", r"\{2, 5\}", r"$x = \boxed{2}$ or $x = \boxed{5}$", "correct"),
    Case("runs", r"2, 5, 9", r"\boxed{2} \quad \boxed{5} \quad \boxed{9}", "correct"),
    Case("runs", r"2, 5, 9", r"\boxed{2}, \boxed{5}, \boxed{9}", "correct"),
    Case("runs", r"2, 5, 9", r"\boxed{2}, \boxed{5}", "incorrect"),
    Case("runs", r"2, 5", r"\boxed{2}, \boxed{5}, \boxed{9}", "incorrect"),
    Case("runs", r"5", r"The root is either $\boxed{2}$ or $\boxed{5}$.", "incorrect"),
    Case("runs", r"5", r"\boxed{2}\text{ or }\boxed{5}", "incorrect"),
    Case("runs", r"5", r"\boxed{2}; \boxed{5}", "incorrect"),
    Case("runs", r"5", r"\boxed{5} \boxed{5}", "correct"),
    # a tuple is one ordered answer: separate boxes never make one
    Case("runs", r"(2, 5)", r"$\boxed{2}, \boxed{5}$", "incorrect"),
    Case("runs", r"(2, 5)", r"The point is $\boxed{(2, 5)}$.", "correct"),
    # choices side by side
    Case("runs", r"D", r"\boxed{C} \boxed{D}", "incorrect"),

    # --- self-correction: boxes and statements separated by reasoning, the last stands ---
    Case("self-correction", r"40", r"So the total is $\boxed{36}$. Hmm, I forgot the 4 spare tyres: $36 + 4 = \boxed{40}$.", "correct"),
    Case("self-correction", r"36", r"So the total is $\boxed{36}$. Hmm, I forgot the 4 spare tyres: $36 + 4 = \boxed{40}$.", "incorrect"),
    Case("self-correction", r"40", "Answer: 36\nWait, the spare tyres count too, 4 more.\nAnswer: 40", "correct"),
    Case("self-correction", r"40", "The answer is 32. No, recount. The answer is 36. Still missing the spares. The answer is 40.", "correct"),
    Case("self-correction", r"40", r"First guess $\boxed{32}$, then $\boxed{36}$ after recounting the back row, and finally, adding the spares, $\boxed{40}$.", "correct"),
    Case("self-correction", r"40", "\\boxed{40}\n\nActually, let me recheck: the spares were already counted. The answer is 36.", "incorrect"),
    Case("self-correction", r"40", "#### 36\nOops, I left out the 4 spares.\n#### 40", "correct"),

    # --- answer tags (R1 style), closing markup, role-play turns ---
    Case("statements", r"64", "<think>8 squared.</think> <answer> 64 </answer>", "correct"),
    Case("statements", r"64", "<think>8 squared.</think> <answer>There are 64 squares on the board.</answer>", "correct"),
    Case("statements", r"64", "<think>8 squared.</think> <answer>Eight rows of eight: 8 * 8 = 64 squares, counted once each.</answer>", "correct"),
    Case("statements", r"64", "<think>8 squared.</think> <answer>63</answer>", "incorrect"),
    Case("statements", r"64", "<answer>63</answer><answer>64</answer>", "incorrect"),
    Case("statements", r"64", "<think>8 squared.</think> So the board has 64 squares. </answer>", "correct"),
    Case("statements", r"64", "The board has 8 rows.\nTherefore, the board has 64 squares.\n```\n\n", "correct"),
    Case("statements", r"64", "8 * 8 = 64\n\n# Answer\n\n64", "correct"),
    Case("statements", r"64", "8 * 8 = 64, so there are 64 squares.\nUser: And on a 9 by 9 board?\nAssistant: 81", "correct"),
    Case("statements", r"81", "8 * 8 = 64, so there are 64 squares.\nUser: And on a 9 by 9 board?\nAssistant: 81", "incorrect"),

    # --- traps that stay incorrect ---
    Case("traps", r"7", "The answer is 7 or 8.", "incorrect"),
    Case("traps", r"7", r"So the answer is $\boxed{7, 8}$.", "incorrect"),
    Case("traps", r"7", r"The answer is $\boxed{8}$. (Some might say 7.)", "incorrect"),
    Case("traps", r"7", "We must decide whether the answer is 7.\nThe answer is 9.", "incorrect"),
    Case("traps", r"7", "The question asks for 7 times something; the answer is 21.", "incorrect"),
    Case("traps", r"7", "The answer is 9.<|im_end|>\nThe answer is 7.", "incorrect"),
    Case("traps", r"7", "Is the answer 7?", "no_answer"),
]
# fmt: on
