"""verifiers.structure: where the answer is, in every reasoning-model family's format, and the
math verifier, the code extractor and the answer formats reading only the final section."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from grpo_envs import ANSWER_TAGS, THINK_ANSWER
from verifiers import VerifierInputError
from verifiers import math as vm
from verifiers.code import extract_code
from verifiers.math import MathConfig
from verifiers.structure import END_OF_TURN, THINKING_FORMATS, ThinkingFormat, read_completion

sys.path.insert(0, str(Path(__file__).parent))
from thinking_shapes import SHAPES, render  # noqa: E402

NAMES = [name for name, _, _ in SHAPES]
CUT = [(name, cut) for name, _, cut in SHAPES if cut is not None]
THOUGHT = "Let me work it out. Six times seven is 42, so the answer is \\boxed{42}. Hmm"


# -- the four cases of every family ------------------------------------------------------------
@pytest.mark.parametrize(("name", "closed"), [(n, c) for n, c, _ in SHAPES], ids=NAMES)
def test_the_answer_after_the_thinking_is_read(name: str, closed: str) -> None:
    text = render(closed, "Let me work it out. Maybe 41? No: six times seven.", "The answer is $\\boxed{42}$.")
    result = vm.verify("42", text)
    assert result.status == "correct", (name, result)
    assert read_completion(text).thinking is not None, name


@pytest.mark.parametrize(("name", "closed"), [(n, c) for n, c, _ in SHAPES], ids=NAMES)
def test_a_right_value_only_in_the_thinking_never_counts(name: str, closed: str) -> None:
    wrong_final = vm.verify("42", render(closed, THOUGHT, "The answer is $\\boxed{43}$."))
    assert wrong_final.status == "incorrect", (name, wrong_final)
    no_final = vm.verify("42", render(closed, THOUGHT, "I could not finish in time."))
    assert no_final.correct is not True, (name, no_final)


@pytest.mark.parametrize(("name", "cut"), CUT, ids=[n for n, _ in CUT])
def test_a_thinking_section_cut_off_is_no_answer_with_a_reason(name: str, cut: str) -> None:
    result = vm.verify("42", render(cut, THOUGHT + " wait"))
    assert result.status == "no_answer", (name, result)
    assert "never" in result.reason, result.reason


@pytest.mark.parametrize(("name", "closed"), [(n, c) for n, c, _ in SHAPES], ids=NAMES)
def test_what_follows_the_end_of_the_turn_is_never_read(name: str, closed: str) -> None:
    text = render(closed, "Six sevens.", "The answer is $\\boxed{41}$.") + "\nUser: and now? \\boxed{42}"
    ended = read_completion(text).residue
    if ended:  # the family's turn ended before the role-play: the 42 after it never counts
        assert vm.verify("42", text).correct is not True, name


# -- look-alikes and the rules' edges --------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "format", "final"),
    [
        # section delimiters are not end-of-turn tokens (the Sky-T1 regression)
        (
            "<|begin_of_thought|>11<|end_of_thought|><|begin_of_solution|>12<|end_of_solution|>",
            "begin_of_thought",
            "12",
        ),
        # Harmony's <|end|> closes a message; it ends a Phi or Apriel turn
        (
            "<|channel|>analysis<|message|>1<|end|><|start|>assistant<|channel|>final<|message|>2<|return|>",
            "harmony",
            "2",
        ),
        ("<think>1</think>2<|end|>3", "think", "2"),
        # Gemma 4's channel is not Harmony's
        ("<|channel>thought\n1<channel|>2", "gemma", "2"),
        # <thinking> is not <think>
        ("<thinking>1</thinking>2", "thinking", "2"),
        # prose that starts with a delimiter's word is not thinking
        ("analysis of the problem gives 5", None, "analysis of the problem gives 5"),
        ("Here is my answer: 5", None, "Here is my answer: 5"),
        # a header of words counts only at the start
        ("So. Here is my thought process: 5", None, "So. Here is my thought process: 5"),
        # the template's header is dropped, then the thinking is found
        ("<|im_start|>assistant\n<think>1</think>2<|im_end|>", "think", "2"),
        # a closing delimiter alone: the template opened the thinking
        ("1</think>2", "think", "2"),
        # several thinking sections (interleaved): only after the last
        ("<think>1</think>x<think>2</think>3", "think", "3"),
        # a plain completion, and one that ended its turn before a role-played think
        ("The answer is 5.", None, "The answer is 5."),
        ("5<|im_end|><|im_start|>user\n<think>6</think>7", None, "5"),
    ],
)
def test_look_alikes(text: str, format: str | None, final: str) -> None:
    read = read_completion(text)
    assert (read.format, read.final) == (format, final)


def test_opened_again_after_the_last_close_is_cut_off() -> None:
    read = read_completion("<think>1</think>2<think>3")
    assert read.final is None and "never closed" in read.note


def test_the_issues_example_pays_the_final_answer_not_the_thinking() -> None:
    text = (
        "<|begin_of_thought|>the answer is 11<|end_of_thought|>"
        "<|begin_of_solution|>The answer is \\boxed{12}.<|end_of_solution|>"
    )
    assert vm.verify("11", text).status == "incorrect"
    assert vm.verify("12", text).status == "correct"
    assert vm.verify("11", "◁think▷... So the answer is 11. wait").status == "no_answer"


def test_every_format_and_end_token_is_unique_and_well_formed() -> None:
    names = [f.name for f in THINKING_FORMATS]
    assert len(names) == len(set(names))
    assert len(END_OF_TURN) == len(set(END_OF_TURN))
    section = {d for f in THINKING_FORMATS for d in f.delimiters}
    assert not section & (set(END_OF_TURN) - {t for f in THINKING_FORMATS for t in f.turn_tokens})


def test_a_format_of_your_own_and_switching_detection_off() -> None:
    mine = ThinkingFormat("scratch", start=("<scratch>",), end=("</scratch>",))
    config = MathConfig(thinking_formats=(mine,))
    assert vm.verify("5", "<scratch>\\boxed{5}</scratch>\\boxed{6}", config=config).status == "incorrect"
    assert vm.verify("5", "<scratch>\\boxed{5}", config=config).status == "no_answer"
    custom = MathConfig(think_start="<reasoning>", think_end="</reasoning>")
    assert vm.verify("5", "<reasoning>\\boxed{6}</reasoning>\\boxed{5}", config=custom).status == "correct"
    assert vm.verify("5", "<think>\\boxed{6}</think>\\boxed{5}", config=custom).status == "correct"
    off = MathConfig(think_end=None)
    assert vm.verify("5", "<think>\\boxed{5}", config=off).status == "correct"


@pytest.mark.parametrize(
    "bad",
    [
        {"name": "x", "start": "<a>", "end": ("</a>",)},
        {"name": "x", "start": (), "end": ()},
        {"name": "x", "start": ("",), "end": ("</a>",)},
    ],
)
def test_a_malformed_format_is_refused_in_one_line(bad: dict[str, object]) -> None:
    with pytest.raises(VerifierInputError, match="ThinkingFormat"):
        ThinkingFormat(**bad)  # type: ignore[arg-type]
    with pytest.raises(VerifierInputError, match="thinking_formats"):
        MathConfig(thinking_formats=("<think>",))  # type: ignore[arg-type]


# -- code and tagged answers ----------------------------------------------------------------
FENCED = "```python\nprint(42)\n```"


@pytest.mark.parametrize(("name", "closed"), [(n, c) for n, c, _ in SHAPES], ids=NAMES)
def test_code_is_taken_from_the_final_section_only(name: str, closed: str) -> None:
    assert extract_code(render(closed, "Draft:\n```python\nprint(41)\n```\n", FENCED)) == "print(42)\n", name
    thought_only = extract_code(render(closed, "Draft:\n```python\nprint(42)\n```\n", "Done."))
    assert thought_only != "print(42)\n", name


@pytest.mark.parametrize(("name", "cut"), CUT, ids=[n for n, _ in CUT])
def test_code_in_a_thinking_section_cut_off_is_no_code(name: str, cut: str) -> None:
    assert extract_code(render(cut, "Draft:\n" + FENCED + "\nbut wait")) is None, name


@pytest.mark.parametrize(("name", "closed"), [(n, c) for n, c, _ in SHAPES], ids=NAMES)
def test_answer_tags_and_think_answer_read_the_final_section(name: str, closed: str) -> None:
    inside = render(closed, "Maybe <answer>41</answer>.", "<answer>42</answer>")
    assert ANSWER_TAGS.extract(inside) == "42", name
    assert ANSWER_TAGS.extract(render(closed, "Maybe <answer>42</answer>.", "It is done.")) != "42", name
    assert THINK_ANSWER.extract(render(closed, "Six sevens.", "42")) == "42", name


def test_courtesy_trimming_never_reaches_inside_a_tag() -> None:
    assert vm.extract_answer("<answer>apple, thanks, zoo</answer>") == "apple, thanks, zoo"
    assert vm.extract_answer("<answer>7</answer> Thanks for asking!") == "7"
