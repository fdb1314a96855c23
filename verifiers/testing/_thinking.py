"""Completions whose right answer is only in the thinking: the "thinking never counts" law.

A reasoning model writes a thinking section, then a final answer, in its family's own format.
A verifier that reads the thinking pays a model for a right value it later abandoned, or for an
output cut off by the token limit in mid-thought. Each shape below is one family's raw format
(from its chat template and vLLM's reasoning parser); the completions put a right answer (a
rendering of the gold) in the thinking, then a wrong final answer, no final answer, or nothing
at all (cut off).
"""

from __future__ import annotations

from hypothesis import strategies as st

from verifiers.testing._problems import Problem

__all__ = ["THINKING_SHAPES", "thinking_completions"]

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


def _fill(template: str, thinking: str, final: str) -> str:
    return template.replace("{t}", thinking).replace("{f}", final)


@st.composite
def thinking_completions(draw: st.DrawFn, problem: Problem) -> str:
    """A completion with a right answer to ``problem`` only in its thinking section, in one of
    `THINKING_SHAPES`: then a wrong final answer (a near miss), no final answer, or a cut-off
    thought. No verifier may judge it correct."""
    name, closed, cut = draw(st.sampled_from(THINKING_SHAPES))
    right = draw(problem.renderings)
    thinking = f"Let me work through it.\n{right}\nBut wait, let me check that again"
    ending = draw(st.sampled_from(["wrong", "none", "cut"] if cut is not None else ["wrong", "none"]))
    if ending == "cut":
        assert cut is not None
        return cut.replace("{t}", thinking)
    final = draw(problem.near_misses) if ending == "wrong" else draw(st.sampled_from(_NO_FINAL))
    return _fill(closed, thinking + ".", final)
