"""How models state a final answer, as a strategy: one place to add the forms real outputs use.

Built from what real completions show (GSM8K model solutions, Minerva/MATH few-shot outputs,
chat models, R1-style tags; see ``../shared/realdata`` and `verifiers.math._statements`), as
templates composed with reasoning before and courtesy or chat-template residue after, never
as copies of particular outputs.
"""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["answer_statements", "as_the_answer"]

_REASONING = (
    "",
    "We work through the problem one step at a time.\n",
    "First we set up the quantities, then we combine them carefully.\n\n",
    "Let me check the earlier step again; it holds.\n",
)

_STATEMENTS = (
    "\\boxed{{{a}}}",
    "So the result is $\\boxed{{{a}}}$.",
    "The answer is ${a}$.",
    "Therefore, the final answer is ${a}$.",
    "Final Answer: The final answer is ${a}$. I hope it is correct.",
    "A: {a}",
    "Answer: ${a}$",
    "**Answer:** ${a}$",
    "**Final Answer**\n\n${a}$",
    "### Final Answer\n\\[\n\\boxed{{{a}}}\n\\]",
    "Putting it all together, the quantity we were asked for is ${a}$.",
    "Thus, the answer (in simplest form) is ${a}$.",
    "#### {a}",
    "</think>\n<answer> {a} </answer>",
    "After checking, we first got $\\boxed{{7}}$ and then $\\boxed{{8}}$ for the parts, so the answer is ${a}$.",
)

_AFTER = (
    "",
    "",
    " I hope this helps!",
    "\n\nLet me know if you have any questions.",
    "<|im_end|>",
    "</s>",
    "<|eot_id|>",
    "\n```",
)


def answer_statements(answer: str) -> st.SearchStrategy[str]:
    """A completion that commits to ``answer`` (LaTeX, without ``$``) the way models write it:
    reasoning, then a closing ``A: x`` line, a bold "Final Answer", a final sentence naming the
    quantity, a Minerva-style statement with its courtesy sentence, boxed intermediate results
    then a final statement, an ``<answer>`` tag; then maybe courtesy text or chat-template residue.

    Examples:
        >>> from hypothesis import find
        >>> "42" in find(answer_statements("42"), lambda text: "A:" in text)
        True
    """
    return st.builds(
        lambda before, statement, after: before + statement.format(a=answer) + after,
        st.sampled_from(_REASONING),
        st.sampled_from(_STATEMENTS),
        st.sampled_from(_AFTER),
    )


def as_the_answer(gold: str) -> st.SearchStrategy[str]:
    """``gold`` itself stated as the answer: boxed, in an answer statement, and bare (alone) when
    it is short enough to be a whole answer (one line of at most 100 characters)."""
    forms = [f"\\boxed{{{gold}}}", f"The answer is ${gold}$.", f"Final Answer: ${gold}$"]
    if "\n" not in gold and len(gold) <= 100:
        forms.append(gold)
    return st.sampled_from(forms)
