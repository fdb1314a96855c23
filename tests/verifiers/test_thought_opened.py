"""A thought the chat template opened in the prompt (R1 distills, Qwen3-Thinking, QwQ): found from
the template (`opened_thought`), and told to the reader (`read_completion(opened=...)`,
`MathConfig.thought_opened`), a completion cut off before ``</think>`` is no answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifiers.errors import VerifierInputError
from verifiers.math import MathConfig, verify
from verifiers.structure import THINKING_FORMATS, opened_thought, read_completion

R1_TEMPLATE = (Path(__file__).parent / "templates" / "deepseek_r1_distill_llama.jinja").read_text()
OPENED = MathConfig(thought_opened="think")


def _tokenizer(template: str) -> object:
    from trainer.policy._model import demo_tokenizer

    tok = demo_tokenizer("0123456789")
    tok.chat_template = template
    return tok


def test_the_r1_distill_template_opens_the_thought() -> None:
    tok = _tokenizer(R1_TEMPLATE)
    prompt = tok.apply_chat_template([{"role": "user", "content": "1+1"}], tokenize=False, add_generation_prompt=True)
    assert prompt.endswith("<｜Assistant｜><think>\n")
    assert opened_thought(tok) == "think"


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("<|im_start|>user\n1+1<|im_end|>\n<|im_start|>assistant\n<think>\n", "think"),  # Qwen3-Thinking-2507, QwQ
        ("<|im_start|>assistant\n<think>\n\n</think>\n\n", None),  # Qwen3 with enable_thinking=False
        ("<|im_start|>assistant\n", None),  # the model opens its own thought (Qwen3 hybrid)
        ("<|User|>Think with <think> tags.<|Assistant|>", None),  # a tag in the question is not an opening
        ("<|im_start|>assistant\n<|begin_of_thought|>\n\n", "begin_of_thought"),
        ("<|start|>assistant<|channel|>analysis<|message|>", "harmony"),
        ("<|im_assistant|>assistant<|im_middle|>◁think▷", "kimi"),
        ("<s>[INST]1+1[/INST][THINK]", "mistral"),
        ("<seed:bos>assistant\n<seed:think>", "seed"),
        ("Say the analysis", None),  # a header in words is a model's, never a template's
    ],
)
def test_opened_thought_reads_the_end_of_the_generation_prompt(prompt: str, expected: str | None) -> None:
    assert opened_thought(prompt) == expected


def test_opened_thought_says_what_it_needs() -> None:
    with pytest.raises(VerifierInputError, match="tokenizer with a chat template"):
        opened_thought(42)
    with pytest.raises(VerifierInputError, match="could not render"):
        opened_thought(_tokenizer("{% if %}"))


def test_a_template_opened_thought_without_its_close_is_cut_off() -> None:
    text = "Let me try. So x = \\boxed{4}. But wait, the second case"
    plain, opened = read_completion(text), read_completion(text, opened="think")
    assert plain.final == text and plain.format is None  # unchanged without the setting
    assert opened.final is None and opened.format == "think" and opened.text == text
    assert "never closed" in opened.note and "chat template opened it" in opened.note
    closed = read_completion("Hmm, 3?\n</think>\n\nIt is 4.<|im_end|>", opened="think")
    assert (closed.thinking, closed.final, closed.residue) == ("Hmm, 3?", "\n\nIt is 4.", "<|im_end|>")
    ended = read_completion("So \\boxed{4}<|im_end|>\\boxed{4}", opened="think")
    assert ended.final is None  # the turn ended inside the thought


@pytest.mark.parametrize("fmt", [f for f in THINKING_FORMATS if f.start and not f.at_start], ids=lambda f: f.name)
def test_every_family_opened_by_its_template(fmt: object) -> None:
    end = fmt.end[0]  # type: ignore[attr-defined]
    name = fmt.name  # type: ignore[attr-defined]
    assert read_completion("the value 4, maybe", opened=name).final is None
    assert (read_completion(f"4, maybe{end}It is 5.", opened=name).final or "").strip().startswith("It is 5.")


def test_math_pays_no_value_written_while_thinking() -> None:
    cut = "Let me think. The boxed value so far is \\boxed{4}. But wait, check the other case"
    assert verify("4", cut).correct  # told nothing, the thought reads as a plain answer (the bug)
    result = verify("4", cut, config=OPENED)
    assert result.status == "no_answer" and "chat template opened it" in result.reason
    assert verify("4", "x is 4?\n</think>\n\nThe answer is \\boxed{4}.", config=OPENED).correct
    assert not verify("4", "x is 4.\n</think>\n\nThe answer is \\boxed{5}.", config=OPENED).correct
    assert not verify("4", "\\boxed{4}<|im_end|>\nmore", config=OPENED).correct
    # the gold is never read as a completion: a gold that states its answer still reads
    assert verify("The answer is $\\boxed{4}$.", "Hmm.</think>The answer is 4.", config=OPENED).correct


def test_thought_opened_names_a_known_format() -> None:
    with pytest.raises(VerifierInputError, match="thought_opened must name one of"):
        MathConfig(thought_opened="<think>")
    assert MathConfig(think_start="<reason>", think_end="</reason>", thought_opened="custom").thought_opened == "custom"
