"""Whether a chat template opens the thinking section in the prompt: found once, from the
rendered generation prompt, against the table of known opening delimiters (`THINKING_FORMATS`).

DeepSeek-R1 and its distills, Qwen3-Thinking-2507 and QwQ end the generation prompt with
``<think>\\n``: their completions carry only ``</think>``, and one cut off before it carries no
delimiter at all. A verifier told so (`read_completion`'s ``opened``, `verifiers.math.MathConfig`'s
``thought_opened``) reads such a completion as a cut-off thought, not as a plain answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verifiers.errors import VerifierInputError
from verifiers.structure._families import THINKING_FORMATS, ThinkingFormat

__all__ = ["opened_thought"]

_PROBE = [{"role": "user", "content": "What is 1 + 1?"}]


def _render(template: Any) -> str:
    if isinstance(template, str):
        return template
    apply = getattr(template, "apply_chat_template", None)
    if apply is None:
        raise VerifierInputError(
            "opened_thought needs a tokenizer with a chat template or a rendered prompt (str), "
            f"got {type(template).__name__}"
        )
    try:
        rendered = apply(_PROBE, tokenize=False, add_generation_prompt=True)
    except Exception as e:  # a template's own error (jinja2, no template set)
        raise VerifierInputError(f"opened_thought could not render the chat template: {e}") from e
    if not isinstance(rendered, str):
        raise VerifierInputError(f"apply_chat_template(tokenize=False) returned {type(rendered).__name__}, not str")
    return rendered


def opened_thought(template: Any, formats: Sequence[ThinkingFormat] = THINKING_FORMATS) -> str | None:
    """The name of the thinking format whose section the chat template opens in the prompt, or None.

    ``template`` is a tokenizer (its ``apply_chat_template`` renders a one-message conversation with
    ``add_generation_prompt=True``) or a generation prompt already rendered. The prompt opens a
    thought when it ends (up to whitespace) with one of a format's opening delimiters: a prompt
    that opens and closes an empty thought (Qwen3's ``enable_thinking=False``) does not.

    Examples:
        >>> opened_thought("<｜User｜>What is 1 + 1?<｜Assistant｜><think>\\n")
        'think'
        >>> opened_thought("<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n") is None
        True
    """
    tail = _render(template).rstrip()
    best: tuple[int, str] | None = None
    for fmt in formats:
        for delim in () if fmt.at_start else fmt.start:  # a header in words is the model's, not a template's
            if tail.endswith(delim.rstrip()) and (best is None or len(delim) > best[0]):
                best = (len(delim), fmt.name)  # the longest opening that ends the prompt
    return None if best is None else best[1]
