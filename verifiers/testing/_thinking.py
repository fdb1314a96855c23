"""Completions whose right answer is only in the thinking: the "thinking never counts" law.

A reasoning model writes a thinking section, then a final answer, in its family's own format.
A verifier that reads the thinking pays a model for a right value it later abandoned, or for an
output cut off by the token limit in mid-thought. Each shape below is one family's raw format
(from its chat template and vLLM's reasoning parser); the completions put a right answer (a
rendering of the gold) in the thinking, then a wrong final answer, no final answer, or nothing
at all (cut off), or a thought the turn ended inside (an end-of-turn token before it closed).

Only what a verifier can judge from the completion alone is drawn: a thought the chat template
opened in the prompt (R1, Qwen3-Thinking: the completion holds only ``</think>``) is drawn closed,
and its thinking holds no end-of-turn token (``<|im_end|>`` ends Qwen's turn: what precedes it,
with no delimiter seen, reads as a plain answer to any verifier not told about the template); a
right answer drawn into a thought never carries a thinking delimiter of its own.

A verifier that can be told the template opened the thought (`check_verifier`'s
``opened_thought``) is judged on those too: `opened_thinking` draws them for a family of
`OPENED_BY_TEMPLATE` (cut off with no delimiter at all, or ended by the turn's end inside it).
"""

from __future__ import annotations

from hypothesis import strategies as st

from verifiers.structure import END_OF_TURN, THINKING_FORMATS
from verifiers.testing._problems import Problem

__all__ = ["OPENED_BY_TEMPLATE", "THINKING_SHAPES", "cut_off_thinking", "opened_thinking", "thinking_completions"]

THINKING_SHAPES: tuple[tuple[str, str, str | None], ...] = (
    ("<think> (R1, Qwen3, GLM, Phi-4, Kimi K2, ...)", "<think>\n{t}\n</think>\n\n{f}", "<think>\n{t}"),
    ("</think> alone (the template opened it)", "{t}\n</think>\n\n{f}", None),
    ("<think> + <answer> (Hunyuan, GLM-4.1V)", "<think>{t}</think>\n<answer>{f}</answer>", "<think>{t}"),
    ("<think> + <response> (Granite 3.3, ERNIE)", "<think>{t}</think><response>{f}</response>", "<think>{t}"),
    (
        "begin_of_thought (Sky-T1, OpenThoughts)",
        "<|begin_of_thought|>\n\n{t}\n\n<|end_of_thought|>\n\n<|begin_of_solution|>\n\n{f}\n\n<|end_of_solution|>",
        "<|begin_of_thought|>\n\n{t}",
    ),
    (
        "Harmony (gpt-oss)",
        "<|channel|>analysis<|message|>{t}<|end|><|start|>assistant<|channel|>final<|message|>{f}<|return|>",
        "<|channel|>analysis<|message|>{t}",
    ),
    ("Harmony decoded without special tokens", "analysis{t}assistantfinal{f}", "analysis{t}"),
    ("◁think▷ (Kimi-VL)", "◁think▷{t}◁/think▷{f}", "◁think▷{t}"),
    ("<seed:think> (Seed-OSS)", "<seed:think>{t}</seed:think>{f}<seed:eos>", "<seed:think>{t}"),
    ("<mm:think> (MiniMax-M3)", "<mm:think>{t}</mm:think>{f}", "<mm:think>{t}"),
    ("[THINK] (Magistral)", "[THINK]{t}[/THINK]{f}</s>", "[THINK]{t}"),
    ("<thought> (EXAONE Deep)", "<thought>\n{t}\n</thought>\n{f}[|endofturn|]", "<thought>\n{t}"),
    (
        "Cohere Command A Reasoning",
        "<|START_THINKING|>{t}<|END_THINKING|><|START_RESPONSE|>{f}<|END_RESPONSE|>",
        "<|START_THINKING|>{t}",
    ),
    ("Gemma 4 thought channel", "<|channel>thought\n{t}<channel|>{f}<turn|>", "<|channel>thought\n{t}"),
    (
        "Granite 3.2 headers",
        "Here is my thought process:\n{t}\n\nHere is my response:\n{f}",
        "Here is my thought process:\n{t}",
    ),
    (
        "Apriel headers",
        "Here are my reasoning steps:\n{t}\n[BEGIN FINAL RESPONSE]\n{f}\n[END FINAL RESPONSE]\n<|end|>",
        "Here are my reasoning steps:\n{t}",
    ),
)
"""(family, closed, cut off): ``{t}`` is the thinking, ``{f}`` the final section; ``cut off`` is
None where a cut-off output carries no delimiter (the template opened the thinking)."""

_NO_FINAL = ("I ran out of time before finishing.", "", "Let me start over.")

TURN_ENDS: dict[str, str] = {
    "<think>": "<|im_end|>",
    "<think> + <answer>": "<|im_end|>",
    "<think> + <response>": "<|end_of_text|>",
    "begin_of_thought": "<|im_end|>",
    "Harmony (gpt-oss)": "<|return|>",
    "◁think▷": "<|im_end|>",
    "<seed:think>": "<seed:eos>",
    "<mm:think>": "[e~[",
    "[THINK]": "</s>",
    "<thought>": "[|endofturn|]",
    "Cohere": "<|END_OF_TURN_TOKEN|>",
    "Gemma 4": "<turn|>",
    "Granite 3.2": "<|end_of_text|>",
    "Apriel": "<|end|>",
}
"""A family (a prefix of its name in `THINKING_SHAPES`) -> the token that ends its turn."""

_DELIMITERS = tuple({d for f in THINKING_FORMATS for d in f.delimiters} | set(END_OF_TURN))


def _plain(text: str) -> bool:
    """No thinking delimiter and no end-of-turn token in ``text`` (safe to place in a thought)."""
    return not any(d in text for d in _DELIMITERS)


def _turn_end(family: str) -> str | None:
    prefixes = [prefix for prefix in TURN_ENDS if family.startswith(prefix)]
    return TURN_ENDS[max(prefixes, key=len)] if prefixes else None


def _fill(template: str, thinking: str, final: str) -> str:
    return template.replace("{t}", thinking).replace("{f}", final)


@st.composite
def thinking_completions(draw: st.DrawFn, problem: Problem) -> str:
    """A completion with a right answer to ``problem`` only in its thinking section, in one of
    `THINKING_SHAPES`: then a wrong final answer (a near miss), no final answer, or a cut-off
    thought. No verifier may judge it correct."""
    name, closed, cut = draw(st.sampled_from(THINKING_SHAPES))
    right = draw(problem.renderings.filter(_plain))
    thinking = f"Let me work through it.\n{right}\nBut wait, let me check that again"
    ending = draw(st.sampled_from(["wrong", "none", "cut", "ended"] if cut is not None else ["wrong", "none"]))
    if ending in ("cut", "ended"):
        assert cut is not None
        end = _turn_end(name) if ending == "ended" else None
        tail = f"{end}\n{_fill(closed, '', draw(problem.renderings.filter(_plain)))}" if end else ""
        return cut.replace("{t}", thinking) + tail
    final = draw(problem.near_misses) if ending == "wrong" else draw(st.sampled_from(_NO_FINAL))
    return _fill(closed, thinking + ".", final)


@st.composite
def cut_off_thinking(draw: st.DrawFn, problem: Problem) -> str:
    """A completion whose thinking section never closed, in each family with an opening
    delimiter: cut off by the token limit, or its turn ended inside the thought (the family's
    end-of-turn token, then anything). Such a completion has no final section
    (`verifiers.structure.read_completion` gives ``final=None``): a verifier must still return a
    verdict (the totality law draws these in every text domain)."""
    name, _, cut = draw(st.sampled_from([s for s in THINKING_SHAPES if s[2] is not None]))
    assert cut is not None
    thinking = draw(st.sampled_from(["", "Let me think.", f"So far: {draw(problem.renderings)}"]))
    end = _turn_end(name)
    tail = draw(st.sampled_from(["", f"{end}", f"{end}\nThe answer is {problem.gold}."])) if end else ""
    return cut.replace("{t}", thinking) + tail


OPENED_BY_TEMPLATE: dict[str, tuple[str, ...]] = {
    "think": ("<|im_end|>", "<｜end▁of▁sentence｜>"),
}
"""Formats whose section known chat templates open in the prompt -> their turns' end tokens:
``<think>`` (DeepSeek-R1 and its distills, QwQ, Qwen3-Thinking-2507: the generation prompt ends
with ``<think>\n``)."""


@st.composite
def opened_thinking(draw: st.DrawFn, problem: Problem, name: str) -> str:
    """A completion after a prompt that opened ``name``'s thought, with a right answer only in the
    thought: cut off (no delimiter at all), ended by the turn's end inside it (a right answer
    after), or closed, then a wrong or no final answer. No verifier told the template opened
    the thought may judge it correct."""
    end = next(f.end[0] for f in THINKING_FORMATS if f.name == name)
    right = draw(problem.renderings.filter(_plain))
    thinking = f"Let me work through it.\n{right}\nBut wait, let me check that again"
    ending = draw(st.sampled_from(["cut", "ended", "wrong", "none"]))
    if ending == "cut":
        return thinking
    if ending == "ended":
        turn_end = draw(st.sampled_from(OPENED_BY_TEMPLATE[name]))
        return f"{thinking}{turn_end}\n{draw(problem.renderings.filter(_plain))}"
    final = draw(problem.near_misses) if ending == "wrong" else draw(st.sampled_from(_NO_FINAL))
    return f"{thinking}.\n{end}\n\n{final}"


def every_cut_off(gold: str) -> list[str]:
    """One cut-off thought and one ended-inside thought per family, around ``gold`` (the
    explicit examples every totality run tries first)."""
    out = []
    for name, _, cut in THINKING_SHAPES:
        if cut is not None:
            out.append(cut.replace("{t}", f"Let me think. {gold}"))
            end = _turn_end(name)
            if end:
                out.append(cut.replace("{t}", f"So {gold}") + f"{end}\n\\boxed{{{gold}}}")
    return out
